/*
 * mbox.c - the message mailbox (pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo) and its control requests TM_MBOX_*.
 *
 * One authoritative copy per virtual machine: the master pvmd holds it
 * (on a one-host machine, the only pvmd).  Requests are answered from
 * here with the requester's tid; a pvmd of another host forwards its
 * tasks' requests and relays the replies (issue 7), and reports the exit
 * of a task so that its non-persistent entries vanish.
 *
 * A class is a name with entries sorted by index; classes are kept in
 * creation order (pvm_getmboxinfo lists them so, as the reference does)
 * and vanish with their last entry.  An entry holds a whole message: its
 * encoding and body bytes, and the tid that put it (the src a reader
 * sees).  Rules, as the reference applies them:
 *  - the owner may replace or delete its entry; another task only an
 *    entry put with PvmMboxOverWritable, else PvmDenied (and, for a
 *    console's reset, a PvmNoReset task an orphaned persistent one);
 *  - a multi-instance put takes the first free index from its direct
 *    index on (TM_MBOX_PUT index -1); one at a given index that is taken
 *    (pvm_insert) gets PvmDenied, which is PvmDupEntry;
 *  - a non-persistent entry vanishes when its owner exits; a persistent
 *    one stays with owner 0 until deleted, reset or halt;
 *  - a read with PvmMboxWaitForInfo that finds nothing is held and
 *    answered when a matching entry is put.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/mbox.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

struct mb_entry {
	struct mb_entry *next; /* sorted by index */
	int index;
	int owner; /* 0 once a persistent entry's owner exited */
	int src;   /* who put it */
	int flags; /* as given to pvm_putinfo */
	int enc;
	uint8_t *data;
	size_t len;
};

/* Caps on what tasks can make the pvmd hold (docs/limits.md): beyond
 * them a put gets PvmOutOfRes, a held read PvmOutOfRes. */
#define MB_TASK_ENTRIES 4096	     /* entries one task owns */
#define MB_TASK_BYTES	(64u << 20)  /* their bodies */
#define MB_ALL_ENTRIES	65536	     /* entries in the mailbox */
#define MB_ALL_BYTES	(512u << 20) /* their bodies */
#define MB_TASK_WAITS	256	     /* PvmMboxWaitForInfo reads held */

/* What one owner holds. */
struct mb_use {
	int n;
	size_t bytes;
};

struct mb_class {
	struct mb_class *next;
	char *name;
	struct mb_entry *ents;
};

/* A held PvmMboxWaitForInfo read. */
struct mb_wait {
	struct mb_wait *next;
	int tid;
	struct wire_hdr req; /* to reply with the same code and wid */
	char *name;
	int index, flags;
};

