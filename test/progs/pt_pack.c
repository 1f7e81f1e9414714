/*
 * pt_pack - packing tests between two real tasks.  Usage: pt_pack <test>
 *   matrix   every pk/upk type x encoding (Default, Raw, InPlace) x stride,
 *            sent to a spawned copy that checks and echoes it back
 *   mixed    all types in one message, then PvmNoData past the end
 *   longs    long/ulong in Default: 4 bytes on the wire, sign kept,
 *            PvmOverflow for values that do not fit; 64 bits in Raw
 *   packf    pvm_packf / pvm_unpackf conversions, checked against pk/upk
 *   errors   argument errors of the pack and buffer calls
 */
#include <limits.h>
#include <stdint.h>

#include "tcommon.h"

#define ME	   "pt_pack"
#define TAG_CASE   100
#define TAG_ECHO   101
#define TAG_DETAIL 102
#define TAG_END	   103

enum {
	T_BYTE,
	T_SHORT,
	T_INT,
	T_LONG,
	T_FLOAT,
	T_DOUBLE,
	T_CPLX,
	T_DCPLX,
	T_USHORT,
	T_UINT,
	T_ULONG,
	T_STR,
	T_N
};

static const char *encname[] = {"Default", "Raw", "InPlace"};

struct ptype {
	const char *name;
	size_t size;
	int (*pk)(void *, int, int);
	int (*upk)(void *, int, int);
};

/* Adapters: the pk/upk functions take typed pointers. */
#define ADAPT(n, T)                                                            \
	static int pk_##n(void *p, int k, int s)                               \
	{                                                                      \
		return pvm_pk##n((T *)p, k, s);                                \
	}                                                                      \
	static int upk_##n(void *p, int k, int s)                              \
	{                                                                      \
		return pvm_upk##n((T *)p, k, s);                               \
	}
ADAPT(byte, char)
ADAPT(short, short)
ADAPT(int, int)
ADAPT(long, long)
ADAPT(float, float)
ADAPT(double, double)
ADAPT(cplx, float)
ADAPT(dcplx, double)
ADAPT(ushort, unsigned short)
ADAPT(uint, unsigned int)
ADAPT(ulong, unsigned long)

static const struct ptype types[T_N] = {
	{"byte", 1, pk_byte, upk_byte},
	{"short", sizeof(short), pk_short, upk_short},
	{"int", sizeof(int), pk_int, upk_int},
	{"long", sizeof(long), pk_long, upk_long},
	{"float", sizeof(float), pk_float, upk_float},
	{"double", sizeof(double), pk_double, upk_double},
	{"cplx", 2 * sizeof(float), pk_cplx, upk_cplx},
	{"dcplx", 2 * sizeof(double), pk_dcplx, upk_dcplx},
	{"ushort", sizeof(unsigned short), pk_ushort, upk_ushort},
	{"uint", sizeof(unsigned int), pk_uint, upk_uint},
	{"ulong", sizeof(unsigned long), pk_ulong, upk_ulong},
	{"str", 0, NULL, NULL},
};

/* The i-th value of a type, written to `out`.  In Default encoding longs
 * travel as 4 bytes, so their values stay within 32 bits (negative ones
 * included); in Raw and InPlace they use all 64 bits. */
