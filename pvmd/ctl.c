/*
 * ctl.c - control requests from tasks (docs/protocol.md, "Control
 * messages"), dispatched through a table indexed by TM_* code.
 *
 * A handler decodes its payload with a wire_rd, which checks every length;
 * a decode error or trailing bytes make the frame malformed and the caller
 * closes that connection.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/context.h"
#include "pvmd/ctl.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/mbox.h"
#include "pvmd/exits.h"
#include "pvmd/notify.h"
#include "pvmd/output.h"
#include "pvmd/pvmd.h"
#include "pvmd/signals.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

/* True when the request was consumed exactly. */
static int complete(const struct wire_rd *r)
{
	return !r->err && r->left == 0;
}

void ctl_reply_status(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      int status)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
}

int ctl_src(const struct conn *c, const struct wire_hdr *h)
{
	return c->task ? c->task->tid : h->src;
}

void ctl_reply_tid(struct pvmd *d, int tid, const struct wire_hdr *req,
		   const struct wire_wr *payload)
{
	if (host_is_local_tid(d, tid)) {
		struct task *t = task_find(d, tid);
		if (t && t->conn)
			conn_reply(d, t->conn, req, payload);
		return;
	}
	struct wire_hdr hh = {.flags = WIRE_F_CTRL | WIRE_F_REPLY,
			      .dst = tid,
			      .src = d->hosttid,
			      .tag = req->tag,
			      .wid = req->wid};
	host_send_ctrl(d, host_no_of_tid(tid), &hh, payload);
}

void ctl_reply_list(struct pvmd *d, int tid, const struct wire_hdr *req,
		    int status, int n, const int *v)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	wire_wr_i32(&w, n);
	for (int i = 0; i < n; i++)
		wire_wr_i32(&w, v[i]);
	ctl_reply_tid(d, tid, req, &w);
	wire_wr_free(&w);
}

/* PvmBadParam for a tid that cannot name a task, else 0.  (A task tid of
 * another host simply names no task here.) */
static int check_task_tid(const struct pvmd *d, int tid)
{
	(void)d;
	if (tid <= 0 || (tid & ~(WIRE_TID_HOST_MASK | WIRE_TID_TASK_MASK)) ||
	    !(tid & WIRE_TID_TASK_MASK))
		return PvmBadParam;
	return 0;
}

/* ---- TM_CONNECT ---- */

static void connect_reply(struct pvmd *d, struct conn *c,
			  const struct wire_hdr *h, int status,
			  const struct task *t)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	wire_wr_i32(&w, t ? t->tid : 0);
	wire_wr_i32(&w, t ? t->ptid : 0);
	wire_wr_i32(&w, t ? t->pflags : 0);
	wire_wr_i32(&w, t ? t->ctx : 0);
	wire_wr_i32(&w, d->hosttid);
	wire_wr_str(&w, d->hostname);
	wire_wr_str(&w, d->arch);
	wire_wr_i32(&w, t ? t->outtid : 0);
	wire_wr_i32(&w, t ? t->outctx : 0);
	wire_wr_i32(&w, t ? t->outtag : 0);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
}

/* The task reserved for this peer by a spawn of ours, if any: first by
 * the pid we forked, then by the tid the child found in PVM_SPAWN_TID. */
static struct task *find_reserved(struct pvmd *d, pid_t pid, int spawn_tid)
{
	intptr_t tid = (intptr_t)idhash_get(&d->children, (int)pid);
	struct task *t = tid ? task_find(d, (int)tid) : NULL;
	if (t && !t->conn && t->pid == pid)
		return t;
	t = spawn_tid ? task_find(d, spawn_tid) : NULL;
	if (t && !t->conn && (t->flags & TASK_F_SPAWNED))
		return t;
	return NULL;
}

