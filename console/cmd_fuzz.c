/*
 * cmd_fuzz.c - libFuzzer target: the console's command lines (word
 * splitting, quoting, aliases, every command's arguments) and what each
 * command makes of the answers of a pvmd played from the input
 * (libpvm/api/fuzz_peer.h).
 *
 * Input: up to 8 command lines ending at the first NUL byte, then the
 * records of fuzz_peer.h.  The console's output goes to /dev/null.
 */
#include "console.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "api/fuzz_peer.h"
#include "pvm3.h"

struct console cons;

/* The environment as it was before the first input: the setenv, export
 * and unexport commands change it, and what one input set must not reach
 * the next (PVM_EXPORT grew with every export, and each export read it
 * all).  env_work is the copy environ points to while an input runs;
 * setenv may write into it, unsetenv shift it. */
extern char **environ;
static char **env_orig, **env_work;
static size_t env_n;

static void env_save(void)
{
	while (environ[env_n])
		env_n++;
	env_orig = calloc(env_n + 1, sizeof *env_orig);
	env_work = calloc(env_n + 1, sizeof *env_work);
	if (!env_orig || !env_work)
		abort();
	for (size_t i = 0; i < env_n; i++)
		if (!(env_orig[i] = strdup(environ[i])))
			abort();
}

static void env_restore(void)
{
	if (environ == env_work &&
	    !memcmp(env_work, env_orig, (env_n + 1) * sizeof *env_work))
		return;
	memcpy(env_work, env_orig, (env_n + 1) * sizeof *env_work);
	environ = env_work;
}

/* A job's output file ("spawn ->name", a name the input made up) goes
 * to /dev/null: the fuzzer's working directory filled with them. */
int __real_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	if (flags & O_CREAT) {
		va_list ap;
		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	/* (the library's own files live in the played machine's PVM_TMP,
	 * fuzz_peer.c's directory) */
	static char tmp[512];
	if (!tmp[0])
		snprintf(tmp, sizeof tmp, "%s/",
			 getenv("PVM_TMP") ? getenv("PVM_TMP")
					   : "/nonexistent");
	if ((flags & O_CREAT) && strncmp(path, tmp, strlen(tmp)))
		return __real_open("/dev/null", O_WRONLY | O_CLOEXEC);
	return __real_open(path, flags, mode);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static int init;
	if (!init++) {
		fzp_init();
		if (!freopen("/dev/null", "w", stdout))
			abort();
		env_save();
	}
	env_restore();
	const uint8_t *nul = memchr(in, 0, n);
	size_t tlen = nul ? (size_t)(nul - in) : n;
	char *text = malloc(tlen + 1);
	if (!text)
		abort();
	memcpy(text, in, tlen);
	text[tlen] = 0;
	size_t rest = nul ? n - tlen - 1 : 0;
	fzp_start(nul ? nul + 1 : in + n, rest);
	memset(&cons, 0, sizeof cons);
	cons.mytid = pvm_mytid();
	char *save = NULL;
	int lines = 0;
	for (char *l = strtok_r(text, "\n", &save);
	     l && lines < 8 && !cons.quitting;
	     l = strtok_r(NULL, "\n", &save), lines++)
		cmd_execute(l);
	pvm_exit();
	fzp_finish();
	free(text);
	/* what the console keeps from one command line to the next */
	alias_clear();
	jobs_clear();
	hostwatch_clear();
	return 0;
}