static struct mb_class *class_find(struct pvmd *d, const char *name)
{
	for (struct mb_class *k = d->mb_classes; k; k = k->next)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

static struct mb_class *class_get(struct pvmd *d, const char *name)
{
	struct mb_class *k = class_find(d, name), **pp;
	if (k)
		return k;
	k = calloc(1, sizeof *k);
	if (!k || !(k->name = strdup(name))) {
		free(k);
		return NULL;
	}
	for (pp = &d->mb_classes; *pp; pp = &(*pp)->next)
		;
	*pp = k;
	return k;
}

/* Counts e in (sign 1) or out (-1) of its owner's and the total use. */
static void account(struct pvmd *d, const struct mb_entry *e, int sign)
{
	d->mb_count += (size_t)(ptrdiff_t)sign;
	d->mb_bytes += (size_t)(ptrdiff_t)sign * e->len;
	if (!e->owner)
		return; /* an orphan: in the total only */
	struct mb_use *u = idhash_get(&d->mb_use, e->owner);
	if (!u && sign > 0) {
		u = calloc(1, sizeof *u);
		if (u && idhash_put(&d->mb_use, e->owner, u) < 0) {
			free(u);
			u = NULL;
		}
	}
	if (!u)
		return;
	u->n += sign;
	u->bytes += (size_t)(ptrdiff_t)sign * e->len;
	if (u->n <= 0)
		free(idhash_del(&d->mb_use, e->owner));
}

/* Whether `tid` putting `len` bytes (over entry `old`, or as a new one)
 * stays within the caps. */
static int within_caps(struct pvmd *d, int tid, const struct mb_entry *old,
		       size_t len)
{
	const struct mb_use *u = idhash_get(&d->mb_use, tid);
	size_t n = u ? (size_t)u->n : 0, bytes = u ? u->bytes : 0;
	size_t all_n = d->mb_count, all_bytes = d->mb_bytes;
	if (old) {
		all_n--;
		all_bytes -= old->len;
		if (old->owner == tid) {
			n--;
			bytes -= old->len;
		}
	}
	return n + 1 <= MB_TASK_ENTRIES && bytes + len <= MB_TASK_BYTES &&
	       all_n + 1 <= MB_ALL_ENTRIES && all_bytes + len <= MB_ALL_BYTES;
}

static void entry_free(struct pvmd *d, struct mb_entry *e)
{
	account(d, e, -1);
	free(e->data);
	free(e);
}

/* Frees the classes left without entries. */
static void classes_prune(struct pvmd *d)
{
	struct mb_class **pp = &d->mb_classes;
	while (*pp) {
		struct mb_class *k = *pp;
		if (k->ents) {
			pp = &k->next;
			continue;
		}
		*pp = k->next;
		free(k->name);
		free(k);
	}
}

/* The entry at `index`, or with `first`, the first at or after it. */
static struct mb_entry **entry_slot(struct mb_class *k, int index, int first)
{
	struct mb_entry **pp = &k->ents;
	while (*pp && (*pp)->index < index)
		pp = &(*pp)->next;
	if (*pp && ((*pp)->index == index || first))
		return pp;
	return NULL;
}

/* Who may delete an entry: the owner, anyone for an OverWritable one,
 * and for an orphaned one (persistent, owner gone) a task that set
 * PvmNoReset: a console, whose `reset` deletes such leftovers.  (Replacing
 * it takes the owner or OverWritable: see put.) */
static int may_change(struct pvmd *d, const struct mb_entry *e, int tid)
{
	if (e->owner == tid || (e->flags & PvmMboxOverWritable))
		return 1;
	struct task *t = e->owner ? NULL : task_find(d, tid);
	return t && t->noreset;
}

static void reply_entry(struct pvmd *d, int tid, const struct wire_hdr *req,
			const struct mb_entry *e, int status)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	if (e) {
		wire_wr_i32(&w, e->src);
		wire_wr_i32(&w, e->enc);
		wire_wr_bytes(&w, e->data, e->len);
	}
	ctl_reply_tid(d, tid, req, &w);
	wire_wr_free(&w);
}

/* Looks up (and with PvmMboxReadAndDelete takes) an entry for a read.
 * Returns 1 when it answered, 0 when nothing matches yet. */
static int try_read(struct pvmd *d, int tid, const struct wire_hdr *req,
		    const char *name, int index, int flags)
{
	struct mb_class *k = class_find(d, name);
	struct mb_entry **pp =
		k ? entry_slot(k, index, flags & PvmMboxFirstAvail) : NULL;
	if (!pp)
		return 0;
	struct mb_entry *e = *pp;
	if (!(flags & PvmMboxReadAndDelete)) {
		reply_entry(d, tid, req, e, e->index);
		return 1;
	}
	if (!may_change(d, e, tid)) {
		reply_entry(d, tid, req, NULL, PvmDenied);
		return 1;
	}
	*pp = e->next;
	reply_entry(d, tid, req, e, e->index);
	entry_free(d, e);
	classes_prune(d);
	return 1;
}

/* Answers the held reads that an entry put into `name` satisfies. */
static void wake(struct pvmd *d, const char *name)
{
	struct mb_wait **pp = &d->mb_waits;
	while (*pp) {
		struct mb_wait *w = *pp;
		if (strcmp(w->name, name) ||
		    !try_read(d, w->tid, &w->req, w->name, w->index,
			      w->flags)) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		free(w->name);
		free(w);
	}
}

