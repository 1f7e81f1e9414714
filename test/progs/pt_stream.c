/*
 * pt_stream - large messages into a waiting pvm_precv over shared memory
 * (test/shm.bats; docs/shm.md, "Large messages into a waiting
 * pvm_precv").
 *
 * Usage: pt_stream MODE; children are spawned as pt_stream child-*.
 *   paths      psend, Raw and InPlace (several ranges) to a child that
 *              waits in pvm_precv, sizes around the bounce area's chunks,
 *              echoed back into our pvm_precv, every byte checked
 *   asleep     16 MiB to a receiver asleep in pvm_precv, both ways
 *   stopped    16 MiB to a receiver stopped (SIGSTOP) in pvm_precv,
 *              asleep or spinning: the sender writes it alone, it is
 *              whole after SIGCONT; then 64 MiB to one that a helper
 *              continues 2 ms into the send: it takes the rest
 *   killsend   a sender dies (SIGALRM) while it streams into our
 *              pvm_precv: we get its exit notify, nothing else, and go on
 *   killrecv   a receiver dies while we stream into its pvm_precv: our
 *              pvm_psend returns, the exit notify comes, we go on
 *   stall      a sender stopped for a second while it streams into our
 *              pvm_precv: we wait without burning a core
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

#include "tcommon.h"
#include "tpattern.h"

#define ME	"pt_stream"
#define T_DATA	10
#define T_END	11
#define T_READY 12
#define T_GO	13
#define T_EXIT	14
#define T_RES	15

#define BIG  (16 << 20)
#define HUGE (256 << 20)

static int spawn1(const char *mode, char *arg)
{
	char *av[] = {(char *)mode, arg, NULL};
	int tid = 0;
	/* on this host: the paths under test are its shared memory's */
	int n = pvm_spawn(ME, av, PvmTaskHost, ".", 1, &tid);
	return n == 1 ? tid : -1;
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fprintf(stderr, "pt_stream: out of memory\n");
		exit(3);
	}
	return p;
}

