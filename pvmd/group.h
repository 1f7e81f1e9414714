/*
 * group.h - dynamic groups: TM_GS_* (group.c) and the groups' shared
 * slots (group_shm.c, proto/gshm.h).
 */
#ifndef PVMD_GROUP_H
#define PVMD_GROUP_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

/* Control requests TM_GS_* (docs/protocol.md, docs/groups.md). */
int ctl_gs_join(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_gs_leave(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_gs_info(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_gs_barrier(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r);
int ctl_gs_freeze(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
int ctl_gs_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
/* Task `tid` is gone: it leaves all its groups (waiters of barriers it
 * can no longer reach get PvmNoGroup), its held requests are dropped. */
void group_task_exit(struct pvmd *d, int tid);
void group_free_all(struct pvmd *d);
/* Host `hostno` is gone: its tasks leave their groups. */
void group_host_lost(struct pvmd *d, int hostno);
/* The machine went from one host to several or back: every cached list
 * is made stale (TM_GS_EVENT), and with several hosts every group's
 * barriers move to the pvmd for good, a barrier pending in a slot
 * included (gshm_slot_move). */
void group_hosts_changed(struct pvmd *d);

/* ---- group_shm.c: the groups' shared slots (proto/gshm.h) ---- */

/* Creates VMDIR_GSHM in the VM directory (on failure, logged, every group
 * gets slot -1 and barriers go through the pvmd); gshm_close removes it. */
void gshm_open(struct pvmd *d);
void gshm_close(struct pvmd *d);
/* A slot for a new group: returns it (or -1: none) and sets *gid to the
 * group's new id. */
int gshm_slot_new(struct pvmd *d, int32_t *gid);
/* After a membership change: publishes size and state; after a departure
 * also breaks a pending barrier that can no longer complete (PvmNoGroup). */
void gshm_slot_update(struct pvmd *d, int slot, int members, int frozen,
		      int defunct, int departed);
/* The group is gone: breaks what waits, frees the slot. */
void gshm_slot_free(struct pvmd *d, int slot);
/* The group's barriers go through the pvmd from now on (GSHM_F_MOVED). */
void gshm_slot_move(struct pvmd *d, int slot);

#endif /* PVMD_GROUP_H */
