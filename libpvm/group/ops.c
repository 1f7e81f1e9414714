/*
 * ops.c - the predefined reduction functions PvmMax, PvmMin, PvmSum and
 * PvmProduct: x[i] = op(x[i], y[i]) for i < *num.
 *
 * Types: those of the reference, PVM_BYTE (signed, Max and Min only),
 * PVM_SHORT, PVM_INT, PVM_LONG, PVM_FLOAT, PVM_DOUBLE, PVM_CPLX and
 * PVM_DCPLX (pairs re, im; Max and Min compare the modulus), and also
 * PVM_USHORT, PVM_UINT and PVM_ULONG, which the reference refuses (the
 * issue asks for every numeric type; a program written for the
 * reference never passes them).  Any other type sets *info to
 * PvmBadParam and leaves x alone.  Integer sums and products wrap as the
 * machine's do, without undefined behaviour.
 */
#include "gs.h"

enum op { OP_MAX, OP_MIN, OP_SUM, OP_PROD };

/* One element-wise loop per operation, so that each is a plain loop the
 * compiler can vectorise.  For integers W is the unsigned twin used for
 * sums and products (they wrap instead of being undefined); for reals it
 * is the type itself. */
#define LOOPS(T, W)                                                            \
	do {                                                                   \
		T *a = x;                                                      \
		const T *b = y;                                                \
		switch (op) {                                                  \
		case OP_MAX:                                                   \
			for (int i = 0; i < n; i++)                            \
				a[i] = b[i] > a[i] ? b[i] : a[i];              \
			break;                                                 \
		case OP_MIN:                                                   \
			for (int i = 0; i < n; i++)                            \
				a[i] = b[i] < a[i] ? b[i] : a[i];              \
			break;                                                 \
		case OP_SUM:                                                   \
			for (int i = 0; i < n; i++)                            \
				a[i] = (T)((W)a[i] + (W)b[i]);                 \
			break;                                                 \
		case OP_PROD:                                                  \
			for (int i = 0; i < n; i++)                            \
				a[i] = (T)((W)a[i] * (W)b[i]);                 \
			break;                                                 \
		}                                                              \
	} while (0)

/* Complex pairs: Max/Min by modulus (squares compared; a tie keeps x). */
#define CPLX_LOOP(T)                                                           \
	do {                                                                   \
		T *a = x;                                                      \
		const T *b = y;                                                \
		for (int i = 0; i < 2 * n; i += 2) {                           \
			T ma = a[i] * a[i] + a[i + 1] * a[i + 1];              \
			T mb = b[i] * b[i] + b[i + 1] * b[i + 1];              \
			T re, im;                                              \
			switch (op) {                                          \
			case OP_MAX:                                           \
			case OP_MIN:                                           \
				if (op == OP_MAX ? mb > ma : mb < ma) {        \
					a[i] = b[i];                           \
					a[i + 1] = b[i + 1];                   \
				}                                              \
				break;                                         \
			case OP_SUM:                                           \
				a[i] += b[i];                                  \
				a[i + 1] += b[i + 1];                          \
				break;                                         \
			case OP_PROD:                                          \
				re = a[i] * b[i] - a[i + 1] * b[i + 1];        \
				im = a[i] * b[i + 1] + a[i + 1] * b[i];        \
				a[i] = re;                                     \
				a[i + 1] = im;                                 \
				break;                                         \
			}                                                      \
		}                                                              \
	} while (0)

static void apply(enum op op, const int *datatype, void *x, const void *y,
		  const int *num, int *info)
{
	if (!datatype || !num || (*num > 0 && (!x || !y))) {
		if (info)
			*info = PvmBadParam;
		return;
	}
	int n = *num;
	int r = 0;
	switch (*datatype) {
	case PVM_BYTE:
		if (op == OP_SUM || op == OP_PROD)
			r = PvmBadParam;
		else
			LOOPS(signed char, unsigned char);
		break;
	case PVM_SHORT:
		LOOPS(short, unsigned short);
		break;
	case PVM_INT:
		LOOPS(int, unsigned int);
		break;
	case PVM_LONG:
		LOOPS(long, unsigned long);
		break;
	case PVM_USHORT:
		LOOPS(unsigned short, unsigned short);
		break;
	case PVM_UINT:
		LOOPS(unsigned int, unsigned int);
		break;
	case PVM_ULONG:
		LOOPS(unsigned long, unsigned long);
		break;
	case PVM_FLOAT:
		LOOPS(float, float);
		break;
	case PVM_DOUBLE:
		LOOPS(double, double);
		break;
	case PVM_CPLX:
		CPLX_LOOP(float);
		break;
	case PVM_DCPLX:
		CPLX_LOOP(double);
		break;
	default:
		r = PvmBadParam;
		break;
	}
	if (info)
		*info = r;
}

void PvmMax(int *datatype, void *x, void *y, int *num, int *info)
{
	apply(OP_MAX, datatype, x, y, num, info);
}

void PvmMin(int *datatype, void *x, void *y, int *num, int *info)
{
	apply(OP_MIN, datatype, x, y, num, info);
}

void PvmSum(int *datatype, void *x, void *y, int *num, int *info)
{
	apply(OP_SUM, datatype, x, y, num, info);
}

void PvmProduct(int *datatype, void *x, void *y, int *num, int *info)
{
	apply(OP_PROD, datatype, x, y, num, info);
}
