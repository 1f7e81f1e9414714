/*
 * pt_msg - messaging tests between real tasks.  Usage: pt_msg <test>
 *   match    wildcards, earliest match first, nrecv, probe, recvf, bufinfo
 *   trecv    pvm_trecv timeouts (with generous slack) and early arrival
 *   psend    psend/precv of every datatype, psend->recv, send->precv
 *   mcast    pvm_mcast to several tasks
 *   big MiB  one message of MiB mebibytes (default 1024), checked
 *   errors   argument errors; a send to a task that has exited succeeds
 *   recvbad  pvm_recv(tid, -2) returns PvmBadParam (the reference hangs)
 * Spawns copies of itself ("pt_msg child <role>") as partners.
 */
#include <stdint.h>

#include "tcommon.h"

#define ME	 "pt_msg"
#define TAG_GO	 90
#define TAG_DONE 91

/* ---- children ---- */

static const int dtsize[12] = {1,
			       1,
			       sizeof(short),
			       sizeof(int),
			       sizeof(float),
			       2 * sizeof(float),
			       sizeof(double),
			       2 * sizeof(double),
			       sizeof(long),
			       sizeof(unsigned short),
			       sizeof(unsigned),
			       sizeof(unsigned long)};

static int child_main(char **av)
{
	const char *role = av[2];
	/* The direct pingpong child enrolls late on purpose: its parent's
	 * first pings find no socket of ours to connect to yet, and the
	 * parent must still open its direct connection once we listen. */
	if (!strcmp(role, "pingpong") && av[3] && !strcmp(av[3], "direct"))
		usleep(300000);
	int par = pvm_parent();
	if (pvm_mytid() < 0)
		return 2;
	if (!strcmp(role, "sendseq")) {
		static const int tags[5] = {5, 3, 7, 3, 9};
		int i;
		for (i = 0; i < 5; i++)
			t_send_int(par, tags[i], i);
	} else if (!strcmp(role, "late")) {
		int b = t_recv(par, TAG_GO, 30);
		if (b > 0) {
			t_msleep(t_upk1());
			t_send_int(par, 20, 4242);
		}
	} else if (!strcmp(role, "pecho")) {
		/* precv each datatype and psend it back unchanged, with the
		 * values we saw for atid, atag and alen */
		static char buf[1 << 16];
		int dt;
		for (dt = 1; dt < 12; dt++) {
			int atid = -1, atag = -1, alen = -1;
			memset(buf, 0, sizeof buf);
			int r = pvm_precv(par, 200 + dt, buf, 1000, dt, &atid,
					  &atag, &alen);
			int info[4] = {r, atid, atag, alen};
			pvm_psend(par, 300 + dt, info, 4, PVM_INT);
			pvm_psend(par, 200 + dt, buf, 1000, dt);
		}
		/* send -> precv: a packed Raw message read by precv */
		int ints[5] = {0}, atid, atag, alen = -1;
		int r = pvm_precv(par, 400, ints, 5, PVM_INT, &atid, &atag,
				  &alen);
		int info[4] = {r, atid, atag, alen};
		pvm_psend(par, 401, info, 4, PVM_INT);
		pvm_psend(par, 402, ints, 5, PVM_INT);
		/* Default (XDR) data arrives as its bytes */
		unsigned char x[8] = {0};
		pvm_precv(par, 403, x, 8, PVM_BYTE, &atid, &atag, &alen);
		pvm_psend(par, 404, x, 8, PVM_BYTE);
		/* psend -> recv + unpack */
		double d[3] = {1.5, -2.5, 1e300};
		pvm_psend(par, 405, d, 3, PVM_DOUBLE);
	} else if (!strcmp(role, "mcast")) {
		int b = t_recv(par, 30, 30);
		if (b > 0) {
			int v[100], i, sum = 0, me = pvm_mytid(), len, tag, src;
			pvm_bufinfo(b, &len, &tag, &src);
			pvm_upkint(v, 100, 1);
			for (i = 0; i < 100; i++)
				sum += v[i] * (i + 1);
			pvm_initsend(PvmDataDefault);
			pvm_pkint(&me, 1, 1);
			pvm_pkint(&sum, 1, 1);
			pvm_pkint(&src, 1, 1);
			pvm_send(par, 31);
		}
	} else if (!strcmp(role, "big")) {
		int b = t_recv(par, 40, 300);
		int len = -1, res[3] = {0, 0, 0};
		if (b > 0) {
			pvm_bufinfo(b, &len, NULL, NULL);
			size_t n = (size_t)len;
			unsigned char *p = malloc(n ? n : 1);
			res[0] = len;
			res[1] = p ? pvm_upkbyte((char *)p, (int)n, 1) : -99;
			size_t i, bad = 0;
			for (i = 0; p && i < n; i += 4093)
				bad += p[i] !=
				       (unsigned char)(i * 131 + (i >> 20));
			for (i = n > 65536 ? n - 65536 : 0; p && i < n; i++)
				bad += p[i] !=
				       (unsigned char)(i * 131 + (i >> 20));
			res[2] = (int)bad;
			free(p);
		}
		pvm_initsend(PvmDataDefault);
		pvm_pkint(res, 3, 1);
		pvm_send(par, 41);
	} else if (!strcmp(role, "pingpong")) {
		/* echo tag 50 messages back until tag 51 */
		if (av[3] && !strcmp(av[3], "direct"))
			pvm_setopt(PvmRoute, PvmRouteDirect);
		for (;;) {
			int b = t_recv(par, -1, 30), len, tag, src;
			if (b <= 0)
				break;
			pvm_bufinfo(b, &len, &tag, &src);
			if (tag != 50)
				break;
			int v = t_upk1();
			t_send_int(par, 50, v + 1);
		}
		pvm_exit();
		return 0;
	} else if (!strcmp(role, "bigsend") || !strcmp(role, "bigsendd")) {
		/* start sending a big message; the parent kills us meanwhile */
		if (!strcmp(role, "bigsendd"))
			pvm_setopt(PvmRoute, PvmRouteDirect);
		size_t n = (size_t)atoi(av[3]) << 20, i;
		unsigned char *p = malloc(n);
		if (!p)
			return 3;
		for (i = 0; i < n; i++)
			p[i] = (unsigned char)(i * 131 + (i >> 20));
		/* pack first, announce, then send at once */
		int big = pvm_mkbuf(PvmDataRaw),
		    small = pvm_mkbuf(PvmDataDefault), z = 0;
		pvm_setsbuf(big);
		pvm_pkbyte((char *)p, (int)n, 1);
		pvm_setsbuf(small);
		pvm_pkint(&z, 1, 1);
		pvm_send(par, 60);
		pvm_setsbuf(big);
		pvm_send(par, 61);
		t_send_int(par, 62, 0);
		pvm_recv(-1, 12345);
		return 0;
	} else if (!strcmp(role, "exit")) {
		pvm_exit();
		return 0;
	}
	t_recv(par, TAG_DONE, 30);
	pvm_exit();
	return 0;
}

