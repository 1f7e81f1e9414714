/*
 * send.c - pvm_send, pvm_mcast, pvm_psend.
 *
 * A send numbers the message for its destination (per-destination seq),
 * then hands its body to the route layer as segments: the send buffer's
 * bytes, an InPlace buffer's user memory ranges, or psend's array.  The
 * transports write what the socket takes at once and copy the rest, so a
 * send never waits for the receiver.
 */
#include <stdlib.h>

#include "lpvm.h"
#include "msg.h"
#include "pack/pack.h"
#include "tran/tran.h"

/* A message to ourselves: copied straight into the receive queue. */
static int send_self(const struct wire_hdr *h, const struct lp_seg *seg,
		     int nseg, uint64_t total)
{
	struct lp_buf *b = lp_buf_new(PvmDataRaw);
	if (!b)
		return PvmNoMem;
	if (lp_buf_reserve(b, (size_t)total) < 0) {
		lp_buf_free(b);
		return PvmNoMem;
	}
	lp_segs_copy(b->data, seg, nseg);
	b->len = (size_t)total;
	lp_buf_set_wire_enc(b, h->enc);
	b->received = 1;
	b->src = h->src;
	b->dst = h->dst;
	b->tag = h->tag;
	b->ctx = h->ctx;
	b->seq = h->seq;
	b->wid = (int)h->wid;
	b->rpos = 0;
	lp_msg_arrived(b);
	return 0;
}

/* tid and tag of a send: a task and a tag >= 0, or with PvmResvTids also
 * a pvmd's address with its host part (a hoster's SM_STHOSTACK, man 3
 * pvm_reg_hoster) and a reserved (negative) tag, as the reference. */
static int bad_dest(int tid, int tag)
{
	if (lp.resvtids)
		return !(tid > 0 ||
			 (wire_tid_is_pvmd(tid) && (tid & WIRE_TID_HOST_MASK)));
	return tid <= 0 || tag < 0;
}

/* Sends one message to one task, or to a pvmd (tid < 0: bad_dest let
 * only a pvmd's address through), with the send buffer's wait id; enc
 * is the header's (WIRE_ENC_*: with the body's data format). */
static int send_body(int tid, int tag, uint16_t enc, int wid,
		     const struct lp_seg *seg, int nseg, uint64_t total,
		     struct lp_buf *body)
{
	struct lp_omsg m = {
		.h = {.dst = tid,
		      .src = lp.mytid,
		      .tag = tag,
		      .ctx = lp.ctx,
		      .enc = enc,
		      .wid = (uint32_t)wid},
		.seg = seg,
		.nseg = nseg,
		.total = total,
		.frag = lp_frag_size(),
		.body = body,
	};
	if (tid < 0) {
		/* only the route of last resort reaches a pvmd */
		return lp_route_send_last(&m);
	}
	struct lp_peer *p = lp_peer_get(tid);
	if (!p)
		return PvmNoMem;
	p->sseq = lp_seq_next(p->sseq);
	m.h.seq = p->sseq;
	if (tid == lp.mytid)
		return send_self(&m.h, seg, nseg, total);
	return lp_route_send(p, &m);
}

/* The body of the current send buffer as segments; *lend is the buffer
 * when its own body is the one segment (a transport may borrow it). */
static int sbuf_body(struct lp_buf **bp, struct lp_seg *one,
		     const struct lp_seg **seg, int *nseg, uint64_t *total,
		     struct lp_buf **lend)
{
	struct lp_buf *b = lp_sbuf ? lp_buf_get(lp_sbuf) : NULL;
	if (!b)
		return PvmNoBuf;
	if (b->enc == PvmDataInPlace && !b->received) {
		*seg = b->seg;
		*nseg = b->nseg;
		*total = 0;
		for (int i = 0; i < b->nseg; i++)
			*total += b->seg[i].len;
		*lend = NULL; /* the program's memory */
	} else {
		one->p = b->data;
		one->len = b->len;
		*seg = one;
		*nseg = 1;
		*total = b->len;
		*lend = b;
	}
	*bp = b;
	return 0;
}

int pvm_send(int tid, int msgtag)
{
	struct lp_buf *b, *lend;
	struct lp_seg one;
	const struct lp_seg *seg;
	int nseg, r;
	uint64_t total;

	if ((r = lp_enroll()) < 0)
		return lp_err("pvm_send", r);
	if (bad_dest(tid, msgtag))
		return lp_err("pvm_send", PvmBadParam);
	if ((r = sbuf_body(&b, &one, &seg, &nseg, &total, &lend)) < 0)
		return lp_err("pvm_send", r);
	r = send_body(tid, msgtag, lp_buf_wire_enc(b), b->wid, seg, nseg, total,
		      lend);
	if (r < 0)
		return lp_err("pvm_send", r);
	lp_mhf_run_all(); /* what arrived meanwhile goes to its handlers */
	return 0;
}

int pvm_mcast(int *tids, int ntask, int msgtag)
{
	struct lp_buf *b, *lend;
	struct lp_seg one;
	const struct lp_seg *seg;
	int nseg, r;
	uint64_t total;

	if ((r = lp_enroll()) < 0)
		return lp_err("pvm_mcast", r);
	if (ntask < 0 || (ntask > 0 && !tids) || msgtag < 0)
		return lp_err("pvm_mcast", PvmBadParam);
	for (int i = 0; i < ntask; i++)
		if (tids[i] <= 0)
			return lp_err("pvm_mcast", PvmBadParam);
	if ((r = sbuf_body(&b, &one, &seg, &nseg, &total, &lend)) < 0)
		return lp_err("pvm_mcast", r);
	uint16_t enc = lp_buf_wire_enc(b);
	for (int i = 0; i < ntask; i++) {
		if (tids[i] == lp.mytid) /* never to the caller (man page) */
			continue;
		r = send_body(tids[i], msgtag, enc, b->wid, seg, nseg, total,
			      lend);
		if (r < 0)
			return lp_err("pvm_mcast", r);
	}
	lp_mhf_run_all();
	return 0;
}

int pvm_psend(int tid, int msgtag, void *buf, int len, int datatype)
{
	int r;
	size_t sz = lp_dtype_size(datatype);

	if ((r = lp_enroll()) < 0)
		return lp_err("pvm_psend", r);
	if (tid <= 0 || msgtag < 0 || len < 0 || sz == 0 || (len > 0 && !buf))
		return lp_err("pvm_psend", PvmBadParam);
	/* the array's bytes as they are, like a Raw message (no copy); a
	 * receiver of another data format converts them by its type */
	struct lp_seg seg = {.p = buf, .len = (size_t)len * sz};
	r = send_body(tid, msgtag,
		      PvmDataRaw | DSIG_FMT_NATIVE << WIRE_ENC_FMT_SHIFT, 0,
		      &seg, 1, seg.len, NULL);
	if (r < 0)
		return lp_err("pvm_psend", r);
	lp_mhf_run_all();
	return 0;
}
