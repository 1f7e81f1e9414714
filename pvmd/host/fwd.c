/*
 * fwd.c - task requests that another pvmd handles (docs/hosts.md, "Which
 * requests go where"): forwarding them unchanged, routing the replies
 * back, and the requests one pvmd splits over several hosts (TM_SPAWN,
 * TM_TASKS of the whole machine, the existence check behind a
 * PvmTaskExit notify on another host's task).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/log.h"
#include "pvmd/notify.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

#define PEND_WID_BIT 0x80000000u

/* ---- pending requests this pvmd made for itself ---- */

enum pend_kind { P_TASKS, P_SPAWN, P_PSTAT };

struct task_ent {
	int tid, ptid, host, flag, pid;
	char *aout;
};

struct pend {
	struct pend *next;
	uint32_t wid;
	enum pend_kind kind;
	int req_tid;			     /* who asked (P_TASKS, P_SPAWN) */
	struct wire_hdr req;		     /* its request: code and wid */
	int nwait;			     /* hosts still to answer */
	unsigned char waiting[HOST_MAX + 1]; /* which */
	/* P_TASKS */
	struct task_ent *ents;
	int nents, capents;
	int status;
	/* P_SPAWN: slots[i] is the host of tids[i] */
	int count;
	int *tids, *slots;
	/* P_PSTAT: the tid asked about */
	int target;
};

static struct pend *pend_new(struct pvmd *d, enum pend_kind kind)
{
	struct pend *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (++d->hosts->fwd_last_wid >= PEND_WID_BIT)
		d->hosts->fwd_last_wid = 1;
	p->wid = d->hosts->fwd_last_wid | PEND_WID_BIT;
	p->kind = kind;
	p->next = d->hosts->pends;
	d->hosts->pends = p;
	return p;
}

static void pend_free(struct pvmd *d, struct pend *p)
{
	for (struct pend **pp = &d->hosts->pends; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	for (int i = 0; i < p->nents; i++)
		free(p->ents[i].aout);
	free(p->ents);
	free(p->tids);
	free(p->slots);
	free(p);
}

/* The request of the pvmd's own whose wid this is, or NULL (given up). */
static struct pend *pend_of(struct pvmd *d, uint32_t wid)
{
	struct pend *p = d->hosts->pends;
	while (p && p->wid != wid)
		p = p->next;
	return p;
}

static int pend_wait(struct pend *p, int hostno)
{
	if (hostno < 1 || hostno > HOST_MAX || p->waiting[hostno])
		return -1;
	p->waiting[hostno] = 1;
	p->nwait++;
	return 0;
}

/* Host `hostno` answered (or is gone): 1 if it was awaited. */
static int pend_done(struct pend *p, int hostno)
{
	if (hostno < 1 || hostno > HOST_MAX || !p->waiting[hostno])
		return 0;
	p->waiting[hostno] = 0;
	p->nwait--;
	return 1;
}

/* ---- TM_TASKS of the whole machine ---- */

static int add_ent(struct pend *p, int tid, int ptid, int host, int flag,
		   const char *aout, int pid)
{
	if (p->nents == p->capents) {
		int cap = p->capents ? 2 * p->capents : 64;
		struct task_ent *e = realloc(p->ents, (size_t)cap * sizeof *e);
		if (!e)
			return -1;
		p->ents = e;
		p->capents = cap;
	}
	char *a = strdup(aout);
	if (!a)
		return -1;
	p->ents[p->nents++] = (struct task_ent){tid, ptid, host, flag, pid, a};
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	int x = ((const struct task_ent *)a)->tid;
	int y = ((const struct task_ent *)b)->tid;
	return (x > y) - (x < y);
}

static void tasks_finish(struct pvmd *d, struct pend *p)
{
	qsort(p->ents, (size_t)p->nents, sizeof *p->ents, cmp_ent);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, p->status);
	wire_wr_i32(&w, p->status ? 0 : p->nents);
	for (int i = 0; !p->status && i < p->nents; i++) {
		struct task_ent *e = &p->ents[i];
		wire_wr_i32(&w, e->tid);
		wire_wr_i32(&w, e->ptid);
		wire_wr_i32(&w, e->host);
		wire_wr_i32(&w, e->flag);
		wire_wr_str(&w, e->aout);
		wire_wr_i32(&w, e->pid);
	}
	ctl_reply_tid(d, p->req_tid, &p->req, &w);
	wire_wr_free(&w);
	pend_free(d, p);
}

