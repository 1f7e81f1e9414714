/*
 * gs.h - internals of libgpvm3, the dynamic group library
 * (docs/groups.md).  Membership, barriers and freezes are asked of our
 * pvmd with the TM_GS_* control requests (docs/protocol.md); the data of
 * the collectives goes straight between the members in the system context
 * WIRE_CTX_GROUP.
 */
#ifndef GS_H
#define GS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"
#include "pvm3.h"

/* Error state of libpvm3 (PVM 3.4.6 exports it). */
extern int pvm_errno;

/*
 * Errors of the membership calls, pvm_barrier, pvm_bcast and
 * pvm_freezegroup: the reference sets pvm_errno but neither prints them
 * nor acts on PvmAutoErr, and programs probe groups with these calls
 * (pvm_gsize of a group not created yet...), so we stay as quiet.
 * pvm_reduce, pvm_scatter and pvm_gather report through lpvm_priv_err
 * as the reference does.
 */
static inline int gs_quiet_err(int code)
{
	if (code < 0)
		pvm_errno = code;
	return code;
}

/* ---- membership (member.c) ---- */

/* One group's member list, sorted by instance. */
struct gs_members {
	int frozen; /* made static by pvm_freezegroup */
	int n;	    /* number of members */
	int *inst;  /* instance numbers, ascending */
	int *tid;   /* their tids */
	int slot;   /* the group's shared barrier slot (gshm.h), -1: none */
	int gid;    /* the group's id, which the slot must carry */
};

void gs_members_free(struct gs_members *m);

/* PvmNullGroup for a NULL or empty name, PvmBadParam for an absurdly long
 * one, else 0. */
int gs_name_check(const char *group);

/*
 * The members of `group`: from the cache when the group is frozen or has
 * not changed since its list was fetched (no TM_GS_EVENT since), else
 * asked of the pvmd (TM_GS_INFO, which fills the cache).
 * `fresh` bypasses the cache (liveness checks).  Returns 0 with *m filled
 * (the caller frees it with gs_members_free) or a negative PVM code
 * (PvmNoGroup, PvmSysErr...), not reported.
 */
int gs_members_get(const char *group, int fresh, struct gs_members *m);

/* gs_name_check, then gs_members_get (from the cache if it is current):
 * the members of `group` for the API calls.  Returns 0 or the error. */
int gs_members_of(const char *group, struct gs_members *m);

/* Drops the cached list of `group` (pvm_lvgroup, a failed check). */
void gs_cache_drop(const char *group);
/* Stores a group's list, fetched when lpvm_priv_gs_epoch() was `epoch`. */
void gs_cache_put(const char *group, const struct gs_members *m,
		  unsigned epoch);

/*
 * The shared slot of `group` from the cache, without asking anything,
 * when the cached list has `tid` (the caller) in it: then the caller has
 * not left since (pvm_lvgroup drops the cache), so the group still exists
 * and its slot and id are still right, whatever else changed.  Returns 1
 * with *slot and *gid set, else 0.
 */
int gs_cache_slot(const char *group, int tid, int *slot, int *gid);

/* Index of `tid` / of instance `inst` in m, or -1. */
int gs_members_find_tid(const struct gs_members *m, int tid);
int gs_members_find_inst(const struct gs_members *m, int inst);

/*
 * A TM_GS_* request carrying the group name and, when `with_arg`, one
 * more i32.  Returns the status word of the reply (>= 0 or a PVM error
 * from the pvmd), or the failure of the call itself.  The rest of the
 * reply is dropped.
 */
int gs_simple_call(int code, const char *group, int with_arg, int arg);

/* ---- barriers in shared memory (shmbar.c) ---- */

/*
 * pvm_barrier among the tasks of our host through the group's shared slot
 * (m->slot >= 0; the caller is a member).  Returns 0, PvmNoGroup (broken:
 * a member left or died, or the frozen group is defunct), PvmMismatch,
 * or PvmSysErr when the slot cannot be used (then no other path may be
 * taken: the other members use the slot), or GSHM_MOVED: the machine
 * grew and the barrier goes through the pvmd now (nothing was counted).
 */
int gs_shm_barrier(int slot, int gid, int count);

/* ---- data messages between members (xfer.c) ---- */

/* Size in bytes of one element of `datatype`, or 0 when it is not a
 * datatype the collectives move (PVM_STR, unknown values). */
size_t gs_type_size(int datatype);

/* What the caller had set: active buffers, context, route. */
struct gs_saved {
	int sbuf, rbuf, ctx, route;
};

/* Detaches the caller's active buffers and switches to the group context
 * and direct routes; gs_restore puts everything back. */
void gs_save(struct gs_saved *s);
void gs_restore(const struct gs_saved *s);

/* Kinds of collective messages (first word of their header). */
enum gs_kind { GS_REDUCE = 1, GS_SCATTER = 2, GS_GATHER = 3 };

/*
 * Sends `count` elements of `datatype` at `data` to `tid` with tag `tag`
 * in the current (group) context, after the header {kind, count,
 * datatype, status}; raw encoding to tasks on our host, XDR to others.
 * A negative `status` sends the header alone: the sender failed (a
 * reduce whose subtree went wrong), and the receiver returns that code
 * instead of waiting for data that will never come.  Returns 0 or a
 * negative PVM code.
 */
int gs_send(int tid, int tag, enum gs_kind kind, const void *data, int count,
	    int datatype, int status);

/*
 * Receives the message of `tid` with tag `tag` (current context) and
 * unpacks its `count` elements into `out`.  Waits in short slices; after
 * each it checks with the pvmd that `tid` is still a member of `group`,
 * and returns PvmNoGroup if it is not (and its message has not come).
 * Returns 0, PvmMismatch when the header differs, the sender's failure
 * (negative status in the header), or another negative PVM code.
 */
int gs_recv(const char *group, int tid, int tag, enum gs_kind kind, void *out,
	    int count, int datatype);

/* ---- the reduction tree (tree.c) ---- */

/* Fan-out of the tree from PVM_GROUP_TREE, read once: 0 = flat. */
int gs_tree_fanout(void);

/*
 * Where member `me` (index into m) stands in the reduction towards member
 * `root` (index): its parent's tid (0 for the root) and its children's
 * tids, at most m->n of them, in the order their data is combined.
 * Returns the number of children, or PvmNoMem.
 */
int gs_tree_place(const struct gs_members *m, int me, int root, int fanout,
		  int *parent, int *children);

#endif /* GS_H */
