/*
 * conn_test.c - message reassembly in conn.c, without a pvmd: frames
 * written with proto/wire.h into one end of a socketpair, read by an
 * lp_conn on the other end through the task's progress engine (poll.c),
 * each complete message checked by the connection's on_msg hook (the
 * observation point: header, buffer fields, every body byte).
 *
 * Covers FIRST/.../LAST frames into one message; frames of several
 * sources interleaved, as the pvmd forwards them; large messages read by
 * the scatter path with a frame it did not expect (another source, a
 * shorter or empty frame, a header cut by the read); large control frames
 * read in place; every frame the reader must refuse (the connection then
 * closes and only the messages before it arrive); a peer that closes in
 * the middle of a message (the partial buffers are freed: no buffer id
 * is left in use); a hook that fails or closes the connection itself; a
 * random interleaving of 1500 messages written in random pieces; and
 * what conn_out.c's lp_conn_send writes, read back.  Prints TAP.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lpvm.h"
#include "tran/conn.h"
#include "tran/tran.h"
#include "test/unit/rnd.h"
#include "test/unit/tap.h"

/* ---- the route table, which this test leaves out ----
 * (no transport with progress operations is set: poll.c polls the
 * sockets); lp_tran_fds asks for the pvmd's connection. */
struct lp_conn *lp_pvmd_conn(void)
{
	return NULL;
}
void lp_route_watch_fds(void)
{
}

#define ME 0x40001 /* dst of every frame */

/* Body byte `off` of message `id`. */
static uint8_t pat(uint32_t id, uint64_t off)
{
	return (uint8_t)(id * 131u + (uint32_t)off * 7u + (uint32_t)(off >> 9));
}

/* ---- what should arrive, and the hook that checks what does ---- */

struct expect {
	uint32_t id; /* also the tag */
	int32_t src;
	uint16_t enc;
	int ctrl;
	uint64_t total;
};

static struct {
	const struct expect *exp;
	int nexp;
	int got;	   /* messages that arrived */
	int bad;	   /* of them, not what was expected */
	int closed;	   /* on_close calls */
	int asms_left;	   /* at on_close: reassembly state still there */
	int live_at_close; /* buffer ids in use at on_close */
	int fail_at;	   /* the hook returns -1 on this message (1-based) */
	int close_at;	   /* the hook closes the connection on this one */
} R;

static int live_bufs(void)
{
	int n = 0;
	for (int id = 1; id < 1 << 16; id++)
		n += lp_buf_get(id) != NULL;
	return n;
}

static void complain(const char *what, uint32_t id)
{
	if (!R.bad)
		diag("message %d (id %u): %s", R.got, id, what);
	R.bad++;
}

static int on_msg(struct lp_conn *c, struct lp_inmsg *m)
{
	const struct expect *e = R.got < R.nexp ? &R.exp[R.got] : NULL;
	R.got++;
	if (!e) {
		complain("more messages than sent", (uint32_t)m->h.tag);
	} else if (m->h.src != e->src || m->h.tag != (int32_t)e->id ||
		   m->h.dst != ME || m->h.ctx != (int32_t)(e->id ^ 0x1234) ||
		   m->h.enc != e->enc || m->h.seq != e->id + 1 ||
		   m->h.wid != e->id * 3 || m->h.total != e->total) {
		complain("header fields differ", e->id);
	} else if (e->ctrl) {
		if (m->buf || !m->ctl || m->ctllen != e->total)
			complain("not a control message of that length", e->id);
		else
			for (uint64_t i = 0; i < e->total; i++)
				if (m->ctl[i] != pat(e->id, i)) {
					complain("control payload differs",
						 e->id);
					break;
				}
	} else {
		struct lp_buf *b = m->buf;
		if (!b || m->ctl || b->len != e->total || b->src != e->src ||
		    b->dst != ME || b->tag != (int)e->id ||
		    b->ctx != (int)(e->id ^ 0x1234) || b->seq != e->id + 1 ||
		    b->wid != (int)(e->id * 3) || b->enc != e->enc ||
		    !b->received || b->inqueue || b->rpos != 0)
			complain("buffer fields differ", e->id);
		else
			for (uint64_t i = 0; i < e->total; i++)
				if (b->data[i] != pat(e->id, i)) {
					diag("byte %llu of %llu differs",
					     (unsigned long long)i,
					     (unsigned long long)e->total);
					complain("body differs", e->id);
					break;
				}
	}
	lp_buf_free(m->buf);
	free(m->ctl);
	if (R.got == R.close_at)
		lp_conn_close(c);
	return R.got == R.fail_at ? -1 : 0;
}