/* Adds a TM_TASKS reply's list to p. */
static void tasks_take(struct pend *p, const uint8_t *payload, size_t len)
{
	struct wire_rd r;
	wire_rd_init(&r, payload, len);
	int st = wire_rd_i32(&r);
	int n = wire_rd_count(&r, 24);
	if (r.err || st < 0)
		return; /* that host's tasks are missing, as if it had none */
	for (int i = 0; i < n && !r.err; i++) {
		int tid = wire_rd_i32(&r);
		int ptid = wire_rd_i32(&r);
		int host = wire_rd_i32(&r);
		int flag = wire_rd_i32(&r);
		char *aout = wire_rd_strdup(&r);
		int pid = wire_rd_i32(&r);
		if (!r.err && add_ent(p, tid, ptid, host, flag, aout, pid) < 0)
			p->status = PvmNoMem;
		free(aout);
	}
}

/* Our own tasks, straight from the table. */
static void tasks_local(struct pvmd *d, struct pend *p)
{
	for (size_t i = 0; i < d->tasks.cap; i++) {
		struct task *t = idhash_at(&d->tasks, i);
		if (!t)
			continue;
		int ptid = (t->pflags & CONN_PF_NOSPAWNPARENT) ? PvmParentNotSet
							       : t->ptid;
		if (add_ent(p, t->tid, ptid, d->hosttid, t->flags, t->aout,
			    (int)t->pid) < 0)
			p->status = PvmNoMem;
	}
}

static int fwd_tasks_all(struct pvmd *d, int src, const struct wire_hdr *h)
{
	struct pend *p = pend_new(d, P_TASKS);
	if (!p)
		return 0;
	p->req_tid = src;
	p->req = *h;
	tasks_local(d, p);
	struct wire_wr w;
	wire_wr_init(&w);
	for (int i = 1; i <= d->hosts->top; i++) {
		struct host *o = host_get(d, i);
		if (!o || o->state != HOST_UP || wire_host_tid(i) == d->hosttid)
			continue;
		w.len = 0;
		wire_wr_i32(&w, wire_host_tid(i));
		struct wire_hdr hh = {
			.src = d->hosttid, .tag = WIRE_TM_TASKS, .wid = p->wid};
		if (pend_wait(p, i) == 0 && !host_send_ctrl(d, i, &hh, &w))
			pend_done(p, i);
	}
	wire_wr_free(&w);
	if (!p->nwait)
		tasks_finish(d, p);
	return 1;
}

/* ---- TM_SPAWN over several hosts ---- */

static void spawn_finish(struct pvmd *d, struct pend *p)
{
	int started = 0;
	for (int i = 0; i < p->count; i++)
		started += p->tids[i] > 0;
	ctl_reply_list(d, p->req_tid, &p->req, started, p->count, p->tids);
	pend_free(d, p);
}

/* Fills host `no`'s slots from its reply (or with `code` if none). */
static void spawn_take(struct pend *p, int no, const uint8_t *payload,
		       size_t len, int code)
{
	struct wire_rd r;
	wire_rd_init(&r, payload, len);
	int st = payload ? wire_rd_i32(&r) : code;
	int n = payload ? wire_rd_count(&r, 4) : 0;
	if (r.err) {
		st = PvmSysErr;
		n = 0;
	}
	int k = 0;
	for (int i = 0; i < p->count; i++) {
		if (p->slots[i] != no)
			continue;
		int v = k < n ? wire_rd_i32(&r) : (st < 0 ? st : PvmSysErr);
		k++;
		p->tids[i] = r.err ? PvmSysErr : v;
	}
}

