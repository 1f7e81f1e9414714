/*
 * conn_out.c - writing messages as frames: zero-copy writev of the
 * caller's memory while the socket takes it, a copy of the rest into the
 * connection's output queue when it does not (see conn.h).
 *
 * The queue is a list of fixed-size chunks, filled one after the other
 * (small messages share a chunk) and recycled through a small pool, so a
 * large message that does not fit in the socket is copied into memory
 * that is already mapped.  A large rest is copied a step at a time, with
 * a nonblocking attempt to write the queue after each step: while the
 * receiver drains the socket on another CPU, much of the message still
 * goes out straight from the caller's memory, uncopied.
 */
#define _GNU_SOURCE
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "pvm3.h"

#define MAX_IOV	 512
#define MAX_HDRS (MAX_IOV / 2)

#define CHUNK_SIZE (256u << 10) /* bytes of one output queue chunk */
#define POOL_MAX   128		/* free chunks kept for reuse (32 MiB) */
#define COPY_STEP  CHUNK_SIZE	/* bytes queued between write attempts */

struct lp_ochunk {
	struct lp_ochunk *next;
	size_t len, off; /* data[off..len) is still to be written */
	uint8_t data[CHUNK_SIZE];
};

static struct lp_ochunk *pool;
static int npool;

static struct lp_ochunk *chunk_new(void)
{
	struct lp_ochunk *ch = pool;
	if (ch) {
		pool = ch->next;
		npool--;
	} else if (!(ch = malloc(sizeof *ch))) {
		return NULL;
	}
	ch->next = NULL;
	ch->len = ch->off = 0;
	return ch;
}

static void chunk_free(struct lp_ochunk *ch)
{
	if (npool < POOL_MAX) {
		ch->next = pool;
		pool = ch;
		npool++;
	} else {
		free(ch);
	}
}

/* Position in the byte stream of a message's frames. */
struct ostream {
	const struct lp_omsg *m;
	uint64_t nframes, k; /* current frame */
	size_t off;	     /* offset in frame k (header + payload) */
	int si;		     /* body cursor: segment and offset in it */
	size_t so;
	uint8_t hdrs[MAX_HDRS][WIRE_HDR_SIZE];
};

static void os_init(struct ostream *s, const struct lp_omsg *m)
{
	s->m = m;
	s->nframes = m->total ? (m->total + m->frag - 1) / m->frag : 1;
	s->k = 0;
	s->off = 0;
	s->si = 0;
	s->so = 0;
}

static size_t frame_payload(const struct ostream *s, uint64_t k)
{
	uint64_t left = s->m->total - k * s->m->frag;
	return (size_t)(left < s->m->frag ? left : s->m->frag);
}

static uint64_t os_remaining(const struct ostream *s)
{
	if (s->k >= s->nframes)
		return 0;
	/* frames k.. with their headers, less what of frame k is written */
	return (s->nframes - s->k) * WIRE_HDR_SIZE +
	       (s->m->total - s->k * s->m->frag) - s->off;
}

static void encode_hdr(const struct ostream *s, uint64_t k, uint8_t *out)
{
	struct wire_hdr h = s->m->h;
	h.len = (uint32_t)frame_payload(s, k);
	h.flags = (uint16_t)((k == 0 ? WIRE_F_FIRST : 0) |
			     (k + 1 == s->nframes ? WIRE_F_LAST : 0) |
			     (s->m->ctrl ? WIRE_F_CTRL : 0));
	h.total = k == 0 ? s->m->total : 0;
	wire_hdr_encode(&h, out);
}

/* Describes the stream from the current position in iov (without
 * consuming it), about `maxbytes` of it (at least that much when the
 * stream has it, unless maxiov entries end it first).  Returns the number
 * of entries. */
static int os_fill(struct ostream *s, struct iovec *iov, int maxiov,
		   size_t maxbytes)
{
	uint64_t k = s->k;
	size_t off = s->off, so = s->so, bytes = 0;
	int si = s->si, n = 0, nh = 0;
	const struct lp_seg *seg = s->m->seg;

	while (k < s->nframes && n < maxiov && bytes < maxbytes) {
		size_t flen = frame_payload(s, k), pay;
		if (off < WIRE_HDR_SIZE) {
			if (nh == MAX_HDRS)
				break;
			encode_hdr(s, k, s->hdrs[nh]);
			iov[n].iov_base = s->hdrs[nh] + off;
			iov[n++].iov_len = WIRE_HDR_SIZE - off;
			bytes += WIRE_HDR_SIZE - off;
			nh++;
			pay = flen;
		} else {
			pay = flen - (off - WIRE_HDR_SIZE);
		}
		while (pay > 0 && n < maxiov) {
			size_t avail = seg[si].len - so;
			if (avail == 0) {
				si++;
				so = 0;
				continue;
			}
			size_t t = avail < pay ? avail : pay;
			iov[n].iov_base = (uint8_t *)seg[si].p + so;
			iov[n++].iov_len = t;
			bytes += t;
			so += t;
			pay -= t;
		}
		if (pay > 0)
			break;
		k++;
		off = 0;
	}
	return n;
}

