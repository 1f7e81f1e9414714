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

#include "log.h"
#include "pvm3.h"
#include "pvmd.h"

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
			int alive = kind == PvmTaskExit ?
					    task_find(d, target) != NULL :
					    target == d->hosttid;
			if (alive)
				st = add(d, owner, kind, tag, ctx, target, 0);
			else /* already gone: tell at once */
				send_int(d, owner, tag, ctx, target);
		}
		return st;
	case PvmHostAdd:
		if (undo) {
			cancel(d, owner, kind, tag, 0);
			return 0;
		}
		/* The one item is how many additions to report (-1: every
		 * time; 0: stop).  No host is ever added to a one-host
		 * machine yet: the registration waits for that. */
		if (cnt != 1)
			return PvmBadParam;
		if (tids[0] == 0) {
			cancel(d, owner, kind, tag, 0);
			return 0;
		}
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

void notify_free_all(struct pvmd *d)
{
	while (d->notifies) {
		struct notify *n = d->notifies;
		d->notifies = n->next;
		free(n);
	}
}
