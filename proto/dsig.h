/*
 * dsig.h - data signatures: how a host stores short, int, long, float and
 * double (byte order and sizes), in PVM 3.4.6's encoding, so that hosts
 * of unlike formats can tell each other apart (pvm_config's hi_dsig, the
 * console's DSIG column, pvm_bufinfo's and pvm_getminfo's encoding of a
 * Raw message).
 *
 * Five fields, low bits first:
 *   bits  0-4   short   log2 of its size in bits 0-2, byte order in 3-4
 *   bits  5-9   int       (0 little-endian, 3 big-endian)
 *   bits 10-14  long
 *   bits 15-20  float   format in bits 0-2 (1 IEEE single), byte order
 *   bits 21-26  double    in 3-5 (0 little-endian, 6 big-endian);
 *                         format 2: IEEE double
 * The layout is what fits the reference's own values on Debian's builds
 * (LINUX64 0x00408c41, LINUX 0x00408841, LINUXS390 0x0658ef59), which
 * dsig_test checks.  DSIG_NATIVE is this build's, computed by the
 * compiler for the target, so a cross build gets the target's.
 */
#ifndef PROTO_DSIG_H
#define PROTO_DSIG_H

#include <stdint.h>

#define DSIG_LOG2(n)	    ((n) == 1 ? 0 : (n) == 2 ? 1 : (n) == 4 ? 2 : 3)
#define DSIG_INT(size, big) (DSIG_LOG2(size) | ((big) ? 3 << 3 : 0))
#define DSIG_FP(fmt, big)   ((fmt) | ((big) ? 6 << 3 : 0))

/* The signature of a host with IEEE floating point, of byte order `big`
 * (1 big-endian, 0 little-endian), and these sizes of short, int, long.
 * A constant expression when its arguments are. */
#define DSIG_MAKE(big, s, i, l)                                                \
	((int32_t)(DSIG_INT(s, big) | DSIG_INT(i, big) << 5 |                  \
		   DSIG_INT(l, big) << 10 | DSIG_FP(1, big) << 15 |            \
		   DSIG_FP(2, big) << 21))

#define DSIG_NATIVE                                                            \
	DSIG_MAKE(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__, sizeof(short),       \
		  sizeof(int), sizeof(long))

/* What a signature says: 1 when its integers are big-endian, else 0. */
static inline int dsig_big_endian(int32_t dsig)
{
	return ((dsig >> 8) & 3) == 3;
}

/* The size in bytes of its long (4 or 8). */
static inline int dsig_long_size(int32_t dsig)
{
	return 1 << ((dsig >> 10) & 7);
}

/*
 * The data format of a Raw, InPlace or psend body: what a receiver of
 * another format needs to convert it as it unpacks (receiver makes
 * right, docs/hetero.md).  A message header carries it in two bits of
 * its enc (wire.h); 0 is x86_64's, so that such headers are unchanged
 * there.  Every host we build for has IEEE floats and 2-byte shorts,
 * 4-byte ints; byte order and the size of long are what differ.
 */
#define DSIG_FMT_BIG   1 /* big-endian */
#define DSIG_FMT_LONG4 2 /* long (and unsigned long) of 4 bytes */
#define DSIG_FMT_NATIVE                                                        \
	((__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? DSIG_FMT_BIG : 0) |         \
	 (sizeof(long) == 4 ? DSIG_FMT_LONG4 : 0))

/* The signature of a data format. */
static inline int32_t dsig_of_fmt(int fmt)
{
	return DSIG_MAKE(fmt & DSIG_FMT_BIG, 2, 4,
			 (fmt & DSIG_FMT_LONG4) ? 4 : 8);
}

/* The data format of a signature, or -1 for one we do not convert. */
static inline int dsig_fmt(int32_t dsig)
{
	for (int f = 0; f < 4; f++)
		if (dsig_of_fmt(f) == dsig)
			return f;
	return -1;
}

#endif /* PROTO_DSIG_H */
