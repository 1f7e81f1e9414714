/*
 * pt_flood.c - many large messages for a task that does not read yet
 * (test/reliability.bats, test/multihost.bats: flow control).
 *
 *   pt_flood [-n COUNT] [-z BYTES] [-k SENDERS] [-s SECONDS] [-g GOFILE]
 *            [-w WHERE] [-o FILE] [-b FILE] [-x | -q]
 *
 * Spawns a receiver on WHERE (a host name; default: any) and SENDERS - 1
 * more senders on this host, then every sender sends COUNT messages of
 * BYTES bytes (default 200 of 1 MiB) to the receiver: pvm_psend and
 * pvm_send (Raw) in turn, each message numbered and filled with a pattern
 * of its sender and number.  The receiver makes no PVM call for SECONDS
 * (default 30), or until GOFILE exists, then receives everything and
 * checks order (per sender) and every byte.  The other senders leave
 * once the first task has the receiver's report (a task that leaves
 * hands the pvmd whatever still waits in it).
 *
 * The first task prints "sent B bytes in T s, peak K kB" once every
 * sender has sent (the sends returned: what the receiver has not taken
 * waits somewhere; K is the first task's peak resident size), then
 * "delivered N of M, E bad" when the receiver reports, and exits 0 when
 * all arrived intact.  With -x it calls pvm_exit right after sending and
 * prints "exit R after T s" instead; the receiver's report then goes only
 * to FILE (-o), which it writes in any case.
 *
 * With -b the first task enrolls, then waits until FILE exists before it
 * spawns (a host may be added meanwhile).
 *
 * With -q the receiver leaves without reading anything once its sleep
 * ends; the first task waits for its exit, sends 16 times as much again
 * to the tid it had, and prints the "sent" line after that (then exits):
 * the pvmd drops those messages, and gives their room back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#define TAG_DATA   1
#define TAG_SENT   2
#define TAG_RESULT 3
#define TAG_GONE   4
#define TAG_HELLO  5
#define TAG_GO	   6

static long peak_kb(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned char pattern(uint32_t who, uint32_t n, size_t j)
{
	return (unsigned char)(n * 7u + who * 131u + (uint32_t)j);
}

static void fill(unsigned char *b, size_t len, uint32_t who, uint32_t n)
{
	for (size_t j = 8; j < len; j++)
		b[j] = pattern(who, n, j);
	memcpy(b, &who, 4);
	memcpy(b + 4, &n, 4);
}

static int send_all(int to, uint32_t who, int count, size_t len)
{
	unsigned char *b = malloc(len);
	if (!b)
		return -1;
	for (int n = 0; n < count; n++) {
		fill(b, len, who, (uint32_t)n);
		int r;
		if (n % 2) {
			pvm_initsend(PvmDataRaw);
			pvm_pkbyte((char *)b, (int)len, 1);
			r = pvm_send(to, TAG_DATA);
		} else {
			r = pvm_psend(to, TAG_DATA, b, (int)len, PVM_BYTE);
		}
		if (r < 0) {
			free(b);
			return r;
		}
	}
	free(b);
	return 0;
}

static void wait_go(double secs, const char *go)
{
	double end = now() + secs;
	struct stat st;
	while (now() < end && !(go && *go && stat(go, &st) == 0))
		usleep(20000);
}

static int receiver(int count, size_t len, int senders, double secs,
		    const char *go, const char *out)
{
	int parent = pvm_parent();
	/* one exchange each way before the sleep, so that a direct route is
	 * up (its handshake needs both to make PVM calls) */
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_HELLO);
	pvm_recv(parent, TAG_HELLO);
	pvm_initsend(PvmDataDefault);
	pvm_send(parent, TAG_HELLO);
	wait_go(secs, go);
	if (count < 0) { /* -q: leave without reading */
		pvm_exit();
		return 0;
	}
	unsigned char *b = malloc(len);
	uint32_t *next = calloc((size_t)senders, sizeof *next);
	int got = 0, bad = 0;
	if (!b || !next)
		return 1;
	for (int i = 0; i < count * senders; i++) {
		int bufid = pvm_recv(-1, TAG_DATA);
		int blen = 0;
		if (bufid < 0 || pvm_bufinfo(bufid, &blen, NULL, NULL) < 0) {
			bad++;
			break;
		}
		uint32_t who = 0, n = 0;
		int ok = (size_t)blen == len &&
			 pvm_upkbyte((char *)b, (int)len, 1) >= 0;
		if (ok) {
			memcpy(&who, b, 4);
			memcpy(&n, b + 4, 4);
			ok = who < (uint32_t)senders && n == next[who];
		}
		for (size_t j = 8; ok && j < len; j++)
			ok = b[j] == pattern(who, n, j);
		if (ok) {
			next[who]++;
			got++;
		} else {
			bad++;
		}
	}
	free(b);
	free(next);
	char line[128];
	snprintf(line, sizeof line, "delivered %d of %d, %d bad", got,
		 count * senders, bad);
	if (out && *out) {
		FILE *f = fopen(out, "w");
		if (f) {
			fprintf(f, "%s\n", line);
			fclose(f);
		}
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(line);
	pvm_send(parent, TAG_RESULT);
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	int count = 200, senders = 1, do_exit = 0, quit = 0, opt;
	size_t len = 1u << 20;
	double secs = 30;
	const char *go = "", *where = NULL, *out = "", *before = NULL;

	if (argc > 1 && !strcmp(argv[1], "-recv") && argc == 8)
		return receiver(atoi(argv[2]), (size_t)atol(argv[3]),
				atoi(argv[4]), atof(argv[5]), argv[6], argv[7]);
	if (argc > 1 && !strcmp(argv[1], "-send") && argc == 6) {
		int to = (int)strtol(argv[2], NULL, 0);
		int r = send_all(to, (uint32_t)atoi(argv[3]), atoi(argv[4]),
				 (size_t)atol(argv[5]));
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&r, 1, 1);
		pvm_send(pvm_parent(), TAG_SENT);
		/* (leaving would hand the pvmd what still waits here) */
		pvm_recv(pvm_parent(), TAG_GO);
		pvm_exit();
		return 0;
	}
	while ((opt = getopt(argc, argv, "n:z:k:s:g:w:o:b:xq")) != -1) {
		switch (opt) {
		case 'n':
			count = atoi(optarg);
			break;
		case 'z':
			len = (size_t)atol(optarg);
			break;
		case 'k':
			senders = atoi(optarg);
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'g':
			go = optarg;
			break;
		case 'w':
			where = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'x':
			do_exit = 1;
			break;
		case 'b':
			before = optarg;
			break;
		case 'q':
			quit = 1;
			break;
		default:
			fprintf(stderr, "usage: see pt_flood.c\n");
			return 2;
		}
	}
	if (count < 1 || senders < 1 || senders > 64 || len < 8 ||
	    len > (1u << 30)) {
		fprintf(stderr, "pt_flood: bad sizes\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	if (before)
		wait_go(600, before);
	char a_count[16], a_len[24], a_k[16], a_secs[32];
	snprintf(a_count, sizeof a_count, "%d", quit ? -1 : count);
	snprintf(a_len, sizeof a_len, "%zu", len);
	snprintf(a_k, sizeof a_k, "%d", senders);
	snprintf(a_secs, sizeof a_secs, "%g", secs);
	char *rargs[] = {"-recv", a_count,    a_len,	   a_k,
			 a_secs,  (char *)go, (char *)out, NULL};
	int rtid;
	if (pvm_spawn(argv[0], rargs, where ? PvmTaskHost : PvmTaskDefault,
		      (char *)(where ? where : ""), 1, &rtid) != 1) {
		printf("spawn of the receiver failed: %d\n", rtid);
		return 1;
	}
	if (pvm_recv(rtid, TAG_HELLO) < 0)
		return 1;
	pvm_initsend(PvmDataDefault);
	pvm_send(rtid, TAG_HELLO);
	if (pvm_recv(rtid, TAG_HELLO) < 0)
		return 1;
	double t0 = now();
	int stids[64];
	for (int k = 1; k < senders; k++) {
		char a_to[16], a_who[16];
		snprintf(a_to, sizeof a_to, "%d", rtid);
		snprintf(a_who, sizeof a_who, "%d", k);
		char *sargs[] = {"-send", a_to, a_who, a_count, a_len, NULL};
		if (pvm_spawn(argv[0], sargs, PvmTaskHost, ".", 1, &stids[k]) !=
		    1) {
			printf("spawn of sender %d failed: %d\n", k, stids[k]);
			return 1;
		}
	}
	int r = send_all(rtid, 0, count, len);
	if (r < 0) {
		printf("send: %d\n", r);
		return 1;
	}
	for (int k = 1; k < senders; k++) {
		int rr = -1;
		pvm_recv(-1, TAG_SENT);
		pvm_upkint(&rr, 1, 1);
		if (rr < 0) {
			printf("a sender's send: %d\n", rr);
			return 1;
		}
	}
	unsigned long long sent =
		(unsigned long long)count * (unsigned long long)senders * len;
	if (quit) {
		pvm_notify(PvmTaskExit, TAG_GONE, 1, &rtid);
		pvm_recv(-1, TAG_GONE);
		if ((r = send_all(rtid, 0, 16 * count, len)) < 0) {
			printf("send after the exit: %d\n", r);
			return 1;
		}
		sent += 16ull * (unsigned long long)count * len;
	}
	printf("sent %llu bytes in %.2f s, peak %ld kB\n", sent, now() - t0,
	       peak_kb());
	fflush(stdout);
	if (do_exit || quit) {
		pvm_initsend(PvmDataDefault);
		if (senders > 1)
			pvm_mcast(stids + 1, senders - 1, TAG_GO);
		double t1 = now();
		r = pvm_exit();
		printf("exit %d after %.2f s\n", r, now() - t1);
		return r < 0;
	}
	char line[128] = "";
	if (pvm_recv(rtid, TAG_RESULT) < 0 || pvm_upkstr(line) < 0)
		return 1;
	printf("%s\n", line);
	pvm_initsend(PvmDataDefault);
	if (senders > 1)
		pvm_mcast(stids + 1, senders - 1, TAG_GO);
	pvm_exit();
	char want[64];
	snprintf(want, sizeof want, "delivered %d of %d, 0 bad",
		 count * senders, count * senders);
	return strcmp(line, want) != 0;
}
