/*
 * taskctl.c - acting on other tasks: pvm_kill, pvm_sendsig, pvm_notify,
 * and pvm_getnoresets (the tasks a console's reset must spare).
 */
#include "api.h"

#include <signal.h>
#include <stdlib.h>

static int signal_call(int code, int tid, int sig)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	if (code == WIRE_TM_SIGNAL)
		wire_wr_i32(&w, sig);
	int st = lp_api_status(code, &w);
	/* Signals are asynchronous: a task that has already gone is not an
	 * error, as in the reference. */
	if (st == PvmNoTask)
		st = 0;
	return st < 0 ? st : 0;
}

int pvm_sendsig(int tid, int signum)
{
	int r = lp_api_enroll("pvm_sendsig");
	if (r < 0)
		return r;
	if (!lp_api_task_tid(tid) || signum < 0 || signum >= NSIG)
		return lp_err("pvm_sendsig", PvmBadParam);
	return lp_err("pvm_sendsig", signal_call(WIRE_TM_SIGNAL, tid, signum));
}

int pvm_kill(int tid)
{
	int r = lp_api_enroll("pvm_kill");
	if (r < 0)
		return r;
	if (!lp_api_task_tid(tid)) {
		/* the reference kills through pvm_sendsig and reports both */
		lp_err("pvm_sendsig", PvmBadParam);
		return lp_err("pvm_kill", PvmBadParam);
	}
	/* Killing ourselves: the pvmd replies, then sends SIGTERM. */
	return lp_err("pvm_kill", signal_call(WIRE_TM_KILL, tid, SIGTERM));
}

/* Checks the arguments of pvm_notify as the reference does. */
static int notify_check(int kind, int msgtag, int cnt, const int *tids)
{
	if (msgtag < 0)
		return PvmBadParam;
	switch (kind) {
	case PvmTaskExit:
		if (cnt < 1 || !tids)
			return PvmBadParam;
		for (int i = 0; i < cnt; i++)
			if (!lp_api_task_tid(tids[i]))
				return PvmBadParam;
		return 0;
	case PvmHostDelete:
		return cnt < 1 || !tids ? PvmBadParam : 0;
	case PvmHostAdd:
		return 0; /* cnt: how many times; -1 for ever, 0 stops */
	case PvmRouteAdd:
	case PvmRouteDelete:
		return PvmNotImpl; /* undocumented; no direct-route events yet
				    */
	}
	return PvmBadParam;
}

int pvm_notify(int what, int msgtag, int cnt, int *tids)
{
	int r = lp_api_enroll("pvm_notify");
	if (r < 0)
		return r;
	int kind = what & ~PvmNotifyCancel;
	r = notify_check(kind, msgtag, cnt, tids);
	if (r < 0)
		return lp_err("pvm_notify", r);

	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, what);
	wire_wr_i32(&w, msgtag);
	wire_wr_i32(&w, lp.ctx); /* notifies arrive in the current context */
	if (kind == PvmHostAdd) {
		/* the count travels as the one list item (docs/protocol.md) */
		wire_wr_i32(&w, 1);
		wire_wr_i32(&w, cnt);
	} else {
		wire_wr_i32(&w, cnt);
		for (int i = 0; i < cnt; i++)
			wire_wr_i32(&w, tids[i]);
	}
	int st = lp_api_status(WIRE_TM_NOTIFY, &w);
	return lp_err("pvm_notify", st < 0 ? st : 0);
}

/* The tasks that set PvmNoReset (the pvmd keeps the mark; the reference
 * keeps it in its mailbox).  The array is the library's, valid until the
 * next call. */
int pvm_getnoresets(int **tids, int *ntids)
{
	static int *list;
	int r = lp_api_enroll("pvm_getnoresets");
	if (r < 0)
		return r;
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_NORESETS, NULL, &rd, &mem);
	int n = st < 0 ? 0 : wire_rd_count(&rd, 4);
	int *v = NULL;
	if (st >= 0 && !rd.err) {
		v = malloc(sizeof *v * (size_t)(n ? n : 1));
		if (!v)
			st = PvmNoMem;
		for (int i = 0; v && i < n; i++)
			v[i] = wire_rd_i32(&rd);
		if (v && rd.err) {
			free(v);
			v = NULL;
		}
	}
	if (st >= 0 && rd.err)
		st = PvmBadMsg;
	free(mem);
	if (st < 0)
		return lp_err("pvm_getnoresets", st);
	free(list);
	list = v;
	if (tids)
		*tids = list;
	if (ntids)
		*ntids = n;
	return 0;
}
