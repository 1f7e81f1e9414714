/*
 * xdr.c - the PvmDataDefault encoding: XDR, byte for byte as libtirpc
 * writes it, converted here at memory speed (byte-swapping kernels that
 * the compiler vectorises).  xdr_test checks on random data that we give
 * libtirpc's bytes and values, for every type, stride and length.
 * libtirpc is that test's oracle only: linking it into libpvm3 would load
 * it and the seven Kerberos libraries it needs into every task, some 4 ms
 * of each task's start (docs/limits.md) for code we do not call.
 *
 * long and ulong travel as 4-byte XDR ints (as the man page says);
 * lp_xdr_check refuses values that do not fit (PvmOverflow) and decoding
 * sign-extends long (libtirpc's xdr_long would lose the sign, and so
 * does PVM 3.4.6).
 */
#include "pack.h"

#include <string.h>

#define RNDUP4(n) (((n) + 3) & ~(size_t)3)

size_t lp_xdr_size(enum lp_type t, size_t nitem)
{
	switch (t) {
	case LP_BYTE:
		return RNDUP4(nitem);
	case LP_DOUBLE:
	case LP_CPLX:
		return nitem * 8;
	case LP_DCPLX:
		return nitem * 16;
	default:
		return nitem * 4;
	}
}

/* Address of item i of an array with this stride (stride may be <= 0). */
static inline const char *item(const void *p, int i, int stride, size_t size)
{
	return (const char *)p + (ptrdiff_t)i * stride * (ptrdiff_t)size;
}

int lp_xdr_check(enum lp_type t, const void *p, int nitem, int stride)
{
	if (t == LP_LONG) {
		for (int i = 0; i < nitem; i++) {
			long v;
			memcpy(&v, item(p, i, stride, sizeof v), sizeof v);
			if (v < INT32_MIN || v > INT32_MAX)
				return PvmOverflow;
		}
	} else if (t == LP_ULONG) {
		for (int i = 0; i < nitem; i++) {
			unsigned long v;
			memcpy(&v, item(p, i, stride, sizeof v), sizeof v);
			if (v > UINT32_MAX)
				return PvmOverflow;
		}
	}
	return 0;
}

enum xop { XDR_ENCODE, XDR_DECODE };

/* Bytes: XDR opaque data, padded with zeros to a multiple of 4. */
static void opaque(enum xop op, uint8_t *x, char *p, int nitem, int stride)
{
	size_t n = (size_t)nitem;
	if (stride == 1) {
		if (op == XDR_ENCODE)
			memcpy(x, p, n);
		else
			memcpy(p, x, n);
	} else {
		for (size_t i = 0; i < n; i++) {
			char *q = (char *)item(p, (int)i, stride, 1);
			if (op == XDR_ENCODE)
				x[i] = (uint8_t)*q;
			else
				*q = (char)x[i];
		}
	}
	if (op == XDR_ENCODE)
		memset(x + n, 0, RNDUP4(n) - n);
}

/* Size of one item in XDR (bytes excepted). */
static unsigned xitem(enum lp_type t)
{
	return (unsigned)lp_xdr_size(t, 1);
}

/* ---- conversions ----
 *
 * For a host with IEEE floats (any host PVM runs on today).  Per XDR word,
 * encoding is: load the native item, widen or narrow it to the XDR unit
 * (short/ushort/long/ulong: a 4-byte int, as libtirpc's xdr_short or xdr_int
 * would), swap its bytes, store; decoding the reverse.  float and double are
 * their IEEE bits (libtirpc copies them: NaN payloads and -0.0 survive).
 *
 * Contiguous arrays go through kernels that gcc vectorises: a loop over
 * blocks of a fixed number of items (its -O2 cost model vectorises only
 * loops whose trip count is a multiple of the vector length), restrict
 * pointers (no alias checks), memcpy loads and stores (no alignment
 * assumed: a double may sit at 4 mod 8 in the buffer).  A byte swap of a
 * vector needs a byte shuffle, which baseline x86-64 (SSE2) lacks, so on
 * x86-64 each kernel is also compiled for AVX2 and picked at load time
 * (target_clones); the baseline clone swaps one word at a time.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
/* XDR is big-endian: nothing to swap */
#define BSWAP32(v) (v)
#define BSWAP64(v) (v)
#else
#define BSWAP32(v) __builtin_bswap32(v)
#define BSWAP64(v) __builtin_bswap64(v)
#endif

#include "pack/kernel.h"

static inline void put32(uint8_t *o, uint32_t v)
{
	v = BSWAP32(v);
	memcpy(o, &v, 4);
}

static inline uint32_t get32(const uint8_t *in)
{
	uint32_t v;
	memcpy(&v, in, 4);
	return BSWAP32(v);
}

/* One word k of an array: enc_X(xdr out, native in, k) and
 * dec_X(native out, xdr in, k). */