static void gen(int type, int enc, int i, void *out)
{
	uint32_t u = (uint32_t)i * 2654435761u + 12345u;
	uint64_t w =
		(uint64_t)i * 0x9e3779b97f4a7c15ull + 0x0123456789abcdefull;
	switch (type) {
	case T_BYTE:
		*(char *)out = (char)(u >> 13);
		break;
	case T_SHORT:
		*(short *)out = (short)(u >> 7);
		break;
	case T_INT:
		*(int *)out = i == 0 ? INT_MIN : i == 1 ? INT_MAX : (int)u;
		break;
	case T_LONG:
		if (enc == PvmDataDefault)
			*(long *)out = i == 0	? INT32_MIN
				       : i == 1 ? INT32_MAX
						: (long)(int32_t)u;
		else
			*(long *)out = i == 0	? LONG_MIN
				       : i == 1 ? LONG_MAX
						: (long)w;
		break;
	case T_FLOAT:
		*(float *)out = (float)((int)u >> 8) / 64.0f;
		break;
	case T_DOUBLE:
		*(double *)out = (double)(int64_t)w / 3.0e5;
		break;
	case T_CPLX:
		((float *)out)[0] = (float)(int)(u >> 9) * 0.5f;
		((float *)out)[1] = -(float)i - 0.25f;
		break;
	case T_DCPLX:
		((double *)out)[0] = (double)(int64_t)w * 1e-3;
		((double *)out)[1] = -1.0 / (i + 1);
		break;
	case T_USHORT:
		*(unsigned short *)out = (unsigned short)(65535u - (u >> 16));
		break;
	case T_UINT:
		*(unsigned *)out = i == 0 ? UINT_MAX : u;
		break;
	case T_ULONG:
		if (enc == PvmDataDefault)
			*(unsigned long *)out =
				i == 0 ? 0xffffffffUL : (unsigned long)u;
		else
			*(unsigned long *)out =
				i == 0 ? ULONG_MAX : (unsigned long)w;
		break;
	}
}

/* String number i: lengths 0, 1, ... and a long one. */
static void gen_str(int i, char *out, size_t cap)
{
	size_t len = i == 2 ? 9000 : (size_t)(i * 7) % 61, k;
	if (len >= cap)
		len = cap - 1;
	for (k = 0; k < len; k++)
		out[k] = (char)('!' + (i * 31 + k) % 90);
	out[len] = 0;
}

static const int nitems[3] = {3001, 37, 1};

struct ccase {
	int id, type, enc, stride, ustride, n;
};

/* Case k of the matrix. */
static void case_of(struct ccase *c, int k)
{
	c->id = k;
	c->enc = k / (T_N * 3);
	c->type = (k / 3) % T_N;
	c->stride = 1 + k % 3;
	c->ustride = 1 + (k + 1) % 3; /* unpack with a different stride */
	c->n = nitems[(c->type + c->stride) % 3];
}
#define NCASES (3 * T_N * 3)

/* Expected pack result for a case: InPlace cannot do strings or strides. */
static int pack_expect(const struct ccase *c)
{
	if (c->enc == PvmDataInPlace && (c->type == T_STR || c->stride > 1))
		return PvmNotImpl;
	return 0;
}

/* Fills an array of n elements at `stride` with the case's values and
 * sentinels between them. */
static unsigned char *make_data(const struct ccase *c, int stride)
{
	size_t sz = types[c->type].size, k;
	unsigned char *d = malloc(sz * (size_t)c->n * stride);
	memset(d, 0xa5, sz * (size_t)c->n * stride);
	for (k = 0; k < (size_t)c->n; k++)
		gen(c->type, c->enc, (int)k, d + k * stride * sz);
	return d;
}

/* Unpacks the case's data with `stride` and checks values and the gaps.
 * Returns the number of errors; describes the first in `why`. */
static int unpack_check(const struct ccase *c, int stride, char *why, size_t wl,
			unsigned char **keep)
{
	int errs = 0, k;
	if (c->type == T_STR) {
		char got[10000], exp[10000];
		for (k = 0; k < c->n; k++) {
			memset(got, 'X', sizeof got);
			int r = pvm_upkstr(got);
			gen_str(k, exp, sizeof exp);
			if (r != 0 || strcmp(got, exp)) {
				if (!errs++)
					snprintf(
						why, wl,
						"string %d: r=%d len %zu, expected len %zu",
						k, r, strnlen(got, sizeof got),
						strlen(exp));
			}
		}
		return errs;
	}
	size_t sz = types[c->type].size, total = sz * (size_t)c->n * stride;
	unsigned char *d = malloc(total), e[16], sent[16];
	memset(d, 0xa5, total);
	memset(sent, 0xa5, sizeof sent);
	int r = types[c->type].upk(d, c->n, stride);
	if (r != 0) {
		snprintf(why, wl, "upk%s returned %d", types[c->type].name, r);
		errs++;
	}
	for (k = 0; k < c->n; k++) {
		gen(c->type, c->enc, k, e);
		unsigned char *at = d + (size_t)k * stride * sz;
		if (memcmp(at, e, sz)) {
			if (!errs++)
				snprintf(why, wl,
					 "%s item %d of %d (stride %d) differs",
					 types[c->type].name, k, c->n, stride);
		}
		int g;
		for (g = 1; g < stride && k < c->n - 1; g++)
			if (memcmp(at + g * sz, sent, sz)) {
				if (!errs++)
					snprintf(
						why, wl,
						"%s: gap after item %d overwritten",
						types[c->type].name, k);
			}
	}
	if (keep)
		*keep = d;
	else
		free(d);
	return errs;
}

