/*
 * groups.c - time per operation of pvm_barrier, pvm_bcast and pvm_reduce.
 *
 * One source, public PVM API only (pvm3.h, -lgpvm3 -lpvm3), so the same
 * program can be built against our libraries and against Debian's PVM 3.4.6
 * and run side by side (bench/run-groups.sh does that).
 *
 *   groups [-n counts] [-o ops] [-t secs] [-k maxk] [-b blocks] [-f] [-q] [-v]
 *                                 master (instance 0): spawns the others
 *   groups member GROUP N plain|frozen   a member (spawned by the master)
 *
 * -n: comma-separated member counts, 2 to 64 (default 2,4,8,16,32);
 * -o: comma-separated operations (default all):
 *       barrier     pvm_barrier(group, N)
 *       bcast8      pvm_bcast of 8 bytes (pvm_pkbyte, PvmDataDefault)
 *       bcast1M     pvm_bcast of 1 MiB
 *       reduce1     pvm_reduce(PvmSum) of 1 double to instance 0
 *       reduce100k  pvm_reduce(PvmSum) of 100000 doubles to instance 0
 * -t: time budget per cell (default 0.5 s), -k: cap on K, the operations per
 * block (default 50; 8 for bcast1M and reduce100k), -b: timed blocks per
 * cell at least (default 5), -f: freeze the group (pvm_freezegroup) once
 * everybody has joined (default: a plain, non-frozen group, as most programs
 * use), -q: no header lines, -v: every block's time per operation on
 * stderr, in the order they ran.
 *
 * How a cell (member count, operation) is measured.  The master joins the
 * group first (so it is instance 0, the root), spawns N-1 copies of itself,
 * which join and report, and all meet in a barrier.  Per cell the master
 * sends every member a command (pvm_mcast, outside any timed span): the
 * operation, K and the number of blocks.  Everybody then runs, per block,
 *
 *     pvm_barrier (fence) ; K operations ; pvm_barrier (fence)
 *
 * and the master's time between returning from the first fence and
 * returning from the second, divided by K, is that block's time per
 * operation.  The closing fence makes the time include delivery to every
 * member: a member calls it only after it has received (bcast) or sent
 * (reduce; pvm_reduce need not block non-root members) all K operations.
 * Both systems pay for that one extra barrier per block.  For `barrier` the
 * K barriers fence themselves and there is no closing one.  The printed
 * value is the median over the blocks.
 *
 * Untimed warm-up blocks with K = 2 come first: at least 3, and until a
 * quarter of the budget has passed (large operations stay slow for several
 * blocks at first: connections, buffers, page faults).  The fastest of the
 * last 3 sizes K: the minimum number of blocks fills the budget, within the
 * cap.  Then come timed blocks, each with a command of its own, until the
 * budget is spent (at least the minimum, at most 64).  The cap bounds how
 * far operations run ahead of each other inside a block: K back-to-back
 * 1 MiB broadcasts would otherwise measure how each system buffers a
 * backlog of K MiB per member.
 *
 * Each reduction has a message tag of its own (TAG_REDUCE + its number).
 * pvm_reduce does not block non-root members, so within a block they run
 * ahead of the root; with one tag for all, the reference's root takes a
 * fast member's contribution to the next reduction for the current one and
 * computes a wrong sum (the man page's caveat: it wants a barrier between
 * reductions).  Distinct tags keep the operations apart as the API intends,
 * so both systems are measured on back-to-back reductions, fenced per block.
 *
 * Nothing broken can be measured: every broadcast carries its sequence
 * number and a pattern that each member checks (fully in the first warm-up
 * block, on every 4 KiB page afterwards), and the root checks every element
 * of every reduction against the exact sum (members contribute integers, so
 * double sums are exact).  A member that finds an error exits with a
 * message, and the master's next barrier or command fails.
 *
 * Output, one line per cell: "N op K blocks us_per_op".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#include "timing.h"

enum {
	TAG_JOINED = 21,
	TAG_CMD = 22,
	TAG_BCAST = 23,
	TAG_EXIT = 25,
	TAG_REDUCE = 1000
};
enum {
	OP_BARRIER,
	OP_BCAST8,
	OP_BCAST1M,
	OP_REDUCE1,
	OP_REDUCE100K,
	OP_COUNT,
	OP_QUIT = 99
};

static const char *const op_name[OP_COUNT] = {"barrier", "bcast8", "bcast1M",
					      "reduce1", "reduce100k"};
#define MAXMEMBERS 64
#define BIGBYTES   (1024 * 1024)
#define BIGCOUNT   100000
#define WARMUP_K   2  /* operations per warm-up block */
#define WARMUP_MIN 3  /* warm-up blocks at least */
#define WARMUP_MAX 50 /* and at most */
#define MAXBLOCKS  64 /* timed blocks at most */
#define LARGE_MAXK 8  /* cap on K for the 1 MiB and 100000-double operations */

