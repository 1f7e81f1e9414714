/*
 * pack_test.c - unit test of message buffers and packing through the
 * public API only (no pvmd needed).  Prints TAP; exits 1 on a failure.
 *
 * A packed send buffer is made readable with pvm_setrbuf(sbuf), as in
 * PVM 3.4.6; an InPlace one (which cannot be unpacked where it is) goes
 * through pvm_pkmesg into a Raw buffer and back with pvm_upkmesg, which
 * gathers its segments as pvm_send does.
 */
#include <limits.h>
#include <math.h>
#include <rpc/xdr.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "proto/dsig.h"
#include "pvm3.h"

/* ---- the types ---- */

#include "test_types.h"

/* Random items that every encoding carries exactly (long/ulong within 32
 * bits; floats finite). */
static void fill(int t, void *p, size_t nitems)
{
	for (size_t i = 0; i < nitems; i++) {
		char *q = (char *)p + i * tsize[t];
		uint64_t r = rnd();
		switch (t) {
		case T_LONG: {
			long v = (int32_t)r;
			memcpy(q, &v, sizeof v);
			break;
		}
		case T_ULONG: {
			unsigned long v = (uint32_t)r;
			memcpy(q, &v, sizeof v);
			break;
		}
		case T_FLOAT:
		case T_CPLX: {
			float f[2] = {(float)(int32_t)r / 7.0f,
				      (float)(int32_t)(r >> 32) * 1e-3f};
			memcpy(q, f, tsize[t]);
			break;
		}
		case T_DOUBLE:
		case T_DCPLX: {
			double d[2] = {(double)(int64_t)r / 3.0,
				       (double)(int32_t)(r >> 16) * 1e-7};
			memcpy(q, d, tsize[t]);
			break;
		}
		default:
			memcpy(q, &r, tsize[t]);
			break;
		}
	}
}

/* Makes the current send buffer readable and current: see the top. */
static int make_readable(int enc)
{
	int sb = pvm_getsbuf();
	if (enc != PvmDataInPlace) {
		pvm_setrbuf(sb);
		return sb;
	}
	int outer = pvm_mkbuf(PvmDataRaw);
	pvm_setsbuf(outer);
	if (pvm_pkmesg(sb) < 0)
		return -1;
	pvm_freebuf(sb);
	pvm_setrbuf(outer);
	int nb = pvm_upkmesg();
	pvm_freebuf(outer);
	if (nb > 0)
		pvm_setrbuf(nb);
	return nb;
}

static const char *ename(int enc)
{
	return enc == PvmDataDefault ? "Default"
	       : enc == PvmDataRaw   ? "Raw"
				     : "InPlace";
}

/* Every type x encoding x stride round trip, and that an unpack with a
 * stride writes only its own items. */
static void test_roundtrip(void)
{
	enum { N = 37 };
	for (int enc = 0; enc <= 2; enc++)
		for (int t = 0; t < T_N; t++)
			for (int s = 1; s <= 3; s++) {
				int ps = enc == PvmDataInPlace ? 1 : s;
				size_t sz = tsize[t] * N * 3;
				char *src = malloc(sz), *dst = calloc(1, sz),
				     *exp = calloc(1, sz);
				fill(t, src, N * 3);
				pvm_initsend(enc);
				int cc = pk(t, src, N, ps);
				cc |= pk(t, src, 1,
					 1); /* a second item after it */
				int rb = make_readable(enc);
				int cu = upk(t, dst, N, s);
				for (int i = 0; i < N; i++)
					memcpy(exp + (size_t)i * s * tsize[t],
					       src + (size_t)i * ps * tsize[t],
					       tsize[t]);
				int same = memcmp(dst, exp, sz) == 0;
				char one[16] = {0};
				int c2 = upk(t, one, 1, 1);
				int c3 = upk(t, one, 1, 1);
				ok(cc == 0 && rb > 0 && cu == 0 && same &&
					   c2 == 0 &&
					   memcmp(one, src, tsize[t]) == 0 &&
					   c3 == PvmNoData,
				   "round trip %s %s stride %d (pack stride %d)",
				   ename(enc), tname[t], s, ps);
				pvm_freebuf(rb);
				free(src), free(dst), free(exp);
			}
}

/* A message mixing types, odd byte counts and strings, in each encoding. */
static void test_mixed(void)
{
	for (int enc = 0; enc <= 1; enc++) {
		char b3[3] = {'a', 'b', 'c'}, b5[5] = "vwxyz", r3[3], r5[5];
		short sh[2] = {-3, 300}, rsh[2];
		int in[3] = {1, -2, 3}, rin[3];
		char str[32];
		pvm_initsend(enc);
		int cc = pvm_pkbyte(b3, 3, 1) | pvm_pkint(in, 3, 1) |
			 pvm_pkstr("hello") | pvm_pkbyte(b5, 5, 1) |
			 pvm_pkshort(sh, 2, 1) | pvm_pkstr("");
		pvm_setrbuf(pvm_getsbuf());
		int cu = pvm_upkbyte(r3, 3, 1) | pvm_upkint(rin, 3, 1) |
			 pvm_upkstr(str);
		int okstr = strcmp(str, "hello") == 0;
		cu |= pvm_upkbyte(r5, 5, 1) | pvm_upkshort(rsh, 2, 1) |
		      pvm_upkstr(str);
		ok(cc == 0 && cu == 0 && okstr && !memcmp(r3, b3, 3) &&
			   !memcmp(rin, in, sizeof in) && !memcmp(r5, b5, 5) &&
			   !memcmp(rsh, sh, sizeof sh) && str[0] == 0,
		   "mixed message %s (odd byte arrays, strings)", ename(enc));
	}
}

