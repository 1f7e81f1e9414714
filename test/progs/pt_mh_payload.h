/*
 * pt_mh_payload.h - the messages of pt_mh's pingall and stream: mixed
 * types (ints, doubles, negative longs, a string, bytes) whose contents
 * follow from the size, packed, unpacked and compared whole.
 */
#ifndef PT_MH_PAYLOAD_H
#define PT_MH_PAYLOAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

struct payload {
	int s, ni, nd, nl, ns, nb;
	int *i;
	double *d;
	long *l;
	char *str;
	unsigned char *b;
};

static void pl_alloc(struct payload *p, int s)
{
	p->s = s;
	p->ni = s / 16; /* s/4 bytes each of ints, doubles, longs, */
	p->nd = s / 32; /* string; the rest in bytes */
	p->nl = s / 32;
	p->ns = s / 4;
	p->nb = s - 4 * p->ni - 8 * p->nd - 8 * p->nl - p->ns;
	p->i = calloc((size_t)p->ni + 1, sizeof *p->i);
	p->d = calloc((size_t)p->nd + 1, sizeof *p->d);
	p->l = calloc((size_t)p->nl + 1, sizeof *p->l);
	p->str = calloc((size_t)p->ns + 1, 1);
	p->b = calloc((size_t)p->nb + 1, 1);
	if (!p->i || !p->d || !p->l || !p->str || !p->b) {
		printf("FAIL out of memory for %d bytes\n", s);
		exit(3);
	}
}

static void pl_fill(struct payload *p)
{
	int s = p->s, k;
	for (k = 0; k < p->ni; k++)
		p->i[k] = (int)((unsigned)k * 2654435761u ^ (unsigned)s);
	for (k = 0; k < p->nd; k++)
		p->d[k] = k * 0.5 - s + 1e-3 * k;
	for (k = 0; k < p->nl; k++)
		p->l[k] = -(long)(k % 1000000) * 997 - s -
			  1; /* XDR longs: 32 bits */
	for (k = 0; k < p->ns; k++)
		p->str[k] = (char)('a' + (k * 7 + s) % 26);
	for (k = 0; k < p->nb; k++)
		p->b[k] = (unsigned char)(k * 131 + s);
}

static void pl_free(struct payload *p)
{
	free(p->i), free(p->d), free(p->l), free(p->str), free(p->b);
}

/* pvm_pkstr does not take PvmDataInPlace (PvmNotImpl, as in the
 * reference): there the string goes as bytes. */
static void pl_pack(struct payload *p, int inplace)
{
	pvm_pkint(&p->s, 1, 1);
	pvm_pkint(p->i, p->ni, 1);
	pvm_pkdouble(p->d, p->nd, 1);
	pvm_pklong(p->l, p->nl, 1);
	if (inplace)
		pvm_pkbyte(p->str, p->ns, 1);
	else
		pvm_pkstr(p->str);
	pvm_pkbyte((char *)p->b, p->nb, 1);
}

/* Unpacks into a payload allocated for the size the message announces. */
static int pl_unpack(struct payload *p, int inplace)
{
	int s = -1;
	if (pvm_upkint(&s, 1, 1) < 0 || s < 0)
		return -1;
	pl_alloc(p, s);
	int r = 0;
	r |= pvm_upkint(p->i, p->ni, 1);
	r |= pvm_upkdouble(p->d, p->nd, 1);
	r |= pvm_upklong(p->l, p->nl, 1);
	r |= inplace ? pvm_upkbyte(p->str, p->ns, 1) : pvm_upkstr(p->str);
	r |= pvm_upkbyte((char *)p->b, p->nb, 1);
	return r < 0 ? -1 : 0;
}

/* Number of differences between the echo and the expected payload. */
static long pl_diff(const struct payload *a, const struct payload *b)
{
	if (a->s != b->s)
		return -1;
	long bad = 0;
	bad += memcmp(a->i, b->i, (size_t)a->ni * sizeof *a->i) != 0;
	bad += memcmp(a->d, b->d, (size_t)a->nd * sizeof *a->d) != 0;
	bad += memcmp(a->l, b->l, (size_t)a->nl * sizeof *a->l) != 0;
	bad += strcmp(a->str, b->str) != 0;
	bad += memcmp(a->b, b->b, (size_t)a->nb) != 0;
	return bad;
}

#endif /* PT_MH_PAYLOAD_H */