/* Packs the case's data (values generated, or taken from `src` at
 * `stride`).  Returns the pack call's result. */
static int pack_case(const struct ccase *c, unsigned char *src, int stride)
{
	if (c->type == T_STR) {
		int k, r = 0;
		for (k = 0; k < c->n && r == 0; k++) {
			char s[10000];
			gen_str(k, s, sizeof s);
			r = pvm_pkstr(s);
		}
		return r;
	}
	return types[c->type].pk(src, c->n, stride);
}

static int child_matrix(void)
{
	int par = pvm_parent();
	for (;;) {
		int b = t_recv(par, -1, 60);
		if (b <= 0)
			return 1;
		int len, tag, src;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag == TAG_END)
			break;
		int hdr[6];
		pvm_upkint(hdr, 6, 1);
		struct ccase c = {hdr[0], hdr[1], hdr[2],
				  hdr[3], hdr[4], hdr[5]};
		char why[200] = "";
		unsigned char *got = NULL;
		int errs = unpack_check(&c, c.ustride, why, sizeof why, &got);
		/* one more item is past the end */
		int extra;
		if (pvm_upkint(&extra, 1, 1) != PvmNoData) {
			if (!errs++)
				snprintf(why, sizeof why,
					 "no PvmNoData past the end");
		}
		/* echo back what we unpacked, same encoding, from our stride */
		pvm_initsend(c.enc);
		int ce[2] = {c.id, errs};
		pvm_pkint(ce, 2, 1);
		if (c.enc == PvmDataInPlace && c.ustride > 1 && got) {
			/* InPlace takes no strides: echo a compact copy */
			size_t sz = types[c.type].size, k;
			unsigned char *flat = malloc(sz * c.n);
			for (k = 0; k < (size_t)c.n; k++)
				memcpy(flat + k * sz, got + k * c.ustride * sz,
				       sz);
			free(got);
			got = flat;
			pack_case(&c, got, 1);
		} else
			pack_case(&c, got, c.ustride);
		pvm_send(par, TAG_ECHO);
		if (errs) {
			pvm_initsend(PvmDataDefault);
			pvm_pkstr(why);
			pvm_send(par, TAG_DETAIL);
		}
		free(got);
	}
	pvm_exit();
	return 0;
}