static int put(struct pvmd *d, int tid, const char *name, int index, int flags,
	       int enc, const uint8_t *data, size_t len)
{
	struct mb_class *k = class_get(d, name);
	if (!k)
		return PvmNoMem;
	struct mb_entry **pp = &k->ents, *e = NULL;
	if (index < 0) {
		/* the first free index: from the direct index of the flags
		 * for a multi-instance pvm_putinfo, from 0 otherwise */
		index = flags & PvmMboxMultiInstance
				? (int)PvmMboxDirectIndexOf(flags)
				: 0;
		while (*pp && (*pp)->index < index)
			pp = &(*pp)->next;
		while (*pp && (*pp)->index == index) {
			pp = &(*pp)->next;
			index++;
		}
	} else {
		while (*pp && (*pp)->index < index)
			pp = &(*pp)->next;
		if (*pp && (*pp)->index == index)
			e = *pp;
	}
	/* a multi-instance entry asked at a taken index (pvm_insert's
	 * PvmDupEntry), or another task's entry not overwritable */
	if (e && ((flags & PvmMboxMultiInstance) ||
		  (e->owner != tid && !(e->flags & PvmMboxOverWritable))))
		return PvmDenied;
	if (!within_caps(d, tid, e, len)) {
		plog_src(LOG_SRC_TID(tid), PL_ERR,
			 "t%x: mailbox entry %s refused: beyond the caps (%d "
			 "entries, %u MiB a task; %d, %u MiB in all)",
			 tid, name, MB_TASK_ENTRIES, MB_TASK_BYTES >> 20,
			 MB_ALL_ENTRIES, MB_ALL_BYTES >> 20);
		classes_prune(d);
		return PvmOutOfRes;
	}
	uint8_t *copy = malloc(len ? len : 1);
	if (!copy) {
		classes_prune(d);
		return PvmNoMem;
	}
	memcpy(copy, data, len);
	if (!e) {
		e = calloc(1, sizeof *e);
		if (!e) {
			free(copy);
			classes_prune(d);
			return PvmNoMem;
		}
		e->index = index;
		e->next = *pp;
		*pp = e;
	} else {
		account(d, e, -1);
	}
	free(e->data);
	e->data = copy;
	e->len = len;
	e->owner = e->src = tid;
	e->flags = flags;
	e->enc = enc;
	account(d, e, 1);
	wake(d, name);
	return index;
}

/* TM_MBOX_PUT: str name, i32 index (-1: first free), i32 flags, i32 enc,
 * bytes body -> i32 index or error. */
int ctl_mbox_put(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r)
{
	char *name = wire_rd_strdup(r);
	int index = wire_rd_i32(r);
	int flags = wire_rd_i32(r);
	int enc = wire_rd_i32(r);
	size_t len = 0;
	const uint8_t *data = wire_rd_bytes(r, &len);
	if (r->err || r->left) {
		free(name);
		return -1;
	}
	int st = !*name || index < -1 ? PvmBadParam
				      : put(d, ctl_src(c, h), name, index,
					    flags, enc, data, len);
	free(name);
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* TM_MBOX_GET: str name, i32 index, i32 flags -> i32 index or error, and
 * when found: i32 src, i32 enc, bytes body. */
int ctl_mbox_get(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r)
{
	char *name = wire_rd_strdup(r);
	int index = wire_rd_i32(r);
	int flags = wire_rd_i32(r);
	if (r->err || r->left) {
		free(name);
		return -1;
	}
	int tid = ctl_src(c, h);
	if (!*name || index < 0) {
		reply_entry(d, tid, h, NULL, PvmBadParam);
	} else if (!try_read(d, tid, h, name, index, flags)) {
		struct mb_wait *w = NULL;
		int held = 0;
		for (struct mb_wait *x = d->mb_waits; x; x = x->next)
			held += x->tid == tid;
		if ((flags & PvmMboxWaitForInfo) && held >= MB_TASK_WAITS) {
			reply_entry(d, tid, h, NULL, PvmOutOfRes);
			free(name);
			return 0;
		}
		if (flags & PvmMboxWaitForInfo)
			w = calloc(1, sizeof *w);
		if (w) {
			w->tid = tid;
			w->req = *h;
			w->name = name;
			w->index = index;
			w->flags = flags;
			w->next = d->mb_waits;
			d->mb_waits = w;
			plog(PL_DEBUG, "t%x waits for mailbox entry %s[%d]",
			     tid, name, index);
			return 0;
		}
		reply_entry(d, tid, h, NULL,
			    flags & PvmMboxWaitForInfo ? PvmNoMem
						       : PvmNotFound);
	}
	free(name);
	return 0;
}

static int del(struct pvmd *d, int tid, const char *name, int index)
{
	struct mb_class *k = class_find(d, name);
	struct mb_entry **pp = k ? entry_slot(k, index, 0) : NULL;
	if (!pp)
		return PvmNotFound;
	struct mb_entry *e = *pp;
	if (!may_change(d, e, tid))
		return PvmDenied;
	*pp = e->next;
	entry_free(d, e);
	classes_prune(d);
	return index;
}

/* TM_MBOX_DEL: str name, i32 index, i32 flags -> i32 index or error. */
int ctl_mbox_del(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r)
{
	char *name = wire_rd_strdup(r);
	int index = wire_rd_i32(r);
	(void)wire_rd_i32(r); /* flags: the reference ignores them */
	if (r->err || r->left) {
		free(name);
		return -1;
	}
	int st = !*name || index < 0 ? PvmBadParam
				     : del(d, ctl_src(c, h), name, index);
	free(name);
	ctl_reply_status(d, c, h, st);
	return 0;
}

/* Whether `name` matches a TM_MBOX_LIST pattern: "" and "*" match all,
 * anything else as a plain substring.  Regular expressions are matched by
 * the task that asks (libpvm/api/mbox.c): a backtracking matcher has no
 * bound on its time or memory, and the pvmd serves everyone. */
static int matches(const char *pat, const char *name)
{
	return !*pat || !strcmp(pat, "*") || strstr(name, pat) != NULL;
}

/* TM_MBOX_LIST: str pattern -> i32 status, i32 n, n x {str name, i32 ne,
 * ne x {i32 index, i32 owner, i32 flags}}. */
int ctl_mbox_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	char *pat = wire_rd_strdup(r);
	if (r->err || r->left) {
		free(pat);
		return -1;
	}
	int n = 0;
	for (struct mb_class *k = d->mb_classes; k; k = k->next)
		n += matches(pat, k->name);
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, n);
	for (struct mb_class *k = d->mb_classes; k; k = k->next) {
		if (!matches(pat, k->name))
			continue;
		int ne = 0;
		for (struct mb_entry *e = k->ents; e; e = e->next)
			ne++;
		wire_wr_str(&w, k->name);
		wire_wr_i32(&w, ne);
		for (struct mb_entry *e = k->ents; e; e = e->next) {
			wire_wr_i32(&w, e->index);
			wire_wr_i32(&w, e->owner);
			wire_wr_i32(&w, e->flags);
		}
	}
	free(pat);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}