static char group[64];
static int nmembers; /* of the current cell */
static int myinst;
static char *bbuf;   /* broadcast data */
static double *rbuf; /* reduce data */

static void die(const char *what, int code)
{
	fprintf(stderr, "groups[%d]: %s failed (%d)\n", myinst, what, code);
	pvm_exit();
	exit(1);
}

static int is_large(int op)
{
	return op == OP_BCAST1M || op == OP_REDUCE100K;
}

static int bcast_size(int op)
{
	return op == OP_BCAST8 ? 8 : BIGBYTES;
}

/* A broadcast holds its sequence number, then bytes derived from their
 * offset (filled in once, so the root's time is not spent on filling). */
static char pattern_byte(int i)
{
	return (char)(i * 131 + 3);
}

static void fill_pattern(void)
{
	for (int i = 0; i < BIGBYTES; i++)
		bbuf[i] = pattern_byte(i);
}

/* Checks a received broadcast: every byte when full, else the sequence
 * number, one byte per 4 KiB page and the last byte. */
static void check_bcast(long seq, int size, int full)
{
	long got;

	memcpy(&got, bbuf, sizeof got);
	if (got != seq) {
		fprintf(stderr, "groups[%d]: bcast %ld arrived as %ld\n",
			myinst, seq, got);
		die("bcast order check", -1);
	}
	int step = full ? 1 : 4096;
	for (int i = (int)sizeof seq; i < size; i += step)
		if (bbuf[i] != pattern_byte(i))
			die("bcast data check at byte", i);
	if (size > (int)sizeof seq && bbuf[size - 1] != pattern_byte(size - 1))
		die("bcast data check at the last byte", size - 1);
}

/* Member inst contributes inst + seq + e at element e: all small integers,
 * so the sum over N members is exact, N * (seq + e) + N (N - 1) / 2. */
static void fill_reduce(long seq, int count)
{
	for (int e = 0; e < count; e++)
		rbuf[e] = (double)(myinst + seq + e);
}

static void check_reduce(long seq, int count)
{
	double base = (double)nmembers * (nmembers - 1) / 2;

	for (int e = 0; e < count; e++)
		if (rbuf[e] != (double)nmembers * (double)(seq + e) + base) {
			fprintf(stderr,
				"groups[0]: reduce %ld element %d is %.17g, expected %.17g\n",
				seq, e, rbuf[e],
				(double)nmembers * (double)(seq + e) + base);
			die("reduce result check", e);
		}
}

