/*
 * lpvm.h - state and internal interfaces of the task library.
 *
 * Names with the lp_ prefix are internal; only pvm_* (and the few other
 * names PVM 3.4.6 exported) leave libpvm3.so.
 */
#ifndef LPVM_H
#define LPVM_H

#include "buf.h"
#include "pvm3.h"

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
/* Message text of an error code ("Unknown error" for others). */
const char *lp_errstr(int code);

/* Read by lp_err: the PvmAutoErr option (default 1) and this task's tid
 * (0 before enrollment, when messages say [pid<n>] instead). */
extern int lp_autoerr;
extern int lp_selftid;

#endif /* LPVM_H */
