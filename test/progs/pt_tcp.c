/*
 * pt_tcp - direct routes over TCP (test/direct-tcp.bats).  Run with
 * PVM_DIRECT_TCP=1 PVM_SHM=0 so that tasks of one host use TCP.
 * Usage: pt_tcp MODE [ARGS]
 *   paths        an echo child; every encoding, sizes 0 B to 16 MiB, each
 *                byte checked; the connections are TCP; 8-byte round trip
 *                over the pvmd route and over TCP
 *   switch N     N messages to a child that enrolls late: the first go
 *                through the pvmd, the rest over TCP, all in order
 *   serve        enrolls (PvmRouteDirect), prints "serving t<tid>", echoes
 *                tag 1 to the sender until tag 2
 *   client TID R 100 round trips with a serving task, then stops it: R
 *                "tcp" expects a TCP route, "pvmd" expects none (and the
 *                messages still arrive)
 *   copies       a child sends 64 KiB, 1 MiB and 16 MiB with pvm_psend
 *                and with pvm_send (Raw); we take them with pvm_precv
 *                (from the child, and from any source: a buffer also
 *                offered to senders of this host by shared memory) and
 *                pvm_recv: one copy per received byte
 *                (lpvm_priv_rx_stats), every byte checked
 * Children: "pt_tcp child echo|echo0|late|source" (echo0: default route),
 * spawned on the host PT_TCP_WHERE names if set (test/multihost.bats).
 */
#include <dirent.h>
#include <stdint.h>

#include "libpvm/lpvm_priv.h"
#include "tcommon.h"

#define ME	 "pt_tcp"
#define T_DATA	 10
#define T_END	 11
#define T_SEQ	 12
#define T_REPORT 13

static uint8_t pat(size_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
	return (uint8_t)(x >> 29 ^ x >> 7);
}

/* Established TCP connections held by this process (/proc). */
static int tcp_conns(void)
{
	unsigned long inodes[256];
	int n = 0, count = 0;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	while (d && (e = readdir(d)) && n < 256) {
		char p[300], l[64];
		snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
		ssize_t k = readlink(p, l, sizeof l - 1);
		if (k > 0) {
			l[k] = 0;
			if (sscanf(l, "socket:[%lu]", &inodes[n]) == 1)
				n++;
		}
	}
	if (d)
		closedir(d);
	const char *files[2] = {"/proc/self/net/tcp", "/proc/self/net/tcp6"};
	for (int f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "r");
		char line[512];
		while (fp && fgets(line, sizeof line, fp)) {
			unsigned st;
			unsigned long ino;
			if (sscanf(line,
				   " %*d: %*s %*s %x %*s %*s %*s %*s %*s %lu",
				   &st, &ino) != 2 ||
			    st != 1)
				continue;
			for (int i = 0; i < n; i++)
				count += inodes[i] == ino;
		}
		if (fp)
			fclose(fp);
	}
	return count;
}

static int spawn_child(const char *role)
{
	char *av[3] = {"child", (char *)role, NULL};
	char *where = getenv("PT_TCP_WHERE");
	int tid = 0;
	int n = pvm_spawn(ME, av, where ? PvmTaskHost : 0, where, 1, &tid);
	CHECK(n == 1 && tid > 0, "spawn %s: n=%d tid=%d", role, n, tid);
	return n == 1 ? tid : -1;
}

/* Sends n pattern bytes (seed) with encoding enc, tag T_DATA. */
static int send_data(int tid, int enc, size_t n, unsigned seed, uint8_t *buf)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = pat(i, seed);
	int len = (int)n, s = (int)seed;
	pvm_initsend(enc);
	pvm_pkint(&len, 1, 1);
	pvm_pkint(&s, 1, 1);
	pvm_pkint(&enc, 1, 1); /* for the echo */
	pvm_pkbyte((char *)buf, len, 1);
	return pvm_send(tid, T_DATA);
}

/* Checks a received T_DATA message; returns the count of bad bytes or -1. */
static long check_data(uint8_t *buf, size_t cap)
{
	int len = -1, seed = 0, enc;
	if (pvm_upkint(&len, 1, 1) < 0 || pvm_upkint(&seed, 1, 1) < 0 ||
	    pvm_upkint(&enc, 1, 1) < 0 || len < 0 || (size_t)len > cap ||
	    pvm_upkbyte((char *)buf, len, 1) < 0)
		return -1;
	long bad = 0;
	for (size_t i = 0; i < (size_t)len; i++)
		bad += buf[i] != pat(i, (unsigned)seed);
	return bad;
}

