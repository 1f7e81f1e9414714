/*
 * lpvm.h - state and internal interfaces of the task library.
 *
 * Names with the lp_ prefix are internal; only pvm_* (and the few other
 * names PVM 3.4.6 exported) leave libpvm3.so.
 *
 * Layers, top down (the route of one pvm_send; each calls only the ones
 * below it, and the layers above register callbacks for what comes up:
 * docs/architecture.md):
 *   libpvm/api/     entry points that talk to the pvmd (spawn, tasks, ...)
 *   libpvm/msg/     pvm_send/recv family: matching, ordering, handlers
 *   libpvm/tran/    the route table, the progress engine, enrollment, and
 *                   one folder per transport (shm/, direct/, pvmd/)
 *   libpvm/pack/    message buffers (buf.h) and encodings
 *   error.c         errors (error.h)
 */
#ifndef LPVM_H
#define LPVM_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "pack/buf.h"
#include "proto/wire.h"
#include "pvm3.h"

/* ---- task state (libpvm/tran owns enrollment; api/ reads it) ---- */

struct lp_state {
	int enrolled; /* 1 once TM_CONNECT succeeded */
	int mytid;    /* our tid */
	int ptid;     /* parent tid, 0 if none */
	int pflags;  /* TM_CONNECT flags (bit 1: parent set PvmNoSpawnParent) */
	int hosttid; /* tid of our pvmd (0x40000 on host 1) */
	int ctx;     /* current context */
	char *hostname; /* our host's name */
	char *arch;	/* our host's architecture */

	/* options (pvm_setopt); defaults as PVM 3.4.6 */
	int route;     /* PvmRoute: PvmAllowDirect */
	int fragsize;  /* PvmFragSize: 4080 */
	int debugmask; /* PvmDebugMask */
	int resvtids;  /* PvmResvTids */
	int showtids;  /* PvmShowTids: 1 */
	int noreset;   /* PvmNoReset */
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
/* Whether the last lp_enroll failed because no pvmd answered on the
 * socket (not because one refused or went away). */
int lp_enroll_no_pvmd(void);

/*
 * Sends control request `code` with payload `req` (may be NULL for none) to
 * the pvmd and waits for its reply, handling other traffic meanwhile.  On
 * success returns 0 and hands over the reply payload in *reply / *replylen
 * (malloc'd; the caller frees it).  Returns PvmSysErr if the pvmd is gone.
 * Enrolls first if needed.
 */
int lp_ctl_call(int code, const struct wire_wr *req, uint8_t **reply,
		size_t *replylen);

/*
 * What a caller of lp_ctl_call_watched does while it waits: tick runs
 * every period_ms with the time waited so far (ms); when it returns
 * nonzero, or *stop is set (a signal handler's flag: the signal also
 * cuts the wait short), the request cancel_code goes to the pvmd once,
 * with i32 the wid of the call, and the wait goes on, without ticks, for
 * the call's own reply.  cancelled tells whether it went.  tick must
 * not call the library (calls do not nest).
 */
struct lp_ctl_watch {
	int period_ms;
	int (*tick)(void *arg, long waited_ms);
	void *arg;
	const volatile sig_atomic_t *stop; /* NULL: none */
	int cancel_code;
	int cancelled; /* out */
};

/* lp_ctl_call, watched by w (NULL: as lp_ctl_call). */
int lp_ctl_call_watched(int code, const struct wire_wr *req, uint8_t **reply,
			size_t *replylen, struct lp_ctl_watch *w);

/* Sends control message `code` expecting no reply (TM_HALT). */
int lp_ctl_send(int code, const struct wire_wr *req);

/* The largest frame a message is cut into: PvmFragSize (pvm_setopt),
 * bounded by what the wire takes (WIRE_MAX_FRAG). */
uint32_t lp_frag_size(void);

/* Writes out everything queued for sending (before pvm_exit). */
int lp_flush(void);

/* Closes every connection and forgets the enrollment (after TM_EXIT). */
void lp_disconnect(void);

/* Every fd the library waits on (for pvm_getfds): the pvmd socket first,
 * then the direct-route listener and connections.  The array belongs to
 * the library and changes with the next call.  Returns the count. */
int lp_tran_fds(int **fds);

#endif /* LPVM_H */
