/*
 * enroll.c - the task's state, enrollment with the pvmd (TM_CONNECT),
 * control calls, flushing and disconnection (see lpvm.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "lpvm.h"
#include "poll.h"
#include "tran.h"

struct lp_state lp = {
	.route = PvmAllowDirect,
	.fragsize = 4080,
	.showtids = 1,
};

/* The one control call in progress (calls do not nest). */
static struct {
	int code;
	uint32_t wid;
	int done;
	uint8_t *data;
	size_t len;
} want;
static uint32_t lastwid;

/* The next request id: 1 to 0x7fffffff, never bit 31 (a wid with bit 31
 * belongs to a pvmd, docs/hosts.md), never 0 (no request). */
static uint32_t next_wid(void)
{
	lastwid = lastwid >= 0x7fffffffu ? 1 : lastwid + 1;
	return lastwid;
}
static pid_t enroll_pid;
static void (*enrolled_hook)(void);

void lp_enroll_set_hook(void (*enrolled)(void))
{
	enrolled_hook = enrolled;
}

unsigned lp_gs_epoch;
static int ctl_write(int code, uint32_t wid, const struct wire_wr *req);

void lp_ctl_arrived(const struct wire_hdr *h, uint8_t *data, size_t len)
{
	if (h->tag == WIRE_TM_GS_EVENT && h->wid == 0) {
		/* a group list this task fetched is stale (lpvm_priv.h) */
		lp_gs_epoch++;
		free(data);
		return;
	}
	if (h->tag == WIRE_TM_NETUP && h->wid == 0) {
		/* a host joined the machine: tasks there may now reach us
		 * directly if we listen (the answer is not waited for) */
		free(data);
		int port = lp.enrolled ? lp_route_net_up() : 0;
		if (port > 0) {
			struct wire_wr w;
			wire_wr_init(&w);
			wire_wr_i32(&w, port);
			ctl_write(WIRE_TM_TCPPORT, next_wid(), &w);
			wire_wr_free(&w);
		}
		return;
	}
	if (want.wid && !want.done && h->tag == want.code &&
	    h->wid == want.wid) {
		want.data = data;
		want.len = len;
		want.done = 1;
		return;
	}
	free(data); /* a reply nobody waits for any more, or an unknown event */
}

int lp_ctl_busy(void)
{
	return want.wid != 0;
}

static int ctl_write(int code, uint32_t wid, const struct wire_wr *req)
{
	struct lp_conn *c = lp_pvmd_conn();
	if (!c)
		return PvmSysErr;
	if (req && req->err)
		return PvmNoMem;
	struct lp_seg seg = {.p = req ? req->buf : NULL,
			     .len = req ? req->len : 0};
	struct lp_omsg m = {
		.h = {.dst = lp.hosttid ? lp.hosttid : wire_host_tid(1),
		      .src = lp.mytid,
		      .tag = code,
		      .wid = wid},
		.seg = &seg,
		.nseg = 1,
		.total = seg.len,
		.frag = WIRE_MAX_CTRL,
		.ctrl = 1,
	};
	return lp_conn_send(c, &m);
}

/* One wait of a watched call (lp_ctl_watch): its tick when due, the
 * cancel when asked; the longest to block then in *t (NULL: no limit). */
static int watch_step(struct lp_ctl_watch *w, int64_t start_ms,
		      int64_t *next_ms, struct timespec *t,
		      const struct timespec **tp)
{
	*tp = NULL;
	if (!w || w->cancelled)
		return 0;
	int64_t now = mono_ms();
	int cancel = w->stop && *w->stop;
	if (now >= *next_ms) {
		if (!cancel && w->tick)
			cancel = w->tick(w->arg, (long)(now - start_ms));
		while (*next_ms <= now)
			*next_ms += w->period_ms;
	}
	if (cancel) {
		struct wire_wr c;
		wire_wr_init(&c);
		wire_wr_i32(&c, (int32_t)want.wid);
		int r = ctl_write(w->cancel_code, next_wid(), &c);
		wire_wr_free(&c);
		w->cancelled = 1;
		return r;
	}
	/* a signal may come just before ppoll blocks: it is seen at the
	 * next tick at the latest */
	int64_t left = *next_ms - now;
	t->tv_sec = (time_t)(left / 1000);
	t->tv_nsec = (long)(left % 1000) * 1000000;
	*tp = t;
	return 0;
}

/* Sends a request and waits for its reply; no enrollment check. */
static int ctl_call(int code, const struct wire_wr *req, uint8_t **reply,
		    size_t *replylen, struct lp_ctl_watch *w)
{
	want.code = code;
	want.wid = next_wid();
	want.done = 0;
	want.data = NULL;
	int r = ctl_write(code, want.wid, req);
	if (w && w->period_ms <= 0)
		w->period_ms = 1000;
	int64_t start = w ? mono_ms() : 0;
	int64_t next = start + (w ? w->period_ms : 0);
	while (r == 0 && !want.done) {
		struct timespec t;
		const struct timespec *tp;
		r = watch_step(w, start, &next, &t, &tp);
		if (r == 0 && (!lp_pvmd_conn() || lp_progress(tp) < 0))
			r = PvmSysErr;
	}
	want.wid = 0;
	if (r < 0) {
		free(want.data);
		want.data = NULL;
		return r;
	}
	*reply = want.data;
	*replylen = want.len;
	want.data = NULL;
	return 0;
}