/* Whether host o is in the set the spawn's flags and host part select
 * (man 3 pvm_spawn). */
static int spawn_selects(const struct pvmd *d, const struct host *o, int flags,
			 const char *host)
{
	int in;
	if (flags & PvmTaskHost)
		in = !strcmp(o->name, host) ||
		     (wire_host_tid(o->no) == d->hosttid &&
		      spawn_is_our_host(d, host));
	else if (flags & PvmTaskArch)
		in = !strcmp(o->arch, host);
	else
		in = 1;
	return (flags & PvmHostCompl) ? !in : in;
}

/* This host's part has started (spawn_start): its tids fill its slots as
 * another host's reply would.  The spawn may have been given up on. */
static void here_spawned(struct pvmd *d, const struct spawn_result *r)
{
	struct pend *p = pend_of(d, (uint32_t)r->cookie);
	int no = host_no_of_tid(d->hosttid);
	if (!p || !pend_done(p, no))
		return;
	for (int i = 0, j = 0; i < p->count; i++)
		if (p->slots[i] == no)
			p->tids[i] = r->status < 0  ? r->status
				     : j < r->count ? r->tids[j++]
						    : PvmSysErr;
	if (!p->nwait)
		spawn_finish(d, p);
}

/* Starts this host's part `sub` of spawn p (a copy of it: the job owns
 * its request). */
static void spawn_here(struct pvmd *d, struct pend *p, int src,
		       const struct wire_hdr *h, const struct spawn_req *sub)
{
	int no = host_no_of_tid(d->hosttid);
	struct wire_wr w;
	wire_wr_init(&w);
	spawn_encode(&w, sub);
	struct wire_rd r;
	wire_rd_init(&r, w.buf, w.len);
	struct spawn_req q;
	int bad = w.err || spawn_decode(&r, &q) < 0;
	wire_wr_free(&w);
	if (bad) {
		spawn_req_free(&q);
		spawn_take(p, no, NULL, 0, PvmNoMem);
		return;
	}
	if (pend_wait(p, no) < 0) {
		spawn_req_free(&q);
		spawn_take(p, no, NULL, 0, PvmSysErr);
		return;
	}
	spawn_start(d, src, &q, h, here_spawned, (intptr_t)p->wid);
}

static int fwd_spawn(struct pvmd *d, int src, const struct wire_hdr *h,
		     const uint8_t *payload)
{
	struct spawn_req q;
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	if (spawn_decode(&r, &q) < 0 || q.count < 1 || q.count > 4096 ||
	    !*q.file) {
		spawn_req_free(&q);
		return 0; /* the local handler answers */
	}
	char hostpart[256];
	const char *colon = strchr(q.where, ':');
	size_t hl_len = colon ? (size_t)(colon - q.where) : strlen(q.where);
	if (hl_len >= sizeof hostpart) {
		spawn_req_free(&q);
		return 0;
	}
	memcpy(hostpart, q.where, hl_len);
	hostpart[hl_len] = 0;
	int set[HOST_MAX], nset = 0, local_in = 0;
	for (int i = 1; i <= d->hosts->top; i++) {
		struct host *o = host_get(d, i);
		if (o && o->state == HOST_UP &&
		    spawn_selects(d, o, q.flags, hostpart)) {
			set[nset++] = i;
			local_in |= wire_host_tid(i) == d->hosttid;
		}
	}
	if (nset == 0 || (nset == 1 && local_in)) {
		spawn_req_free(&q);
		return 0; /* all here, or nowhere: the local handler */
	}
	struct pend *p = pend_new(d, P_SPAWN);
	if (p) {
		p->tids = calloc((size_t)q.count, sizeof *p->tids);
		p->slots = calloc((size_t)q.count, sizeof *p->slots);
	}
	if (!p || !p->tids || !p->slots) {
		if (p)
			pend_free(d, p);
		spawn_req_free(&q);
		return 0;
	}
	p->req_tid = src;
	p->req = *h;
	p->count = q.count;
	p->nwait++; /* a guard while the parts are handed out */
	/* round robin over the selected hosts, going on where the last
	 * spawn stopped */
	for (int i = 0; i < q.count; i++)
		p->slots[i] = set[(d->hosts->spawn_rr + i) % nset];
	d->hosts->spawn_rr = (d->hosts->spawn_rr + q.count) % nset;

	for (int s = 0; s < nset; s++) {
		int no = set[s], k = 0;
		for (int i = 0; i < q.count; i++)
			k += p->slots[i] == no;
		if (!k)
			continue;
		struct host *o = host_get(d, no);
		struct spawn_req sub = q;
		char where[600];
		snprintf(where, sizeof where, "%s%s", o->name,
			 colon ? colon : "");
		sub.where = where;
		sub.count = k;
		sub.flags =
			(q.flags & ~(PvmTaskArch | PvmHostCompl)) | PvmTaskHost;
		if (wire_host_tid(no) == d->hosttid) {
			spawn_here(d, p, src, h, &sub);
			continue;
		}
		struct wire_wr w;
		wire_wr_init(&w);
		spawn_encode(&w, &sub);
		struct wire_hdr hh = {
			.src = src, .tag = WIRE_TM_SPAWN, .wid = p->wid};
		if (pend_wait(p, no) < 0 || !host_send_ctrl(d, no, &hh, &w)) {
			pend_done(p, no);
			spawn_take(p, no, NULL, 0, PvmSysErr);
		}
		wire_wr_free(&w);
	}
	spawn_req_free(&q);
	/* (the guard: a part that ended at once cannot finish it early) */
	if (!--p->nwait)
		spawn_finish(d, p);
	return 1;
}