/* ---- tests ---- */

static int recvf_odd(int bufid, int tid, int tag)
{
	int len, mtag, src;
	(void)tid, (void)tag;
	if (pvm_bufinfo(bufid, &len, &mtag, &src) < 0)
		return -1;
	return (mtag & 1) ? 1 : 0;
}

static int test_match(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	EQ(pvm_nrecv(-1, -1), 0);
	EQ(pvm_probe(-1, -1), 0);
	int c = t_spawn_self(ME, "sendseq", NULL);
	if (c <= 0)
		return t_done("match");
	/* tag 9 comes last: once it is here, all are (order per pair) */
	int b = t_recv(c, 9, 20);
	CHECK(b > 0, "tag 9 not received");
	EQ(t_upk1(), 4);
	int len = -1, tag = -1, src = -1;
	EQ(pvm_bufinfo(b, &len, &tag, &src), 0);
	EQ(len, 4);
	EQ(tag, 9);
	EQ(src, c);
	/* probe sees without taking */
	int pb = pvm_probe(-1, 3);
	CHECK(pb > 0, "probe(-1,3) %d", pb);
	pvm_bufinfo(pb, &len, &tag, &src);
	EQ(tag, 3);
	EQ(src, c);
	EQ(pvm_probe(c, 42), 0);
	EQ(pvm_probe(me, -1), 0);
	/* earliest matching first */
	b = pvm_recv(-1, 3);
	EQ(t_upk1(), 1);
	b = pvm_nrecv(-1, -1);
	CHECK(b > 0, "nrecv %d", b);
	EQ(t_upk1(), 0);
	pvm_bufinfo(b, &len, &tag, &src);
	EQ(tag, 5);
	b = pvm_recv(c, 3);
	EQ(t_upk1(), 3);
	b = pvm_nrecv(c, -1);
	EQ(t_upk1(), 2);
	EQ(pvm_nrecv(-1, -1), 0);
	EQ(pvm_nrecv(c, 3), 0);

	/* recvf: a matching function that takes only odd tags */
	int t;
	for (t = 2; t <= 6; t++)
		t_send_int(me, t, t * 10);
	CHECK(t_recv(me, 6, 10) > 0, "self tag 6");
	EQ(t_upk1(), 60);
	int (*old)(int, int, int) =
		(int (*)(int, int, int))pvm_recvf(recvf_odd);
	b = pvm_recv(-1, -1);
	pvm_bufinfo(b, &len, &tag, &src);
	EQ(tag, 3);
	EQ(t_upk1(), 30);
	b = pvm_nrecv(-1, -1);
	pvm_bufinfo(b, &len, &tag, &src);
	EQ(tag, 5);
	EQ(pvm_nrecv(-1, -1), 0); /* only even tags left */
	pvm_recvf(old);
	b = pvm_nrecv(-1, -1);
	pvm_bufinfo(b, &len, &tag, &src);
	EQ(tag, 2);
	b = pvm_nrecv(-1, 4);
	EQ(t_upk1(), 40);
	EQ(pvm_nrecv(-1, -1), 0);

	/* a received message is a buffer like any other */
	t_send_int(me, 77, 1);
	b = t_recv(-1, 77, 10);
	EQ(pvm_getrbuf(), b);
	EQ(pvm_freebuf(b), 0);
	t_send_int(c, TAG_DONE, 0);
	pvm_exit();
	return t_done("match");
}

