/*
 * pt_pull - queued messages that stream through a shared-memory ring
 * while the receiver may pull what the sender does not push in time
 * (test/shm.bats; docs/shm.md, "Pulling the rest of a stream").
 *
 * Usage: pt_pull MODE; children are spawned as pt_pull child-*.
 *   stalled  we send 1 MiB Raw, 2 MiB of ints PvmDataDefault and 7 MiB
 *            with pvm_psend to a child waiting in pvm_recv, and after
 *            each send sleep a second without calling PVM: the child
 *            still has each message, whole, within half a second
 *   churn    300 messages of 64 KiB to 2.5 MiB, the sender pausing a
 *            random 0-300 us after each send and the receiver a random
 *            0-200 us after each receive, so that pushes and pulls meet
 *            at every point: all arrive, in order, every byte checked
 *   killsend a sender pausing between 4 MiB messages is killed while we
 *            receive: the exit notify comes, every message that came is
 *            whole, and the VM goes on
 *   exit     20 senders each send 3 MiB and call pvm_exit at once, while
 *            we receive or while we sleep (the stream is abandoned to
 *            the pvmd): each message arrives once, whole
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <unistd.h>

#include "tcommon.h"
#include "tpattern.h"

#define ME	"pt_pull"
#define T_DATA	20 /* churn: 20-22 */
#define T_READY 12
#define T_EXIT	14
#define T_RES	15

#define STALL_MS 1000
#define CHURN_N	 300

/* Spawns a child in `mode` (with an exit notify to us if `notify`) and
 * waits until it says ready.  Returns its tid. */
static int spawn_ready(const char *mode, int notify)
{
	char *av[] = {(char *)mode, NULL};
	int tid = 0;
	CHECK(pvm_spawn(ME, av, 0, NULL, 1, &tid) == 1, "spawn %s", mode);
	if (notify)
		EQ(pvm_notify(PvmTaskExit, T_EXIT, 1, &tid), 0);
	CHECK(t_recv(tid, T_READY, 30) > 0, "%s ready", mode);
	return tid;
}

/* Whether message id is the exit notify. */
static int is_exit(int id)
{
	int tag = 0;
	pvm_bufinfo(id, NULL, &tag, NULL);
	return tag == T_EXIT;
}

/* Message id is n bytes of pattern seed with tag T_DATA (and from task
 * `from`, unless that is -1), unpacked into b. */
static void check_whole(int id, int from, uint8_t *b, int n, unsigned seed)
{
	int len = 0, tag = 0, src = 0;
	pvm_bufinfo(id, &len, &tag, &src);
	EQ(tag, T_DATA);
	if (from != -1)
		EQ(src, from);
	EQ(len, n);
	pvm_upkbyte((char *)b, n, 1);
	EQ(bad(b, (size_t)n, seed), -1);
}

static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n);
	if (!p) {
		fprintf(stderr, ME ": out of memory\n");
		exit(3);
	}
	return p;
}

/* ---- stalled ---- */

static const struct {
	int enc; /* -1: pvm_psend */
	int bytes;
} stalls[] = {
	{PvmDataRaw, 1 << 20},
	{PvmDataDefault, 2 << 20},
	{-1, 7 << 20},
};
#define NSTALL (int)(sizeof stalls / sizeof stalls[0])

/* Receives each message of stalls[] with pvm_recv and answers with the
 * index of its first wrong byte and when it had it (t_now: the clock is
 * the host's, the parent's too). */
static int child_stalled(void)
{
	int parent = pvm_parent();
	uint8_t *b = xmalloc(8 << 20);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	for (int i = 0; i < NSTALL; i++) {
		int n = stalls[i].bytes;
		int id = pvm_recv(parent, T_DATA);
		double got = t_now();
		int len = 0, first = -3;
		if (id > 0 && pvm_bufinfo(id, &len, NULL, NULL) == 0) {
			int cc = stalls[i].enc == PvmDataDefault
					 ? pvm_upkint((int *)b, n / 4, 1)
					 : pvm_upkbyte((char *)b, n, 1);
			first = cc < 0 ? -2
				       : (int)bad(b, (size_t)n, (unsigned)i);
		}
		double res[2] = {first, got};
		pvm_psend(parent, T_RES, res, 2, PVM_DOUBLE);
	}
	pvm_exit();
	return 0;
}

