/*
 * msg.h - the receive side's queues (msg/rxq.c), shared by the send and
 * receive calls of libpvm/msg.
 *
 * Messages that arrived whole (lp_msg_arrived, called by the transports)
 * pass the per-source ordering step: a message whose seq is the next one
 * expected from its source joins the receive queue, an early one waits in
 * the source's hold list until the gap is filled, and seq 0 (messages the
 * pvmd generates) joins at once.  The receive queue is in delivery order,
 * so scanning it from the head finds the earliest matching message.
 */
#ifndef LPVM_MSG_H
#define LPVM_MSG_H

#include <stdint.h>

#include "buf.h"

/* First message of the receive queue (NULL if empty); follow qnext. */
struct lp_buf *lp_rxq_head(void);
/* Takes a message out of the receive queue. */
void lp_rxq_unlink(struct lp_buf *b);
/* The seq after `s` (0 means "unordered" and is skipped on wrap). */
static inline uint32_t lp_seq_next(uint32_t s)
{
	return s + 1 ? s + 1 : 1;
}

/* Message handlers (pvm_addmhf, api/mhf.c).  A message a handler matches
 * is never received normally: lp_mhf_match tells.  lp_mhf_run gives the
 * first such message queued before `stop` (NULL: anywhere) to its handler
 * and returns 1, or returns 0 when there is none (or inside a handler),
 * so that handlers see messages in arrival order relative to what the
 * program receives.  lp_mhf_run_all runs them all (after a send). */
int lp_mhf_match(const struct lp_buf *b);
int lp_mhf_run(const struct lp_buf *stop);
void lp_mhf_run_all(void);
/* pvm_exit: forgets every handler. */
void lp_mhf_reset(void);

/* A message of `src` with `seq` was received without passing the queue
 * (shared memory's single copy, tran/shm/shm_precv.c): the next seq
 * expected from src moves past it. */
void lp_msg_took(int src, uint32_t seq);

/*
 * A receive waiting with nothing matching in the queue (set for the time
 * of one lp_progress).  For a pvm_precv (copy = 1) a transport that has
 * a whole matching message which is the next in order from its source
 * may copy it straight into buf (lp_precv_fits, then fill in the result
 * and call lp_msg_took) instead of building a buffer.  A matching message
 * that joins the queue meanwhile turns the target off, so that the
 * earliest match still wins, and sets hit: a transport then stops reading
 * more for now, so that the receive returns at once.
 */
struct lp_precv_target {
	int active, done;
	int copy;          /* buf is a pvm_precv's: a transport may fill it */
	int hit;           /* a matching message joined the queue */
	int tid, tag, ctx; /* the filter (-1: any) */
	void *buf;
	size_t room;
	int src, rtag;     /* result */
	size_t len;
};
extern struct lp_precv_target lp_ptarget;
static inline int lp_precv_fits(int src, int tag, int ctx)
{
	return lp_ptarget.active && (lp_ptarget.tid == -1 || lp_ptarget.tid == src) &&
	       (lp_ptarget.tag == -1 || lp_ptarget.tag == tag) &&
	       lp_ptarget.ctx == ctx;
}

/* Frees every queued and held message (after pvm_exit). */
void lp_msg_reset(void);

#endif /* LPVM_MSG_H */
