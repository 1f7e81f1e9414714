/*
 * mbox.h - the mailbox: TM_MBOX_* (mbox.c).
 */
#ifndef PVMD_MBOX_H
#define PVMD_MBOX_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

/* Control requests TM_MBOX_* (docs/protocol.md). */
int ctl_mbox_put(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_get(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_del(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
/* Task `tid` is gone: its non-persistent entries vanish, its persistent
 * ones get owner 0, its held reads are dropped. */
void mbox_task_exit(struct pvmd *d, int tid);
void mbox_free_all(struct pvmd *d);
/* Host `hostno` is gone: as mbox_task_exit for each of its tasks. */
void mbox_host_lost(struct pvmd *d, int hostno);

#endif /* PVMD_MBOX_H */
