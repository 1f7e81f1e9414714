/*
 * taskend.c - the phrase for how a task ended (taskend.h).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "common/taskend.h"
#include "lpvm_priv.h"

char *taskend_text(char *buf, size_t size, int state, int code, int core)
{
	if (state == LPVM_END_SIGNALED) {
		/* sigabbrev_np: glibc 2.32; NULL for a number it lacks */
		const char *abbrev = sigabbrev_np(code);
		snprintf(buf, size, "killed by signal %d (SIG%s)%s", code,
			 abbrev ? abbrev : "?", core ? ", core dumped" : "");
	} else {
		snprintf(buf, size, "exited with status %d", code);
	}
	return buf;
}

int taskend_shell_status(int state, int code)
{
	return state == LPVM_END_SIGNALED ? 128 + code : code;
}

const char *taskend_errstr(int code)
{
	extern char *pvm_errlist[]; /* exported by libpvm3, as in PVM 3.4 */
	extern int pvm_nerr;
	static char buf[32];

	if (code <= 0 && code > -pvm_nerr && pvm_errlist[-code])
		return pvm_errlist[-code];
	snprintf(buf, sizeof buf, "Error %d", code);
	return buf;
}
