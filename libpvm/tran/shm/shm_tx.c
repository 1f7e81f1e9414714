/*
 * shm_tx.c - sending on the shared-memory route (docs/shm.md).
 *
 * A message that fits in the free part of the ring goes in whole, in one
 * WHOLE record, straight from the caller's memory.  Anything else (or
 * anything behind a queued message) is copied into the sender's private
 * queue for that peer and streamed from there as a START record and CONT
 * records whenever the receiver has made room: lp_progress and lp_flush
 * push it.  Sends never wait for the receiver.
 */
#define _GNU_SOURCE
#include "tran/shm/shm.h"
#include "tran/shm/ring.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/cpu.h"
#include "lpvm.h"

#define REC sizeof(struct shmseg_rec)

/* Copies n bytes to the ring at counter position pos (wrapping). */
static void ring_put(const struct shm_peer *sp, uint64_t pos, const void *src,
		     size_t n)
{
	shm_ring_put(sp->ring, sp->mask, pos, src, n);
}

/* Copies the body's bytes [from, from + n) given as segments. */
static void ring_put_segs(const struct shm_peer *sp, uint64_t pos,
			  const struct lp_seg *seg, int nseg, uint64_t from,
			  size_t n)
{
	for (int i = 0; i < nseg && n; i++) {
		if (from >= seg[i].len) {
			from -= seg[i].len;
			continue;
		}
		size_t k = seg[i].len - (size_t)from;
		if (k > n)
			k = n;
		ring_put(sp, pos, (const uint8_t *)seg[i].p + from, k);
		pos += k;
		n -= k;
		from = 0;
	}
}

/* Free bytes in the ring; reads the receiver's tail only when what we
 * knew of it leaves less than `need`. */
static uint64_t room(struct shm_peer *sp, uint64_t need)
{
	uint64_t free_ = shm_ring_free(sp->mask, sp->head, sp->tail);
	if (free_ >= need)
		return free_;
	sp->tail = atomic_load_explicit(&sp->slot->tail, memory_order_acquire);
	return shm_ring_free(sp->mask, sp->head, sp->tail);
}

/* Publishes what we wrote and wakes the receiver if it sleeps. */
static void publish(struct shm_peer *sp)
{
	shm_ring_publish(sp->ring, sp->mask, sp->pub, sp->head);
	atomic_store_explicit(&sp->slot->head, sp->head, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&sp->hdr->sleeping, memory_order_relaxed)) {
		uint64_t one = 1;
		if (write(sp->efd, &one, sizeof one) < 0) {
			/* EAGAIN: the counter is full, it is awake anyway */
		}
	}
}

/* Writes record r (all but pos, which publish() stores last) at head and
 * moves head past it and its r->len payload bytes, which the caller
 * writes at the position returned. */
static uint64_t put_rec(struct shm_peer *sp, const struct shmseg_rec *r)
{
	sp->pub = sp->head;
	sp->head = sp->pub + shmseg_span(r->len);
	return shm_ring_put_rec(sp->ring, sp->mask, sp->pub, r);
}

static void busy(struct shm_peer *sp)
{
	if (!sp->busy) {
		sp->busy = 1;
		sp->bnext = lp_shm.busy;
		lp_shm.busy = sp;
	}
}

/* Whether the receiver is gone: then what we queued for it goes away
 * (as the pvmd drops messages for a task that exited). */
static int peer_gone(struct shm_peer *sp)
{
	if (!atomic_load_explicit(&sp->hdr->dead, memory_order_relaxed))
		return 0;
	lp_shm_tx_drop(sp);
	return 1;
}

int lp_shm_tx_send(struct shm_peer *sp, const struct lp_omsg *m)
{
	if (peer_gone(sp))
		return PvmSysErr; /* the route layer falls back to the pvmd */
	struct shmseg_rec r = {
		.kind = SHMSEG_WHOLE,
		.tag = m->h.tag,
		.ctx = m->h.ctx,
		.seq = m->h.seq,
		.enc = m->h.enc,
		.wid = m->h.wid,
		.total = m->total,
	};
	const int direct = lp_shm_direct_ok(m->total);
	if (direct && !sp->q &&
	    (lp_shm_tx_direct(sp, m) || lp_shm_tx_direct_wait(sp, m))) {
		sp->noposts = 0;
		return 0; /* copied into the receiver's pvm_precv buffer */
	}
	if (!sp->q && m->total <= shm_ring_max_len(sp->mask) &&
	    room(sp, shmseg_span(m->total)) >= shmseg_span(m->total)) {
		r.len = (uint32_t)m->total;
		ring_put_segs(sp, put_rec(sp, &r), m->seg, m->nseg, 0,
			      (size_t)m->total);
		publish(sp);
		return 0;
	}
	/* a private copy, streamed as the receiver makes room */
	struct shm_out *o = calloc(1, sizeof *o);
	if (!o)
		return PvmNoMem;
	o->rec = r;
	if (direct && !sp->noposts)
		o->grace_ns = mono_ns() + SHM_GRACE_NS;
	if (m->total >= SHM_LEND_MIN && m->body &&
	    (o->lend = lp_buf_lend(m->body)) != NULL) {
		/* a large send buffer's body is borrowed, not copied: the
		 * sender then makes one copy (its packing), as the seeds'
		 * table has it for PvmDataRaw */
		o->data = o->lend->p;
	} else if (m->total) {
		o->data = lp_mem_get((size_t)m->total, &o->cap);
		if (!o->data) {
			free(o);
			return PvmNoMem;
		}
		lp_segs_copy(o->data, m->seg, m->nseg);
	}
	if (sp->qtail)
		sp->qtail->next = o;
	else
		sp->q = o;
	sp->qtail = o;
	sp->qbytes += (size_t)m->total;
	busy(sp);
	lp_shm_tx_push(sp);
	return 0;
}

