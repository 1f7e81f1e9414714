/*
 * group.c - dynamic process groups: membership, barriers and freezes
 * (pvm_joingroup, pvm_lvgroup, pvm_gsize..., pvm_barrier,
 * pvm_freezegroup) through the control requests TM_GS_* (docs/protocol.md,
 * docs/groups.md "Rules and errors").
 *
 * The master pvmd holds the table (on a one-host machine, the only pvmd).
 * Groups are kept in an array sorted by name (binary search); a group's
 * members in an array sorted by instance, plus a tid -> instance hash, so
 * that join, leave and the lookups stay cheap with thousands of members.
 * Since instances are distinct and sorted, the lowest free instance is the
 * first position i whose instance is not i: found by binary search.
 *
 * A barrier or freeze request is held (its reply deferred) until `count`
 * members have made it, as the mailbox holds PvmMboxWaitForInfo reads.
 * When a member leaves or dies: in a frozen group the group becomes
 * defunct (waiting and later barriers get PvmNoGroup); otherwise the
 * waiters get PvmNoGroup once `count` exceeds the members left.  A group
 * whose last member leaves is deleted.
 *
 * Tasks cache group lists: whoever asked for a group's list (TM_GS_INFO)
 * gets one unasked TM_GS_EVENT when the membership changes next, and is
 * then forgotten until it asks again, so each fetched list costs at most
 * one event and a task that stopped looking gets no more.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/group.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

struct gmember {
	int inst;
	int tid;
};

/* A held request: replied to later with the same code and wid. */
struct gwait {
	int tid;
	struct wire_hdr req;
};

/* A pending barrier or freeze: count 0 when none. */
struct gsync {
	int count;
	int n, cap;
	struct gwait *w;
};

struct group {
	char *name;
	int frozen;	   /* made static by pvm_freezegroup */
	int defunct;	   /* frozen, then a member left or died */
	struct gmember *m; /* sorted by instance */
	int n, cap;
	struct idhash bytid; /* tid -> instance + 1 (intptr) */
	struct gsync barrier, freeze;
	int slot;     /* shared slot (gshm.h), -1: none */
	int moved;    /* the machine has had several hosts: no slot */
	int32_t gid;  /* id of this group, told with the slot */
	int *cachers; /* tasks holding a copy of the list */
	int ncachers, capcachers;
	struct idhash iscacher; /* the same tids, for lookups */
};