static void stalled_rounds(void)
{
	int c = spawn_ready("child-stalled", 0);
	uint8_t *b = xmalloc(8 << 20);
	for (int i = 0; i < NSTALL; i++) {
		int n = stalls[i].bytes;
		fill(b, (size_t)n, (unsigned)i);
		t_msleep(20); /* it waits in pvm_recv by now */
		double sent = t_now();
		if (stalls[i].enc < 0) {
			EQ(pvm_psend(c, T_DATA, b, n, PVM_BYTE), 0);
		} else {
			pvm_initsend(stalls[i].enc);
			if (stalls[i].enc == PvmDataDefault)
				pvm_pkint((int *)b, n / 4, 1);
			else
				pvm_pkbyte((char *)b, n, 1);
			EQ(pvm_send(c, T_DATA), 0);
		}
		/* busy elsewhere: no PVM call pushes the rest meanwhile */
		t_msleep(STALL_MS);
		double res[2] = {-9, 0};
		CHECK(t_recv(c, T_RES, 30) > 0, "answer %d", i);
		pvm_upkdouble(res, 2, 1);
		int ms = (int)((res[1] - sent) * 1000);
		printf("%s: %d bytes in %d ms while the sender slept %d ms, "
		       "first bad byte %d\n",
		       stalls[i].enc < 0	     ? "psend"
		       : stalls[i].enc == PvmDataRaw ? "Raw"
						     : "Default",
		       n, ms, STALL_MS, (int)res[0]);
		EQ(res[0], -1);
		CHECK(ms >= 0 && ms < STALL_MS / 2,
		      "%d bytes took %d ms while the sender slept %d ms", n, ms,
		      STALL_MS);
	}
	free(b);
}

static int do_stalled(void)
{
	stalled_rounds();
	return t_done("stalled");
}

/* ---- churn ---- */

static int churn_bytes(int i)
{
	return 65536 + (int)((uint64_t)i * 2654435761u % (2560u << 10));
}

/* Receives CHURN_N messages (any method) in order, pausing now and
 * then; answers with how many were wrong. */
static int child_churn(void)
{
	int parent = pvm_parent(), wrong = 0;
	uint8_t *b = xmalloc(3 << 20);
	srand(2);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	for (int i = 0; i < CHURN_N; i++) {
		int n = churn_bytes(i), len = 0, tag = 0;
		int id = pvm_recv(parent, -1);
		if (id <= 0 || pvm_bufinfo(id, &len, &tag, NULL) < 0 ||
		    tag != T_DATA + i % 3 || pvm_upkbyte((char *)b, n, 1) < 0 ||
		    bad(b, (size_t)n, (unsigned)i) != -1)
			wrong++;
		usleep((useconds_t)(rand() % 200));
	}
	pvm_psend(parent, T_RES, &wrong, 1, PVM_INT);
	pvm_exit();
	return 0;
}

static int do_churn(void)
{
	int c = spawn_ready("child-churn", 0);
	uint8_t *b = xmalloc(3 << 20);
	srand(1);
	for (int i = 0; i < CHURN_N; i++) {
		int n = churn_bytes(i);
		fill(b, (size_t)n, (unsigned)i);
		if (i % 2) {
			pvm_initsend(PvmDataRaw);
			pvm_pkbyte((char *)b, n, 1);
			EQ(pvm_send(c, T_DATA + i % 3), 0);
		} else {
			EQ(pvm_psend(c, T_DATA + i % 3, b, n, PVM_BYTE), 0);
		}
		usleep((useconds_t)(rand() % 300));
	}
	int wrong = -1;
	CHECK(t_recv(c, T_RES, 120) > 0, "answer");
	pvm_upkint(&wrong, 1, 1);
	printf("%d messages, %d wrong\n", CHURN_N, wrong);
	EQ(wrong, 0);
	free(b);
	return t_done("churn");
}

