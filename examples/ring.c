/*
 * ring.c - a token travels once around a ring of tasks in every encoding.
 *
 *   ring [ntasks]          (2..32, default 4)
 *
 * The first task spawns ntasks-1 copies of itself ("ring -w", found on the
 * pvmd's spawn path), multicasts the ring's member list to them, and then
 * sends a token around the ring once per way of sending a message:
 * pack + send in PvmDataDefault (XDR), PvmDataRaw and PvmDataInPlace, and
 * pvm_psend/pvm_precv.  The token holds arrays of every basic type (one
 * packed with a stride of 2) and a string.  Every member unpacks it, checks
 * every value, adds one to the hop count and passes it on, packed again in
 * the same encoding; the first task checks it once more when it comes back.
 * The exit status is 0 only if every lap came back intact.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pvm3.h>

#define N	  1000 /* elements per array */
#define MAXTASKS  32
#define TIMEOUT_S 30 /* the first task gives up on a lap after this */

enum {
	TAG_SETUP = 1,
	TAG_TOKEN = 10,
	TAG_DONE = 20,
	TAG_FAIL = 21,
	TAG_EXIT = 22
};
enum { LAP_DEFAULT, LAP_RAW, LAP_INPLACE, LAP_PSEND, NLAPS };

static const char *const lap_name[NLAPS] = {"PvmDataDefault", "PvmDataRaw",
					    "PvmDataInPlace", "psend/precv"};
static const int lap_encoding[NLAPS] = {PvmDataDefault, PvmDataRaw,
					PvmDataInPlace, -1};

static const char token_text[] = "the token of the ring example";

struct token {
	int hops;
	int ints[N];
	unsigned uints[N];
	short shorts[N];
	long longs[N]; /* fit in 32 bits (XDR carries longs as 4 bytes); some
			* are negative, whose sign PVM 3.4.6 loses in XDR */
	float floats[N];
	double doubles[N];
	char bytes[N];
	int strided[2 * N]; /* only the even elements travel (stride 2) */
	char text[64];
	double raw[N]; /* the psend lap's payload (raw[0] holds the hops) */
};

/* The values every member expects. */
static void fill(struct token *t)
{
	memset(t, 0, sizeof *t);
	for (int k = 0; k < N; k++) {
		t->ints[k] = k * 7919 - 40000;
		t->uints[k] = 4000000000u - (unsigned)k * 3u;
		t->shorts[k] = (short)(k * 31 - 500);
		t->longs[k] = (long)k * 100003 - 7;
		t->floats[k] = k * 0.5f - 100.0f;
		t->doubles[k] = k * 0.25 - 3.5;
		t->bytes[k] = (char)(k * 13);
		t->strided[2 * k] = -k;
		t->raw[k] = k * 1.5 + 0.125;
	}
	strcpy(t->text, token_text);
}

/* Compares a received token with the expected values; returns what differs
 * first, or NULL. */
static const char *check(const struct token *got, int lap)
{
	static struct token want;
	fill(&want);
	if (lap == LAP_PSEND)
		return memcmp(got->raw + 1, want.raw + 1,
			      (N - 1) * sizeof(double))
			       ? "doubles (psend)"
			       : NULL;
	if (memcmp(got->ints, want.ints, sizeof want.ints))
		return "ints";
	if (memcmp(got->uints, want.uints, sizeof want.uints))
		return "unsigned ints";
	if (memcmp(got->shorts, want.shorts, sizeof want.shorts))
		return "shorts";
	if (memcmp(got->longs, want.longs, sizeof want.longs))
		return "longs";
	if (memcmp(got->floats, want.floats, sizeof want.floats))
		return "floats";
	if (memcmp(got->doubles, want.doubles, sizeof want.doubles))
		return "doubles";
	if (memcmp(got->bytes, want.bytes, sizeof want.bytes))
		return "bytes";
	if (lap == LAP_INPLACE)
		return NULL; /* in place: no strides, no strings (see
				pvm_initsend(3)) */
	for (int k = 0; k < N; k++)
		if (got->strided[2 * k] != want.strided[2 * k])
			return "ints packed with stride 2";
	if (strcmp(got->text, want.text))
		return "string";
	return NULL;
}

/* Values checked at each hop, for the report. */
static int values_per_hop(int lap)
{
	return lap == LAP_PSEND	    ? N
	       : lap == LAP_INPLACE ? 7 * N + 1
				    : 8 * N + 2;
}

