/*
 * pt_group_data.h - the data of pt_group's reductions: what each member
 * contributes for every type and operation, the user functions, and the
 * checks of the root's result (exact for integers, within rounding for
 * floating types).  Included by pt_group.c only.
 */
#ifndef PT_GROUP_DATA_H
#define PT_GROUP_DATA_H

#include <math.h>

#include "tcommon.h"

enum { OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_USER, NOPS };
static const char *opname[] = {"max", "min", "sum", "product", "user"};
#define CNT 6

static int cur_cnt;
/* user functions: bitwise OR of ints, sum of doubles; both check what
 * they are given and poison the result when it is wrong */
static void user_or(int *dt, void *x, void *y, int *n, int *info)
{
	int *a = x, *b = y;
	if (*dt != PVM_INT || *n != cur_cnt) {
		a[0] = -999;
		*info = PvmBadParam;
		return;
	}
	for (int i = 0; i < *n; i++)
		a[i] |= b[i];
	*info = 0;
}

static void user_dsum(int *dt, void *x, void *y, int *n, int *info)
{
	double *a = x, *b = y;
	if (*dt != PVM_DOUBLE || *n != cur_cnt) {
		a[0] = -999;
		*info = PvmBadParam;
		return;
	}
	for (int i = 0; i < *n; i++)
		a[i] += b[i];
	*info = 0;
}

/* Longs of 32 bits' range: where long has 32 bits, and in a machine that
 * has such a host (PT_GROUP_LONG32 set, exported to every member), so
 * that every member fills and expects the same values. */
static int long32(void)
{
	return sizeof(long) == 4 || getenv("PT_GROUP_LONG32") != NULL;
}

/* The value member `inst` gives to element k of an (op, type) reduction,
 * as an integer (scaled per type so that no signed sum overflows and the
 * unsigned maxima use the top bit). */
static long long ibase(int op, int inst, int k)
{
	if (op == OP_PROD) {
		int r = (inst + k) % 4;
		return r == 0 ? -1 : r == 1 ? 2 : 1;
	}
	return (inst * 7 + k * 5) % 13 - 6;
}

static unsigned long long ubase(int op, int inst, int k)
{
	if (op == OP_PROD)
		return (inst + k) % 4 == 1 ? 2 : 1;
	return (unsigned long long)((inst * 7 + k * 5) % 13);
}

#define MAXMIN(op, acc, v)                                                     \
	((op) == OP_MAX ? ((v) > (acc) ? (v) : (acc))                          \
			: ((v) < (acc) ? (v) : (acc)))

/* One integer type: fill, expected value, check. */
#define INT_CASE(NAME, T, PT, GEN)                                             \
	static T NAME##_val(int op, int i, int k)                              \
	{                                                                      \
		return (T)(GEN);                                               \
	}                                                                      \
	static void NAME##_fill(void *d, int op, int inst)                     \
	{                                                                      \
		for (int k = 0; k < CNT; k++)                                  \
			((T *)d)[k] = NAME##_val(op, inst, k);                 \
	}                                                                      \
	static void NAME##_check(void *d, int op, int n, int root)             \
	{                                                                      \
		for (int k = 0; k < CNT; k++) {                                \
			T acc = NAME##_val(op, 0, k);                          \
			for (int i = 1; i < n; i++) {                          \
				T v = NAME##_val(op, i, k);                    \
				if (op == OP_SUM)                              \
					acc = (T)(acc + v);                    \
				else if (op == OP_PROD)                        \
					acc = (T)(acc * v);                    \
				else                                           \
					acc = MAXMIN(op, acc, v);              \
			}                                                      \
			T got = ((T *)d)[k];                                   \
			CHECK(got == acc,                                      \
			      "%s %s n=%d root=%d [%d]: got %lld "             \
			      "(%llu), expected %lld (%llu)",                  \
			      #NAME, opname[op], n, root, k, (long long)got,   \
			      (unsigned long long)got, (long long)acc,         \
			      (unsigned long long)acc);                        \
		}                                                              \
	}

/* max/min spread over the whole range, sums kept in range */
INT_CASE(short, short, PVM_SHORT,
	 ibase(op, i, k) * (op == OP_PROD  ? 1
			    : op == OP_SUM ? 300
					   : 5000))
INT_CASE(int, int, PVM_INT,
	 ibase(op, i, k) * (op == OP_PROD  ? 1
			    : op == OP_SUM ? 100000
					   : 300000000))
INT_CASE(long, long, PVM_LONG,
	 ibase(op, i, k) * (op == OP_PROD  ? 1
			    : long32()	   ? (op == OP_SUM ? 100000 : 300000000)
			    : op == OP_SUM ? (1LL << 40)
					   : 1500000000000000000LL) +
		 (op == OP_PROD ? 0 : i))
INT_CASE(ushort, unsigned short, PVM_USHORT,
	 ubase(op, i, k) * (op == OP_PROD  ? 1
			    : op == OP_SUM ? 300
					   : 5000))
INT_CASE(uint, unsigned int, PVM_UINT,
	 ubase(op, i, k) * (op == OP_PROD  ? 1
			    : op == OP_SUM ? 10000000
					   : 300000000))
