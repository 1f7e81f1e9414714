/*
 * pack.c - packing items into a send buffer and unpacking them from the
 * receive buffer, in the buffer's encoding (see pack.h).
 */
#include "pack.h"

#include <stdlib.h>
#include <string.h>

const size_t lp_type_size[LP_NTYPES] = {
	[LP_BYTE] = 1,
	[LP_SHORT] = sizeof(short),
	[LP_USHORT] = sizeof(unsigned short),
	[LP_INT] = sizeof(int),
	[LP_UINT] = sizeof(unsigned),
	[LP_LONG] = sizeof(long),
	[LP_ULONG] = sizeof(unsigned long),
	[LP_FLOAT] = sizeof(float),
	[LP_DOUBLE] = sizeof(double),
	[LP_CPLX] = 2 * sizeof(float),
	[LP_DCPLX] = 2 * sizeof(double),
};

/* The datatypes of pvm_psend, pvm_precv and pvm_reduce (pvm3.h: PVM_STR
 * 0 .. PVM_ULONG 11, every one of them) as packing types. */
static const enum lp_type dtypes[] = {
	[PVM_STR] = LP_BYTE,	  [PVM_BYTE] = LP_BYTE,
	[PVM_SHORT] = LP_SHORT,	  [PVM_INT] = LP_INT,
	[PVM_FLOAT] = LP_FLOAT,	  [PVM_CPLX] = LP_CPLX,
	[PVM_DOUBLE] = LP_DOUBLE, [PVM_DCPLX] = LP_DCPLX,
	[PVM_LONG] = LP_LONG,	  [PVM_USHORT] = LP_USHORT,
	[PVM_UINT] = LP_UINT,	  [PVM_ULONG] = LP_ULONG,
};

int lp_dtype_type(int datatype)
{
	if (datatype < 0 || datatype >= (int)(sizeof dtypes / sizeof dtypes[0]))
		return -1;
	return (int)dtypes[datatype];
}

size_t lp_dtype_size(int datatype)
{
	int t = lp_dtype_type(datatype);
	return t < 0 ? 0 : lp_type_size[t];
}

struct lp_buf *lp_cur_sbuf(int *err)
{
	struct lp_buf *b = lp_buf_get(lp_sbuf);
	if (!b)
		*err = PvmNoBuf;
	return b;
}

struct lp_buf *lp_cur_rbuf(int *err)
{
	struct lp_buf *b = lp_buf_get(lp_rbuf);
	if (!b)
		*err = PvmNoBuf;
	return b;
}

/* Appends segment {p, len} to an InPlace buffer; with LP_COPY the bytes
 * are copied first. */
static int add_seg(struct lp_buf *b, const void *p, size_t len, int flags)
{
	if (b->nseg == b->segcap) {
		int n = b->segcap ? 2 * b->segcap : 8;
		struct lp_seg *s = realloc(b->seg, (size_t)n * sizeof *s);
		if (!s)
			return PvmNoMem;
		b->seg = s;
		b->segcap = n;
	}
	if (flags & LP_COPY) {
		if (b->nown == b->owncap) {
			int n = b->owncap ? 2 * b->owncap : 8;
			void **o = realloc(b->own, (size_t)n * sizeof *o);
			if (!o)
				return PvmNoMem;
			b->own = o;
			b->owncap = n;
		}
		void *own = malloc(len ? len : 1);
		if (!own)
			return PvmNoMem;
		memcpy(own, p, len);
		b->own[b->nown++] = own;
		p = own;
	}
	b->seg[b->nseg].p = p;
	b->seg[b->nseg].len = len;
	b->nseg++;
	return 0;
}

static const char *elem(const void *p, int i, int stride, size_t is)
{
	return (const char *)p + (ptrdiff_t)i * stride * (ptrdiff_t)is;
}