/* ---- is a task of another host still there (for a notify) ---- */

void fwd_check_task(struct pvmd *d, int tid)
{
	struct pend *p = pend_new(d, P_PSTAT);
	if (!p)
		return;
	p->target = tid;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	struct wire_hdr hh = {
		.src = d->hosttid, .tag = WIRE_TM_PSTAT, .wid = p->wid};
	int no = host_no_of_tid(tid);
	if (pend_wait(p, no) < 0 || !host_send_ctrl(d, no, &hh, &w)) {
		notify_task_exit(d, tid);
		pend_free(d, p);
	}
	wire_wr_free(&w);
}

/* ---- dispatch ---- */

/* The i32 a payload starts with (0 if it is shorter). */
static int first_i32(const struct wire_hdr *h, const uint8_t *payload)
{
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	int v = wire_rd_i32(&r);
	return r.err ? 0 : v;
}

/* ---- tasks' requests forwarded unchanged ---- */

/* A task's request that went to another pvmd as it came (forward), kept
 * until its reply passes back.  If that host is lost first, nothing will
 * ever answer it and the task would wait for ever in its call: the
 * request is then handled here, as one that comes after the loss is
 * (the host's tasks and routes are gone: PvmNoTask, PvmNoHost...).  Kept
 * per task (d->hosts->fwaits: tid -> list); a task waits for one reply
 * at a time, and one with FWAIT_MAX unanswered is refused more, so that
 * neither the memory nor a reply's look-up grows without bound. */
#define FWAIT_MAX 64

struct fwait {
	struct fwait *next;
	int no;		   /* the host it went to */
	struct wire_hdr h; /* the task's request */
	uint8_t *payload;
};

static void fwait_free(struct fwait *w)
{
	free(w->payload);
	free(w);
}

static int fwait_count(const struct pvmd *d, int tid)
{
	int n = 0;
	for (const struct fwait *w = idhash_get(&d->hosts->fwaits, tid); w;
	     w = w->next)
		n++;
	return n;
}

/* Sets tid's list to `head` (none: forgets tid). */
static void fwait_set(struct pvmd *d, int tid, struct fwait *head)
{
	if (!head)
		idhash_del(&d->hosts->fwaits, tid);
	else /* tid is there: a replacement, which allocates nothing */
		(void)idhash_put(&d->hosts->fwaits, tid, head);
}

