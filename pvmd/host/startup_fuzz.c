/*
 * startup_fuzz.c - libFuzzer target: the startup lines a new slave pvmd
 * reads (pvmd/host/slave.c), on stdin from ssh or as arguments from a
 * registered hoster: the first input a pvmd on another host trusts.
 *
 * Input byte 0, bit 0: the rest is stdin; else it is the argument list,
 * NUL-separated.  exit() (a refused start) returns here (fuzz_pvmd.h);
 * setenv and unsetenv are wrapped (fuzz_env.c) so that the values
 * land in a table of the harness's, not in the real environment.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvmd/fuzz_pvmd.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/host/fuzz_env.h"

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static struct pvmd pv;
	struct pvmd *d = &pv;
	static FILE *devnull;
	if (n < 1)
		return 0;
	if (!devnull) {
		/* the slave's answer line goes to stdout */
		devnull = freopen("/dev/null", "w", stdout);
		if (!devnull)
			abort();
	}
	pvmd_state_init(d);
	if (host_layer_new(d) < 0)
		abort();
	fz_env_clear();
	uint8_t mode = in[0];
	char *buf = malloc(n);
	if (!buf)
		abort();
	memcpy(buf, in + 1, n - 1);
	buf[n - 1] = 0;
	char *argv[256];
	int argc = 0;
	FILE *f = NULL;
	if (mode & 1) {
		if (n > 1)
			f = fmemopen(buf, n - 1, "r");
	} else {
		for (char *p = buf; p < buf + n - 1 && argc < 255;
		     p += strlen(p) + 1)
			argv[argc++] = p;
		argv[argc] = NULL;
	}
	FILE *saved = stdin;
	if (!setjmp(fz_exit_jmp)) {
		fz_exit_armed = 1;
		if (mode & 1) {
			if (f) {
				stdin = f;
				host_read_startup(d);
			}
		} else {
			host_read_startup_args(d, argc, argv);
		}
	}
	fz_exit_armed = 0;
	stdin = saved;
	if (f)
		fclose(f);
	free(buf);
	free(d->hosts);
	d->hosts = NULL;
	return 0;
}
