/*
 * pingpong.c - half-round-trip latency and bandwidth between two PVM tasks.
 *
 * One source, public PVM API only, so the same program can be built against
 * our pvm3.h/libpvm3 and against Debian's PVM 3.4.6 and run side by side
 * (bench/run-pingpong.sh does that).
 *
 *   pingpong [-t secs] [-n maxreps] [-s path] [-r routes] [-m methods]
 *            [-z sizes] [-q]
 *                                   master: spawns its partner, prints results
 *   pingpong echo pvmd|direct|default   partner (spawned by the master)
 *
 * -r and -m take comma-separated lists (pvmd,direct and
 * psend,Raw,InPlace,Default; default: all) so a driver can interleave runs
 * of two builds cell group by cell group; -z replaces the sizes (bytes,
 * multiples of 4 up to 16 MiB); -q leaves out the header lines.  The route
 * "default" (only when asked for with -r) leaves PvmRoute as the library
 * sets it at start-up in both tasks: the route the library picks by itself.
 * Message buffers are page-aligned.  With PINGPONG_HOST=name in its
 * environment the master spawns its partner on that host (PvmTaskHost) and
 * checks that it runs there (bench/run-hosts.sh: two hosts).
 *
 * For each route (through the pvmds, then PvmRouteDirect), each method
 * (psend/precv, pack+send in PvmDataRaw, PvmDataInPlace and PvmDataDefault)
 * and each size, the master times every round trip separately, checks the
 * echoed bytes after each one (outside the timed span) and prints the median
 * half round trip and the bandwidth it gives (size / half round trip,
 * MB = 10^6 bytes).  psend sends PVM_BYTE; the pack methods pack ints, so
 * PvmDataDefault pays for real XDR conversion.
 *
 * A fresh partner is spawned for each route: a direct link, once made,
 * persists, so the pvmd-route numbers must come from a pair that never made
 * one.  Both tasks set PvmRoute before they exchange anything, and the
 * master waits for the partner's "ready" before it sends.  The master
 * receives with wildcards (-1, -1) and checks the tag, so the partner's
 * exit notice (pvm_notify) ends the run instead of leaving it hanging.
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
	TAG_CMD = 11,
	TAG_PING = 12,
	TAG_PONG = 13,
	TAG_END = 14,
	TAG_EXIT = 15,
	TAG_READY = 16
};
enum { M_PSEND, M_RAW, M_INPLACE, M_DEFAULT, M_COUNT };

static const char *const method_name[M_COUNT] = {"psend", "Raw", "InPlace",
						 "Default"};
static int sizes[16] = {8, 1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
static int nsizes = 5;
#define MAXSIZE (16 * 1024 * 1024)
#define WARMUP	5 /* untimed round trips before a cell (2 from 1 MiB on) */
#define MINREPS 5 /* timed round trips at least (3 from 16 MiB on) */

static void die(const char *what, int code)
{
	fprintf(stderr, "pingpong: %s failed (%d)\n", what, code);
	pvm_exit();
	exit(1);
}

static int encoding_of(int method)
{
	return method == M_RAW	     ? PvmDataRaw
	       : method == M_INPLACE ? PvmDataInPlace
				     : PvmDataDefault;
}

/* Sends size bytes of buf to tid with the given method. */
static void send_one(int method, int tid, int tag, char *buf, int size)
{
	int cc;

	if (method == M_PSEND) {
		if ((cc = pvm_psend(tid, tag, buf, size, PVM_BYTE)) < 0)
			die("pvm_psend", cc);
		return;
	}
	if ((cc = pvm_initsend(encoding_of(method))) < 0)
		die("pvm_initsend", cc);
	if ((cc = pvm_pkint((int *)buf, size / (int)sizeof(int), 1)) < 0)
		die("pvm_pkint", cc);
	if ((cc = pvm_send(tid, tag)) < 0)
		die("pvm_send", cc);
}

/*
 * Receives the next message from tid (any tag, or a notify from anyone) into
 * buf.  Returns its tag; a message of tag `want` must hold exactly size bytes.
 */
