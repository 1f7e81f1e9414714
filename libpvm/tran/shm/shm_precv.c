/*
 * shm_precv.c - large messages into a waiting pvm_precv (docs/shm.md,
 * "Large messages into a waiting pvm_precv").
 *
 * A receiver that waits in pvm_precv with nothing matching in its queue
 * publishes its buffer in its inbox header (pr_*, state POSTED).  A
 * sender whose message matches and fits, whose ring to that receiver is
 * drained and all of whose earlier messages to it were delivered
 * (slot->delivered), claims the posting with a CAS POSTED -> CLAIMED,
 * puts the body into the receiver's buffer, fills in the result and sets
 * DONE.  The receiver withdraws with a CAS POSTED -> IDLE; if a sender
 * claimed first, it waits for DONE.
 *
 * How the body gets there: from PVM_SHM_STREAM bytes on, the sender
 * offers the receiver the message (pr_offer STREAM; it wakes a receiver
 * that sleeps), and it streams through the bounce area of the receiver's
 * inbox: the sender fills chunk after chunk there while the receiver,
 * which took the offer (STREAM -> RECV_TAKEN), copies each out (->
 * RECV_DONE / RECV_FAILED).  Two copies, but on both cores at once, and
 * the message lands in the receiver's cache.  An awake receiver takes
 * the offer while the first chunks are filled; if it has not, the
 * sender writes on with process_vm_writev, a piece at a time, until it
 * does, and only the rest streams.  A receiver that never takes it
 * leaves it all to the sender (STREAM -> SENDER_TAKEN at the end).
 * Smaller messages the sender writes alone.
 *
 * With streaming off (PVM_SHM_STREAM=0) the sender splits the copy
 * with an awake receiver instead: it offers the upper part (OFFERED),
 * copies the lower part, and either takes the upper part back (OFFERED
 * -> SENDER_TAKEN) or waits while the receiver, which took it, reads it
 * from the sender's memory with process_vm_readv.
 */
#define _GNU_SOURCE
#include "tran/shm/shm.h"

#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu.h"
#include "lpvm.h"
#include "tran/waitpol.h"

#define ST(gen, s) ((uint32_t)(gen) << 8 | (uint32_t)(s))
#define STATE(w)   ((w)&0xff)

static uint32_t gen; /* of our current posting */
static int posted;
static char *post_buf; /* its buffer */
static size_t post_len;
static int noread; /* process_vm_readv is not allowed to us */

size_t lp_shm_direct_min = 32768;
size_t lp_shm_split_min = 65536;
size_t lp_shm_stream_min = 32768;

int lp_shm_direct_ok(uint64_t total)
{
	/* the hand-over needs the sender and the receiver on CPUs at
	 * once: with more tasks than CPUs each waits for the other */
	return total >= lp_shm_direct_min && !lp_wait_loaded(mono_ns());
}

#define BOUNCE_CHUNK SHMSEG_BOUNCE_CHUNK
#define BOUNCE_N     SHMSEG_BOUNCE_N
#define GEN_MASK     0xffffffff00000000ULL
#define WAIT_SPINS   256 /* spins of a wait between looks at the clock */
/* A side of a stream that waits for the other checks that it lives
 * every ALIVE_NS and gives its core away every YIELD_NS (more tasks than
 * cores); after NAP_AFTER_NS without progress it naps NAP_NS at a time
 * instead of spinning (a stopped peer must not cost it a core). */
#define ALIVE_NS     10000000
#define YIELD_NS     50000
#define NAP_AFTER_NS 10000000
#define NAP_NS	     1000000

/* The receiver ends its posting without a message (the sender that
 * claimed it died: the buffer may hold part of a message). */
static void forget(void)
{
	atomic_store(&lp_shm.hdr->pr_state, ST(gen, SHMSEG_PR_IDLE));
	posted = 0;
}

struct peer_wait {
	int64_t since; /* when this wait began */
	int64_t alive; /* next look at the peer */
	int64_t yield; /* next sched_yield */
};

