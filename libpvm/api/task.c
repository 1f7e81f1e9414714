/*
 * task.c - who am I: pvm_mytid, pvm_exit, pvm_parent, pvm_siblings,
 * pvm_tidtohost, pvm_getfds, pvm_halt, pvm_version.
 */
#include "api.h"
#include "msg/msg.h"

#include <signal.h>
#include <stdlib.h>

#include "tran/tran.h"

/* pvm_halt waits in 20 ms steps: for its SIGTERM (or the pvmd's end),
 * or, when SIGTERM does not kill us, for a handler to run. */
#define HALT_WAIT_STEPS	 250
#define HALT_GRACE_STEPS 10

int pvm_mytid(void)
{
	int r = lp_api_enroll("pvm_mytid");
	return r < 0 ? r : lp.mytid;
}

/* Tids started by the same spawn call as this task, fetched once per
 * enrollment; the array stays valid until the next enrollment. */
static int *sibs;
static int nsibs, sibs_of;

int pvm_exit(void)
{
	if (!lp.enrolled)
		return 0; /* never enrolled, or already left: nothing to do */
	/* with pvm_catchout on, children's output is printed to its end */
	lp_output_wait();
	int r = lp_flush();
	if (r == 0) {
		struct wire_rd rd;
		uint8_t *mem = NULL;
		int alive = lp_pvmd_conn() != NULL;
		r = lp_api_call(WIRE_TM_EXIT, NULL, &rd, &mem);
		free(mem);
		/* the pvmd took our exit and closed before its answer got
		 * through (it was behind messages we had not read): gone */
		if (r < 0 && alive && lp_pvmd_lost)
			r = 0;
	}
	lp_api_left();
	lp_mhf_reset(); /* the reference forgets its handlers too */
	return r < 0 ? lp_err("pvm_exit", PvmSysErr) : 0;
}

int pvm_parent(void)
{
	int r = lp_api_enroll("pvm_parent");
	if (r < 0)
		return r;
	/* Both are answers, not failures: the reference reports neither. */
	if (lp.pflags & 0x2)
		return PvmParentNotSet;
	return lp.ptid > 0 ? lp.ptid : PvmNoParent;
}

int pvm_siblings(int **tids)
{
	int r = lp_api_enroll("pvm_siblings");
	if (r < 0)
		return r;
	if (!sibs || sibs_of != lp.mytid) {
		struct wire_rd rd;
		uint8_t *mem;
		int st = lp_api_call(WIRE_TM_SIBLINGS, NULL, &rd, &mem);
		int n = st < 0 ? 0 : wire_rd_count(&rd, 4);
		int *a = NULL;
		if (st >= 0 && !rd.err) {
			a = malloc(sizeof *a * (size_t)(n ? n : 1));
			if (!a)
				st = PvmNoMem;
			for (int i = 0; a && i < n; i++)
				a[i] = wire_rd_i32(&rd);
		}
		free(mem);
		if (st >= 0 && rd.err)
			st = PvmBadMsg;
		if (st < 0) {
			free(a);
			return lp_err("pvm_siblings", st);
		}
		free(sibs);
		sibs = a;
		nsibs = n;
		sibs_of = lp.mytid;
	}
	if (tids)
		*tids = sibs;
	return nsibs;
}

int pvm_tidtohost(int tid)
{
	/* As the reference: the host part of any value, no enrollment. */
	return tid & WIRE_TID_HOST_MASK;
}

int pvm_getfds(int **fds)
{
	int r = lp_api_enroll("pvm_getfds");
	if (r < 0)
		return r;
	/* fds[0] is the pvmd socket, which is what the man page promises;
	 * the direct-route sockets follow, so that a program select()ing on
	 * all of them wakes for every message. */
	int *v;
	int n = lp_tran_fds(&v);
	if (n < 1)
		return lp_err("pvm_getfds", PvmSysErr);
	if (fds)
		*fds = v;
	return n;
}

int pvm_halt(void)
{
	int r = lp_api_enroll("pvm_halt");
	if (r < 0)
		return r;
	r = lp_ctl_send(WIRE_TM_HALT, NULL);
	if (r < 0)
		return lp_err("pvm_halt", r);
	/* The pvmd now stops every task with SIGTERM, us too unless we
	 * ignore or catch it (man 3 pvm_halt).  If it would kill us, wait
	 * for that; otherwise give a handler a moment, then leave, so that
	 * the pvmd sees us gone instead of escalating to SIGKILL. */
	struct sigaction sa;
	sigset_t cur;
	int dies = sigaction(SIGTERM, NULL, &sa) == 0 &&
		   sa.sa_handler == SIG_DFL &&
		   sigprocmask(SIG_BLOCK, NULL, &cur) == 0 &&
		   !sigismember(&cur, SIGTERM);
	int steps = dies ? HALT_WAIT_STEPS : HALT_GRACE_STEPS;
	struct timespec step = {0, 20 * 1000000L};
	for (int i = 0; i < steps && lp_pvmd_conn(); i++)
		if (lp_progress(&step) < 0)
			break;
	lp_api_left();
	return 0;
}

char *pvm_version(void)
{
	static char v[] = PVM_VER;
	return v;
}
