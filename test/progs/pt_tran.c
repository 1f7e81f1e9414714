/*
 * pt_tran - the transport conformance program: the same cases for every
 * transport, which test/tran.bats selects with PVM_TRAN (and checks with
 * PVM_TRAN_REPORT that it carried the messages).
 *
 *   pt_tran exchange   every encoding and psend, sizes 0 B to 1 MiB, echoed
 *   pt_tran order      3000 messages sent at a child before it has enrolled
 *                      (the route switches from the pvmd's to the
 *                      transport mid-stream) and 3000 back: order, content
 *   pt_tran big        1 MiB and 16 MiB both ways, send/recv and psend/precv
 *   pt_tran killed     a sender killed in the middle of a 64 MiB message:
 *                      nothing partial arrives, the next task is served
 *   pt_tran refused    a peer the transport cannot reach (no shared memory,
 *                      no direct listener), a task gone, a tid never used:
 *                      the sends succeed, what can arrive arrives
 *   pt_tran gone       a peer that exits while we are outside the library:
 *                      our next sends find its connection closed in the
 *                      middle of the transport's send; they succeed, as
 *                      to any task gone, and we go on
 *
 * Children inherit PVM_TRAN through PVM_EXPORT (set by the master).
 */
#include <errno.h>
#include <stdint.h>

#include "tcommon.h"
#include "tpattern.h"

#define ME	   "pt_tran"
#define TAG_DATA   10
#define TAG_ECHO   11
#define TAG_DONE   12
#define TAG_REPORT 13
#define TAG_START  14
#define TAG_EXIT   15
#define NORDER	   3000

/* Children pass PVM_TRAN, PVM_TRAN_REPORT, PVM_DIRECT_TCP and PVM_SHM on. */
static void export_env(void)
{
	setenv("PVM_EXPORT", "PVM_TRAN:PVM_TRAN_REPORT:PVM_DIRECT_TCP:PVM_SHM",
	       1);
}

/* ---- children ---- */

/* Echoes every message (any encoding) until TAG_DONE. */
static void child_echo(void)
{
	for (;;) {
		int b = pvm_recv(pvm_parent(), -1);
		int tag;
		pvm_bufinfo(b, NULL, &tag, NULL);
		if (tag == TAG_DONE)
			break;
		/* the received buffer itself goes back */
		int rb = pvm_setrbuf(0);
		int old = pvm_setsbuf(rb);
		pvm_send(pvm_parent(), TAG_ECHO);
		pvm_setsbuf(old);
		pvm_freebuf(rb);
	}
}

/* Receives NORDER numbered messages, then sends NORDER back and reports
 * the first disorder (0: none). */