/* Called every so many spins of a wait for the peer (process pid);
 * spins is how many so far.  Returns -1 if the peer is gone. */
static int wait_tick(struct peer_wait *w, unsigned spins, pid_t pid)
{
	int64_t now = mono_ns();
	if (spins == WAIT_SPINS) { /* the first tick of this wait */
		w->since = now;
		w->alive = now + ALIVE_NS;
		w->yield = now + YIELD_NS;
		return 0;
	}
	if (now - w->since >= NAP_AFTER_NS) {
		struct timespec ts = {0, NAP_NS};
		nanosleep(&ts, NULL);
	} else if (now >= w->yield) {
		sched_yield();
		w->yield = now + YIELD_NS;
	}
	if (now >= w->alive) {
		if (lp_shm_pid_gone(pid))
			return -1;
		w->alive = now + ALIVE_NS;
	}
	return 0;
}

/* The receiver took a stream offer: copies each chunk out of the bounce
 * area as the sender fills it.  Returns 1, or 0 if the message does not
 * fit or the sender died (the posting is then forgotten). */
static int take_stream(struct shmseg_hdr *h)
{
	uint64_t len = h->of_len, g = (uint64_t)gen << 32;
	pid_t pid = atomic_load(&h->pr_spid);
	if (len > post_len)
		return 0;
	struct peer_wait w;
	/* chunk c holds the message from c * BOUNCE_CHUNK, or, from chunk
	 * st_k0 on, from st_off on (the sender wrote what lies between) */
	for (uint64_t c = 0;; c++) {
		for (unsigned spin = 1;; spin++) {
			uint64_t f = atomic_load_explicit(&h->st_filled,
							  memory_order_acquire);
			if ((f & GEN_MASK) == g && (uint32_t)f > c)
				break;
			if (spin % WAIT_SPINS == 0 &&
			    wait_tick(&w, spin, pid) < 0) {
				forget();
				return 0;
			}
			cpu_relax();
		}
		uint32_t k0 =
			atomic_load_explicit(&h->st_k0, memory_order_relaxed);
		uint64_t so =
			atomic_load_explicit(&h->st_off, memory_order_relaxed);
		if (c >= k0 && so > len)
			return 0;
		uint64_t pos = c < k0 ? c * BOUNCE_CHUNK
				      : so + (c - k0) * BOUNCE_CHUNK;
		if (pos > len)
			return 0;
		size_t n = len - pos < BOUNCE_CHUNK ? (size_t)(len - pos)
						    : BOUNCE_CHUNK;
		memcpy(post_buf + pos,
		       lp_shm.bounce + (c % BOUNCE_N) * BOUNCE_CHUNK, n);
		atomic_store_explicit(&h->st_drained, g | (uint32_t)(c + 1),
				      memory_order_release);
		if (pos + n == len)
			break;
	}
	return 1;
}

/* The receiver: copies the part of the message a sender offers us, or
 * the message it streams, if one does now. */
static void take_offer(void)
{
	struct shmseg_hdr *h = lp_shm.hdr;
	uint32_t o = atomic_load_explicit(&h->pr_offer, memory_order_acquire);
	if (o == ST(gen, SHMSEG_OF_STREAM)) {
		/* on the sender's CPU we would only take turns with it: it
		 * writes the message faster alone */
		if ((h->of_cpu < 0 || sched_getcpu() != h->of_cpu) &&
		    atomic_compare_exchange_strong(
			    &h->pr_offer, &o, ST(gen, SHMSEG_OF_RECV_TAKEN))) {
			int ok = take_stream(h);
			atomic_store_explicit(
				&h->pr_offer,
				ST(gen, ok ? SHMSEG_OF_RECV_DONE
					   : SHMSEG_OF_RECV_FAILED),
				memory_order_release);
		}
		return;
	}
	if (noread || o != ST(gen, SHMSEG_OF_OFFERED) ||
	    !atomic_compare_exchange_strong(&h->pr_offer, &o,
					    ST(gen, SHMSEG_OF_RECV_TAKEN)))
		return;
	uint64_t off = h->of_off, len = h->of_len;
	pid_t pid = atomic_load(&h->pr_spid);
	int ok = pid > 0 && off <= post_len && len <= post_len - off;
	if (ok && lp_shm_read(pid, post_buf + off, h->of_addr, len) < 0) {
		if (errno == EPERM || errno == ENOSYS)
			noread = 1;
		ok = 0;
	}
	atomic_store_explicit(
		&h->pr_offer,
		ST(gen, ok ? SHMSEG_OF_RECV_DONE : SHMSEG_OF_RECV_FAILED),
		memory_order_release);
}