#define MAXSZ (16u << 20)

static int child_main(const char *role)
{
	if (!strcmp(role, "late"))
		usleep(400000); /* the parent's first sends find no listener */
	int par = pvm_parent();
	if (pvm_mytid() < 0)
		return 2;
	if (strcmp(role, "echo0"))
		pvm_setopt(PvmRoute, PvmRouteDirect);
	if (!strncmp(role, "echo", 4)) {
		/* echo every T_DATA back as it came (same encoding) */
		uint8_t *buf = malloc(MAXSZ);
		for (;;) {
			int b = t_recv(par, -1, 60), len, tag, src,
			    enc = PvmDataDefault;
			if (b <= 0)
				break;
			pvm_bufinfo(b, &len, &tag, &src);
			if (tag != T_DATA)
				break;
			int n = -1, seed = 0;
			pvm_upkint(&n, 1, 1);
			pvm_upkint(&seed, 1, 1);
			pvm_upkint(&enc, 1,
				   1); /* echoed with the same encoding */
			if (n < 0 || (size_t)n > MAXSZ)
				break;
			pvm_upkbyte((char *)buf, n, 1);
			int len2 = n;
			pvm_initsend(enc);
			pvm_pkint(&len2, 1, 1);
			pvm_pkint(&seed, 1, 1);
			pvm_pkint(&enc, 1, 1);
			pvm_pkbyte((char *)buf, n, 1);
			pvm_send(par, T_DATA);
		}
		int c = tcp_conns();
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&c, 1, 1);
		pvm_send(par, T_REPORT);
		free(buf);
	} else if (!strcmp(role, "source")) {
		/* T_DATA {n, psend}: sends n pattern bytes (seed n) back by
		 * pvm_psend or pvm_send (Raw); until T_END */
		uint8_t *buf = malloc(MAXSZ);
		for (;;) {
			int req[2] = {-1, 0}, tag = -1;
			if (pvm_precv(par, -1, req, 2, PVM_INT, NULL, &tag,
				      NULL) < 0 ||
			    tag != T_DATA || req[0] < 0 ||
			    (size_t)req[0] > MAXSZ)
				break;
			for (int i = 0; i < req[0]; i++)
				buf[i] = pat((size_t)i, (unsigned)req[0]);
			if (req[1]) {
				pvm_psend(par, T_DATA, buf, req[0], PVM_BYTE);
			} else {
				pvm_initsend(PvmDataRaw);
				pvm_pkbyte((char *)buf, req[0], 1);
				pvm_send(par, T_DATA);
			}
		}
		free(buf);
	} else if (!strcmp(role, "late")) {
		/* T_SEQ messages 0, 1, ... until T_END: report the count and
		 * the first disorder */
		int next = 0, bad = -1;
		for (;;) {
			int b = t_recv(par, -1, 60), len, tag, src;
			if (b <= 0)
				break;
			pvm_bufinfo(b, &len, &tag, &src);
			if (tag == T_END)
				break;
			int v = -1;
			pvm_upkint(&v, 1, 1);
			if (v != next && bad < 0)
				bad = next;
			next = v + 1;
		}
		int rep[3] = {next, bad, tcp_conns()};
		pvm_initsend(PvmDataDefault);
		pvm_pkint(rep, 3, 1);
		pvm_send(par, T_REPORT);
	}
	pvm_exit();
	return 0;
}

/* 8-byte round trips to an echo child: microseconds each. */
static double rtt(int c, int n)
{
	uint8_t buf[8];
	double t0 = t_now();
	for (int i = 0; i < n; i++) {
		send_data(c, PvmDataRaw, 0, 0, buf);
		if (t_recv(c, T_DATA, 20) <= 0)
			return -1;
	}
	return (t_now() - t0) / n * 1e6;
}

