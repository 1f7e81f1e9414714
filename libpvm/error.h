/*
 * error.h - errors of the task library (error.c): the bottom of libpvm,
 * usable by every layer, pack/ included, without the task's state.
 */
#ifndef LPVM_ERROR_H
#define LPVM_ERROR_H

/* Error state visible to programs (PVM 3.4.6 exports these). */
extern int pvm_errno;
extern int pvm_nerr;
extern char *pvm_errlist[];

/*
 * Records an error of API function `fn`: sets pvm_errno and, when the
 * PvmAutoErr option is on, prints "libpvm [t40001]: fn(): message" to
 * stderr as the reference does.  Returns `code` so that callers can write
 * `return lp_err("pvm_send", PvmBadParam);`.  Codes >= 0 pass through.
 */
int lp_err(const char *fn, int code);
/* The same, but `quiet1` and `quiet2` (codes a caller expects, such as
 * PvmNotFound from pvm_recvinfo) only set pvm_errno, as the reference
 * keeps them quiet. */
int lp_err_but(const char *fn, int code, int quiet1, int quiet2);
/* Message text of an error code ("Unknown error" for others). */
const char *lp_errstr(int code);

/* Writes a message of the library to stderr in one write(2) (lines of
 * tasks sharing stderr stay whole), never raising SIGPIPE: a spawned
 * task's stderr is a pipe to its pvmd, which may have died, and the
 * library must not kill its program with its own message.  Formatted as
 * printf; longer than 1 KiB is cut. */
void lp_stderr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* PvmAutoErr 2 leaves the machine before it exits: the API layer gives
 * lp_err its pvm_exit at start-up. */
void lp_err_set_leave(int (*leave)(void));

/* Read by lp_err: the PvmAutoErr option (default 1) and this task's tid
 * (0 before enrollment, when messages say [pid<n>] instead). */
extern int lp_autoerr;
extern int lp_selftid;

#endif /* LPVM_ERROR_H */
