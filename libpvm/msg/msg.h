/*
 * msg.h - the receive side's queues (msg/rxq.c), shared by the send and
 * receive calls of libpvm/msg.
 *
 * Messages that arrived whole (lp_msg_arrived: the transports hand them
 * up through the callbacks rxq.c registers with lp_tran_set_up) pass the
 * per-source ordering step: a message whose seq is the next one
 * expected from its source joins the receive queue, an early one waits in
 * the source's hold list until the gap is filled, and seq 0 (messages the
 * pvmd generates) joins at once.  The receive queue is in delivery order,
 * so scanning it from the head finds the earliest matching message.
 */
#ifndef LPVM_MSG_H
#define LPVM_MSG_H

#include <stdint.h>

#include "pack/buf.h"
#include "tran/tran.h"

/* First message of the receive queue (NULL if empty); follow qnext. */
struct lp_buf *lp_rxq_head(void);
/* Takes a message out of the receive queue. */
void lp_rxq_unlink(struct lp_buf *b);

/* Message handlers (pvm_addmhf, msg/mhf.c).  A message a handler matches
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
/* Exported by PVM 3.4.6 outside the pvm_ prefix (no header declares it). */
void pvmdisplaymhfinfo(char *who, char *msg, int tid);

/* A filter sees every unordered message (seq 0: the pvmds') before the
 * receive queue, and returns 1 when it took it (api/catchout.c registers
 * one for the output of children). */
void lp_msg_set_filter(int (*filter)(struct lp_buf *b));

/* A whole message for the receive queue (ownership passes), and a
 * message of `src` with `seq` that a pvm_precv took without the queue:
 * the next seq expected from src moves past it. */
void lp_msg_arrived(struct lp_buf *b);
void lp_msg_took(int src, uint32_t seq);

/* Frees every queued message: after pvm_exit, and after an enrollment
 * the pvmd refused (those held for ordering go with the peers:
 * lp_peer_reset). */
void lp_msg_reset(void);

#endif /* LPVM_MSG_H */