static void on_close(struct lp_conn *c)
{
	R.closed++;
	R.asms_left = c->asms != NULL || c->cur_asm != NULL;
	R.live_at_close = live_bufs();
}

/* ---- the peer: a byte stream of frames ---- */

struct stream {
	uint8_t *p;
	size_t len, cap;
};

static void s_put(struct stream *s, const void *d, size_t n)
{
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 4096;
		while (cap < s->len + n)
			cap *= 2;
		if (!(s->p = realloc(s->p, cap)))
			abort();
		s->cap = cap;
	}
	memcpy(s->p + s->len, d, n);
	s->len += n;
}

/* One frame of message e: payload bytes [off, off + len) of its body. */
static void s_frame(struct stream *s, const struct expect *e, uint16_t flags,
		    uint64_t off, uint32_t len)
{
	struct wire_hdr h = {
		.len = len,
		.flags = (uint16_t)(flags | (e->ctrl ? WIRE_F_CTRL : 0)),
		.enc = e->enc,
		.dst = ME,
		.src = e->src,
		.tag = (int32_t)e->id,
		.ctx = (int32_t)(e->id ^ 0x1234),
		.seq = e->id + 1,
		.wid = e->id * 3,
		.total = (flags & WIRE_F_FIRST) ? e->total : 0,
	};
	uint8_t hb[WIRE_HDR_SIZE];
	wire_hdr_encode(&h, hb);
	s_put(s, hb, sizeof hb);
	uint8_t tmp[4096];
	for (uint32_t i = 0; i < len;) {
		uint32_t k =
			len - i < sizeof tmp ? len - i : (uint32_t)sizeof tmp;
		for (uint32_t j = 0; j < k; j++)
			tmp[j] = pat(e->id, off + i + j);
		s_put(s, tmp, k);
		i += k;
	}
}

/* A whole message in frames of `frag` bytes. */
static void s_msg(struct stream *s, const struct expect *e, uint32_t frag)
{
	uint64_t off = 0;
	do {
		uint64_t left = e->total - off;
		uint32_t len = left < frag ? (uint32_t)left : frag;
		uint16_t fl =
			(uint16_t)((off == 0 ? WIRE_F_FIRST : 0) |
				   (off + len == e->total ? WIRE_F_LAST : 0));
		s_frame(s, e, fl, off, len);
		off += len;
	} while (off < e->total);
}

/* A header alone (for frames the reader must refuse). */
static void s_hdr(struct stream *s, uint16_t flags, int32_t src, uint16_t enc,
		  uint32_t len, uint64_t total)
{
	struct wire_hdr h = {.len = len,
			     .flags = flags,
			     .enc = enc,
			     .dst = ME,
			     .src = src,
			     .total = total};
	uint8_t hb[WIRE_HDR_SIZE];
	wire_hdr_encode(&h, hb);
	s_put(s, hb, sizeof hb);
	for (uint32_t i = 0; i < len; i++)
		s_put(s, "z", 1);
}

/* ---- a connection under test ---- */

static int peer = -1; /* the writing end */

static struct lp_conn *open_conn(const struct expect *exp, int nexp)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
		abort();
	memset(&R, 0, sizeof R);
	R.exp = exp;
	R.nexp = nexp;
	peer = sv[1];
	struct lp_conn *c = lp_conn_new(sv[0], "test", on_msg, on_close, NULL);
	if (!c)
		abort();
	return c;
}

static void shut(struct lp_conn *c)
{
	if (!R.closed)
		lp_conn_close(c);
	if (peer >= 0)
		close(peer);
	peer = -1;
	lp_conn_reap();
}

/* Lets the connection read whatever is there (lp_progress until nothing
 * is ready: what a Unix socket's peer wrote is there at once); stops once
 * it has closed (the next lp_progress would free it). */
static void settle(void)
{
	static const struct timespec zero;
	int idle = 0;
	while (!R.closed && idle < 2)
		idle = lp_progress(&zero) > 0 ? 0 : idle + 1;
}

/* Writes n bytes as the peer, in pieces of at most `piece` bytes (any
 * size if 0), letting the connection read between them. */
static void feed(const uint8_t *p, size_t n, size_t piece)
{
	static const struct timespec zero;
	while (n > 0 && !R.closed) {
		size_t k = n;
		if (piece && k > piece)
			k = piece;
		ssize_t w = send(peer, p, k, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			p += w;
			n -= (size_t)w;
		} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
			break; /* the connection closed its end */
		}
		if (!R.closed)
			lp_progress(&zero);
	}
	settle();
}

static void feed_stream(const struct stream *s, size_t piece)
{
	feed(s->p, s->len, piece);
}

