/*
 * notify.c - pvm_notify registrations and their delivery (see pvmd.h).
 *
 * A notify is an ordinary message from the pvmd (src 0x80000000, seq 0,
 * encoding Default) with the tag and context the owner registered:
 * PvmTaskExit carries the exited tid, PvmHostDelete the host's tid, both as
 * one XDR int.
 */
#include "config.h"

#include <stdlib.h>

#include "host.h"
#include "log.h"
#include "pvm3.h"
#include "pvmd.h"
#include "wire.h"

struct notify {
	struct notify *next;
	int owner;   /* task to tell */
	int kind;    /* PvmTaskExit, PvmHostDelete, PvmHostAdd */
	int tag, ctx;
	int target;  /* tid watched (TaskExit, HostDelete) */
	int count;   /* HostAdd: notifications left, -1 = unlimited */
};

static void send_int(struct pvmd *d, int owner, int tag, int ctx, int value)
{
	uint8_t b[4] = { (uint8_t)((uint32_t)value >> 24),
			 (uint8_t)((uint32_t)value >> 16),
			 (uint8_t)((uint32_t)value >> 8), (uint8_t)value };
	pvmd_send_msg(d, owner, tag, ctx, b, sizeof b);
}

static int add(struct pvmd *d, int owner, int kind, int tag, int ctx,
	       int target, int count)
{
	struct notify *n = malloc(sizeof *n);
	if (!n)
		return PvmNoMem;
	*n = (struct notify){ d->notifies, owner, kind, tag, ctx, target, count };
	d->notifies = n;
	return 0;
}

/* Removes the owner's registrations of `kind` with `tag` (and `target`,
 * unless target is 0).  As man 3 pvm_notify says (and the reference
 * does), a cancelled PvmTaskExit or PvmHostDelete notify is delivered as
 * if the event had happened. */
static void cancel(struct pvmd *d, int owner, int kind, int tag, int target)
{
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if (n->owner == owner && n->kind == kind && n->tag == tag &&
		    (!target || n->target == target)) {
			*pp = n->next;
			if (kind == PvmTaskExit || kind == PvmHostDelete)
				send_int(d, owner, n->tag, n->ctx, n->target);
			free(n);
		} else {
			pp = &n->next;
		}
	}
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
			int target = tids[i];
			if (undo) {
				cancel(d, owner, kind, tag, target);
				continue;
			}
			int remote = kind == PvmTaskExit &&
				     !host_is_local_tid(d, target) &&
				     host_of_tid(target) && target > 0;
			int alive = kind == PvmTaskExit ?
					    remote || task_find(d, target) :
					    target == d->hosttid ||
					    ((target & ~WIRE_TID_HOST_MASK) == 0 &&
					     host_of_tid(target));
			if (alive)
				st = add(d, owner, kind, tag, ctx, target, 0);
			else /* already gone: tell at once */
				send_int(d, owner, tag, ctx, target);
			/* another host's task: is it still there? */
			if (alive && remote && !st)
				fwd_check_task(d, target);
		}
		return st;
	case PvmHostAdd:
		if (undo) {
			cancel(d, owner, kind, tag, 0);
			return 0;
		}
		/* The one item is how many additions to report (-1: every
		 * time; 0: stop); a new count replaces the old one. */
		if (cnt != 1)
			return PvmBadParam;
		cancel(d, owner, kind, tag, 0);
		if (tids[0] == 0)
			return 0;
		return add(d, owner, kind, tag, ctx, 0, tids[0]);
	case PvmRouteAdd:
	case PvmRouteDelete:
		return PvmNotImpl;
	default:
		return PvmBadParam;
	}
}

void notify_task_exit(struct pvmd *d, int tid)
{
	/* Collect first: delivering never changes the list, but keep the
	 * order in which the registrations were made (oldest first). */
	struct notify *fire = NULL;
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if (n->kind == PvmTaskExit && n->target == tid) {
			*pp = n->next;
			n->next = fire;
			fire = n;
		} else if (n->owner == tid) {
			*pp = n->next;
			free(n);
		} else {
			pp = &n->next;
		}
	}
	while (fire) {
		struct notify *n = fire;
		fire = n->next;
		if (n->owner != tid)
			send_int(d, n->owner, n->tag, n->ctx, tid);
		free(n);
	}
}

void notify_host_delete(struct pvmd *d)
{
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if (n->kind == PvmHostDelete && n->target == d->hosttid) {
			send_int(d, n->owner, n->tag, n->ctx, n->target);
			*pp = n->next;
			free(n);
		} else {
			pp = &n->next;
		}
	}
}

void notify_host_add(struct pvmd *d, const int *tids, int n)
{
	/* body: XDR int n, then n pvmd tids (man 3 pvm_notify); an XDR int
	 * is the wire's big-endian i32 */
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, n);
	for (int i = 0; i < n; i++)
		wire_wr_i32(&w, tids[i]);
	if (w.err) {
		wire_wr_free(&w);
		return;
	}
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *x = *pp;
		if (x->kind != PvmHostAdd) {
			pp = &x->next;
			continue;
		}
		pvmd_send_msg(d, x->owner, x->tag, x->ctx, w.buf, w.len);
		if (x->count > 0 && --x->count == 0) {
			*pp = x->next;
			free(x);
		} else {
			pp = &x->next;
		}
	}
	wire_wr_free(&w);
}

void notify_host_lost(struct pvmd *d, int hosttid)
{
	/* the tasks watched on that host first, then the host */
	for (;;) {
		int tid = 0;
		for (struct notify *n = d->notifies; n && !tid; n = n->next)
			if (n->kind == PvmTaskExit &&
			    (n->target & WIRE_TID_HOST_MASK) == hosttid &&
			    (n->target & WIRE_TID_TASK_MASK))
				tid = n->target;
		if (!tid)
			break;
		notify_task_exit(d, tid);
	}
	for (struct notify **pp = &d->notifies; *pp;) {
		struct notify *n = *pp;
		if (n->kind == PvmHostDelete && n->target == hosttid) {
			send_int(d, n->owner, n->tag, n->ctx, n->target);
			*pp = n->next;
			free(n);
		} else {
			pp = &n->next;
		}
	}
}

void notify_free_all(struct pvmd *d)
{
	while (d->notifies) {
		struct notify *n = d->notifies;
		d->notifies = n->next;
		free(n);
	}
}
