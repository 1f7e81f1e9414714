/*
 * conn.c - connection life cycle and the incremental frame reader
 * (see conn.h; output is in conn_out.c).
 */
#define _GNU_SOURCE
#include "conn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pvm3.h"

#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
/* Under ASan an allocation over 128 KiB is a mapping of its own, and
 * unmapping it made the fuzz targets' threads shoot down each other's
 * TLBs: a third of reply_fuzz's time went to a buffer per connection. */
#define RBUF_SIZE (64u << 10)
#else
#define RBUF_SIZE (256u << 10)
#endif
/* Read at most this much per call so one busy peer cannot starve others. */
#define READ_BUDGET	(16u << 20)
/* Payload remainders at least this large are read straight into place
 * (a system call costs about what a memcpy of this size does); after a
 * message this large the next header is read alone (conn->big). */
#define DIRECT_READ_MIN (32u << 10)
#define SMALL_READ	DIRECT_READ_MIN
/* Send buffer asked for on every connection (see lp_conn_new). */
#define SNDBUF_WANT	(1 << 20)

struct lp_asm {
	struct lp_asm *next;
	struct wire_hdr h; /* first frame's header */
	uint32_t frag;	   /* payload of the first frame: the sender's size */
	uint64_t got;
	struct lp_buf *buf; /* ordinary message */
	uint8_t *ctl;	    /* control message */
	uint8_t *dst;	    /* where the body goes: buf's, ctl, or claimed */
	int claimed;	    /* dst is the owner's (lp_conn_claim_fn) */
};

static struct lp_conn *zombies;
struct lp_rx_stats lp_rx_stats;

void lp_conn_free_output(struct lp_conn *c); /* conn_out.c */

static short conn_events(struct lp_pollable *p)
{
	struct lp_conn *c = p->arg;
	return (short)(POLLIN | (c->oq_head ? POLLOUT : 0));
}

static void conn_ready(struct lp_pollable *p, short revents)
{
	struct lp_conn *c = p->arg;
	if ((revents & POLLOUT) && lp_conn_output(c) < 0)
		return;
	if (revents & (POLLIN | POLLHUP | POLLERR))
		lp_conn_input(c);
}

struct lp_conn *lp_conn_new(int fd, const char *what, lp_conn_msg_fn on_msg,
			    lp_conn_close_fn on_close, void *owner)
{
	struct lp_conn *c = calloc(1, sizeof *c);
	if (c)
		c->rbuf = malloc(RBUF_SIZE);
	if (!c || !c->rbuf) {
		free(c);
		close(fd);
		return NULL;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	/* A larger send buffer lets a large message go into the socket at
	 * once instead of into our output queue (a copy); the kernel caps it
	 * at net.core.wmem_max, so this is only a wish. */
	int sndbuf = SNDBUF_WANT;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
	c->fd = fd;
	c->what = what;
	c->on_msg = on_msg;
	c->on_close = on_close;
	c->owner = owner;
	c->pl.fd = fd;
	c->pl.events = conn_events;
	c->pl.ready = conn_ready;
	c->pl.arg = c;
	lp_poll_add(&c->pl);
	return c;
}

void lp_mem_hint(void *p, size_t len)
{
	const uintptr_t huge = 2u << 20;
	if (len < 4 * huge)
		return;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)p + len) & ~(huge - 1);
	if (e > a)
		madvise((void *)a, e - a, MADV_HUGEPAGE); /* only a hint */
}

static void asm_free(struct lp_conn *c, struct lp_asm *a)
{
	if (a->claimed && c->claimed)
		c->claimed(c, &a->h, 0);
	if (a->buf)
		lp_buf_free(a->buf);
	free(a->ctl);
	free(a);
}

void lp_conn_close(struct lp_conn *c)
{
	if (c->dead)
		return;
	c->dead = 1;
	lp_poll_del(&c->pl);
	close(c->fd);
	c->fd = -1;
	while (c->asms) {
		struct lp_asm *a = c->asms;
		c->asms = a->next;
		asm_free(c, a);
	}
	c->cur_asm = NULL;
	lp_conn_free_output(c);
	free(c->rbuf);
	c->rbuf = NULL;
	if (c->on_close)
		c->on_close(c);
	/* freed at the next reap: callers up the stack may still hold c */
	c->owner = zombies;
	zombies = c;
}