/* ---- killsend ---- */

/* Sends 4 MiB messages of pattern 5 for ever, pausing 0-500 us after
 * each (the parent pulls some of them). */
static int child_pausing_sender(void)
{
	int parent = pvm_parent(), n = 4 << 20;
	uint8_t *b = xmalloc((size_t)n);
	fill(b, (size_t)n, 5);
	srand(3);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	for (;;) {
		pvm_psend(parent, T_DATA, b, n, PVM_BYTE);
		usleep((useconds_t)(rand() % 500));
	}
	return 0;
}

static int do_killsend(void)
{
	int c = spawn_ready("child-psender", 1), n = 4 << 20, got = 0;
	uint8_t *b = xmalloc((size_t)n);
	double end = t_now() + 0.3;
	while (t_now() < end) {
		int id = t_recv(c, T_DATA, 30);
		CHECK(id > 0, "message %d", got);
		if (id <= 0)
			break;
		check_whole(id, -1, b, n, 5);
		got++;
	}
	/* it dies while it sends, or while we pull from it */
	EQ(pvm_kill(c), 0);
	int id, whole = 0;
	while ((id = t_recv(-1, -1, 30)) > 0 && !is_exit(id)) {
		check_whole(id, -1, b, n, 5);
		whole++;
	}
	CHECK(id > 0, "exit notify");
	printf("%d messages before the kill, %d after it\n", got, whole);
	CHECK(got > 0, "messages before the kill");
	/* the VM goes on: a new child takes stalled streams */
	free(b);
	stalled_rounds();
	return t_done("killsend");
}

/* ---- exit ---- */

#define EXIT_BYTES  (3 << 20)
#define EXIT_ROUNDS 20

/* Sends EXIT_BYTES of pattern 6 once the parent says go, and leaves. */
static int child_exitsend(void)
{
	int parent = pvm_parent();
	uint8_t *b = xmalloc(EXIT_BYTES);
	fill(b, EXIT_BYTES, 6);
	pvm_psend(parent, T_READY, NULL, 0, PVM_BYTE);
	if (pvm_recv(parent, T_DATA) < 0)
		return 1;
	pvm_psend(parent, T_DATA, b, EXIT_BYTES, PVM_BYTE);
	pvm_exit();
	return 0;
}

static int do_exit(void)
{
	uint8_t *b = xmalloc(EXIT_BYTES);
	for (int i = 0; i < EXIT_ROUNDS; i++) {
		int c = spawn_ready("child-exitsend", 1);
		pvm_initsend(PvmDataDefault);
		pvm_send(c, T_DATA);
		if (i % 2)
			t_msleep(100); /* it leaves before we look */
		int n = 0, id;
		while ((id = t_recv(-1, -1, 30)) > 0 && !is_exit(id)) {
			check_whole(id, c, b, EXIT_BYTES, 6);
			n++;
		}
		CHECK(id > 0, "exit notify %d", i);
		/* nothing of it may come after its exit notify either */
		while ((id = pvm_nrecv(c, -1)) > 0)
			n++;
		EQ(n, 1);
	}
	free(b);
	printf("%d senders that left right after a 3 MiB send\n", EXIT_ROUNDS);
	return t_done("exit");
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";
	pvm_setopt(PvmAutoErr, 0);
	if (!strcmp(m, "child-stalled"))
		return child_stalled();
	if (!strcmp(m, "child-churn"))
		return child_churn();
	if (!strcmp(m, "child-psender"))
		return child_pausing_sender();
	if (!strcmp(m, "child-exitsend"))
		return child_exitsend();
	if (pvm_mytid() < 0)
		return 2;
	int r = 2;
	if (!strcmp(m, "stalled"))
		r = do_stalled();
	else if (!strcmp(m, "churn"))
		r = do_churn();
	else if (!strcmp(m, "killsend"))
		r = do_killsend();
	else if (!strcmp(m, "exit"))
		r = do_exit();
	else
		fprintf(stderr, "usage: pt_pull MODE (see the source)\n");
	pvm_exit();
	return r;
}