int lp_shm_post(int src, int tag, void *buf, size_t len)
{
	if (!lp_shm.on || lp_shm.forked || posted || !lp_shm_direct_ok(len))
		return 0;
	struct shmseg_hdr *h = lp_shm.hdr;
	/* what each sender may count as delivered now */
	lp_shm_rx_publish_delivered();
	gen = (gen + 1) & 0xffffff;
	h->pr_src = src;
	h->pr_tag = tag;
	h->pr_ctx = lp.ctx;
	h->pr_addr = (uint64_t)(uintptr_t)buf;
	h->pr_len = len;
	h->pr_fmt = DSIG_FMT_NATIVE;
	post_buf = buf;
	post_len = len;
	atomic_store(&h->pr_spid, 0);
	atomic_store(&h->pr_offer, ST(gen, SHMSEG_OF_NONE));
	atomic_store_explicit(&h->pr_state, ST(gen, SHMSEG_PR_POSTED),
			      memory_order_release);
	posted = 1;
	return 1;
}

int lp_shm_post_done(void)
{
	if (!posted)
		return 0;
	uint32_t s = STATE(atomic_load_explicit(&lp_shm.hdr->pr_state,
						memory_order_acquire));
	if (s == SHMSEG_PR_CLAIMED) {
		take_offer();
		if (!posted)
			return 0; /* its sender died */
		s = STATE(atomic_load_explicit(&lp_shm.hdr->pr_state,
					       memory_order_acquire));
	}
	return s == SHMSEG_PR_DONE;
}

void lp_shm_post_take(struct lp_posted *out)
{
	struct shmseg_hdr *h = lp_shm.hdr;
	out->src = h->pr_gotsrc;
	out->tag = h->pr_gottag;
	out->enc = h->pr_gotenc;
	out->len = h->pr_gotlen;
	out->seq = h->pr_gotseq;
	atomic_store(&h->pr_state, ST(gen, SHMSEG_PR_IDLE));
	posted = 0;
}

int lp_shm_withdraw(void)
{
	if (!posted)
		return 1;
	struct shmseg_hdr *h = lp_shm.hdr;
	struct peer_wait w;
	for (unsigned spin = 1;; spin++) {
		uint32_t s = atomic_load_explicit(&h->pr_state,
						  memory_order_acquire);
		if (STATE(s) == SHMSEG_PR_POSTED) {
			if (atomic_compare_exchange_strong(
				    &h->pr_state, &s,
				    ST(gen, SHMSEG_PR_IDLE))) {
				posted = 0;
				return 1;
			}
			continue;
		}
		if (STATE(s) != SHMSEG_PR_CLAIMED)
			break;
		take_offer();
		if (!posted)
			return 1; /* its sender died in the middle */
		/* claimed: the copy is under way; wait for it (a sender
		 * that dies meanwhile leaves our buffer half written:
		 * forget the posting) */
		if (spin % WAIT_SPINS == 0 &&
		    wait_tick(&w, spin, atomic_load(&h->pr_spid)) < 0) {
			forget();
			return 1;
		}
		cpu_relax();
	}
	return 0; /* DONE: lp_shm_post_take */
}

/* ---- the sender's side ---- */

/* Where the next bytes of a message's body are. */
struct seg_at {
	int i;
	size_t skip;
};

