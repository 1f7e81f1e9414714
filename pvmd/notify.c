/*
 * notify.c - pvm_notify registrations and their delivery (see pvmd.h).
 *
 * A notify is an ordinary message from the pvmd (src 0x80000000, seq 0,
 * encoding Default) with the tag and context the owner registered; the
 * body of a PvmTaskExit or PvmHostDelete notify is one XDR int, the tid
 * the owner named when it registered.  The rules follow the reference
 * PVM 3.4.6 as measured (test/notify.bats, test/hosts-notify.bats):
 *
 * - PvmTaskExit watches one task: it fires when that task exits or its
 *   host is lost, and at once for a task that is not there.
 * - PvmHostDelete watches the host a tid belongs to, whatever the tid is
 *   (a pvmd tid, a task of that host, even one that has exited): it fires
 *   when that host leaves the machine, and at once if no such host is in
 *   it.
 * - Each tid of a call is a registration of its own, delivered once.
 * - PvmNotifyCancel takes, for each tid it names, the oldest registration
 *   of the same owner, kind, tag and context that matches it (the same
 *   task, or for PvmHostDelete any tid of the same host) and delivers it
 *   at once, as man 3 pvm_notify says.
 * - Registrations are delivered in the order they were made.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/notify.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

struct notify {
	struct notify *next;
	int owner; /* task to tell */
	int kind;  /* PvmTaskExit, PvmHostDelete, PvmHostAdd */
	int tag, ctx;
	int target; /* TaskExit, HostDelete: the tid named, sent back */
	int count;  /* HostAdd: notifications left, -1 = unlimited */
};

static void send_int(struct pvmd *d, int owner, int tag, int ctx, int value)
{
	uint8_t b[4] = {(uint8_t)((uint32_t)value >> 24),
			(uint8_t)((uint32_t)value >> 16),
			(uint8_t)((uint32_t)value >> 8), (uint8_t)value};
	pvmd_send_msg(d, owner, tag, ctx, b, sizeof b);
}

/* Registrations one task may have at once (docs/limits.md); beyond,
 * pvm_notify gets PvmOutOfRes. */
#define NOTIFY_TASK_MAX 65536

static int add(struct pvmd *d, int owner, int kind, int tag, int ctx,
	       int target, int count)
{
	if (idhash_count(&d->notify_use, owner) >= NOTIFY_TASK_MAX)
		return PvmOutOfRes;
	struct notify *n = malloc(sizeof *n);
	if (!n)
		return PvmNoMem;
	*n = (struct notify){NULL, owner, kind, tag, ctx, target, count};
	*d->notify_tail = n; /* appended: delivered oldest first */
	d->notify_tail = &n->next;
	idhash_count_add(&d->notify_use, owner, 1);
	return 0;
}

/* Unlinks *pp (keeping the tail pointer right) and returns it. */
static struct notify *take(struct pvmd *d, struct notify **pp)
{
	struct notify *n = *pp;
	*pp = n->next;
	if (!*pp)
		d->notify_tail = pp;
	idhash_count_add(&d->notify_use, n->owner, -1);
	return n;
}

/* Delivers a TaskExit or HostDelete registration and frees it. */
static void fire(struct pvmd *d, struct notify *n)
{
	send_int(d, n->owner, n->tag, n->ctx, n->target);
	free(n);
}

/* Does registration n watch `tid` for a cancel of `kind`? */
static int cancel_matches(const struct notify *n, int kind, int tid)
{
	if (kind == PvmTaskExit)
		return n->target == tid;
	return host_no_of_tid(n->target) == host_no_of_tid(tid);
}

/* PvmNotifyCancel of one tid: the oldest matching registration, if any,
 * is delivered now. */
static void cancel_one(struct pvmd *d, int owner, int kind, int tag, int ctx,
		       int tid)
{
	if (kind == PvmHostDelete && !host_tid_present(d, tid))
		return; /* the reference looks only at hosts it has */
	for (struct notify **pp = &d->notifies; *pp; pp = &(*pp)->next) {
		struct notify *n = *pp;
		if (n->owner == owner && n->kind == kind && n->tag == tag &&
		    n->ctx == ctx && cancel_matches(n, kind, tid)) {
			fire(d, take(d, pp));
			return;
		}
	}
}