static int test_trecv(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	struct timeval tv = {0, 500000};
	double t0 = t_now();
	EQ(pvm_trecv(-1, 20, &tv), 0);
	double dt = t_now() - t0;
	CHECK(dt >= 0.45 && dt < 3.0, "trecv 0.5 s took %.3f s", dt);
	tv.tv_sec = 1, tv.tv_usec = 200000;
	t0 = t_now();
	EQ(pvm_trecv(-1, 20, &tv), 0);
	dt = t_now() - t0;
	CHECK(dt >= 1.15 && dt < 4.0, "trecv 1.2 s took %.3f s", dt);
	tv.tv_sec = 0, tv.tv_usec = 0; /* a poll */
	t0 = t_now();
	EQ(pvm_trecv(-1, 20, &tv), 0);
	CHECK(t_now() - t0 < 1.0, "trecv 0 took %.3f s", t_now() - t0);

	/* a message arriving during the wait ends it early */
	int c = t_spawn_self(ME, "late", NULL);
	if (c > 0) {
		t_send_int(c, TAG_GO, 300);
		tv.tv_sec = 20, tv.tv_usec = 0;
		t0 = t_now();
		int b = pvm_trecv(c, 20, &tv);
		dt = t_now() - t0;
		CHECK(b > 0, "trecv: message lost (%d)", b);
		EQ(t_upk1(), 4242);
		CHECK(dt >= 0.25 && dt < 10.0, "trecv returned after %.3f s",
		      dt);
		t_send_int(c, TAG_DONE, 0);
	}
	/* NULL timeout blocks like pvm_recv */
	t_send_int(me, 21, 5);
	int b = pvm_trecv(-1, 21, NULL);
	CHECK(b > 0, "trecv NULL %d", b);
	EQ(t_upk1(), 5);
	pvm_exit();
	return t_done("trecv");
}

static void fill(unsigned char *p, size_t n, int seed)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed * 13 + (i >> 8));
}