static int recv_one(int method, int tid, int want, char *buf, int size)
{
	int cc, src, tag, len;

	if (method == M_PSEND) {
		cc = pvm_precv(-1, -1, buf, size, PVM_BYTE, &src, &tag, &len);
		if (cc < 0)
			die("pvm_precv", cc);
		if (tag == want && (src != tid || len != size)) {
			fprintf(stderr,
				"pingpong: precv got %d bytes from t%x, expected %d from t%x\n",
				len, src, size, tid);
			die("pvm_precv length", len);
		}
		return tag;
	}
	if ((cc = pvm_recv(-1, -1)) < 0)
		die("pvm_recv", cc);
	if (pvm_bufinfo(cc, &len, &tag, &src) < 0)
		die("pvm_bufinfo", cc);
	if (tag != want)
		return tag;
	if (src != tid)
		die("pvm_recv source", src);
	if ((cc = pvm_upkint((int *)buf, size / (int)sizeof(int), 1)) < 0)
		die("pvm_upkint", cc);
	return tag;
}

/* ---- partner ---- */

static int echo_main(const char *route)
{
	int parent = pvm_parent();
	char *buf = aligned_alloc(4096, MAXSIZE);
	int cmd[3], cc;

	if (parent < 0 || !buf)
		die("partner start", parent);
	if (strcmp(route, "default") != 0)
		pvm_setopt(PvmRoute, strcmp(route, "direct") == 0
					     ? PvmRouteDirect
					     : PvmDontRoute);
	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_send(parent, TAG_READY)) < 0)
		die("partner ready", cc);
	for (;;) {
		if ((cc = pvm_recv(parent, -1)) < 0)
			die("partner pvm_recv", cc);
		int len, tag, src;
		pvm_bufinfo(cc, &len, &tag, &src);
		if (tag == TAG_END)
			break;
		if (tag != TAG_CMD || pvm_upkint(cmd, 3, 1) < 0)
			die("partner command", tag);
		int method = cmd[0], size = cmd[1], reps = cmd[2];
		if (method < 0 || method >= M_COUNT || size <= 0 ||
		    size > MAXSIZE || reps < 0)
			die("partner command values", method);
		for (int i = 0; i < reps; i++) {
			if (recv_one(method, parent, TAG_PING, buf, size) !=
			    TAG_PING)
				die("partner ping tag", -1);
			send_one(method, parent, TAG_PONG, buf, size);
		}
	}
	free(buf);
	pvm_exit();
	return 0;
}

/* ---- master ---- */

struct ctx {
	int tid;	/* partner */
	char *out, *in; /* sent and echoed data */
	double *times;	/* round-trip times of one cell, µs */
	int maxreps;
	double budget_us; /* time allowed per cell (beyond MINREPS) */
	unsigned stamp;
};

/* Asks the partner for reps echoes, does them, returns how many were timed. */
static int run_reps(struct ctx *c, int method, int size, int reps,
		    double *times)
{
	int cmd[3] = {method, size, reps}, cc;

	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_pkint(cmd, 3, 1)) < 0 ||
	    (cc = pvm_send(c->tid, TAG_CMD)) < 0)
		die("sending command", cc);
	for (int i = 0; i < reps; i++) {
		c->stamp++;
		memcpy(c->out, &c->stamp, sizeof c->stamp);
		memset(c->in, 0, 8);
		double t0 = now_us();
		send_one(method, c->tid, TAG_PING, c->out, size);
		int tag = recv_one(method, c->tid, TAG_PONG, c->in, size);
		double t1 = now_us();
		if (tag == TAG_EXIT)
			die("partner exited early; round trip", i);
		if (tag != TAG_PONG)
			die("unexpected tag", tag);
		if (memcmp(c->out, c->in, size) != 0)
			die("echo check (data differs)", i);
		if (times)
			times[i] = t1 - t0;
	}
	return reps;
}