/* One operation, number seq, on any member; roottid is instance 0's tid. */
static void one_op(int op, long seq, int roottid, int full_check)
{
	int cc;

	switch (op) {
	case OP_BARRIER:
		if ((cc = pvm_barrier(group, nmembers)) < 0)
			die("pvm_barrier", cc);
		break;
	case OP_BCAST8:
	case OP_BCAST1M: {
		int size = bcast_size(op);
		if (myinst == 0) {
			memcpy(bbuf, &seq, sizeof seq);
			if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
			    (cc = pvm_pkbyte(bbuf, size, 1)) < 0)
				die("packing the broadcast", cc);
			if ((cc = pvm_bcast(group, TAG_BCAST)) < 0)
				die("pvm_bcast", cc);
		} else {
			int len, tag, src;
			if ((cc = pvm_recv(roottid, TAG_BCAST)) < 0)
				die("pvm_recv of the broadcast", cc);
			if ((cc = pvm_bufinfo(cc, &len, &tag, &src)) < 0)
				die("pvm_bufinfo", cc);
			if (len != size)
				die("broadcast length", len);
			if ((cc = pvm_upkbyte(bbuf, size, 1)) < 0)
				die("pvm_upkbyte", cc);
			check_bcast(seq, size, full_check);
		}
		break;
	}
	case OP_REDUCE1:
	case OP_REDUCE100K: {
		int count = op == OP_REDUCE1 ? 1 : BIGCOUNT;
		fill_reduce(seq, count);
		/* A tag of its own per reduction: see the comment at the top.
		 */
		int tag = TAG_REDUCE + (int)(seq % 1000000);
		if ((cc = pvm_reduce(PvmSum, rbuf, count, PVM_DOUBLE, tag,
				     group, 0)) < 0)
			die("pvm_reduce", cc);
		if (myinst == 0)
			check_reduce(seq, count);
		break;
	}
	default:
		die("unknown operation", op);
	}
}

/*
 * The blocks of one cell, run alike by every member.  Operation numbers
 * start at seq.  On the master, times[b] gets block b's time per operation.
 */
static void run_blocks(int op, int k, int blocks, long seq, int roottid,
		       int full_check, double *times)
{
	int cc;

	for (int b = 0; b < blocks; b++) {
		if ((cc = pvm_barrier(group, nmembers)) < 0)
			die("pvm_barrier (opening fence)", cc);
		double t0 = now_us();
		for (int i = 0; i < k; i++)
			one_op(op, seq++, roottid, full_check);
		if (op != OP_BARRIER && (cc = pvm_barrier(group, nmembers)) < 0)
			die("pvm_barrier (closing fence)", cc);
		if (times)
			times[b] = (now_us() - t0) / k;
	}
}

/* ---- member ---- */

static int member_main(const char *name, int n, int frozen)
{
	int parent = pvm_parent(), cc;
	int cmd[6];

	myinst = -1;
	if (parent < 0)
		die("member start (no parent)", parent);
	snprintf(group, sizeof group, "%s", name);
	if ((myinst = pvm_joingroup(group)) < 0)
		die("pvm_joingroup", myinst);
	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_pkint(&myinst, 1, 1)) < 0 ||
	    (cc = pvm_send(parent, TAG_JOINED)) < 0)
		die("reporting the join", cc);
	nmembers = n;
	/* The master's exit notice comes with the command tag (from the pvmd,
	 * not the master): a member left behind by a master that died stops
	 * instead of waiting for a command for ever. */
	if ((cc = pvm_notify(PvmTaskExit, TAG_CMD, 1, &parent)) < 0)
		die("pvm_notify", cc);
	if ((cc = pvm_barrier(group, n)) < 0)
		die("pvm_barrier (start)", cc);
	if (frozen && (cc = pvm_freezegroup(group, n)) < 0)
		die("pvm_freezegroup", cc);
	for (;;) {
		int len, tag, src;
		if ((cc = pvm_recv(-1, TAG_CMD)) < 0)
			die("pvm_recv of a command", cc);
		if ((cc = pvm_bufinfo(cc, &len, &tag, &src)) < 0)
			die("pvm_bufinfo", cc);
		if (src != parent)
			die("waiting for a command: the master exited", src);
		if ((cc = pvm_upkint(cmd, 6, 1)) < 0)
			die("unpacking a command", cc);
		int op = cmd[0], k = cmd[1], blocks = cmd[2];
		long seq = cmd[3];
		nmembers = cmd[4];
		if (op == OP_QUIT)
			break;
		if (op < 0 || op >= OP_COUNT || k < 1 || blocks < 1 ||
		    nmembers < 2)
			die("command values", op);
		run_blocks(op, k, blocks, seq, parent, cmd[5], NULL);
	}
	pvm_lvgroup(group);
	pvm_exit();
	return 0;
}

/* ---- master ---- */

struct opts {
	double budget_us;
	int maxk, blocks, frozen, verbose;
	const char *path;
};

