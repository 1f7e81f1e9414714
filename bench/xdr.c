/*
 * xdr.c - speed of packing and unpacking large arrays (pvm_pk* and
 * pvm_upk*), in PvmDataDefault (XDR) and PvmDataRaw.
 *
 * One source, public PVM API only, so the same program can be built
 * against our pvm3.h/libpvm3 and against Debian's PVM 3.4.6 and run side by
 * side (bench/run-xdr.sh does that).
 *
 *   xdr [-t secs] [-n maxreps] [-z bytes] [-q]
 *
 * For each encoding (Default, Raw) and type (int, float, double) it packs
 * `bytes` (default 1 MiB) of the type into a fresh buffer (pvm_mkbuf +
 * pvm_setsbuf), makes that buffer the receive buffer and unpacks it, as a
 * program that packs and receives one large message after another does.
 * Each pack and each unpack is timed on its own; buffer creation and
 * freeing are not.  After each repetition the unpacked array is compared
 * with the source (outside the timed span).  It prints one line per cell:
 *
 *   enc type bytes reps pack_GB/s unpack_GB/s     (medians, GB = 10^9 B)
 *
 * and, for scale, the median speed of a memcpy of the same size between
 * the same two arrays ("memcpy - bytes reps GB/s GB/s").  The cells
 * "Swapped" time the unpacking of Raw data of the other byte order, as a
 * message from a host of that order arrives (receiver makes right,
 * docs/hetero.md): made with pvm_upkmesg from a pvm_pkmesg layout that
 * carries such a host's signature (not timed), unpacking converts it
 * (timed); pack speed 0.  A library that cannot convert (the reference
 * refuses to unpack another host's Raw data) gets 0 reps and speeds.  -q
 * leaves out the header line.  The reference may try to enroll on the first
 * buffer call: run it with a virtual machine up.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#define WARMUP	3
#define MINREPS 5

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, int code)
{
	fprintf(stderr, "xdr: %s failed (%d)\n", what, code);
	exit(1);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

enum { T_INT, T_FLOAT, T_DOUBLE };

static int pack(int type, void *p, int n)
{
	return type == T_INT	 ? pvm_pkint(p, n, 1)
	       : type == T_FLOAT ? pvm_pkfloat(p, n, 1)
				 : pvm_pkdouble(p, n, 1);
}

static int unpack(int type, void *p, int n)
{
	return type == T_INT	 ? pvm_upkint(p, n, 1)
	       : type == T_FLOAT ? pvm_upkfloat(p, n, 1)
				 : pvm_upkdouble(p, n, 1);
}

static size_t tsize(int type)
{
	return type == T_DOUBLE ? sizeof(double) : 4;
}

/* Times one cell; the medians go to *pk and *upk. */
static int cell(int enc, int type, char *src, char *dst, size_t bytes,
		double secs, int maxreps, double *pk, double *upk)
{
	size_t isz = tsize(type);
	int n = (int)(bytes / isz);
	double *tp = malloc((size_t)maxreps * sizeof *tp);
	double *tu = malloc((size_t)maxreps * sizeof *tu);
	if (!tp || !tu)
		die("malloc", 0);
	int reps = 0;
	double start = now();
	for (int r = 0; r < WARMUP + maxreps; r++) {
		if (r >= WARMUP + MINREPS && now() - start > secs)
			break;
		memset(dst, 0, bytes);
		int b = pvm_mkbuf(enc);
		if (b < 0)
			die("pvm_mkbuf", b);
		int cc = pvm_setsbuf(b);
		if (cc < 0)
			die("pvm_setsbuf", cc);
		double t0 = now();
		if ((cc = pack(type, src, n)) < 0)
			die("pack", cc);
		double t1 = now();
		pvm_setsbuf(0);
		if ((cc = pvm_setrbuf(b)) < 0)
			die("pvm_setrbuf", cc);
		double t2 = now();
		if ((cc = unpack(type, dst, n)) < 0)
			die("unpack", cc);
		double t3 = now();
		pvm_setrbuf(0);
		if ((cc = pvm_freebuf(b)) < 0)
			die("pvm_freebuf", cc);
		if (memcmp(src, dst, (size_t)n * isz) != 0) {
			fprintf(stderr, "xdr: unpacked data differ\n");
			exit(1);
		}
		if (r >= WARMUP) {
			tp[reps] = t1 - t0;
			tu[reps] = t3 - t2;
			reps++;
		}
	}
	*pk = (double)n * isz / median(tp, reps) / 1e9;
	*upk = (double)n * isz / median(tu, reps) / 1e9;
	free(tp), free(tu);
	return reps;
}

/* Times the unpacking of src's values as a host of the other byte order
 * sends them in PvmDataRaw; the median goes to *upk.  Returns the reps,
 * 0 when the library does not take such a message. */