static void measure(struct ctx *c, const char *route, int method, int size)
{
	/* Warm-up: connection set-up, page faults, first allocations.  The
	 * median of its round trips after the first (the coldest) sizes the
	 * measured run to the time budget. */
	int warmup = size >= 1024 * 1024 ? 2 : WARMUP;
	int minreps = size >= 16 * 1024 * 1024 ? 3 : MINREPS;
	run_reps(c, method, size, warmup, c->times);
	double per_rt = median(c->times + 1, warmup - 1);

	int reps = (int)(c->budget_us / (per_rt > 1 ? per_rt : 1));
	if (reps < minreps)
		reps = minreps;
	if (reps > c->maxreps)
		reps = c->maxreps;
	run_reps(c, method, size, reps, c->times);
	double half = median(c->times, reps) / 2;
	printf("%-6s %-7s %9d %6d %12.2f %10.2f\n", route, method_name[method],
	       size, reps, half, size / half);
	fflush(stdout);
}

/* Dies unless task tid runs on the host named host (pvm_config's name). */
static void check_partner_host(int tid, const char *host)
{
	struct pvmhostinfo *hi;
	int nhost, narch, cc;

	if ((cc = pvm_config(&nhost, &narch, &hi)) < 0)
		die("pvm_config", cc);
	for (int i = 0; i < nhost; i++)
		if (hi[i].hi_tid == pvm_tidtohost(tid)) {
			if (strcmp(hi[i].hi_name, host) != 0) {
				fprintf(stderr,
					"pingpong: partner t%x runs on %s, not on %s\n",
					tid, hi[i].hi_name, host);
				die("partner placement", tid);
			}
			return;
		}
	fprintf(stderr, "pingpong: partner t%x is on no host of pvm_config\n",
		tid);
	die("partner placement", tid);
}

/* Spawns the partner: anywhere the pvmd likes, or on the host named by
 * $PINGPONG_HOST (PvmTaskHost), e.g. another host of the virtual machine. */
static int spawn_partner(const char *path, const char *route)
{
	char *argv[] = {"echo", (char *)route, NULL};
	const char *host = getenv("PINGPONG_HOST");
	int tid = 0;
	int n;

	if (host && *host)
		n = pvm_spawn((char *)path, argv, PvmTaskHost, (char *)host, 1,
			      &tid);
	else
		n = pvm_spawn((char *)path, argv, PvmTaskDefault, "", 1, &tid);
	if (n != 1) {
		fprintf(stderr, "pingpong: cannot spawn %s%s%s (%d, tid %d)\n",
			path, host && *host ? " on " : "",
			host && *host ? host : "", n, tid);
		pvm_exit();
		exit(1);
	}
	if (host && *host)
		check_partner_host(tid, host);
	if ((n = pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tid)) < 0)
		die("pvm_notify", n);
	/* Wait until it has set its route: the measurement is of the route,
	 * not of a race with the partner's start-up. */
	int cc, len, tag, src;
	do {
		if ((cc = pvm_recv(-1, -1)) < 0)
			die("waiting for the partner", cc);
		pvm_bufinfo(cc, &len, &tag, &src);
		if (tag == TAG_EXIT)
			die("partner start (it exited)", tid);
	} while (tag != TAG_READY);
	return tid;
}

static void stop_partner(int tid)
{
	int cc, len, tag, src;

	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_send(tid, TAG_END)) < 0)
		die("sending end", cc);
	/* Wait for its exit notice so the next route starts from a clean state.
	 */
	do {
		if ((cc = pvm_recv(-1, -1)) < 0)
			die("waiting for partner exit", cc);
		pvm_bufinfo(cc, &len, &tag, &src);
	} while (tag != TAG_EXIT);
}

/* Index of name in the list, or -1. */
static int lookup(const char *name, const char *const *list, int n)
{
	for (int i = 0; i < n; i++)
		if (strcasecmp(name, list[i]) == 0)
			return i;
	return -1;
}

/* Marks in sel[] the entries named in a comma-separated list. */
static int select_names(char *arg, const char *const *list, int n, int *sel)
{
	memset(sel, 0, n * sizeof *sel);
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		int i = lookup(tok, list, n);
		if (i < 0) {
			fprintf(stderr, "pingpong: unknown name '%s'\n", tok);
			return -1;
		}
		sel[i] = 1;
	}
	return 0;
}