/* Tells the members what to run next; full: check every broadcast byte. */
static void send_cmd(const int *tids, int n, int op, int k, int blocks,
		     long seq, int full)
{
	int cmd[6] = {op, k, blocks, (int)seq, nmembers, full}, cc;

	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_pkint(cmd, 6, 1)) < 0 ||
	    (cc = pvm_mcast((int *)tids, n, TAG_CMD)) < 0)
		die("sending a command", cc);
}

/* One cell: warm-up, then the timed blocks; prints the line. */
static void measure(const struct opts *o, const int *tids, int op, long *seq)
{
	double times[MAXBLOCKS], warm[WARMUP_MAX];
	int mytid = pvm_mytid();

	/* Warm-up: blocks of WARMUP_K until at least WARMUP_MIN of them and a
	 * quarter of the budget have passed (the first large operations are
	 * slow for several blocks: connections, buffers, page faults).  The
	 * fastest of the last WARMUP_MIN blocks sizes K. */
	double spent = 0, per_op = 0;
	int w = 0;
	do {
		send_cmd(tids, nmembers - 1, op, WARMUP_K, 1, *seq, w == 0);
		run_blocks(op, WARMUP_K, 1, *seq, mytid, w == 0, &warm[w]);
		*seq += WARMUP_K;
		spent += warm[w] * WARMUP_K;
		w++;
	} while (w < WARMUP_MIN ||
		 (spent < o->budget_us / 4 && w < WARMUP_MAX));
	for (int i = w - WARMUP_MIN; i < w; i++)
		if (i == w - WARMUP_MIN || warm[i] < per_op)
			per_op = warm[i];
	if (per_op < 1)
		per_op = 1;

	/* K: the minimum number of blocks fills the budget, within the cap.
	 * Then blocks, one command each, until the budget is spent. */
	int cap = is_large(op) && o->maxk > LARGE_MAXK ? LARGE_MAXK : o->maxk;
	double k_fit = o->budget_us / o->blocks / per_op;
	int k = k_fit < 1 ? 1 : k_fit > cap ? cap : (int)k_fit;
	int blocks = 0;
	spent = 0;
	while (blocks < o->blocks ||
	       (spent < o->budget_us && blocks < MAXBLOCKS)) {
		send_cmd(tids, nmembers - 1, op, k, 1, *seq, 0);
		run_blocks(op, k, 1, *seq, mytid, 0, &times[blocks]);
		*seq += k;
		spent += times[blocks] * k;
		blocks++;
	}
	if (o->verbose) {
		fprintf(stderr, "# %d %s blocks:", nmembers, op_name[op]);
		for (int b = 0; b < blocks; b++)
			fprintf(stderr, " %.0f", times[b]);
		fprintf(stderr, "\n");
	}
	printf("%2d %-10s %5d %3d %12.2f\n", nmembers, op_name[op], k, blocks,
	       median(times, blocks));
	fflush(stdout);
}

