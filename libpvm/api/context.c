/*
 * context.c - message contexts: pvm_newcontext, pvm_setcontext,
 * pvm_getcontext, pvm_freecontext.  The pvmd allocates them (unique in
 * the virtual machine); the current one lives in lp.ctx, which every
 * message sent carries and every receive matches.
 */
#include "api.h"

#include <stdlib.h>

static int context_op(int op, int ctx)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, op);
	wire_wr_i32(&w, ctx);
	int st = lp_api_status(WIRE_TM_CONTEXT, &w);
	return st;
}

int pvm_newcontext(void)
{
	int r = lp_api_enroll("pvm_newcontext");
	if (r < 0)
		return r;
	r = context_op(WIRE_CTX_NEW, 0);
	if (r == 0)
		r = PvmBadMsg; /* 0 is the base context, never a new one */
	return lp_err("pvm_newcontext", r);
}

int pvm_setcontext(int ctx)
{
	/* Enroll first: a spawned task starts in its parent's context, which
	 * must not overwrite this choice later. */
	int r = lp_api_enroll("pvm_setcontext");
	if (r < 0)
		return r;
	if (ctx < 0)
		return lp_err("pvm_setcontext", PvmBadParam);
	int old = lp.ctx;
	lp.ctx = ctx;
	lp_api_sync();
	return old;
}

int pvm_getcontext(void)
{
	/* A spawned task starts in its parent's context, which it learns by
	 * enrolling (quietly, as the reference); others start in context 0. */
	if (!lp.enrolled && getenv(WIRE_ENV_SPAWN_TID) && lp_enroll() == 0)
		lp_api_sync();
	return lp.ctx;
}

int pvm_freecontext(int ctx)
{
	int r = lp_api_enroll("pvm_freecontext");
	if (r < 0)
		return r;
	if (ctx == PvmBaseContext)
		return lp_err("pvm_freecontext", PvmBadParam);
	r = context_op(WIRE_CTX_FREE, ctx);
	return lp_err("pvm_freecontext", r < 0 ? r : 0);
}