/* Position of `name`, or where it would go (with *found 0). */
static size_t group_pos(struct pvmd *d, const char *name, int *found)
{
	size_t lo = 0, hi = d->ngroups;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(d->groups[mid]->name, name);
		if (!c) {
			*found = 1;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = 0;
	return lo;
}

static struct group *group_find(struct pvmd *d, const char *name)
{
	int found;
	size_t i = group_pos(d, name, &found);
	return found ? d->groups[i] : NULL;
}

static struct group *group_create(struct pvmd *d, const char *name)
{
	int found;
	size_t pos = group_pos(d, name, &found);
	if (d->ngroups == d->capgroups) {
		size_t cap = d->capgroups ? 2 * d->capgroups : 16;
		struct group **p = realloc(d->groups, cap * sizeof *p);
		if (!p)
			return NULL;
		d->groups = p;
		d->capgroups = cap;
	}
	struct group *g = calloc(1, sizeof *g);
	if (!g || !(g->name = strdup(name))) {
		free(g);
		return NULL;
	}
	idhash_init(&g->bytid);
	idhash_init(&g->iscacher);
	g->slot = gshm_slot_new(d, &g->gid);
	if (host_count(d) > 1) {
		g->moved = 1;
		gshm_slot_move(d, g->slot);
	}
	memmove(d->groups + pos + 1, d->groups + pos,
		(d->ngroups - pos) * sizeof *d->groups);
	d->groups[pos] = g;
	d->ngroups++;
	plog(PL_DEBUG, "group %s created", name);
	return g;
}

static void group_free(struct pvmd *d, struct group *g)
{
	gshm_slot_free(d, g->slot);
	idhash_fini(&g->bytid);
	idhash_fini(&g->iscacher);
	free(g->cachers);
	free(g->barrier.w);
	free(g->freeze.w);
	free(g->m);
	free(g->name);
	free(g);
}

/* Deletes an empty group (its pending requests have been answered). */
static void group_delete(struct pvmd *d, struct group *g)
{
	int found;
	size_t pos = group_pos(d, g->name, &found);
	if (!found || d->groups[pos] != g)
		return;
	plog(PL_DEBUG, "group %s deleted", g->name);
	memmove(d->groups + pos, d->groups + pos + 1,
		(d->ngroups - pos - 1) * sizeof *d->groups);
	d->ngroups--;
	group_free(d, g);
}

/* Instance of `tid` in `g`, or -1. */
static int member_inst(const struct group *g, int tid)
{
	intptr_t v = (intptr_t)idhash_get(&g->bytid, tid);
	return v ? (int)v - 1 : -1;
}

/* Position of instance `inst` in g->m (it must be there), or where the
 * lowest free instance goes when inst is -1. */
static int member_pos(const struct group *g, int inst)
{
	int lo = 0, hi = g->n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		int less = inst < 0 ? g->m[mid].inst == mid
				    : g->m[mid].inst < inst;
		if (less)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Adds `tid` with the lowest free instance; returns it or PvmNoMem. */
static int member_add(struct group *g, int tid)
{
	if (g->n == g->cap) {
		int cap = g->cap ? 2 * g->cap : 8;
		struct gmember *p = realloc(g->m, (size_t)cap * sizeof *p);
		if (!p)
			return PvmNoMem;
		g->m = p;
		g->cap = cap;
	}
	int pos = member_pos(g, -1); /* the lowest free instance is pos */
	if (idhash_put(&g->bytid, tid, (void *)(intptr_t)(pos + 1)) < 0)
		return PvmNoMem;
	memmove(g->m + pos + 1, g->m + pos,
		(size_t)(g->n - pos) * sizeof *g->m);
	g->m[pos].inst = pos;
	g->m[pos].tid = tid;
	g->n++;
	return pos;
}

static void member_remove(struct group *g, int tid, int inst)
{
	int pos = member_pos(g, inst);
	idhash_del(&g->bytid, tid);
	memmove(g->m + pos, g->m + pos + 1,
		(size_t)(g->n - pos - 1) * sizeof *g->m);
	g->n--;
}

/* Remembers that `tid` holds a copy of g's list (TM_GS_INFO).  Returns 0
 * or PvmNoMem: then the list must not be handed out, since its holder
 * would never learn that it went stale. */
static int cacher_add(struct group *g, int tid)
{
	if (idhash_get(&g->iscacher, tid))
		return 0;
	if (g->ncachers == g->capcachers) {
		int cap = g->capcachers ? 2 * g->capcachers : 8;
		int *p = realloc(g->cachers, (size_t)cap * sizeof *p);
		if (!p)
			return PvmNoMem;
		g->cachers = p;
		g->capcachers = cap;
	}
	if (idhash_put(&g->iscacher, tid, (void *)1) < 0)
		return PvmNoMem;
	g->cachers[g->ncachers++] = tid;
	return 0;
}

/* g's membership changed: its shared slot learns the size (and breaks a
 * barrier that can no longer complete); every holder of a copy gets
 * TM_GS_EVENT (str group) and is forgotten. */
static void group_changed(struct pvmd *d, struct group *g, int departed)
{
	/* The events first, written to the sockets: a member that the slot
	 * update wakes from a broken barrier and then asks pvm_gsize must
	 * find the event already there, not an out-of-date cached list. */
	if (g->ncachers) {
		struct wire_wr w;
		wire_wr_init(&w);
		wire_wr_str(&w, g->name);
		struct wire_hdr ev = {.tag = WIRE_TM_GS_EVENT, .wid = 0};
		for (int i = 0; i < g->ncachers; i++) {
			ctl_reply_tid(d, g->cachers[i], &ev, &w);
			struct task *t = task_find(d, g->cachers[i]);
			if (t && t->conn)
				conn_flush_now(d, t->conn);
		}
		wire_wr_free(&w);
		g->ncachers = 0;
		idhash_fini(&g->iscacher);
		idhash_init(&g->iscacher);
	}
	gshm_slot_update(d, g->slot, g->n, g->frozen, g->defunct, departed);
}

static void reply_to(struct pvmd *d, int tid, const struct wire_hdr *req,
		     int status)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	ctl_reply_tid(d, tid, req, &w);
	wire_wr_free(&w);
}

static int sync_waiting(const struct gsync *s, int tid)
{
	for (int i = 0; i < s->n; i++)
		if (s->w[i].tid == tid)
			return 1;
	return 0;
}

static int sync_add(struct gsync *s, int tid, const struct wire_hdr *req)
{
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 8;
		struct gwait *p = realloc(s->w, (size_t)cap * sizeof *p);
		if (!p)
			return PvmNoMem;
		s->w = p;
		s->cap = cap;
	}
	s->w[s->n].tid = tid;
	s->w[s->n].req = *req;
	s->n++;
	return 0;
}

