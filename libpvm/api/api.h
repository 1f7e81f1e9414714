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
void pvmdisplaymhfinfo(char *who, char *msg, int tid);

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

/* A control call whose reply is only its status: sends `code` with `req`,
 * frees `req` and the reply, and returns the status (0 or an error). */
int lp_api_status(int code, struct wire_wr *req);
/* With PvmDebugMask set, each control call is logged on stderr as
 * "libpvm [t40001] TM_SPAWN: request N bytes, status S". */
void lp_api_debug_call(int code, size_t reqlen, int status);

/* Whether `tid` has the shape of a task tid (no daemon or multicast
 * bit, nonzero host and task parts). */
int lp_api_task_tid(int tid);

/* Writes the environment pvm_spawn passes (PVM_EXPORT): i32 n, then n
 * strings "NAME=value".  Returns n or PvmNoMem. */
int lp_api_export_env(struct wire_wr *w);

/* The stream pvm_catchout() named (NULL: off); see catchout.c. */
extern FILE *lp_catchout_fp;

#endif /* LPVM_API_H */