/* Reads a comma-separated list of sizes into sizes[]. */
static int select_sizes(char *arg)
{
	nsizes = 0;
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v < 4 || v > MAXSIZE || v % 4 ||
		    nsizes == (int)(sizeof sizes / sizeof sizes[0])) {
			fprintf(stderr,
				"pingpong: bad size '%s' (multiples of 4 up to %d, at most 16)\n",
				tok, MAXSIZE);
			return -1;
		}
		sizes[nsizes++] = (int)v;
	}
	return nsizes ? 0 : -1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pingpong [-t secs-per-cell] [-n maxreps] [-s partner-path]\n"
		"                [-r pvmd,direct,default] [-m psend,Raw,InPlace,Default]\n"
		"                [-z bytes,...] [-q]\n"
		"       pingpong echo pvmd|direct|default   (the partner; spawned by the master)\n"
		"environment: PINGPONG_HOST=name spawns the partner on that host\n");
	exit(2);
}

int main(int argc, char **argv)
{
	char self[4096];
	const char *path = NULL;
	struct ctx c = {.maxreps = 3000, .budget_us = 0.5e6};
	static const char *const routes[] = {"pvmd", "direct", "default"};
	int use_route[3] = {1, 1, 0}, use_method[M_COUNT] = {1, 1, 1, 1};
	int opt, quiet = 0;

	if (argc == 3 && strcmp(argv[1], "echo") == 0 &&
	    (!strcmp(argv[2], "pvmd") || !strcmp(argv[2], "direct") ||
	     !strcmp(argv[2], "default")))
		return echo_main(argv[2]);
	while ((opt = getopt(argc, argv, "t:n:s:r:m:z:q")) != -1) {
		switch (opt) {
		case 'z':
			if (select_sizes(optarg) < 0)
				usage();
			break;
		case 'r':
			if (select_names(optarg, routes, 3, use_route) < 0)
				usage();
			break;
		case 'm':
			if (select_names(optarg, method_name, M_COUNT,
					 use_method) < 0)
				usage();
			break;
		case 'q':
			quiet = 1;
			break;
		case 't':
			c.budget_us = atof(optarg) * 1e6;
			break;
		case 'n':
			c.maxreps = atoi(optarg);
			break;
		case 's':
			path = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc || c.maxreps < MINREPS || c.budget_us <= 0)
		usage();
	if (!path) {
		/* Spawn this very binary by absolute path: each side then runs
		 * with the library it was linked against. */
		ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
		if (n <= 0)
			die("readlink /proc/self/exe", (int)n);
		self[n] = '\0';
		path = self;
	}

	int mytid = pvm_mytid();
	if (mytid < 0)
		die("pvm_mytid (is a pvmd running?)", mytid);
	int route0 = pvm_getopt(PvmRoute); /* the library's own choice */
	c.out = aligned_alloc(4096, MAXSIZE);
	c.in = aligned_alloc(4096, MAXSIZE);
	c.times = malloc(sizeof *c.times *
			 (c.maxreps > WARMUP ? c.maxreps : WARMUP));
	if (!c.out || !c.in || !c.times)
		die("malloc", 0);
	for (int i = 0; i < MAXSIZE; i++)
		c.out[i] = (char)(i * 131 + 7);

	if (!quiet) {
		printf("# %s, PVM %s, median of each cell, half round trip in us, MB/s = 10^6 B/s\n",
		       path, pvm_version());
		printf("# route  method      bytes   reps  half_rtt_us       MB/s\n");
	}
	for (int r = 0; r < 3; r++) {
		if (!use_route[r])
			continue;
		pvm_setopt(PvmRoute, r == 0   ? PvmDontRoute
				     : r == 1 ? PvmRouteDirect
					      : route0);
		c.tid = spawn_partner(path, routes[r]);
		for (int m = 0; m < M_COUNT; m++) {
			if (!use_method[m])
				continue;
			for (int s = 0; s < nsizes; s++)
				measure(&c, routes[r], m, sizes[s]);
		}
		stop_partner(c.tid);
	}
	free(c.out);
	free(c.in);
	free(c.times);
	pvm_exit();
	return 0;
}