/* Answers every waiter with `status` and ends the pending request. */
static void sync_release(struct pvmd *d, struct gsync *s, int status)
{
	/* Reset first: a reply cannot re-enter, but keep the state sane. */
	int n = s->n;
	struct gwait *w = s->w;
	s->w = NULL;
	s->n = s->cap = s->count = 0;
	for (int i = 0; i < n; i++)
		reply_to(d, w[i].tid, &w[i].req, status);
	free(w);
}

/* Removes `tid`'s held requests, answering them with `status` when
 * `answer` (the task is still there). */
static void sync_drop(struct pvmd *d, struct gsync *s, int tid, int status,
		      int answer)
{
	int j = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->w[i].tid != tid) {
			s->w[j++] = s->w[i];
			continue;
		}
		if (answer)
			reply_to(d, tid, &s->w[i].req, status);
	}
	s->n = j;
	if (!s->n)
		s->count = 0;
}

/* A member has left or died: applies the rules for pending and later
 * barriers and freezes, and deletes the group when it is empty. */
static void after_departure(struct pvmd *d, struct group *g)
{
	if (g->frozen) {
		g->defunct = 1;
		if (g->barrier.count)
			sync_release(d, &g->barrier, PvmNoGroup);
	} else {
		if (g->barrier.count && g->n < g->barrier.count) {
			plog(PL_DEBUG,
			     "group %s: barrier of %d unreachable with %d members",
			     g->name, g->barrier.count, g->n);
			sync_release(d, &g->barrier, PvmNoGroup);
		}
		if (g->freeze.count && g->n < g->freeze.count) {
			plog(PL_DEBUG,
			     "group %s: freeze of %d unreachable with %d members",
			     g->name, g->freeze.count, g->n);
			sync_release(d, &g->freeze, PvmNoGroup);
		}
	}
	if (!g->n) {
		sync_release(d, &g->barrier, PvmNoGroup);
		sync_release(d, &g->freeze, PvmNoGroup);
		group_delete(d, g);
	}
}

/* Reads what starts every TM_GS_* request, the group name, and the i32
 * that follows it when `arg` is given (count, size); nothing may follow.
 * Returns the name (malloc'd), or NULL for a malformed request. */
static char *read_request(struct wire_rd *r, int *arg)
{
	char *name = wire_rd_strdup(r);
	if (arg)
		*arg = wire_rd_i32(r);
	if (r->err || r->left) {
		free(name);
		return NULL;
	}
	return name;
}

/* Groups one task may be a member of at once (docs/limits.md); beyond,
 * pvm_joingroup gets PvmOutOfRes. */
#define GS_TASK_MAX 4096

