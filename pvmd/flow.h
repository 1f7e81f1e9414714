/*
 * flow.h - what the pvmd holds for destinations, and flow control
 * (docs/limits.md, "Messages held for a destination").
 *
 * Tasks keep at most a window (proto/wire.h, WIRE_WINDOW) of their
 * messages to one task in the pvmds' hands; the pvmd gives back the
 * bytes of the messages it drops, so that a sender's window to a task
 * that is gone does not stay shut.  Against many senders to one
 * destination, or one sender to many, the pvmd also bounds what it queues
 * for its own tasks: per destination (PVM_HOLD_MAX) and in all
 * (PVM_HOLD_TOTAL).  Past a bound it stops reading a sender of this host
 * whose message went to that destination, until the queue falls to half
 * the bound or the destination is gone; that sender's later sends wait in
 * its own memory meanwhile.  A task that leaves (TM_LEAVING) is read past
 * the bounds: leaving never waits for a receiver.
 */
#ifndef PVMD_FLOW_H
#define PVMD_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "proto/wire.h"

struct pvmd;
struct conn;
struct task;

#define FLOW_HOLD_MAX_DEFAULT	(64ull << 20)
#define FLOW_HOLD_TOTAL_DEFAULT (512ull << 20)

/* Reads PVM_HOLD_MAX and PVM_HOLD_TOTAL (bytes, with k, M or G). */
void flow_init(struct pvmd *d);

/* The pvmd drops the message whose first frame is h (no such task or
 * host): its sender gets its bytes back. */
void flow_dropped(struct pvmd *d, const struct wire_hdr *h);
/* The first frame h of a message goes to local task t (queued or
 * written): counted against its sender until t gives the bytes back. */
void flow_delivered(struct pvmd *d, struct task *t, const struct wire_hdr *h);
/* A frame from local task t (its payload p): a credit that t gives a
 * sender is subtracted from what t owes it. */
void flow_credit_seen(struct pvmd *d, struct task *t, const struct wire_hdr *h,
		      const uint8_t *p);
/* Task t is gone: every sender gets back what t has not given back, read
 * or not (what it read and credited after leaving never reaches them). */
void flow_task_gone(struct pvmd *d, struct task *t);

/* After the frame h from task connection c was routed: stops reading c
 * when h's destination (a task of this host) is over its bound. */
void flow_after_route(struct pvmd *d, struct conn *c, const struct wire_hdr *h);
/* The before-sleep hook and the tick: reads again from senders whose
 * destination has room now. */
void flow_resume(struct pvmd *d);

#endif /* PVMD_FLOW_H */