static void os_advance(struct ostream *s, size_t n)
{
	const struct lp_seg *seg = s->m->seg;
	while (n > 0 && s->k < s->nframes) {
		size_t flen = frame_payload(s, s->k);
		size_t rem = WIRE_HDR_SIZE + flen - s->off;
		size_t step = n < rem ? n : rem;
		size_t hpart = 0;
		if (s->off < WIRE_HDR_SIZE)
			hpart = step < WIRE_HDR_SIZE - s->off
					? step
					: WIRE_HDR_SIZE - s->off;
		size_t body = step - hpart;
		while (body > 0) {
			size_t avail = seg[s->si].len - s->so;
			if (avail == 0) {
				s->si++;
				s->so = 0;
				continue;
			}
			size_t t = avail < body ? avail : body;
			s->so += t;
			body -= t;
		}
		s->off += step;
		n -= step;
		if (s->off == WIRE_HDR_SIZE + flen) {
			s->k++;
			s->off = 0;
		}
	}
}

/* Copies up to `limit` bytes of the stream (all of it if it has less)
 * to the end of the output queue.  Returns 0 or PvmNoMem. */
static int queue_some(struct lp_conn *c, struct ostream *s, size_t limit)
{
	struct iovec iov[MAX_IOV];

	while (limit > 0 && os_remaining(s) > 0) {
		struct lp_ochunk *t = c->oq_tail;
		if (!t || t->len == CHUNK_SIZE) {
			if (!(t = chunk_new()))
				return PvmNoMem;
			if (c->oq_tail)
				c->oq_tail->next = t;
			else
				c->oq_head = t;
			c->oq_tail = t;
		}
		size_t room = CHUNK_SIZE - t->len, got = 0;
		if (room > limit)
			room = limit;
		int n = os_fill(s, iov, MAX_IOV, room);
		for (int i = 0; i < n && got < room; i++) {
			size_t k = iov[i].iov_len < room - got ? iov[i].iov_len
							       : room - got;
			memcpy(t->data + t->len + got, iov[i].iov_base, k);
			got += k;
		}
		os_advance(s, got);
		t->len += got;
		c->oq_bytes += got;
		limit -= got;
	}
	return 0;
}

static ssize_t send_iov(int fd, struct iovec *iov, int n)
{
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = (size_t)n};
	ssize_t r;
	do
		r = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (r < 0 && errno == EINTR);
	return r;
}

int lp_conn_ep_send(void *ep, const struct lp_omsg *m)
{
	return lp_conn_send(ep, m);
}

int lp_conn_ep_pending(void *ep)
{
	struct lp_conn *c = ep;
	return !c->dead && lp_conn_pending(c);
}

int lp_conn_send(struct lp_conn *c, const struct lp_omsg *m)
{
	struct ostream s;
	struct iovec iov[MAX_IOV];

	if (c->dead)
		return PvmSysErr;
	os_init(&s, m);
	const uint64_t all = os_remaining(&s);
	for (;;) {
		if (c->oq_head && lp_conn_output(c) < 0)
			return PvmSysErr;
		if (os_remaining(&s) == 0)
			return 0;
		int r = 0;
		if (c->oq_head) {
			/* the socket is full (or older output waits): copy a
			 * step, then see whether the socket takes more */
			r = queue_some(c, &s, COPY_STEP);
		} else {
			int n = os_fill(&s, iov, MAX_IOV, SIZE_MAX);
			ssize_t w = send_iov(c->fd, iov, n);
			if (w >= 0) {
				os_advance(&s, (size_t)w);
				continue;
			}
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				lp_conn_close(c);
				return PvmSysErr;
			}
			r = queue_some(c, &s, COPY_STEP);
		}
		if (r < 0) {
			/* out of memory: with part of the message already on
			 * its way, the stream cannot go on (the peer sees the
			 * connection end inside a message and drops it) */
			if (os_remaining(&s) < all)
				lp_conn_close(c);
			return r;
		}
	}
}

int lp_conn_output(struct lp_conn *c)
{
	struct iovec iov[64];

	while (!c->dead && c->oq_head) {
		int n = 0;
		size_t want = 0;
		for (struct lp_ochunk *ch = c->oq_head; ch && n < 64;
		     ch = ch->next) {
			iov[n].iov_base = ch->data + ch->off;
			iov[n++].iov_len = ch->len - ch->off;
			want += ch->len - ch->off;
		}
		ssize_t r = send_iov(c->fd, iov, n);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			lp_conn_close(c);
			return -1;
		}
		size_t left = (size_t)r;
		while (left > 0) {
			struct lp_ochunk *ch = c->oq_head;
			size_t t = ch->len - ch->off;
			if (left < t) {
				ch->off += left;
				c->oq_bytes -= left;
				break;
			}
			left -= t;
			c->oq_bytes -= t;
			c->oq_head = ch->next;
			if (!c->oq_head)
				c->oq_tail = NULL;
			chunk_free(ch);
		}
		if ((size_t)r < want)
			break; /* short write: the socket is full */
	}
	return c->dead ? -1 : 0;
}

void lp_conn_free_output(struct lp_conn *c)
{
	while (c->oq_head) {
		struct lp_ochunk *ch = c->oq_head;
		c->oq_head = ch->next;
		chunk_free(ch);
	}
	c->oq_tail = NULL;
	c->oq_bytes = 0;
}