static int swapped_cell(int type, char *src, char *dst, size_t bytes,
			double secs, int maxreps, double *upk)
{
	size_t isz = tsize(type);
	int n = (int)(bytes / isz);
	char *sw = malloc(bytes);
	double *tu = malloc((size_t)maxreps * sizeof *tu);
	if (!sw || !tu)
		die("malloc", 0);
	for (size_t i = 0; i < bytes; i += isz)
		for (size_t k = 0; k < isz; k++)
			sw[i + k] = src[i + isz - 1 - k];
	/* the signature of a host of the other order: s390x's (big-endian,
	 * LP64) here on a little-endian host, x86_64's on a big-endian one */
	const unsigned short one = 1;
	int sig = *(const char *)&one ? 0x0658ef59 : 0x00408c41;
	int reps = 0;
	double start = now();
	*upk = 0;
	for (int r = 0; r < WARMUP + maxreps; r++) {
		if (r >= WARMUP + MINREPS && now() - start > secs)
			break;
		int outer = pvm_mkbuf(PvmDataDefault);
		if (outer < 0)
			die("pvm_mkbuf", outer);
		pvm_setsbuf(outer);
		int h[9] = {(int)bytes, 0, 1, 0, sig, 0, 0, 0, (int)bytes};
		pvm_pkint(h, 9, 1);
		pvm_pkbyte(sw, (int)bytes, 1);
		pvm_setsbuf(0);
		pvm_setrbuf(outer);
		int b = pvm_upkmesg();
		pvm_setrbuf(0);
		pvm_freebuf(outer);
		if (b < 0) {
			reps = 0;
			break;
		}
		pvm_setrbuf(b);
		memset(dst, 0, bytes);
		double t0 = now();
		int cc = unpack(type, dst, n);
		double t1 = now();
		pvm_setrbuf(0);
		pvm_freebuf(b);
		if (cc < 0) { /* the reference: "not our data format" */
			reps = 0;
			break;
		}
		if (memcmp(src, dst, bytes) != 0) {
			fprintf(stderr, "xdr: swapped data unpacked wrong\n");
			exit(1);
		}
		if (r >= WARMUP)
			tu[reps++] = t1 - t0;
	}
	if (reps)
		*upk = (double)bytes / median(tu, reps) / 1e9;
	free(sw), free(tu);
	return reps;
}

static int memcpy_cell(char *src, char *dst, size_t bytes, double secs,
		       int maxreps, double *gbs)
{
	double *t = malloc((size_t)maxreps * sizeof *t);
	if (!t)
		die("malloc", 0);
	int reps = 0;
	double start = now();
	for (int r = 0; r < WARMUP + maxreps; r++) {
		if (r >= WARMUP + MINREPS && now() - start > secs)
			break;
		double t0 = now();
		memcpy(dst, src, bytes);
		double t1 = now();
		/* keep the copy from being optimised away */
		if (dst[bytes / 2] != src[bytes / 2])
			die("memcpy", 0);
		if (r >= WARMUP)
			t[reps++] = t1 - t0;
	}
	*gbs = (double)bytes / median(t, reps) / 1e9;
	free(t);
	return reps;
}

int main(int argc, char **argv)
{
	double secs = 0.5;
	int maxreps = 2000, quiet = 0, c;
	size_t bytes = 1 << 20;

	while ((c = getopt(argc, argv, "t:n:z:q")) != -1) {
		switch (c) {
		case 't':
			secs = atof(optarg);
			break;
		case 'n':
			maxreps = atoi(optarg);
			break;
		case 'z':
			bytes = (size_t)atol(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: xdr [-t secs] [-n maxreps] [-z bytes] [-q]\n");
			return 2;
		}
	}
	if (maxreps < MINREPS || bytes < 8 || bytes % 8 || bytes > (1u << 30)) {
		fprintf(stderr,
			"xdr: bad -n or -z (bytes: a multiple of 8 up to 1 GiB)\n");
		return 2;
	}
	pvm_setopt(PvmAutoErr, 0);

	/* page-aligned arrays, every page touched before timing */
	char *src, *dst;
	if (posix_memalign((void **)&src, 4096, bytes) ||
	    posix_memalign((void **)&dst, 4096, bytes))
		die("posix_memalign", 0);
	/* random values with all bits in use (signs, exponents) */
	unsigned long long x = 88172645463325252ULL;
	for (size_t i = 0; i < bytes; i += 8) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		/* no NaNs among the doubles: their bits compare anyway, but
		 * keep the data ordinary */
		unsigned long long v = x & ~(1ULL << 62);
		memcpy(src + i, &v, 8);
	}
	memset(dst, 0, bytes);

	if (!quiet)
		printf("# enc type bytes reps pack_GB/s unpack_GB/s (medians)\n");
	static const struct {
		int enc;
		const char *name;
	} encs[] = {{PvmDataDefault, "Default"}, {PvmDataRaw, "Raw"}};
	static const char *const tname[] = {"int", "float", "double"};
	for (int e = 0; e < 2; e++)
		for (int t = T_INT; t <= T_DOUBLE; t++) {
			double pk, upk;
			int reps = cell(encs[e].enc, t, src, dst, bytes, secs,
					maxreps, &pk, &upk);
			printf("%s %s %zu %d %.3f %.3f\n", encs[e].name,
			       tname[t], bytes, reps, pk, upk);
			fflush(stdout);
		}
	for (int t = T_INT; t <= T_DOUBLE; t++) {
		double upk;
		int reps =
			swapped_cell(t, src, dst, bytes, secs, maxreps, &upk);
		printf("Swapped %s %zu %d %.3f %.3f\n", tname[t], bytes, reps,
		       0.0, upk);
		fflush(stdout);
	}
	double m;
	int reps = memcpy_cell(src, dst, bytes, secs, maxreps, &m);
	printf("memcpy - %zu %d %.3f %.3f\n", bytes, reps, m, m);
	free(src), free(dst);
	return 0;
}
