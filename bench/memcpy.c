/*
 * memcpy.c - the physical ceiling of a copy: the time of one memcpy at the
 * sizes bench/pingpong measures, for comparison with its bandwidths.
 *
 *   memcpy [-t secs] [-n maxreps] [-z sizes] [-c bytes] [-e MiB] [-q]
 *
 * Buffers are page-aligned (unaligned ones copy several times slower on
 * some machines).  Each line is "memcpy copy bytes reps time_us MB/s", the
 * format of bench/pingpong's lines, where time_us is the median time of ONE
 * copy (not a half round trip) and MB/s = bytes / time (10^6 B/s).
 *
 * Sizes of at least -c bytes (default 16 MiB) are copied cache-cold: before
 * each timed copy the program reads an eviction buffer of -e MiB (default
 * 128, several times the last-level cache of current x86 machines) so that
 * neither source nor destination is left in a cache; each copy is then
 * timed alone.  Smaller sizes are copied warm (as a message that was just
 * written is): a copy that takes less than about 20 us would be dominated
 * by the clock, so copies are timed in batches that take about 20 us, and a
 * sample is the batch time divided by its count.  The median of the samples
 * is printed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "timing.h"

#define MAXSIZE	 (64L * 1024 * 1024)
#define PAGE	 4096
#define BATCH_US 20.0 /* target duration of one timed batch of warm copies */

static long sizes[16] = {8, 1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
static int nsizes = 5;

static void *page_alloc(size_t n)
{
	void *p = aligned_alloc(PAGE, (n + PAGE - 1) / PAGE * PAGE);
	if (!p) {
		fprintf(stderr, "memcpy: cannot allocate %zu bytes\n", n);
		exit(1);
	}
	memset(p, 1,
	       n); /* fault the pages in: page faults are not a copy's cost */
	return p;
}

/* Keeps the compiler from dropping copies whose result nobody reads. */
static void use(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

/* Reads the whole eviction buffer (one load per cache line). */
static unsigned long evict(const unsigned char *buf, size_t n)
{
	unsigned long sum = 0;
	for (size_t i = 0; i < n; i += 64)
		sum += buf[i];
	return sum;
}

int main(int argc, char **argv)
{
	double budget_us = 0.2e6;
	long cold_from = 16L * 1024 * 1024, evict_mib = 128;
	int maxreps = 3000, quiet = 0, opt;

	while ((opt = getopt(argc, argv, "t:n:z:c:e:q")) != -1) {
		switch (opt) {
		case 't':
			budget_us = atof(optarg) * 1e6;
			break;
		case 'n':
			maxreps = atoi(optarg);
			break;
		case 'c':
			cold_from = atol(optarg);
			break;
		case 'e':
			evict_mib = atol(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'z':
			nsizes = 0;
			for (char *tok = strtok(optarg, ","); tok;
			     tok = strtok(NULL, ",")) {
				char *end;
				long v = strtol(tok, &end, 10);
				if (*end || v < 1 || v > MAXSIZE ||
				    nsizes == 16) {
					fprintf(stderr,
						"memcpy: bad size '%s' (1 to %ld, at most 16)\n",
						tok, MAXSIZE);
					return 2;
				}
				sizes[nsizes++] = v;
			}
			break;
		default:
			fprintf(stderr,
				"usage: memcpy [-t secs] [-n maxreps] [-z bytes,...]"
				" [-c cold-from-bytes] [-e evict-MiB] [-q]\n");
			return 2;
		}
	}
	if (optind != argc || nsizes == 0 || maxreps < 3 || budget_us <= 0 ||
	    evict_mib < 1) {
		fprintf(stderr, "memcpy: bad arguments\n");
		return 2;
	}

	long max = 0;
	for (int s = 0; s < nsizes; s++)
		if (sizes[s] > max)
			max = sizes[s];
	unsigned char *src = page_alloc(max), *dst = page_alloc(max),
		      *ev = NULL;
	size_t evn = (size_t)evict_mib << 20;
	double *samples = malloc(sizeof *samples * (size_t)maxreps);
	if (!samples)
		return 1;
	for (long i = 0; i < max; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	unsigned long sink = 0;

	if (!quiet) {
		printf("# memcpy, page-aligned, median time of one copy in us (cold from %ld B:"
		       " %ld MiB evicted before each), MB/s = 10^6 B/s\n",
		       cold_from, evict_mib);
		printf("# route  method      bytes   reps    copy_us       MB/s\n");
	}
	for (int s = 0; s < nsizes; s++) {
		long n = sizes[s];
		int cold = n >= cold_from, reps = 0;
		if (cold && !ev)
			ev = page_alloc(evn);
		/* warm-up, and the batch size for warm copies */
		double t0 = now_us();
		memcpy(dst, src, n);
		use(dst);
		double one = now_us() - t0;
		t0 = now_us();
		for (int i = 0; i < 3; i++) {
			memcpy(dst, src, n);
			use(dst);
		}
		one = (now_us() - t0) / 3;
		long batch = cold || one >= BATCH_US
				     ? 1
				     : (long)(BATCH_US /
					      (one > 0.001 ? one : 0.001));
		if (batch < 1)
			batch = 1;

		double spent = 0, start = now_us();
		while (reps < maxreps && (reps < 5 || spent < budget_us)) {
			if (cold)
				sink += evict(ev, evn);
			t0 = now_us();
			for (long b = 0; b < batch; b++) {
				memcpy(dst, src, n);
				use(dst);
			}
			samples[reps++] = (now_us() - t0) / batch;
			spent = now_us() - start;
		}
		if (memcmp(dst, src, n) != 0) {
			fprintf(stderr,
				"memcpy: the copy differs from its source\n");
			return 1;
		}
		double t = median(samples, reps);
		printf("%-6s %-7s %9ld %6d %12.4f %10.2f\n", "memcpy", "copy",
		       n, reps, t, n / t);
		fflush(stdout);
	}
	if (sink == 1)
		fprintf(stderr, "#\n"); /* keeps the eviction reads alive */
	free(samples);
	free(src);
	free(dst);
	free(ev);
	return 0;
}