void lp_conn_reap(void)
{
	while (zombies) {
		struct lp_conn *c = zombies;
		zombies = c->owner;
		free(c);
	}
}

/* Header of a new frame decoded: find or start its message. */
static int frame_begin(struct lp_conn *c)
{
	struct wire_hdr *h = &c->cur;
	struct lp_asm **pp = &c->asms, *a;

	while ((a = *pp) && a->h.src != h->src)
		pp = &a->next;
	if (h->flags & WIRE_F_FIRST) {
		if (a)
			return -1; /* two messages of one source interleaved */
		int enc = h->enc & WIRE_ENC_MASK;
		if (!(h->flags & WIRE_F_CTRL) &&
		    ((enc != PvmDataDefault && enc != PvmDataRaw &&
		      enc != PvmDataInPlace && enc != PvmDataTrace) ||
		     (h->enc & ~(WIRE_ENC_MASK | WIRE_ENC_FMT_MASK))))
			return -1;
		a = calloc(1, sizeof *a);
		if (!a)
			return -1;
		a->h = *h;
		a->frag = h->len;
		if (!(h->flags & WIRE_F_CTRL))
			c->big = h->total >= DIRECT_READ_MIN;
		if (h->flags & WIRE_F_CTRL) {
			/* total == len <= WIRE_MAX_CTRL (wire_hdr_decode) */
			a->ctl = malloc(h->total ? h->total : 1);
			if (!a->ctl) {
				free(a);
				return -1;
			}
			a->dst = a->ctl;
		} else if (c->claim && h->total > 0 &&
			   (a->dst = c->claim(c, h)) != NULL) {
			a->claimed = 1; /* straight into a pvm_precv's buffer */
		} else {
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
			/* A fuzz input (16 KiB at most) never brings the body
			 * of a larger message, and under ASan reserving one is
			 * not free: the free writes an eighth of its size to
			 * shadow memory, which was most of conn_fuzz's time.
			 * Refused as when memory runs out. */
			if (h->total > (1u << 20)) {
				free(a);
				return -1;
			}
#endif
			a->buf = lp_buf_new(PvmDataRaw);
			if (!a->buf || h->total > (uint64_t)(SIZE_MAX / 2) ||
			    lp_buf_reserve(a->buf, (size_t)h->total) < 0) {
				if (a->buf)
					lp_buf_free(a->buf);
				free(a);
				return -1;
			}
			lp_mem_hint(a->buf->data, (size_t)h->total);
			lp_buf_set_wire_enc(a->buf, h->enc);
			a->buf->inqueue = 1; /* not the program's yet */
			a->buf->sock = 1;    /* (lp_rx_stats) */
			a->dst = a->buf->data;
		}
		a->next = c->asms;
		c->asms = a;
	} else if (!a) {
		return -1; /* continuation with nothing in progress */
	}
	if ((h->flags & WIRE_F_CTRL) != (a->h.flags & WIRE_F_CTRL))
		return -1;
	if (h->len > a->h.total - a->got)
		return -1; /* more bytes than announced */
	c->cur_asm = a;
	c->pgot = 0;
	return 0;
}

static uint8_t *asm_dest(struct lp_asm *a)
{
	return a->dst + a->got;
}

/* The current frame's payload is complete.  Returns -1 on a protocol error
 * or when the connection was closed by the message's hook. */
static int frame_end(struct lp_conn *c)
{
	struct lp_asm *a = c->cur_asm;
	c->cur_asm = NULL;
	c->hgot = 0;
	if (!(c->cur.flags & WIRE_F_LAST))
		return 0;
	if (a->got != a->h.total)
		return -1;
	/* unlink and hand over */
	struct lp_asm **pp = &c->asms;
	while (*pp != a)
		pp = &(*pp)->next;
	*pp = a->next;

	if (a->claimed) {
		struct wire_hdr h = a->h;
		free(a);
		c->claimed(c, &h, 1);
		return c->dead ? -1 : 0;
	}
	struct lp_inmsg m = {.h = a->h,
			     .buf = a->buf,
			     .ctl = a->ctl,
			     .ctllen = (size_t)a->got};
	if (m.buf) {
		struct lp_buf *b = m.buf;
		b->received = 1;
		b->src = a->h.src;
		b->dst = a->h.dst;
		b->tag = a->h.tag;
		b->ctx = a->h.ctx;
		b->wid = (int)a->h.wid;
		b->seq = a->h.seq;
		b->rpos = 0;
		b->inqueue = 0;
	}
	free(a);
	if (c->on_msg(c, &m) < 0)
		return -1;
	return c->dead ? -1 : 0;
}