/* Sends the token to tid the lap's way.  Returns 0 or a PVM error code. */
static int send_token(struct token *t, int lap, int tid)
{
	int cc;

	if (lap == LAP_PSEND) {
		t->raw[0] = t->hops;
		return pvm_psend(tid, TAG_TOKEN + lap, t->raw, N, PVM_DOUBLE);
	}
	if ((cc = pvm_initsend(lap_encoding[lap])) < 0)
		return cc;
	if ((cc = pvm_pkint(&t->hops, 1, 1)) < 0 ||
	    (cc = pvm_pkint(t->ints, N, 1)) < 0 ||
	    (cc = pvm_pkuint(t->uints, N, 1)) < 0 ||
	    (cc = pvm_pkshort(t->shorts, N, 1)) < 0 ||
	    (cc = pvm_pklong(t->longs, N, 1)) < 0 ||
	    (cc = pvm_pkfloat(t->floats, N, 1)) < 0 ||
	    (cc = pvm_pkdouble(t->doubles, N, 1)) < 0 ||
	    (cc = pvm_pkbyte(t->bytes, N, 1)) < 0)
		return cc;
	if (lap != LAP_INPLACE && ((cc = pvm_pkint(t->strided, N, 2)) < 0 ||
				   (cc = pvm_pkstr(t->text)) < 0))
		return cc;
	return pvm_send(tid, TAG_TOKEN + lap);
}

/* Receives the token of a lap from tid into a cleared t.  Returns 0 or a
 * PVM error code. */
static int recv_token(struct token *t, int lap, int tid)
{
	int cc, src, tag, len;

	memset(t, 0, sizeof *t);
	if (lap == LAP_PSEND) {
		cc = pvm_precv(tid, TAG_TOKEN + lap, t->raw, N, PVM_DOUBLE,
			       &src, &tag, &len);
		t->hops = (int)t->raw[0];
		return cc < 0 ? cc : 0;
	}
	if ((cc = pvm_recv(tid, TAG_TOKEN + lap)) < 0)
		return cc;
	if ((cc = pvm_upkint(&t->hops, 1, 1)) < 0 ||
	    (cc = pvm_upkint(t->ints, N, 1)) < 0 ||
	    (cc = pvm_upkuint(t->uints, N, 1)) < 0 ||
	    (cc = pvm_upkshort(t->shorts, N, 1)) < 0 ||
	    (cc = pvm_upklong(t->longs, N, 1)) < 0 ||
	    (cc = pvm_upkfloat(t->floats, N, 1)) < 0 ||
	    (cc = pvm_upkdouble(t->doubles, N, 1)) < 0 ||
	    (cc = pvm_upkbyte(t->bytes, N, 1)) < 0)
		return cc;
	if (lap != LAP_INPLACE && ((cc = pvm_upkint(t->strided, N, 2)) < 0 ||
				   (cc = pvm_upkstr(t->text)) < 0))
		return cc;
	return 0;
}

/* ---- a member spawned by the first task ---- */

static void member_fail(int parent, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

/* Tells the first task why this member gives up, and exits. */
static void member_fail(int parent, const char *fmt, ...)
{
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "ring t%x: %s\n", pvm_mytid(), msg);
	pvm_initsend(PvmDataDefault);
	pvm_pkstr(msg);
	pvm_send(parent, TAG_FAIL);
	pvm_exit();
	exit(1);
}

static int member(void)
{
	static struct token t;
	int parent = pvm_parent(), n, tids[MAXTASKS], me = -1, cc;
	const char *bad;

	if (parent < 0) {
		fprintf(stderr,
			"ring: -w is for the copies the first task spawns\n");
		pvm_exit();
		return 1;
	}
	if ((cc = pvm_recv(parent, TAG_SETUP)) < 0 ||
	    (cc = pvm_upkint(&n, 1, 1)) < 0 || n < 2 || n > MAXTASKS ||
	    (cc = pvm_upkint(tids, n, 1)) < 0)
		member_fail(parent, "bad ring set-up (%d)", cc);
	for (int i = 0; i < n; i++)
		if (tids[i] == pvm_mytid())
			me = i;
	if (me < 1)
		member_fail(parent, "t%x is not in the member list",
			    pvm_mytid());
	int prev = tids[me - 1], next = tids[(me + 1) % n];

	for (int lap = 0; lap < NLAPS; lap++) {
		if ((cc = recv_token(&t, lap, prev)) < 0)
			member_fail(parent, "receiving the %s token: error %d",
				    lap_name[lap], cc);
		if ((bad = check(&t, lap)) != NULL)
			member_fail(parent,
				    "the %s token arrived with wrong %s",
				    lap_name[lap], bad);
		if (t.hops != me - 1)
			member_fail(parent,
				    "the %s token arrived after %d hops",
				    lap_name[lap], t.hops);
		t.hops++;
		if ((cc = send_token(&t, lap, next)) < 0)
			member_fail(parent, "passing the %s token on: error %d",
				    lap_name[lap], cc);
	}
	pvm_recv(parent, TAG_DONE);
	pvm_exit();
	return 0;
}

/* ---- the first task ---- */

/* Waits up to TIMEOUT_S for the next message from anyone; returns its tag
 * and source, leaving it queued; -1 on timeout, -2 on an error. */
static int wait_message(int *src)
{
	time_t end = time(NULL) + TIMEOUT_S;
	int bufid, len, tag, cc;

	while ((bufid = pvm_probe(-1, -1)) == 0) {
		if (time(NULL) > end)
			return -1;
		usleep(1000);
	}
	if (bufid < 0 || (cc = pvm_bufinfo(bufid, &len, &tag, src)) < 0) {
		fprintf(stderr,
			"ring: pvm_probe/pvm_bufinfo failed (error %d)\n",
			bufid < 0 ? bufid : cc);
		return -2;
	}
	return tag;
}

