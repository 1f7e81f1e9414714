/*
 * xdr.c - the PvmDataDefault encoding: XDR through libtirpc, with
 * byte-swapping fast paths for the bulk types (int, uint, float, double,
 * cplx, dcplx).  pack_test checks on random data that the fast paths
 * give the same bytes as libtirpc.
 *
 * long and ulong travel as 4-byte XDR ints (as the man page says);
 * lp_xdr_check refuses values that do not fit (PvmOverflow) and decoding
 * sign-extends long (libtirpc's xdr_long would lose the sign, and so
 * does PVM 3.4.6).
 */
#include "pack.h"

#include <rpc/xdr.h>
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

/* ---- libtirpc ---- */

/* One item through libtirpc; x is positioned at the item. */
static void tirpc_item(XDR *x, enum lp_type t, char *q)
{
	switch (t) {
	case LP_SHORT:
		xdr_short(x, (short *)q);
		break;
	case LP_USHORT:
		xdr_u_short(x, (unsigned short *)q);
		break;
	case LP_INT:
		xdr_int(x, (int *)q);
		break;
	case LP_UINT:
		xdr_u_int(x, (unsigned *)q);
		break;
	case LP_LONG: {
		long l;
		int v;
		memcpy(&l, q, sizeof l);
		v = (int)l;
		xdr_int(x, &v);
		l = v; /* decode: sign-extend */
		memcpy(q, &l, sizeof l);
		break;
	}
	case LP_ULONG: {
		unsigned long l;
		unsigned v;
		memcpy(&l, q, sizeof l);
		v = (unsigned)l;
		xdr_u_int(x, &v);
		l = v;
		memcpy(q, &l, sizeof l);
		break;
	}
	case LP_FLOAT:
		xdr_float(x, (float *)q);
		break;
	case LP_DOUBLE:
		xdr_double(x, (double *)q);
		break;
	case LP_CPLX:
		xdr_float(x, (float *)q);
		xdr_float(x, (float *)q + 1);
		break;
	case LP_DCPLX:
		xdr_double(x, (double *)q);
		xdr_double(x, (double *)q + 1);
		break;
	default:
		break;
	}
}

/* Bytes: XDR opaque data, padded with zeros to a multiple of 4. */
static void opaque(enum xdr_op op, uint8_t *x, char *p, int nitem, int stride)
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

void lp_xdr_enc_tirpc(enum lp_type t, uint8_t *out, const void *p, int nitem,
		      int stride)
{
	XDR x;
	if (t == LP_BYTE) {
		if (stride == 1 && nitem > 0) {
			xdrmem_create(&x, (char *)out,
				      (unsigned)lp_xdr_size(t, (size_t)nitem),
				      XDR_ENCODE);
			xdr_opaque(&x, (char *)p, (unsigned)nitem);
			xdr_destroy(&x);
		} else {
			opaque(XDR_ENCODE, out, (char *)p, nitem, stride);
		}
		return;
	}
	size_t is = lp_type_size[t];
	unsigned xs = xitem(t);
	/* one XDR stream per item: a stream's size is an unsigned int,
	 * too small for the largest arrays */
	for (int i = 0; i < nitem; i++) {
		/* libtirpc's encoders do not write through the pointer */
		char tmp[16];
		memcpy(tmp, item(p, i, stride, is), is);
		xdrmem_create(&x, (char *)out + (size_t)i * xs, xs, XDR_ENCODE);
		tirpc_item(&x, t, tmp);
		xdr_destroy(&x);
	}
}

void lp_xdr_dec_tirpc(enum lp_type t, const uint8_t *in, void *p, int nitem,
		      int stride)
{
	if (t == LP_BYTE) {
		opaque(XDR_DECODE, (uint8_t *)in, p, nitem, stride);
		return;
	}
	size_t is = lp_type_size[t];
	unsigned xs = xitem(t);
	for (int i = 0; i < nitem; i++) {
		XDR x;
		char tmp[16] = {0};
		xdrmem_create(&x, (char *)in + (size_t)i * xs, xs, XDR_DECODE);
		tirpc_item(&x, t, tmp);
		xdr_destroy(&x);
		memcpy((char *)item(p, i, stride, is), tmp, is);
	}
}