INT_CASE(ulong, unsigned long, PVM_ULONG,
	 ubase(op, i, k) * (op == OP_PROD ? 1
			    : long32() ? (op == OP_SUM ? 10000000 : 300000000)
			    : op == OP_SUM ? (1ULL << 50)
					   : 1500000000000000000ULL) +
		 (op == OP_PROD ? 0 : (unsigned)i))
INT_CASE(byte, signed char, PVM_BYTE, ubase(op, i, k) * 9)

/* floating types: values are exact binary fractions; the check allows
 * for rounding anyway */
static double fval(int op, int i, int k)
{
	if (op == OP_PROD)
		return ibase(op, i, k) * 0.75 +
		       (ibase(op, i, k) == 1 ? 0.25 : 0);
	return ibase(op, i, k) * 0.375 + 0.125 * k;
}

static void fcheck1(const char *tn, int op, int n, int root, int k, double got,
		    double want)
{
	double tol = 1e-5 * (fabs(want) > 1 ? fabs(want) : 1);
	CHECK(fabs(got - want) <= tol,
	      "%s %s n=%d root=%d [%d]: got %.9g, "
	      "expected %.9g",
	      tn, opname[op], n, root, k, got, want);
}

static double fexpect(int op, int n, int k)
{
	double acc = fval(op, 0, k);
	for (int i = 1; i < n; i++) {
		double v = fval(op, i, k);
		acc = op == OP_SUM || op == OP_USER ? acc + v
		      : op == OP_PROD		    ? acc * v
						    : MAXMIN(op, acc, v);
	}
	return acc;
}

/* complex: distinct moduli per member (imaginary parts 100 + a
 * permutation of the instances), small exact products */
static void cval(int op, int n, int i, int k, double *re, double *im)
{
	if (op == OP_PROD) {
		static const double pr[3][2] = {{1, 1}, {0, 1}, {1, -1}};
		*re = pr[(i + k) % 3][0];
		*im = pr[(i + k) % 3][1];
		return;
	}
	*re = ibase(op, i, k);
	*im = op == OP_SUM ? 0.5 * k - i : 100 + (i * 7 + k) % n;
}

static void cexpect(int op, int n, int k, double *re, double *im)
{
	double ar, ai, vr, vi;
	cval(op, n, 0, k, &ar, &ai);
	for (int i = 1; i < n; i++) {
		cval(op, n, i, k, &vr, &vi);
		if (op == OP_SUM) {
			ar += vr, ai += vi;
		} else if (op == OP_PROD) {
			double r = ar * vr - ai * vi;
			ai = ar * vi + ai * vr;
			ar = r;
		} else {
			double ma = ar * ar + ai * ai, mv = vr * vr + vi * vi;
			if (op == OP_MAX ? mv > ma : mv < ma)
				ar = vr, ai = vi;
		}
	}
	*re = ar, *im = ai;
}

struct ftype {
	const char *name;
	int pt, size, cplx;
};
static const struct ftype ftypes[] = {{"float", PVM_FLOAT, 4, 0},
				      {"double", PVM_DOUBLE, 8, 0},
				      {"cplx", PVM_CPLX, 4, 1},
				      {"dcplx", PVM_DCPLX, 8, 1}};

static void ffill(const struct ftype *t, void *d, int op, int n, int inst)
{
	for (int k = 0; k < CNT; k++) {
		double v[2];
		if (t->cplx)
			cval(op, n, inst, k, &v[0], &v[1]);
		else
			v[0] = fval(op, inst, k);
		for (int j = 0; j <= t->cplx; j++) {
			if (t->size == 4)
				((float *)d)[k * (1 + t->cplx) + j] =
					(float)v[j];
			else
				((double *)d)[k * (1 + t->cplx) + j] = v[j];
		}
	}
}

static void fcheck(const struct ftype *t, void *d, int op, int n, int root)
{
	for (int k = 0; k < CNT; k++) {
		double w[2], g[2];
		if (t->cplx)
			cexpect(op, n, k, &w[0], &w[1]);
		else
			w[0] = fexpect(op, n, k);
		for (int j = 0; j <= t->cplx; j++) {
			int x = k * (1 + t->cplx) + j;
			g[j] = t->size == 4 ? ((float *)d)[x]
					    : ((double *)d)[x];
			fcheck1(t->name, op, n, root, k, g[j], w[j]);
		}
	}
}

struct itype {
	const char *name;
	int pt;
	void (*fill)(void *, int, int);
	void (*check)(void *, int, int, int);
};
#define IT(N, PT)                                                              \
	{                                                                      \
#N, PT, N##_fill, N##_check                                    \
	}
static const struct itype itypes[] = {
	IT(short, PVM_SHORT),	IT(int, PVM_INT),   IT(long, PVM_LONG),
	IT(ushort, PVM_USHORT), IT(uint, PVM_UINT), IT(ulong, PVM_ULONG),
	IT(byte, PVM_BYTE)};

typedef void (*redfn)(int *, void *, void *, int *, int *);
static redfn opfn(int op)
{
	return op == OP_MAX   ? PvmMax
	       : op == OP_MIN ? PvmMin
	       : op == OP_SUM ? PvmSum
			      : PvmProduct;
}

#endif /* PT_GROUP_DATA_H */
