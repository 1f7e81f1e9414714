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
 * (PvmHostrNMstr). */
static int registered; /* by the task lp.mytid was then */
static int registered_tid;

int pvm_reg_hoster(void)
{
	int r = lp_api_enroll("pvm_reg_hoster");
	if (r < 0)
		return r;
	if (registered_tid != lp.mytid)
		registered = 0; /* a new enrollment (after pvm_exit) */
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, !registered);
	int st = lp_api_status(WIRE_TM_REGHOSTER, &w);
	if (st < 0)
		return lp_err("pvm_reg_hoster", st);
	registered = !registered;
	registered_tid = lp.mytid;
	return 0;
}