/* Did exactly the expected messages arrive, right? */
static int all_right(void)
{
	return R.got == R.nexp && !R.bad;
}

/* ---- tests ---- */

static void test_basic(void)
{
	static const struct expect exp[] = {
		{.id = 1, .src = 0x40005, .total = 100},
		{.id = 2, .src = 0x40005, .ctrl = 1, .total = 33},
		{.id = 3, .src = 0x40006, .enc = PvmDataRaw, .total = 0},
		{.id = 4,
		 .src = 0x40005,
		 .enc = PvmDataInPlace,
		 .total = 10000},
		{.id = 5,
		 .src = 0x40006,
		 .enc = PvmDataTrace,
		 .ctrl = 1,
		 .total = 0},
	};
	struct lp_conn *c = open_conn(exp, 5);
	struct stream s = {0};
	s_msg(&s, &exp[0], 4080);
	s_msg(&s, &exp[1], 4080);
	s_msg(&s, &exp[2], 4080);
	s_msg(&s, &exp[3], 4000); /* frames of 4000, 4000, 2000 */
	s_msg(&s, &exp[4], 4080);
	feed_stream(&s, 0);
	ok(all_right() && !R.closed,
	   "a one-frame message, a control message, empty ones, and three frames into one arrive whole (%d of 5)",
	   R.got);
	ok(live_bufs() == 0,
	   "no buffer id stays in use once the hook freed the messages");
	shut(c);
	free(s.p);

	/* every byte on its own: headers and payloads cut everywhere */
	c = open_conn(exp, 5);
	memset(&s, 0, sizeof s);
	for (int i = 0; i < 5; i++)
		s_msg(&s, &exp[i], 999);
	feed_stream(&s, 1);
	ok(all_right() && !R.closed, "the same written one byte at a time");
	shut(c);
	free(s.p);
}

/* Frames of two sources interleaved: A1 B1 A2 B2(LAST) A3(LAST). */
static void test_interleaved(void)
{
	static const struct expect exp[] = {
		{.id = 20,
		 .src = 0x80040000,
		 .total = 3000},			   /* B, first whole */
		{.id = 10, .src = 0x40007, .total = 3000}, /* A */
	};
	struct lp_conn *c = open_conn(exp, 2);
	struct stream s = {0};
	s_frame(&s, &exp[1], WIRE_F_FIRST, 0, 1000);
	s_frame(&s, &exp[0], WIRE_F_FIRST, 0, 1500);
	s_frame(&s, &exp[1], 0, 1000, 1000);
	s_frame(&s, &exp[0], WIRE_F_LAST, 1500, 1500);
	s_frame(&s, &exp[1], WIRE_F_LAST, 2000, 1000);
	feed_stream(&s, 0);
	ok(all_right() && !R.closed,
	   "frames of two sources interleaved: each message whole, in the order their last frames came");
	shut(c);
	free(s.p);

	/* a middle frame of length 0, and a last frame of length 0 */
	static const struct expect z[] = {
		{.id = 30, .src = 0x40008, .total = 2000}};
	c = open_conn(z, 1);
	memset(&s, 0, sizeof s);
	s_frame(&s, &z[0], WIRE_F_FIRST, 0, 1000);
	s_frame(&s, &z[0], 0, 1000, 0);
	s_frame(&s, &z[0], 0, 1000, 1000);
	s_frame(&s, &z[0], WIRE_F_LAST, 2000, 0);
	feed_stream(&s, 0);
	ok(all_right() && !R.closed, "empty middle and last frames are taken");
	shut(c);
	free(s.p);
}

/*
 * A large message whose first frame's header and a little payload are
 * read first, so that the rest is read by the scatter path (conn.c,
 * scatter_read), which guesses where the next headers are: `odd` is
 * written right after its first frame (another source's message, a
 * shorter frame of the same message...).
 */
#define BIG   (1u << 20)
#define BFRAG (64u << 10)

