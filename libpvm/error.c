/*
 * error.c - PVM error codes, their messages, and automatic reporting.
 */
#include "lpvm.h"
#include "api/api.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int pvm_errno = 0;

/* Indexed by -code; 37 entries like PVM 3.4.6 (programs may link the array
 * by copy relocation, so its size matters).  The texts are the
 * reference's, word for word: consoles and programs print them. */
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
	"Already Exists",
	"Hoster must run on master host",
	"Spawning parent set PvmNoParent",
	"Master Host IP Address is Loopback! (See pvm3/Readme)",
};

int pvm_nerr = 37;

int lp_autoerr = 1;
int lp_selftid = 0;

const char *lp_errstr(int code)
{
	/* (compared as it is: a pvmd may answer INT_MIN, whose negation
	 * overflows; console/cmd_fuzz found it) */
	if (code <= 0 && code > -pvm_nerr)
		return pvm_errlist[-code];
	return "Unknown Error"; /* the reference's spelling */
}

/* SIGPIPE is blocked in this thread for the write; one that the write
 * raised is taken from the pending set before it is unblocked (one that
 * was pending already is left alone). */
void lp_stderr(const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof line)
		n = (int)sizeof line - 1;
	fflush(stderr); /* the program's own text first */
	sigset_t pipe, old, pending;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	sigpending(&pending);
	int was_pending = sigismember(&pending, SIGPIPE);
	int saved = errno;
	ssize_t w = write(STDERR_FILENO, line, (size_t)n);
	if (w < 0 && errno == EPIPE && !was_pending) {
		const struct timespec none = {0, 0};
		sigtimedwait(&pipe, NULL, &none);
	}
	errno = saved;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Prints "libpvm [t40001]: what: text" ("[pid<n>]" before enrolling). */
static void say(const char *what, const char *sep, const char *text)
{
	if (lp_selftid > 0)
		lp_stderr("libpvm [t%x]: %s%s%s\n", (unsigned)lp_selftid, what,
			  sep, text);
	else
		lp_stderr("libpvm [pid%d]: %s%s%s\n", (int)getpid(), what, sep,
			  text);
}

static int (*leave)(void);

void lp_err_set_leave(int (*f)(void))
{
	leave = f;
}

int lp_err(const char *fn, int code)
{
	static int leaving;

	if (code >= 0)
		return code;
	pvm_errno = code;
	if (lp_autoerr && !leaving) {
		say(fn, "(): ", lp_errstr(code));
		/* PvmAutoErr 2 leaves PVM and exits with the code as status,
		 * 3 aborts, as the reference does. */
		if (lp_autoerr == 2) {
			leaving = 1;
			if (leave)
				leave();
			exit(code);
		}
		if (lp_autoerr == 3)
			abort();
	}
	return code;
}

int lp_err_but(const char *fn, int code, int quiet1, int quiet2)
{
	if (code < 0 && (code == quiet1 || code == quiet2)) {
		pvm_errno = code;
		return code;
	}
	return lp_err(fn, code);
}

int lpvmerr(char *f, int n)
{
	/* The reference's exported reporter: lp_err, except that it also
	 * prints codes >= 0 (as "Error 0", "Unknown Error") and stores them
	 * in pvm_errno. */
	if (!f)
		f = "(null)";
	if (n < 0)
		return lp_err(f, n);
	pvm_errno = n;
	if (lp_autoerr)
		say(f, "(): ", lp_errstr(n));
	return n;
}

int pvm_perror(char *msg)
{
	say(msg ? msg : "(null)", ": ", lp_errstr(pvm_errno));
	return 0;
}

char *pvm_strerror(void)
{
	return (char *)lp_errstr(pvm_errno);
}
