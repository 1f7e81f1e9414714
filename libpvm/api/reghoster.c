/*
 * reghoster.c - pvm_reg_hoster: the calling task starts the pvmds of hosts
 * added, in the master pvmd's place (man 3 pvm_reg_hoster; docs/hosts.md,
 * "Registered hoster").  The pvmd then sends it SM_STHOST messages and
 * takes its SM_STHOSTACK answers (pvmproto.h).
 */
#include "api.h"

/* As the reference: a second call by the registered task withdraws the
 * registration, a third makes it again; another task's call while one is
 * registered is PvmAlready; only a task of the master's host may be it
 * (PvmHostrNMstr).  The tid we registered as, or 0: a new enrollment
 * (after pvm_exit) is a new task, not registered. */
static int registered_tid;

int pvm_reg_hoster(void)
{
	int r = lp_api_enroll("pvm_reg_hoster");
	if (r < 0)
		return r;
	int on = registered_tid != lp.mytid;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, on);
	int st = lp_api_status(WIRE_TM_REGHOSTER, &w);
	if (st < 0)
		return lp_err("pvm_reg_hoster", st);
	registered_tid = on ? lp.mytid : 0;
	return 0;
}