static void child_order(void)
{
	int parent = pvm_parent(), first_bad = 0;
	unsigned char buf[5000];
	t_send_int(parent, TAG_START, 1); /* enrolled: reachable from now on */
	for (int i = 0; i < NORDER; i++) {
		int b = pvm_recv(parent, TAG_DATA), len, n = -1;
		pvm_bufinfo(b, &len, NULL, NULL);
		pvm_upkint(&n, 1, 1);
		size_t body = (size_t)(i % 7) * 700;
		if (n != i || (size_t)len < body) {
			if (!first_bad)
				first_bad = i + 1;
			continue;
		}
		pvm_upkbyte((char *)buf, (int)body, 1);
		if (bad(buf, body, (unsigned)i) >= 0 && !first_bad)
			first_bad = i + 1;
	}
	for (int i = 0; i < NORDER; i++) {
		size_t body = (size_t)(i % 5) * 900;
		fill(buf, body, (unsigned)i + 7);
		pvm_initsend(i % 2 ? PvmDataRaw : PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_pkbyte((char *)buf, (int)body, 1);
		pvm_send(parent, TAG_ECHO);
	}
	t_send_int(parent, TAG_REPORT, first_bad);
}

/* Announces itself, then sends one message of arg MiB and a small one
 * after it; waits to be killed. */
static void child_bigsend(const char *arg)
{
	size_t n = (size_t)atoi(arg) << 20;
	unsigned char *p = malloc(n);
	if (!p)
		return;
	fill(p, n, 99);
	t_send_int(pvm_parent(), TAG_START, 1);
	pvm_psend(pvm_parent(), TAG_DATA, p, (int)n, PVM_BYTE);
	t_send_int(pvm_parent(), TAG_ECHO, 2);
	pvm_recv(-1, TAG_EXIT);
	free(p);
}

static int child(int argc, char **argv)
{
	const char *role = argc > 2 ? argv[2] : "";
	if (!strcmp(role, "dontroute"))
		pvm_setopt(PvmRoute, PvmDontRoute); /* no direct listener */
	if (pvm_mytid() < 0)
		return 1;
	if (!strcmp(role, "echo") || !strcmp(role, "dontroute"))
		child_echo();
	else if (!strcmp(role, "order"))
		child_order();
	else if (!strcmp(role, "bigsend") && argc > 3)
		child_bigsend(argv[3]);
	pvm_exit();
	return 0;
}

/* ---- cases ---- */

/* One message of n bytes through the echo child c, packed with enc
 * (-1: psend/precv), checked on its way back. */
static void echo_one(int c, int enc, size_t n, unsigned seed)
{
	unsigned char *out = malloc(n + 1), *in = malloc(n + 1);
	if (!out || !in) {
		CHECK(0, "out of memory for %zu bytes", n);
		free(out);
		free(in);
		return;
	}
	fill(out, n, seed);
	int len = -1;
	if (enc < 0) {
		EQ(pvm_psend(c, TAG_DATA, out, (int)n, PVM_BYTE), 0);
		int atid = 0, atag = 0;
		EQ(pvm_precv(c, TAG_ECHO, in, (int)n, PVM_BYTE, &atid, &atag,
			     &len),
		   0);
		EQ(atid, c);
	} else {
		pvm_initsend(enc);
		pvm_pkbyte((char *)out, (int)n, 1);
		EQ(pvm_send(c, TAG_DATA), 0);
		int b = t_recv(c, TAG_ECHO, 60);
		CHECK(b > 0, "no echo of %zu bytes, encoding %d", n, enc);
		if (b > 0) {
			pvm_bufinfo(b, &len, NULL, NULL);
			pvm_upkbyte((char *)in, (int)n, 1);
		}
	}
	CHECK(len >= (int)n, "%zu bytes, encoding %d: %d came back", n, enc,
	      len);
	long at = bad(in, n, seed);
	CHECK(at < 0, "%zu bytes, encoding %d: byte %ld differs", n, enc, at);
	free(out);
	free(in);
}

static int test_exchange(void)
{
	static const size_t sizes[] = {0,    1,	    100,    4000,
				       4096, 65536, 100000, 1 << 20};
	static const int encs[] = {PvmDataDefault, PvmDataRaw, PvmDataInPlace,
				   -1};
	int c = t_spawn_self(ME, "echo", NULL);
	if (c <= 0)
		return t_done("exchange");
	unsigned seed = 1;
	for (int r = 0; r < 3; r++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (size_t e = 0; e < sizeof encs / sizeof *encs; e++)
				echo_one(c, encs[e], sizes[s], seed++);
	t_send_int(c, TAG_DONE, 0);
	pvm_exit();
	return t_done("exchange");
}

static int test_order(void)
{
	unsigned char buf[5000];
	int c = t_spawn_self(ME, "order", NULL);
	if (c <= 0)
		return t_done("order");
	/* the first half at once, while the child is still starting: no
	 * transport reaches it yet, so they take the pvmd route; the second
	 * half once it has enrolled: the route switches to the transport
	 * under test */
	printf("master t%x\n", pvm_mytid());
	for (int i = 0; i < NORDER; i++) {
		if (i == NORDER / 2)
			CHECK(t_recv(c, TAG_START, 30) > 0,
			      "the child never enrolled");
		else if (i > NORDER / 2 && i % 100 == 0) {
			/* paced over 300 ms: a TCP handshake goes on meanwhile
			 * (pvm_probe), and a transport whose first attempts
			 * failed waits out its back-off */
			pvm_probe(c, TAG_ECHO);
			t_msleep(20);
		}
		size_t body = (size_t)(i % 7) * 700;
		fill(buf, body, (unsigned)i);
		pvm_initsend(i % 3 == 0 ? PvmDataRaw : PvmDataDefault);
		pvm_pkint(&i, 1, 1);
		pvm_pkbyte((char *)buf, (int)body, 1);
		EQ(pvm_send(c, TAG_DATA), 0);
	}
	int first_bad = 0;
	for (int i = 0; i < NORDER; i++) {
		int b = t_recv(c, TAG_ECHO, 60), n = -1;
		if (b <= 0) {
			CHECK(0, "message %d back never came", i);
			break;
		}
		pvm_upkint(&n, 1, 1);
		size_t body = (size_t)(i % 5) * 900;
		pvm_upkbyte((char *)buf, (int)body, 1);
		if ((n != i || bad(buf, body, (unsigned)i + 7) >= 0) &&
		    !first_bad)
			first_bad = i + 1;
	}
	EQ(first_bad, 0);
	CHECK(t_recv(c, TAG_REPORT, 60) > 0, "no report from the child");
	EQ(t_upk1(), 0); /* the child's first disorder, +1 */
	printf("%d messages each way checked in order\n", NORDER);
	pvm_exit();
	return t_done("order");
}

static int test_big(void)
{
	int c = t_spawn_self(ME, "echo", NULL);
	if (c <= 0)
		return t_done("big");
	echo_one(c, PvmDataRaw, 1 << 20, 11);
	echo_one(c, -1, 1 << 20, 12);
	echo_one(c, PvmDataDefault, 16 << 20, 13);
	echo_one(c, PvmDataInPlace, 16 << 20, 14);
	echo_one(c, -1, 16 << 20, 15);
	t_send_int(c, TAG_DONE, 0);
	pvm_exit();
	return t_done("big");
}

static int test_killed(void)
{
	int cut = 0;
	for (int round = 0; round < 2; round++) {
		int c = t_spawn_self(ME, "bigsend", "64");
		if (c <= 0)
			break;
		EQ(pvm_notify(PvmTaskExit, 63, 1, &c), 0);
		CHECK(t_recv(c, TAG_START, 30) > 0,
		      "child never started sending");
		t_msleep(5 + 20 * round);
		EQ(pvm_kill(c), 0);
		CHECK(t_recv(-1, 63, 20) > 0, "no exit notify");
		/* whatever arrives from it must be whole */
		int got = 0, b, len = 0;
		double t0 = t_now();
		while (t_now() - t0 < 2.0 && !got) {
			if ((b = pvm_nrecv(c, TAG_DATA)) > 0) {
				pvm_bufinfo(b, &len, NULL, NULL);
				CHECK(len == 64 << 20,
				      "a message of %d bytes arrived", len);
				got = 1;
			} else {
				t_msleep(20);
			}
		}
		CHECK(got || pvm_nrecv(c, TAG_ECHO) <= 0,
		      "round %d: the later message without the big one", round);
		cut += !got;
		/* the next task is served */
		int e = t_spawn_self(ME, "echo", NULL);
		if (e > 0) {
			echo_one(e, PvmDataDefault, 1000, 5);
			t_send_int(e, TAG_DONE, 0);
		}
	}
	printf("killed mid-message in %d of 2 rounds\n", cut);
	pvm_exit();
	return t_done("killed");
}

static int test_refused(void)
{
	int me = pvm_mytid();
	/* a peer that takes no shared memory and accepts no direct route:
	 * every transport but the pvmd's must refuse to reach it */
	setenv("PVM_SHM", "0", 1);
	int c = t_spawn_self(ME, "dontroute", NULL);
	unsetenv("PVM_SHM");
	if (c > 0) {
		for (int i = 0; i < 20; i++)
			echo_one(c, i % 2 ? PvmDataRaw : -1, (size_t)i * 3000,
				 40 + (unsigned)i);
		t_send_int(c, TAG_DONE, 0);
	}
	/* a task that has gone, and a tid never used: the sends succeed */
	int g = t_spawn_self(ME, "exit", NULL);
	if (g > 0) {
		pvm_notify(PvmTaskExit, 50, 1, &g);
		CHECK(t_recv(-1, 50, 20) > 0, "no exit notify");
		int x = 1;
		pvm_initsend(PvmDataDefault);
		pvm_pkint(&x, 1, 1);
		EQ(pvm_send(g, TAG_DATA), 0);
		EQ(pvm_psend(g, TAG_DATA, &x, 1, PVM_INT), 0);
	}
	EQ(pvm_send(me + 4000, TAG_DATA), 0);
	/* and the machine still works */
	int e = t_spawn_self(ME, "echo", NULL);
	if (e > 0) {
		echo_one(e, -1, 70000, 3);
		t_send_int(e, TAG_DONE, 0);
	}
	pvm_exit();
	return t_done("refused");
}

/* Whether process pid has ended (gone, or a zombie not yet reaped). */
static int ended(pid_t pid)
{
	char path[64], st[256];
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT;
	size_t n = fread(st, 1, sizeof st - 1, f);
	fclose(f);
	st[n] = 0;
	const char *rp = strrchr(st, ')'); /* "pid (comm) S ..." */
	return rp && rp[1] == ' ' && rp[2] == 'Z';
}

static int test_gone(void)
{
	for (int round = 0; round < 3; round++) {
		int c = t_spawn_self(ME, "echo", NULL);
		if (c <= 0)
			break;
		/* the route to it is up: a message went and came back */
		echo_one(c, PvmDataDefault, 1000, 60 + (unsigned)round);
		struct pvmtaskinfo *ti = NULL;
		int nt = 0;
		EQ(pvm_tasks(c, &nt, &ti), 0);
		CHECK(nt == 1 && ti, "pvm_tasks(t%x) found %d tasks", c, nt);
		if (nt != 1 || !ti)
			break;
		pid_t pid = ti[0].ti_pid;
		t_send_int(c, TAG_DONE, 0);
		/* it exits; we stay out of the library until it has */
		int waited = 0;
		while (!ended(pid) && waited < 10000) {
			t_msleep(5);
			waited += 5;
		}
		CHECK(ended(pid), "t%x (pid %d) did not exit", c, (int)pid);
		for (int i = 0; i < 3; i++) {
			int x = i;
			pvm_initsend(i % 2 ? PvmDataRaw : PvmDataDefault);
			pvm_pkint(&x, 1, 1);
			EQ(pvm_send(c, TAG_DATA), 0);
			EQ(pvm_psend(c, TAG_DATA, &x, 1, PVM_INT), 0);
			t_msleep(10);
		}
	}
	/* and the machine still works */
	int e = t_spawn_self(ME, "echo", NULL);
	if (e > 0) {
		echo_one(e, -1, 70000, 3);
		t_send_int(e, TAG_DONE, 0);
	}
	pvm_exit();
	return t_done("gone");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child"))
		return child(argc, argv);
	export_env();
	if (argc > 1 && !strcmp(argv[1], "exchange"))
		return test_exchange();
	if (argc > 1 && !strcmp(argv[1], "order"))
		return test_order();
	if (argc > 1 && !strcmp(argv[1], "big"))
		return test_big();
	if (argc > 1 && !strcmp(argv[1], "killed"))
		return test_killed();
	if (argc > 1 && !strcmp(argv[1], "refused"))
		return test_refused();
	if (argc > 1 && !strcmp(argv[1], "gone"))
		return test_gone();
	fprintf(stderr, "usage: %s exchange|order|big|killed|refused|gone\n",
		ME);
	return 2;
}
