/*
 * pvmd_route.c - the pvmd transport: task messages through the pvmd, on
 * the task's connection to it (tran/pvmd_link.c); the pvmd forwards each
 * frame to the destination task.  The route of last resort: it reaches
 * every task and every pvmd.
 */
#include "tran/tran.h"

static int pvmd_init(int forced)
{
	(void)forced; /* the last resort carries what nothing else reaches */
	return 0;
}

static void *pvmd_reach(int tid)
{
	(void)tid;
	return lp_pvmd_conn();
}

static int pvmd_send(void *ep, const struct lp_omsg *m)
{
	return lp_conn_send(ep, m);
}

static int pvmd_pending(void *ep)
{
	struct lp_conn *c = ep;
	return !c->dead && lp_conn_pending(c);
}

static void pvmd_fini(void)
{
	/* (the link itself is the core's: lp_disconnect closes it) */
}

const struct lp_tran lp_tran_pvmd = {
	.name = "pvmd",
	.exclusivity = 0,
	.always = 1,
	.init = pvmd_init,
	.reach = pvmd_reach,
	.send = pvmd_send,
	.pending = pvmd_pending,
	.fini = pvmd_fini,
};
