/*
 * notify.h - pvm_notify registrations and their delivery (notify.c).
 */
#ifndef PVMD_NOTIFY_H
#define PVMD_NOTIFY_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

struct notify;
/* Registers (or, with PvmNotifyCancel, cancels) notifies for `owner`.
 * Returns 0 or a PVM error code. */
int notify_request(struct pvmd *d, int owner, int what, int tag, int ctx,
		   int cnt, const int *tids);
/* Task `tid` is gone: delivers its PvmTaskExit notifies and drops the
 * registrations it owned. */
void notify_task_exit(struct pvmd *d, int tid);
/* Hosts were added: PvmHostAdd notifies with this body (XDR int n, then
 * n host tids, as DM_HOSTADD carries it: an XDR int is the wire's
 * big-endian i32). */
void notify_host_add(struct pvmd *d, const uint8_t *body, size_t len);
/* Host `hosttid` is gone: the PvmTaskExit notifies of its tasks and its
 * PvmHostDelete notifies, in the order they were registered. */
void notify_host_lost(struct pvmd *d, int hosttid);
void notify_free_all(struct pvmd *d);

#endif /* PVMD_NOTIFY_H */
