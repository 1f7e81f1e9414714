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
	.send = lp_conn_ep_send,
	.pending = lp_conn_ep_pending,
	.fini = pvmd_fini,
};