int lp_pack(struct lp_buf *b, enum lp_type t, const void *p, int nitem,
	    int stride, int flags)
{
	size_t is = lp_type_size[t];
	size_t n = (size_t)nitem;
	int cc;

	if (nitem <= 0)
		return 0;
	/* A received InPlace message has its body in data, native bytes:
	 * more items are appended there, as to a Raw one. */
	if (b->enc == PvmDataInPlace && !b->received)
		return add_seg(b, p, n * is, flags);
	if (b->enc == PvmDataDefault) {
		if ((cc = lp_xdr_check(t, p, nitem, stride)) < 0)
			return cc;
		size_t sz = lp_xdr_size(t, n);
		if ((cc = lp_buf_reserve(b, sz)) < 0)
			return cc;
		lp_xdr_enc(t, b->data + b->len, p, nitem, stride);
		b->len += sz;
		return 0;
	}
	/* Raw: native bytes */
	if ((cc = lp_buf_reserve(b, n * is)) < 0)
		return cc;
	uint8_t *o = b->data + b->len;
	if (stride == 1) {
		memcpy(o, p, n * is);
	} else {
		for (size_t i = 0; i < n; i++)
			memcpy(o + i * is, elem(p, (int)i, stride, is), is);
	}
	b->len += n * is;
	return 0;
}

/* Native decoding serves Raw messages and received InPlace ones; an
 * InPlace send buffer cannot be unpacked (PvmBadMsg, as the reference). */
static int readable(const struct lp_buf *b)
{
	return !(b->enc == PvmDataInPlace && !b->received);
}

int lp_unpack(struct lp_buf *b, enum lp_type t, void *p, int nitem, int stride)
{
	size_t is = lp_type_size[t];
	size_t n = (size_t)nitem;
	size_t rem = b->len - b->rpos;

	if (!readable(b))
		return PvmBadMsg;
	if (nitem <= 0)
		return 0;
	/* data is NULL while the body is empty: form `in` only once the
	 * items are known to be there */
	const uint8_t *in;
	if (b->enc == PvmDataDefault) {
		size_t sz = lp_xdr_size(t, n);
		if (t == LP_BYTE && sz > rem && n <= rem)
			sz = rem; /* tolerate a final array without its padding
				   */
		if (sz > rem)
			return PvmNoData;
		in = b->data + b->rpos;
		lp_xdr_dec(t, in, p, nitem, stride);
		b->rpos += sz;
		return 0;
	}
	if (b->fmt != DSIG_FMT_NATIVE) {
		/* from a host of another data format */
		size_t fs = lp_fmt_size(t, b->fmt);
		if (n > rem / fs)
			return PvmNoData;
		int cc = lp_convert(t, b->fmt, b->data + b->rpos, p, nitem,
				    stride);
		if (cc == 0)
			b->rpos += n * fs;
		return cc;
	}
	if (n > rem / is)
		return PvmNoData;
	in = b->data + b->rpos;
	if (stride == 1) {
		memcpy(p, in, n * is);
	} else {
		for (size_t i = 0; i < n; i++)
			memcpy((char *)elem(p, (int)i, stride, is), in + i * is,
			       is);
	}
	b->rpos += n * is;
	return 0;
}

/* A string is an int, strlen + 1, then the bytes with their NUL. */
int lp_pack_str(struct lp_buf *b, const char *s)
{
	if (b->enc == PvmDataInPlace && !b->received)
		return PvmNotImpl; /* man 3 pvm_pack, WARNINGS */
	size_t len = strlen(s) + 1;
	if (len > INT32_MAX)
		return PvmBadParam;
	int n = (int)len;
	size_t before = b->len;
	int cc = lp_pack(b, LP_INT, &n, 1, 1, 0);
	if (cc == 0 && (cc = lp_pack(b, LP_BYTE, s, n, 1, 0)) < 0)
		b->len = before;
	return cc;
}

int lp_unpack_str(struct lp_buf *b, char *s)
{
	int n, cc;
	size_t pos = b->rpos;

	if ((cc = lp_unpack(b, LP_INT, &n, 1, 1)) < 0)
		return cc;
	if (n < 0) {
		b->rpos = pos;
		return PvmNoData;
	}
	if ((cc = lp_unpack(b, LP_BYTE, s, n, 1)) < 0) {
		b->rpos = pos;
		return cc;
	}
	if (n == 0)
		s[0] = '\0';
	return 0;
}

