/*
 * test_types.h - what the pack tests (pack_test.c, xdr_test.c) share: TAP
 * output (ok, from test/unit/tap.h), a xorshift generator (rnd; seed it through
 * rnd_state), and the PVM datatypes as they walk them: an index per type, its
 * name, its native and XDR item sizes, and the pvm_pk* / pvm_upk* call of each;
 * and the enc word pvm_getminfo gives a buffer of an encoding here.
 */
#ifndef LPVM_PACK_TEST_TYPES_H
#define LPVM_PACK_TEST_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "pvm3.h"
#include "../../test/unit/tap.h" /* ok(), tap_done() */

static uint64_t rnd_state = 88172645463325252ULL;
__attribute__((unused)) static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

enum {
	T_BYTE,
	T_SHORT,
	T_USHORT,
	T_INT,
	T_UINT,
	T_LONG,
	T_ULONG,
	T_FLOAT,
	T_DOUBLE,
	T_CPLX,
	T_DCPLX,
	T_N
};
static const char *const tname[T_N] = {"byte",	 "short", "ushort", "int",
				       "uint",	 "long",  "ulong",  "float",
				       "double", "cplx",  "dcplx"};
/* in memory (long: 4 or 8 bytes, as the host has it) */
static const size_t tsize[T_N] = {1, 2, 2, 4, 4, sizeof(long), sizeof(long),
				  4, 8, 8, 16};
/* in XDR */
static const size_t xsize[T_N] = {1, 4, 4, 4, 4, 4, 4, 4, 8, 8, 16};

static inline int pk(int t, void *p, int n, int s)
{
	switch (t) {
	case T_BYTE:
		return pvm_pkbyte(p, n, s);
	case T_SHORT:
		return pvm_pkshort(p, n, s);
	case T_USHORT:
		return pvm_pkushort(p, n, s);
	case T_INT:
		return pvm_pkint(p, n, s);
	case T_UINT:
		return pvm_pkuint(p, n, s);
	case T_LONG:
		return pvm_pklong(p, n, s);
	case T_ULONG:
		return pvm_pkulong(p, n, s);
	case T_FLOAT:
		return pvm_pkfloat(p, n, s);
	case T_DOUBLE:
		return pvm_pkdouble(p, n, s);
	case T_CPLX:
		return pvm_pkcplx(p, n, s);
	default:
		return pvm_pkdcplx(p, n, s);
	}
}

static inline int upk(int t, void *p, int n, int s)
{
	switch (t) {
	case T_BYTE:
		return pvm_upkbyte(p, n, s);
	case T_SHORT:
		return pvm_upkshort(p, n, s);
	case T_USHORT:
		return pvm_upkushort(p, n, s);
	case T_INT:
		return pvm_upkint(p, n, s);
	case T_UINT:
		return pvm_upkuint(p, n, s);
	case T_LONG:
		return pvm_upklong(p, n, s);
	case T_ULONG:
		return pvm_upkulong(p, n, s);
	case T_FLOAT:
		return pvm_upkfloat(p, n, s);
	case T_DOUBLE:
		return pvm_upkdouble(p, n, s);
	case T_CPLX:
		return pvm_upkcplx(p, n, s);
	default:
		return pvm_upkdcplx(p, n, s);
	}
}

/* The enc of struct pvmminfo (and of pvm_pkmesg's header) for a buffer of
 * encoding enc on this host. */
static inline int enc_sig(int enc)
{
	struct pvmminfo mi = {0};
	int b = pvm_mkbuf(enc);
	pvm_getminfo(b, &mi);
	pvm_freebuf(b);
	return mi.enc;
}

#endif /* LPVM_PACK_TEST_TYPES_H */