static int test_psend(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	int c = t_spawn_self(ME, "pecho", NULL);
	if (c <= 0)
		return t_done("psend");
	static unsigned char out[1 << 16], in[1 << 16];
	int dt, n = 1000;
	/* PVM_STR: the reference returns PvmNotImpl; if it works, it must work
	 */
	char str[] = "a psend string", sgot[64] = "";
	int rs = pvm_psend(me, 199, str, (int)sizeof str, PVM_STR);
	CHECK(rs == 0 || rs == PvmNotImpl, "psend PVM_STR: %d", rs);
	if (rs == 0) {
		int atid = -1, atag = -1, alen = -1;
		EQ(pvm_precv(me, 199, sgot, sizeof sgot, PVM_STR, &atid, &atag,
			     &alen),
		   0);
		CHECK(!strcmp(sgot, str), "PVM_STR got '%s'", sgot);
		EQ(alen, (int)sizeof str);
	}
	for (dt = 1; dt < 12; dt++) {
		fill(out, sizeof out, dt);
		EQ(pvm_psend(c, 200 + dt, out, n, dt), 0);
	}
	for (dt = 1; dt < 12; dt++) {
		int info[4] = {0}, atid = -1, atag = -1, alen = -1;
		CHECK(t_recv(c, 300 + dt, 20) > 0,
		      "no precv report for type %d", dt);
		pvm_upkint(info, 4, 1);
		EQ(info[0], 0);
		EQ(info[1], me);
		EQ(info[2], 200 + dt);
		CHECK(info[3] == n * dtsize[dt],
		      "type %d: child's alen %d, expected %d bytes", dt,
		      info[3], n * dtsize[dt]);
		memset(in, 0, sizeof in);
		int r = pvm_precv(c, 200 + dt, in, n, dt, &atid, &atag, &alen);
		EQ(r, 0);
		EQ(atid, c);
		EQ(atag, 200 + dt);
		EQ(alen, n * dtsize[dt]);
		fill(out, sizeof out, dt);
		CHECK(!memcmp(in, out, (size_t)n * dtsize[dt]),
		      "type %d: data differs", dt);
		CHECK(in[n * dtsize[dt]] == 0, "type %d: wrote past the data",
		      dt);
	}
	/* send (Raw) -> precv */
	int ints[5] = {11, -22, 33, -44, 55}, got[5] = {0}, info[4];
	pvm_initsend(PvmDataRaw);
	pvm_pkint(ints, 5, 1);
	EQ(pvm_send(c, 400), 0);
	t_recv(c, 401, 20);
	pvm_upkint(info, 4, 1);
	EQ(info[0], 0);
	EQ(info[1], me);
	EQ(info[2], 400);
	EQ(info[3], 20);
	t_recv(c, 402, 20);
	pvm_upkint(got, 5, 1);
	EQ(memcmp(got, ints, sizeof got), 0);
	/* send (Default) -> precv hands over the XDR bytes */
	int v = 0x01020304;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(c, 403);
	unsigned char x[8] = {0};
	t_recv(c, 404, 20);
	pvm_upkbyte((char *)x, 8, 1);
	CHECK(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[3] == 4,
	      "XDR bytes %02x %02x %02x %02x", x[0], x[1], x[2], x[3]);
	/* psend -> recv */
	double d[3] = {0};
	int b = t_recv(c, 405, 20), len = -1;
	pvm_bufinfo(b, &len, NULL, NULL);
	EQ(len, 24);
	EQ(pvm_upkdouble(d, 3, 1), 0);
	CHECK(d[0] == 1.5 && d[1] == -2.5 && d[2] == 1e300,
	      "psend->recv %g %g %g", d[0], d[1], d[2]);
	/* precv into a buffer smaller than the message */
	int small[2] = {0};
	pvm_psend(me, 406, ints, 5, PVM_INT);
	int atid, atag, alen = -1;
	int r = pvm_precv(me, 406, small, 2, PVM_INT, &atid, &atag, &alen);
	CHECK(r == 0 || r == PvmNoMem, "precv short buffer: %d", r);
	EQ(small[0], 11);
	EQ(small[1], -22);
	t_send_int(c, TAG_DONE, 0);
	pvm_exit();
	return t_done("psend");
}

static int test_mcast(void)
{
	int me = pvm_mytid(), i;
	CHECK(me > 0, "mytid %d", me);
	int tids[4];
	char *av[] = {"child", "mcast", NULL};
	EQ(pvm_spawn(ME, av, 0, NULL, 4, tids), 4);
	int v[100], sum = 0;
	for (i = 0; i < 100; i++) {
		v[i] = i * i - 50;
		sum += v[i] * (i + 1);
	}
	pvm_initsend(PvmDataDefault);
	pvm_pkint(v, 100, 1);
	EQ(pvm_mcast(tids, 4, 30), 0);
	int seen[4] = {0};
	for (i = 0; i < 4; i++) {
		int b = t_recv(-1, 31, 20);
		CHECK(b > 0, "mcast reply %d missing", i);
		if (b <= 0)
			break;
		int who = 0, s = 0, src = 0, k;
		pvm_upkint(&who, 1, 1);
		pvm_upkint(&s, 1, 1);
		pvm_upkint(&src, 1, 1);
		EQ(s, sum);
		EQ(src, me);
		for (k = 0; k < 4; k++)
			if (tids[k] == who)
				seen[k]++;
	}
	for (i = 0; i < 4; i++)
		EQ(seen[i], 1);
	EQ(pvm_nrecv(-1, 31), 0);
	EQ(pvm_mcast(tids, -1, 30), PvmBadParam);
	for (i = 0; i < 4; i++)
		t_send_int(tids[i], TAG_DONE, 0);
	pvm_exit();
	return t_done("mcast");
}