/* Moves *at to byte off of m's body. */
static void skip_to(const struct lp_omsg *m, struct seg_at *at, uint64_t off)
{
	at->i = 0;
	while (at->i < m->nseg && off >= m->seg[at->i].len) {
		off -= m->seg[at->i].len;
		at->i++;
	}
	at->skip = (size_t)off;
}

/* Copies the next n bytes of m's body, from *at on, to dst. */
static void gather(const struct lp_omsg *m, struct seg_at *at, uint8_t *dst,
		   size_t n)
{
	while (n && at->i < m->nseg) {
		const struct lp_seg *sg = &m->seg[at->i];
		size_t k = sg->len - at->skip;
		if (k > n)
			k = n;
		memcpy(dst, (const char *)sg->p + at->skip, k);
		dst += k;
		n -= k;
		at->skip += k;
		if (at->skip == sg->len) {
			at->i++;
			at->skip = 0;
		}
	}
}

/* Writes bytes [from, to) of m's body to addr + from in process pid,
 * 64 segments at a time.  Returns 0, or -1 (errno set). */
static int write_range(pid_t pid, const struct lp_omsg *m, uint64_t addr,
		       uint64_t from, uint64_t to)
{
	struct seg_at at;
	uint64_t done = from;
	while (done < to) {
		struct iovec lv[64];
		int n = 0;
		uint64_t chunk = 0;
		skip_to(m, &at, done);
		for (int k = at.i; k < m->nseg && n < 64 && done + chunk < to;
		     k++) {
			size_t off = k == at.i ? at.skip : 0;
			uint64_t len = m->seg[k].len - off;
			if (len == 0)
				continue;
			if (len > to - done - chunk)
				len = to - done - chunk;
			lv[n].iov_base = (char *)m->seg[k].p + off;
			lv[n].iov_len = (size_t)len;
			chunk += len;
			n++;
		}
		struct iovec rv = {(void *)(uintptr_t)(addr + done),
				   (size_t)chunk};
		ssize_t r = n ? process_vm_writev(pid, lv, (unsigned long)n,
						  &rv, 1, 0)
			      : 0;
		if (r <= 0) {
			if (r == 0)
				errno = EFAULT;
			return -1;
		}
		done += (uint64_t)r;
	}
	return 0;
}

/* Where m's body is split: the upper part, which the receiver may copy
 * itself, is the tail of the last segment from a page boundary near the
 * middle.  0: no split. */
static uint64_t split_at(const struct lp_omsg *m, const char **upper)
{
	int k = m->nseg - 1;
	while (k >= 0 && m->seg[k].len == 0)
		k--;
	if (m->total < lp_shm_split_min || k < 0)
		return 0;
	uint64_t start = m->total - m->seg[k].len;
	uint64_t at = (m->total / 2) & ~(uint64_t)4095;
	if (at < start)
		at = start;
	if (at == 0 || m->total - at < lp_shm_split_min / 4)
		return 0;
	*upper = (const char *)m->seg[k].p + (at - start);
	return at;
}

/* The receiver took our offer: wait until it has copied its part (it is
 * running: it took it a moment ago).  Returns its answer, or
 * RECV_FAILED if it is gone. */
static uint32_t offer_wait(struct shmseg_hdr *h, uint32_t g)
{
	struct peer_wait w;
	for (unsigned spin = 1;; spin++) {
		uint32_t o = atomic_load_explicit(&h->pr_offer,
						  memory_order_acquire);
		if (o != (g | SHMSEG_OF_RECV_TAKEN))
			return o == (g | SHMSEG_OF_RECV_DONE)
				       ? SHMSEG_OF_RECV_DONE
				       : SHMSEG_OF_RECV_FAILED;
		if (spin % WAIT_SPINS == 0 &&
		    (atomic_load(&h->dead) || wait_tick(&w, spin, h->pid) < 0))
			return SHMSEG_OF_RECV_FAILED;
		cpu_relax();
	}
}

/* A streaming sender waits for the receiver, which took the offer
 * (wait_tick).  Returns 0 to wait on, -1 if it failed or is gone. */
