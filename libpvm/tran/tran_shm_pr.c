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

size_t lp_shm_direct_min = 32768;

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
	atomic_store(&h->pr_spid, 0);
	atomic_store_explicit(&h->pr_state, ST(gen, SHMSEG_PR_POSTED),
			      memory_order_release);
	posted = 1;
	return 1;
}

int lp_shm_post_done(void)
{
	return posted &&
	       STATE(atomic_load_explicit(&lp_shm.hdr->pr_state,
					  memory_order_acquire)) ==
		       SHMSEG_PR_DONE;
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
	/* the body's segments, IOV_MAX at a time */
	uint64_t done = 0;
	int i = 0;
	size_t skip = 0;
	while (done < m->total) {
		struct iovec lv[64];
		int n = 0;
		uint64_t chunk = 0;
		for (int k = i; k < m->nseg && n < 64; k++) {
			size_t off = k == i ? skip : 0;
			if (m->seg[k].len == off)
				continue;
			lv[n].iov_base = (char *)m->seg[k].p + off;
			lv[n].iov_len = m->seg[k].len - off;
			chunk += lv[n].iov_len;
			n++;
		}
		struct iovec rv = {(void *)(uintptr_t)(addr + done),
				   (size_t)chunk};
		ssize_t r = process_vm_writev(h->pid, lv, (unsigned long)n, &rv, 1,
					      0);
		if (r <= 0) {
			if (errno == EPERM || errno == ENOSYS)
				sp->nodirect = 1;
			/* the ring then: the posting is the receiver's again
			 * (what we wrote it overwrites) */
			atomic_store(&h->pr_state, w);
			return 0;
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
