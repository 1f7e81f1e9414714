/*
 * shm_rx.c - receiving on the shared-memory route (docs/shm.md).
 *
 * The owner of an inbox scans the slots whose bit is set in `active`,
 * takes every record between its tail and the sender's head, assembles
 * streamed messages into one buffer allocated once, and hands each whole
 * message to lp_tran_arrived (the message layer orders by seq).  It frees a
 * slot whose sender has left (closed) or died, once the ring is drained.
 */
#define _GNU_SOURCE
#include "tran/shm/shm.h"
#include "tran/shm/ring.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <unistd.h>

#include "lpvm.h"

#define REC	 sizeof(struct shmseg_rec)
#define CHECK_NS 100000000 /* dead senders are looked for every 100 ms */

struct shm_in {
	uint64_t tail;	     /* our copy of slot->tail */
	int sender, spid;    /* 0 until the slot is first seen */
	int sefd;	     /* the sender's eventfd: -1 unknown, -2 none */
	struct lp_buf *part; /* message being assembled */
	uint64_t got, total;
	uint32_t pseq;
	int32_t ptag, pctx; /* of part (from its START record) */
	uint16_t penc;
	uint32_t pwid;
	uint64_t pull_addr;   /* of part in the sender's memory: we may pull
			       * the rest (0: we may not) */
	int64_t stalled;      /* since when no record came for part (0: one
			       * came since the last look at the clock) */
	unsigned polls;	      /* looks at the ring while part stalls */
	int skipping;	      /* dropping a message we had no memory for */
	int broken;	      /* the sender wrote nonsense: ignore it */
	struct lp_peer *peer; /* the sender's entry (its rseq) */
};

static int64_t next_check;

int lp_shm_rx_init(void)
{
	lp_shm.in = calloc(lp_shm.nslot, sizeof *lp_shm.in);
	if (!lp_shm.in)
		return -1;
	for (uint32_t i = 0; i < lp_shm.nslot; i++)
		lp_shm.in[i].sefd = -1;
	next_check = 0;
	return 0;
}

static void drop_part(struct shm_in *in)
{
	if (in->part)
		lp_buf_free(in->part);
	in->part = NULL;
	in->skipping = 0;
	in->got = in->total = 0;
	in->pull_addr = 0;
}

void lp_shm_rx_fini(void)
{
	for (uint32_t i = 0; i < lp_shm.nslot; i++) {
		drop_part(&lp_shm.in[i]);
		if (lp_shm.in[i].sefd >= 0)
			close(lp_shm.in[i].sefd);
	}
	free(lp_shm.in);
	lp_shm.in = NULL;
}

/* Gives the slot back: its sender left or died and its ring is empty. */
static void free_slot(uint32_t i)
{
	struct shmseg_slot *s = shmseg_slot(lp_shm.base, i);
	struct shm_in *in = &lp_shm.in[i];

	atomic_fetch_and(&lp_shm.hdr->active[i / 64], ~(1ULL << (i % 64)));
	drop_part(in);
	if (in->sefd >= 0)
		close(in->sefd);
	memset(in, 0, sizeof *in);
	in->sefd = -1;
	/* the ring restarts at 0: what a record left there must not pass
	 * for the next sender's first one */
	atomic_store((_Atomic uint64_t *)(void *)shmseg_ring(lp_shm.base, i),
		     0);
	atomic_store(&s->head, 0);
	atomic_store(&s->tail, 0);
	atomic_store(&s->inflight, 0);
	atomic_store(&s->closed, 0);
	atomic_store(&s->want_space, 0);
	atomic_store(&s->delivered, 0);
	atomic_store(&s->spid, 0);
	atomic_store(&s->sefd, 0);
	atomic_store_explicit(&s->sender, 0, memory_order_release);
}