static int stream_wait(struct shmseg_hdr *h, uint32_t g, struct peer_wait *w,
		       unsigned spins)
{
	uint32_t o = atomic_load_explicit(&h->pr_offer, memory_order_acquire);
	if (o == (g | SHMSEG_OF_RECV_FAILED) || atomic_load(&h->dead))
		return -1;
	return wait_tick(w, spins, h->pid);
}

/* The generation of posting state g (ST) as st_filled and st_drained
 * carry it: their upper half. */
static uint64_t st_gen(uint32_t g)
{
	return (uint64_t)(g >> 8) << 32;
}

/* Waits until chunk c of a stream may be filled (the receiver took
 * chunk c - BOUNCE_N out).  Returns 0, or -1 if the receiver failed or
 * is gone. */
static int chunk_room(struct shmseg_hdr *h, uint32_t g, uint64_t c,
		      struct peer_wait *w)
{
	for (unsigned spin = 1; c >= BOUNCE_N; spin++) {
		uint64_t d = atomic_load_explicit(&h->st_drained,
						  memory_order_acquire);
		if ((d & GEN_MASK) == st_gen(g) &&
		    (uint32_t)d >= c + 1 - BOUNCE_N)
			break;
		if (spin % WAIT_SPINS == 0 && stream_wait(h, g, w, spin) < 0)
			return -1;
		cpu_relax();
	}
	return 0;
}

/* Puts the next n bytes of m (from *at) into chunk c of the bounce area
 * and publishes it. */
static void fill_chunk(struct shm_peer *sp, struct shmseg_hdr *h, uint32_t g,
		       const struct lp_omsg *m, struct seg_at *at, uint64_t c,
		       size_t n)
{
	gather(m, at, sp->bounce + (c % BOUNCE_N) * BOUNCE_CHUNK, n);
	atomic_store_explicit(&h->st_filled, st_gen(g) | (uint32_t)(c + 1),
			      memory_order_release);
}

static size_t chunk_len(const struct lp_omsg *m, uint64_t pos)
{
	return m->total - pos < BOUNCE_CHUNK ? (size_t)(m->total - pos)
					     : BOUNCE_CHUNK;
}

/* Writes m into the posted buffer at addr, with the receiver's help if
 * it comes: we offer it the message (STREAM; we wake it if it sleeps).
 * While an awake receiver takes the offer (a microsecond or so) the
 * first chunks already go into the bounce area.  If it has not come by
 * then, we write on from there with process_vm_writev, a piece at a
 * time, until it does; the rest then goes through the bounce area, where
 * we fill chunk after chunk while it copies them out.  Returns 0, or -1
 * (errno set: the receiver failed or is gone, or our write failed before
 * it came). */