static int test_matrix(void)
{
	int me = pvm_mytid(), k, sent = 0, echoed = 0;
	CHECK(me > 0, "mytid %d", me);
	int child = 0;
	char *av[] = {"child", NULL};
	EQ(pvm_spawn(ME, av, 0, NULL, 1, &child), 1);
	if (child <= 0)
		return t_done("matrix");
	int notimpl = 0;
	for (k = 0; k < NCASES; k++) {
		struct ccase c;
		case_of(&c, k);
		int hdr[6] = {c.id, c.type, c.enc, c.stride, c.ustride, c.n};
		unsigned char *d =
			c.type == T_STR ? NULL : make_data(&c, c.stride);
		EQ(pvm_initsend(c.enc) > 0, 1);
		EQ(pvm_pkint(hdr, 6, 1), 0);
		int r = pack_case(&c, d, c.stride);
		int exp = pack_expect(&c);
		CHECK(r == exp,
		      "%s %s stride %d: pack returned %d, expected %d",
		      encname[c.enc], types[c.type].name, c.stride, r, exp);
		if (exp == 0 && r == 0) {
			/* InPlace reads the data at send time: change nothing
			 * before */
			EQ(pvm_send(child, TAG_CASE), 0);
			sent++;
		} else if (exp)
			notimpl++;
		free(d);
	}
	for (k = 0; k < sent; k++) {
		int b = t_recv(child, TAG_ECHO, 30);
		CHECK(b > 0, "echo %d of %d missing", k, sent);
		if (b <= 0)
			break;
		int ce[2] = {-1, -1};
		pvm_upkint(ce, 2, 1);
		struct ccase c;
		case_of(&c, ce[0]);
		char why[200] = "";
		CHECK(ce[1] == 0, "%s %s stride %d n %d: child found %d errors",
		      encname[c.enc], types[c.type].name, c.stride, c.n, ce[1]);
		int errs = unpack_check(&c, 1, why, sizeof why, NULL);
		CHECK(errs == 0, "%s %s stride %d n %d echo: %s",
		      encname[c.enc], types[c.type].name, c.stride, c.n, why);
		if (ce[1]) {
			int db = t_recv(child, TAG_DETAIL, 10);
			if (db > 0) {
				pvm_upkstr(why);
				printf("  child: %s\n", why);
			}
		}
		echoed++;
	}
	pvm_initsend(PvmDataDefault);
	pvm_send(child, TAG_END);
	printf("cases %d sent %d echoed %d notimpl %d\n", NCASES, sent, echoed,
	       notimpl);
	pvm_exit();
	return t_done("matrix");
}

/* All types in one message, in each encoding; unpacked in order. */
static int test_mixed(void)
{
	int me = pvm_mytid(), enc, t;
	CHECK(me > 0, "mytid %d", me);
	for (enc = 0; enc < 3; enc++) {
		unsigned char *data[T_N];
		struct ccase c;
		EQ(pvm_initsend(enc) > 0, 1);
		for (t = 0; t < T_N; t++) {
			c.type = t, c.enc = enc, c.n = 5 + t, c.stride = 1;
			data[t] = NULL;
			if (t == T_STR && enc == PvmDataInPlace)
				continue;
			if (t != T_STR)
				data[t] = make_data(&c, 1);
			EQ(pack_case(&c, data[t], 1), 0);
		}
		EQ(pvm_send(me, 7), 0);
		for (t = 0; t < T_N; t++)
			free(data[t]);
		int b = t_recv(me, 7, 10);
		CHECK(b > 0, "self message lost (%s)", encname[enc]);
		for (t = 0; t < T_N; t++) {
			char why[200] = "";
			c.type = t, c.enc = enc, c.n = 5 + t, c.stride = 1;
			if (t == T_STR && enc == PvmDataInPlace)
				continue;
			int errs = unpack_check(&c, 1, why, sizeof why, NULL);
			CHECK(errs == 0, "mixed %s: %s", encname[enc], why);
		}
		int x;
		double dd;
		char s[8];
		EQ(pvm_upkint(&x, 1, 1), PvmNoData);
		EQ(pvm_upkdouble(&dd, 1, 1), PvmNoData);
		EQ(pvm_upkbyte(s, 1, 1), PvmNoData);
		EQ(pvm_upkstr(s), PvmNoData);
		EQ(pvm_freebuf(b), 0);
	}
	/* asking for more items than are left */
	int three[3] = {1, 2, 3}, four[4];
	for (enc = 0; enc < 3; enc++) {
		pvm_initsend(enc);
		pvm_pkint(three, 3, 1);
		pvm_send(me, 8);
		t_recv(me, 8, 10);
		EQ(pvm_upkint(four, 4, 1), PvmNoData);
	}
	/* InPlace keeps only the pointer: what is in memory at pvm_send goes */
	int live[4] = {1, 2, 3, 4}, seen[4] = {0};
	pvm_initsend(PvmDataInPlace);
	EQ(pvm_pkint(live, 4, 1), 0);
	live[0] = 100, live[3] = 400;
	EQ(pvm_send(me, 10), 0);
	live[1] = -1; /* after the send: not seen */
	CHECK(t_recv(me, 10, 10) > 0, "InPlace self message lost");
	EQ(pvm_upkint(seen, 4, 1), 0);
	CHECK(seen[0] == 100 && seen[1] == 2 && seen[2] == 3 && seen[3] == 400,
	      "InPlace sent %d %d %d %d", seen[0], seen[1], seen[2], seen[3]);
	/* bufinfo reports the bytes of Default data (XDR: 4 per int) */
	pvm_initsend(PvmDataDefault);
	pvm_pkint(three, 3, 1);
	pvm_send(me, 9);
	int b = t_recv(me, 9, 10), len = -1, tag = -1, src = -1;
	EQ(pvm_bufinfo(b, &len, &tag, &src), 0);
	EQ(len, 12);
	EQ(tag, 9);
	EQ(src, me);
	pvm_exit();
	return t_done("mixed");
}