static void wake_sender(struct shmseg_slot *s, struct shm_in *in)
{
	if (in->sefd == -1) {
		in->sefd = -2;
		int pfd = pidfd_open(in->spid, 0);
		if (pfd >= 0) {
			int fd = pidfd_getfd(pfd, atomic_load(&s->sefd), 0);
			if (fd >= 0)
				in->sefd = fd;
			close(pfd);
		}
	}
	if (in->sefd >= 0) {
		uint64_t one = 1;
		if (write(in->sefd, &one, sizeof one) < 0) {
			/* full counter: it is awake */
		}
	}
}

/* The sender waits for a REF's answer: wake it if it sleeps (it set
 * want_space before sleeping, see lp_shm_sleep_begin). */
static void wake_sender_now(struct shmseg_slot *s, struct shm_in *in)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&s->want_space, memory_order_relaxed) &&
	    atomic_exchange(&s->want_space, 0))
		wake_sender(s, in);
}

/* Hands message b, with the fields of its record r, to the receive side,
 * and tells its sender what has been delivered in order from it. */
static void deliver(struct shmseg_slot *s, struct shm_in *in, struct lp_buf *b,
		    const struct shmseg_rec *r)
{
	lp_buf_set_wire_enc(b, r->enc);
	b->received = 1;
	b->src = in->sender;
	b->dst = lp.mytid;
	b->tag = r->tag;
	b->ctx = r->ctx;
	b->wid = (int)r->wid;
	b->seq = r->seq;
	b->rpos = 0;
	b->inqueue = 0;
	lp_tran_arrived(b);
	if (in->peer)
		atomic_store_explicit(&s->delivered, in->peer->rseq,
				      memory_order_release);
}

/* Answers the sender of message seq, which keeps the memory we read from
 * (a REF's body, or the rest of a stream) until then: DONE, or, when we
 * may not read it, FAIL, with inflight back at `resume`: the sender then
 * streams it. */
static void answer_read(struct shmseg_slot *s, struct shm_in *in, uint32_t seq,
			int done, uint64_t resume)
{
	atomic_store(&s->inflight, done ? 0 : resume);
	atomic_store_explicit(&s->ref_ack,
			      seq | (done ? SHMSEG_REF_DONE : SHMSEG_REF_FAIL),
			      memory_order_release);
	wake_sender_now(s, in);
}

/* A REF record: copies the body from the sender's memory
 * (process_vm_readv) and answers in ref_ack.  The sender keeps the
 * memory until then; if it leaves meanwhile (pvm_exit) it waits while we
 * read (inflight = seq|READING). */
static void take_ref(struct shmseg_slot *s, struct shm_in *in,
		     struct shmseg_rec *r, uint64_t addr)
{
	uint64_t want = r->seq | SHMSEG_STREAMING;
	if (!atomic_compare_exchange_strong(&s->inflight, &want,
					    r->seq | SHMSEG_READING))
		return; /* abandoned: it comes through the pvmd */
	struct lp_buf *b = NULL;
	if (r->total <= (uint64_t)(SIZE_MAX / 2)) {
		b = lp_buf_new(PvmDataRaw);
		if (b && lp_buf_reserve(b, (size_t)r->total) < 0) {
			lp_buf_free(b);
			b = NULL;
		}
	}
	int fail = 0;
	if (b) {
		lp_mem_hint(b->data, (size_t)r->total);
		fail = lp_shm_read(in->spid, b->data, addr, r->total) < 0;
	}
	/* not allowed (or no such memory): the sender streams it */
	answer_read(s, in, r->seq, !fail || errno == ESRCH,
		    r->seq | SHMSEG_STREAMING);
	if (!b || fail) {
		lp_buf_free(b); /* no memory for it, not allowed, or its
				 * sender died */
		return;
	}
	b->len = (size_t)r->total;
	deliver(s, in, b, r);
}

/* The streamed message in in->part is whole: hands it on, or drops it
 * if its sender abandoned it (!mine: it comes by the pvmd). */