/* One tid of a TaskExit or HostDelete request. */
static int watch_one(struct pvmd *d, int owner, int kind, int tag, int ctx,
		     int tid)
{
	int there = host_tid_present(d, tid);
	int remote = there && !host_is_local_tid(d, tid);
	if (kind == PvmTaskExit && there && !remote)
		there = task_find(d, tid) != NULL;
	if (!there) { /* already gone: tell at once */
		send_int(d, owner, tag, ctx, tid);
		return 0;
	}
	int st = add(d, owner, kind, tag, ctx, tid, 0);
	/* another host's task: is it still there? */
	if (!st && kind == PvmTaskExit && remote)
		fwd_check_task(d, tid);
	return st;
}

/* PvmHostAdd: one registration per owner, tag and context; a new count
 * replaces the old one, 0 or a cancel removes it (without a message). */
static int host_add_request(struct pvmd *d, int owner, int undo, int tag,
			    int ctx, int count)
{
	for (struct notify **pp = &d->notifies; *pp; pp = &(*pp)->next) {
		struct notify *n = *pp;
		if (n->owner == owner && n->kind == PvmHostAdd &&
		    n->tag == tag && n->ctx == ctx) {
			if (undo || count == 0)
				free(take(d, pp));
			else
				n->count = count;
			return 0;
		}
	}
	if (undo || count == 0)
		return 0;
	return add(d, owner, PvmHostAdd, tag, ctx, 0, count);
}

int notify_request(struct pvmd *d, int owner, int what, int tag, int ctx,
		   int cnt, const int *tids)
{
	int undo = (what & PvmNotifyCancel) != 0;
	int kind = what & ~PvmNotifyCancel;
	int st = 0;

	switch (kind) {
	case PvmTaskExit:
	case PvmHostDelete:
		for (int i = 0; i < cnt && !st; i++) {
			if (undo)
				cancel_one(d, owner, kind, tag, ctx, tids[i]);
			else
				st = watch_one(d, owner, kind, tag, ctx,
					       tids[i]);
		}
		return st;
	case PvmHostAdd:
		/* the one item is how many additions to report (-1: every
		 * time; 0: stop) */
		if (cnt != 1)
			return PvmBadParam;
		return host_add_request(d, owner, undo, tag, ctx, tids[0]);
	case PvmRouteAdd:
	case PvmRouteDelete:
		return PvmNotImpl;
	default:
		return PvmBadParam;
	}
}

void notify_task_exit(struct pvmd *d, int tid)
{
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if (n->owner == tid) /* its own, whatever they watch */
			free(take(d, pp));
		else if (n->kind == PvmTaskExit && n->target == tid)
			fire(d, take(d, pp));
		else
			pp = &n->next;
	}
}

void notify_host_add(struct pvmd *d, const uint8_t *body, size_t len)
{
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *x = *pp;
		if (x->kind != PvmHostAdd) {
			pp = &x->next;
			continue;
		}
		pvmd_send_msg(d, x->owner, x->tag, x->ctx, body, len);
		/* as the reference counts: -1 is for ever, any other count
		 * ends when it drops below 1 */
		if (x->count != -1 && --x->count < 1)
			free(take(d, pp));
		else
			pp = &x->next;
	}
}

void notify_host_lost(struct pvmd *d, int hosttid)
{
	/* every registration that watches that host or a task of it, in the
	 * order they were made */
	int no = host_no_of_tid(hosttid);
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if ((n->kind == PvmTaskExit || n->kind == PvmHostDelete) &&
		    host_no_of_tid(n->target) == no)
			fire(d, take(d, pp));
		else
			pp = &n->next;
	}
}

void notify_free_all(struct pvmd *d)
{
	while (d->notifies)
		free(take(d, &d->notifies));
	idhash_fini(&d->notify_use);
}