static int parse_connect(const uint8_t *p, size_t n)
{
	struct wire_rd r;
	wire_rd_init(&r, p, n);
	int status = wire_rd_i32(&r);
	if (r.err)
		return PvmSysErr;
	if (status < 0)
		return status;
	int tid = wire_rd_i32(&r), ptid = wire_rd_i32(&r);
	int flags = wire_rd_i32(&r), ctx = wire_rd_i32(&r);
	int hosttid = wire_rd_i32(&r);
	char *host = wire_rd_strdup(&r);
	char *arch = wire_rd_strdup(&r);
	int outtid = wire_rd_i32(&r), outctx = wire_rd_i32(&r);
	int outtag = wire_rd_i32(&r);
	if (r.err || tid <= 0) {
		free(host);
		free(arch);
		return PvmSysErr;
	}
	free(lp.hostname);
	free(lp.arch);
	lp.hostname = host;
	lp.arch = arch;
	lp.mytid = tid;
	lp.ptid = ptid;
	lp.pflags = flags;
	lp.ctx = ctx;
	lp.hosttid = hosttid;
	/* output of our children goes where ours goes (our parent's choice) */
	lp.outtid = lp.selfouttid = outtid;
	lp.outctx = lp.selfoutctx = outctx;
	lp.outtag = lp.selfouttag = outtag;
	if (enrolled_hook)
		enrolled_hook();
	return 0;
}

static void flush_at_exit(void)
{
	if (lp.enrolled && getpid() == enroll_pid)
		lp_flush();
}

static int no_pvmd;

int lp_enroll_no_pvmd(void)
{
	return no_pvmd;
}

int lp_enroll(void)
{
	static int atexit_done;

	if (lp.enrolled)
		return lp_pvmd_lost ? PvmSysErr : 0;
	no_pvmd = lp_pvmd_connect() < 0;
	if (no_pvmd)
		return PvmSysErr;

	const char *st = getenv(WIRE_ENV_SPAWN_TID);
	int spawn_tid = st ? (int)strtol(st, NULL, 0) : 0;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, WIRE_VERSION);
	wire_wr_i32(&w, (int32_t)getpid());
	wire_wr_i32(&w, spawn_tid);
	wire_wr_str(&w, st ? program_invocation_short_name : "");
	wire_wr_i32(&w, lp_route_listen()); /* 0: no TCP direct routes */
	uint8_t *rep = NULL;
	size_t replen = 0;
	int r = ctl_call(WIRE_TM_CONNECT, &w, &rep, &replen, NULL);
	wire_wr_free(&w);
	if (r == 0)
		r = parse_connect(rep, replen);
	free(rep);
	if (r < 0) {
		lp_disconnect();
		/* messages the pvmd sent ahead of its refusal were for a task
		 * that never was: a later enrollment must not receive them,
		 * and a program that retries must not keep them all */
		lp_tran_dropped();
		return r == PvmBadVersion ? r : PvmSysErr;
	}
	lp.enrolled = 1;
	lp_selftid = lp.mytid;
	enroll_pid = getpid();
	unsetenv(WIRE_ENV_SPAWN_TID); /* our own children must not claim it */
	lp_route_init();
	if (!atexit_done && atexit(flush_at_exit) == 0)
		atexit_done = 1;
	return 0;
}

int lp_ctl_call(int code, const struct wire_wr *req, uint8_t **reply,
		size_t *replylen)
{
	return lp_ctl_call_watched(code, req, reply, replylen, NULL);
}

int lp_ctl_call_watched(int code, const struct wire_wr *req, uint8_t **reply,
			size_t *replylen, struct lp_ctl_watch *w)
{
	int r = lp_enroll();
	if (r < 0)
		return r;
	return ctl_call(code, req, reply, replylen, w);
}

int lp_ctl_send(int code, const struct wire_wr *req)
{
	int r = lp_enroll();
	if (r < 0)
		return r;
	r = ctl_write(code, next_wid(), req);
	/* push it out now: the pvmd may stop us before our next call */
	struct lp_conn *c;
	while (r == 0 && (c = lp_pvmd_conn()) && lp_conn_pending(c))
		if (lp_progress(NULL) < 0)
			break;
	return r;
}

int lp_flush(void)
{
	/* what waits for room in a ring goes through the pvmd: leaving must
	 * not wait for a receiver that does not read (docs/shm.md) */
	lp_route_handoff();
	int told = 0;
	for (;;) {
		struct lp_conn *c = lp_pvmd_conn();
		if (!(c && lp_conn_pending(c)) && !lp_route_pending())
			return 0;
		/* messages for a receiver that does not read: the pvmd may
		 * have stopped reading us (flow control), so it is told */
		if (!told && c && lp_conn_pending(c)) {
			told = 1;
			lp_pvmd_leaving();
		}
		if (lp_progress(NULL) < 0)
			return PvmSysErr;
	}
}

uint32_t lp_frag_size(void)
{
	if (lp.fragsize <= 0)
		return 4080;
	if ((unsigned)lp.fragsize > WIRE_MAX_FRAG)
		return WIRE_MAX_FRAG;
	return (uint32_t)lp.fragsize;
}

void lp_disconnect(void)
{
	lp_route_fini();
	lp_pvmd_close();
	lp_peer_reset();
	lp.enrolled = 0;
	lp.mytid = 0;
	lp_selftid = 0;
	lp_gs_epoch++; /* group lists fetched while enrolled may be stale */
}
