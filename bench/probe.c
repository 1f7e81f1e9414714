/*
 * probe.c - how long one small request to the pvmd waits while the pvmd
 * has other work (bench/run-stall.sh): every 10 ms a pvm_config, timed,
 * until the file STOPFILE exists (or SECS pass); then one line:
 *
 *   probes N median M ms p99 P ms max X ms
 *
 *   probe STOPFILE SECS
 *   probe -put NAME       puts a persistent mailbox entry NAME
 *   probe -list PATTERN   one pvm_getmboxinfo(PATTERN)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"
#include "timing.h"

#define MAXN 100000

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "-put")) {
		int b = pvm_initsend(PvmDataDefault), one = 1;
		pvm_pkint(&one, 1, 1);
		return pvm_putinfo(argv[2], b, PvmMboxPersistent) < 0;
	}
	if (argc == 3 && !strcmp(argv[1], "-list")) {
		int n;
		struct pvmmboxinfo *c;
		return pvm_getmboxinfo(argv[2], &n, &c) < 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: probe STOPFILE SECS\n");
		return 2;
	}
	double secs = atof(argv[2]), t0 = now_us();
	static double v[MAXN];
	int n = 0;
	if (pvm_mytid() < 0)
		return 1;
	printf("probing\n");
	fflush(stdout);
	while (n < MAXN && access(argv[1], F_OK) != 0 &&
	       now_us() - t0 < secs * 1e6) {
		int nhost, narch;
		struct pvmhostinfo *hi;
		double a = now_us();
		if (pvm_config(&nhost, &narch, &hi) < 0)
			return 1;
		v[n++] = (now_us() - a) / 1e3;
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	double med = median(v, n); /* sorts v */
	printf("probes %d median %.2f ms p99 %.2f ms max %.2f ms\n", n, med,
	       v[(int)(0.99 * (n - 1))], v[n - 1]);
	pvm_exit();
	return 0;
}
