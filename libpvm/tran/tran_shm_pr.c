/*
 * tran_shm_pr.c - single copy of large messages into a waiting
 * pvm_precv (docs/shm.md, "Single copy of large messages").
 *
 * A receiver that waits in pvm_precv with nothing matching in its queue
 * publishes its buffer in its inbox header (pr_*, state POSTED).  A
 * sender whose message matches and fits, whose ring to that receiver is
 * drained and all of whose earlier messages to it were delivered
 * (slot->delivered), claims the posting with a CAS POSTED -> CLAIMED,
 * copies the body straight into the receiver's buffer with
 * process_vm_writev, fills in the result and sets DONE.  The receiver
 * withdraws with a CAS POSTED -> IDLE; if a sender claimed first, it
 * waits for DONE.
 *
 * Both processes are running then (the receiver spins), so a sender of
 * a large message to an awake receiver splits the copy: it offers the
 * upper part (pr_offer OFFERED), copies the lower part, and either takes
 * the upper part back (OFFERED -> SENDER_TAKEN) or waits while the
 * receiver, which took it (OFFERED -> RECV_TAKEN), reads it from the
 * sender's memory with process_vm_readv (-> RECV_DONE / RECV_FAILED).
 */
#define _GNU_SOURCE
#include "tran_shm.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#include "lpvm.h"
#include "msg/msg.h"

#define ST(gen, s) ((uint32_t)(gen) << 8 | (uint32_t)(s))
#define STATE(w) ((w) & 0xff)

static uint32_t gen; /* of our current posting */
static int posted;
static char *post_buf; /* its buffer */
static size_t post_len;
static int noread; /* process_vm_readv is not allowed to us */

size_t lp_shm_direct_min = 32768;
size_t lp_shm_split_min = 65536;

/* The receiver: copies the part of the message a sender offers us, if
 * one does now. */
static void take_offer(void)
{
	struct shmseg_hdr *h = lp_shm.hdr;
	uint32_t o = ST(gen, SHMSEG_OF_OFFERED);
	if (noread ||
	    atomic_load_explicit(&h->pr_offer, memory_order_acquire) != o ||
	    !atomic_compare_exchange_strong(&h->pr_offer, &o,
					    ST(gen, SHMSEG_OF_RECV_TAKEN)))
		return;
	uint64_t off = h->of_off, len = h->of_len, src = h->of_addr;
	pid_t pid = atomic_load(&h->pr_spid);
	int ok = pid > 0 && off <= post_len && len <= post_len - off;
	while (ok && len) {
		struct iovec lv = {post_buf + off, (size_t)len};
		struct iovec rv = {(void *)(uintptr_t)src, (size_t)len};
		ssize_t r = process_vm_readv(pid, &lv, 1, &rv, 1, 0);
		if (r <= 0) {
			if (r < 0 && (errno == EPERM || errno == ENOSYS))
				noread = 1;
			ok = 0;
			break;
		}
		off += (uint64_t)r;
		src += (uint64_t)r;
		len -= (uint64_t)r;
	}
	atomic_store_explicit(&h->pr_offer,
			      ST(gen, ok ? SHMSEG_OF_RECV_DONE
					 : SHMSEG_OF_RECV_FAILED),
			      memory_order_release);
}

int lp_shm_post(int src, int tag, void *buf, size_t len)
{
	if (!lp_shm.on || lp_shm.forked || posted || len < lp_shm_direct_min)
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
		s = STATE(atomic_load_explicit(&lp_shm.hdr->pr_state,
					       memory_order_acquire));
	}
	return s == SHMSEG_PR_DONE;
}

void lp_shm_post_take(int *src, int *tag, int *enc, uint64_t *len,
		      uint32_t *seq)
{
	struct shmseg_hdr *h = lp_shm.hdr;
	*src = h->pr_gotsrc;
	*tag = h->pr_gottag;
	*enc = h->pr_gotenc;
	*len = h->pr_gotlen;
	*seq = h->pr_gotseq;
	atomic_store(&h->pr_state, ST(gen, SHMSEG_PR_IDLE));
	posted = 0;
}

int lp_shm_withdraw(void)
{
	if (!posted)
		return 1;
	struct shmseg_hdr *h = lp_shm.hdr;
	int64_t next = lp_shm_now_ns() + 100000000;
	for (;;) {
		uint32_t s = atomic_load_explicit(&h->pr_state,
						  memory_order_acquire);
		if (STATE(s) == SHMSEG_PR_POSTED) {
			if (atomic_compare_exchange_strong(
				    &h->pr_state, &s, ST(gen, SHMSEG_PR_IDLE))) {
				posted = 0;
				return 1;
			}
			continue;
		}
		if (STATE(s) != SHMSEG_PR_CLAIMED)
			break;
		take_offer();
		/* claimed: the copy is under way; wait for it (a sender
		 * that dies meanwhile leaves our buffer half written:
		 * forget the posting) */
		int64_t now = lp_shm_now_ns();
		if (now >= next) {
			int pid = atomic_load(&h->pr_spid);
			if (pid > 0 && kill(pid, 0) < 0 && errno == ESRCH) {
				atomic_store(&h->pr_state,
					     ST(gen, SHMSEG_PR_IDLE));
				posted = 0;
				return 1;
			}
			next = now + 100000000;
		}
		__builtin_ia32_pause();
	}
	return 0; /* DONE: lp_shm_post_take */
}