/* TM_GS_JOIN: str group -> i32 instance or error. */
int ctl_gs_join(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	char *name = read_request(r, NULL);
	if (!name)
		return -1;
	int tid = ctl_src(c, h), st;
	struct group *g = *name ? group_find(d, name) : NULL;
	if (!*name)
		st = PvmNullGroup;
	else if (g && g->frozen)
		st = PvmNotInGroup; /* the reference's answer */
	else if (g && member_inst(g, tid) >= 0)
		st = PvmDupGroup;
	else if (idhash_count(&d->gs_use, tid) >= GS_TASK_MAX)
		st = PvmOutOfRes;
	else if (!g && !(g = group_create(d, name)))
		st = PvmNoMem;
	else if ((st = member_add(g, tid)) < 0 && !g->n)
		group_delete(d, g);
	if (st >= 0) {
		idhash_count_add(&d->gs_use, tid, 1);
		group_changed(d, g, 0);
	}
	plog(PL_DEBUG, "t%x joins group %s: %d", tid, name, st);
	free(name);
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* Takes `tid` (instance `inst`) out of `g`.  Its own held requests are
 * answered with PvmNotInGroup when `answer` (it left by request) or
 * dropped (it is gone). */
static void leave(struct pvmd *d, struct group *g, int tid, int inst,
		  int answer)
{
	member_remove(g, tid, inst);
	idhash_count_add(&d->gs_use, tid, -1);
	if (g->frozen && !g->defunct) {
		plog(PL_DEBUG, "group %s: frozen, now defunct", g->name);
		g->defunct = 1;
	}
	group_changed(d, g, 1);
	sync_drop(d, &g->barrier, tid, PvmNotInGroup, answer);
	sync_drop(d, &g->freeze, tid, PvmNotInGroup, answer);
	after_departure(d, g);
}

/* TM_GS_LEAVE: str group -> i32 status. */
int ctl_gs_leave(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r)
{
	char *name = read_request(r, NULL);
	if (!name)
		return -1;
	int tid = ctl_src(c, h), st = 0, inst = -1;
	struct group *g = *name ? group_find(d, name) : NULL;
	if (!*name)
		st = PvmNullGroup;
	else if (!g)
		st = PvmNoGroup;
	else if ((inst = member_inst(g, tid)) < 0)
		st = PvmNotInGroup;
	plog(PL_DEBUG, "t%x leaves group %s: %d", tid, name, st);
	free(name);
	ctl_reply_status(d, c, h, st);
	if (!st)
		leave(d, g, tid, inst, 1);
	return 0;
}

static void write_members(struct wire_wr *w, const struct group *g)
{
	wire_wr_i32(w, g->n);
	for (int i = 0; i < g->n; i++) {
		wire_wr_i32(w, g->m[i].inst);
		wire_wr_i32(w, g->m[i].tid);
	}
}

/* TM_GS_INFO: str group -> i32 status, i32 frozen, i32 n, n x {i32
 * instance, i32 tid}, i32 slot, i32 gid. */
int ctl_gs_info(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	char *name = read_request(r, NULL);
	if (!name)
		return -1;
	struct group *g = *name ? group_find(d, name) : NULL;
	struct wire_wr w;
	wire_wr_init(&w);
	int st = !*name ? PvmNullGroup
		 : !g	? PvmNoGroup
			: cacher_add(g, ctl_src(c, h));
	if (!st) {
		wire_wr_i32(&w, 0);
		wire_wr_i32(&w, g->frozen);
		write_members(&w, g);
		/* with several hosts the pvmd counts every barrier
		 * (docs/hosts.md); a group that lived through them stays
		 * there, so that no member keeps meeting in the slot */
		wire_wr_i32(&w, g->moved || host_count(d) > 1 ? -1 : g->slot);
		wire_wr_i32(&w, g->gid);
	} else {
		wire_wr_i32(&w, st);
		wire_wr_i32(&w, 0);
		wire_wr_i32(&w, 0);
		wire_wr_i32(&w, -1);
		wire_wr_i32(&w, 0);
	}
	free(name);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}

/* The checks barrier and freeze share: group, membership, count, and the
 * count of the pending request (-1 joins it whatever its count).  Returns
 * 0 when the request may wait, else the error to answer. */
static int sync_check(const struct group *g, const struct gsync *s, int tid,
		      int count)
{
	if (!g)
		return PvmNoGroup;
	if (member_inst(g, tid) < 0)
		return PvmNotInGroup;
	/* the man page's code; the reference answers PvmMismatch and then
	 * fails the group's later barriers too (docs/compat.md) */
	if (count == 0 || count < -1)
		return PvmBadParam;
	if (sync_waiting(s, tid))
		return PvmBadParam; /* already waiting (another thread?) */
	if (s->count && count != -1 && count != s->count)
		return PvmMismatch;
	return 0;
}

/* Adds the request to `s`; returns 1 when `count` is now reached, 0 when
 * it waits, or an error. */
static int sync_arrive(struct group *g, struct gsync *s, int tid, int count,
		       const struct wire_hdr *h)
{
	if (sync_add(s, tid, h) < 0)
		return PvmNoMem;
	if (!s->count)
		s->count = count == -1 ? g->n : count;
	return s->n >= s->count;
}

/* TM_GS_BARRIER: str group, i32 count -> i32 status, held until `count`
 * members have arrived. */
int ctl_gs_barrier(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r)
{
	int count;
	char *name = read_request(r, &count);
	if (!name)
		return -1;
	int tid = ctl_src(c, h);
	struct group *g = *name ? group_find(d, name) : NULL;
	int st = *name ? sync_check(g, g ? &g->barrier : NULL, tid, count)
		       : PvmNullGroup;
	if (!st && g->defunct)
		st = PvmNoGroup;
	/* A frozen group gains no members: a count above its size would
	 * wait forever. */
	if (!st && g->frozen && !g->barrier.count && count > g->n)
		st = PvmNoGroup;
	if (!st)
		st = sync_arrive(g, &g->barrier, tid, count, h);
	plog(PL_DEBUG, "t%x barrier %s count %d: %s (%d)", tid, name, count,
	     st == 0   ? "waits"
	     : st == 1 ? "released"
		       : "error",
	     st);
	free(name);
	if (st < 0)
		ctl_reply_status(d, c, h, st);
	else if (st == 1)
		sync_release(d, &g->barrier, 0);
	return 0;
}

/* TM_GS_FREEZE: str group, i32 size -> i32 size or error, held until
 * `size` members have called it; the group is then frozen. */
int ctl_gs_freeze(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	int size;
	char *name = read_request(r, &size);
	if (!name)
		return -1;
	int tid = ctl_src(c, h), st;
	struct group *g = *name ? group_find(d, name) : NULL;
	if (!*name)
		st = PvmNullGroup;
	else if (g && g->frozen && member_inst(g, tid) >= 0)
		st = PvmDupGroup;
	else
		st = sync_check(g, g ? &g->freeze : NULL, tid, size);
	if (!st)
		st = sync_arrive(g, &g->freeze, tid, size, h);
	plog(PL_DEBUG, "t%x freeze %s size %d: %s (%d)", tid, name, size,
	     st == 0   ? "waits"
	     : st == 1 ? "frozen"
		       : "error",
	     st);
	free(name);
	if (st < 0) {
		ctl_reply_status(d, c, h, st);
	} else if (st == 1) {
		g->frozen = 1;
		/* no member can join now: a count above the size breaks */
		gshm_slot_update(d, g->slot, g->n, 1, g->defunct, 1);
		sync_release(d, &g->freeze, g->freeze.count);
		/* No member can join now: a pending barrier waiting for
		 * more than the members there are would never end. */
		if (g->barrier.count > g->n)
			sync_release(d, &g->barrier, PvmNoGroup);
	}
	return 0;
}

/* TM_GS_LIST: (none) -> i32 status, i32 ngroups, ngroups x {str name,
 * i32 frozen, i32 n, n x {i32 instance, i32 tid}}, sorted by name. */
int ctl_gs_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	if (r->err || r->left)
		return -1;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, (int32_t)d->ngroups);
	for (size_t i = 0; i < d->ngroups; i++) {
		wire_wr_str(&w, d->groups[i]->name);
		wire_wr_i32(&w, d->groups[i]->frozen);
		write_members(&w, d->groups[i]);
	}
	if (w.err) {
		wire_wr_free(&w);
		wire_wr_init(&w);
		wire_wr_i32(&w, PvmNoMem);
		wire_wr_i32(&w, 0);
	}
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}