/* n payload bytes of the current frame are in place; copies: how many
 * times each was written on the way (lp_rx_stats). */
static void add_got(struct lp_conn *c, size_t n, int copies)
{
	struct lp_asm *a = c->cur_asm;
	a->got += n;
	if (a->buf)
		a->buf->len = (size_t)a->got;
	c->pgot += (uint32_t)n;
	if (!a->ctl) {
		lp_rx_stats.bytes += n;
		lp_rx_stats.copied += (uint64_t)copies * n;
	}
}

/* Consumes bytes from rbuf.  Returns -1 on a protocol error. */
static int parse(struct lp_conn *c)
{
	while (c->rpos < c->rlen) {
		if (c->hgot < WIRE_HDR_SIZE) {
			size_t n = WIRE_HDR_SIZE - c->hgot;
			if (n > c->rlen - c->rpos)
				n = c->rlen - c->rpos;
			memcpy(c->hbuf + c->hgot, c->rbuf + c->rpos, n);
			c->hgot += n;
			c->rpos += n;
			if (c->hgot < WIRE_HDR_SIZE)
				return 0;
			if (wire_hdr_decode(c->hbuf, &c->cur, WIRE_MAX_FRAG) <
				    0 ||
			    frame_begin(c) < 0)
				return -1;
		} else {
			size_t n = c->cur.len - c->pgot;
			if (n > c->rlen - c->rpos)
				n = c->rlen - c->rpos;
			memcpy(asm_dest(c->cur_asm), c->rbuf + c->rpos, n);
			c->rpos += n;
			add_got(c, n, 2); /* into rbuf, then out */
		}
		if (c->cur_asm && c->pgot == c->cur.len && frame_end(c) < 0)
			return -1;
	}
	return 0;
}

/*
 * Scatter read of a large message in progress: the rest of the current
 * frame's payload, then the frames expected next (header into hdrs[],
 * payload of the sender's fragment size straight into place), so the
 * payload skips the copy out of rbuf.  A header that does not continue
 * the message as expected (another source, another length) is handled
 * normally and the bytes read after it are moved to rbuf and parsed, so
 * the guess never changes what is received.  The bytes after the first
 * payload are capped at RBUF_SIZE for that.  Returns the bytes read (> 0),
 * 0 at end of file, -1 with errno set, or -2 on a protocol error.
 */
#define SCATTER_MIN DIRECT_READ_MIN /* message bytes left to read this way */
#define SCATTER_IOV 256

static int can_scatter(const struct lp_conn *c)
{
	const struct lp_asm *a = c->cur_asm;
	/* (the tail of a large message too: whatever is left) */
	return c->rpos == c->rlen && a && !a->ctl && a->frag > 0 &&
	       a->h.total >= SCATTER_MIN;
}

