/*
 * wire_test.c - the frame header codec and the payload reader/writer of
 * wire.c: fixed vectors worked out by hand from wire.h's layout, round
 * trips of every header field, every rule wire_hdr_decode checks (the
 * header has no magic or version word: the version is checked in
 * TM_CONNECT), the writer's size limit and sticky error, and the reader
 * on every truncation of a valid payload, with the payload ending at a
 * page that may not be read (a read past the end is a crash, not a
 * silent pass).  Prints TAP.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proto/wire.h"
#include "test/unit/rnd.h"
#include "test/unit/tap.h"

static int same_hdr(const struct wire_hdr *a, const struct wire_hdr *b)
{
	return a->len == b->len && a->flags == b->flags && a->enc == b->enc &&
	       a->dst == b->dst && a->src == b->src && a->tag == b->tag &&
	       a->ctx == b->ctx && a->seq == b->seq && a->wid == b->wid &&
	       a->total == b->total;
}

/* Whether decoding h's encoding accepts it (maxlen as given). */
static int accepts(const struct wire_hdr *h, uint32_t maxlen)
{
	uint8_t b[WIRE_HDR_SIZE];
	struct wire_hdr d;
	wire_hdr_encode(h, b);
	return wire_hdr_decode(b, &d, maxlen) == 0;
}

/* ---- the header ---- */

static void test_hdr_vectors(void)
{
	/* every field a different value, each byte worked out by hand */
	const struct wire_hdr h = {
		.len = 0x10,
		.flags = WIRE_F_FIRST | WIRE_F_LAST,
		.enc = 0x0102,
		.dst = 0x00040001,
		.src = -2,
		.tag = 0x7fffffff,
		.ctx = 0x0007fffc,
		.seq = 0x12345678,
		.wid = 0x9abcdef0,
		.total = 0x10,
	};
	static const uint8_t want[WIRE_HDR_SIZE] = {
		0x00, 0x00, 0x00, 0x10, /* len */
		0x00, 0x03,		/* flags FIRST|LAST */
		0x01, 0x02,		/* enc */
		0x00, 0x04, 0x00, 0x01, /* dst */
		0xff, 0xff, 0xff, 0xfe, /* src -2 */
		0x7f, 0xff, 0xff, 0xff, /* tag */
		0x00, 0x07, 0xff, 0xfc, /* ctx */
		0x12, 0x34, 0x56, 0x78, /* seq */
		0x9a, 0xbc, 0xde, 0xf0, /* wid */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, /* total */
	};
	uint8_t b[WIRE_HDR_SIZE];
	memset(b, 0xa5, sizeof b);
	wire_hdr_encode(&h, b);
	ok(memcmp(b, want, sizeof want) == 0,
	   "a header encodes to the hand-computed 40 bytes, big-endian");
	struct wire_hdr d;
	ok(wire_hdr_decode(want, &d, WIRE_MAX_FRAG) == 0 && same_hdr(&d, &h),
	   "the hand-computed bytes decode to the same fields");

	/* a first frame of a message over 4 GiB: total's upper half counts */
	static const uint8_t big[WIRE_HDR_SIZE] = {
		0x00, 0xff, 0xff, 0xf0, /* len 16 MiB - 16 */
		0x00, 0x01,		/* FIRST */
		0x00, 0x00,		/* enc 0 */
		0x80, 0x00, 0x00, 0x00, /* dst: the daemon bit */
		0x40, 0x00, 0x00, 0x05, /* src */
		0x80, 0x00, 0x00, 0x00, /* tag INT32_MIN */
		0xff, 0xff, 0xff, 0xff, /* ctx -1 */
		0x00, 0x00, 0x00, 0x00, /* seq 0 */
		0xff, 0xff, 0xff, 0xff, /* wid */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* total */
	};
	ok(wire_hdr_decode(big, &d, WIRE_MAX_FRAG) == 0 && d.len == 0xfffff0 &&
		   d.flags == WIRE_F_FIRST && d.enc == 0 &&
		   d.dst == WIRE_TID_PVMD_SRC && d.src == 0x40000005 &&
		   d.tag == INT32_MIN && d.ctx == -1 && d.seq == 0 &&
		   d.wid == 0xffffffffu && d.total == 0x0123456789abcdefull,
	   "a first frame with a 64-bit total and extreme field values decodes");
	wire_hdr_encode(&d, b);
	ok(memcmp(b, big, sizeof big) == 0,
	   "... and encodes back to the same bytes");
}