static int test_longs(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	long v[6] = {-1, -123456789, INT32_MIN, INT32_MAX, 0, 77};
	unsigned long uv[3] = {0xffffffffUL, 0, 4000000000UL};

#if LONG_MAX > INT32_MAX /* longs past XDR's 32 bits: 64-bit long only */
	long big = 1L << 40, nbig = -(1L << 40);
	unsigned long ubig = 1UL << 32;
	pvm_initsend(PvmDataDefault);
	EQ(pvm_pklong(&big, 1, 1), PvmOverflow);
	EQ(pvm_pklong(&nbig, 1, 1), PvmOverflow);
	EQ(pvm_pkulong(&ubig, 1, 1), PvmOverflow);
	long over = (long)INT32_MAX + 1;
	EQ(pvm_pklong(&over, 1, 1), PvmOverflow);
#endif

	pvm_initsend(PvmDataDefault);
	EQ(pvm_pklong(v, 6, 1), 0);
	EQ(pvm_pkulong(uv, 3, 1), 0);
	pvm_send(me, 5);
	int b = t_recv(me, 5, 10), len = 0;
	pvm_bufinfo(b, &len, NULL, NULL);
	EQ(len, 9 * 4); /* 4 bytes each on the wire */
	long g[6] = {0};
	unsigned long ug[3] = {0};
	EQ(pvm_upklong(g, 6, 1), 0);
	EQ(pvm_upkulong(ug, 3, 1), 0);
	int i;
	for (i = 0; i < 6; i++)
		CHECK(g[i] == v[i], "Default long %d: got %ld, sent %ld", i,
		      g[i], v[i]);
	for (i = 0; i < 3; i++)
		CHECK(ug[i] == uv[i], "Default ulong %d: got %lu, sent %lu", i,
		      ug[i], uv[i]);

	/* Raw keeps all the bits of a long */
	long rv[3] = {LONG_MAX, LONG_MIN + 1, LONG_MIN};
	unsigned long ru[2] = {ULONG_MAX, ULONG_MAX / 3};
	pvm_initsend(PvmDataRaw);
	EQ(pvm_pklong(rv, 3, 1), 0);
	EQ(pvm_pkulong(ru, 2, 1), 0);
	pvm_send(me, 6);
	t_recv(me, 6, 10);
	long rg[3] = {0};
	unsigned long rug[2] = {0};
	pvm_upklong(rg, 3, 1);
	pvm_upkulong(rug, 2, 1);
	for (i = 0; i < 3; i++)
		CHECK(rg[i] == rv[i], "Raw long %d: got %ld, sent %ld", i,
		      rg[i], rv[i]);
	for (i = 0; i < 2; i++)
		CHECK(rug[i] == ru[i], "Raw ulong %d: got %lu, sent %lu", i,
		      rug[i], ru[i]);
	pvm_exit();
	return t_done("longs");
}

