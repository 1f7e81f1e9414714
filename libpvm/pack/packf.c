/*
 * packf.c - pvm_packf and pvm_unpackf: packing driven by a printf-like
 * format (man 3 pvm_packf):
 *
 *   format : [ '%+' ] { fmt | other character (ignored) }
 *   fmt    : '%' [count] ['.' [stride]] {h|l|u} fchar
 *   count, stride : digits | '*' (an int argument)
 *   fchar  : c (bytes) d (integers) f (float; l: double)
 *            x (complex; l: double complex) s (string)
 *
 * pvm_packf takes values when neither count nor stride is written
 * ("%d", 5) and pointers otherwise ("%3d", array); complex numbers and
 * strings are always given by pointer.  pvm_unpackf takes pointers only.
 * "%+" (first only, packf only) calls pvm_initsend with an int argument.
 * A count on %s is ignored.  An unknown conversion stops with
 * PvmBadParam, after the items before it were packed (as the reference).
 */
#include "pack.h"

#include <stdarg.h>
#include <string.h>

struct conv {
	int count, stride, ptr; /* ptr: count or stride was written */
	int h, l, u;
	char fc;
};

/* Parses one conversion after '%'; returns the position after it, or
 * NULL for a bad one. */
static const char *parse(const char *f, struct conv *c, va_list *ap)
{
	memset(c, 0, sizeof *c);
	c->count = 1;
	c->stride = 1;
	if (*f == '*') {
		c->count = va_arg(*ap, int);
		c->ptr = 1;
		f++;
	} else if (*f >= '0' && *f <= '9') {
		c->count = 0;
		while (*f >= '0' && *f <= '9')
			c->count = c->count * 10 + (*f++ - '0');
		c->ptr = 1;
	}
	if (*f == '.') {
		f++;
		c->ptr = 1;
		c->stride = 0;
		if (*f == '*') {
			c->stride = va_arg(*ap, int);
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				c->stride = c->stride * 10 + (*f++ - '0');
		}
	}
	for (;; f++) {
		if (*f == 'h')
			c->h = 1;
		else if (*f == 'l')
			c->l = 1;
		else if (*f == 'u')
			c->u = 1;
		else
			break;
	}
	switch (*f) {
	case 'c':
	case 'd':
	case 'f':
	case 'x':
	case 's':
		c->fc = *f;
		return f + 1;
	default:
		return NULL;
	}
}

static enum lp_type type_of(const struct conv *c)
{
	switch (c->fc) {
	case 'c':
		return LP_BYTE;
	case 'f':
		return c->l ? LP_DOUBLE : LP_FLOAT;
	case 'x':
		return c->l ? LP_DCPLX : LP_CPLX;
	default: /* 'd' */
		if (c->h)
			return c->u ? LP_USHORT : LP_SHORT;
		if (c->l)
			return c->u ? LP_ULONG : LP_LONG;
		return c->u ? LP_UINT : LP_INT;
	}
}

/* Packs one value argument (no count, no stride). */
static int pack_value(struct lp_buf *b, enum lp_type t, va_list *ap)
{
	union {
		char c;
		short s;
		int i;
		long l;
		float f;
		double d;
	} v;
	switch (t) {
	case LP_BYTE:
		v.c = (char)va_arg(*ap, int);
		break;
	case LP_SHORT:
	case LP_USHORT:
		v.s = (short)va_arg(*ap, int);
		break;
	case LP_INT:
	case LP_UINT:
		v.i = va_arg(*ap, int);
		break;
	case LP_LONG:
	case LP_ULONG:
		v.l = va_arg(*ap, long);
		break;
	case LP_FLOAT:
		v.f = (float)va_arg(*ap, double);
		break;
	default: /* LP_DOUBLE */
		v.d = va_arg(*ap, double);
		break;
	}
	return lp_pack(b, t, &v, 1, 1, LP_COPY);
}

static int packf_conv(struct lp_buf *b, const struct conv *c, va_list *ap)
{
	if (c->fc == 's') {
		const char *s = va_arg(*ap, const char *);
		return s ? lp_pack_str(b, s) : PvmBadParam;
	}
	enum lp_type t = type_of(c);
	if (!c->ptr && c->fc != 'x')
		return pack_value(b, t, ap);
	const void *p = va_arg(*ap, const void *);
	if (c->count < 0)
		return PvmBadParam;
	if (b->enc == PvmDataInPlace && !b->received && c->stride != 1)
		return PvmNotImpl;
	if (c->count == 0)
		return 0;
	if (!p)
		return PvmBadParam;
	return lp_pack(b, t, p, c->count, c->stride, 0);
}

int pvm_packf(const char *fmt, ...)
{
	va_list ap;
	int cc = 0;
	struct conv c;

	if (!fmt)
		return lp_err("pvm_packf", PvmBadParam);
	va_start(ap, fmt);
	const char *f = fmt;
	if (f[0] == '%' && f[1] == '+') {
		int enc = va_arg(ap, int);
		f += 2;
		if ((cc = pvm_initsend(enc)) < 0)
			goto out;
		cc = 0;
	}
	while (*f) {
		if (*f++ != '%')
			continue;
		if (!(f = parse(f, &c, &ap))) {
			cc = PvmBadParam;
			break;
		}
		struct lp_buf *b = lp_cur_sbuf(&cc);
		if (!b || (cc = packf_conv(b, &c, &ap)) < 0)
			break;
	}
out:
	va_end(ap);
	return lp_err("pvm_packf", cc);
}

int pvm_unpackf(const char *fmt, ...)
{
	va_list ap;
	int cc = 0;
	struct conv c;

	if (!fmt)
		return lp_err("pvm_unpackf", PvmBadParam);
	va_start(ap, fmt);
	const char *f = fmt;
	while (*f) {
		if (*f++ != '%')
			continue;
		if (!(f = parse(f, &c, &ap))) {
			cc = PvmBadParam;
			break;
		}
		struct lp_buf *b = lp_cur_rbuf(&cc);
		if (!b)
			break;
		void *p = va_arg(ap, void *);
		if (!p) {
			cc = PvmBadParam;
		} else if (c.fc == 's') {
			cc = lp_unpack_str(b, p);
		} else if (c.count < 0) {
			cc = PvmBadParam;
		} else {
			cc = lp_unpack(b, type_of(&c), p, c.count, c.stride);
		}
		if (cc < 0)
			break;
	}
	va_end(ap);
	return lp_err("pvm_unpackf", cc);
}