/* Each field lands in its own bytes: setting one field to all ones in an
 * all-zero header changes exactly that field's byte range. */
static void test_hdr_fields(void)
{
	struct field {
		const char *name;
		size_t off, size;
	} f[] = {
		{"len", 0, 4},	  {"flags", 4, 2}, {"enc", 6, 2},
		{"dst", 8, 4},	  {"src", 12, 4},  {"tag", 16, 4},
		{"ctx", 20, 4},	  {"seq", 24, 4},  {"wid", 28, 4},
		{"total", 32, 8},
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
		struct wire_hdr h;
		memset(&h, 0, sizeof h);
		switch (i) {
		case 0:
			h.len = UINT32_MAX;
			break;
		case 1:
			h.flags = UINT16_MAX;
			break;
		case 2:
			h.enc = UINT16_MAX;
			break;
		case 3:
			h.dst = -1;
			break;
		case 4:
			h.src = -1;
			break;
		case 5:
			h.tag = -1;
			break;
		case 6:
			h.ctx = -1;
			break;
		case 7:
			h.seq = UINT32_MAX;
			break;
		case 8:
			h.wid = UINT32_MAX;
			break;
		default:
			h.total = UINT64_MAX;
			break;
		}
		uint8_t b[WIRE_HDR_SIZE];
		wire_hdr_encode(&h, b);
		for (size_t k = 0; k < WIRE_HDR_SIZE; k++) {
			int in = k >= f[i].off && k < f[i].off + f[i].size;
			if (b[k] != (in ? 0xff : 0x00)) {
				bad++;
				diag("field %s: byte %zu is %02x", f[i].name, k,
				     b[k]);
			}
		}
	}
	ok(!bad,
	   "every header field is encoded at its own offset, nowhere else");

	/* random values of every field, with flag sets decode accepts */
	int rt = 0;
	for (int n = 0; n < 20000; n++) {
		struct wire_hdr h = {
			.len = rnd() % (WIRE_MAX_CTRL + 1),
			.enc = (uint16_t)rnd(),
			.dst = (int32_t)rnd(),
			.src = (int32_t)rnd(),
			.tag = (int32_t)rnd(),
			.ctx = (int32_t)rnd(),
			.seq = rnd(),
			.wid = rnd(),
		};
		static const uint16_t fl[] = {
			0,
			WIRE_F_FIRST,
			WIRE_F_LAST,
			WIRE_F_FIRST | WIRE_F_LAST,
			WIRE_F_CTRL | WIRE_F_FIRST | WIRE_F_LAST,
			WIRE_F_CTRL | WIRE_F_REPLY | WIRE_F_FIRST | WIRE_F_LAST,
		};
		h.flags = fl[rnd() % 6];
		uint64_t r64 = (uint64_t)rnd() << 32 | rnd();
		if ((h.flags & (WIRE_F_FIRST | WIRE_F_LAST)) ==
		    (WIRE_F_FIRST | WIRE_F_LAST))
			h.total = h.len;
		else if (h.flags & WIRE_F_FIRST)
			h.total = h.len + r64 % ((uint64_t)1 << 40);
		else
			h.total = r64; /* not looked at */
		uint8_t b[WIRE_HDR_SIZE];
		struct wire_hdr d;
		memset(&d, 0x5a, sizeof d);
		wire_hdr_encode(&h, b);
		if (wire_hdr_decode(b, &d, WIRE_MAX_FRAG) != 0 ||
		    !same_hdr(&d, &h)) {
			if (!rt)
				diag("first failed round trip: flags %#x len %u",
				     h.flags, h.len);
			rt++;
		}
	}
	ok(!rt,
	   "20000 random valid headers round-trip through encode/decode (%d failed)",
	   rt);
}