static void big_case(const char *what, const struct expect *exp, int nexp,
		     void (*odd)(struct stream *s, const struct expect *big))
{
	const struct expect *big = &exp[nexp - 1]; /* arrives last */
	struct lp_conn *c = open_conn(exp, nexp);
	struct stream s = {0};
	s_frame(&s, big, WIRE_F_FIRST, 0, BFRAG);
	size_t prime = WIRE_HDR_SIZE + 100;
	feed(s.p, prime, 0);
	int live = live_bufs();
	size_t mark = s.len;
	uint64_t off = BFRAG;
	if (odd)
		odd(&s, big);
	/* the odd part may have written some of the body */
	for (const uint8_t *q = s.p + mark; q < s.p + s.len;) {
		struct wire_hdr h;
		wire_hdr_decode(q, &h, UINT32_MAX);
		if (h.src == big->src)
			off += h.len;
		q += WIRE_HDR_SIZE + h.len;
	}
	while (off < big->total) {
		uint64_t left = big->total - off;
		uint32_t len = left < BFRAG ? (uint32_t)left : BFRAG;
		s_frame(&s, big, off + len == big->total ? WIRE_F_LAST : 0, off,
			len);
		off += len;
	}
	feed(s.p + prime, s.len - prime, 0);
	ok(live == 1 && all_right() && !R.closed && live_bufs() == 0, "%s",
	   what);
	shut(c);
	free(s.p);
}

static void odd_other_small(struct stream *s, const struct expect *big)
{
	(void)big;
	static const struct expect o = {.id = 41, .src = 0x40009, .total = 500};
	s_msg(s, &o, 4080);
}

static void odd_other_empty(struct stream *s, const struct expect *big)
{
	(void)big;
	static const struct expect o = {.id = 42, .src = 0x4000a, .total = 0};
	s_msg(s, &o, 4080);
}

static void odd_other_big(struct stream *s, const struct expect *big)
{
	(void)big;
	/* another large message starts, and is finished at once */
	static const struct expect o = {
		.id = 43, .src = 0x4000b, .total = 300000};
	s_msg(s, &o, 70000);
}

static void odd_short_frame(struct stream *s, const struct expect *big)
{
	s_frame(s, big, 0, BFRAG, 1000); /* shorter than the guess */
}

static void odd_empty_frame(struct stream *s, const struct expect *big)
{
	s_frame(s, big, 0, BFRAG, 0);
}

static void test_scatter(void)
{
	static const struct expect plain[] = {
		{.id = 50, .src = 0x40010, .total = BIG}};
	big_case(
		"a 1 MiB message in 64 KiB frames, its rest read by the scatter path",
		plain, 1, NULL);
	static const struct expect e1[] = {
		{.id = 41, .src = 0x40009, .total = 500},
		{.id = 51, .src = 0x40010, .total = BIG}};
	big_case(
		"... with another source's small message after its first frame",
		e1, 2, odd_other_small);
	static const struct expect e2[] = {
		{.id = 42, .src = 0x4000a, .total = 0},
		{.id = 52, .src = 0x40010, .total = BIG}};
	big_case("... with another source's empty message there", e2, 2,
		 odd_other_empty);
	static const struct expect e3[] = {
		{.id = 43, .src = 0x4000b, .total = 300000},
		{.id = 53, .src = 0x40010, .total = BIG}};
	big_case("... with another source's large message there", e3, 2,
		 odd_other_big);
	static const struct expect e4[] = {
		{.id = 54, .src = 0x40010, .total = BIG}};
	big_case("... with a frame of its own shorter than the others", e4, 1,
		 odd_short_frame);
	static const struct expect e5[] = {
		{.id = 55, .src = 0x40010, .total = BIG}};
	big_case("... with an empty frame of its own", e5, 1, odd_empty_frame);

	/* default fragment size: hundreds of frames per read */
	static const struct expect f[] = {
		{.id = 56, .src = 0x40011, .total = BIG + 12345}};
	struct lp_conn *c = open_conn(f, 1);
	struct stream s = {0};
	s_msg(&s, &f[0], 4080);
	feed(s.p, WIRE_HDR_SIZE + 10, 0);
	feed(s.p + WIRE_HDR_SIZE + 10, s.len - WIRE_HDR_SIZE - 10, 0);
	ok(all_right() && !R.closed,
	   "a 1 MiB message in 4080-byte frames (258 frames)");
	shut(c);

	/* a header cut by the end of a scatter read */
	c = open_conn(f, 1);
	feed(s.p, WIRE_HDR_SIZE + 10, 0);
	size_t cut = 2 * (WIRE_HDR_SIZE + 4080) + 17;
	feed(s.p + WIRE_HDR_SIZE + 10, cut - WIRE_HDR_SIZE - 10, 0);
	feed(s.p + cut, s.len - cut, 0);
	ok(all_right() && !R.closed,
	   "... with a read that ends 17 bytes into a header");
	shut(c);
	free(s.p);

	/* a large control frame: read in place */
	static const struct expect g[] = {
		{.id = 57, .src = 0x80040000, .ctrl = 1, .total = 3u << 20}};
	c = open_conn(g, 1);
	memset(&s, 0, sizeof s);
	s_msg(&s, &g[0], 3u << 20);
	feed(s.p, WIRE_HDR_SIZE + 10, 0);
	feed(s.p + WIRE_HDR_SIZE + 10, s.len - WIRE_HDR_SIZE - 10, 0);
	ok(all_right() && !R.closed, "a 3 MiB control frame arrives whole");
	shut(c);
	free(s.p);
}