static int test_packf(void)
{
	int me = pvm_mytid(), enc, i;
	CHECK(me > 0, "mytid %d", me);
	for (enc = 0; enc < 2; enc++) {
		int ia[6] = {1, -2, 3, -4, 5, -6}, ib[5] = {0};
		double da[4] = {1.5, -2.25, 1e300, -0.0}, db[4] = {0};
		float fa[4] = {0.5f, 2.0f, -3.0f, 1e30f}, cx[4] = {1, 2, 3, 4},
		      cxb[4] = {0};
		double zx[4] = {1e-300, 2, -3, 4}, zxb[4] = {0};
		short sa[3] = {-32768, 7, 32767}, sb[3] = {0};
		char bytes[5] = {'a', 'b', 0, (char)0xff, 'e'}, bb[5] = {0};
		int r = pvm_packf(
			"%+ %c %hd %d %ld %ud %hud %lud %f %lf %s %*d %3.2d %*.*lf %2x %2lx %3hd %5c %2f",
			enc, 'Q', (short)-1234, -7654321, -99L, 4000000000u,
			(unsigned short)65000, 4000000001UL, 0.75, -1.0e-5,
			"packf string", 6, ia, ia, 2, 2, da, cx, zx, sa, bytes,
			fa);
		EQ(r, 0);
		EQ(pvm_send(me, 11), 0);
		EQ(t_recv(me, 11, 10) > 0, 1);
		char c = 0, str[64] = "";
		short h = 0;
		int d = 0, iall[6] = {0};
		long l = 0;
		unsigned u = 0;
		unsigned short hu = 0;
		unsigned long lu = 0;
		float f = 0;
		double lf = 0;
		float fb[2] = {0};
		r = pvm_unpackf(
			"%c %hd %d %ld %ud %hud %lud %f %lf %s %*d %3.2d %*.*lf %2x %2lx %3hd %5c %2f",
			&c, &h, &d, &l, &u, &hu, &lu, &f, &lf, str, 6, iall, ib,
			2, 2, db, cxb, zxb, sb, bb, fb);
		EQ(r, 0);
		EQ(c, 'Q');
		EQ(h, -1234);
		EQ(d, -7654321);
		EQ(l, -99);
		EQ(u, 4000000000u);
		EQ(hu, 65000);
		EQ(lu, 4000000001UL);
		CHECK(f == 0.75f, "%%f %g", f);
		CHECK(lf == -1.0e-5, "%%lf %g", lf);
		CHECK(!strcmp(str, "packf string"), "%%s '%s'", str);
		for (i = 0; i < 6; i++)
			EQ(iall[i], ia[i]);
		/* %3.2d: ia[0], ia[2], ia[4] packed, unpacked to ib[0], ib[2],
		 * ib[4] */
		CHECK(ib[0] == ia[0] && ib[2] == ia[2] && ib[4] == ia[4] &&
			      ib[1] == 0 && ib[3] == 0,
		      "%%3.2d %d %d %d %d %d", ib[0], ib[1], ib[2], ib[3],
		      ib[4]);
		CHECK(db[0] == da[0] && db[2] == da[2], "%%*.*lf %g %g", db[0],
		      db[2]);
		for (i = 0; i < 4; i++)
			CHECK(cxb[i] == cx[i] && zxb[i] == zx[i],
			      "complex %d: %g %g", i, cxb[i], zxb[i]);
		for (i = 0; i < 3; i++)
			EQ(sb[i], sa[i]);
		EQ(memcmp(bb, bytes, 5), 0);
		CHECK(fb[0] == fa[0] && fb[1] == fa[1], "%%2f %g %g", fb[0],
		      fb[1]);
		EQ(pvm_upkint(&d, 1, 1), PvmNoData);
	}
	/* packf and pk* produce the same message */
	int v[4] = {10, 20, 30, 40}, w[4] = {0};
	pvm_packf("%+ %4d %s", PvmDataDefault, v, "tail");
	pvm_send(me, 12);
	t_recv(me, 12, 10);
	char s[16] = "";
	EQ(pvm_upkint(w, 4, 1), 0);
	EQ(pvm_upkstr(s), 0);
	EQ(memcmp(v, w, sizeof v), 0);
	CHECK(!strcmp(s, "tail"), "tail '%s'", s);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 4, 1);
	pvm_pkstr("tail2");
	pvm_send(me, 13);
	t_recv(me, 13, 10);
	memset(w, 0, sizeof w);
	EQ(pvm_unpackf("%4d %s", w, s), 0);
	EQ(memcmp(v, w, sizeof v), 0);
	CHECK(!strcmp(s, "tail2"), "tail2 '%s'", s);
	pvm_exit();
	return t_done("packf");
}