static ssize_t scatter_read(struct lp_conn *c)
{
	struct lp_asm *a = c->cur_asm;
	struct iovec iov[SCATTER_IOV];
	uint8_t hdrs[SCATTER_IOV / 2][WIRE_HDR_SIZE];
	uint32_t flen[SCATTER_IOV / 2];
	uint64_t pos = a->got + (c->cur.len - c->pgot);
	size_t after = 0;
	int n = 0, nh = 0;

	iov[n].iov_base = asm_dest(a);
	iov[n++].iov_len = c->cur.len - c->pgot;
	while (pos < a->h.total && n + 2 <= SCATTER_IOV &&
	       after + WIRE_HDR_SIZE + a->frag <= RBUF_SIZE) {
		uint64_t left = a->h.total - pos;
		flen[nh] = left < a->frag ? (uint32_t)left : a->frag;
		iov[n].iov_base = hdrs[nh];
		iov[n++].iov_len = WIRE_HDR_SIZE;
		iov[n].iov_base = a->dst + pos;
		iov[n++].iov_len = flen[nh];
		pos += flen[nh];
		after += WIRE_HDR_SIZE + flen[nh++];
	}
	ssize_t r = readv(c->fd, iov, n);
	if (r <= 0)
		return r < 0 ? -1 : 0;

	size_t left = (size_t)r,
	       t = iov[0].iov_len < left ? iov[0].iov_len : left;
	add_got(c, t, 1);
	left -= t;
	if (c->pgot == c->cur.len && frame_end(c) < 0)
		return -2;
	for (int k = 0; k < nh && left > 0; k++) {
		size_t hb = left < WIRE_HDR_SIZE ? left : WIRE_HDR_SIZE;
		memcpy(c->hbuf, hdrs[k], hb);
		c->hgot = hb;
		left -= hb;
		if (hb < WIRE_HDR_SIZE)
			break; /* the rest of the header comes with the next
				  read */
		if (wire_hdr_decode(c->hbuf, &c->cur, WIRE_MAX_FRAG) < 0 ||
		    frame_begin(c) < 0)
			return -2;
		if (c->cur_asm != a || c->cur.len != flen[k]) {
			/* not the frame expected: parse what follows it */
			if (c->cur_asm && c->cur.len == 0 && frame_end(c) < 0)
				return -2;
			int i = 2 + 2 * k;
			c->rpos = c->rlen = 0;
			while (left > 0) {
				size_t m = iov[i].iov_len < left
						   ? iov[i].iov_len
						   : left;
				memcpy(c->rbuf + c->rlen, iov[i].iov_base, m);
				c->rlen += m;
				left -= m;
				i++;
			}
			return parse(c) < 0 ? -2 : r;
		}
		t = flen[k] < left ? flen[k] : left;
		add_got(c, t, 1);
		left -= t;
		if (c->pgot == c->cur.len && frame_end(c) < 0)
			return -2;
	}
	return r;
}

int lp_conn_input(struct lp_conn *c)
{
	size_t budget = READ_BUDGET;

	while (!c->dead && budget > 0) {
		ssize_t n;
		if (can_scatter(c)) {
			n = scatter_read(c);
			if (n == -2)
				goto bad;
			if (n > 0) {
				budget -=
					(size_t)n < budget ? (size_t)n : budget;
				continue;
			}
		} else if (c->rpos == c->rlen && c->cur_asm &&
			   !c->cur_asm->ctl && c->cur.len > c->pgot &&
			   c->cur_asm->h.total >= DIRECT_READ_MIN) {
			/* big remainder of a frame: read it in place */
			n = read(c->fd, asm_dest(c->cur_asm),
				 c->cur.len - c->pgot);
			if (n > 0) {
				add_got(c, (size_t)n, 1);
				budget -=
					(size_t)n < budget ? (size_t)n : budget;
				if (c->pgot == c->cur.len && frame_end(c) < 0)
					goto bad;
				continue;
			}
		} else {
			if (c->rpos == c->rlen)
				c->rpos = c->rlen = 0;
			/* After a large message, its successor's header alone:
			 * what follows it may go straight into place.  Else at
			 * most SMALL_READ: a large message behind small ones
			 * then has at most that much of it copied twice. */
			int hdr = c->big && !c->cur_asm && c->rlen == 0;
			size_t want = hdr ? WIRE_HDR_SIZE - c->hgot
					  : RBUF_SIZE - c->rlen;
			if (!hdr && want > SMALL_READ)
				want = SMALL_READ;
			n = read(c->fd, c->rbuf + c->rlen, want);
			if (n > 0) {
				c->rlen += (size_t)n;
				budget -=
					(size_t)n < budget ? (size_t)n : budget;
				if (parse(c) < 0)
					goto bad;
				if ((size_t)n < want)
					return c->dead ? -1 : 0; /* short read:
								    drained */
				continue;
			}
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		/* EOF or error */
		lp_conn_close(c);
		return -1;
	}
	return c->dead ? -1 : 0;
bad:
	if (!c->dead)
		lp_conn_close(c);
	return -1;
}