/* ---- frames the reader refuses ---- */

/* Writes a good message, then `bad`, then another good one: only the
 * first arrives, the connection closes once, and no buffer stays behind.
 * With `mid_big`, `bad` comes in the middle of a large message, right
 * after a frame the reader is in (so the scatter path reads its header). */
static int refused(void (*bad)(struct stream *s), int mid_big)
{
	static const struct expect good[] = {
		{.id = 60, .src = 0x40020, .total = 200},
		{.id = 61, .src = 0x40020, .total = 200}};
	static const struct expect big = {
		.id = 62, .src = 0x40021, .total = BIG};
	struct lp_conn *c = open_conn(good, 1);
	struct stream s = {0};
	size_t prime = 0;
	s_msg(&s, &good[0], 4080);
	if (mid_big) {
		s_frame(&s, &big, WIRE_F_FIRST, 0, BFRAG);
		prime = s.len + WIRE_HDR_SIZE + 100;
		s_frame(&s, &big, 0, BFRAG, BFRAG);
	}
	bad(&s);
	s_msg(&s, &good[1], 4080);
	if (mid_big)
		s_frame(&s, &big, WIRE_F_LAST, 2 * BFRAG, BIG - 2 * BFRAG);
	feed(s.p, prime, 0);
	feed(s.p + prime, s.len - prime, 0);
	int r = R.got == 1 && !R.bad && R.closed == 1 && !R.asms_left &&
		R.live_at_close == 0;
	if (!r)
		diag("got %d, bad %d, closed %d, reassembly left %d, buffers %d",
		     R.got, R.bad, R.closed, R.asms_left, R.live_at_close);
	shut(c);
	free(s.p);
	return r;
}

static void bad_continuation(struct stream *s)
{
	s_hdr(s, 0, 0x40030, 0, 10, 0);
}
static void bad_last_alone(struct stream *s)
{
	s_hdr(s, WIRE_F_LAST, 0x40030, 0, 10, 0);
}
static void bad_two_firsts(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40031, 0, 10, 100);
	s_hdr(s, WIRE_F_FIRST, 0x40031, 0, 10, 100);
}
static void bad_ctrl_mid_message(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40031, 0, 10, 100);
	s_hdr(s, WIRE_F_FIRST | WIRE_F_LAST | WIRE_F_CTRL, 0x40031, 0, 10, 10);
}
static void bad_too_long(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40032, 0, 60, 100);
	s_hdr(s, WIRE_F_LAST, 0x40032, 0, 41, 0); /* 40 were left */
}
static void bad_last_short(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40032, 0, 60, 100);
	s_hdr(s, WIRE_F_LAST, 0x40032, 0, 39, 0);
}
static void bad_total_lt_len(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40033, 0, 60, 59);
}
static void bad_single_total(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST | WIRE_F_LAST, 0x40033, 0, 60, 61);
}
static void bad_flag(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST | WIRE_F_LAST | 0x10, 0x40033, 0, 0, 0);
}
static void bad_frag_len(struct stream *s)
{
	struct wire_hdr h = {.len = WIRE_MAX_FRAG + 1,
			     .flags = WIRE_F_FIRST | WIRE_F_LAST,
			     .dst = ME,
			     .src = 0x40034,
			     .total = WIRE_MAX_FRAG + 1};
	uint8_t hb[WIRE_HDR_SIZE];
	wire_hdr_encode(&h, hb);
	s_put(s, hb, sizeof hb); /* refused before any payload is read */
}
static void bad_enc(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST | WIRE_F_LAST, 0x40035, 99, 5, 5);
}
static void bad_huge_total(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST, 0x40036, 0, 5, (uint64_t)1 << 63);
}
static void bad_ctrl_not_single(struct stream *s)
{
	s_hdr(s, WIRE_F_FIRST | WIRE_F_CTRL, 0x40037, 0, 5, 10);
}
/* in the middle of the large message: more than it announced */
static void bad_big_overrun(struct stream *s)
{
	s_hdr(s, 0, 0x40021, 0, BIG - 2 * BFRAG + 1, 0);
}

/* the large message's next frame, as expected but LAST before the total */
static void bad_big_early_last(struct stream *s)
{
	s_hdr(s, WIRE_F_LAST, 0x40021, 0, BFRAG, 0);
}