static int test_errors(void)
{
	int me = pvm_mytid(), x = 0;
	CHECK(me > 0, "mytid %d", me);
	EQ(pvm_initsend(99), PvmBadParam);
	EQ(pvm_mkbuf(99), PvmBadParam);
	int b = pvm_mkbuf(PvmDataDefault);
	CHECK(b > 0, "mkbuf %d", b);
	EQ(pvm_setsbuf(b) >= 0, 1);
	EQ(pvm_getsbuf(), b);
	EQ(pvm_pkint(&x, 1, 1), 0);
	EQ(pvm_pkint(&x, -1, 1), PvmBadParam);
	EQ(pvm_setsbuf(123456), PvmNoSuchBuf);
	EQ(pvm_setrbuf(123456), PvmNoSuchBuf);
	EQ(pvm_freebuf(123456), PvmNoSuchBuf);
	EQ(pvm_bufinfo(123456, NULL, NULL, NULL), PvmNoSuchBuf);
	EQ(pvm_freebuf(b), 0);
	EQ(pvm_freebuf(b), PvmNoSuchBuf);
	/* no active send / receive buffer */
	EQ(pvm_setsbuf(0) >= 0, 1);
	EQ(pvm_pkint(&x, 1, 1), PvmNoBuf);
	EQ(pvm_setrbuf(0) >= 0, 1);
	EQ(pvm_upkint(&x, 1, 1), PvmNoBuf);
	/* getrbuf / setrbuf and pvm_pkmesg / pvm_upkmesg: a message inside a
	 * message */
	pvm_initsend(PvmDataRaw);
	int inner[3] = {4, 5, 6};
	pvm_pkint(inner, 3, 1);
	int ib = pvm_getsbuf();
	int ob = pvm_mkbuf(PvmDataDefault);
	pvm_setsbuf(ob);
	EQ(pvm_pkmesg(ib), 0);
	EQ(pvm_send(me, 14), 0);
	int rb = t_recv(me, 14, 10);
	EQ(pvm_getrbuf(), rb);
	int nb = pvm_upkmesg();
	CHECK(nb > 0, "upkmesg %d", nb);
	if (nb > 0) {
		int got[3] = {0};
		EQ(pvm_setrbuf(nb), rb);
		EQ(pvm_upkint(got, 3, 1), 0);
		EQ(memcmp(got, inner, sizeof got), 0);
	}
	/* a received InPlace message takes more items (copied: its body is
	 * ours now) and passes them on */
	pvm_initsend(PvmDataInPlace);
	int two[2] = {7, 8}, more = 9, bytes = 0;
	pvm_pkint(two, 2, 1);
	EQ(pvm_send(me, 15), 0);
	rb = t_recv(me, 15, 10);
	EQ(pvm_setsbuf(rb) >= 0, 1);
	EQ(pvm_pkint(&more, 1, 1), 0);
	more = -1; /* sent as packed, not as it is now */
	EQ(pvm_bufinfo(rb, &bytes, NULL, NULL), 0);
	EQ(bytes, 3 * (int)sizeof(int));
	EQ(pvm_send(me, 16), 0);
	int fb = t_recv(me, 16, 10), three[3] = {0};
	CHECK(fb > 0, "forwarded %d", fb);
	EQ(pvm_upkint(three, 3, 1), 0);
	CHECK(three[0] == 7 && three[1] == 8 && three[2] == 9, "got %d %d %d",
	      three[0], three[1], three[2]);
	pvm_exit();
	return t_done("errors");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "child"))
		return child_matrix();
	if (argc < 2) {
		fprintf(stderr,
			"usage: pt_pack matrix|mixed|longs|packf|errors\n");
		return 2;
	}
	if (!strcmp(argv[1], "matrix"))
		return test_matrix();
	if (!strcmp(argv[1], "mixed"))
		return test_mixed();
	if (!strcmp(argv[1], "longs"))
		return test_longs();
	if (!strcmp(argv[1], "packf"))
		return test_packf();
	if (!strcmp(argv[1], "errors"))
		return test_errors();
	return 2;
}