static int test_paths(void)
{
	static const int encs[3] = {PvmDataDefault, PvmDataRaw, PvmDataInPlace};
	static const char *encname[3] = {"Default", "Raw", "InPlace"};
	static const size_t sizes[] = {0,    1,	    7,	      8,    4095,
				       4096, 65539, 1u << 20, MAXSZ};
	const int nsz = (int)(sizeof sizes / sizeof sizes[0]);
	uint8_t *out = malloc(MAXSZ), *in = malloc(MAXSZ);
	CHECK(pvm_mytid() > 0, "mytid");
	int before = tcp_conns();

	/* the pvmd route first, for comparison */
	int c0 = spawn_child("echo0");
	double us_pvmd = c0 > 0 ? (rtt(c0, 20), rtt(c0, 500)) : -1;
	pvm_initsend(PvmDataDefault);
	pvm_send(c0, T_END);
	CHECK(t_recv(c0, T_REPORT, 20) > 0,
	      "no report from the pvmd-route child");
	EQ(tcp_conns(), before);

	EQ(pvm_setopt(PvmRoute, PvmRouteDirect), PvmAllowDirect);
	int c = spawn_child("echo");
	if (c <= 0)
		return t_done("paths");
	int seed = 1;
	for (int e = 0; e < 3; e++)
		for (int s = 0; s < nsz; s++, seed++) {
			CHECK(send_data(c, encs[e], sizes[s], (unsigned)seed,
					out) >= 0,
			      "send %s %zu", encname[e], sizes[s]);
			int b = t_recv(c, T_DATA, 60);
			CHECK(b > 0, "%s %zu bytes: no echo", encname[e],
			      sizes[s]);
			if (b <= 0)
				continue;
			long bad = check_data(in, MAXSZ);
			CHECK(bad == 0, "%s %zu bytes: %ld bad bytes",
			      encname[e], sizes[s], bad);
		}
	double us_tcp = rtt(c, 500);
	int mine = tcp_conns() - before;
	pvm_initsend(PvmDataDefault);
	pvm_send(c, T_END);
	int b = t_recv(c, T_REPORT, 20), theirs = -1;
	if (b > 0)
		pvm_upkint(&theirs, 1, 1);
	printf("%d messages checked; TCP connections: ours %d, the child's %d\n",
	       3 * nsz, mine, theirs);
	printf("8-byte round trip: pvmd route %.1f us, TCP direct route %.1f us "
	       "per round trip\n",
	       us_pvmd, us_tcp);
	/* one TCP connection, which carries both ways: the child answers on
	 * the one we opened */
	CHECK(mine == 1, "want 1 TCP connection (both ways), have %d", mine);
	CHECK(theirs == 1, "child: want 1 TCP connection, has %d", theirs);
	free(out);
	free(in);
	pvm_exit();
	return t_done("paths");
}

static int test_switch(int n)
{
	CHECK(pvm_mytid() > 0, "mytid");
	EQ(pvm_setopt(PvmRoute, PvmRouteDirect), PvmAllowDirect);
	int c = spawn_child("late");
	if (c <= 0)
		return t_done("switch");
	int before = -1;
	double t0 = t_now();
	for (int i = 0; i < n; i++) {
		pvm_initsend(i % 2 ? PvmDataRaw : PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_send(c, T_SEQ);
		if (i == 0)
			before = tcp_conns();
		if (i % 20 == 19)
			t_msleep(10); /* spread over about n/2 ms */
	}
	int during = tcp_conns();
	pvm_initsend(PvmDataDefault);
	pvm_send(c, T_END);
	int rep[3] = {-1, -1, -1};
	if (t_recv(c, T_REPORT, 60) > 0)
		pvm_upkint(rep, 3, 1);
	printf("%d messages in %.2f s: child counted %d, first disorder at %d; "
	       "our TCP connections at the first send %d, at the end %d\n",
	       n, t_now() - t0, rep[0], rep[1], before, during);
	EQ(rep[0], n);
	EQ(rep[1], -1);
	EQ(before, 0); /* the child did not listen yet: pvmd route */
	CHECK(during >= 1, "no TCP connection to the child at the end (%d)",
	      during);
	pvm_exit();
	return t_done("switch");
}

static int test_serve(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid");
	pvm_setopt(PvmRoute, PvmRouteDirect);
	printf("serving t%x\n", (unsigned)me);
	fflush(stdout);
	for (;;) {
		int b = t_recv(-1, -1, 120), len, tag, src;
		if (b <= 0)
			break;
		pvm_bufinfo(b, &len, &tag, &src);
		if (tag == 2)
			break;
		int v = -1;
		pvm_upkint(&v, 1, 1);
		v++;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&v, 1, 1);
		pvm_send(src, 1);
	}
	pvm_exit();
	return t_done("serve");
}

