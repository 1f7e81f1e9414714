/*
 * spawn.c - how long starting N tasks takes, until each has said so.
 *
 * One source, public PVM API only, built against our pvm3.h/libpvm3 and
 * against Debian's PVM 3.4.6 (bench/run-spawn.sh runs both side by side).
 *
 *   spawn [-n tasks] [-r reps] [-q]     master: prints the median time
 *   spawn child                         (spawned by the master)
 *
 * The master spawns N copies of itself (default 16) in one pvm_spawn call;
 * each child enrolls, sends the master one empty message and exits.  One
 * repetition is the time from just before pvm_spawn until the N-th reply has
 * arrived; the master also waits for the N children's exit notices (outside
 * the timed span) so that a repetition starts with no task left over.  The
 * output line: "spawn N tasks: median U us (min U, max U) over R reps,
 * U us per task".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

enum { TAG_HELLO = 21, TAG_EXIT = 22 };
#define MAXTASKS 4096

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void die(const char *what, int code)
{
	fprintf(stderr, "spawn: %s failed (%d)\n", what, code);
	pvm_exit();
	exit(1);
}

static int child(void)
{
	int parent = pvm_parent();
	if (parent < 0)
		die("pvm_parent", parent);
	pvm_initsend(PvmDataDefault);
	int cc = pvm_send(parent, TAG_HELLO);
	if (cc < 0)
		die("pvm_send", cc);
	pvm_exit();
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One repetition: the time until all n children have replied. */
static double one_rep(char *self, int n, int *tids)
{
	char *argv[] = {"child", NULL};
	double t0 = now_us();
	int got = pvm_spawn(self, argv, PvmTaskDefault, "", n, tids);
	if (got != n) {
		for (int i = 0; i < n; i++)
			if (tids[i] < 0) {
				fprintf(stderr, "spawn: task %d: error %d\n", i,
					tids[i]);
				break;
			}
		die("pvm_spawn", got);
	}
	for (int i = 0; i < n; i++) {
		int cc = pvm_recv(-1, TAG_HELLO);
		if (cc < 0)
			die("pvm_recv", cc);
	}
	double t = now_us() - t0;
	/* every child gone before the next repetition */
	int cc = pvm_notify(PvmTaskExit, TAG_EXIT, n, tids);
	if (cc < 0)
		die("pvm_notify", cc);
	for (int i = 0; i < n; i++)
		if ((cc = pvm_recv(-1, TAG_EXIT)) < 0)
			die("pvm_recv exit", cc);
	return t;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();

	int n = 16, reps = 11, quiet = 0, opt;
	while ((opt = getopt(argc, argv, "n:r:q")) != -1) {
		switch (opt) {
		case 'n':
			n = atoi(optarg);
			break;
		case 'r':
			reps = atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: spawn [-n tasks] [-r reps] [-q]\n");
			return 2;
		}
	}
	if (n < 1 || n > MAXTASKS || reps < 1) {
		fprintf(stderr, "spawn: -n 1..%d, -r 1 or more\n", MAXTASKS);
		return 2;
	}
	char self[4096];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len < 0)
		die("readlink /proc/self/exe", (int)len);
	self[len] = '\0';

	int me = pvm_mytid();
	if (me < 0)
		die("pvm_mytid", me);
	int *tids = malloc(sizeof *tids * (size_t)n);
	double *t = malloc(sizeof *t * (size_t)reps);
	if (!tids || !t)
		die("malloc", 0);
	one_rep(self, n, tids); /* warm-up: caches, the pvmd's tables */
	for (int r = 0; r < reps; r++)
		t[r] = one_rep(self, n, tids);
	qsort(t, (size_t)reps, sizeof *t, cmp_double);
	double med = t[reps / 2];
	if (!quiet)
		printf("# master t%x, %d tasks per spawn\n", me, n);
	printf("spawn %d tasks: median %.0f us (min %.0f, max %.0f) over %d reps, %.0f us per task\n",
	       n, med, t[0], t[reps - 1], reps, med / n);
	free(tids);
	free(t);
	pvm_exit();
	return 0;
}
