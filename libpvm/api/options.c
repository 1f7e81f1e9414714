/*
 * options.c - pvm_setopt / pvm_getopt: every option of PVM 3.4.6 with its
 * defaults and its checks (man 3 pvm_setopt; the reference decides where
 * the man page is silent).
 */
#include "api.h"

#include <stdlib.h>

#include "tran/poll.h"
#include "tran/waitpol.h"

/* Range the reference accepts for PvmFragSize. */
#define FRAG_MIN 52
#define FRAG_MAX (1 << 20)

/* Whether the pvmd hands this option to us at enrollment (a spawned
 * child inherits its output destination): those read after enrolling. */
static int from_pvmd(int what)
{
	switch (what) {
	case PvmOutputTid:
	case PvmOutputCode:
	case PvmOutputContext:
	case PvmSelfOutputTid:
	case PvmSelfOutputCode:
	case PvmSelfOutputContext:
		return 1;
	}
	return 0;
}

/* A spawned task enrolls before reporting an inherited option, quietly
 * (the reference has these from its environment at startup). */
static void settle(int what)
{
	if (from_pvmd(what) && !lp.enrolled && getenv(WIRE_ENV_SPAWN_TID) &&
	    lp_enroll() == 0)
		lp_api_sync();
}

/* Where each option lives; NULL for those with no value. */
static int *slot(int what)
{
	switch (what) {
	case PvmRoute:
		return &lp.route;
	case PvmDebugMask:
		return &lp.debugmask;
	case PvmAutoErr:
		return &lp_autoerr;
	case PvmOutputTid:
		return &lp.outtid;
	case PvmOutputCode:
		return &lp.outtag;
	case PvmTraceTid:
		return &lp.trctid;
	case PvmTraceCode:
		return &lp.trctag;
	case PvmTraceBuffer:
		return &lp.trcbuf;
	case PvmTraceOptions:
		return &lp.trcopt;
	case PvmFragSize:
		return &lp.fragsize;
	case PvmResvTids:
		return &lp.resvtids;
	case PvmSelfOutputTid:
		return &lp.selfouttid;
	case PvmSelfOutputCode:
		return &lp.selfouttag;
	case PvmSelfTraceTid:
		return &lp.selftrctid;
	case PvmSelfTraceCode:
		return &lp.selftrctag;
	case PvmSelfTraceBuffer:
		return &lp.selftrcbuf;
	case PvmSelfTraceOptions:
		return &lp.selftrcopt;
	case PvmShowTids:
		return &lp.showtids;
	case PvmOutputContext:
		return &lp.outctx;
	case PvmTraceContext:
		return &lp.trcctx;
	case PvmSelfOutputContext:
		return &lp.selfoutctx;
	case PvmSelfTraceContext:
		return &lp.selftrcctx;
	case PvmNoReset:
		return &lp.noreset;
	case PvmPollType:
		return &lp_poll_type;
	case PvmPollTime:
		return &lp_poll_time;
	}
	return NULL; /* unknown */
}

int pvm_getopt(int what)
{
	int *p = slot(what);
	if (!p)
		return lp_err("pvm_getopt", PvmBadParam);
	settle(what);
	return *p;
}

/* A destination for output or trace messages: 0 (none / the pvmd log)
 * or a task that exists now, as the reference checks. */
static int check_dest(int tid)
{
	if (tid == 0)
		return 0;
	if (!lp_api_task_tid(tid))
		return PvmBadParam;
	if (lp_enroll() < 0)
		return PvmSysErr;
	if (tid == lp.mytid)
		return 0;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	int st = lp_api_status(WIRE_TM_PSTAT, &w);
	/* no such task (or host): not a destination */
	if (st < 0 && st != PvmSysErr)
		return PvmBadParam;
	return st;
}

/* Tells the pvmd an option it acts on (where our own output goes; that
 * a reset must spare us). */
static int tell_pvmd(int what, int val)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, what);
	wire_wr_i32(&w, val);
	int st = lp_api_status(WIRE_TM_SETOPT, &w);
	return st < 0 ? st : 0;
}

/* Checks a new value; returns 0 or an error code. */
static int check(int what, int val)
{
	switch (what) {
	case PvmRoute:
		return val >= PvmDontRoute && val <= PvmRouteDirect
			       ? 0
			       : PvmBadParam;
	case PvmTraceOptions:
	case PvmSelfTraceOptions:
		return val >= PvmTraceFull && val <= PvmTraceCount
			       ? 0
			       : PvmBadParam;
	case PvmPollType: /* how a receive waits on shared memory */
		return val == PvmPollConstant || val == PvmPollSleep
			       ? 0
			       : PvmBadParam;
	case PvmPollTime: /* probes of the rings before sleeping */
		return val >= 0 ? 0 : PvmBadParam;
	case PvmFragSize:
		return val >= FRAG_MIN && val <= FRAG_MAX ? 0 : PvmBadParam;
	case PvmOutputTid:
	case PvmTraceTid:
	case PvmSelfOutputTid:
	case PvmSelfTraceTid:
		return check_dest(val);
	}
	return 0;
}

int pvm_setopt(int what, int val)
{
	int *p = slot(what);
	if (!p)
		return lp_err("pvm_setopt", PvmBadParam);
	int tell = what == PvmSelfOutputTid || what == PvmSelfOutputCode ||
		   what == PvmSelfOutputContext || what == PvmNoReset;
	if (from_pvmd(what) || tell) {
		/* enroll first, or enrolling later would overwrite the value */
		int r = lp_api_enroll("pvm_setopt");
		if (r < 0)
			return r;
	}
	int r = check(what, val);
	if (r < 0)
		return lp_err("pvm_setopt", r);
	if (tell && (r = tell_pvmd(what, val)) < 0)
		return lp_err("pvm_setopt", r);

	int old = *p;
	*p = val;
	if (what == PvmPollTime)
		lp_poll_time_set = 1; /* the program's budget, not ours */
	/* Our own destination is also our children's (man 3 pvm_setopt). */
	switch (what) {
	case PvmSelfOutputTid:
	case PvmSelfOutputCode:
		lp.outtid = lp.selfouttid;
		lp.outtag = lp.selfouttag;
		break;
	case PvmSelfOutputContext:
		lp.outctx = lp.selfoutctx;
		break;
	case PvmSelfTraceTid:
	case PvmSelfTraceCode:
		lp.trctid = lp.selftrctid;
		lp.trctag = lp.selftrctag;
		break;
	case PvmSelfTraceContext:
		lp.trcctx = lp.selftrcctx;
		break;
	}
	lp_api_sync();
	return old;
}
