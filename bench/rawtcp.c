/*
 * rawtcp.c - the floor under the PVM columns of bench/run-hosts.sh: a
 * ping-pong over one plain TCP connection (TCP_NODELAY), no library, in
 * pingpong's output format (route "tcp", method "block" or "poll").
 *
 *   rawtcp -s PORT [-p]                       echo side: serves one client
 *   rawtcp -c ADDR:PORT [-p] [-t secs] [-n maxreps] [-z bytes,...] [-q]
 *
 * -p polls: the socket is nonblocking and each side spins on recv/send
 * instead of sleeping in the kernel (what the MPIs do; a blocked task
 * waits for its CPU to wake).  The measuring side times every round trip
 * separately, after untimed warm-up ones, checks each echo (outside the
 * timed span) and prints the median half round trip, as pingpong does.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "timing.h"

#define MAXSIZE (16 << 20)
#define WARMUP	5
#define MINREPS 5

static int poll_mode;

static void die(const char *what)
{
	fprintf(stderr, "rawtcp: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* Moves n bytes (recv: in, send: out), blocking or spinning. */
static void xfer(int fd, char *p, size_t n, int in)
{
	int fl = poll_mode ? MSG_DONTWAIT : 0;
	while (n > 0) {
		ssize_t k = in ? recv(fd, p, n, fl) : send(fd, p, n, fl);
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ECONNRESET;
			die(in ? "recv" : "send");
		}
		p += k;
		n -= (size_t)k;
	}
}

static void nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* Echo side: {size, reps} commands until size 0. */
static int serve(int port, char *buf)
{
	int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)port)};
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) < 0 ||
	    listen(ls, 1) < 0)
		die("listen");
	printf("listening\n");
	fflush(stdout);
	int fd = accept(ls, NULL, NULL);
	if (fd < 0)
		die("accept");
	nodelay(fd);
	for (;;) {
		int32_t cmd[2];
		xfer(fd, (char *)cmd, sizeof cmd, 1);
		if (cmd[0] <= 0 || cmd[0] > MAXSIZE)
			return 0;
		for (int i = 0; i < cmd[1]; i++) {
			xfer(fd, buf, (size_t)cmd[0], 1);
			xfer(fd, buf, (size_t)cmd[0], 0);
		}
	}
}

static void run_reps(int fd, char *out, char *in, double *t, int size, int reps)
{
	static unsigned stamp;
	int32_t cmd[2] = {size, reps};
	xfer(fd, (char *)cmd, sizeof cmd, 0);
	for (int i = 0; i < reps; i++) {
		stamp++;
		memcpy(out, &stamp, sizeof stamp);
		memset(in, 0, 8);
		double t0 = now_us();
		xfer(fd, out, (size_t)size, 0);
		xfer(fd, in, (size_t)size, 1);
		t[i] = now_us() - t0;
		if (memcmp(out, in, (size_t)size) != 0) {
			errno = EIO;
			die("echo check (data differs)");
		}
	}
}

int main(int argc, char **argv)
{
	int port = 0, maxreps = 3000, quiet = 0, opt;
	double budget_us = 0.2e6;
	char *addr = NULL, *zs = NULL;
	while ((opt = getopt(argc, argv, "s:c:pt:n:z:q")) != -1) {
		switch (opt) {
		case 's':
			port = atoi(optarg);
			break;
		case 'c':
			addr = optarg;
			break;
		case 'p':
			poll_mode = 1;
			break;
		case 't':
			budget_us = atof(optarg) * 1e6;
			break;
		case 'n':
			maxreps = atoi(optarg);
			break;
		case 'z':
			zs = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: rawtcp -s PORT [-p] | -c ADDR:PORT "
				"[-p] [-t secs] [-n maxreps] "
				"[-z bytes,...] [-q]\n");
			return 2;
		}
	}
	char *buf = malloc(MAXSIZE), *in = malloc(MAXSIZE);
	double *t = malloc(sizeof *t * (size_t)(maxreps + WARMUP));
	if (!buf || !in || !t || maxreps < MINREPS)
		return 2;
	memset(buf, 0x5a, MAXSIZE);
	if (port)
		return serve(port, buf);
	char *colon = addr ? strrchr(addr, ':') : NULL;
	if (!colon)
		return 2;
	*colon = 0;
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)atoi(colon + 1))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || inet_pton(AF_INET, addr, &a.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		die("connect");
	nodelay(fd);
	const char *method = poll_mode ? "poll" : "block";
	if (!quiet)
		printf("# route  method      bytes   reps  half_rtt_us       "
		       "MB/s\n");
	char def[] = "8,1024,65536,1048576,16777216";
	for (char *tok = strtok(zs ? zs : def, ","); tok;
	     tok = strtok(NULL, ",")) {
		int size = atoi(tok);
		if (size < 4 || size > MAXSIZE)
			return 2;
		int warm = size >= (1 << 20) ? 2 : WARMUP;
		int minreps = size >= (16 << 20) ? 3 : MINREPS;
		run_reps(fd, buf, in, t, size, warm);
		double per = median(t + 1, warm - 1);
		int reps = (int)(budget_us / (per > 1 ? per : 1));
		reps = reps < minreps	? minreps
		       : reps > maxreps ? maxreps
					: reps;
		run_reps(fd, buf, in, t, size, reps);
		double half = median(t, reps) / 2;
		printf("%-6s %-7s %9d %6d %12.2f %10.2f\n", "tcp", method, size,
		       reps, half, size / half);
		fflush(stdout);
	}
	int32_t end[2] = {0, 0};
	xfer(fd, (char *)end, sizeof end, 0);
	close(fd);
	return 0;
}
