/*
 * recv.c - pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe, pvm_recvf,
 * pvm_precv: matching in the receive queue and waiting in lp_progress().
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "lpvm.h"
#include "msg.h"
#include "pack/pack.h"
#include "tran/poll.h"
#include "tran/tran.h"

#ifdef HAVE_VALGRIND_MEMCHECK_H
#include <valgrind/memcheck.h>
#else
#define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)0)
#endif

typedef int (*lp_matchfn)(int, int, int);
static lp_matchfn userf; /* NULL: the default matcher */

/*
 * Finds the message a receive for (tid, tag) takes.  Default: the earliest
 * one of the current context with that source and tag (-1: any).  With a
 * pvm_recvf function: its verdict per message (< 0 error, 0 skip, 1 take
 * this one, > 1 take the best ranked after scanning all).
 */
static struct lp_buf *find(int tid, int tag, int *err)
{
	struct lp_buf *b, *next;

	*err = 0;
	if (!userf) {
		for (b = lp_rxq_head(); b; b = b->qnext)
			if ((tid == -1 || b->src == tid) &&
			    (tag == -1 || b->tag == tag) && b->ctx == lp.ctx &&
			    !lp_mhf_match(b))
				return b;
		return NULL;
	}
	struct lp_buf *best = NULL;
	int bestv = 0;
	for (b = lp_rxq_head(); b; b = next) {
		next = b->qnext;
		if (lp_mhf_match(b))
			continue; /* a handler's, never received */
		/* the function may look at the message (pvm_getminfo...) */
		b->inqueue = 0;
		int v = userf(b->id, tid, tag);
		b->inqueue = 1;
		if (v < 0) {
			*err = v;
			return NULL;
		}
		if (v == 1)
			return b;
		if (v > bestv) {
			best = b;
			bestv = v;
		}
	}
	return best;
}

/*
 * Waits for a matching message.  deadline: NULL waits for ever; otherwise
 * a CLOCK_MONOTONIC time (a past one only looks).  Returns 1 with *out
 * set, 0 on timeout, or a negative code.
 */
static int wait_match_t(int tid, int tag, const struct timespec *deadline,
			struct lp_buf **out, struct lp_precv_target *t);

static int wait_match(int tid, int tag, const struct timespec *deadline,
		      struct lp_buf **out)
{
	return wait_match_t(tid, tag, deadline, out, NULL);
}

/* Offers a pvm_precv's buffer to the transports for the next
 * lp_progress (tran.h, lp_precv_target): copy, any may fill it; posted,
 * it is posted to shared memory too, and a socket takes it only after
 * withdrawing that. */
static void offer(int tid, int tag, void *buf, size_t room, int copy,
		  int posted)
{
	lp_ptarget = (struct lp_precv_target){.active = 1,
					      .copy = copy,
					      .posted = posted,
					      .tid = tid,
					      .tag = tag,
					      .ctx = lp.ctx,
					      .buf = buf,
					      .room = room};
}

/* wait_match, with a pvm_precv target (msg.h) offered to the transports
 * while waiting: returns 2 when a message went straight into it. */
static int wait_match_t(int tid, int tag, const struct timespec *deadline,
			struct lp_buf **out, struct lp_precv_target *t)
{
	int err, looked = 0;

	for (;;) {
		if (t && t->buf && lp_pclaim.buf == t->buf) {
			/* a message is being read straight into our buffer
			 * (tran.h): it is the one we return */
			if (lp_pclaim.done) {
				t->src = lp_pclaim.src;
				t->rtag = lp_pclaim.tag;
				t->len = lp_pclaim.len;
				lp_pclaim = (struct lp_pclaim){0};
				return 2;
			}
			if (lp_progress(NULL) < 0) {
				lp_pclaim.buf = NULL; /* nothing can fill it */
				return PvmSysErr;
			}
			continue;
		}
		struct lp_buf *b = find(tid, tag, &err);
		if (err)
			return err;
		/* handlers first take the messages that came before it */
		if (lp_mhf_run(b))
			continue;
		if (b) {
			*out = b;
			return 1;
		}
		if (lp_pvmd_lost)
			return PvmSysErr; /* the virtual machine is gone */
		struct timespec left, *tp = NULL;
		if (deadline) {
			struct timespec now = mono_timespec();
			left.tv_sec = deadline->tv_sec - now.tv_sec;
			left.tv_nsec = deadline->tv_nsec - now.tv_nsec;
			if (left.tv_nsec < 0) {
				left.tv_nsec += 1000000000L;
				left.tv_sec--;
			}
			if (left.tv_sec < 0) {
				if (looked)
					return 0;
				/* expired (or nrecv/probe): still take in
				 * what has arrived before saying no */
				left.tv_sec = left.tv_nsec = 0;
			}
			tp = &left;
		}
		looked = 1;
		if (!userf)
			offer(tid, tag, t ? t->buf : NULL, t ? t->room : 0,
			      t != NULL, 0);
		int pr = lp_progress(tp);
		if (t && !userf)
			*t = lp_ptarget;
		/* nothing of it may outlive this wait (a stale hit would
		 * make the rings stop after every record) */
		lp_ptarget = (struct lp_precv_target){0};
		if (t && t->done)
			return 2;
		if (pr < 0)
			return PvmSysErr;
	}
}

