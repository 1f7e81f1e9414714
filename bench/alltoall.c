/*
 * alltoall.c - N tasks exchange messages all-to-all (issue 27: more tasks
 * than cores).  One source built against our pvm3.h and libpvm3 (make) and
 * against Debian's PVM 3.4.6 (bench/run-local.sh), public API only.
 *
 *   alltoall [-N tasks] [-z bytes,...] [-t secs] [-n maxreps] [-r route] [-q]
 *
 * The master spawns N-1 copies of itself by absolute path (each runs with
 * its own library) and tells them the others' tids.  One exchange: N-1
 * steps; in step k every task pvm_psends `size` bytes to task i+k and
 * pvm_precvs them from task i-k, checking the first and last byte.
 * Before each size, untimed exchanges warm up; then each exchange is
 * timed separately by the master until the budget is spent (at least 5,
 * at most maxreps).  Output in pingpong's format: route "a2aN", method
 * psend, bytes, exchanges, the median time of one exchange (us), and the
 * bytes each task received per us (MB/s).  -r direct sets PvmRouteDirect
 * in every task (the reference's faster route); default: the library's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"
#include "timing.h"

#define MAXN	 64
#define MAXSIZE	 (1 << 20)
#define WARMUP	 5
#define MINREPS	 5
#define TAG_INIT 1
#define TAG_CMD	 2
#define TAG_DATA 3
#define TAG_DONE 4

static void die(const char *what, int code)
{
	fprintf(stderr, "alltoall: %s failed (%d)\n", what, code);
	pvm_exit();
	exit(1);
}

static int n, me, tids[MAXN];
static char *out, *in;

/* One exchange of size bytes: in step k each task sends to the k-th
 * after it and receives from the k-th before it (a send-all-first
 * exchange hung the reference at 64 KiB with 8 tasks: its psend blocks
 * while the socket is full).  Returns 0, or -1 when a message is wrong. */
static int exchange(int size, int seq)
{
	int cc, bad = 0;
	out[0] = (char)seq;
	out[size - 1] = (char)(seq + me);
	for (int k = 1; k < n; k++) {
		int from = (me - k + n) % n, len = -1;
		if ((cc = pvm_psend(tids[(me + k) % n], TAG_DATA, out, size,
				    PVM_BYTE)) < 0)
			die("pvm_psend", cc);
		if ((cc = pvm_precv(tids[from], TAG_DATA, in, size, PVM_BYTE,
				    NULL, NULL, &len)) < 0)
			die("pvm_precv", cc);
		bad |= len != size || in[0] != (char)seq ||
		       in[size - 1] != (char)(seq + from);
	}
	return bad ? -1 : 0;
}

/* Commands from the master: {size, reps} (all exchange reps times), and
 * {0, 0} to stop. */
static void worker(void)
{
	int cmd[2], cc;
	for (;;) {
		if ((cc = pvm_precv(tids[0], TAG_CMD, cmd, 2, PVM_INT, NULL,
				    NULL, NULL)) < 0)
			die("pvm_precv command", cc);
		if (cmd[0] <= 0)
			return;
		for (int i = 0; i < cmd[1]; i++)
			if (exchange(cmd[0], i) < 0)
				die("data check", i);
		pvm_psend(tids[0], TAG_DONE, NULL, 0, PVM_BYTE);
	}
}

static void command(int size, int reps)
{
	int cmd[2] = {size, reps};
	for (int k = 1; k < n; k++)
		pvm_psend(tids[k], TAG_CMD, cmd, 2, PVM_INT);
}

static void wait_done(void)
{
	for (int k = 1; k < n; k++)
		pvm_precv(tids[k], TAG_DONE, NULL, 0, PVM_BYTE, NULL, NULL,
			  NULL);
}

static void run(int size, double *t, int reps)
{
	command(size, reps);
	for (int i = 0; i < reps; i++) {
		double t0 = now_us();
		if (exchange(size, i) < 0)
			die("data check", i);
		t[i] = now_us() - t0;
	}
	wait_done();
}

int main(int argc, char **argv)
{
	int opt, maxreps = 3000, quiet = 0, direct = 0;
	double budget_us = 0.2e6;
	char zdef[] = "8,65536", *zs = zdef;
	n = 4;
	while ((opt = getopt(argc, argv, "N:z:t:n:r:qw")) != -1) {
		switch (opt) {
		case 'N':
			n = atoi(optarg);
			break;
		case 'z':
			zs = optarg;
			break;
		case 't':
			budget_us = atof(optarg) * 1e6;
			break;
		case 'n':
			maxreps = atoi(optarg);
			break;
		case 'r':
			direct = !strcmp(optarg, "direct");
			break;
		case 'q':
			quiet = 1;
			break;
		case 'w':
			break; /* a worker (spawned) */
		default:
			fprintf(stderr,
				"usage: alltoall [-N tasks] [-z bytes,...] "
				"[-t secs] [-n maxreps] [-r direct] "
				"[-q]\n");
			return 2;
		}
	}
	if (n < 2 || n > MAXN || maxreps < MINREPS)
		return 2;
	if ((me = pvm_mytid()) < 0)
		die("pvm_mytid (is a pvmd running?)", me);
	if (direct)
		pvm_setopt(PvmRoute, PvmRouteDirect);
	out = malloc(MAXSIZE);
	in = malloc(MAXSIZE);
	double *t = malloc(sizeof *t * (size_t)maxreps);
	if (!out || !in || !t)
		die("malloc", 0);
	memset(out, 0x3c, MAXSIZE);
	int parent = pvm_parent();
	if (parent > 0) {
		int cc = pvm_precv(parent, TAG_INIT, tids, MAXN, PVM_INT, NULL,
				   NULL, NULL);
		if (cc < 0)
			die("pvm_precv tids", cc);
		for (me = 0; me < n && tids[me] != pvm_mytid(); me++)
			;
		pvm_psend(parent, TAG_DONE, NULL, 0, PVM_BYTE);
		worker();
		pvm_exit();
		return 0;
	}
	char self[4096];
	ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
	if (k <= 0)
		die("readlink /proc/self/exe", (int)k);
	self[k] = 0;
	char nb[16], *av[] = {"-N", nb, "-w", direct ? "-rdirect" : NULL, NULL};
	snprintf(nb, sizeof nb, "%d", n);
	tids[0] = me;
	me = 0;
	int cc = pvm_spawn(self, av, PvmTaskDefault, "", n - 1, tids + 1);
	if (cc != n - 1)
		die("pvm_spawn", cc);
	for (int i = 1; i < n; i++)
		pvm_psend(tids[i], TAG_INIT, tids, MAXN, PVM_INT);
	wait_done(); /* everybody knows everybody (and set its route) */
	if (!quiet)
		printf("# route  method      bytes   reps  exchange_us       "
		       "MB/s\n");
	for (char *tok = strtok(zs, ","); tok; tok = strtok(NULL, ",")) {
		int size = atoi(tok);
		if (size < 2 || size > MAXSIZE)
			die("size", size);
		run(size, t, WARMUP);
		double per = median(t + 1, WARMUP - 1);
		int reps = (int)(budget_us / (per > 1 ? per : 1));
		reps = reps < MINREPS	? MINREPS
		       : reps > maxreps ? maxreps
					: reps;
		run(size, t, reps);
		double us = median(t, reps);
		char route[16];
		snprintf(route, sizeof route, "a2a%d", n);
		printf("%-6s %-7s %9d %6d %12.2f %10.2f\n", route, "psend",
		       size, reps, us, (double)(n - 1) * size / us);
		fflush(stdout);
	}
	command(0, 0);
	pvm_exit();
	return 0;
}