/* ---- the sender's side ---- */

/* Writes bytes [from, to) of m's body to addr + from in process pid,
 * 64 segments at a time.  Returns 0, or -1 (errno set). */
static int write_range(pid_t pid, const struct lp_omsg *m, uint64_t addr,
		       uint64_t from, uint64_t to)
{
	int i = 0;
	uint64_t pos = 0;
	while (i < m->nseg && pos + m->seg[i].len <= from)
		pos += m->seg[i++].len;
	size_t skip = (size_t)(from - pos);
	uint64_t done = from;
	while (done < to) {
		struct iovec lv[64];
		int n = 0;
		uint64_t chunk = 0;
		for (int k = i; k < m->nseg && n < 64 && done + chunk < to;
		     k++) {
			size_t off = k == i ? skip : 0;
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
		/* advance (i, skip) by r bytes */
		uint64_t left = (uint64_t)r;
		while (left && i < m->nseg) {
			size_t avail = m->seg[i].len - skip;
			if (left < avail) {
				skip += (size_t)left;
				left = 0;
			} else {
				left -= avail;
				i++;
				skip = 0;
			}
		}
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
	int64_t next = lp_shm_now_ns() + 100000000;
	for (;;) {
		uint32_t o = atomic_load_explicit(&h->pr_offer,
						  memory_order_acquire);
		if (o != (g | SHMSEG_OF_RECV_TAKEN))
			return o == (g | SHMSEG_OF_RECV_DONE)
				       ? SHMSEG_OF_RECV_DONE
				       : SHMSEG_OF_RECV_FAILED;
		int64_t now = lp_shm_now_ns();
		if (now >= next) {
			if (atomic_load(&h->dead) ||
			    (kill(h->pid, 0) < 0 && errno == ESRCH))
				return SHMSEG_OF_RECV_FAILED;
			next = now + 100000000;
		}
		__builtin_ia32_pause();
	}
}

int lp_shm_tx_direct(struct shm_peer *sp, const struct lp_omsg *m)
{
	struct shmseg_hdr *h = sp->hdr;
	uint32_t w = atomic_load_explicit(&h->pr_state, memory_order_acquire);
	if (STATE(w) != SHMSEG_PR_POSTED || sp->nodirect)
		return 0;
	if (h->pr_ctx != m->h.ctx || (h->pr_src != -1 && h->pr_src != lp.mytid) ||
	    (h->pr_tag != -1 && h->pr_tag != m->h.tag) || m->total > h->pr_len)
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
	/* an awake receiver is offered the upper part */
	uint32_t g = w & ~0xffu;
	const char *upper = NULL;
	uint64_t lo = atomic_load(&h->sleeping) ? 0 : split_at(m, &upper);
	if (lo) {
		h->of_addr = (uint64_t)(uintptr_t)upper;
		h->of_off = lo;
		h->of_len = m->total - lo;
		atomic_store_explicit(&h->pr_offer, g | SHMSEG_OF_OFFERED,
				      memory_order_release);
	}
	int err = write_range(h->pid, m, addr, 0, lo ? lo : m->total) < 0
			  ? errno
			  : 0;
	if (lo) {
		uint32_t o = g | SHMSEG_OF_OFFERED;
		int mine = atomic_compare_exchange_strong(
			&h->pr_offer, &o, g | SHMSEG_OF_SENDER_TAKEN);
		/* the receiver reads our memory until it answers */
		if ((mine || offer_wait(h, g) != SHMSEG_OF_RECV_DONE) && !err &&
		    write_range(h->pid, m, addr, lo, m->total) < 0)
			err = errno;
	}
	if (err) {
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
	int64_t end = lp_shm_now_ns() + wait;
	while (!atomic_load_explicit(&h->sleeping, memory_order_relaxed) &&
	       !atomic_load_explicit(&h->dead, memory_order_relaxed)) {
		for (int i = 0; i < 16; i++) {
			uint32_t w = atomic_load_explicit(&h->pr_state,
							  memory_order_acquire);
			if (STATE(w) == SHMSEG_PR_POSTED)
				return lp_shm_tx_direct(sp, m);
			__builtin_ia32_pause();
		}
		if (lp_shm_now_ns() >= end) {
			sp->noposts = 1; /* it receives another way */
			break;
		}
	}
	return 0;
}