static int stream(struct shm_peer *sp, struct shmseg_hdr *h,
		  const struct lp_omsg *m, uint32_t g, uint64_t addr,
		  int asleep)
{
	h->of_len = m->total;
	h->of_cpu = sched_getcpu();
	atomic_store_explicit(&h->st_k0, UINT32_MAX, memory_order_relaxed);
	atomic_store_explicit(&h->st_filled, st_gen(g), memory_order_relaxed);
	atomic_store_explicit(&h->pr_offer, g | SHMSEG_OF_STREAM,
			      memory_order_release);
	if (asleep) {
		uint64_t one = 1;
		if (write(sp->efd, &one, sizeof one) < 0) {
			/* full: it wakes anyway */
		}
	}
	int64_t start = mono_ns();
	struct peer_wait w;
	uint32_t o = g | SHMSEG_OF_STREAM;
	struct seg_at at = {0, 0};
	uint64_t c = 0, pos = 0; /* the next chunk, where it starts */
	int taken = 0;
	while (!asleep && !taken && pos < m->total && c < BOUNCE_N &&
	       (c == 0 || mono_ns() - start < SHM_TAKE_NS)) {
		size_t n = chunk_len(m, pos);
		fill_chunk(sp, h, g, m, &at, c++, n);
		pos += n;
		taken = atomic_load_explicit(&h->pr_offer,
					     memory_order_acquire) != o;
	}
	if (!taken) {
		/* it has not come: we write on ourselves until it does */
		uint32_t k0 = (uint32_t)c;
		uint64_t off = pos;
		int err = 0;
		atomic_store_explicit(&h->st_k0, k0, memory_order_relaxed);
		while (!err && off < m->total) {
			if (atomic_load_explicit(&h->pr_offer,
						 memory_order_acquire) != o) {
				taken = 1;
				break;
			}
			uint64_t to = m->total - off > SHM_PIECE
					      ? off + SHM_PIECE
					      : m->total;
			if (write_range(h->pid, m, addr, off, to) < 0)
				err = errno;
			else
				off = to;
		}
		if (!taken &&
		    atomic_compare_exchange_strong(
			    &h->pr_offer, &o, g | SHMSEG_OF_SENDER_TAKEN)) {
			/* it never came: the first chunks go straight too */
			if (!err && pos &&
			    write_range(h->pid, m, addr, 0, pos) < 0)
				err = errno;
			errno = err;
			return err ? -1 : 0;
		}
		/* it came: the rest (all of it after the first chunks if our
		 * write failed) through the bounce area, from chunk k0 on; an
		 * empty chunk k0 if nothing is left */
		if (err)
			off = pos;
		atomic_store_explicit(&h->st_off, off, memory_order_relaxed);
		if (off == m->total && pos < m->total)
			fill_chunk(sp, h, g, m, &at, c, 0);
		skip_to(m, &at, off);
		pos = off;
	}
	while (pos < m->total) {
		if (chunk_room(h, g, c, &w) < 0)
			goto failed;
		size_t n = chunk_len(m, pos);
		fill_chunk(sp, h, g, m, &at, c++, n);
		pos += n;
	}
	for (unsigned spin = 1;; spin++) {
		if (atomic_load_explicit(&h->pr_offer, memory_order_acquire) ==
		    (g | SHMSEG_OF_RECV_DONE))
			return 0;
		if (spin % WAIT_SPINS == 0 && stream_wait(h, g, &w, spin) < 0)
			break;
		cpu_relax();
	}
failed:
	errno = EPIPE;
	return -1;
}

/* Splits the copy of m into the posted buffer at addr with an awake
 * receiver (split_at).  Returns 0, or -1 (errno set). */
static int split_copy(struct shmseg_hdr *h, const struct lp_omsg *m, uint32_t g,
		      uint64_t addr)
{
	const char *upper = NULL;
	uint64_t lo = split_at(m, &upper);
	if (!lo)
		return write_range(h->pid, m, addr, 0, m->total);
	h->of_addr = (uint64_t)(uintptr_t)upper;
	h->of_off = lo;
	h->of_len = m->total - lo;
	atomic_store_explicit(&h->pr_offer, g | SHMSEG_OF_OFFERED,
			      memory_order_release);
	int err = write_range(h->pid, m, addr, 0, lo) < 0 ? errno : 0;
	uint32_t o = g | SHMSEG_OF_OFFERED;
	int mine = atomic_compare_exchange_strong(&h->pr_offer, &o,
						  g | SHMSEG_OF_SENDER_TAKEN);
	/* the receiver reads our memory until it answers */
	if ((mine || offer_wait(h, g) != SHMSEG_OF_RECV_DONE) && !err &&
	    write_range(h->pid, m, addr, lo, m->total) < 0)
		err = errno;
	errno = err;
	return err ? -1 : 0;
}