static int test_client(int tid, const char *route)
{
	CHECK(pvm_mytid() > 0, "mytid");
	pvm_setopt(PvmRoute, PvmRouteDirect);
	int i;
	for (i = 0; i < 100; i++) {
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_send(tid, 1);
		int b = t_recv(tid, 1, 20), v = -1;
		CHECK(b > 0, "answer %d lost", i);
		if (b <= 0)
			break;
		pvm_upkint(&v, 1, 1);
		if (v != i + 1) {
			EQ(v, i + 1);
			break;
		}
	}
	int n = tcp_conns();
	printf("100 round trips; TCP connections: %d\n", n);
	if (!strcmp(route, "tcp"))
		CHECK(n >= 1, "no TCP connection to t%x", (unsigned)tid);
	else
		EQ(n, 0);
	pvm_initsend(PvmDataDefault);
	pvm_send(tid, 2); /* the server stops */
	pvm_exit();
	return t_done("client");
}

/* One message of n bytes from the source child c, by psend/precv (mode
 * 1; 2: precv from any source with any tag) or send/recv (0): the bytes
 * it copied on the way (0 after an error). */
static uint64_t one_copy(int c, int n, int mode, uint8_t *in)
{
	int psend = mode != 0, req[2] = {n, psend}, got = -1;
	uint64_t b0, c0, b1, c1;
	EQ(pvm_psend(c, T_DATA, req, 2, PVM_INT), 0);
	memset(in, 0, (size_t)n);
	lpvm_priv_rx_stats(&b0, &c0);
	if (psend) {
		EQ(pvm_precv(mode == 2 ? -1 : c, mode == 2 ? -1 : T_DATA, in, n,
			     PVM_BYTE, NULL, NULL, &got),
		   0);
	} else {
		CHECK(pvm_recv(c, T_DATA) > 0, "recv %d", n);
		pvm_bufinfo(pvm_getrbuf(), &got, NULL, NULL);
	}
	lpvm_priv_rx_stats(&b1, &c1);
	if (!psend)
		EQ(pvm_upkbyte((char *)in, n, 1), 0);
	EQ(got, n);
	long bad = 0;
	for (int i = 0; i < n; i++)
		bad += in[i] != pat((size_t)i, (unsigned)n);
	CHECK(bad == 0, "%d bytes: %ld bad", n, bad);
	CHECK(b1 - b0 == (uint64_t)n, "%d bytes: %llu received on sockets", n,
	      (unsigned long long)(b1 - b0));
	return c1 - c0;
}

static int test_copies(void)
{
	static const int sizes[] = {64 << 10, 1 << 20, 16 << 20};
	uint8_t *in = malloc(MAXSZ);
	CHECK(pvm_mytid() > 0, "mytid");
	EQ(pvm_setopt(PvmRoute, PvmRouteDirect), PvmAllowDirect);
	int c = spawn_child("source");
	static const char *const how[3] = {"send/recv", "psend/precv",
					   "psend/precv from any source"};
	for (int mode = 2; mode >= 0 && c > 0; mode--)
		for (int s = 0; s < 3; s++) {
			int n = sizes[s];
			/* the first after smaller ones may have its first
			 * 32 KiB copied twice (docs/stats.md) */
			uint64_t first = one_copy(c, n, mode, in), k = 0;
			for (int i = 0; i < 3; i++)
				k += one_copy(c, n, mode, in);
			printf("%s %d bytes: %.3f copies per byte (first "
			       "%.3f)\n",
			       how[mode], n, (double)k / (3.0 * n),
			       (double)first / n);
			CHECK(k == 3 * (uint64_t)n,
			      "%s %d bytes: %llu bytes copied, not %llu",
			      how[mode], n, (unsigned long long)k,
			      (unsigned long long)(3 * (uint64_t)n));
		}
	pvm_initsend(PvmDataDefault);
	pvm_send(c, T_END);
	free(in);
	pvm_exit();
	return t_done("copies");
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "child"))
		return child_main(argv[2]);
	if (argc < 2)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "paths"))
		return test_paths();
	if (!strcmp(argv[1], "copies"))
		return test_copies();
	if (!strcmp(argv[1], "switch"))
		return test_switch(argc > 2 ? atoi(argv[2]) : 2000);
	if (!strcmp(argv[1], "serve"))
		return test_serve();
	if (!strcmp(argv[1], "client") && argc > 3)
		return test_client((int)strtol(argv[2], NULL, 16), argv[3]);
	return 2;
}