static void test_refused(void)
{
	static const struct {
		void (*fn)(struct stream *);
		int mid_big;
		const char *what;
	} cases[] = {
		{bad_continuation, 0,
		 "a continuation frame with no message in progress"},
		{bad_last_alone, 0, "a LAST frame with no message in progress"},
		{bad_two_firsts, 0,
		 "a FIRST frame while that source has a message in progress"},
		{bad_ctrl_mid_message, 0,
		 "a control frame while its source has a message in progress"},
		{bad_too_long, 0,
		 "a frame longer than what its message has left"},
		{bad_last_short, 0, "a LAST frame before the announced total"},
		{bad_total_lt_len, 0,
		 "a first frame whose total is below its length"},
		{bad_single_total, 0,
		 "a single frame whose total differs from its length"},
		{bad_flag, 0, "an unknown flag"},
		{bad_frag_len, 0, "a frame over WIRE_MAX_FRAG"},
		{bad_enc, 0, "an unknown encoding"},
		{bad_huge_total, 0, "a total of 2^63 bytes"},
		{bad_ctrl_not_single, 0, "a control frame without LAST"},
		{bad_continuation, 1,
		 "a stray continuation read by the scatter path"},
		{bad_two_firsts, 1,
		 "two FIRST frames of another source read by the scatter path"},
		{bad_big_overrun, 1,
		 "a frame overrunning the large message, read by the scatter path"},
		{bad_enc, 1, "an unknown encoding read by the scatter path"},
		{bad_big_early_last, 1,
		 "a LAST frame before the total, read by the scatter path"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ok(refused(cases[i].fn, cases[i].mid_big),
		   "refused: %s (closed once, only the message before it arrived, nothing left)",
		   cases[i].what);
}

/* ---- the peer leaves in the middle ---- */

/* The peer closes its end: did the connection close once, with nothing
 * delivered and nothing left of what was in progress? */
static int peer_leaves(void)
{
	close(peer);
	peer = -1;
	settle();
	return R.closed == 1 && R.got == 0 && !R.asms_left &&
	       R.live_at_close == 0;
}

static void test_peer_closes(void)
{
	static const struct expect none[1];
	static const struct expect a = {
		.id = 70, .src = 0x40040, .total = 10000};
	static const struct expect b = {.id = 71, .src = 0x40041, .total = BIG};
	struct stream s = {0};

	struct lp_conn *c = open_conn(none, 0);
	s_frame(&s, &a, WIRE_F_FIRST, 0, 4000);
	s_frame(&s, &a, 0, 4000, 4000);
	s_put(&s, "partial", 7); /* and a piece of the next header */
	feed_stream(&s, 0);
	int live = live_bufs();
	ok(peer_leaves() && live == 1,
	   "the peer closes two frames into a message: closed, nothing delivered, its buffer freed (in use before: %d)",
	   live);
	shut(c);

	c = open_conn(none, 0);
	s.len = 0;
	s_frame(&s, &a, WIRE_F_FIRST, 0, 4000);
	s_frame(&s, &b, WIRE_F_FIRST, 0, BFRAG);
	s_frame(&s, &b, 0, BFRAG, BFRAG);
	s_frame(&s, &b, 0, 2 * BFRAG, 5000); /* cut inside a frame */
	feed(s.p, s.len - 2000, 0);
	live = live_bufs();
	ok(peer_leaves() && live == 2,
	   "two sources' messages in progress, one large, cut inside a frame: both buffers freed (in use before: %d)",
	   live);
	shut(c);

	static const struct expect g = {
		.id = 72, .src = 0x80040000, .ctrl = 1, .total = 2u << 20};
	c = open_conn(none, 0);
	s.len = 0;
	s_msg(&s, &g, 2u << 20);
	feed(s.p, s.len / 2, 0);
	ok(peer_leaves(),
	   "the peer closes inside a large control frame: closed, nothing delivered, nothing left");
	shut(c);
	free(s.p);
}

/* ---- the hook ends the connection ---- */

static void test_hook_ends(void)
{
	static const struct expect exp[] = {
		{.id = 80, .src = 0x40050, .total = 10},
		{.id = 81, .src = 0x40050, .total = 10},
		{.id = 82, .src = 0x40050, .total = 10}};
	struct stream s = {0};
	for (int i = 0; i < 3; i++)
		s_msg(&s, &exp[i], 4080);

	struct lp_conn *c = open_conn(exp, 3);
	R.fail_at = 1;
	feed_stream(&s, 0);
	ok(R.got == 1 && R.closed == 1 && !R.bad && R.live_at_close == 0,
	   "a hook that returns -1 closes the connection: the messages after it in the same read are not handed on");
	shut(c);

	c = open_conn(exp, 3);
	R.close_at = 2;
	feed_stream(&s, 0);
	ok(R.got == 2 && R.closed == 1 && !R.bad,
	   "a hook that closes the connection itself: nothing more is read from it");
	shut(c);
	free(s.p);

	/* ... on messages the scatter path meets while it reads a large
	 * one: another source's small message and empty message, and the
	 * large message itself, completed in the scatter path's first
	 * piece (its last frame, 200 KiB, was being read) */
	static const struct expect e[] = {
		{.id = 41, .src = 0x40009, .total = 500},
		{.id = 42, .src = 0x4000a, .total = 0},
		{.id = 83, .src = 0x40010, .total = BIG}};
	static const struct expect f[] = {
		{.id = 84, .src = 0x40010, .total = 200000}};
	for (int k = 0; k < 3; k++) {
		const struct expect *big = k < 2 ? &e[2] : &f[0];
		c = open_conn(k < 2 ? &e[k] : f, 1);
		if (k < 2)
			R.close_at = 1;
		else
			R.fail_at = 1;
		memset(&s, 0, sizeof s);
		s_frame(&s, big, WIRE_F_FIRST, 0, BFRAG);
		size_t prime = k < 2 ? WIRE_HDR_SIZE + 100
				     : s.len + WIRE_HDR_SIZE + 100;
		if (k < 2)
			s_msg(&s, &e[k], 4080);
		s_frame(&s, big, WIRE_F_LAST, BFRAG,
			(uint32_t)(big->total - BFRAG));
		if (k < 2)
			s_msg(&s, &e[1 - k], 4080); /* never read */
		feed(s.p, prime, 0);
		feed(s.p + prime, s.len - prime, 0);
		static const char *what[] = {
			"a hook closing the connection on a small message met by the scatter path: the large one in progress is freed",
			"... on an empty message met there",
			"a hook failing on a large message completed by the scatter path: closed, nothing left"};
		ok(R.got == 1 && R.closed == 1 && !R.bad &&
			   R.live_at_close == 0 && !R.asms_left,
		   "%s", what[k]);
		shut(c);
		free(s.p);
	}
}

/* ---- random interleavings ---- */

#define NSRC 6
#define NMSG 1500

static void test_random(void)
{
	static struct expect exp[NMSG];	 /* in the order they complete */
	static struct expect msgs[NMSG]; /* in the order they are made */
	struct src {
		int32_t tid;
		int cur;      /* message in progress (-1: none) */
		uint64_t off; /* bytes of it written */
		uint32_t frag;
		int irregular; /* frames of random lengths up to frag */
	} src[NSRC + 1];
	for (int i = 0; i <= NSRC; i++) {
		src[i].tid = i == NSRC ? (int32_t)0x80040000 : 0x40100 + i;
		src[i].cur = -1;
	}
	int made = 0, done = 0;
	struct stream s = {0};
	uint64_t bytes = 0;
	while (done < NMSG) {
		int k = (int)(rnd() % (NSRC + 1));
		struct src *x = &src[k];
		if (x->cur < 0) {
			if (made == NMSG)
				continue;
			struct expect *e = &msgs[made];
			e->id = 1000 + (uint32_t)made;
			e->src = x->tid;
			e->ctrl = k == NSRC; /* the pvmd's: control messages */
			uint32_t r = rnd() % 100;
			e->total = r < 40   ? rnd() % 64
				   : r < 75 ? rnd() % 5000
				   : r < 95 ? rnd() % 70000
					    : 65536 + rnd() % 400000;
			e->enc = e->ctrl ? 0 : (uint16_t)(rnd() % 3);
			static const uint32_t frags[] = {
				1, 7, 100, 4080, 4080, 65536, 1u << 20};
			x->frag = e->ctrl ? (uint32_t)e->total + 1
					  : frags[rnd() % 7];
			if (x->frag < e->total / 500)
				x->frag = (uint32_t)(e->total / 500);
			x->irregular = !e->ctrl && rnd() % 4 == 0;
			x->cur = made++;
			x->off = 0;
			bytes += e->total;
		}
		struct expect *e = &msgs[x->cur];
		uint64_t left = e->total - x->off;
		uint32_t len = left < x->frag ? (uint32_t)left : x->frag;
		if (x->irregular && len > 0)
			len = 1 + rnd() % len; /* 0..len in effect below */
		if (x->irregular && rnd() % 8 == 0)
			len = 0;
		uint16_t fl = (uint16_t)((x->off == 0 ? WIRE_F_FIRST : 0) |
					 (x->off + len == e->total ? WIRE_F_LAST
								   : 0));
		s_frame(&s, e, fl, x->off, len);
		x->off += len;
		if (fl & WIRE_F_LAST) {
			exp[done++] = *e;
			x->cur = -1;
		}
	}
	struct lp_conn *c = open_conn(exp, NMSG);
	/* pieces of random size: many cut headers, many whole frames */
	size_t pos = 0;
	while (pos < s.len && !R.closed) {
		uint32_t r = rnd() % 10;
		size_t piece = r < 2   ? 1 + rnd() % 50
			       : r < 5 ? 1 + rnd() % 5000
				       : 1 + rnd() % 300000;
		if (piece > s.len - pos)
			piece = s.len - pos;
		feed(s.p + pos, piece, 0);
		pos += piece;
	}
	ok(all_right() && !R.closed,
	   "%d messages (%llu body bytes, %zu on the wire) from %d sources and the pvmd, frames interleaved at random, written in random pieces: all whole, in order (%d arrived, %d wrong)",
	   NMSG, (unsigned long long)bytes, s.len, NSRC, R.got, R.bad);
	ok(live_bufs() == 0, "no buffer id stays in use");
	shut(c);
	free(s.p);
}

/* ---- what lp_conn_send writes ---- */

static int w_on_msg(struct lp_conn *c, struct lp_inmsg *m)
{
	(void)c;
	(void)m;
	return -1; /* the sending end never receives */
}

static void test_conn_send(void)
{
	enum { N = 300 };
	static struct expect exp[N];
	struct lp_conn *r = open_conn(exp, N);
	struct lp_conn *w = lp_conn_new(peer, "peer", w_on_msg, NULL, NULL);
	peer = -1; /* w closes it */
	size_t maxlen = 3u << 20;
	uint8_t *body = malloc(maxlen);
	int sent = 0, bad = 0;
	uint64_t bytes = 0;
	static const struct timespec zero;
	for (int i = 0; i < N; i++) {
		struct expect *e = &exp[i];
		e->id = 5000 + (uint32_t)i;
		e->src = 0x40200 + i % 3;
		e->ctrl = i % 7 == 0;
		uint32_t x = rnd() % 100;
		e->total = x < 50   ? rnd() % 3000
			   : x < 90 ? rnd() % 200000
				    : rnd() % maxlen;
		e->enc = e->ctrl ? 0 : PvmDataRaw;
		for (uint64_t k = 0; k < e->total; k++)
			body[k] = pat(e->id, k);
		/* the body in up to three segments */
		struct lp_seg seg[3];
		uint64_t c1 = e->total ? rnd() % (e->total + 1) : 0;
		uint64_t c2 =
			c1 + (e->total - c1 ? rnd() % (e->total - c1 + 1) : 0);
		seg[0] = (struct lp_seg){body, (size_t)c1};
		seg[1] = (struct lp_seg){body + c1, (size_t)(c2 - c1)};
		seg[2] = (struct lp_seg){body + c2, (size_t)(e->total - c2)};
		static const uint32_t frags[] = {4080, 65536, 1000, 1u << 20};
		struct lp_omsg m = {
			.h = {.enc = e->enc,
			      .dst = ME,
			      .src = e->src,
			      .tag = (int32_t)e->id,
			      .ctx = (int32_t)(e->id ^ 0x1234),
			      .seq = e->id + 1,
			      .wid = e->id * 3},
			.seg = seg,
			.nseg = 3,
			.total = e->total,
			.frag = e->ctrl ? (uint32_t)e->total + 1
					: frags[rnd() % 4],
			.ctrl = e->ctrl,
		};
		bad += lp_conn_send(w, &m) != 0;
		sent++;
		bytes += e->total;
		memset(body, 0xee,
		       (size_t)e->total); /* the caller's memory is free */
		lp_progress(&zero);
	}
	while (lp_conn_pending(w) && !R.closed)
		lp_progress(&zero);
	settle();
	ok(!bad && all_right() && !R.closed,
	   "%d messages (%llu bytes, 1-3 segments, various fragment sizes) sent with lp_conn_send arrive whole, in order (%d arrived, %d wrong)",
	   sent, (unsigned long long)bytes, R.got, R.bad);
	lp_conn_close(w);
	shut(r);
	free(body);
}

int main(void)
{
	rnd_seed(1812433253u);
	alarm(60);
	lp_autoerr = 0;
	test_basic();
	test_interleaved();
	test_scatter();
	test_refused();
	test_peer_closes();
	test_hook_ends();
	test_random();
	test_conn_send();
	return tap_done();
}