static void test_hdr_rejects(void)
{
	const struct wire_hdr base = {
		.len = 100, .flags = WIRE_F_FIRST | WIRE_F_LAST, .total = 100};
	struct wire_hdr h;

	ok(accepts(&base, WIRE_MAX_FRAG),
	   "a plain one-frame message is accepted");

	int bad = 0;
	for (unsigned bit = 0x10; bit <= 0x8000; bit <<= 1) {
		h = base;
		h.flags |= (uint16_t)bit;
		bad += accepts(&h, WIRE_MAX_FRAG);
	}
	ok(!bad, "each unknown flag bit (0x10..0x8000) is rejected");

	h = base;
	h.flags |= WIRE_F_REPLY;
	ok(!accepts(&h, WIRE_MAX_FRAG), "REPLY without CTRL is rejected");
	h.flags |= WIRE_F_CTRL;
	ok(accepts(&h, WIRE_MAX_FRAG), "REPLY with CTRL is accepted");

	h = base;
	h.len = h.total = 1000;
	ok(accepts(&h, 1000) && !accepts(&h, 999),
	   "len == maxlen is accepted, len == maxlen + 1 rejected");
	h.len = h.total = WIRE_MAX_FRAG;
	int maxfrag = accepts(&h, WIRE_MAX_FRAG);
	h.len = h.total = WIRE_MAX_FRAG + 1;
	ok(maxfrag && !accepts(&h, WIRE_MAX_FRAG),
	   "a frame of WIRE_MAX_FRAG bytes is accepted, one byte more rejected");
	h.len = h.total = UINT32_MAX;
	ok(!accepts(&h, WIRE_MAX_FRAG) && accepts(&h, UINT32_MAX),
	   "len 0xffffffff is refused under WIRE_MAX_FRAG, and only the maxlen limits it");

	static const uint16_t noboth[] = {WIRE_F_CTRL,
					  WIRE_F_CTRL | WIRE_F_FIRST,
					  WIRE_F_CTRL | WIRE_F_LAST};
	bad = 0;
	for (int i = 0; i < 3; i++) {
		h = base;
		h.flags = noboth[i];
		bad += accepts(&h, WIRE_MAX_FRAG);
	}
	ok(!bad, "a control frame without both FIRST and LAST is rejected");

	h = base;
	h.flags = WIRE_F_CTRL | WIRE_F_FIRST | WIRE_F_LAST;
	h.len = h.total = WIRE_MAX_CTRL;
	int at = accepts(&h, WIRE_MAX_FRAG);
	h.len = h.total = WIRE_MAX_CTRL + 1;
	ok(at && !accepts(&h, WIRE_MAX_FRAG),
	   "a control frame of WIRE_MAX_CTRL bytes is accepted, one more rejected under a larger maxlen");

	h = base;
	h.flags = WIRE_F_FIRST;
	h.total = h.len - 1;
	int lt = accepts(&h, WIRE_MAX_FRAG);
	h.total = h.len;
	int eq = accepts(&h, WIRE_MAX_FRAG);
	h.total = UINT64_MAX;
	int gt = accepts(&h, WIRE_MAX_FRAG);
	ok(!lt && eq && gt,
	   "a first frame: total < len rejected, total == len and total 2^64-1 accepted");

	h = base;
	h.total = h.len + 1;
	int more = accepts(&h, WIRE_MAX_FRAG);
	h.total = h.len - 1;
	int less = accepts(&h, WIRE_MAX_FRAG);
	h.len = 0;
	h.total = (uint64_t)1 << 32; /* equal in the low 32 bits */
	int hi = accepts(&h, WIRE_MAX_FRAG);
	ok(!more && !less && !hi,
	   "a single-frame message (FIRST|LAST) needs total == len, all 64 bits");

	h = base;
	h.flags = 0;
	h.total = 0;
	int mid = accepts(&h, WIRE_MAX_FRAG);
	h.flags = WIRE_F_LAST;
	h.total = 12345;
	ok(mid && accepts(&h, WIRE_MAX_FRAG),
	   "middle and last frames are accepted whatever their total (only the first carries it)");
}