/* A source is -1 (any), a task tid, or a pvmd's address (daemon bit and
 * host part, task part 0): notifies come from 0x80000000, and the
 * reference lets a program receive from it by name.  A tag is -1 (any)
 * or >= 0; with PvmResvTids a reserved (negative) one too. */
static int bad_args(int tid, int tag)
{
	/* reserved (negative) tags with PvmResvTids: a hoster's SM_STHOST */
	return tid == 0 || (tid < -1 && !wire_tid_is_pvmd(tid)) ||
	       (tag < -1 && !lp.resvtids);
}

/* Makes b the active receive buffer; the previous one was freed. */
static int take(struct lp_buf *b)
{
	lp_rxq_unlink(b);
	lp_rbuf = b->id;
	return b->id;
}

static void drop_rbuf(void)
{
	struct lp_buf *old = lp_rbuf ? lp_buf_get(lp_rbuf) : NULL;
	if (old)
		lp_buf_free(old);
	lp_rbuf = 0;
}

/* recv / nrecv / trecv share this: deadline as in wait_match. */
static int recv_common(const char *fn, int tid, int tag,
		       const struct timespec *deadline)
{
	struct lp_buf *b;
	int r;

	if ((r = lp_enroll()) < 0)
		return lp_err(fn, r);
	if (bad_args(tid, tag))
		return lp_err(fn, PvmBadParam);
	drop_rbuf();
	r = wait_match(tid, tag, deadline, &b);
	if (r < 0)
		return lp_err(fn, r);
	return r == 0 ? 0 : take(b);
}

int pvm_recv(int tid, int msgtag)
{
	return recv_common("pvm_recv", tid, msgtag, NULL);
}

int pvm_nrecv(int tid, int msgtag)
{
	static const struct timespec past = {0, 0};
	return recv_common("pvm_nrecv", tid, msgtag, &past);
}

int pvm_trecv(int tid, int msgtag, struct timeval *tmout)
{
	if (!tmout)
		return recv_common("pvm_trecv", tid, msgtag, NULL);
	if (tmout->tv_sec < 0 || tmout->tv_usec < 0)
		return lp_err("pvm_trecv", PvmBadParam);
	struct timespec dl = mono_timespec();
	dl.tv_sec += tmout->tv_sec + tmout->tv_usec / 1000000;
	dl.tv_nsec += (tmout->tv_usec % 1000000) * 1000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_nsec -= 1000000000L;
		dl.tv_sec++;
	}
	return recv_common("pvm_trecv", tid, msgtag, &dl);
}

int pvm_probe(int tid, int msgtag)
{
	static const struct timespec past = {0, 0};
	struct lp_buf *b;
	int r;

	if ((r = lp_enroll()) < 0)
		return lp_err("pvm_probe", r);
	if (bad_args(tid, msgtag))
		return lp_err("pvm_probe", PvmBadParam);
	r = wait_match(tid, msgtag, &past, &b);
	if (r < 0)
		return lp_err("pvm_probe", r);
	return r == 0 ? 0 : b->id;
}

int (*pvm_recvf(int (*newf)(int, int, int)))(int, int, int)
{
	lp_matchfn old = userf;
	userf = newf;
	return old;
}

/*
 * pvm_precv of a large buffer: with nothing matching in the queue, the
 * buffer is posted to a transport that offers single copy (shared memory,
 * tran/shm/precv.c), so that a sender can copy the message straight into
 * it.  Returns 1 when a message was taken that way (outputs set), 0 to
 * receive as usual, or a negative code.
 */