static void finish_part(struct shmseg_slot *s, struct shm_in *in, int mine)
{
	struct lp_buf *b = in->part;
	in->part = NULL;
	in->skipping = 0;
	in->pull_addr = 0;
	if (b && mine) {
		struct shmseg_rec r = {.tag = in->ptag,
				       .ctx = in->pctx,
				       .seq = in->pseq,
				       .enc = in->penc,
				       .wid = in->pwid};
		b->len = (size_t)in->total;
		deliver(s, in, b, &r);
	} else if (b) {
		lp_buf_free(b);
	}
}

/* in->part waits for its next record.  A sender that stops streaming
 * (it computes, outside PVM) for SHM_PULL_NS gets the rest copied from
 * its memory by us, if it allows it: we take the stream over at the
 * byte the sender has come to, if that is all we have (a CAS of
 * inflight to READING; the sender's CAS before each record then fails),
 * copy the rest with process_vm_readv and answer in ref_ack as for a
 * REF.  Returns 1 if the message is whole now. */
static int pull_rest(struct shmseg_slot *s, struct shm_in *in)
{
	/* A sender that shares our CPU (lp_shm.crowded) pushes nothing while
	 * we run: pull at once.  (Default 1 MiB took 415 us a half round
	 * trip so, co-located on 2 CPUs, against 215 us spinning.) */
	int at_once = lp_shm.crowded && in->stalled;
	if (!at_once && ++in->polls % 16 != 1)
		return 0; /* the clock costs more than a look at the ring */
	int64_t now = mono_ns();
	if (!at_once && (!in->stalled || now - in->stalled < SHM_PULL_NS)) {
		if (!in->stalled)
			in->stalled = now;
		return 0;
	}
	uint64_t at = in->pseq | SHMSEG_STREAMING | in->got << SHMSEG_OFF_SHIFT;
	if (!atomic_compare_exchange_strong(
		    &s->inflight, &at,
		    in->pseq | SHMSEG_READING | in->got << SHMSEG_OFF_SHIFT)) {
		in->stalled = now; /* a record is on its way after all */
		return 0;
	}
	if (lp_shm_read(in->spid, in->part->data + in->got,
			in->pull_addr + in->got, in->total - in->got) < 0) {
		int died = errno == ESRCH;
		answer_read(s, in, in->pseq, died, at);
		if (died) {
			drop_part(in); /* it never comes */
		} else {
			/* not allowed: the sender streams on from where
			 * we were */
			in->pull_addr = 0;
			in->stalled = 0;
		}
		return 0;
	}
	in->got = in->total;
	answer_read(s, in, in->pseq, 1, 0);
	finish_part(s, in, 1);
	return 1;
}

/* Takes the published record at in->tail.  Returns 1, or 0 when memory
 * ran out (the record stays for the next look) or the slot is broken. */