static void fwait_add(struct pvmd *d, int no, const struct wire_hdr *h,
		      const uint8_t *payload)
{
	struct fwait *w = calloc(1, sizeof *w);
	struct fwait *head = idhash_get(&d->hosts->fwaits, h->src);
	if (!w || !(w->payload = malloc(h->len ? h->len : 1)) ||
	    (!head && idhash_put(&d->hosts->fwaits, h->src, w) < 0)) {
		if (w)
			free(w->payload);
		free(w);
		plog(PL_ERR,
		     "out of memory: t%x's request %d to host %d is "
		     "not answered if that host is lost",
		     h->src, h->tag, no);
		return;
	}
	memcpy(w->payload, payload, h->len);
	w->no = no;
	w->h = *h;
	w->next = head;
	fwait_set(d, h->src, w);
}

/* The reply h to a task's request passes: it is answered. */
static void fwait_replied(struct pvmd *d, const struct wire_hdr *h)
{
	struct fwait *head = idhash_get(&d->hosts->fwaits, h->dst);
	for (struct fwait **pp = &head; *pp; pp = &(*pp)->next) {
		struct fwait *w = *pp;
		if (w->h.wid == h->wid && w->h.tag == h->tag) {
			*pp = w->next;
			fwait_free(w);
			fwait_set(d, h->dst, head);
			return;
		}
	}
}

/* Host `no` is lost: its requests are handled here (it is no longer in
 * the table, so ctl_dispatch no longer forwards them). */
static void fwait_host_lost(struct pvmd *d, int no)
{
	struct idhash *fw = &d->hosts->fwaits;
	size_t n = fw->count, k = 0;
	int *tids = n ? malloc(n * sizeof *tids) : NULL;
	if (n && !tids)
		return; /* out of memory: they wait, as before */
	for (size_t i = 0; i < fw->cap && k < n; i++)
		if (idhash_at(fw, i))
			tids[k++] = fw->slots[i].key;
	struct fwait *mine = NULL;
	for (size_t i = 0; i < k; i++) {
		struct fwait *head = idhash_get(fw, tids[i]);
		for (struct fwait **pp = &head; *pp;) {
			struct fwait *w = *pp;
			if (w->no != no) {
				pp = &w->next;
				continue;
			}
			*pp = w->next;
			w->next = mine;
			mine = w;
		}
		fwait_set(d, tids[i], head);
	}
	free(tids);
	while (mine) {
		struct fwait *w = mine;
		mine = w->next;
		struct task *t = task_find(d, w->h.src);
		/* a slave that lost the master halts and stops its tasks */
		if (t && t->conn && (no != 1 || d->hosts->master)) {
			plog(PL_INFO,
			     "t%x's request %d went to the lost host %d: "
			     "answered here",
			     w->h.src, w->h.tag, no);
			if (ctl_dispatch(d, t->conn, &w->h, w->payload) < 0)
				plog(PL_ERR, "t%x: its request %d is malformed",
				     w->h.src, w->h.tag);
		}
		fwait_free(w);
	}
}

void fwd_fini(struct pvmd *d)
{
	struct idhash *fw = &d->hosts->fwaits;
	for (size_t i = 0; i < fw->cap; i++)
		for (struct fwait *w = idhash_at(fw, i), *next; w; w = next) {
			next = w->next;
			fwait_free(w);
		}
	idhash_fini(fw);
	while (d->hosts->pends)
		pend_free(d, d->hosts->pends);
}

static int forward(struct pvmd *d, int no, const struct wire_hdr *h,
		   const uint8_t *payload)
{
	struct wire_hdr hh = *h;
	hh.dst = wire_host_tid(no);
	struct fbuf *f = fbuf_frame(&hh, payload, h->len);
	if (!f)
		return 0;
	int r = host_send(d, host_get(d, no), f);
	fbuf_put(f);
	if (r && h->wid)
		fwait_add(d, no, h, payload);
	return r;
}

