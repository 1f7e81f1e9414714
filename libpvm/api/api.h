/*
 * api.h - internals shared by the files of libpvm/api/ (the entry points
 * that talk to the pvmd: tasks, spawn, notify, contexts, options...).
 */
#ifndef LPVM_API_H
#define LPVM_API_H

#include <stdint.h>
#include <stdio.h>

#include "lpvm.h"
#include "pvmtev.h"

/* Exported names PVM 3.4.6 had outside the pvm_ prefix (no header of the
 * reference declares them; programs declare them themselves). */
extern int pvmmyctx;
extern struct Pvmtracer pvmctrc;
int lpvmerr(char *f, int n);
int pvmgetclock(struct timeval *tm);
int pvmsleep(int secs);
char *pvmnametag(int tag, int *found);

/*
 * Enrolls if needed (as every PVM call does) and keeps the variables
 * programs may read (pvmmyctx, pvmctrc) in step with the task state.
 * Returns 0, or the error already reported through lp_err(fn, ...).
 */
int lp_api_enroll(const char *fn);

/*
 * One control call: sends `code` with payload `req` (NULL for none), and
 * on success leaves the reply in *rd (positioned after the status word,
 * which is returned) and its memory in *mem for the caller to free.
 * Returns the status (>= 0, or a PVM error code from the pvmd), or
 * PvmSysErr / PvmNoMem / PvmBadMsg when the call itself failed.  Does not
 * report errors: the caller decides what lp_err sees.
 */
int lp_api_call(int code, const struct wire_wr *req, struct wire_rd *rd,
		uint8_t **mem);
/* lp_api_call watched by w while it waits (lpvm.h; NULL: none). */
int lp_api_call_watched(int code, const struct wire_wr *req, struct wire_rd *rd,
			uint8_t **mem, struct lp_ctl_watch *w);

/* A control call whose reply is only its status: sends `code` with `req`,
 * frees `req` and the reply, and returns the status (0 or an error). */
int lp_api_status(int code, struct wire_wr *req);
/* With PvmDebugMask set, each control call is logged on stderr as
 * "libpvm [t40001] TM_SPAWN: request N bytes, status S". */
void lp_api_debug_call(int code, size_t reqlen, int status);

/* After leaving the machine (pvm_exit, pvm_halt): closes every
 * connection and forgets the enrollment, the queued messages and the
 * children's output in progress. */
void lp_api_left(void);

/* Copies what programs may read directly (pvmmyctx, pvmctrc) from lp;
 * called whenever enrollment or an option changes them. */
void lp_api_sync(void);

/* ---- collected output of children (catchout.c) ---- */

/* Tag and context of output messages for pvm_catchout, the reference's
 * TC_OUTPUT and SYSCTX_TC: PvmOutputCode / PvmOutputContext show them. */
#define LP_OUTPUT_TAG ((int)0x80030005)
#define LP_OUTPUT_CTX 0x7ffff

/* The filter of every unordered message that arrives whole (msg.h): an
 * output message for pvm_catchout is printed and freed (returns 1);
 * anything else is left alone (returns 0). */
int lp_output_msg(struct lp_buf *b);
/* pvm_exit: while collection is on, waits until every task sending us
 * output has ended it. */
void lp_output_wait(void);
/* After leaving the machine: prints partial lines, forgets the tasks. */
void lp_output_reset(void);

/* Whether `tid` has the shape of a task tid (no daemon or multicast
 * bit, nonzero host and task parts). */
int lp_api_task_tid(int tid);

/* Writes the environment pvm_spawn passes (PVM_EXPORT): i32 n, then n
 * strings "NAME=value".  Returns n or PvmNoMem. */
int lp_api_export_env(struct wire_wr *w);

/* The stream pvm_catchout() named (NULL: off); see catchout.c. */
extern FILE *lp_catchout_fp;

#endif /* LPVM_API_H */