static int tm_connect(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r)
{
	int version = wire_rd_i32(r);
	int pid = wire_rd_i32(r);
	int spawn_tid = wire_rd_i32(r);
	char *aout = wire_rd_strdup(r);
	free(aout); /* the pvmd knows spawned tasks' names itself */
	/* since issue 7: i32 tcp_port of the task's direct-route listener
	 * (0: none); older tasks end the request before it */
	int tcp_port = 0;
	if (!r->err && r->left > 0)
		tcp_port = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	if (tcp_port < 0 || tcp_port > 65535) {
		plog(PL_ERR, "pid %d: TM_CONNECT with TCP port %d",
		     (int)conn_peer_pid(c), tcp_port);
		return -1;
	}

	pid_t peer = conn_peer_pid(c);
	if (version != WIRE_VERSION) {
		plog(PL_ERR,
		     "pid %d speaks protocol version %d, not %d: rejected",
		     (int)peer, version, WIRE_VERSION);
		connect_reply(d, c, h, PvmBadVersion, NULL);
		conn_close(d, c, "bad protocol version");
		return 0;
	}
	if (pid != (int)peer)
		plog(PL_DEBUG, "pid %d says it is pid %d; trusting the kernel",
		     (int)peer, pid);
	if (d->halting) {
		connect_reply(d, c, h, PvmSysErr, NULL);
		conn_close(d, c, "pvmd halting");
		return 0;
	}

	struct task *t = find_reserved(d, peer, spawn_tid);
	if (t) {
		t->pid = peer;
	} else {
		t = task_new(d);
		if (!t) {
			plog(PL_ERR, "pid %d: no free tid or out of memory",
			     (int)peer);
			connect_reply(d, c, h, PvmOutOfRes, NULL);
			conn_close(d, c, "no free tid");
			return 0;
		}
		t->pid = peer;
	}
	t->tcp_port = tcp_port;
	task_attach(d, t, c);
	plog(PL_INFO, "t%x enrolled (pid %d%s%s)", t->tid, (int)peer,
	     *t->aout ? ", " : "", t->aout);
	connect_reply(d, c, h, 0, t);
	return 0;
}

/* ---- simple requests ---- */

static int tm_exit(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r)
{
	if (!complete(r))
		return -1;
	/* what it has not read it never will (its senders get the bytes
	 * back, flow.c): the answer goes out first */
	conn_drop_output(c);
	ctl_reply_status(d, c, h, 0);
	task_exit(d, conn_task(c), "pvm_exit");
	return 0;
}

/* A task opened its TCP direct-route listener after TM_NETUP. */
static int tm_tcpport(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r)
{
	int port = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	struct task *t = conn_task(c);
	int ok = port > 0 && port <= 65535;
	if (ok)
		t->tcp_port = port;
	ctl_reply_status(d, c, h, ok ? 0 : PvmBadParam);
	return 0;
}

/* pvm_exit of a task whose connection we may not be reading (flow.c):
 * from now on we read it all.  Only the task's own process may ask. */
static int tm_leaving(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r)
{
	if (!complete(r) || conn_task(c))
		return -1;
	struct task *t = task_find(d, h->src);
	int ok = t && t->conn && t->pid > 0 && t->pid == conn_peer_pid(c);
	if (ok)
		conn_set_leaving(d, t->conn);
	ctl_reply_status(d, c, h, ok ? 0 : PvmNoTask);
	return 0;
}

static int tm_mstat(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		    struct wire_rd *r)
{
	char *host = wire_rd_strdup(r);
	if (!complete(r)) {
		free(host);
		return -1;
	}
	struct host *o = host_by_name(d, host);
	int up = spawn_is_our_host(d, host) || (o && o->state == HOST_UP);
	ctl_reply_status(d, c, h, up ? 0 : PvmNoHost);
	free(host);
	return 0;
}