int fwd_request(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		const uint8_t *payload, enum ctl_where where)
{
	if (host_count(d) <= 1)
		return 0;
	int src = ctl_src(c, h), no = 0;
	switch (where) {
	case CTL_MASTER:
		no = 1;
		break;
	case CTL_TID_HOST:
		no = host_no_of_tid(first_i32(h, payload));
		break;
	case CTL_SPLIT:
		if (h->tag == WIRE_TM_SPAWN)
			return fwd_spawn(d, src, h, payload);
		/* TM_TASKS: of one task or host, or of the whole machine */
		if (h->len != 4)
			return 0;
		no = first_i32(h, payload);
		if (no == 0)
			return fwd_tasks_all(d, src, h);
		no = host_no_of_tid(no);
		break;
	case CTL_ALL:
		host_halt_all(d);
		return 1;
	case CTL_HERE:
	case CTL_ANY:
		return 0;
	}
	if (wire_host_tid(no) == d->hosttid || !host_get(d, no) ||
	    host_get(d, no)->state != HOST_UP)
		return 0; /* here, or no such host: the local handler */
	if (h->wid && fwait_count(d, h->src) >= FWAIT_MAX) {
		plog(PL_ERR,
		     "t%x: %d requests to other hosts unanswered: "
		     "refused",
		     h->src, FWAIT_MAX);
		ctl_reply_status(d, c, h, PvmOutOfRes);
		return 1;
	}
	return forward(d, no, h, payload);
}

void fwd_reply(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f)
{
	const uint8_t *payload = f->data + WIRE_HDR_SIZE;
	if (!(h->wid & PEND_WID_BIT)) {
		/* a reply (or a TM_GS_EVENT) for a task of ours */
		fwait_replied(d, h);
		struct task *t = task_find(d, h->dst);
		if (!t || !t->conn)
			return;
		struct wire_hdr hh = *h;
		hh.flags &= (uint16_t)~WIRE_F_REPLY;
		wire_hdr_encode(&hh, f->data);
		conn_send(d, t->conn, f);
		return;
	}
	struct pend *p = pend_of(d, h->wid);
	int no = host_no_of_tid(h->src);
	if (!p || !pend_done(p, no))
		return; /* late: a host that was given up on */
	switch (p->kind) {
	case P_TASKS:
		tasks_take(p, payload, h->len);
		if (!p->nwait)
			tasks_finish(d, p);
		break;
	case P_SPAWN:
		spawn_take(p, no, payload, h->len, 0);
		if (!p->nwait)
			spawn_finish(d, p);
		break;
	case P_PSTAT:
		if (first_i32(h, payload) == PvmNoTask)
			notify_task_exit(d, p->target);
		pend_free(d, p);
		break;
	}
}

void fwd_host_lost(struct pvmd *d, int no)
{
	fwait_host_lost(d, no);
	for (struct pend *p = d->hosts->pends, *next; p; p = next) {
		next = p->next;
		if (!pend_done(p, no))
			continue;
		switch (p->kind) {
		case P_TASKS:
			if (!p->nwait)
				tasks_finish(d, p);
			break;
		case P_SPAWN:
			spawn_take(p, no, NULL, 0, PvmHostFail);
			if (!p->nwait)
				spawn_finish(d, p);
			break;
		case P_PSTAT:
			pend_free(d, p); /* its host's exits are delivered */
			break;
		}
	}
}

/* ---- TM_HOSTSYNC: i32 host tid -> i32 status, i32 sec, i32 usec ---- */

int ctl_hostsync(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r)
{
	int host = wire_rd_i32(r);
	if (r->err || r->left)
		return -1;
	struct wire_wr w;
	wire_wr_init(&w);
	if (host != d->hosttid) {
		wire_wr_i32(&w, PvmNoHost);
		wire_wr_i32(&w, 0);
		wire_wr_i32(&w, 0);
	} else {
		struct timeval tv;
		gettimeofday(&tv, NULL);
		wire_wr_i32(&w, 0);
		wire_wr_i32(&w, (int)tv.tv_sec);
		wire_wr_i32(&w, (int)tv.tv_usec);
	}
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}