static int precv_direct(int tid, int tag, void *buf, size_t room, int *atid,
			int *atag, int *alen)
{
	struct lp_buf *b;
	int err;

	if (userf || room < lp_route_post_min(tid))
		return 0;
	/* what the rings hold first (no system call: a sender may be
	 * about to look for our posting) */
	lp_progress_peek();
	b = find(tid, tag, &err);
	if (b || err || lp_mhf_run(NULL) || !lp_route_post(tid, tag, buf, room))
		return 0;
	for (;;) {
		if (!lp_route_post_done()) {
			b = find(tid, tag, &err);
			int lost = lp_pvmd_lost;
			if (!b && !lost) {
				/* a task of another host may send meanwhile:
				 * a socket may read its message into buf too */
				offer(tid, tag, buf, room, 0, 1);
				int pr = lp_progress(NULL);
				lp_ptarget = (struct lp_precv_target){0};
				/* one did (and withdrew the posting):
				 * wait_match_t waits for the rest of it */
				if (lp_pclaim.buf == buf)
					return 0;
				if (pr >= 0 || !lp_route_post_withdraw())
					continue;
				return PvmSysErr;
			}
			/* a message came the usual way: receive that one,
			 * unless a sender had claimed the posting already */
			if (lp_route_post_withdraw())
				return b ? 0 : PvmSysErr;
		}
		struct lp_posted got;
		lp_route_post_take(&got);
		if (got.len > room) {
			/* not from a sender of ours: drop it, keep order */
			lp_msg_took(got.src, got.seq);
			return PvmSysErr;
		}
		/* the sender wrote it with process_vm_writev: memcheck
		 * cannot see that */
		VALGRIND_MAKE_MEM_DEFINED(buf, got.len);
		struct lp_buf probe = {
			.src = got.src, .tag = got.tag, .ctx = lp.ctx};
		if (find(tid, tag, &err) || lp_mhf_match(&probe)) {
			/* an earlier message matches too, or a handler wants
			 * this one: it joins the queue like any other */
			struct lp_buf *nb = lp_buf_new(PvmDataRaw);
			if (!nb || lp_buf_reserve(nb, (size_t)got.len) < 0) {
				lp_buf_free(nb);
				return PvmNoMem;
			}
			memcpy(nb->data, buf, (size_t)got.len);
			nb->len = (size_t)got.len;
			lp_buf_set_wire_enc(nb, (uint16_t)got.enc);
			nb->received = 1;
			nb->src = got.src;
			nb->dst = lp.mytid;
			nb->tag = got.tag;
			nb->ctx = lp.ctx;
			nb->seq = got.seq;
			lp_msg_arrived(nb);
			return 0;
		}
		lp_msg_took(got.src, got.seq);
		if (atid)
			*atid = got.src;
		if (atag)
			*atag = got.tag;
		if (alen)
			*alen = got.len > 0x7fffffff ? 0x7fffffff
						     : (int)got.len;
		return 1;
	}
}

int pvm_precv(int tid, int msgtag, void *buf, int len, int datatype, int *atid,
	      int *atag, int *alen)
{
	struct lp_buf *b;
	size_t sz = lp_dtype_size(datatype);
	int r;

	if ((r = lp_enroll()) < 0)
		return lp_err("pvm_precv", r);
	if (bad_args(tid, msgtag) || len < 0 || sz == 0 || (len > 0 && !buf))
		return lp_err("pvm_precv", PvmBadParam);
	r = precv_direct(tid, msgtag, buf, (size_t)len * sz, atid, atag, alen);
	if (r < 0)
		return lp_err("pvm_precv", r);
	if (r == 1)
		return 0;
	struct lp_precv_target t = {.buf = buf, .room = (size_t)len * sz};
	r = wait_match_t(tid, msgtag, NULL, &b, &t);
	if (r < 0)
		return lp_err("pvm_precv", r);
	if (r == 2) {
		if (atid)
			*atid = t.src;
		if (atag)
			*atag = t.rtag;
		if (alen)
			*alen = t.len > (size_t)0x7fffffff ? 0x7fffffff
							   : (int)t.len;
		return 0;
	}
	/* the message's bytes as they are, whatever its encoding; the active
	 * receive buffer is not touched */
	lp_rxq_unlink(b);
	size_t mlen = b->len; /* the message's length here, in bytes */
	if (b->enc != PvmDataDefault && b->fmt != DSIG_FMT_NATIVE) {
		/* from a host of another data format: converted by type, and
		 * its length is what its items take here */
		enum lp_type t = (enum lp_type)lp_dtype_type(datatype);
		size_t k = b->len / lp_fmt_size(t, b->fmt);
		mlen = k * sz;
		if (k > (size_t)len)
			k = (size_t)len;
		r = lp_convert(t, b->fmt, b->data, buf, (int)k, 1);
		if (r < 0) {
			lp_buf_free(b);
			return lp_err("pvm_precv", r);
		}
	} else {
		size_t room = (size_t)len * sz;
		size_t n = b->len < room ? b->len : room;
		if (n)
			memcpy(buf, b->data, n);
		if (b->sock)
			lp_rx_stats.copied += n;
	}
	if (atid)
		*atid = b->src;
	if (atag)
		*atag = b->tag;
	if (alen)
		*alen = mlen > (size_t)0x7fffffff ? 0x7fffffff : (int)mlen;
	lp_buf_free(b);
	return 0;
}