int lp_shm_tx_direct(struct shm_peer *sp, const struct lp_omsg *m)
{
	struct shmseg_hdr *h = sp->hdr;
	uint32_t w = atomic_load_explicit(&h->pr_state, memory_order_acquire);
	if (STATE(w) != SHMSEG_PR_POSTED || sp->nodirect)
		return 0;
	if (h->pr_ctx != m->h.ctx ||
	    (h->pr_src != -1 && h->pr_src != lp.mytid) ||
	    (h->pr_tag != -1 && h->pr_tag != m->h.tag) || m->total > h->pr_len)
		return 0;
	/* a body the owner would have to convert goes by the ring */
	if ((m->h.enc & WIRE_ENC_MASK) != PvmDataDefault &&
	    (m->h.enc & WIRE_ENC_FMT_MASK) >> WIRE_ENC_FMT_SHIFT != h->pr_fmt)
		return 0;
	uint64_t addr = h->pr_addr;
	/* everything before this message has reached its receive queue */
	if (sp->head != atomic_load_explicit(&sp->slot->tail,
					     memory_order_acquire) ||
	    lp_seq_next(atomic_load(&sp->slot->delivered)) != m->h.seq)
		return 0;
	if (!atomic_compare_exchange_strong(&h->pr_state, &w,
					    (w & ~0xffu) | SHMSEG_PR_CLAIMED))
		return 0;
	atomic_store(&h->pr_spid, (int32_t)lp_shm.pid);
	/* the receiver copies with us if it is awake or wakes in time */
	uint32_t g = w & ~0xffu;
	int r, asleep = atomic_load(&h->sleeping);
	if (m->total >= lp_shm_stream_min)
		r = stream(sp, h, m, g, addr, asleep);
	else if (asleep)
		r = write_range(h->pid, m, addr, 0, m->total);
	else
		r = split_copy(h, m, g, addr);
	if (r < 0) {
		int err = errno;
		if (err == EPERM || err == ENOSYS)
			sp->nodirect = 1;
		/* the ring then: the posting is the receiver's again
		 * (what we wrote it overwrites) */
		atomic_store(&h->pr_state, w);
		return 0;
	}
	h->pr_gotsrc = lp.mytid;
	h->pr_gottag = m->h.tag;
	h->pr_gotenc = m->h.enc;
	h->pr_gotlen = m->total;
	h->pr_gotseq = m->h.seq;
	atomic_store_explicit(&h->pr_state, (w & ~0xffu) | SHMSEG_PR_DONE,
			      memory_order_release);
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&h->sleeping, memory_order_relaxed)) {
		uint64_t one = 1;
		if (write(sp->efd, &one, sizeof one) < 0) {
			/* full: awake anyway */
		}
	}
	return 1;
}

/* The receiver has not posted yet.  In a ping-pong it posts its next
 * pvm_precv a moment after our message is sent (it was busy returning
 * from its last one), and copying the message into our queue instead
 * costs what a short wait does, then a second copy.  So a sender waits
 * for an awake receiver's posting, at most about as long as that queue
 * copy would take (SHM_WAIT_BPNS bytes a ns) and never more than
 * SHM_GRACE_NS; not for a receiver that sleeps (it posts before it
 * sleeps in pvm_precv).  Returns 1 if the message went into the posted
 * buffer; after a wait in vain the peer is marked noposts: no more
 * waiting until a posted receive takes one of its messages again. */
int lp_shm_tx_direct_wait(struct shm_peer *sp, const struct lp_omsg *m)
{
	struct shmseg_hdr *h = sp->hdr;
	if (sp->noposts || sp->nodirect)
		return 0;
	int64_t wait = (int64_t)(m->total / SHM_WAIT_BPNS);
	if (wait > SHM_GRACE_NS)
		wait = SHM_GRACE_NS;
	int64_t end = mono_ns() + wait;
	while (!atomic_load_explicit(&h->sleeping, memory_order_relaxed) &&
	       !atomic_load_explicit(&h->dead, memory_order_relaxed)) {
		for (int i = 0; i < 16; i++) {
			uint32_t w = atomic_load_explicit(&h->pr_state,
							  memory_order_acquire);
			if (STATE(w) == SHMSEG_PR_POSTED)
				return lp_shm_tx_direct(sp, m);
			cpu_relax();
		}
		if (mono_ns() >= end) {
			sp->noposts = 1; /* it receives another way */
			break;
		}
	}
	return 0;
}