static int test_big(int mib)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	size_t n = (size_t)mib << 20, i;
	if (n > 0x7fffffffu)
		n = 0x7fffffffu;
	unsigned char *p = malloc(n);
	CHECK(p != NULL, "malloc %zu", n);
	if (!p)
		return t_done("big");
	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + (i >> 20));
	int c = t_spawn_self(ME, "big", NULL);
	if (c <= 0)
		return t_done("big");
	double t0 = t_now();
	pvm_initsend(PvmDataRaw);
	EQ(pvm_pkbyte((char *)p, (int)n, 1), 0);
	EQ(pvm_send(c, 40), 0);
	free(p);
	pvm_initsend(PvmDataDefault); /* drop the big send buffer */
	int b = t_recv(c, 41, 300);
	CHECK(b > 0, "no answer for the big message");
	int res[3] = {0};
	pvm_upkint(res, 3, 1);
	EQ(res[0], (long long)n);
	EQ(res[1], 0);
	EQ(res[2], 0);
	printf("%zu bytes in %.1f s\n", n, t_now() - t0);
	t_send_int(c, TAG_DONE, 0);
	pvm_exit();
	return t_done("big");
}

/* Sockets this process has open. */
static int count_sockets(void)
{
	char path[64], link[64];
	int fd, n = 0;
	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		ssize_t l = readlink(path, link, sizeof link - 1);
		if (l > 0) {
			link[l] = 0;
			n += !strncmp(link, "socket:", 7);
		}
	}
	return n;
}

/* 200 ping-pongs with a child on the default route, then with one that
 * uses PvmRouteDirect (both sides): only the latter opens connections of
 * their own between the two tasks, one in each direction. */
static int test_direct(void)
{
	int me = pvm_mytid(), pass, i;
	CHECK(me > 0, "mytid %d", me);
	for (pass = 0; pass < 2; pass++) {
		const char *route = pass ? "direct" : "pvmd";
		if (pass)
			EQ(pvm_setopt(PvmRoute, PvmRouteDirect),
			   PvmAllowDirect);
		int before = count_sockets();
		int c = t_spawn_self(ME, "pingpong", route);
		if (c <= 0)
			break;
		double t0 = t_now();
		for (i = 0; i < 200; i++) {
			t_send_int(c, 50, i * 2);
			int b = t_recv(c, 50, 20);
			CHECK(b > 0, "%s: ping %d lost", route, i);
			if (b <= 0)
				break;
			int v = t_upk1();
			if (v != i * 2 + 1) {
				CHECK(v == i * 2 + 1, "%s: ping %d answered %d",
				      route, i, v);
				break;
			}
		}
		double dt = t_now() - t0;
		int after = count_sockets();
		printf("%s route: %d sockets before, %d after, %.1f us per round trip\n",
		       route, before, after, dt / 200 * 1e6);
		/* one connection each way: ours to the child's socket (opened
		 * even though the child was not listening yet when the first
		 * ping went out), and the one it accepted from us */
		if (pass)
			CHECK(after >= before + 2,
			      "direct route: want a connection each way (%d -> %d sockets)",
			      before, after);
		else
			CHECK(after == before, "pvmd route: sockets %d -> %d",
			      before, after);
		t_send_int(c, 51, 0);
	}
	pvm_exit();
	return t_done("direct");
}

/* A sender killed in the middle of a big message: no partial message is
 * ever delivered, and the VM goes on working. */
