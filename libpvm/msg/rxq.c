/*
 * rxq.c - per-source ordering and the receive queue (see msg.h).
 */
#include "msg.h"

#include <stddef.h>

#include "lpvm.h"
#include "tran/tran.h"

static struct lp_buf *head, *tail;
static int (*filter)(struct lp_buf *b);

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
	if (b->seq == 0 && filter && filter(b))
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

void lp_msg_set_filter(int (*f)(struct lp_buf *b))
{
	filter = f;
}

static int direct_ok(int src, int tag, int ctx, uint32_t seq)
{
	struct lp_peer *p = lp_peer_find(src);
	struct lp_buf probe = {.src = src, .tag = tag, .ctx = ctx};
	return p && seq == lp_seq_next(p->rseq) &&
	       lp_precv_fits(src, tag, ctx) && !lp_mhf_match(&probe);
}

/* The transports hand what arrives to this layer through these. */
__attribute__((constructor)) static void register_up(void)
{
	static const struct lp_tran_up up = {
		.arrived = lp_msg_arrived,
		.took = lp_msg_took,
		.direct_ok = direct_ok,
		.dropped = lp_msg_reset,
	};
	lp_tran_set_up(&up);
}

void lp_msg_reset(void)
{
	while (head) {
		struct lp_buf *b = head;
		lp_rxq_unlink(b);
		lp_buf_free(b);
	}
}