static int tm_pstat(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		    struct wire_rd *r)
{
	int tid = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	int st = check_task_tid(d, tid);
	if (!st && !task_find(d, tid))
		st = PvmNoTask;
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* pvm_kill: SIGTERM, as the reference and man 3 pvm_kill do.  Like the
 * reference, a tid with no task (of this host or another) is not an
 * error. */
static int tm_kill(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r)
{
	int tid = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	int st = check_task_tid(d, tid);
	struct task *t = st ? NULL : task_find(d, tid);
	if (t) {
		plog(PL_INFO, "t%x: killed by t%x", tid, ctl_src(c, h));
		/* Reply first: the caller may be killing itself. */
		ctl_reply_status(d, c, h, 0);
		task_signal(d, t, SIGTERM);
		return 0;
	}
	ctl_reply_status(d, c, h, st);
	return 0;
}

static int tm_signal(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		     struct wire_rd *r)
{
	int tid = wire_rd_i32(r);
	int sig = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	int st = check_task_tid(d, tid);
	if (!st && (sig < 0 || sig >= NSIG))
		st = PvmBadParam;
	struct task *t = st ? NULL : task_find(d, tid);
	if (t) {
		ctl_reply_status(d, c, h, 0);
		task_signal(d, t, sig);
		return 0;
	}
	ctl_reply_status(d, c, h, st);
	return 0;
}

static int tm_notify(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		     struct wire_rd *r)
{
	int what = wire_rd_i32(r);
	int tag = wire_rd_i32(r);
	int ctx = wire_rd_i32(r);
	int cnt = wire_rd_count(r, 4);
	int *tids = NULL;
	if (r->err)
		return -1;
	if (cnt) {
		tids = malloc((size_t)cnt * sizeof *tids);
		if (!tids) {
			ctl_reply_status(d, c, h, PvmNoMem);
			return 0;
		}
		for (int i = 0; i < cnt; i++)
			tids[i] = wire_rd_i32(r);
	}
	if (!complete(r)) {
		free(tids);
		return -1;
	}
	int st =
		notify_request(d, conn_task(c)->tid, what, tag, ctx, cnt, tids);
	free(tids);
	ctl_reply_status(d, c, h, st);
	return 0;
}

static int tm_context(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r)
{
	int op = wire_rd_i32(r);
	int ctx = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	int owner = ctl_src(c, h), st;
	if (op == WIRE_CTX_NEW)
		st = context_new(d, owner);
	else if (op == WIRE_CTX_FREE)
		st = context_free(d, owner, ctx);
	else
		st = PvmBadParam;
	ctl_reply_status(d, c, h, st);
	return 0;
}

static int tm_halt(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r)
{
	(void)h;
	if (!complete(r))
		return -1;
	char why[64];
	snprintf(why, sizeof why, "pvm_halt from t%x", conn_task(c)->tid);
	pvmd_halt(d, why);
	return 0;
}

static int tm_siblings(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		       struct wire_rd *r)
{
	if (!complete(r))
		return -1;
	sibs_ask(d, c, h, conn_task(c));
	return 0;
}

static int tm_setopt(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		     struct wire_rd *r)
{
	int opt = wire_rd_i32(r);
	int val = wire_rd_i32(r);
	if (!complete(r))
		return -1;
	struct task *t = conn_task(c);
	plog(PL_DEBUG, "t%x: setopt %d = %d", t->tid, opt, val);
	/* Where the task's own output goes (the library checked the tid). */
	switch (opt) {
	case PvmSelfOutputTid:
		t->outtid = val;
		output_set_dest(d, t->tid, OUTPUT_DEST_TID, val);
		break;
	case PvmSelfOutputContext:
		t->outctx = val;
		output_set_dest(d, t->tid, OUTPUT_DEST_CTX, val);
		break;
	case PvmSelfOutputCode:
		t->outtag = val;
		output_set_dest(d, t->tid, OUTPUT_DEST_TAG, val);
		break;
	case PvmNoReset:
		t->noreset = val != 0;
		break;
	}
	ctl_reply_status(d, c, h, 0);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* pvm_getnoresets: the tasks that set PvmNoReset. */
static int tm_noresets(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		       struct wire_rd *r)
{
	if (!complete(r))
		return -1;
	int *v = malloc((d->tasks.count + 1) * sizeof *v);
	if (!v) {
		ctl_reply_status(d, c, h, PvmNoMem);
		return 0;
	}
	size_t n = 0;
	for (size_t i = 0; i < d->tasks.cap; i++) {
		struct task *t = idhash_at(&d->tasks, i);
		if (t && t->noreset)
			v[n++] = t->tid;
	}
	qsort(v, n, sizeof *v, cmp_int);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, (int)n);
	for (size_t i = 0; i < n; i++)
		wire_wr_i32(&w, v[i]);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	free(v);
	return 0;
}

/* TM_SPAWN and TM_TASKS are longer: ctl_spawn.c. */
int ctl_spawn(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r);
int ctl_tasks(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r);
/* TM_ROUTEADDR: ctl_route.c. */
int ctl_routeaddr(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);

/* The core's rows; the host layer's are host_ctl_rows (host.h). */
static const struct ctl_row table[WIRE_TM_MAX] = {
	[WIRE_TM_CONNECT] = {"TM_CONNECT", tm_connect, CTL_HERE},
	[WIRE_TM_EXIT] = {"TM_EXIT", tm_exit, CTL_HERE},
	[WIRE_TM_SPAWN] = {"TM_SPAWN", ctl_spawn, CTL_SPLIT},
	[WIRE_TM_TASKS] = {"TM_TASKS", ctl_tasks, CTL_SPLIT},
	[WIRE_TM_MSTAT] = {"TM_MSTAT", tm_mstat, CTL_ANY},
	[WIRE_TM_PSTAT] = {"TM_PSTAT", tm_pstat, CTL_TID_HOST},
	[WIRE_TM_KILL] = {"TM_KILL", tm_kill, CTL_TID_HOST},
	[WIRE_TM_SIGNAL] = {"TM_SIGNAL", tm_signal, CTL_TID_HOST},
	[WIRE_TM_NOTIFY] = {"TM_NOTIFY", tm_notify, CTL_HERE},
	[WIRE_TM_CONTEXT] = {"TM_CONTEXT", tm_context, CTL_MASTER},
	[WIRE_TM_HALT] = {"TM_HALT", tm_halt, CTL_ALL},
	[WIRE_TM_SIBLINGS] = {"TM_SIBLINGS", tm_siblings, CTL_HERE},
	[WIRE_TM_SETOPT] = {"TM_SETOPT", tm_setopt, CTL_HERE},
	[WIRE_TM_NORESETS] = {"TM_NORESETS", tm_noresets, CTL_HERE},
	[WIRE_TM_MBOX_PUT] = {"TM_MBOX_PUT", ctl_mbox_put, CTL_MASTER},
	[WIRE_TM_MBOX_GET] = {"TM_MBOX_GET", ctl_mbox_get, CTL_MASTER},
	[WIRE_TM_MBOX_DEL] = {"TM_MBOX_DEL", ctl_mbox_del, CTL_MASTER},
	[WIRE_TM_MBOX_LIST] = {"TM_MBOX_LIST", ctl_mbox_list, CTL_MASTER},
	[WIRE_TM_GS_JOIN] = {"TM_GS_JOIN", ctl_gs_join, CTL_MASTER},
	[WIRE_TM_GS_LEAVE] = {"TM_GS_LEAVE", ctl_gs_leave, CTL_MASTER},
	[WIRE_TM_GS_INFO] = {"TM_GS_INFO", ctl_gs_info, CTL_MASTER},
	[WIRE_TM_GS_BARRIER] = {"TM_GS_BARRIER", ctl_gs_barrier, CTL_MASTER},
	[WIRE_TM_GS_FREEZE] = {"TM_GS_FREEZE", ctl_gs_freeze, CTL_MASTER},
	[WIRE_TM_GS_LIST] = {"TM_GS_LIST", ctl_gs_list, CTL_MASTER},
	[WIRE_TM_ROUTEADDR] = {"TM_ROUTEADDR", ctl_routeaddr, CTL_TID_HOST},
	[WIRE_TM_LEAVING] = {"TM_LEAVING", tm_leaving, CTL_HERE},
	[WIRE_TM_TCPPORT] = {"TM_TCPPORT", tm_tcpport, CTL_HERE},
	[WIRE_TM_TASKEND] = {"TM_TASKEND", ctl_taskend, CTL_TID_HOST},
	[WIRE_TM_SPAWNPATH] = {"TM_SPAWNPATH", ctl_spawnpath, CTL_HERE},
};

/* The row of a TM_* code, or NULL. */
static const struct ctl_row *row_of(int code)
{
	if (code <= 0 || code >= WIRE_TM_MAX)
		return NULL;
	if (table[code].fn)
		return &table[code];
	return host_ctl_rows[code].fn ? &host_ctl_rows[code] : NULL;
}

/* A request that came over a link from another pvmd. */
static int link_dispatch(struct pvmd *d, struct conn *c,
			 const struct wire_hdr *h, const uint8_t *payload)
{
	int code = h->tag;
	const struct ctl_row *row = row_of(code);
	if (!row || !ctl_from_link(row)) {
		plog(PL_ERR,
		     "host t%x: control code %d not taken from a pvmd%s",
		     h->src, code, h->wid ? ": replied PvmNotImpl" : "");
		if (h->wid)
			ctl_reply_status(d, c, h, PvmNotImpl);
		return 0;
	}
	plog(PL_DEBUG, "%s from t%x via a link (wid %u, %u bytes)", row->name,
	     h->src, h->wid, h->len);
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	if (row->fn(d, c, h, &r) < 0) {
		/* the task's fault, not its pvmd's: the link stays */
		plog(PL_ERR, "t%x: malformed %s request via a link (%u bytes)",
		     h->src, row->name, h->len);
		if (h->wid)
			ctl_reply_status(d, c, h, PvmBadParam);
	}
	return 0;
}

int ctl_dispatch(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 const uint8_t *payload)
{
	if (c->kind == CONN_LINK)
		return link_dispatch(d, c, h, payload);
	struct task *t = conn_task(c);
	int code = h->tag;
	const struct ctl_row *row = row_of(code);

	if (!t) {
		/* Only TM_CONNECT before enrollment (or TM_LEAVING alone). */
		if (code != WIRE_TM_CONNECT && code != WIRE_TM_LEAVING) {
			plog(PL_ERR,
			     "pid %d: control code %d before TM_CONNECT",
			     (int)conn_peer_pid(c), code);
			return -1;
		}
	} else {
		if (code == WIRE_TM_CONNECT) {
			plog(PL_ERR,
			     "t%x: TM_CONNECT on an enrolled connection",
			     t->tid);
			return -1;
		}
		if (h->src != t->tid) {
			plog(PL_ERR, "t%x: control frame with src %x", t->tid,
			     h->src);
			return -1;
		}
	}
	if (!row) {
		plog(PL_ERR, "t%x: unknown control code %d%s", t->tid, code,
		     h->wid ? ": replied PvmNotImpl" : "");
		if (h->wid)
			ctl_reply_status(d, c, h, PvmNotImpl);
		return 0;
	}
	if (t)
		plog(PL_DEBUG, "%s from t%x (wid %u, %u bytes)", row->name,
		     t->tid, h->wid, h->len);
	if (t && fwd_request(d, c, h, payload, row->where))
		return 0; /* another pvmd's, or split over several */
	if (!t)
		plog(PL_DEBUG, "%s from pid %d (wid %u, %u bytes)", row->name,
		     (int)conn_peer_pid(c), h->wid, h->len);

	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	if (row->fn(d, c, h, &r) < 0) {
		if (t)
			plog(PL_ERR, "t%x: malformed %s request (%u bytes)",
			     t->tid, row->name, h->len);
		else
			plog(PL_ERR, "pid %d: malformed %s request (%u bytes)",
			     (int)conn_peer_pid(c), row->name, h->len);
		return -1;
	}
	return 0;
}
