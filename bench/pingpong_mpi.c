/*
 * pingpong_mpi.c - the MPI twin of bench/pingpong.c's psend/precv
 * measurement: half-round-trip latency and bandwidth between ranks 0 and 1
 * with MPI_Send/MPI_Recv of MPI_BYTE.
 *
 *   mpirun -np 2 pingpong_mpi [-t secs] [-n maxreps] [-z sizes] [-q]
 *
 * Same sizes (8 B, 1 KiB, 64 KiB, 1 MiB, 16 MiB; -z replaces them), same
 * method as pingpong.c: rank 0 tells rank 1 how many echoes follow, times
 * every round trip separately, checks the echoed bytes after each one
 * (outside the timed span), and prints the median half round trip and the
 * bandwidth it gives (size / half round trip, MB = 10^6 bytes), in
 * pingpong's line format with route "mpi" and method "Send".  Warm-up and
 * the number of timed round trips follow pingpong.c: 5 untimed round trips
 * (2 from 1 MiB on), then as many as fit the time budget, at least 5 (3 at
 * 16 MiB), at most -n.  Buffers are page-aligned.
 *
 * Not built by "make" (CI needs no MPI): bench/run-local.sh builds it with
 * mpicc.openmpi and mpicc.mpich when they are installed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "timing.h"

enum { TAG_CMD = 11, TAG_PING = 12, TAG_PONG = 13 };
#define MAXSIZE (16 * 1024 * 1024)
#define WARMUP	5
#define MINREPS 5

static int sizes[16] = {8, 1024, 64 * 1024, 1024 * 1024, 16 * 1024 * 1024};
static int nsizes = 5;

static void die(const char *what, int code)
{
	fprintf(stderr, "pingpong_mpi: %s failed (%d)\n", what, code);
	MPI_Abort(MPI_COMM_WORLD, 1);
	exit(1);
}

static void send_bytes(const char *buf, int size, int peer, int tag)
{
	int cc = MPI_Send(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
	if (cc != MPI_SUCCESS)
		die("MPI_Send", cc);
}

/* Receives exactly size bytes of tag from peer. */
static void recv_bytes(char *buf, int size, int peer, int tag)
{
	MPI_Status st;
	int cc = MPI_Recv(buf, size, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st),
	    len;
	if (cc != MPI_SUCCESS)
		die("MPI_Recv", cc);
	MPI_Get_count(&st, MPI_BYTE, &len);
	if (len != size)
		die("MPI_Recv length", len);
}

/* Rank 1: echoes what rank 0 asks for, until a command of 0 reps and size 0. */
static void echo_main(char *buf)
{
	int cmd[2];

	for (;;) {
		MPI_Status st;
		int cc = MPI_Recv(cmd, 2, MPI_INT, 0, TAG_CMD, MPI_COMM_WORLD,
				  &st);
		if (cc != MPI_SUCCESS)
			die("MPI_Recv command", cc);
		int size = cmd[0], reps = cmd[1];
		if (size == 0)
			return;
		if (size < 0 || size > MAXSIZE || reps < 0)
			die("command values", size);
		for (int i = 0; i < reps; i++) {
			recv_bytes(buf, size, 0, TAG_PING);
			send_bytes(buf, size, 0, TAG_PONG);
		}
	}
}

struct ctx {
	char *out, *in;
	double *times;
	int maxreps;
	double budget_us;
	unsigned stamp;
};

/* Asks rank 1 for reps echoes and does them, timing each into times[]. */
static void run_reps(struct ctx *c, int size, int reps)
{
	int cmd[2] = {size, reps};
	int cc = MPI_Send(cmd, 2, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD);
	if (cc != MPI_SUCCESS)
		die("MPI_Send command", cc);
	for (int i = 0; i < reps; i++) {
		c->stamp++;
		memcpy(c->out, &c->stamp, sizeof c->stamp);
		memset(c->in, 0, 8);
		double t0 = now_us();
		send_bytes(c->out, size, 1, TAG_PING);
		recv_bytes(c->in, size, 1, TAG_PONG);
		double t1 = now_us();
		if (memcmp(c->out, c->in, size) != 0)
			die("echo check (data differs)", i);
		c->times[i] = t1 - t0;
	}
}

