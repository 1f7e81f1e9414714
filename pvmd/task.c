/*
 * task.c - the task table: tid allocation, lookup, routing of data frames
 * to a task, and task exit (see pvmd.h).
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/shmseg.h"
#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/flow.h"
#include "pvmd/context.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/exits.h"
#include "pvmd/log.h"
#include "pvmd/mbox.h"
#include "pvmd/notify.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

struct task *task_new(struct pvmd *d)
{
	int span = WIRE_TID_TASK_MASK; /* task parts 1..0x3ffff */
	for (int i = 0; i < span; i++) {
		int part = d->next_tid;
		d->next_tid = part >= WIRE_TID_TASK_MASK ? 1 : part + 1;
		int tid = d->hosttid | part;
		if (idhash_get(&d->tasks, tid))
			continue;
		struct task *t = calloc(1, sizeof *t);
		if (!t)
			return NULL;
		t->tid = tid;
		t->aout = strdup("");
		if (!t->aout || idhash_put(&d->tasks, tid, t) < 0) {
			free(t->aout);
			free(t);
			return NULL;
		}
		return t;
	}
	return NULL;
}

struct task *task_find(struct pvmd *d, int tid)
{
	return idhash_get(&d->tasks, tid);
}

struct sibs_wait {
	int tid;
	struct wire_hdr hdr;
};

void sibs_put(struct sibs *s)
{
	if (s && --s->refs == 0) {
		free(s->wait);
		free(s);
	}
}

static void sibs_answer(struct pvmd *d, struct conn *c,
			const struct wire_hdr *h, const struct task *t)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	if (t->sibs) {
		wire_wr_i32(&w, t->sibs->n);
		for (int i = 0; i < t->sibs->n; i++)
			wire_wr_i32(&w, t->sibs->tids[i]);
	} else {
		/* not spawned: itself only, as the reference */
		wire_wr_i32(&w, 1);
		wire_wr_i32(&w, t->tid);
	}
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
}

void sibs_ask(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct task *t)
{
	struct sibs *s = t->sibs;
	/* A task waits for its answer, so one request per sibling is what
	 * honest ones send; beyond that (or short of memory) the list as
	 * it stands is the answer. */
	if (s && !s->done && s->nwait < s->n + 1) {
		if (s->nwait == s->capwait) {
			int cap = s->capwait ? 2 * s->capwait : 8;
			struct sibs_wait *nw =
				realloc(s->wait, (size_t)cap * sizeof *nw);
			if (!nw)
				goto now;
			s->wait = nw;
			s->capwait = cap;
		}
		s->wait[s->nwait].tid = t->tid;
		s->wait[s->nwait].hdr = *h;
		s->nwait++;
		return;
	}
now:
	sibs_answer(d, c, h, t);
}

void sibs_done(struct pvmd *d, struct sibs *s)
{
	if (!s)
		return;
	s->done = 1;
	for (int i = 0; i < s->nwait; i++) {
		struct task *t = task_find(d, s->wait[i].tid);
		/* gone meanwhile, or its tid reused by another task */
		if (t && t->conn && t->sibs == s)
			sibs_answer(d, t->conn, &s->wait[i].hdr, t);
	}
	free(s->wait);
	s->wait = NULL;
	s->nwait = s->capwait = 0;
}

static void drop_pending(struct task *t)
{
	for (size_t i = 0; i < t->npend; i++)
		fbuf_put(t->pend[i]);
	free(t->pend);
	t->pend = NULL;
	t->npend = t->cappend = 0;
}

void task_exit(struct pvmd *d, struct task *t, const char *why)
{
	int tid = t->tid;

	if (idhash_del(&d->tasks, tid) != t)
		return; /* not in the table: already gone */
	plog(PL_INFO, "t%x exited (%s)", tid, why);

	if (t->conn) {
		struct conn *c = t->conn;
		t->conn = NULL;
		c->task = NULL;
		conn_close(d, c, why);
	}
	if (t->npend)
		plog(PL_DEBUG, "t%x: dropping %zu frames it never received",
		     tid, t->npend);
	flow_task_gone(d, t);
	drop_pending(t);
	/* Its direct-route socket, if it crashed without removing it. */
	char path[600];
	if (vmdir_task_sock_in(path, sizeof path, d->dir, tid) == 0)
		unlink(path);
	/* Its shared-memory inbox: senders see it dead (docs/shm.md). */
	shmseg_mark_dead(tid);
	exits_name(d, tid, t->aout); /* for TM_TASKEND */
	notify_task_exit(d, tid);
	host_task_exit(d, tid); /* other hosts' notifies; a hoster task */
	context_task_exit(d, tid);
	mbox_task_exit(d, tid);
	group_task_exit(d, tid);
	sibs_put(t->sibs);
	free(t->aout);
	free(t);
}