/* Chunks smaller than this wait for more room (unless they end the
 * message): fewer, larger records stream faster. */
static uint64_t min_chunk(const struct shm_peer *sp)
{
	return (sp->mask + 1) / 8;
}

/* ... but no chunk is larger than this: the receiver takes a record
 * only once it is whole, so with records of a quarter ring it copies one
 * out while we write the next (with a whole ring at a time the two took
 * turns; docs/shm.md: Raw 1 MiB 132-142 us -> 108-116 us). */
static uint64_t max_chunk(const struct shm_peer *sp)
{
	return (sp->mask + 1) / 4;
}

static void pop(struct shm_peer *sp)
{
	struct shm_out *o = sp->q;
	sp->q = o->next;
	if (!sp->q)
		sp->qtail = NULL;
	sp->qbytes -= (size_t)o->rec.total;
	lp_shm_out_free(o);
}

void lp_shm_out_free(struct shm_out *o)
{
	if (o->lend)
		lp_lend_put(o->lend);
	else
		lp_mem_put(o->data, o->cap);
	free(o);
}

size_t lp_shm_ref_min = 8u << 20;

/* Whether the receiver may read a queued message from our memory: large
 * (more than half a ring), and allowed to. */
static int readable(const struct shm_peer *sp, const struct shm_out *o)
{
	return !sp->nodirect && o->rec.total >= lp_shm_direct_min &&
	       o->rec.total > (sp->mask + 1) / 2;
}

/* Whether a queued message goes by reference: the receiver copies it
 * all from our memory.  Below lp_shm_ref_min bytes it streams through
 * the ring instead (both of us copy then, at once), and the receiver
 * pulls only what we do not stream in time (docs/shm.md, "Pulling the
 * rest of a stream"). */
static int by_ref(const struct shm_peer *sp, const struct shm_out *o)
{
	return readable(sp, o) && (o->rec.total >= lp_shm_ref_min ||
				   o->rec.total > SHMSEG_PULL_MAX);
}

/* inflight while we stream o and have taken off bytes for records */
static uint64_t streaming(const struct shm_out *o, uint64_t off)
{
	return o->rec.seq | SHMSEG_STREAMING | off << SHMSEG_OFF_SHIFT;
}

/* A stream the receiver may pull: takes bytes [sent, sent + k) for the
 * next record.  0: the receiver took the rest (READING) before. */
static int take_range(struct shm_peer *sp, struct shm_out *o, uint64_t k)
{
	uint64_t want = streaming(o, o->sent);
	return atomic_compare_exchange_strong(&sp->slot->inflight, &want,
					      streaming(o, o->sent + k));
}

/* The queue's head went by reference: 1 when the receiver has it (or
 * gave up: we stream it then), 0 while it reads. */
static int ref_answered(struct shm_peer *sp, struct shm_out *o)
{
	uint64_t a =
		atomic_load_explicit(&sp->slot->ref_ack, memory_order_acquire);
	if (a == (o->rec.seq | SHMSEG_REF_DONE)) {
		pop(sp);
		return 1;
	}
	if (a == (o->rec.seq | SHMSEG_REF_FAIL)) {
		sp->nodirect = 1;
		o->lent = 0;
		if (o->pull) {
			/* it could not pull: we stream on from o->sent */
			o->pull = 0;
			return 1;
		}
		o->started = 0;
		o->sent = 0;
		return 1;
	}
	return 0;
}

/* The queued message o as one to send on another way (its one segment
 * in *seg). */
static struct lp_omsg queued_msg(const struct shm_peer *sp,
				 const struct shm_out *o, struct lp_seg *seg)
{
	*seg = (struct lp_seg){.p = o->data, .len = o->rec.total};
	return (struct lp_omsg){.h = {.dst = sp->tid,
				      .src = lp.mytid,
				      .tag = o->rec.tag,
				      .ctx = o->rec.ctx,
				      .enc = o->rec.enc,
				      .seq = o->rec.seq,
				      .wid = o->rec.wid},
				.seg = seg,
				.nseg = 1,
				.total = o->rec.total,
				.frag = lp_frag_size()};
}