/* All cells of one member count, in a fresh group. */
static void run_count(const struct opts *o, int n, const int *use_op)
{
	int tids[MAXMEMBERS], cc, inst;

	nmembers = n;
	snprintf(group, sizeof group, "gsbench.%x.%d", pvm_mytid(), n);
	if ((myinst = pvm_joingroup(group)) != 0)
		die("pvm_joingroup (the master must be instance 0)", myinst);
	char nbuf[16];
	snprintf(nbuf, sizeof nbuf, "%d", n);
	char *argv[] = {"member", group, nbuf, o->frozen ? "frozen" : "plain",
			NULL};
	int got = pvm_spawn((char *)o->path, argv, PvmTaskDefault, "", n - 1,
			    tids);
	if (got != n - 1) {
		fprintf(stderr,
			"groups: spawned %d of %d members (first code %d)\n",
			got, n - 1, tids[0]);
		die("pvm_spawn", got);
	}
	if ((cc = pvm_notify(PvmTaskExit, TAG_EXIT, n - 1, tids)) < 0)
		die("pvm_notify", cc);
	for (int i = 0; i < n - 1; i++) {
		int len, tag, src;
		if ((cc = pvm_recv(-1, -1)) < 0)
			die("waiting for the members to join", cc);
		pvm_bufinfo(cc, &len, &tag, &src);
		if (tag == TAG_EXIT)
			die("a member exited before joining", src);
		if (tag != TAG_JOINED || pvm_upkint(&inst, 1, 1) < 0 ||
		    inst < 1 || inst >= n)
			die("join report", tag);
	}
	if ((cc = pvm_barrier(group, n)) < 0)
		die("pvm_barrier (start)", cc);
	if (o->frozen && (cc = pvm_freezegroup(group, n)) < 0)
		die("pvm_freezegroup", cc);

	long seq = 1;
	for (int op = 0; op < OP_COUNT; op++)
		if (use_op[op])
			measure(o, tids, op, &seq);

	send_cmd(tids, n - 1, OP_QUIT, 1, 1, 0, 0);
	for (int left = n - 1; left > 0;) {
		int len, tag, src;
		if ((cc = pvm_recv(-1, TAG_EXIT)) < 0)
			die("waiting for the members to exit", cc);
		pvm_bufinfo(cc, &len, &tag, &src);
		left--;
	}
	pvm_lvgroup(group);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: groups [-n counts] [-o barrier,bcast8,bcast1M,reduce1,reduce100k]\n"
		"              [-t secs-per-cell] [-k maxk] [-b blocks] [-f] [-q] [-v]\n"
		"       groups member GROUP N plain|frozen   (a member; spawned by the master)\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct opts o = {.budget_us = 0.5e6, .maxk = 50, .blocks = 5};
	int counts[16] = {2, 4, 8, 16, 32}, ncounts = 5;
	int use_op[OP_COUNT] = {1, 1, 1, 1, 1};
	int opt, quiet = 0;
	char self[4096];

	bbuf = malloc(BIGBYTES);
	rbuf = malloc(sizeof *rbuf * BIGCOUNT);
	if (!bbuf || !rbuf)
		die("malloc", 0);
	fill_pattern();
	if (argc == 5 && strcmp(argv[1], "member") == 0)
		return member_main(argv[2], atoi(argv[3]),
				   strcmp(argv[4], "frozen") == 0);
	while ((opt = getopt(argc, argv, "n:o:t:k:b:fqv")) != -1) {
		switch (opt) {
		case 'n':
			ncounts = 0;
			for (char *t = strtok(optarg, ","); t;
			     t = strtok(NULL, ",")) {
				int v = atoi(t);
				if (v < 2 || v > MAXMEMBERS || ncounts == 16)
					usage();
				counts[ncounts++] = v;
			}
			break;
		case 'o':
			memset(use_op, 0, sizeof use_op);
			for (char *t = strtok(optarg, ","); t;
			     t = strtok(NULL, ",")) {
				int i;
				for (i = 0; i < OP_COUNT &&
					    strcasecmp(t, op_name[i]) != 0;
				     i++)
					;
				if (i == OP_COUNT)
					usage();
				use_op[i] = 1;
			}
			break;
		case 't':
			o.budget_us = atof(optarg) * 1e6;
			break;
		case 'k':
			o.maxk = atoi(optarg);
			break;
		case 'b':
			o.blocks = atoi(optarg);
			break;
		case 'f':
			o.frozen = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'v':
			o.verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || ncounts == 0 || o.budget_us <= 0 || o.maxk < 1 ||
	    o.blocks < 1 || o.blocks > MAXBLOCKS)
		usage();
	/* Spawn this very binary by absolute path: each side then runs with the
	 * libraries it was linked against. */
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		die("readlink /proc/self/exe", (int)len);
	self[len] = '\0';
	o.path = self;

	int mytid = pvm_mytid();
	if (mytid < 0)
		die("pvm_mytid (is a pvmd running?)", mytid);
	if (!quiet) {
		printf("# %s, PVM %s, %s group, median of >= %d blocks, time per operation in us\n",
		       self, pvm_version(), o.frozen ? "frozen" : "plain",
		       o.blocks);
		printf("#  N op             K blk    us_per_op\n");
	}
	for (int i = 0; i < ncounts; i++)
		run_count(&o, counts[i], use_op);
	free(bbuf);
	free(rbuf);
	pvm_exit();
	return 0;
}
