/*
 * error.c - PVM error codes, their messages, and automatic reporting.
 */
#include "lpvm.h"

#include <stdio.h>
#include <unistd.h>

int pvm_errno = 0;

/* Indexed by -code; 37 entries like PVM 3.4.6 (programs may link the array
 * by copy relocation, so its size matters). */
char *pvm_errlist[37] = {
	"Error 0",
	"Error 1",
	"Bad parameter",
	"Parameter mismatch",
	"Value too large",
	"End of buffer",
	"No such host",
	"No such file",
	"Permission denied",
	"Error 9",
	"Malloc failed",
	"Error 11",
	"Can't decode message",
	"Error 13",
	"Can't contact local daemon",
	"No current buffer",
	"No such buffer",
	"Null group name",
	"Already in group",
	"No such group",
	"Not in group",
	"No such instance",
	"Host failed",
	"No parent task",
	"Not implemented",
	"Pvmd system error",
	"Version mismatch",
	"Out of resources",
	"Duplicate host",
	"Can't start pvmd",
	"Already in progress",
	"No such task",
	"Not Found",
	"Already exists",
	"Hoster run on non-master host",
	"Spawning parent set PvmNoSpawnParent",
	"Master Host IP is Loopback",
};

int pvm_nerr = 37;

int lp_autoerr = 1;
int lp_selftid = 0;

const char *lp_errstr(int code)
{
	if (code <= 0 && -code < pvm_nerr)
		return pvm_errlist[-code];
	return "Unknown error";
}

int lp_err(const char *fn, int code)
{
	if (code >= 0)
		return code;
	pvm_errno = code;
	if (lp_autoerr) {
		if (lp_selftid > 0)
			fprintf(stderr, "libpvm [t%x]: %s(): %s\n", (unsigned)lp_selftid,
				fn, lp_errstr(code));
		else
			fprintf(stderr, "libpvm [pid%d]: %s(): %s\n", (int)getpid(), fn,
				lp_errstr(code));
	}
	return code;
}
