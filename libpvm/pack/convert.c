/*
 * convert.c - receiver makes right: the Raw bytes of a host of another
 * data format (byte order, size of long: DSIG_FMT_*, proto/dsig.h) read
 * into this host's types as they are unpacked (docs/hetero.md).  Only a
 * message from an unlike host comes here; between hosts of one format
 * lp_unpack copies the bytes as they are.
 */
#include <string.h>

#include "pack/kernel.h"
#include "pack/pack.h"

/* Word k of an array with its bytes reversed (whatever this host's order:
 * the sender's is the other one). */
#define SWAP_STEP(BITS)                                                        \
	static inline void swap##BITS(uint8_t *to, const uint8_t *from,        \
				      size_t k)                                \
	{                                                                      \
		uint##BITS##_t v;                                              \
		memcpy(&v, from + k * sizeof v, sizeof v);                     \
		v = __builtin_bswap##BITS(v);                                  \
		memcpy(to + k * sizeof v, &v, sizeof v);                       \
	}
SWAP_STEP(16)
SWAP_STEP(32)
SWAP_STEP(64)
KERNEL(kswap16, swap16)
KERNEL(kswap32, swap32)
KERNEL(kswap64, swap64)

size_t lp_fmt_size(enum lp_type t, int fmt)
{
	if (t == LP_LONG || t == LP_ULONG)
		return (fmt & DSIG_FMT_LONG4) ? 4 : 8;
	return lp_type_size[t];
}

/* Copies one unit of `n` bytes (1, 2, 4 or 8), reversed when `swap`. */
static inline void unit(uint8_t *to, const uint8_t *from, size_t n, int swap)
{
	if (!swap || n == 1)
		memcpy(to, from, n);
	else if (n == 2)
		swap16(to, from, 0);
	else if (n == 4)
		swap32(to, from, 0);
	else
		swap64(to, from, 0);
}

/* A foreign long of `fs` bytes as a 64-bit value (sign- or
 * zero-extended from 4 bytes). */
static uint64_t long_at(const uint8_t *in, size_t fs, int swap, int is_signed)
{
	if (fs == 4) {
		uint32_t v;
		unit((uint8_t *)&v, in, 4, swap);
		return is_signed ? (uint64_t)(int64_t)(int32_t)v : v;
	}
	uint64_t v;
	unit((uint8_t *)&v, in, 8, swap);
	return v;
}

/* Whether a 64-bit value fits this host's long (or unsigned long). */
static int fits(uint64_t v, int is_signed)
{
	if (sizeof(long) == 8)
		return 1;
	if (is_signed)
		return (int64_t)v >= INT32_MIN && (int64_t)v <= INT32_MAX;
	return v <= UINT32_MAX;
}

int lp_convert(enum lp_type t, int fmt, const uint8_t *in, void *p, int nitem,
	       int stride)
{
	int swap = (fmt & DSIG_FMT_BIG) != (DSIG_FMT_NATIVE & DSIG_FMT_BIG);
	size_t is = lp_type_size[t], fs = lp_fmt_size(t, fmt);
	ptrdiff_t step = (ptrdiff_t)stride * (ptrdiff_t)is;
	uint8_t *out = p;

	if (t == LP_LONG || t == LP_ULONG) {
		int is_signed = t == LP_LONG;
		/* all or nothing: a long that does not fit stores none */
		for (int i = 0; i < nitem; i++)
			if (!fits(long_at(in + (size_t)i * fs, fs, swap,
					  is_signed),
				  is_signed))
				return PvmOverflow;
		for (int i = 0; i < nitem; i++, out += step) {
			uint64_t v = long_at(in + (size_t)i * fs, fs, swap,
					     is_signed);
			if (is_signed) {
				long l = (long)(int64_t)v;
				memcpy(out, &l, sizeof l);
			} else {
				unsigned long l = (unsigned long)v;
				memcpy(out, &l, sizeof l);
			}
		}
		return 0;
	}
	/* every other type has the same size everywhere we build; a
	 * complex number is two units */
	size_t u = t == LP_CPLX ? 4 : t == LP_DCPLX ? 8 : is;
	if (swap && u > 1 && stride == 1) {
		size_t words = (size_t)nitem * is / u;
		if (u == 2)
			kswap16(out, in, words);
		else if (u == 4)
			kswap32(out, in, words);
		else
			kswap64(out, in, words);
		return 0;
	}
	for (int i = 0; i < nitem; i++, out += step, in += is)
		for (size_t k = 0; k < is; k += u)
			unit(out + k, in + k, u, swap);
	return 0;
}