void group_task_exit(struct pvmd *d, int tid)
{
	size_t i = 0;
	while (i < d->ngroups) {
		struct group *g = d->groups[i];
		int inst = member_inst(g, tid);
		if (inst < 0) {
			i++;
			continue;
		}
		plog(PL_DEBUG, "t%x gone: leaves group %s", tid, g->name);
		size_t before = d->ngroups;
		leave(d, g, tid, inst, 0);
		if (d->ngroups == before)
			i++;
	}
}

void group_host_lost(struct pvmd *d, int hostno)
{
	for (;;) {
		int tid = 0;
		for (size_t i = 0; i < d->ngroups && !tid; i++)
			for (int k = 0; k < d->groups[i]->n && !tid; k++)
				if (host_no_of_tid(d->groups[i]->m[k].tid) ==
				    hostno)
					tid = d->groups[i]->m[k].tid;
		if (!tid)
			return;
		group_task_exit(d, tid);
	}
}

void group_hosts_changed(struct pvmd *d)
{
	for (size_t i = 0; i < d->ngroups; i++) {
		struct group *g = d->groups[i];
		if (host_count(d) > 1 && !g->moved) {
			g->moved = 1;
			gshm_slot_move(d, g->slot);
		}
		group_changed(d, g, 0);
	}
}

void group_free_all(struct pvmd *d)
{
	(void)d;
	for (size_t i = 0; i < d->ngroups; i++)
		group_free(d, d->groups[i]);
	free(d->groups);
	d->groups = NULL;
	d->ngroups = d->capgroups = 0;
	idhash_fini(&d->gs_use);
}