/* ---- the writer ---- */

static int wr_is(const struct wire_wr *w, const void *want, size_t n)
{
	return !w->err && w->len == n && memcmp(w->buf, want, n) == 0;
}

static void test_writer_vectors(void)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, -1);
	wire_wr_i32(&w, 0x01020304);
	wire_wr_i32(&w, INT32_MIN);
	wire_wr_u64(&w, 0x0102030405060708ull);
	static const uint8_t ints[] = {
		0xff, 0xff, 0xff, 0xff, 0x01, 0x02, 0x03, 0x04, 0x80, 0x00,
		0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
	};
	ok(wr_is(&w, ints, sizeof ints), "i32 and u64 are written big-endian");
	wire_wr_free(&w);

	wire_wr_init(&w);
	wire_wr_bytes(&w, "a\0c", 3);
	wire_wr_str(&w, "hi");
	wire_wr_str(&w, "");
	wire_wr_str(&w, NULL);
	wire_wr_bytes(&w, NULL, 0);
	static const uint8_t strs[] = {
		0, 0, 0, 3, 'a', 0,   'c', /* bytes: any byte, no terminator */
		0, 0, 0, 2, 'h', 'i',	   /* str: no NUL on the wire */
		0, 0, 0, 0,		   /* "" */
		0, 0, 0, 0,		   /* NULL writes "" */
		0, 0, 0, 0,		   /* no bytes */
	};
	ok(wr_is(&w, strs, sizeof strs),
	   "bytes and str: a u32 length then the bytes, no terminator, no padding");
	wire_wr_free(&w);

	wire_wr_init(&w);
	wire_wr_xdr_str(&w, "");
	wire_wr_xdr_str(&w, "ab");
	wire_wr_xdr_str(&w, "abc");
	wire_wr_xdr_str(&w, "abcd");
	static const uint8_t xdr[] = {
		0,   0,	  0, 1, 0,   0,	  0,   0,   0,	 0,   0,   3,
		'a', 'b', 0, 0, 0,   0,	  0,   4,   'a', 'b', 'c', 0,
		0,   0,	  0, 5, 'a', 'b', 'c', 'd', 0,	 0,   0,   0,
	};
	ok(wr_is(&w, xdr, sizeof xdr),
	   "xdr_str: length with the NUL, the NUL, zero padding to 4 bytes");
	wire_wr_free(&w);
	ok(w.buf == NULL && w.len == 0 && w.cap == 0 && w.err == 0,
	   "wire_wr_free leaves an empty writer");
}

