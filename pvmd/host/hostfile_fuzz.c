/*
 * hostfile_fuzz.c - libFuzzer target: the hostfile parser and what the
 * master makes of a host's options on its way to the new pvmd.
 *
 * The input is parsed as a whole hostfile and as one line of
 * pvm_addhosts or the console's `add`.  For every host that is accepted
 * the startup lines the master would send are built and read back by the
 * slave's own parser (slave.c): the slave must take them, and see the
 * same name, vmid, ep=, wd= and bx= the master meant, or a value could
 * smuggle lines of its own (a secret, a host number) into the startup.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pvmd/fuzz_pvmd.h"
#include "pvmd/host/fuzz_env.h"
#include "pvmd/host/hostlayer.h"

static int same(const char *got, const char *want)
{
	return got ? !strcmp(got, want) : !*want;
}

static void round_trip(const struct hostopt *o)
{
	static struct pvmd master, slave;
	static FILE *devnull;
	if (!devnull && !(devnull = freopen("/dev/null", "w", stdout)))
		abort();
	pvmd_state_init(&master);
	pvmd_state_init(&slave);
	if (host_layer_new(&master) < 0 || host_layer_new(&slave) < 0)
		abort();
	struct host h = {.no = 2};
	snprintf(h.name, sizeof h.name, "%s", o->name);
	char lines[8192], cmd[2048];
	hoster_startup_lines(&master, &h, o, 1000, lines, sizeof lines);
	if (hoster_remote_command(o, cmd, sizeof cmd) < 0)
		abort();
	fz_env_clear();
	FILE *f = fmemopen(lines, strlen(lines), "r");
	if (!f)
		abort();
	FILE *saved = stdin;
	int refused = 1;
	if (!setjmp(fz_exit_jmp)) {
		fz_exit_armed = 1;
		stdin = f;
		host_read_startup(&slave);
		refused = 0;
	}
	fz_exit_armed = 0;
	stdin = saved;
	fclose(f);
	if (refused || strcmp(slave.hostname, o->name) ||
	    (slave.hosttid >> WIRE_TID_HOST_SHIFT) != 2 ||
	    !same(fz_env_get("PVM_PATH"), o->ep) ||
	    !same(fz_env_get("PVMD_SLAVE_WD"), o->wd) ||
	    !same(fz_env_get("PVM_DEBUGGER"), o->bx) ||
	    (*o->id && !same(fz_env_get("PVM_VMID"), o->id))) {
		fprintf(stderr, "fuzz: host '%s': the slave read:\n%s\n",
			o->name, lines);
		__builtin_trap();
	}
	free(master.hosts);
	free(slave.hosts);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("hostfile", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, in, n, 0) != (ssize_t)n)
		abort();
	struct hostfile hf;
	char err[1024];
	if (hostfile_load(path, &hf, err, sizeof err) == 0) {
		for (int i = 0; i < hf.n; i++) {
			if (hostfile_find(&hf, hf.hosts[i].name) !=
			    &hf.hosts[i])
				__builtin_trap();
			round_trip(&hf.hosts[i]);
		}
		hostfile_free(&hf);
	}
	/* one line of pvm_addhosts: may hold anything but a NUL */
	char *line = malloc(n + 1);
	if (!line)
		abort();
	memcpy(line, in, n);
	line[n] = 0;
	struct hostopt dflt, o;
	hostopt_default(&dflt);
	if (strlen(line) == n &&
	    hostopt_parse(line, &dflt, &o, err, sizeof err) == 1)
		round_trip(&o);
	free(line);
	return 0;
}
