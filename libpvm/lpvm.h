/*
 * lpvm.h - state and internal interfaces of the task library.
 *
 * Names with the lp_ prefix are internal; only pvm_* (and the few other
 * names PVM 3.4.6 exported) leave libpvm3.so.
 *
 * Layers, top down (the route of one pvm_send):
 *   libpvm/api/     entry points that talk to the pvmd (spawn, tasks, ...)
 *   libpvm/msg/     pvm_send/recv family: matching, ordering, fragments
 *   libpvm/pack/    message buffers and encodings (buf.h)
 *   libpvm/tran/    transports behind one ops interface: via the pvmd,
 *                   direct task-to-task (later: shared memory, TCP)
 */
#ifndef LPVM_H
#define LPVM_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "pvm3.h"
#include "wire.h"

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

/* ---- task state (libpvm/tran owns enrollment; api/ reads it) ---- */

struct lp_state {
	int enrolled;     /* 1 once TM_CONNECT succeeded */
	int mytid;        /* our tid */
	int ptid;         /* parent tid, 0 if none */
	int pflags;       /* TM_CONNECT flags (bit 1: parent set PvmNoSpawnParent) */
	int hosttid;      /* tid of our pvmd (0x40000 on host 1) */
	int ctx;          /* current context */
	char *hostname;   /* our host's name */
	char *arch;       /* our host's architecture */

	/* options (pvm_setopt); defaults as PVM 3.4.6 */
	int route;        /* PvmRoute: PvmAllowDirect */
	int fragsize;     /* PvmFragSize: 4080 */
	int debugmask;    /* PvmDebugMask */
	int resvtids;     /* PvmResvTids */
	int showtids;     /* PvmShowTids: 1 */
	int noreset;      /* PvmNoReset */
	/* output / trace destinations: for children, and for this task */
	int outtid, outtag, outctx;
	int selfouttid, selfouttag, selfoutctx;
	int trctid, trctag, trcctx, trcbuf, trcopt;
	int selftrctid, selftrctag, selftrcctx, selftrcbuf, selftrcopt;
};

extern struct lp_state lp;

/* ---- the transport layer's services to the API layer ---- */

/* Connects to the pvmd and enrolls (TM_CONNECT) if not done yet.  Returns
 * 0, or PvmSysErr promptly when no pvmd is running (it never starts one). */
int lp_enroll(void);

/*
 * Sends control request `code` with payload `req` (may be NULL for none) to
 * the pvmd and waits for its reply, handling other traffic meanwhile.  On
 * success returns 0 and hands over the reply payload in *reply / *replylen
 * (malloc'd; the caller frees it).  Returns PvmSysErr if the pvmd is gone.
 * Enrolls first if needed.
 */
int lp_ctl_call(int code, const struct wire_wr *req, uint8_t **reply,
		size_t *replylen);

/* Sends control message `code` expecting no reply (TM_HALT). */
int lp_ctl_send(int code, const struct wire_wr *req);

/* Writes out everything queued for sending (before pvm_exit). */
int lp_flush(void);

/* Closes every connection and forgets the enrollment (after TM_EXIT). */
void lp_disconnect(void);

/* Copies what programs may read directly (pvmmyctx, pvmctrc) from lp;
 * called whenever enrollment or an option changes them. */
void lp_api_sync(void);

/* Every fd the library waits on (for pvm_getfds): the pvmd socket first,
 * then the direct-route listener and connections.  The array belongs to
 * the library and changes with the next call.  Returns the count. */
int lp_tran_fds(int **fds);

/* ---- collected output of children (api/catchout.c) ---- */

/* Tag and context of output messages for pvm_catchout, the reference's
 * TC_OUTPUT and SYSCTX_TC: PvmOutputCode / PvmOutputContext show them. */
#define LP_OUTPUT_TAG ((int)0x80030005)
#define LP_OUTPUT_CTX 0x7ffff

/* Called for every message that arrives whole: an output message for
 * pvm_catchout is printed and freed (returns 1); anything else is left
 * alone (returns 0). */
int lp_output_msg(struct lp_buf *b);
/* pvm_exit: while collection is on, waits until every task sending us
 * output has ended it. */
void lp_output_wait(void);
/* After leaving the machine: prints partial lines, forgets the tasks. */
void lp_output_reset(void);

#endif /* LPVM_H */