static void test_writer_limits(void)
{
	struct wire_wr w;
	uint8_t *big = calloc(1, WIRE_MAX_CTRL);
	if (!big) {
		ok(0, "no memory for the large payload");
		return;
	}
	for (size_t i = 0; i < WIRE_MAX_CTRL; i++)
		big[i] = (uint8_t)(i * 7 + (i >> 13));

	/* the largest bytes field: it and its length fill WIRE_MAX_CTRL */
	wire_wr_init(&w);
	wire_wr_bytes(&w, big, WIRE_MAX_CTRL - 4);
	int fits = !w.err && w.len == WIRE_MAX_CTRL;
	struct wire_rd r;
	wire_rd_init(&r, w.buf, w.len);
	size_t n;
	const uint8_t *p = wire_rd_bytes(&r, &n);
	ok(fits && p && !r.err && r.left == 0 && n == WIRE_MAX_CTRL - 4 &&
		   memcmp(p, big, n) == 0,
	   "a payload of exactly WIRE_MAX_CTRL bytes is written and read back whole");
	wire_wr_i32(&w, 1);
	int sticky = w.err && w.len == WIRE_MAX_CTRL;
	wire_wr_u64(&w, 1);
	wire_wr_str(&w, "");
	ok(sticky && w.err && w.len == WIRE_MAX_CTRL,
	   "one more i32 sets the sticky error; later writes leave the payload alone");
	wire_wr_free(&w);

	wire_wr_init(&w);
	wire_wr_bytes(&w, big, WIRE_MAX_CTRL - 3);
	ok(w.err && w.len == 0,
	   "a bytes field one byte over the limit sets err, writes nothing");
	wire_wr_i32(&w, 5);
	ok(w.err && w.len == 0, "... and a later i32 is ignored");
	wire_wr_free(&w);

	wire_wr_init(&w);
	wire_wr_i32(&w, 5);
	wire_wr_bytes(&w, big, SIZE_MAX); /* 4 + n would wrap around */
	ok(w.err && w.len == 4, "a length of SIZE_MAX is refused, not wrapped");
	wire_wr_free(&w);

	/* xdr_str: 4 + the string, its NUL and padding to 4 bytes */
	memset(big, 'x', WIRE_MAX_CTRL);
	big[WIRE_MAX_CTRL - 1] = 0;
	wire_wr_init(&w);
	wire_wr_xdr_str(&w, (const char *)big + 4); /* strlen MAX_CTRL - 5 */
	int xfit = !w.err && w.len == WIRE_MAX_CTRL;
	wire_wr_free(&w);
	wire_wr_init(&w);
	wire_wr_xdr_str(&w, (const char *)big + 3); /* strlen MAX_CTRL - 4 */
	ok(xfit && w.err && w.len == 0,
	   "xdr_str: the longest string that fits (WIRE_MAX_CTRL - 5 bytes) is written, one byte more sets err");
	wire_wr_free(&w);
	free(big);
}

/* ---- the reader ---- */

/* A payload of every kind of field, and a reader of it that says whether
 * every value came back. */
struct sample {
	int32_t a;
	uint64_t b;
	uint8_t bytes[37];
	char str[20];
	char xs[11];
	int32_t count;
};

static void sample_write(struct wire_wr *w, const struct sample *s)
{
	wire_wr_i32(w, s->a);
	wire_wr_u64(w, s->b);
	wire_wr_bytes(w, s->bytes, sizeof s->bytes);
	wire_wr_str(w, s->str);
	wire_wr_xdr_str(w, s->xs);
	wire_wr_i32(w, s->count); /* count, then that many i32 */
	for (int32_t i = 0; i < s->count; i++)
		wire_wr_i32(w, i * 3);
}

/* Reads a sample; returns 1 if every value matched and no error. */
static int sample_read(struct wire_rd *r, const struct sample *s)
{
	int good = 1;
	good &= wire_rd_i32(r) == s->a;
	good &= wire_rd_u64(r) == s->b;
	size_t n;
	const uint8_t *p = wire_rd_bytes(r, &n);
	good &= p && n == sizeof s->bytes && memcmp(p, s->bytes, n) == 0;
	char *str = wire_rd_strdup(r);
	good &= str && strcmp(str, s->str) == 0;
	free(str);
	char xs[sizeof s->xs];
	good &= wire_rd_xdr_str(r, xs, sizeof xs) == 0 &&
		strcmp(xs, s->xs) == 0;
	int32_t c = wire_rd_count(r, 4);
	good &= c == s->count;
	for (int32_t i = 0; i < c; i++)
		good &= wire_rd_i32(r) == i * 3;
	return good && !r->err && r->left == 0;
}

/* n bytes at the very end of a readable page, with a page that may not
 * be read right after them. */
static uint8_t *guard_base;
static size_t guard_page;