int lp_shm_tx_push(struct shm_peer *sp)
{
	int n = 0;

	if (peer_gone(sp))
		return 0;
	while (sp->q) {
		struct shm_out *o = sp->q;
		if (o->lent) {
			if (!ref_answered(sp, o))
				break;
			n++;
			continue;
		}
		if (!o->started && lp_shm_direct_ok(o->rec.total)) {
			/* one copy from our queue into its posted buffer */
			struct lp_seg seg;
			struct lp_omsg m = queued_msg(sp, o, &seg);
			if (lp_shm_tx_direct(sp, &m)) {
				pop(sp);
				sp->noposts = 0;
				n++;
				continue;
			}
			/* an awake receiver may be about to post: wait a
			 * little before streaming */
			if (o->grace_ns &&
			    !atomic_load_explicit(&sp->hdr->sleeping,
						  memory_order_relaxed)) {
				if (mono_ns() < o->grace_ns)
					break;
				sp->noposts = 1; /* it receives another way */
			}
			o->grace_ns = 0;
		}
		if (!o->started && by_ref(sp, o)) {
			if (room(sp, shmseg_span(8)) < shmseg_span(8))
				break;
			/* the receiver copies it from our queue in one go */
			atomic_store(&sp->slot->inflight,
				     o->rec.seq | SHMSEG_STREAMING);
			o->rec.kind = SHMSEG_REF;
			o->rec.len = 8;
			uint64_t addr = (uint64_t)(uintptr_t)o->data;
			ring_put(sp, put_rec(sp, &o->rec), &addr, 8);
			o->started = 1;
			o->lent = 1;
			n++;
			publish(sp);
			break; /* nothing passes it before the answer */
		}
		uint64_t left = o->rec.total - o->sent;
		uint64_t free_ = room(sp, shmseg_span(left < min_chunk(sp)
							      ? left
							      : min_chunk(sp)));
		if (free_ < shmseg_span(8))
			break;
		uint64_t can = (free_ & ~(uint64_t)(SHMSEG_LINE - 1)) - REC;
		if (!o->started && left <= shm_ring_max_len(sp->mask) &&
		    shmseg_span(left) <= free_) {
			o->rec.kind = SHMSEG_WHOLE;
			o->rec.len = (uint32_t)left;
		} else {
			uint64_t k = left < can ? left : can;
			if (k > max_chunk(sp))
				k = max_chunk(sp);
			if (k < left && k < min_chunk(sp))
				break;
			if (!o->started) {
				/* the receiver clears it when it takes the
				 * last chunk; pvm_exit abandons it (handoff) */
				o->pull = readable(sp, o);
				atomic_store(
					&sp->slot->pull_addr,
					o->pull ? (uint64_t)(uintptr_t)o->data
						: 0);
				atomic_store(&sp->slot->inflight,
					     streaming(o, o->pull ? k : 0));
				o->rec.kind = SHMSEG_START;
				o->started = 1;
			} else {
				if (o->pull && !take_range(sp, o, k)) {
					/* the receiver copies the rest
					 * from us: keep it until it has */
					o->lent = 1;
					continue;
				}
				o->rec.kind = SHMSEG_CONT;
			}
			o->rec.len = (uint32_t)k;
		}
		ring_put(sp, put_rec(sp, &o->rec), o->data + o->sent,
			 o->rec.len);
		o->sent += o->rec.len;
		n++;
		publish(sp);
		if (o->sent == o->rec.total)
			pop(sp);
	}
	if (sp->q)
		busy(sp);
	return n;
}

void lp_shm_tx_handoff(struct shm_peer *sp)
{
	if (peer_gone(sp))
		return;
	while (sp->q) {
		struct shm_out *o = sp->q;
		int send = 1;
		if (o->started) {
			/* the receiver has it unless we abandon it while it
			 * streams (it comes through the pvmd then); if the
			 * receiver is copying it from us (READING: a REF, or
			 * the rest of a stream) let it finish before this
			 * memory goes away */
			uint64_t v = atomic_load(&sp->slot->inflight);
			for (send = 0; (uint32_t)v == o->rec.seq;) {
				if (v & SHMSEG_STREAMING) {
					if (atomic_compare_exchange_strong(
						    &sp->slot->inflight, &v,
						    o->rec.seq |
							    SHMSEG_ABANDONED)) {
						send = 1;
						break;
					}
					continue;
				}
				if (!(v & SHMSEG_READING) ||
				    atomic_load(&sp->hdr->dead))
					break;
				cpu_relax();
				v = atomic_load(&sp->slot->inflight);
			}
			if (o->lent && !send &&
			    atomic_load(&sp->slot->ref_ack) ==
				    (o->rec.seq | SHMSEG_REF_FAIL))
				send = 1; /* it could not read it */
		}
		if (send) {
			struct lp_seg seg;
			struct lp_omsg m = queued_msg(sp, o, &seg);
			lp_route_send_last(&m);
		}
		sp->q = o->next;
		lp_shm_out_free(o);
	}
	sp->qtail = NULL;
	sp->qbytes = 0;
}
