/*
 * rxq.c - per-source ordering and the receive queue (see msg.h).
 */
#include "msg.h"

#include <stddef.h>

#include "lpvm.h"
#include "tran/tran.h"

static struct lp_buf *head, *tail;
struct lp_precv_target lp_ptarget;

struct lp_buf *lp_rxq_head(void)
{
	return head;
}

static void append(struct lp_buf *b)
{
	if (lp_ptarget.active && lp_precv_fits(b->src, b->tag, b->ctx)) {
		lp_ptarget.active = 0; /* it is the earliest match now */
		lp_ptarget.hit = 1;
	}
	b->inqueue = 1; /* hidden from the program's buffer calls */
	b->qnext = NULL;
	b->qprev = tail;
	if (tail)
		tail->qnext = b;
	else
		head = b;
	tail = b;
}

void lp_rxq_unlink(struct lp_buf *b)
{
	if (b->qprev)
		b->qprev->qnext = b->qnext;
	else if (head == b)
		head = b->qnext;
	if (b->qnext)
		b->qnext->qprev = b->qprev;
	else if (tail == b)
		tail = b->qprev;
	b->qnext = b->qprev = NULL;
	b->inqueue = 0;
}

void lp_msg_arrived(struct lp_buf *b)
{
	/* (seq 0 is skipped when the counter wraps, see lp_seq_next) */
	struct lp_peer *p;

	/* output of children for pvm_catchout never reaches a receive */
	if (b->seq == 0 && lp_output_msg(b))
		return;
	if (b->seq == 0 || !(p = lp_peer_get(b->src))) {
		append(b);
		return;
	}
	if (b->seq == lp_seq_next(p->rseq)) {
		append(b);
		p->rseq = b->seq;
		/* the gap is filled: release what waited behind it */
		while (p->held && p->held->seq == lp_seq_next(p->rseq)) {
			struct lp_buf *h = p->held;
			p->held = h->qnext;
			append(h);
			p->rseq = h->seq;
		}
		return;
	}
	if ((int32_t)(b->seq - p->rseq) <= 0) {
		lp_buf_free(b); /* a duplicate: already delivered */
		return;
	}
	/* early: keep it in the hold list, sorted by seq */
	struct lp_buf **pp = &p->held;
	while (*pp && (int32_t)((*pp)->seq - b->seq) < 0)
		pp = &(*pp)->qnext;
	if (*pp && (*pp)->seq == b->seq) {
		lp_buf_free(b);
		return;
	}
	b->inqueue = 1;
	b->qprev = NULL;
	b->qnext = *pp;
	*pp = b;
}

void lp_msg_took(int src, uint32_t seq)
{
	struct lp_peer *p = lp_peer_get(src);
	if (!p || seq != lp_seq_next(p->rseq))
		return;
	p->rseq = seq;
	while (p->held && p->held->seq == lp_seq_next(p->rseq)) {
		struct lp_buf *h = p->held;
		p->held = h->qnext;
		append(h);
		p->rseq = h->seq;
	}
}

void lp_msg_reset(void)
{
	while (head) {
		struct lp_buf *b = head;
		lp_rxq_unlink(b);
		lp_buf_free(b);
	}
}