/* ---- fast paths ---- */

static void swap4(enum xdr_op op, uint8_t *x, char *p, size_t nw, int stride,
		  size_t is)
{
	/* nw 4-byte words; words per item = is / 4 */
	size_t per = is / 4;
	if (stride == 1) { /* contiguous: one simple loop the compiler
			    * vectorizes */
		uint8_t *u = (uint8_t *)p;
		const uint8_t *from = op == XDR_ENCODE ? u : x;
		uint8_t *to = op == XDR_ENCODE ? x : u;
		for (size_t w = 0; w < nw; w++) {
			uint32_t v;
			memcpy(&v, from + 4 * w, 4);
			v = __builtin_bswap32(v);
			memcpy(to + 4 * w, &v, 4);
		}
		return;
	}
	for (size_t i = 0, w = 0; w < nw; i++) {
		char *q = (char *)item(p, (int)i, stride, is);
		for (size_t k = 0; k < per; k++, w++) {
			uint32_t v;
			if (op == XDR_ENCODE) {
				memcpy(&v, q + 4 * k, 4);
				v = __builtin_bswap32(v);
				memcpy(x + 4 * w, &v, 4);
			} else {
				memcpy(&v, x + 4 * w, 4);
				v = __builtin_bswap32(v);
				memcpy(q + 4 * k, &v, 4);
			}
		}
	}
}

static void swap8(enum xdr_op op, uint8_t *x, char *p, size_t nw, int stride,
		  size_t is)
{
	size_t per = is / 8;
	if (stride == 1) {
		uint8_t *u = (uint8_t *)p;
		const uint8_t *from = op == XDR_ENCODE ? u : x;
		uint8_t *to = op == XDR_ENCODE ? x : u;
		for (size_t w = 0; w < nw; w++) {
			uint64_t v;
			memcpy(&v, from + 8 * w, 8);
			v = __builtin_bswap64(v);
			memcpy(to + 8 * w, &v, 8);
		}
		return;
	}
	for (size_t i = 0, w = 0; w < nw; i++) {
		char *q = (char *)item(p, (int)i, stride, is);
		for (size_t k = 0; k < per; k++, w++) {
			uint64_t v;
			if (op == XDR_ENCODE) {
				memcpy(&v, q + 8 * k, 8);
				v = __builtin_bswap64(v);
				memcpy(x + 8 * w, &v, 8);
			} else {
				memcpy(&v, x + 8 * w, 8);
				v = __builtin_bswap64(v);
				memcpy(q + 8 * k, &v, 8);
			}
		}
	}
}

/* The fast paths assume a little-endian host with IEEE floats, which is
 * what LP_DSIG describes; elsewhere everything goes through libtirpc. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LP_FAST 1
#else
#define LP_FAST 0
#endif

static int fast(enum xdr_op op, enum lp_type t, uint8_t *x, char *p,
		int nitem, int stride)
{
	if (!LP_FAST)
		return 0;
	size_t n = (size_t)nitem;
	switch (t) {
	case LP_INT:
	case LP_UINT:
	case LP_FLOAT:
		swap4(op, x, p, n, stride, 4);
		return 1;
	case LP_CPLX:
		swap4(op, x, p, 2 * n, stride, 8);
		return 1;
	case LP_DOUBLE:
		swap8(op, x, p, n, stride, 8);
		return 1;
	case LP_DCPLX:
		swap8(op, x, p, 2 * n, stride, 16);
		return 1;
	case LP_BYTE:
		opaque(op, x, p, nitem, stride);
		return 1;
	default:
		return 0;
	}
}

void lp_xdr_enc(enum lp_type t, uint8_t *out, const void *p, int nitem,
		int stride)
{
	if (!fast(XDR_ENCODE, t, out, (char *)p, nitem, stride))
		lp_xdr_enc_tirpc(t, out, p, nitem, stride);
}

void lp_xdr_dec(enum lp_type t, const uint8_t *in, void *p, int nitem,
		int stride)
{
	if (!fast(XDR_DECODE, t, (uint8_t *)in, p, nitem, stride))
		lp_xdr_dec_tirpc(t, in, p, nitem, stride);
}