/* Reads the whole body of buffer `id` as bytes (n is set to its length). */
static unsigned char *body(int id, int *n)
{
	int tag, tid;
	pvm_bufinfo(id, n, &tag, &tid);
	unsigned char *p = malloc((size_t)*n + 1);
	int wassbuf = pvm_getsbuf() == id;
	int old = pvm_setrbuf(id);
	int cc = pvm_upkbyte((char *)p, *n, 1);
	if (old > 0 && old != id)
		pvm_setrbuf(old);
	if (wassbuf)
		pvm_setsbuf(id);
	if (cc < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* libtirpc's encoding of n items (stride s) of type t. */
static void tirpc_enc(int t, const void *p, int n, int s, unsigned char *out,
		      size_t outlen)
{
	XDR x;
	xdrmem_create(&x, (char *)out, (unsigned)outlen, XDR_ENCODE);
	for (int i = 0; i < n; i++) {
		const char *q = (const char *)p + (size_t)i * s * tsize[t];
		switch (t) {
		case T_SHORT:
			xdr_short(&x, (short *)q);
			break;
		case T_USHORT:
			xdr_u_short(&x, (unsigned short *)q);
			break;
		case T_INT:
			xdr_int(&x, (int *)q);
			break;
		case T_UINT:
			xdr_u_int(&x, (unsigned *)q);
			break;
		case T_LONG: {
			int v = (int)*(const long *)q;
			xdr_int(&x, &v);
			break;
		}
		case T_ULONG: {
			unsigned v = (unsigned)*(const unsigned long *)q;
			xdr_u_int(&x, &v);
			break;
		}
		case T_FLOAT:
			xdr_float(&x, (float *)q);
			break;
		case T_DOUBLE:
			xdr_double(&x, (double *)q);
			break;
		case T_CPLX:
			xdr_float(&x, (float *)q);
			xdr_float(&x, (float *)q + 1);
			break;
		case T_DCPLX:
			xdr_double(&x, (double *)q);
			xdr_double(&x, (double *)q + 1);
			break;
		default:
			break;
		}
	}
	if (t == T_BYTE) {
		char *tmp = malloc((size_t)n + 1);
		for (int i = 0; i < n; i++)
			tmp[i] = *((const char *)p + (size_t)i * s);
		xdr_opaque(&x, tmp, (unsigned)n);
		free(tmp);
	}
	xdr_destroy(&x);
}

/* Our XDR bytes equal libtirpc's, both ways, on random data. */
static void test_xdr_identity(void)
{
	enum { N = 1001 };
	for (int t = 0; t < T_N; t++)
		for (int s = 1; s <= 2; s++) {
			size_t sz = tsize[t] * N * s;
			char *src = malloc(sz);
			fill(t, src, (size_t)N * s);
			size_t xl = ((xsize[t] * N) + 3) & ~(size_t)3;
			unsigned char *ref = calloc(1, xl + 8);
			tirpc_enc(t, src, N, s, ref, xl + 8);
			pvm_initsend(PvmDataDefault);
			int cc = pk(t, src, N, s);
			int n = 0;
			unsigned char *got = body(pvm_getsbuf(), &n);
			ok(cc == 0 && got && (size_t)n == xl &&
				   memcmp(got, ref, xl) == 0,
			   "XDR bytes of %s stride %d identical to libtirpc",
			   tname[t], s);
			/* decode libtirpc's bytes */
			pvm_initsend(PvmDataDefault);
			pvm_pkbyte((char *)ref, (int)xl, 1);
			pvm_setrbuf(pvm_getsbuf());
			char *dec = calloc(1, sz);
			cc = upk(t, dec, N, s);
			int same = 1;
			for (int i = 0; i < N; i++)
				if (memcmp(dec + (size_t)i * s * tsize[t],
					   src + (size_t)i * s * tsize[t],
					   tsize[t]))
					same = 0;
			ok(cc == 0 && same,
			   "XDR decode of libtirpc's %s stride %d", tname[t],
			   s);
			free(src), free(ref), free(got), free(dec);
		}
	/* known bytes: a string and an odd byte array */
	pvm_initsend(PvmDataDefault);
	pvm_pkstr("hi");
	pvm_pkbyte("abc", 3, 1);
	short sh = -1;
	pvm_pkshort(&sh, 1, 1);
	int n;
	unsigned char *got = body(pvm_getsbuf(), &n);
	static const unsigned char want[] = {0,	   0,	 0,    3,   'h', 'i',
					     0,	   0,	 'a',  'b', 'c', 0,
					     0xff, 0xff, 0xff, 0xff};
	ok(got && n == 16 && !memcmp(got, want, 16),
	   "XDR string, byte padding and short layout");
	free(got);
}

static void test_long(void)
{
	long neg[3] = {-5, INT32_MIN, INT32_MAX}, r[3];
	unsigned long umax = UINT32_MAX, ur = 0;
	pvm_initsend(PvmDataDefault);
#if LONG_MAX > INT32_MAX
	/* a long past the 32 bits of XDR's: only where long has 64 */
	long big[2] = {1, 1L << 33};
	unsigned long ubig = 1UL << 32;
	int n0, n1, tag, tid;
	pvm_bufinfo(pvm_getsbuf(), &n0, &tag, &tid);
	ok(pvm_pklong(big, 2, 1) == PvmOverflow,
	   "XDR pklong of 2^33 gives PvmOverflow");
	pvm_bufinfo(pvm_getsbuf(), &n1, &tag, &tid);
	ok(n0 == n1, "nothing packed after PvmOverflow");
	ok(pvm_pkulong(&ubig, 1, 1) == PvmOverflow,
	   "XDR pkulong of 2^32 gives PvmOverflow");
#else
	for (int i = 0; i < 3; i++)
		ok(1, "# SKIP long has 32 bits: none is past XDR's");
#endif
	ok(pvm_pklong(neg, 3, 1) == 0 && pvm_pkulong(&umax, 1, 1) == 0,
	   "XDR long limits pack");
	pvm_setrbuf(pvm_getsbuf());
	ok(pvm_upklong(r, 3, 1) == 0 && r[0] == -5 && r[1] == INT32_MIN &&
		   r[2] == INT32_MAX,
	   "XDR long keeps its sign (-5, INT32_MIN)");
	ok(pvm_upkulong(&ur, 1, 1) == 0 && ur == UINT32_MAX,
	   "XDR ulong 2^32-1");
	pvm_initsend(PvmDataRaw);
	long wide[2] = {1, LONG_MAX};
	ok(pvm_pklong(wide, 2, 1) == 0, "Raw pklong of LONG_MAX is fine");
	pvm_setrbuf(pvm_getsbuf());
	ok(pvm_upklong(r, 2, 1) == 0 && r[1] == LONG_MAX,
	   "Raw long keeps all its %d bits", (int)(8 * sizeof(long)));
}

static void test_nodata(void)
{
	for (int enc = 0; enc <= 1; enc++) {
		int a[4] = {7, 8, 9, 10}, r[4] = {0};
		char s[8];
		pvm_initsend(enc);
		pvm_pkint(a, 3, 1);
		pvm_setrbuf(pvm_getsbuf());
		ok(pvm_upkint(r, 4, 1) == PvmNoData,
		   "%s: unpacking 4 of 3 ints gives PvmNoData", ename(enc));
		ok(pvm_upkint(r, 3, 1) == 0 && r[2] == 9,
		   "%s: nothing consumed by the failed unpack", ename(enc));
		ok(pvm_upkint(r, 1, 1) == PvmNoData &&
			   pvm_upkstr(s) == PvmNoData &&
			   pvm_upkbyte(s, 1, 1) == PvmNoData &&
			   pvm_upkdouble((double *)r, 1, 1) == PvmNoData,
		   "%s: every unpack past the end gives PvmNoData", ename(enc));
		ok(pvm_upkint(r, 0, 1) == 0,
		   "%s: unpacking 0 items at the end is fine", ename(enc));
		pvm_initsend(enc);
		int huge = 1000;
		pvm_pkint(&huge, 1, 1);
		pvm_setrbuf(pvm_getsbuf());
		ok(pvm_upkstr(s) == PvmNoData,
		   "%s: string longer than the message gives PvmNoData",
		   ename(enc));
	}
}

static void test_badparam(void)
{
	int a[2] = {1, 2};
	pvm_setsbuf(0);
	pvm_setrbuf(0);
	ok(pvm_pkint(a, 1, 1) == PvmNoBuf && pvm_pkstr("x") == PvmNoBuf,
	   "pack without a send buffer: PvmNoBuf");
	ok(pvm_upkint(a, 1, 1) == PvmNoBuf && pvm_upkstr((char *)a) == PvmNoBuf,
	   "unpack without a receive buffer: PvmNoBuf");
	ok(pvm_packf("%d", 1) == PvmNoBuf && pvm_unpackf("%d", a) == PvmNoBuf,
	   "packf/unpackf without buffer: PvmNoBuf");
	ok(pvm_upkmesg() == PvmNoBuf,
	   "upkmesg without a receive buffer: PvmNoBuf");
	for (int enc = 0; enc <= 2; enc++) {
		pvm_initsend(enc);
		ok(pvm_pkint(a, -1, 1) == PvmBadParam &&
			   pvm_pkbyte((char *)a, -3, 1) == PvmBadParam,
		   "%s: negative count gives PvmBadParam", ename(enc));
		ok(pvm_pkint(NULL, 1, 1) == PvmBadParam &&
			   pvm_pkstr(NULL) == PvmBadParam,
		   "%s: NULL pointer gives PvmBadParam", ename(enc));
		ok(pvm_pkint(NULL, 0, 1) == 0 && pvm_pkint(a, 0, 1) == 0,
		   "%s: 0 items is fine", ename(enc));
		pvm_setrbuf(pvm_getsbuf());
		ok(pvm_upkint(a, -1, 1) == PvmBadParam &&
			   pvm_upkint(NULL, 1, 1) == PvmBadParam &&
			   (enc == 2 || pvm_upkstr(NULL) == PvmBadParam),
		   "%s: bad unpack arguments give PvmBadParam", ename(enc));
	}
	/* stride 0 and negative strides work as in the reference */
	int x[8] = {1, 2, 3, 4, 5, 6, 7, 8}, y[8] = {0};
	pvm_initsend(PvmDataDefault);
	ok(pvm_pkint(x + 7, 3, -2) == 0 && pvm_pkint(x, 2, 0) == 0,
	   "negative and zero strides pack");
	pvm_setrbuf(pvm_getsbuf());
	ok(pvm_upkint(y + 6, 3, -3) == 0 && y[6] == 8 && y[3] == 6 &&
		   y[0] == 4 && pvm_upkint(y, 2, 0) == 0 && y[0] == 1,
	   "negative and zero strides unpack");
}

static void test_inplace(void)
{
	int a[4] = {1, 2, 3, 4};
	pvm_initsend(PvmDataInPlace);
	ok(pvm_pkint(a, 2, 2) == PvmNotImpl && pvm_pkint(a, 0, 0) == PvmNotImpl,
	   "InPlace stride != 1: PvmNotImpl");
	ok(pvm_pkstr("x") == PvmNotImpl, "InPlace pkstr: PvmNotImpl");
	ok(pvm_packf("%s", "x") == PvmNotImpl &&
		   pvm_packf("%2.2d", a) == PvmNotImpl,
	   "InPlace packf %%s and stride: PvmNotImpl");
	ok(pvm_pkint(a, 4, 1) == 0, "InPlace pkint");
	pvm_setrbuf(pvm_getsbuf());
	int r[4];
	ok(pvm_upkint(r, 1, 1) == PvmBadMsg,
	   "an InPlace send buffer cannot be unpacked (PvmBadMsg, as the reference)");
	pvm_setsbuf(pvm_getrbuf());
	ok(pvm_packf("%d %hd", 77, 5) == 0, "InPlace packf of values (copied)");
	a[1] = 42; /* read at "send" time, i.e. by pvm_pkmesg below */
	int nb = make_readable(PvmDataInPlace);
	short sv = 0;
	ok(nb > 0 && pvm_upkint(r, 4, 1) == 0 && r[1] == 42 &&
		   pvm_upkint(r, 1, 1) == 0 && r[0] == 77 &&
		   pvm_upkshort(&sv, 1, 1) == 0 && sv == 5,
	   "InPlace data is read when the message leaves");
	struct pvmminfo mi;
	pvm_getminfo(nb, &mi);
	ok(mi.enc == DSIG_NATIVE,
	   "received InPlace message shows the data signature");
	pvm_freebuf(nb);
}

static void test_buffers(void)
{
	ok(pvm_mkbuf(-1) == PvmBadParam && pvm_mkbuf(3) == PvmBadParam &&
		   pvm_mkbuf(5) == PvmBadParam,
	   "mkbuf bad encoding: PvmBadParam");
	ok(pvm_initsend(-1) == PvmBadParam && pvm_initsend(3) == PvmBadParam,
	   "initsend bad encoding: PvmBadParam");
	ok(pvm_mkbuf(PvmDataTrace) == PvmNotImpl,
	   "mkbuf(PvmDataTrace): PvmNotImpl (tracing comes later)");
	int a = pvm_mkbuf(0), b = pvm_mkbuf(1), c = pvm_mkbuf(2);
	ok(a > 0 && b > 0 && c > 0 && a != b && b != c && a != c,
	   "mkbuf gives distinct positive ids");
	ok(pvm_freebuf(b) == 0 && pvm_freebuf(b) == PvmNoSuchBuf,
	   "freebuf, then PvmNoSuchBuf");
	int b2 = pvm_mkbuf(0);
	ok(b2 == b, "a freed id is reused");
	ok(pvm_freebuf(0) == 0 && pvm_freebuf(-1) == PvmBadParam &&
		   pvm_freebuf(99999) == PvmNoSuchBuf,
	   "freebuf(0) = 0, negative PvmBadParam, unknown PvmNoSuchBuf");
	pvm_setsbuf(0);
	pvm_setrbuf(0);
	ok(pvm_setsbuf(a) == 0 && pvm_getsbuf() == a && pvm_setsbuf(0) == a &&
		   pvm_getsbuf() == 0,
	   "setsbuf returns the old id; 0 leaves none");
	ok(pvm_setsbuf(-1) == PvmBadParam &&
		   pvm_setsbuf(99999) == PvmNoSuchBuf &&
		   pvm_setrbuf(-1) == PvmBadParam &&
		   pvm_setrbuf(99999) == PvmNoSuchBuf,
	   "set[sr]buf errors");
	pvm_setrbuf(c);
	ok(pvm_setsbuf(c) == 0 && pvm_getrbuf() == 0 && pvm_getsbuf() == c,
	   "setsbuf of the receive buffer takes it over");
	ok(pvm_setrbuf(c) == 0 && pvm_getsbuf() == 0 && pvm_getrbuf() == c,
	   "setrbuf of the send buffer takes it over");
	pvm_setsbuf(a);
	ok(pvm_freebuf(a) == 0 && pvm_getsbuf() == 0,
	   "freeing the send buffer leaves none");
	int s1 = pvm_initsend(PvmDataRaw);
	int s2 = pvm_initsend(PvmDataDefault);
	int bytes, tag, tid;
	ok(s1 > 0 && s2 > 0 && pvm_getsbuf() == s2 &&
		   pvm_bufinfo(s1, &bytes, &tag, &tid) == PvmNoSuchBuf,
	   "initsend frees the old send buffer");
	int x[3] = {1, 2, 3};
	pvm_pkint(x, 3, 1);
	ok(pvm_bufinfo(s2, &bytes, &tag, &tid) == 0 && bytes == 12 && tag == 0,
	   "bufinfo of a send buffer");
	ok(pvm_bufinfo(s2, NULL, NULL, NULL) == 0, "bufinfo with NULL outputs");
	ok(pvm_bufinfo(0, &bytes, &tag, &tid) == PvmBadParam &&
		   pvm_bufinfo(-1, &bytes, &tag, &tid) == PvmBadParam &&
		   pvm_bufinfo(99999, &bytes, &tag, &tid) == PvmNoSuchBuf,
	   "bufinfo errors");
	struct pvmminfo mi;
	ok(pvm_getminfo(s2, &mi) == 0 && mi.len == 12 && mi.enc == 0x10000000,
	   "getminfo of an XDR send buffer");
	pvm_initsend(PvmDataRaw);
	ok(pvm_getminfo(pvm_getsbuf(), &mi) == 0 && mi.enc == DSIG_NATIVE,
	   "getminfo enc of Raw is the data signature");
	pvm_initsend(PvmDataInPlace);
	ok(pvm_getminfo(pvm_getsbuf(), &mi) == 0 && mi.enc == 0x20000000,
	   "getminfo enc of InPlace");
	mi = (struct pvmminfo){.len = 99,
			       .ctx = 5,
			       .tag = 6,
			       .wid = 7,
			       .enc = 8,
			       .crc = 9,
			       .src = 10,
			       .dst = 11};
	ok(pvm_setminfo(pvm_getsbuf(), &mi) == 0, "setminfo");
	memset(&mi, 0, sizeof mi);
	pvm_getminfo(pvm_getsbuf(), &mi);
	ok(mi.len == 0 && mi.ctx == 5 && mi.tag == 6 && mi.wid == 7 &&
		   mi.enc == 0x20000000 && mi.crc == 0 && mi.src == 10 &&
		   mi.dst == 11,
	   "setminfo sets ctx, tag, wid, src, dst only");
	ok(pvm_bufinfo(pvm_getsbuf(), &bytes, &tag, &tid) == 0 && tag == 6 &&
		   tid == 10,
	   "bufinfo shows them");
	ok(pvm_getminfo(pvm_getsbuf(), NULL) == PvmBadParam &&
		   pvm_getminfo(0, &mi) == PvmBadParam &&
		   pvm_getminfo(99999, &mi) == PvmNoSuchBuf &&
		   pvm_setminfo(pvm_getsbuf(), NULL) == PvmBadParam &&
		   pvm_setminfo(0, &mi) == PvmBadParam &&
		   pvm_setminfo(99999, &mi) == PvmNoSuchBuf,
	   "getminfo/setminfo errors");
	pvm_freebuf(b2);
	pvm_freebuf(c);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* A packed message whose header claims more body than follows (a hostile
 * peer's): PvmNoData, the read position kept, and the claimed length is
 * never reserved.  That is checked with the address space limited to
 * 256 MiB more than in use, where reserving 2 GiB fails with PvmNoMem
 * (not under ASan, whose shadow memory needs the address space). */
static void test_upkmesg_claims(void)
{
	int h[9] = {INT_MAX, 0, 1, 0, enc_sig(PvmDataRaw), 0, 0, 0, 8};
	char body[8] = "abcdefg";
	pvm_initsend(PvmDataRaw);
	pvm_pkint(h, 9, 1);
	pvm_pkbyte(body, 8, 1);
	pvm_setrbuf(pvm_getsbuf());
	struct rlimit old;
	int limited = 0;
#if !UNDER_ASAN
	long pages = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if (f && fscanf(f, "%ld", &pages) == 1 &&
	    getrlimit(RLIMIT_AS, &old) == 0) {
		struct rlimit lim = old;
		lim.rlim_cur = (rlim_t)pages * 4096 + (256u << 20);
		limited = setrlimit(RLIMIT_AS, &lim) == 0;
	}
	if (f)
		fclose(f);
#endif
	int cc = pvm_upkmesg();
	if (limited)
		setrlimit(RLIMIT_AS, &old);
	int first = 0;
	ok(cc == PvmNoData && pvm_upkint(&first, 1, 1) == 0 && first == INT_MAX,
	   "upkmesg of a body claimed at 2 GiB with 8 bytes there: PvmNoData (%d), nothing read%s",
	   cc, limited ? ", address space limited" : "");
}

static void test_pkmesg(void)
{
	int x[2] = {1, 2};
	int inner = pvm_mkbuf(PvmDataRaw);
	pvm_setsbuf(inner);
	pvm_pkint(x, 2, 1);
	struct pvmminfo mi = {.ctx = 0x11,
			      .tag = 0x22,
			      .wid = 0x33,
			      .src = 0x44,
			      .dst = 0x55};
	pvm_setminfo(inner, &mi);
	int outer = pvm_initsend(
		PvmDataDefault); /* frees inner? no: inner was sbuf */
	ok(pvm_bufinfo(inner, NULL, NULL, NULL) == PvmNoSuchBuf,
	   "initsend freed the old send buffer");
	inner = pvm_mkbuf(PvmDataRaw);
	pvm_setsbuf(inner);
	pvm_pkint(x, 2, 1);
	pvm_setminfo(inner, &mi);
	pvm_setsbuf(outer);
	ok(pvm_pkmesg(outer) == PvmBadParam && pvm_pkmesg(0) == PvmBadParam &&
		   pvm_pkmesg(-1) == PvmBadParam &&
		   pvm_pkmesg(99999) == PvmNoSuchBuf,
	   "pkmesg errors");
	ok(pvm_pkmesg(inner) == 0, "pkmesg");
	ok(pvm_pkmesgbody(inner) == PvmMismatch,
	   "pkmesgbody of another encoding: PvmMismatch");
	int n;
	unsigned char *got = body(outer, &n);
	/* the header in XDR (the outer buffer's encoding), the inner's data
	 * signature among it, then its Raw body in this host's order */
	unsigned char want[] = {0,    0, 0, 8, 0,    0,	   0, 0x11, 0, 0,    0,
				0x22, 0, 0, 0, 0x33, 0,	   0, 0,    0, 0,    0,
				0,    0, 0, 0, 0,    0x44, 0, 0,    0, 0x55, 0,
				0,    0, 8, 0, 0,    0,	   0, 0,    0, 0,    0};
	for (int i = 0; i < 4; i++)
		want[16 + i] =
			(unsigned char)((uint32_t)DSIG_NATIVE >> (24 - 8 * i));
	memcpy(want + 36, x, sizeof x);
	ok(got && n == (int)sizeof want && !memcmp(got, want, sizeof want),
	   "pkmesg bytes as PVM 3.4.6 packs them");
	free(got);
	pvm_setrbuf(outer);
	/* body() consumed it: rewind by packing again */
	outer = pvm_initsend(PvmDataRaw);
	pvm_pkmesg(inner);
	ok(pvm_pkmesgbody(inner) == 0, "pkmesgbody of the same encoding");
	pvm_setrbuf(outer);
	int nb = pvm_upkmesg();
	memset(&mi, 0, sizeof mi);
	int y[2] = {0};
	ok(nb > 0 && pvm_getrbuf() == outer && pvm_getminfo(nb, &mi) == 0 &&
		   mi.len == 8 && mi.ctx == 0x11 && mi.tag == 0x22 &&
		   mi.wid == 0x33 && mi.enc == DSIG_NATIVE && mi.src == 0x44 &&
		   mi.dst == 0x55,
	   "upkmesg makes a new buffer with the header (not current)");
	ok(pvm_upkint(y, 2, 1) == 0 && y[0] == 1 && y[1] == 2,
	   "the spliced body follows");
	pvm_setrbuf(nb);
	ok(pvm_upkint(y, 2, 1) == 0 && y[1] == 2 &&
		   pvm_upkint(y, 1, 1) == PvmNoData,
	   "upkmesg'd body unpacks");
	pvm_setrbuf(outer);
	ok(pvm_upkmesg() == PvmNoData, "upkmesg at the end: PvmNoData");
	ok(pvm_pkmesgbody(0) == PvmBadParam &&
		   pvm_pkmesgbody(pvm_getsbuf()) == PvmBadParam,
	   "pkmesgbody errors");
	pvm_freebuf(nb);
	pvm_freebuf(inner);
}

/* ---- receiver makes right: Raw bodies of another data format ---- */

/* Appends v's n low bytes to p at *k, big- or little-endian. */
static void put_n(unsigned char *p, size_t *k, uint64_t v, int n, int big)
{
	for (int i = 0; i < n; i++)
		p[*k + i] = (unsigned char)(v >> 8 * (big ? n - 1 - i : i));
	*k += (size_t)n;
}

static uint64_t bits_f(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static uint64_t bits_d(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}

/* A Raw message as a host of data format fmt packs it, wrapped by
 * pvm_pkmesg's layout with that host's signature, then pvm_upkmesg'd
 * here: its buffer id.  The body: short -2, ushort 0xfedc, int -123456,
 * uint 0xdeadbeef, long -5 and 0x7fffffff, ulong 0xfffffffe, float 1.5,
 * double -2.25, cplx (1.5, -0.5), dcplx (0.25, NaN), string "abc", then
 * the longs `l1` and `u1` (each of the format's size). */
static int foreign_msg(int fmt, int64_t l1, uint64_t u1)
{
	int big = fmt & DSIG_FMT_BIG, ls = (fmt & DSIG_FMT_LONG4) ? 4 : 8;
	unsigned char body[256];
	size_t k = 0;
	put_n(body, &k, (uint16_t)-2, 2, big);
	put_n(body, &k, 0xfedc, 2, big);
	put_n(body, &k, (uint32_t)-123456, 4, big);
	put_n(body, &k, 0xdeadbeef, 4, big);
	put_n(body, &k, (uint64_t)-5, ls, big);
	put_n(body, &k, 0x7fffffff, ls, big);
	put_n(body, &k, 0xfffffffe, ls, big);
	put_n(body, &k, bits_f(1.5f), 4, big);
	put_n(body, &k, bits_d(-2.25), 8, big);
	put_n(body, &k, bits_f(1.5f), 4, big);
	put_n(body, &k, bits_f(-0.5f), 4, big);
	put_n(body, &k, bits_d(0.25), 8, big);
	put_n(body, &k, bits_d(NAN), 8, big);
	put_n(body, &k, 4, 4, big);
	memcpy(body + k, "abc", 4);
	k += 4;
	put_n(body, &k, (uint64_t)l1, ls, big);
	put_n(body, &k, u1, ls, big);
	int h[9] = {(int)k, 0,	     7,	      0,     dsig_of_fmt(fmt),
		    0,	    0x80001, 0x40001, (int)k};
	int outer = pvm_initsend(PvmDataDefault);
	pvm_pkint(h, 9, 1);
	pvm_pkbyte((char *)body, (int)k, 1);
	pvm_setrbuf(outer);
	return pvm_upkmesg();
}

static void test_foreign(void)
{
	static const struct {
		int fmt;
		const char *name;
	} hosts[] = {{DSIG_FMT_BIG, "s390x (big-endian, LP64)"},
		     {DSIG_FMT_LONG4, "i386 (little-endian, ILP32)"},
		     {DSIG_FMT_BIG | DSIG_FMT_LONG4, "big-endian ILP32"},
		     {0, "x86_64 (little-endian, LP64)"}};
	for (size_t i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
		int fmt = hosts[i].fmt;
		int rb = foreign_msg(fmt, -7, 9);
		struct pvmminfo mi;
		ok(rb > 0 && pvm_getminfo(rb, &mi) == 0 &&
			   mi.enc == dsig_of_fmt(fmt),
		   "%s: upkmesg takes its signature 0x%08x, getminfo shows it",
		   hosts[i].name, (unsigned)dsig_of_fmt(fmt));
		pvm_setrbuf(rb);
		short sh = 0;
		unsigned short us = 0;
		int in = 0;
		unsigned ui = 0;
		long l[2] = {0, 0};
		unsigned long ul = 0;
		float f = 0, c[2] = {0, 0};
		double d = 0, z[2] = {0, 0};
		char str[8] = "";
		int cc = pvm_upkshort(&sh, 1, 1) | pvm_upkushort(&us, 1, 1) |
			 pvm_upkint(&in, 1, 1) | pvm_upkuint(&ui, 1, 1) |
			 pvm_upklong(l, 2, 1) | pvm_upkulong(&ul, 1, 1) |
			 pvm_upkfloat(&f, 1, 1) | pvm_upkdouble(&d, 1, 1) |
			 pvm_upkcplx(c, 1, 1) | pvm_upkdcplx(z, 1, 1) |
			 pvm_upkstr(str);
		ok(cc == 0 && sh == -2 && us == 0xfedc && in == -123456 &&
			   ui == 0xdeadbeef && l[0] == -5 &&
			   l[1] == 0x7fffffff && ul == 0xfffffffe &&
			   f == 1.5f && d == -2.25 && c[0] == 1.5f &&
			   c[1] == -0.5f && z[0] == 0.25 && isnan(z[1]) &&
			   !strcmp(str, "abc"),
		   "%s: every type converted as it is unpacked", hosts[i].name);
		long l2[2];
		ok(pvm_upklong(l2, 1, 1) == 0 && l2[0] == -7 &&
			   pvm_upkulong(&ul, 1, 1) == 0 && ul == 9 &&
			   pvm_upkint(&in, 1, 1) == PvmNoData,
		   "%s: a negative long keeps its sign; then the end",
		   hosts[i].name);
		pvm_freebuf(rb);
	}
	/* with a stride: the item loop, not the contiguous kernel */
	int rs = foreign_msg(DSIG_FMT_BIG, 1, 2);
	pvm_setrbuf(rs);
	short sv[4] = {0, 7, 0, 7};
	ok(pvm_upkshort(sv, 2, 2) == 0 && sv[0] == -2 &&
		   sv[2] == (short)0xfedc && sv[1] == 7 && sv[3] == 7,
	   "s390x: shorts unpacked with stride 2 land every other item");
	pvm_freebuf(rs);
	/* a long past 32 bits from an LP64 host */
	int rb = foreign_msg(DSIG_FMT_BIG, (int64_t)1 << 40, 1);
	pvm_setrbuf(rb);
	char skip[128];
	pvm_upkbyte(skip, 2 + 2 + 4 + 4 + 3 * 8 + 4 + 8 + 8 + 16 + 8, 1);
	long l = 99;
#if LONG_MAX > INT32_MAX
	ok(pvm_upklong(&l, 1, 1) == 0 && l == (long)1 << 40,
	   "s390x's long 2^40 here (LP64): kept");
#else
	ok(pvm_upklong(&l, 1, 1) == PvmOverflow && l == 99 &&
		   pvm_upkulong((unsigned long *)&l, 1, 1) == PvmOverflow,
	   "s390x's long 2^40 here (ILP32): PvmOverflow, nothing stored");
#endif
	pvm_freebuf(rb);
	/* a signature we cannot convert (a VAX-like float format) */
	int h[9] = {4, 0, 7, 0, 0x12345678, 0, 0x80001, 0x40001, 4};
	int outer = pvm_initsend(PvmDataDefault);
	pvm_pkint(h, 9, 1);
	pvm_pkbyte("abcd", 4, 1);
	pvm_setrbuf(outer);
	ok(pvm_upkmesg() == PvmBadMsg,
	   "upkmesg of a signature it cannot convert: PvmBadMsg");
}

static void test_packf(void)
{
	int ia[6] = {1, 2, 3, 4, 5, 6};
	short sa[2] = {-1, -2};
	long la[2] = {-7, 8};
	float fa[4] = {1.5f, 2.5f, 3.5f, 4.5f};
	double da[2] = {1.25, 2.25};
	char ca[4] = "uvw";
	ok(pvm_packf("%+ %d", PvmDataRaw, 0x01020304) == 0,
	   "packf %%+ and a value");
	int n;
	unsigned char *got = body(pvm_getsbuf(), &n);
	struct pvmminfo mi;
	pvm_getminfo(pvm_getsbuf(), &mi);
	int v[2] = {0, 0};
	if (got && n >= 4)
		memcpy(v, got, 4);
	ok(got && n == 4 && v[0] == 0x01020304 && mi.enc == DSIG_NATIVE,
	   "%%+ chose Raw");
	free(got);
	pvm_initsend(PvmDataRaw);
	ok(pvm_packf("%c %hd %ld %ud %uhd %uld %f %lf", 'A', -2, -3L, 4u, 5,
		     6UL, 1.5, 2.25) == 0,
	   "packf values c hd ld ud uhd uld f lf");
	got = body(pvm_getsbuf(), &n);
	ok(got &&
		   n == (int)(1 + 2 + sizeof(long) + 4 + 2 + sizeof(long) + 4 +
			      8) &&
		   got[0] == 'A',
	   "their sizes: %d bytes", n);
	free(got);
	pvm_initsend(PvmDataDefault);
	ok(pvm_packf(
		   "%3d %2hd %2ld %2f %lf %2x %1lx %3c %s %*d %3.2d %*.*d %.d %0d x %%",
		   ia, sa, la, fa, 9.5, fa, da, ca, "str", 2, ia, ia, 2, 3, ia,
		   ia, ia) == PvmBadParam,
	   "packf of every conversion, stopping at %%%% with PvmBadParam");
	pvm_setrbuf(pvm_getsbuf());
	int ri[8] = {0}, rk[8] = {0};
	short rs[2];
	long rl[2];
	float rf[2], rx[4];
	double rd, rdx[2];
	char rc[4] = "", rstr[8];
	int cc = pvm_unpackf("%3d %2hd %2ld %2f %lf %2x %lx %3c %s", ri, rs, rl,
			     rf, &rd, rx, rdx, rc, rstr);
	ok(cc == 0 && ri[2] == 3 && rs[1] == -2 && rl[0] == -7 &&
		   rf[1] == 2.5f && rd == 9.5 && rx[3] == 4.5f &&
		   rdx[1] == 2.25 && !memcmp(rc, "uvw", 3) &&
		   !strcmp(rstr, "str"),
	   "unpackf of them");
	cc = pvm_unpackf("%*d %.*d", 2, rk, 3, rk + 2);
	ok(cc == 0 && rk[0] == 1 && rk[1] == 2 && rk[2] == 1,
	   "unpackf %%*d and a stride");
	cc = pvm_unpackf("%2d %d %d %d", rk + 3, rk, rk + 1, rk + 2);
	ok(cc == 0 && rk[3] == 3 && rk[4] == 5 && rk[0] == 1 && rk[1] == 4 &&
		   rk[2] == 1,
	   "%%3.2d packed every other item, %%*.*d with stride 3, %%.d one item");
	ok(pvm_unpackf("%d", rk) == PvmNoData, "%%0d packed nothing");
	pvm_initsend(PvmDataRaw);
	ok(pvm_packf("%d %q %d", 7, 8, 9) == PvmBadParam &&
		   pvm_packf("%d %+", 1, 0) == PvmBadParam &&
		   pvm_packf("%i", 1) == PvmBadParam &&
		   pvm_packf("%-3d", ia) == PvmBadParam &&
		   pvm_packf(NULL) == PvmBadParam,
	   "unknown conversions give PvmBadParam");
	got = body(pvm_getsbuf(), &n);
	if (got && n == 8)
		memcpy(v, got, 8);
	ok(got && n == 8 && v[0] == 7 && v[1] == 1,
	   "items before a bad conversion are packed");
	free(got);
	pvm_initsend(PvmDataRaw);
	pvm_pkint(ia, 2, 1);
	pvm_setrbuf(pvm_getsbuf());
	ok(pvm_unpackf("%+ %d", 0, ri) == PvmBadParam,
	   "unpackf %%+: PvmBadParam");
	ok(pvm_unpackf("%c", rc) == 0 && rc[0] == ((const char *)ia)[0],
	   "unpackf %%c reads one byte (the first of Raw int 1)");
	ok(pvm_packf("%+", 7) == PvmBadParam, "packf %%+ with a bad encoding");
	pvm_initsend(PvmDataDefault);
#if LONG_MAX > INT32_MAX
	ok(pvm_packf("%ld", 1L << 40) == PvmOverflow,
	   "packf %%ld overflow in XDR");
#else
	ok(1, "# SKIP long has 32 bits: no %%ld overflows XDR");
#endif
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Speed of large arrays, as a diagnostic; the bound only catches a
 * quadratic or per-byte slow path (generous for slow CI hosts). */
static void test_speed(void)
{
	enum { N = 2 * 1024 * 1024 }; /* 16 MiB of doubles */
	double *d = malloc(N * sizeof *d), *r = malloc(N * sizeof *d);
	fill(T_DOUBLE, d, N);
	for (int enc = 0; enc <= 1; enc++) {
		pvm_initsend(enc); /* warm up: first touch of the pages */
		pvm_pkdouble(d, N, 1);
		pvm_setrbuf(pvm_getsbuf());
		pvm_upkdouble(r, N, 1);
		pvm_setsbuf(pvm_getrbuf()); /* initsend reuses its memory */
		double t0 = now();
		pvm_initsend(enc);
		int cc = pvm_pkdouble(d, N, 1);
		double t1 = now();
		pvm_setrbuf(pvm_getsbuf());
		cc |= pvm_upkdouble(r, N, 1);
		double t2 = now();
		printf("# %s 16 MiB doubles: pack %.1f MB/s, unpack %.1f MB/s\n",
		       ename(enc), 16.777216 / (t1 - t0),
		       16.777216 / (t2 - t1));
		ok(cc == 0 && !memcmp(d, r, N * sizeof *d) && t2 - t0 < 2.0,
		   "%s 16 MiB pack+unpack under 2 s", ename(enc));
	}
	/* many small packs: geometric growth */
	double t0 = now();
	pvm_initsend(PvmDataDefault);
	int cc = 0;
	for (int i = 0; i < 1000000; i++)
		cc |= pvm_pkint(&i, 1, 1);
	double t1 = now();
	printf("# 1e6 single-int XDR packs: %.3f s\n", t1 - t0);
	ok(cc == 0 && t1 - t0 < 2.0, "a million small packs under 2 s");
	pvm_initsend(PvmDataDefault);
	free(d), free(r);
}

int main(void)
{
	pvm_setopt(PvmAutoErr, 0);
	test_buffers();
	test_roundtrip();
	test_mixed();
	test_xdr_identity();
	test_long();
	test_nodata();
	test_badparam();
	test_inplace();
	test_pkmesg();
	test_upkmesg_claims();
	test_packf();
	test_foreign();
	test_speed();
	printf("1..%d\n", ntest);
	return nfail ? 1 : 0;
}