int task_signal(struct pvmd *d, struct task *t, int sig)
{
	(void)d;
	if (t->pid <= 0)
		return PvmNoTask;
	if (kill(t->pid, sig) < 0)
		return errno == ESRCH ? PvmNoTask : PvmSysErr;
	return 0;
}

int route_frame(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f)
{
	if (!host_is_local_tid(d, h->dst)) {
		/* another host's task: over the link to its pvmd */
		struct host *o = host_of_tid(d, h->dst);
		if (o && o->state == HOST_UP)
			return host_send(d, o, f);
		if (h->flags & WIRE_F_FIRST)
			plog(PL_DEBUG,
			     "t%x -> t%x tag %d: no such host, message dropped",
			     h->src, h->dst, h->tag);
		flow_dropped(d, h);
		return 0;
	}
	struct task *t = task_find(d, h->dst);
	if (!t) {
		/* this pvmd's own address: SM_STHOSTACK from a registered
		 * hoster (hoster_task.c), in one frame; anything else is
		 * dropped (so is the rest of a message of many frames) */
		if ((uint32_t)h->dst ==
		    (WIRE_TID_DAEMON | (uint32_t)d->hosttid)) {
			if ((h->flags & (WIRE_F_FIRST | WIRE_F_LAST)) ==
			    (WIRE_F_FIRST | WIRE_F_LAST))
				host_daemon_msg(d, h->src, h,
						f->data + WIRE_HDR_SIZE);
			else if (h->flags & WIRE_F_FIRST)
				plog(PL_ERR,
				     "t%x: message of many frames to the pvmd dropped",
				     h->src);
			return 0;
		}
		if (h->flags & WIRE_F_FIRST)
			plog(PL_DEBUG,
			     "t%x -> t%x tag %d: no such task, message dropped",
			     h->src, h->dst, h->tag);
		flow_dropped(d, h);
		return 0;
	}
	flow_delivered(d, t, h);
	if (t->conn)
		return conn_send(d, t->conn, f) == 0;

	/* Spawned, not enrolled yet: hold the frame for it. */
	if (fbuf_hold(&t->pend, &t->npend, &t->cappend, f) < 0) {
		plog(PL_ERR, "t%x: out of memory holding a message for it",
		     t->tid);
		return 0;
	}
	return 1;
}

void task_attach(struct pvmd *d, struct task *t, struct conn *c)
{
	t->conn = c;
	t->flags |= TASK_F_CONN;
	conn_set_task(c, t);
	for (size_t i = 0; i < t->npend; i++)
		conn_send(d, c, t->pend[i]);
	drop_pending(t);
}

void pvmd_send_msg(struct pvmd *d, int dst, int tag, int ctx,
		   const void *payload, size_t len)
{
	struct wire_hdr h = {
		.flags = WIRE_F_FIRST | WIRE_F_LAST,
		.enc = PvmDataDefault,
		.dst = dst,
		.src = WIRE_TID_PVMD_SRC,
		.tag = tag,
		.ctx = ctx,
	};
	if (route_msg(d, &h, payload, len) < 0)
		plog(PL_ERR, "out of memory: message for t%x (tag %d) lost",
		     dst, tag);
}

size_t task_queued(struct pvmd *d, int tid)
{
	const struct task *t = tid ? task_find(d, tid) : NULL;
	return t && t->conn ? t->conn->qbytes : 0;
}

int route_msg(struct pvmd *d, const struct wire_hdr *h, const void *payload,
	      size_t len)
{
	struct fbuf *f = fbuf_frame(h, payload, len);
	if (!f)
		return -1;
	int r = route_frame(d, h, f);
	fbuf_put(f);
	return r;
}