/* ---- the pvm_pk* and pvm_upk* entry points ---- */

static int pk(const char *fn, enum lp_type t, const void *p, int nitem,
	      int stride)
{
	int cc = 0;
	if (nitem < 0)
		return lp_err(fn, PvmBadParam);
	struct lp_buf *b = lp_cur_sbuf(&cc);
	if (!b)
		return lp_err(fn, cc);
	if (b->enc == PvmDataInPlace && !b->received && stride != 1)
		return lp_err(fn, PvmNotImpl); /* man 3 pvm_initsend */
	if (nitem == 0)
		return 0;
	if (!p)
		return lp_err(fn, PvmBadParam);
	return lp_err(fn, lp_pack(b, t, p, nitem, stride, 0));
}

static int upk(const char *fn, enum lp_type t, void *p, int nitem, int stride)
{
	int cc = 0;
	if (nitem < 0)
		return lp_err(fn, PvmBadParam);
	struct lp_buf *b = lp_cur_rbuf(&cc);
	if (!b)
		return lp_err(fn, cc);
	if (nitem == 0)
		return 0;
	if (!p)
		return lp_err(fn, PvmBadParam);
	return lp_err(fn, lp_unpack(b, t, p, nitem, stride));
}

#define PKPAIR(name, ctype, t)                                                 \
	int pvm_pk##name(ctype *p, int nitem, int stride)                      \
	{                                                                      \
		return pk("pvm_pk" #name, t, p, nitem, stride);                \
	}                                                                      \
	int pvm_upk##name(ctype *p, int nitem, int stride)                     \
	{                                                                      \
		return upk("pvm_upk" #name, t, p, nitem, stride);              \
	}

/* every pvm_pk* and pvm_upk* of one type: name, C type, packing type */
#define PK_TYPES(X)                                                            \
	X(byte, char, LP_BYTE)                                                 \
	X(short, short, LP_SHORT)                                              \
	X(ushort, unsigned short, LP_USHORT)                                   \
	X(int, int, LP_INT)                                                    \
	X(uint, unsigned int, LP_UINT)                                         \
	X(long, long, LP_LONG)                                                 \
	X(ulong, unsigned long, LP_ULONG)                                      \
	X(float, float, LP_FLOAT)                                              \
	X(double, double, LP_DOUBLE)                                           \
	X(cplx, float, LP_CPLX)                                                \
	X(dcplx, double, LP_DCPLX)

PK_TYPES(PKPAIR)

/* The same by datatype (PVM_BYTE...; PVM_STR packs bytes, as Fortran's
 * STRING): what the bindings and the collectives call.  Errors are
 * reported under the pvm_pk* or pvm_upk* name of the type; a datatype
 * that is none gives PvmBadParam quietly (the caller says what it is). */
int lp_pack_dtype(int datatype, void *p, int nitem, int stride, int unpack)
{
#define PKNAMES(name, ctype, t) [t] = {"pvm_pk" #name, "pvm_upk" #name},
	static const char *const names[LP_NTYPES][2] = {PK_TYPES(PKNAMES)};
#undef PKNAMES
	int t = lp_dtype_type(datatype);
	if (t < 0)
		return PvmBadParam;
	return unpack ? upk(names[t][1], (enum lp_type)t, p, nitem, stride)
		      : pk(names[t][0], (enum lp_type)t, p, nitem, stride);
}

int pvm_pkstr(char *sp)
{
	int cc = 0;
	struct lp_buf *b = lp_cur_sbuf(&cc);
	if (!b)
		return lp_err("pvm_pkstr", cc);
	if (!sp)
		return lp_err("pvm_pkstr", PvmBadParam);
	return lp_err("pvm_pkstr", lp_pack_str(b, sp));
}

int pvm_upkstr(char *sp)
{
	int cc = 0;
	struct lp_buf *b = lp_cur_rbuf(&cc);
	if (!b)
		return lp_err("pvm_upkstr", cc);
	if (!sp)
		return lp_err("pvm_upkstr", PvmBadParam);
	return lp_err("pvm_upkstr", lp_unpack_str(b, sp));
}