static uint8_t *guarded(const void *src, size_t n)
{
	if (!guard_base) {
		guard_page = (size_t)sysconf(_SC_PAGESIZE);
		guard_base = mmap(NULL, 2 * guard_page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (guard_base == MAP_FAILED ||
		    mprotect(guard_base + guard_page, guard_page, PROT_NONE) <
			    0)
			abort();
	}
	uint8_t *p = guard_base + guard_page - n;
	if (n)
		memcpy(p, src, n);
	return p;
}

static void test_reader_truncated(void)
{
	struct sample s = {.a = -7,
			   .b = 0xfedcba9876543210ull,
			   .str = "hello, world",
			   .xs = "pvm3",
			   .count = 5};
	for (size_t i = 0; i < sizeof s.bytes; i++)
		s.bytes[i] = (uint8_t)(255 - i);
	struct wire_wr w;
	wire_wr_init(&w);
	sample_write(&w, &s);

	struct wire_rd r;
	wire_rd_init(&r, guarded(w.buf, w.len), w.len);
	ok(!w.err && sample_read(&r, &s),
	   "every kind of field reads back what was written (%zu bytes)",
	   w.len);

	int bad = 0;
	for (size_t n = 0; n < w.len; n++) {
		wire_rd_init(&r, guarded(w.buf, n), n);
		if (sample_read(&r, &s) || !r.err) {
			bad++;
			diag("payload cut to %zu bytes: err %d", n, r.err);
		}
	}
	ok(!bad,
	   "cut at each of its %zu lengths, the payload reads with err set, never past the end",
	   w.len);
	wire_wr_free(&w);

	/* sticky: after a failed u64, an i32 that would fit fails too */
	static const uint8_t six[6] = {0, 0, 0, 9, 1, 2};
	wire_rd_init(&r, guarded(six, 6), 6);
	uint64_t v = wire_rd_u64(&r);
	int32_t x = wire_rd_i32(&r);
	ok(v == 0 && x == 0 && r.err && r.left == 6,
	   "a read past the end returns 0 and the error sticks: a later read that would fit fails too");

	size_t n = 1;
	wire_rd_init(&r, guarded(six, 6), 6);
	ok(wire_rd_bytes(&r, &n) == NULL && n == 0 && r.err,
	   "bytes whose length (9) exceeds what is left: NULL, length 0, err");
	static const uint8_t huge[8] = {0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4};
	wire_rd_init(&r, guarded(huge, 8), 8);
	ok(wire_rd_bytes(&r, &n) == NULL && r.err,
	   "a length of 0xffffffff is rejected");
	ok(wire_rd_strdup(&r) == NULL && r.err,
	   "... and a strdup after it returns NULL");
}

static void test_reader_strings(void)
{
	struct wire_rd r;
	static const uint8_t empty[4] = {0, 0, 0, 0};
	wire_rd_init(&r, guarded(empty, 4), 4);
	char *s = wire_rd_strdup(&r);
	ok(s && s[0] == 0 && !r.err && r.left == 0,
	   "strdup of an empty string gives \"\"");
	free(s);

	static const uint8_t nul_in[7] = {0, 0, 0, 3, 'a', 0, 'c'};
	wire_rd_init(&r, guarded(nul_in, 7), 7);
	ok(wire_rd_strdup(&r) == NULL && r.err,
	   "strdup rejects a NUL inside the string");
	static const uint8_t nul_end[7] = {0, 0, 0, 3, 'a', 'b', 0};
	wire_rd_init(&r, guarded(nul_end, 7), 7);
	ok(wire_rd_strdup(&r) == NULL && r.err,
	   "strdup rejects a string sent with its NUL (str is sent without)");
	wire_rd_init(&r, guarded(nul_in, 7), 7);
	size_t n;
	const uint8_t *p = wire_rd_bytes(&r, &n);
	ok(p && n == 3 && p[1] == 0 && !r.err,
	   "bytes takes NULs as any other byte");

	char out[8];
	static const uint8_t x_ok[8] = {0, 0, 0, 3, 'a', 'b', 0, 0};
	wire_rd_init(&r, guarded(x_ok, 8), 8);
	ok(wire_rd_xdr_str(&r, out, 3) == 0 && strcmp(out, "ab") == 0 &&
		   r.left == 0 && !r.err,
	   "xdr_str reads a string that exactly fits max (3 with the NUL), padding skipped");
	wire_rd_init(&r, guarded(x_ok, 8), 8);
	ok(wire_rd_xdr_str(&r, out, 2) < 0 && r.err,
	   "xdr_str longer than max is rejected");

	static const uint8_t x_zero[8] = {0, 0, 0, 0, 0, 0, 0, 0};
	wire_rd_init(&r, guarded(x_zero, 8), 8);
	ok(wire_rd_xdr_str(&r, out, 8) < 0 && r.err,
	   "xdr_str of length 0 (no NUL) is rejected");
	static const uint8_t x_nonul[8] = {0, 0, 0, 3, 'a', 'b', 'c', 0};
	wire_rd_init(&r, guarded(x_nonul, 8), 8);
	ok(wire_rd_xdr_str(&r, out, 8) < 0 && r.err,
	   "xdr_str whose last byte is not NUL is rejected");
	static const uint8_t x_nulin[8] = {0, 0, 0, 3, 'a', 0, 0, 0};
	wire_rd_init(&r, guarded(x_nulin, 8), 8);
	ok(wire_rd_xdr_str(&r, out, 8) < 0 && r.err,
	   "xdr_str with a NUL inside is rejected");
	static const uint8_t x_nopad[7] = {0, 0, 0, 3, 'a', 'b', 0};
	wire_rd_init(&r, guarded(x_nopad, 7), 7);
	ok(wire_rd_xdr_str(&r, out, 8) < 0 && r.err,
	   "xdr_str whose padding is missing at the end is rejected");
	static const uint8_t x_neg[8] = {0x80, 0, 0, 0, 'a', 'b', 0, 0};
	wire_rd_init(&r, guarded(x_neg, 8), 8);
	ok(wire_rd_xdr_str(&r, out, SIZE_MAX) < 0 && r.err,
	   "xdr_str of negative length is rejected even with no max");
}

static void test_reader_count(void)
{
	struct wire_rd r;
	/* count 2 followed by 8 bytes */
	static const uint8_t two[12] = {0, 0, 0, 2, 1, 2, 3, 4, 5, 6, 7, 8};
	wire_rd_init(&r, guarded(two, 12), 12);
	ok(wire_rd_count(&r, 4) == 2 && !r.err && r.left == 8,
	   "a count of 2 items of 4 bytes with 8 bytes left is accepted");
	wire_rd_init(&r, guarded(two, 12), 12);
	ok(wire_rd_count(&r, 5) == 0 && r.err,
	   "a count of 2 items of 5 bytes with 8 bytes left is rejected");
	wire_rd_init(&r, guarded(two, 12), 12);
	ok(wire_rd_count(&r, 8) == 0 && r.err, "... and of 2 items of 8 bytes");

	static const uint8_t neg[4] = {0xff, 0xff, 0xff, 0xfe};
	wire_rd_init(&r, guarded(neg, 4), 4);
	ok(wire_rd_count(&r, 0) == 0 && r.err, "a negative count is rejected");

	static const uint8_t max[8] = {0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0};
	wire_rd_init(&r, guarded(max, 8), 8);
	ok(wire_rd_count(&r, 1) == 0 && r.err,
	   "a count of 2^31-1 one-byte items with 4 bytes left is rejected");
	wire_rd_init(&r, guarded(max, 8), 8);
	ok(wire_rd_count(&r, 0) == INT32_MAX && !r.err,
	   "with minsize 0 the remaining bytes do not bound the count");
	wire_rd_init(&r, guarded(max, 8), 8);
	ok(wire_rd_count(&r, SIZE_MAX) == 0 && r.err,
	   "an item size of SIZE_MAX is not multiplied into an overflow");
	static const uint8_t zero[4] = {0, 0, 0, 0};
	wire_rd_init(&r, guarded(zero, 4), 4);
	ok(wire_rd_count(&r, 1000) == 0 && !r.err,
	   "a count of 0 needs no bytes");
	wire_rd_init(&r, guarded(zero, 3), 3);
	ok(wire_rd_count(&r, 0) == 0 && r.err, "a count cut short sets err");
}

int main(void)
{
	rnd_seed(2463534242u);
	test_hdr_vectors();
	test_hdr_fields();
	test_hdr_rejects();
	test_writer_vectors();
	test_writer_limits();
	test_reader_truncated();
	test_reader_strings();
	test_reader_count();
	return tap_done();
}