static int take(uint32_t i, struct shm_in *in, const uint8_t *ring,
		uint64_t mask)
{
	struct shmseg_slot *s = shmseg_slot(lp_shm.base, i);
	struct shmseg_rec r;
	shm_ring_get(ring, mask, in->tail, &r, REC);
	uint64_t pos = in->tail + REC;
	if (r.len > shm_ring_max_len(mask) || r.kind < SHMSEG_WHOLE ||
	    r.kind > SHMSEG_REF || (r.kind == SHMSEG_REF && r.len != 8)) {
		in->broken = 1;
		return 0;
	}
	uint64_t next = in->tail + shmseg_span(r.len); /* the next record */
	if (r.kind == SHMSEG_WHOLE && lp_ptarget.active && lp_ptarget.copy &&
	    (r.enc & WIRE_ENC_FMT_MASK) >> WIRE_ENC_FMT_SHIFT ==
		    DSIG_FMT_NATIVE &&
	    in->peer && lp_tran_direct_ok(in->sender, r.tag, r.ctx, r.seq)) {
		/* straight into the waiting pvm_precv's buffer */
		size_t n = r.len < lp_ptarget.room ? r.len : lp_ptarget.room;
		if (n)
			shm_ring_get(ring, mask, pos, lp_ptarget.buf, n);
		in->tail = next;
		lp_ptarget.active = 0;
		lp_ptarget.done = 1;
		lp_ptarget.src = in->sender;
		lp_ptarget.rtag = r.tag;
		lp_ptarget.len = r.len;
		lp_tran_took(in->sender, r.seq);
		atomic_store_explicit(&s->delivered, in->peer->rseq,
				      memory_order_release);
		return 1;
	}
	if (r.kind == SHMSEG_WHOLE) {
		struct lp_buf *b = lp_buf_new(PvmDataRaw);
		if (!b || lp_buf_reserve(b, r.len) < 0) {
			lp_buf_free(b);
			return 0;
		}
		shm_ring_get(ring, mask, pos, b->data, r.len);
		b->len = r.len;
		in->tail = next;
		deliver(s, in, b, &r);
		return 1;
	}
	if (r.kind == SHMSEG_REF) {
		uint64_t addr;
		shm_ring_get(ring, mask, pos, &addr, 8);
		in->tail = next;
		take_ref(s, in, &r, addr);
		return 1;
	}
	if (r.kind == SHMSEG_START) {
		drop_part(in);
		in->total = r.total;
		in->pseq = r.seq;
		in->ptag = r.tag;
		in->pctx = r.ctx;
		in->penc = r.enc;
		in->pwid = r.wid;
		if (r.total < r.len || r.total > (uint64_t)(SIZE_MAX / 2)) {
			in->broken = 1;
			return 0;
		}
		in->part = lp_buf_new(PvmDataRaw);
		if (!in->part ||
		    lp_buf_reserve(in->part, (size_t)r.total) < 0) {
			/* no memory for it: let it pass (as a pvmd drops a
			 * message it cannot hold) */
			if (in->part)
				lp_buf_free(in->part);
			in->part = NULL;
			in->skipping = 1;
		} else {
			lp_mem_hint(in->part->data, (size_t)r.total);
			in->part->inqueue = 1;
			/* published before this record */
			in->pull_addr = atomic_load(&s->pull_addr);
		}
		in->got = 0;
	} else if (!in->part && !in->skipping) {
		in->broken = 1;
		return 0;
	}
	in->stalled = 0;
	in->polls = 0;
	if (r.len > in->total - in->got) {
		in->broken = 1;
		return 0;
	}
	if (in->part)
		shm_ring_get(ring, mask, pos, in->part->data + in->got, r.len);
	in->got += r.len;
	in->tail = next;
	if (in->got == in->total) {
		/* the sender may have started its next message already:
		 * only an ABANDONED mark for this seq means "dropped" */
		uint64_t v = atomic_load(&s->inflight);
		while ((uint32_t)v == in->pseq && (v & SHMSEG_STREAMING) &&
		       !atomic_compare_exchange_strong(&s->inflight, &v, 0))
			;
		finish_part(s, in, v != (in->pseq | SHMSEG_ABANDONED));
	}
	return 1;
}

static int drain(uint32_t i)
{
	struct shmseg_slot *s = shmseg_slot(lp_shm.base, i);
	struct shm_in *in = &lp_shm.in[i];
	const uint8_t *ring = shmseg_ring(lp_shm.base, i);
	uint64_t mask = lp_shm.ringsize - 1;

	if (in->broken || !shm_ring_ready(ring, mask, in->tail)) {
		if (!in->broken && in->part && in->pull_addr &&
		    pull_rest(s, in))
			return 1;
		/* the sender publishes head before it sets closed */
		if (atomic_load_explicit(&s->closed, memory_order_acquire) &&
		    (in->broken ||
		     atomic_load_explicit(&s->head, memory_order_acquire) ==
			     in->tail))
			free_slot(i);
		return 0;
	}
	if (!in->sender) {
		in->sender = atomic_load(&s->sender);
		in->spid = atomic_load(&s->spid);
		in->peer = lp_peer_get(in->sender);
	}
	int n = 0;
	do {
		if (!take(i, in, ring, mask))
			break;
		n++;
		/* The receive we are in has its message (a pvm_precv's
		 * buffer is filled, or a match joined the queue): return it
		 * now.  The next record starts on another cache line, which
		 * the sender has just written: looking there would cost a
		 * cross-core miss before the receive returns (docs/shm.md,
		 * "Records"). */
		if (lp_ptarget.done || lp_ptarget.hit)
			break;
		/* mid-stream: the sender may fill this room while we take
		 * the next chunk */
		if (in->part)
			atomic_store_explicit(&s->tail, in->tail,
					      memory_order_release);
	} while (!in->broken && shm_ring_ready(ring, mask, in->tail));
	atomic_store_explicit(&s->tail, in->tail, memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&s->want_space, memory_order_relaxed) &&
	    atomic_exchange(&s->want_space, 0))
		wake_sender(s, in);
	return n;
}

