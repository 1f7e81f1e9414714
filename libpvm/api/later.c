/*
 * later.c - exported names whose feature a later issue delivers.  Each
 * checks nothing, changes nothing and reports PvmNotImpl through lp_err
 * (docs/compat.md lists them with their issue), so that programs that
 * import them start and fail cleanly where they use them.
 */
#include "api.h"

#define LATER(fn) lp_err(fn, PvmNotImpl)

/* ---- registration as tasker, resource manager ----
 *
 * Not done with issue 3.  Each server talks to the pvmds in the
 * reference's own message formats, as ordinary messages with reserved
 * (negative) tags sent to the pvmd's tid: a tasker gets SM_STTASK for
 * each task to start and must answer SM_TASKX with the wait() status of
 * the processes it started (man 3 pvm_reg_tasker), so the pvmd would have
 * to take exits, pids and output from a task instead of its own children;
 * a resource manager gets every task's spawn, config, tasks, notify and
 * addhosts requests as SM_* messages whose bodies man 3 pvm_reg_rm does
 * not describe ("refer to the PVM source code").  pvm_reg_hoster is in
 * reghoster.c.
 */

int pvm_reg_tasker(void)
{
	return LATER("pvm_reg_tasker");
}

int pvm_reg_rm(struct pvmhostinfo **hip)
{
	(void)hip;
	return LATER("pvm_reg_rm");
}

/* ---- tracing (no issue filed yet) ---- */

int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask,
		   int tbuf, int topt)
{
	(void)tctx, (void)ttag, (void)octx, (void)otag, (void)tmask;
	(void)tbuf, (void)topt;
	return LATER("pvm_reg_tracer");
}

int pvm_gettmask(int who, Pvmtmask mask)
{
	(void)who, (void)mask;
	return LATER("pvm_gettmask");
}

int pvm_settmask(int who, Pvmtmask mask)
{
	(void)who, (void)mask;
	return LATER("pvm_settmask");
}

/* ---- pvmd debugging hook (no issue filed yet) ---- */

int pvm_tickle(int narg, int *argp, int *nres, int *resp)
{
	(void)narg, (void)argp, (void)resp;
	if (nres)
		*nres = 0;
	return LATER("pvm_tickle");
}
