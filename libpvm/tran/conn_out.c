/*
 * conn_out.c - writing messages as frames: zero-copy writev of the
 * caller's memory while the socket takes it, a copy of the rest into the
 * connection's output queue when it does not (see conn.h).
 */
#define _GNU_SOURCE
#include "conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "pvm3.h"

#define MAX_IOV 512
#define MAX_HDRS (MAX_IOV / 2)

struct lp_ochunk {
	struct lp_ochunk *next;
	size_t len, off;
	uint8_t data[];
};

/* Position in the byte stream of a message's frames. */
struct ostream {
	const struct lp_omsg *m;
	uint64_t nframes, k; /* current frame */
	size_t off;          /* offset in frame k (header + payload) */
	int si;              /* body cursor: segment and offset in it */
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
 * consuming it).  Returns the number of entries. */
static int os_fill(struct ostream *s, struct iovec *iov, int maxiov)
{
	uint64_t k = s->k;
	size_t off = s->off, so = s->so;
	int si = s->si, n = 0, nh = 0;
	const struct lp_seg *seg = s->m->seg;

	while (k < s->nframes && n < maxiov) {
		size_t flen = frame_payload(s, k), pay;
		if (off < WIRE_HDR_SIZE) {
			if (nh == MAX_HDRS)
				break;
			encode_hdr(s, k, s->hdrs[nh]);
			iov[n].iov_base = s->hdrs[nh] + off;
			iov[n++].iov_len = WIRE_HDR_SIZE - off;
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
			hpart = step < WIRE_HDR_SIZE - s->off ? step
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

static void queue_chunk(struct lp_conn *c, struct lp_ochunk *ch)
{
	ch->next = NULL;
	if (c->oq_tail)
		c->oq_tail->next = ch;
	else
		c->oq_head = ch;
	c->oq_tail = ch;
	c->oq_bytes += ch->len;
}

/* Copies the rest of the stream into the output queue. */
static int queue_rest(struct lp_conn *c, struct ostream *s)
{
	uint64_t rest = os_remaining(s);
	if (rest == 0)
		return 0;
	if (rest > SIZE_MAX - sizeof(struct lp_ochunk))
		return PvmNoMem;
	struct lp_ochunk *ch = malloc(sizeof *ch + (size_t)rest);
	if (!ch)
		return PvmNoMem;
	lp_mem_hint(ch->data, (size_t)rest);
	ch->len = (size_t)rest;
	ch->off = 0;
	size_t pos = 0;
	struct iovec iov[MAX_IOV];
	while (pos < ch->len) {
		int n = os_fill(s, iov, MAX_IOV);
		size_t got = 0;
		for (int i = 0; i < n; i++) {
			memcpy(ch->data + pos + got, iov[i].iov_base, iov[i].iov_len);
			got += iov[i].iov_len;
		}
		os_advance(s, got);
		pos += got;
	}
	queue_chunk(c, ch);
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

int lp_conn_send(struct lp_conn *c, const struct lp_omsg *m)
{
	struct ostream s;
	struct iovec iov[MAX_IOV];

	if (c->dead)
		return PvmSysErr;
	if (c->oq_head && lp_conn_output(c) < 0)
		return PvmSysErr;
	os_init(&s, m);
	if (c->oq_head) /* keep order behind what is already queued */
		return queue_rest(c, &s);
	while (os_remaining(&s) > 0) {
		int n = os_fill(&s, iov, MAX_IOV);
		ssize_t r = send_iov(c->fd, iov, n);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return queue_rest(c, &s);
			lp_conn_close(c);
			return PvmSysErr;
		}
		os_advance(&s, (size_t)r);
	}
	return 0;
}

int lp_conn_output(struct lp_conn *c)
{
	struct iovec iov[64];

	while (!c->dead && c->oq_head) {
		int n = 0;
		for (struct lp_ochunk *ch = c->oq_head; ch && n < 64; ch = ch->next) {
			iov[n].iov_base = ch->data + ch->off;
			iov[n++].iov_len = ch->len - ch->off;
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
			free(ch);
		}
	}
	return c->dead ? -1 : 0;
}

void lp_conn_free_output(struct lp_conn *c)
{
	while (c->oq_head) {
		struct lp_ochunk *ch = c->oq_head;
		c->oq_head = ch->next;
		free(ch);
	}
	c->oq_tail = NULL;
	c->oq_bytes = 0;
}