/* Dies by SIGALRM (its default action) after us microseconds. */
static void die_in(long us)
{
	struct itimerval it = {{0, 0}, {us / 1000000, us % 1000000}};
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Forks, before we touch much memory (a fork would make it copy on
 * write, and every page a sender writes into it would then be copied), a
 * process that stops us (SIGSTOP) `after_ms` after we write to the
 * returned pipe, and continues us `hold_ms` later. */
static int stop_watcher(int after_ms, int hold_ms)
{
	int fd[2];
	pid_t me = getpid();
	if (pipe(fd) < 0)
		return -1;
	if (fork() == 0) {
		char x;
		close(fd[1]);
		if (read(fd[0], &x, 1) == 1) {
			t_msleep(after_ms);
			kill(me, SIGSTOP);
			t_msleep(hold_ms);
			kill(me, SIGCONT);
		}
		_exit(0);
	}
	close(fd[0]);
	return fd[1];
}

/* CPU seconds this process has used. */
static double cpu_now(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* ---- children ---- */

/* Receives every message with pvm_precv and sends it back with
 * pvm_psend, until T_END. */
static int child_pecho(void)
{
	size_t cap = BIG + 64;
	uint8_t *b = xmalloc(cap);
	for (;;) {
		int src = 0, tag = 0, len = 0;
		if (pvm_precv(-1, -1, b, (int)cap, PVM_BYTE, &src, &tag, &len) <
		    0)
			return 1;
		if (tag == T_END)
			break;
		pvm_psend(src, tag, b, len, PVM_BYTE);
	}
	pvm_exit();
	return 0;
}

/* Says ready (with its pid), receives `bytes` of pattern 7 with
 * pvm_precv and answers with the index of the first wrong byte; then,
 * if nap_ms, sleeps nap_ms and sends BIG bytes of pattern 8 back.  With
 * `spin` it waits with PvmPollConstant (never asleep). */
static int child_check(int nap_ms, int bytes, int spin)
{
	int parent = pvm_parent(), pid = (int)getpid();
	uint8_t *b = xmalloc((size_t)bytes);
	memset(b, 0, (size_t)bytes);
	if (spin)
		pvm_setopt(PvmPollType, PvmPollConstant);
	pvm_psend(parent, T_READY, &pid, 1, PVM_INT);
	int len = 0;
	if (pvm_precv(parent, T_DATA, b, bytes, PVM_BYTE, NULL, NULL, &len) < 0)
		return 1;
	int first = len != bytes ? -2 : (int)bad(b, (size_t)bytes, 7);
	pvm_psend(parent, T_RES, &first, 1, PVM_INT);
	if (nap_ms) {
		t_msleep(nap_ms);
		fill(b, BIG, 8);
		pvm_psend(parent, T_DATA, b, BIG, PVM_BYTE);
	}
	pvm_exit();
	return 0;
}

/* Says ready, then continues process pid (SIGCONT) after ms. */
static int child_cont(int pid, int ms)
{
	pvm_psend(pvm_parent(), T_READY, NULL, 0, PVM_BYTE);
	t_msleep(ms);
	kill(pid, SIGCONT);
	pvm_exit();
	return 0;
}

/* Says ready; then, as the sender, sends HUGE bytes of 0xa5 into the
 * parent's pvm_precv once it says go, or else waits in pvm_precv for
 * HUGE bytes; and dies `us` microseconds into that. */
static int child_die(int sender, long us)
{
	int parent = pvm_parent();
	uint8_t *p = xmalloc(HUGE);
	memset(p, sender ? 0xa5 : 0, HUGE);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	if (sender && pvm_recv(parent, T_GO) < 0)
		return 1;
	die_in(us);
	if (sender)
		pvm_psend(parent, T_DATA, p, HUGE, PVM_BYTE);
	else
		pvm_precv(parent, T_DATA, p, HUGE, PVM_BYTE, NULL, NULL, NULL);
	pause();
	return 0;
}

/* Sends HUGE bytes of 0xa5 into the parent's pvm_precv after its go,
 * and is stopped for STALL_MS STALL_AT_MS into that. */
#define STALL_AT_MS 3
#define STALL_MS    1000
static int child_stall(void)
{
	int parent = pvm_parent(), go = stop_watcher(STALL_AT_MS, STALL_MS);
	uint8_t *p = xmalloc(HUGE);
	memset(p, 0xa5, HUGE);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	if (pvm_recv(parent, T_GO) < 0 || write(go, "x", 1) != 1)
		return 1;
	pvm_psend(parent, T_DATA, p, HUGE, PVM_BYTE);
	pvm_exit();
	return 0;
}

/* ---- the tests ---- */

/* One round trip of n bytes through a pvm_precv echo, sent by `how`
 * (InPlace: in `nr` ranges of uneven sizes). */
static void round_trip(int c, const char *how, int nr, size_t n, unsigned seed)
{
	uint8_t *p = xmalloc(n + 8), *q = xmalloc(n + 8);
	int got = -1, tag = -1, src = -1;
	fill(p, n, seed);
	if (!strcmp(how, "psend")) {
		EQ(pvm_psend(c, T_DATA, p, (int)n, PVM_BYTE), 0);
	} else {
		pvm_initsend(!strcmp(how, "raw") ? PvmDataRaw : PvmDataInPlace);
		size_t at = 0;
		for (int r = 0; r < nr; r++) {
			size_t k = r == nr - 1 ? n - at : (n - at) / 3 + 1;
			if (k > n - at)
				k = n - at;
			pvm_pkbyte((char *)p + at, (int)k, 1);
			at += k;
		}
		EQ(pvm_send(c, T_DATA), 0);
	}
	memset(q, 0, n + 8);
	EQ(pvm_precv(c, T_DATA, q, (int)n + 8, PVM_BYTE, &src, &tag, &got), 0);
	EQ(got, n);
	EQ(src, c);
	CHECK(bad(q, n, seed) < 0, "%s (%d ranges) %zu bytes: byte %ld differs",
	      how, nr, n, bad(q, n, seed));
	free(p);
	free(q);
}

static int do_paths(void)
{
	/* around a chunk (64 KiB), the area (8 chunks) and more */
	static const size_t sizes[] = {
		65535,	65536,	65537,	     131071,
		524288, 524289, 1048576 + 5, 3 * 1048576 + 4097,
		BIG};
	int c = spawn1("child-pecho", NULL);
	CHECK(c > 0, "spawn");
	for (int s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); s++) {
		round_trip(c, "psend", 1, sizes[s], (unsigned)s);
		round_trip(c, "raw", 1, sizes[s], (unsigned)s + 100);
		round_trip(c, "inplace", 2, sizes[s], (unsigned)s + 200);
		round_trip(c, "inplace", 5, sizes[s], (unsigned)s + 300);
	}
	pvm_psend(c, T_END, NULL, 0, PVM_BYTE);
	return t_done("paths");
}

/* Spawns child-check for `bytes`, waits for its pid. */
static int spawn_check(int nap_ms, int bytes, int spin, int *pid)
{
	char arg[64];
	snprintf(arg, sizeof arg, "%d,%d,%d", nap_ms, bytes, spin);
	int c = spawn1("child-check", arg);
	CHECK(c > 0, "spawn");
	CHECK(t_recv(c, T_READY, 30) > 0, "child ready");
	pvm_upkint(pid, 1, 1);
	return c;
}

/* Sends `bytes` of pattern 7 to a child-check. */
static void send_pattern(int c, int bytes, const char *what)
{
	uint8_t *p = xmalloc((size_t)bytes);
	fill(p, (size_t)bytes, 7);
	double t0 = t_now();
	EQ(pvm_psend(c, T_DATA, p, bytes, PVM_BYTE), 0);
	printf("%d MiB sent to %s in %.1f ms\n", bytes >> 20, what,
	       (t_now() - t0) * 1e3);
	free(p);
}

/* The child-check's answer: every byte right. */
static void check_answer(int c, const char *what)
{
	int first = -3;
	CHECK(t_recv(c, T_RES, 30) > 0, "its answer");
	pvm_upkint(&first, 1, 1);
	CHECK(first == -1, "%s: byte %d differs", what, first);
}

static int do_asleep(void)
{
	int pid = 0, len = 0;
	int c = spawn_check(300, BIG, 0, &pid);
	/* it sleeps in pvm_precv by now */
	t_msleep(300);
	send_pattern(c, BIG, "a sleeping receiver");
	check_answer(c, "a sleeping receiver");
	/* and we sleep in ours while it naps before it sends */
	uint8_t *p = xmalloc(BIG);
	memset(p, 0, BIG);
	EQ(pvm_precv(c, T_DATA, p, BIG, PVM_BYTE, NULL, NULL, &len), 0);
	EQ(len, BIG);
	CHECK(bad(p, BIG, 8) < 0, "16 MiB to a sleeping receiver: byte %ld",
	      bad(p, BIG, 8));
	free(p);
	return t_done("asleep");
}

/* A receiver stopped while it waits in pvm_precv, asleep or spinning: the
 * sender writes it all alone; then one continued 2 ms into a 64 MiB
 * message, which takes the rest. */
static int do_stopped(void)
{
	for (int spin = 0; spin < 2; spin++) {
		int pid = 0;
		int c = spawn_check(0, BIG, spin, &pid);
		t_msleep(50); /* it waits in pvm_precv */
		EQ(kill(pid, SIGSTOP), 0);
		t_msleep(50);
		const char *what = spin ? "a stopped spinning receiver"
					: "a stopped sleeping receiver";
		send_pattern(c, BIG, what);
		EQ(kill(pid, SIGCONT), 0);
		check_answer(c, what);
	}
	for (int spin = 0; spin < 2; spin++) {
		int pid = 0, big = 64 << 20;
		int c = spawn_check(0, big, spin, &pid);
		t_msleep(50);
		EQ(kill(pid, SIGSTOP), 0);
		char arg[64];
		snprintf(arg, sizeof arg, "%d,2", pid);
		int k = spawn1("child-cont", arg);
		CHECK(k > 0 && t_recv(k, T_READY, 30) > 0, "helper ready");
		const char *what =
			spin ? "a spinning receiver continued 2 ms in"
			     : "a sleeping receiver continued 2 ms in";
		send_pattern(c, big, what);
		check_answer(c, what);
	}
	return t_done("stopped");
}

/* One round trip of 1 MiB with a new pvm_precv echo: the VM goes on. */
static void still_works(void)
{
	int e = spawn1("child-pecho", NULL);
	CHECK(e > 0, "spawn");
	round_trip(e, "psend", 1, 1 << 20, 9);
	pvm_psend(e, T_END, NULL, 0, PVM_BYTE);
}

static int do_killsend(void)
{
	static const long after_us[] = {1000, 2000, 4000, 8000};
	uint8_t *b = xmalloc(HUGE);
	int cut = 0;
	for (int r = 0; r < 4; r++) {
		char arg[32];
		snprintf(arg, sizeof arg, "%ld", after_us[r]);
		int c = spawn1("child-dsend", arg), src = 0, tag = 0, len = 0;
		CHECK(c > 0, "spawn");
		EQ(pvm_notify(PvmTaskExit, T_EXIT, 1, &c), 0);
		CHECK(t_recv(c, T_READY, 30) > 0, "child ready");
		memset(b, 0, HUGE);
		pvm_initsend(PvmDataRaw);
		EQ(pvm_send(c, T_GO), 0);
		/* whatever comes first: all of it, or its exit notify */
		EQ(pvm_precv(-1, -1, b, HUGE, PVM_BYTE, &src, &tag, &len), 0);
		if (tag == T_DATA) {
			EQ(len, HUGE);
			CHECK(b[0] == 0xa5 && b[HUGE - 1] == 0xa5, "whole");
			CHECK(t_recv(-1, T_EXIT, 30) > 0, "exit notify");
			printf("round %d: the message came whole\n", r);
			continue;
		}
		EQ(tag, T_EXIT);
		size_t filled = 0;
		for (size_t i = 0; i < HUGE; i += 4096)
			filled += b[i] == 0xa5;
		printf("round %d: killed after %ld us, %zu of %d pages had "
		       "come\n",
		       r, after_us[r], filled, HUGE / 4096);
		cut += filled > 0 && filled < HUGE / 4096;
		/* no message from it comes after its exit */
		CHECK(pvm_nrecv(c, -1) == 0, "nothing after the exit notify");
	}
	/* at least one round cut a stream in the middle */
	CHECK(cut > 0, "a round killed the sender mid-stream (%d)", cut);
	free(b);
	still_works();
	return t_done("killsend");
}

static int do_killrecv(void)
{
	static const long after_us[] = {1000, 3000, 9000};
	uint8_t *p = xmalloc(HUGE);
	memset(p, 0x5a, HUGE);
	for (int r = 0; r < 3; r++) {
		char arg[32];
		snprintf(arg, sizeof arg, "%ld", after_us[r]);
		int c = spawn1("child-drecv", arg);
		CHECK(c > 0, "spawn");
		EQ(pvm_notify(PvmTaskExit, T_EXIT, 1, &c), 0);
		CHECK(t_recv(c, T_READY, 30) > 0, "child ready");
		double t0 = t_now();
		EQ(pvm_psend(c, T_DATA, p, HUGE, PVM_BYTE), 0);
		printf("round %d: 256 MiB sent in %.1f ms to a receiver that "
		       "died after %ld us\n",
		       r, (t_now() - t0) * 1e3, after_us[r]);
		CHECK(t_recv(-1, T_EXIT, 30) > 0, "exit notify");
	}
	free(p);
	still_works();
	return t_done("killrecv");
}

/* A sender stopped for STALL_MS while it streams into our pvm_precv: we
 * wait without burning our core, and the message is whole. */
static int do_stall(void)
{
	uint8_t *b = xmalloc(HUGE);
	memset(b, 0, HUGE);
	int c = spawn1("child-stall", NULL);
	CHECK(c > 0 && t_recv(c, T_READY, 30) > 0, "child ready");
	double t0 = t_now(), cpu0 = cpu_now();
	pvm_initsend(PvmDataRaw);
	EQ(pvm_send(c, T_GO), 0);
	EQ(pvm_precv(c, T_DATA, b, HUGE, PVM_BYTE, NULL, NULL, NULL), 0);
	double wall = t_now() - t0, cpu = cpu_now() - cpu0;
	printf("sender stopped: we waited %.0f ms using %.0f ms of CPU\n",
	       wall * 1e3, cpu * 1e3);
	CHECK(b[0] == 0xa5 && b[HUGE / 2] == 0xa5 && b[HUGE - 1] == 0xa5,
	      "whole after the stall");
	/* the stop came in the middle of the stream */
	CHECK(wall >= STALL_MS * 0.9e-3, "stopped midway: %.2f s", wall);
	CHECK(cpu < wall / 2,
	      "a core burnt while the sender was stopped: "
	      "%.2f s of %.2f s",
	      cpu, wall);
	free(b);
	return t_done("stall");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "0";
	pvm_setopt(PvmAutoErr, 0);
	if (!strcmp(m, "child-pecho"))
		return child_pecho();
	if (!strcmp(m, "child-check")) {
		int nap = 0, bytes = 0, spin = 0;
		sscanf(a, "%d,%d,%d", &nap, &bytes, &spin);
		return child_check(nap, bytes, spin);
	}
	if (!strcmp(m, "child-cont")) {
		int pid = 0, ms = 0;
		sscanf(a, "%d,%d", &pid, &ms);
		return child_cont(pid, ms);
	}
	if (!strcmp(m, "child-stall"))
		return child_stall();
	if (!strcmp(m, "child-dsend") || !strcmp(m, "child-drecv"))
		return child_die(!strcmp(m, "child-dsend"), atol(a));
	if (pvm_mytid() < 0)
		return 2;
	int r = 2;
	if (!strcmp(m, "paths"))
		r = do_paths();
	else if (!strcmp(m, "asleep"))
		r = do_asleep();
	else if (!strcmp(m, "stopped"))
		r = do_stopped();
	else if (!strcmp(m, "killsend"))
		r = do_killsend();
	else if (!strcmp(m, "killrecv"))
		r = do_killrecv();
	else if (!strcmp(m, "stall"))
		r = do_stall();
	else
		fprintf(stderr, "usage: pt_stream MODE (see the source)\n");
	pvm_exit();
	return r;
}