int lp_shm_rx_poll(void)
{
	struct shmseg_hdr *h = lp_shm.hdr;
	uint32_t nw = (lp_shm.nslot + 63) / 64;
	int n = 0;

	for (uint32_t w = 0; w < nw; w++) {
		uint64_t bits = atomic_load_explicit(&h->active[w],
						     memory_order_acquire);
		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			n += drain(i);
		}
	}
	return n;
}

void lp_shm_rx_publish_delivered(void)
{
	uint32_t nw = (lp_shm.nslot + 63) / 64;
	for (uint32_t w = 0; w < nw; w++) {
		uint64_t bits = atomic_load(&lp_shm.hdr->active[w]);
		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			struct shm_in *in = &lp_shm.in[i];
			struct shmseg_slot *s = shmseg_slot(lp_shm.base, i);
			if (!in->sender) {
				in->sender = atomic_load(&s->sender);
				in->spid = atomic_load(&s->spid);
				in->peer = in->sender ? lp_peer_get(in->sender)
						      : NULL;
			}
			if (in->peer)
				atomic_store_explicit(&s->delivered,
						      in->peer->rseq,
						      memory_order_release);
		}
	}
}

/* What lp_shm_rx_check returns, with slot in looked at too. */
static int more_partial(int partial, const struct shm_in *in)
{
	int p = in->part && in->pull_addr ? 2 : in->part || in->skipping;
	return p > partial ? p : partial;
}

/* Frees the slots of senders that died (SIGKILL...) once their ring is
 * drained, dropping a message they left half written.  Returns 2 if
 * some slot holds part of a message we may pull (the caller then sleeps
 * at most SHM_PULL_NS), else 1 if some slot holds part of another (at
 * most CHECK_NS), else 0.  *took counts the messages the last drain of a dead
 * sender's ring delivered: the caller must not sleep on them (a sender
 * that exits right after its last send is "dead" here). */
int lp_shm_rx_check(int *took)
{
	int64_t now = mono_ns();
	int partial = 0;
	*took = 0;
	if (now < next_check) {
		for (uint32_t i = 0; i < lp_shm.nslot; i++)
			partial = more_partial(partial, &lp_shm.in[i]);
		return partial;
	}
	next_check = now + CHECK_NS;
	uint32_t nw = (lp_shm.nslot + 63) / 64;
	for (uint32_t w = 0; w < nw; w++) {
		uint64_t bits = atomic_load(&lp_shm.hdr->active[w]);
		while (bits) {
			uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			struct shmseg_slot *s = shmseg_slot(lp_shm.base, i);
			struct shm_in *in = &lp_shm.in[i];
			int pid = atomic_load(&s->spid);
			if (lp_shm_pid_gone(pid)) {
				*took += drain(i);
				/* what it did not publish never comes */
				if (in->broken ||
				    !shm_ring_ready(shmseg_ring(lp_shm.base, i),
						    lp_shm.ringsize - 1,
						    in->tail)) {
					free_slot(i);
					continue;
				}
			}
			partial = more_partial(partial, in);
		}
	}
	return partial;
}
