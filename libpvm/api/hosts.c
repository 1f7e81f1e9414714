/*
 * hosts.c - the hosts of the virtual machine: pvm_addhosts,
 * pvm_delhosts, pvm_hostsync.  The master pvmd does the adding and
 * deleting (docs/hosts.md); the library sends the names and hands back
 * one result per name, as the reference does.
 */
#include "api.h"
#include "lpvm_priv.h"

#include <stdlib.h>
#include <sys/time.h>

/*
 * One TM_ADDHOST or TM_DELHOST call: request i32 n, n x str; reply i32
 * status, i32 n, n x i32 (per name: a tid or 0 on success, else an error
 * code).  Returns how many names succeeded (the reference's return
 * value: 0 when all failed, with no error reported), or the error of the
 * call itself through lp_err.  A NULL name goes as "" and the pvmd
 * answers for it (the reference crashes on one).  A TM_ADDHOST reply
 * goes on with n x str, why each host failed ("" for nothing to say),
 * kept for lpvm_priv_addhost_why.
 */
static char **add_why; /* of the last pvm_addhosts */
static int add_nwhy;

static void add_why_clear(void)
{
	for (int i = 0; i < add_nwhy; i++)
		free(add_why[i]);
	free(add_why);
	add_why = NULL;
	add_nwhy = 0;
}

/* The reasons after the results, when the pvmd sent them. */
static void add_why_read(struct wire_rd *rd, int n)
{
	if (!rd->left || !(add_why = calloc((size_t)n, sizeof *add_why)))
		return;
	add_nwhy = n;
	for (int i = 0; i < n && !rd->err; i++) {
		char *s = wire_rd_strdup(rd);
		if (s && *s && !rd->err)
			add_why[i] = s;
		else
			free(s);
	}
}

const char *lpvm_priv_addhost_why(int i)
{
	return i >= 0 && i < add_nwhy ? add_why[i] : NULL;
}

static int host_call(const char *fn, int code, char **names, int n, int *infos,
		     struct lp_ctl_watch *watch)
{
	if (!names || n < 1)
		return lp_err(fn, PvmBadParam);
	int r = lp_api_enroll(fn);
	if (r < 0)
		return r;
	if (code == WIRE_TM_ADDHOST)
		add_why_clear();
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, n);
	for (int i = 0; i < n; i++)
		wire_wr_str(&w, names[i]);
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call_watched(code, &w, &rd, &mem, watch);
	wire_wr_free(&w);
	if (st >= 0) {
		/* exactly one result per name, nothing more */
		int32_t m = wire_rd_count(&rd, 4);
		if (rd.err || m != n)
			st = PvmBadMsg;
	}
	if (st < 0) {
		free(mem);
		/* the call failed as a whole: every name has that result */
		for (int i = 0; infos && i < n; i++)
			infos[i] = st;
		return lp_err(fn, st);
	}
	int good = 0;
	for (int i = 0; i < n; i++) {
		int32_t v = wire_rd_i32(&rd);
		if (infos)
			infos[i] = v;
		if (v >= 0)
			good++;
	}
	if (code == WIRE_TM_ADDHOST && !rd.err)
		add_why_read(&rd, n);
	free(mem);
	return good;
}

int pvm_addhosts(char **hosts, int nhost, int *infos)
{
	return host_call("pvm_addhosts", WIRE_TM_ADDHOST, hosts, nhost, infos,
			 NULL);
}

int lpvm_priv_addhosts(char **hosts, int nhost, int *infos,
		       struct lpvm_addwatch *w)
{
	struct lp_ctl_watch cw = {
		.period_ms = w->period_ms,
		.tick = w->tick,
		.arg = w->arg,
		.stop = w->stop,
		.cancel_code = WIRE_TM_ADDCANCEL,
	};
	int r = host_call("pvm_addhosts", WIRE_TM_ADDHOST, hosts, nhost, infos,
			  &cw);
	w->cancelled = cw.cancelled;
	return r;
}

int pvm_delhosts(char **hosts, int nhost, int *infos)
{
	return host_call("pvm_delhosts", WIRE_TM_DELHOST, hosts, nhost, infos,
			 NULL);
}

/* a - b, with the microseconds in 0..999999 and the sign in the seconds
 * (man 3 pvm_hostsync: -1 us is -1,999999). */
static struct timeval tv_sub(struct timeval a, struct timeval b)
{
	long long us = ((long long)a.tv_sec - b.tv_sec) * 1000000 +
		       ((long long)a.tv_usec - b.tv_usec);
	long long s = us / 1000000, rem = us % 1000000;
	if (rem < 0) {
		rem += 1000000;
		s--;
	}
	return (struct timeval){.tv_sec = (time_t)s,
				.tv_usec = (suseconds_t)rem};
}

/* The reference reports this function's errors under this name. */
#define HOSTSYNC_FN "pvm_host_sync"

int pvm_hostsync(int host, struct timeval *clk, struct timeval *delta)
{
	int r = lp_api_enroll(HOSTSYNC_FN);
	if (r < 0)
		return r;
	/* Any tid names its host (a task tid, the pvmd's with or without
	 * the daemon bit), as in the reference; host part 0 is no host. */
	int32_t htid = host & WIRE_TID_HOST_MASK;
	if (!htid)
		return lp_err(HOSTSYNC_FN, PvmNoHost);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, htid);
	struct timeval before, after;
	gettimeofday(&before, NULL);
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_HOSTSYNC, &w, &rd, &mem);
	gettimeofday(&after, NULL);
	wire_wr_free(&w);
	struct timeval remote = {0, 0};
	if (st >= 0) {
		int32_t sec = wire_rd_i32(&rd);
		int32_t usec = wire_rd_i32(&rd);
		if (rd.err || usec < 0 || usec > 999999)
			st = PvmBadMsg;
		remote.tv_sec = (time_t)(uint32_t)sec;
		remote.tv_usec = usec;
	}
	free(mem);
	if (st < 0)
		return lp_err(HOSTSYNC_FN, st);
	/* delta = mean of the local samples - remote clock, as the man page
	 * says and the reference measures (a remote clock ahead of ours
	 * gives a negative delta). */
	struct timeval half = tv_sub(after, before);
	long long hus = ((long long)half.tv_sec * 1000000 + half.tv_usec) / 2;
	struct timeval mid = before;
	mid.tv_sec += (time_t)(hus / 1000000);
	mid.tv_usec += (suseconds_t)(hus % 1000000);
	if (mid.tv_usec >= 1000000) {
		mid.tv_usec -= 1000000;
		mid.tv_sec++;
	}
	if (clk)
		*clk = remote;
	if (delta)
		*delta = tv_sub(mid, remote);
	return 0;
}
