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

/* Frees every queued and held message (after pvm_exit). */
void lp_msg_reset(void);

#endif /* LPVM_MSG_H */