/* Reports why a lap did not come back. */
static void lap_failed(int lap, int tag, int src)
{
	char msg[256] = "";

	if (tag == TAG_FAIL && pvm_recv(src, TAG_FAIL) > 0 &&
	    pvm_upkstr(msg) >= 0)
		fprintf(stderr, "ring: lap %s failed at t%x: %s\n",
			lap_name[lap], src, msg);
	else if (tag == TAG_EXIT)
		fprintf(stderr,
			"ring: lap %s: a member exited before the token came back\n",
			lap_name[lap]);
	else if (tag == -1)
		fprintf(stderr, "ring: lap %s: no token after %d s\n",
			lap_name[lap], TIMEOUT_S);
	else if (tag < 0)
		fprintf(stderr, "ring: lap %s: cannot wait for the token\n",
			lap_name[lap]);
	else
		fprintf(stderr,
			"ring: lap %s: unexpected message (tag %d from t%x)\n",
			lap_name[lap], tag, src);
}

static int first(int n)
{
	static struct token t;
	int tids[MAXTASKS], cc, failed = 0;
	const char *bad;

	tids[0] = pvm_mytid();
	cc = pvm_spawn("ring", (char *[]){"-w", NULL}, PvmTaskDefault, "",
		       n - 1, tids + 1);
	if (cc != n - 1) {
		/* On failure pvm_spawn returns an error code, or the number
		 * started with the error code of the first one that failed
		 * after them. */
		int err = cc < 0 ? cc : tids[1 + cc];
		fprintf(stderr,
			"ring: spawned %d of %d copies of ring (error %d)\n",
			cc < 0 ? 0 : cc, n - 1, err);
		for (int i = 1; i <= cc; i++)
			pvm_kill(tids[i]);
		return 1;
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, n - 1, tids + 1);
	printf("ring of %d tasks:", n);
	for (int i = 0; i < n; i++)
		printf(" t%x", tids[i]);
	printf("\n");

	if ((cc = pvm_initsend(PvmDataDefault)) < 0 ||
	    (cc = pvm_pkint(&n, 1, 1)) < 0 ||
	    (cc = pvm_pkint(tids, n, 1)) < 0 ||
	    (cc = pvm_mcast(tids + 1, n - 1, TAG_SETUP)) < 0) {
		fprintf(stderr, "ring: sending the member list: error %d\n",
			cc);
		return 1;
	}

	for (int lap = 0; lap < NLAPS && !failed; lap++) {
		int src, tag;
		fill(&t);
		if ((cc = send_token(&t, lap, tids[1])) < 0) {
			fprintf(stderr,
				"ring: sending the %s token: error %d\n",
				lap_name[lap], cc);
			failed = 1;
			break;
		}
		tag = wait_message(&src);
		if (tag != TAG_TOKEN + lap || src != tids[n - 1]) {
			lap_failed(lap, tag, src);
			failed = 1;
			break;
		}
		if ((cc = recv_token(&t, lap, tids[n - 1])) < 0) {
			fprintf(stderr,
				"ring: receiving the %s token: error %d\n",
				lap_name[lap], cc);
			failed = 1;
		} else if ((bad = check(&t, lap)) != NULL || t.hops != n - 1) {
			fprintf(stderr,
				"ring: the %s token came back with wrong %s\n",
				lap_name[lap], bad ? bad : "hop count");
			failed = 1;
		} else {
			printf("lap %-15s %2d hops, %5d values checked at each: ok\n",
			       lap_name[lap], n - 1, values_per_hop(lap));
		}
	}

	/* Let the members go (after a failure some wait for a token that will
	 * never come: stop them), and wait until they are gone. */
	if (failed) {
		for (int i = 1; i < n; i++)
			pvm_kill(tids[i]);
	} else {
		pvm_initsend(PvmDataDefault);
		pvm_mcast(tids + 1, n - 1, TAG_DONE);
	}
	for (int gone = 0; gone < n - 1;) {
		int src, tag = wait_message(&src);
		if (tag < 0) {
			fprintf(stderr,
				"ring: %d members did not report their exit\n",
				n - 1 - gone);
			failed = 1;
			break;
		}
		/* Take that message: the earliest one with its tag. */
		if (pvm_recv(-1, tag) > 0 && tag == TAG_EXIT)
			gone++;
	}
	if (!failed)
		printf("all %d laps came back intact\n", NLAPS);
	return failed;
}

int main(int argc, char **argv)
{
	int n = 4, rc;

	if (argc == 2 && strcmp(argv[1], "-w") == 0)
		return member();
	if (argc > 2 ||
	    (argc == 2 && ((n = atoi(argv[1])) < 2 || n > MAXTASKS))) {
		fprintf(stderr, "usage: ring [ntasks]   (2..%d, default 4)\n",
			MAXTASKS);
		return 2;
	}
	if (pvm_mytid() < 0) {
		pvm_perror("ring: pvm_mytid (is a pvmd running?)");
		return 1;
	}
	rc = first(n);
	pvm_exit();
	return rc;
}