#define CONV(X, NT, WIDEN, NARROW)                                             \
	static inline void enc_##X(uint8_t *o, const uint8_t *u, size_t k)     \
	{                                                                      \
		NT v;                                                          \
		memcpy(&v, u + k * sizeof v, sizeof v);                        \
		put32(o + 4 * k, WIDEN);                                       \
	}                                                                      \
	static inline void dec_##X(uint8_t *u, const uint8_t *o, size_t k)     \
	{                                                                      \
		uint32_t w = get32(o + 4 * k);                                 \
		NT v = NARROW;                                                 \
		memcpy(u + k * sizeof v, &v, sizeof v);                        \
	}

/* native C types, so that sizes follow the host (long: 4 or 8 bytes) */
CONV(w32, uint32_t, v, w)
CONV(short, short, (uint32_t)(int32_t)v, (short)(int32_t)w)
CONV(ushort, unsigned short, (uint32_t)v, (unsigned short)w)
CONV(long, long, (uint32_t)v, (long)(int32_t)w)
CONV(ulong, unsigned long, (uint32_t)v, (unsigned long)w)
_Static_assert(sizeof(int) == 4 && sizeof(float) == 4 && sizeof(double) == 8,
	       "the fast paths move ints and floats as 4-byte words");

/* 8-byte words: encoding and decoding are the same swap */
static inline void swap_w64(uint8_t *to, const uint8_t *from, size_t k)
{
	uint64_t v;
	memcpy(&v, from + 8 * k, 8);
	v = BSWAP64(v);
	memcpy(to + 8 * k, &v, 8);
}

KERNEL(kenc_w32, enc_w32)
KERNEL(kdec_w32, dec_w32)
KERNEL(kswap_w64, swap_w64)
KERNEL(kenc_short, enc_short)
KERNEL(kdec_short, dec_short)
KERNEL(kenc_ushort, enc_ushort)
KERNEL(kdec_ushort, dec_ushort)
KERNEL(kenc_long, enc_long)
KERNEL(kdec_long, dec_long)
KERNEL(kenc_ulong, enc_ulong)
KERNEL(kdec_ulong, dec_ulong)

typedef void kernel_fn(uint8_t *restrict, const uint8_t *restrict, size_t);
typedef void step_fn(uint8_t *, const uint8_t *, size_t);

/* Per type: the kernels, the steps and the words of one item. */
static const struct fastconv {
	kernel_fn *kenc, *kdec;
	step_fn *enc, *dec;
	unsigned words;
} fastconv[LP_NTYPES] = {
	[LP_SHORT] = {kenc_short, kdec_short, enc_short, dec_short, 1},
	[LP_USHORT] = {kenc_ushort, kdec_ushort, enc_ushort, dec_ushort, 1},
	[LP_INT] = {kenc_w32, kdec_w32, enc_w32, dec_w32, 1},
	[LP_UINT] = {kenc_w32, kdec_w32, enc_w32, dec_w32, 1},
	[LP_LONG] = {kenc_long, kdec_long, enc_long, dec_long, 1},
	[LP_ULONG] = {kenc_ulong, kdec_ulong, enc_ulong, dec_ulong, 1},
	[LP_FLOAT] = {kenc_w32, kdec_w32, enc_w32, dec_w32, 1},
	[LP_DOUBLE] = {kswap_w64, kswap_w64, swap_w64, swap_w64, 1},
	[LP_CPLX] = {kenc_w32, kdec_w32, enc_w32, dec_w32, 2},
	[LP_DCPLX] = {kswap_w64, kswap_w64, swap_w64, swap_w64, 2},
};

static void conv(enum xop op, enum lp_type t, uint8_t *x, char *p, int nitem,
		 int stride)
{
	if (t == LP_BYTE) {
		opaque(op, x, p, nitem, stride);
		return;
	}
	const struct fastconv *c = &fastconv[t];
	if (!c->kenc)
		return; /* LP_STR never gets here: pack.c sends it as bytes */
	size_t n = (size_t)nitem;
	if (stride == 1) {
		if (op == XDR_ENCODE)
			c->kenc(x, (const uint8_t *)p, n * c->words);
		else
			c->kdec((uint8_t *)p, x, n * c->words);
		return;
	}
	/* strided: item by item */
	size_t is = lp_type_size[t], xs = xitem(t);
	for (size_t i = 0; i < n; i++) {
		uint8_t *q = (uint8_t *)item(p, (int)i, stride, is);
		for (unsigned k = 0; k < c->words; k++) {
			if (op == XDR_ENCODE)
				c->enc(x + i * xs, q, k);
			else
				c->dec(q, x + i * xs, k);
		}
	}
}

void lp_xdr_enc(enum lp_type t, uint8_t *out, const void *p, int nitem,
		int stride)
{
	conv(XDR_ENCODE, t, out, (char *)p, nitem, stride);
}

void lp_xdr_dec(enum lp_type t, const uint8_t *in, void *p, int nitem,
		int stride)
{
	conv(XDR_DECODE, t, (uint8_t *)in, p, nitem, stride);
}