void mbox_task_exit(struct pvmd *d, int tid)
{
	(void)d;
	for (struct mb_class *k = d->mb_classes; k; k = k->next) {
		struct mb_entry **pp = &k->ents;
		while (*pp) {
			struct mb_entry *e = *pp;
			if (e->owner != tid) {
				pp = &e->next;
				continue;
			}
			if (e->flags & PvmMboxPersistent) {
				account(d, e, -1);
				e->owner = 0; /* an orphan now */
				account(d, e, 1);
				pp = &e->next;
				continue;
			}
			*pp = e->next;
			entry_free(d, e);
		}
	}
	classes_prune(d);
	struct mb_wait **wp = &d->mb_waits;
	while (*wp) {
		struct mb_wait *w = *wp;
		if (w->tid != tid) {
			wp = &w->next;
			continue;
		}
		*wp = w->next;
		free(w->name);
		free(w);
	}
}

void mbox_host_lost(struct pvmd *d, int hostno)
{
	for (;;) {
		int tid = 0;
		for (struct mb_class *k = d->mb_classes; k && !tid; k = k->next)
			for (struct mb_entry *e = k->ents; e && !tid;
			     e = e->next)
				if (e->owner &&
				    host_no_of_tid(e->owner) == hostno)
					tid = e->owner;
		for (struct mb_wait *w = d->mb_waits; w && !tid; w = w->next)
			if (host_no_of_tid(w->tid) == hostno)
				tid = w->tid;
		if (!tid)
			return;
		mbox_task_exit(d, tid);
	}
}

void mbox_free_all(struct pvmd *d)
{
	(void)d;
	while (d->mb_classes) {
		struct mb_class *k = d->mb_classes;
		d->mb_classes = k->next;
		while (k->ents) {
			struct mb_entry *e = k->ents;
			k->ents = e->next;
			entry_free(d, e);
		}
		free(k->name);
		free(k);
	}
	while (d->mb_waits) {
		struct mb_wait *w = d->mb_waits;
		d->mb_waits = w->next;
		free(w->name);
		free(w);
	}
	idhash_fini(&d->mb_use);
}