static int test_partial(void)
{
	int me = pvm_mytid(), round, cut = 0;
	CHECK(me > 0, "mytid %d", me);
	for (round = 0; round < 4; round++) {
		/* rounds 2 and 3 on a direct route (both sides ask for it) */
		if (round == 2)
			pvm_setopt(PvmRoute, PvmRouteDirect);
		int c = t_spawn_self(ME, round < 2 ? "bigsend" : "bigsendd",
				     "256");
		if (c <= 0)
			break;
		EQ(pvm_notify(PvmTaskExit, 63, 1, &c), 0);
		CHECK(t_recv(c, 60, 30) > 0, "child never started sending");
		t_msleep(20 + 40 * (round % 2));
		EQ(pvm_kill(c), 0);
		CHECK(t_recv(-1, 63, 20) > 0, "no exit notify");
		/* whatever arrives from it must be whole */
		int b, len = 0, got = 0;
		double t0 = t_now();
		while (t_now() - t0 < 2.0) {
			b = pvm_nrecv(c, 61);
			if (b > 0) {
				pvm_bufinfo(b, &len, NULL, NULL);
				CHECK(len == 256 << 20,
				      "round %d: a message of %d bytes arrived",
				      round, len);
				got++;
				break;
			}
			t_msleep(50);
		}
		printf("round %d: %s\n", round,
		       got ? "the whole message arrived" : "nothing arrived");
		/* what it sent after the big message may have arrived only
		 * if the big one did (a send that returns before the data is
		 * taken, as a borrowed body on shared memory, lets it send
		 * on): never a gap */
		int later = pvm_nrecv(c, 62) > 0;
		CHECK(got || !later,
		      "round %d: a later message without the big one", round);
		cut += !got;
		/* the VM still works: a round trip with a fresh task */
		int e = t_spawn_self(ME, "pingpong", "pvmd");
		if (e > 0) {
			t_send_int(e, 50, 7);
			CHECK(t_recv(e, 50, 20) > 0,
			      "round %d: no answer after the kill", round);
			EQ(t_upk1(), 8);
			t_send_int(e, 51, 0);
		}
	}
	/* the direct route's rounds at least kill it mid-message */
	CHECK(cut > 0,
	      "the sender was never killed in the middle of its message");
	pvm_exit();
	return t_done("partial");
}

static int test_errors(void)
{
	int me = pvm_mytid(), x = 1;
	CHECK(me > 0, "mytid %d", me);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&x, 1, 1);
	EQ(pvm_send(0, 1), PvmBadParam);
	EQ(pvm_send(-5, 1), PvmBadParam);
	EQ(pvm_send(me, -1), PvmBadParam);
	EQ(pvm_psend(0, 1, &x, 1, PVM_INT), PvmBadParam);
	EQ(pvm_psend(-7, 1, &x, 1, PVM_INT), PvmBadParam);
	EQ(pvm_psend(me, 1, &x, 1, 99), PvmBadParam);
	int tids[2] = {me, 0};
	EQ(pvm_mcast(tids, 2, -1), PvmBadParam);
	/* a send to a task that has gone succeeds; the message is dropped */
	int c = t_spawn_self(ME, "exit", NULL);
	if (c > 0) {
		pvm_notify(PvmTaskExit, 50, 1, &c);
		CHECK(t_recv(-1, 50, 20) > 0, "no exit notify");
		EQ(pvm_pstat(c), PvmNoTask);
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&x, 1, 1);
		EQ(pvm_send(c, 1), 0);
		EQ(pvm_psend(c, 1, &x, 1, PVM_INT), 0);
	}
	/* and a task that never existed on our host */
	EQ(pvm_send(me + 5000, 1), 0);
	/* the VM still works */
	t_send_int(me, 2, 7);
	CHECK(t_recv(me, 2, 10) > 0, "self message");
	EQ(t_upk1(), 7);
	pvm_exit();
	return t_done("errors");
}

static int test_recvbad(void)
{
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	struct timeval tv = {1, 0};
	EQ(pvm_recv(me, -2), PvmBadParam);
	EQ(pvm_nrecv(me, -2), PvmBadParam);
	EQ(pvm_trecv(me, -2, &tv), PvmBadParam);
	EQ(pvm_probe(me, -2), PvmBadParam);
	EQ(pvm_recv(-2, 1), PvmBadParam);
	int x;
	EQ(pvm_precv(me, -2, &x, 1, PVM_INT, NULL, NULL, NULL), PvmBadParam);
	pvm_exit();
	return t_done("recvbad");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "child"))
		return child_main(argv);
	if (argc < 2) {
		fprintf(stderr,
			"usage: pt_msg match|trecv|psend|mcast|big [MiB]|errors|recvbad\n");
		return 2;
	}
	const char *t = argv[1];
	if (!strcmp(t, "match"))
		return test_match();
	if (!strcmp(t, "trecv"))
		return test_trecv();
	if (!strcmp(t, "psend"))
		return test_psend();
	if (!strcmp(t, "mcast"))
		return test_mcast();
	if (!strcmp(t, "big"))
		return test_big(argc > 2 ? atoi(argv[2]) : 1024);
	if (!strcmp(t, "errors"))
		return test_errors();
	if (!strcmp(t, "partial"))
		return test_partial();
	if (!strcmp(t, "direct"))
		return test_direct();
	if (!strcmp(t, "recvbad"))
		return test_recvbad();
	return 2;
}