static void measure(struct ctx *c, int size)
{
	int warmup = size >= 1024 * 1024 ? 2 : WARMUP;
	int minreps = size >= 16 * 1024 * 1024 ? 3 : MINREPS;
	run_reps(c, size, warmup);
	double per_rt = median(c->times + 1, warmup - 1);

	int reps = (int)(c->budget_us / (per_rt > 1 ? per_rt : 1));
	if (reps < minreps)
		reps = minreps;
	if (reps > c->maxreps)
		reps = c->maxreps;
	run_reps(c, size, reps);
	double half = median(c->times, reps) / 2;
	printf("%-6s %-7s %9d %6d %12.2f %10.2f\n", "mpi", "Send", size, reps,
	       half, size / half);
	fflush(stdout);
}

static int select_sizes(char *arg)
{
	nsizes = 0;
	for (char *tok = strtok(arg, ","); tok; tok = strtok(NULL, ",")) {
		char *end;
		long v = strtol(tok, &end, 10);
		if (*end || v < 4 || v > MAXSIZE || v % 4 ||
		    nsizes == (int)(sizeof sizes / sizeof sizes[0]))
			return -1;
		sizes[nsizes++] = (int)v;
	}
	return nsizes ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct ctx c = {.maxreps = 3000, .budget_us = 0.5e6};
	int rank, nprocs, opt, quiet = 0, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	while ((opt = getopt(argc, argv, "t:n:z:q")) != -1) {
		switch (opt) {
		case 't':
			c.budget_us = atof(optarg) * 1e6;
			break;
		case 'n':
			c.maxreps = atoi(optarg);
			break;
		case 'z':
			bad |= select_sizes(optarg) < 0;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			bad = 1;
		}
	}
	if (bad || optind != argc || c.maxreps < MINREPS || c.budget_us <= 0 ||
	    nprocs != 2) {
		if (rank == 0)
			fprintf(stderr,
				"usage: mpirun -np 2 pingpong_mpi [-t secs-per-cell]"
				" [-n maxreps] [-z bytes,...] [-q]\n"
				"       (sizes: multiples of 4 up to %d)\n",
				MAXSIZE);
		MPI_Finalize();
		return 2;
	}

	c.out = aligned_alloc(4096, MAXSIZE);
	c.in = aligned_alloc(4096, MAXSIZE);
	c.times = malloc(sizeof *c.times *
			 (c.maxreps > WARMUP ? c.maxreps : WARMUP));
	if (!c.out || !c.in || !c.times)
		die("malloc", 0);
	for (int i = 0; i < MAXSIZE; i++)
		c.out[i] = (char)(i * 131 + 7);
	memset(c.in, 0, MAXSIZE);

	if (rank == 1) {
		echo_main(c.in);
	} else {
		if (!quiet) {
			char version[MPI_MAX_LIBRARY_VERSION_STRING];
			int len;
			MPI_Get_library_version(version, &len);
			version[strcspn(version, "\n")] = '\0';
			printf("# %s, median of each cell, half round trip in us, MB/s = 10^6 B/s\n",
			       version);
			printf("# route  method      bytes   reps  half_rtt_us       MB/s\n");
		}
		for (int s = 0; s < nsizes; s++)
			measure(&c, sizes[s]);
		int end[2] = {0, 0};
		MPI_Send(end, 2, MPI_INT, 1, TAG_CMD, MPI_COMM_WORLD);
	}
	free(c.out);
	free(c.in);
	free(c.times);
	MPI_Finalize();
	return 0;
}
