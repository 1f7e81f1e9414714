/*
 * pt_hxsvc.c - the services of a virtual machine between tasks on unlike
 * hosts (hetero.bats, docs/hetero.md): the mailbox, message handlers,
 * contexts, output collection, kill and exit notifies.
 *
 *   pt_hxsvc HOST...
 *
 * The first task collects its children's output (pvm_catchout), puts a
 * mailbox entry packed in PvmDataRaw in its own format, and spawns a copy
 * of itself on each HOST (that host's own binary).  Each copy:
 *   - reads the first task's entry (pvm_recvinfo) and checks every value,
 *     converted to its format ("mbox");
 *   - puts an entry of its own in PvmDataRaw, which the first task reads
 *     and checks ("mbox-back");
 *   - has a message handler (pvm_addmhf) for a PvmDataInPlace message from
 *     the first task: the handler checks it ("mhf") and replies from inside
 *     in PvmDataRaw, which the first task checks ("mhf-back");
 *   - gets two messages of one tag, one in a new context of the first
 *     task's and one in the base context carrying that context's number:
 *     a receive in each context takes its own ("ctx");
 *   - prints a line to its stdout, which reaches the first task's stdout
 *     framed with its tid ("[tX] hx: ORDER long=N").
 * Then the first task spawns a sleeping copy on each HOST, asks for the
 * exit notify of every copy (pvm_notify, PvmTaskExit), kills the sleepers
 * (pvm_kill), and gets one notify naming each copy ("notify").  Prints one
 * line per host, "HOST: mbox=ok mbox-back=ok mhf=ok mhf-back=ok ctx=ok",
 * and "notify: ok"; exits 0 only if every check passed.
 */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pvm3.h>

#define TAG_READY  11
#define TAG_MHF	   12
#define TAG_MHFR   13
#define TAG_CTX	   14
#define TAG_DONE   15
#define TAG_EXIT   16
#define MAXH	   16
#define WAIT_S	   60
#define MASTER_BOX "hx.master"

/* a little of every width, with edge values, salted to tell uses apart */
struct payload {
	short s[4];
	int i[4];
	long l[4]; /* within 32 bits: the i686 copies hold them too */
	float f[4];
	double d[4];
	char b[8];
};

static void fill(struct payload *p, int salt)
{
	memset(p, 0, sizeof *p);
	short s[4] = {SHRT_MIN, SHRT_MAX, -1, (short)salt};
	int i[4] = {INT_MIN, INT_MAX, -2, salt};
	long l[4] = {INT32_MIN, INT32_MAX, -3, -salt};
	float f[4] = {-FLT_MAX, FLT_MIN, -0.0f, salt + 0.5f};
	double d[4] = {DBL_MAX, -DBL_TRUE_MIN, 1.0 / 3, salt * 0.25};
	memcpy(p->s, s, sizeof s);
	memcpy(p->i, i, sizeof i);
	memcpy(p->l, l, sizeof l);
	memcpy(p->f, f, sizeof f);
	memcpy(p->d, d, sizeof d);
	memcpy(p->b, "hx\0\377\200bts", 8);
}

/* Packs fill(salt) from *p, which must live until the send (InPlace
 * packs by reference). */
static int pack_into(struct payload *p, int salt)
{
	fill(p, salt);
	return pvm_pkshort(p->s, 4, 1) || pvm_pkint(p->i, 4, 1) ||
	       pvm_pklong(p->l, 4, 1) || pvm_pkfloat(p->f, 4, 1) ||
	       pvm_pkdouble(p->d, 4, 1) || pvm_pkbyte(p->b, 8, 1);
}

/* The same for an encoding that copies (Default, Raw). */
static int pack(int salt)
{
	struct payload p;
	return pack_into(&p, salt);
}

/* Unpacks a payload from the receive buffer: "ok" if it is fill(salt)'s,
 * bit for bit, else what differs. */
static const char *check(int salt)
{
	struct payload got, want;
	memset(&got, 0, sizeof got);
	if (pvm_upkshort(got.s, 4, 1) || pvm_upkint(got.i, 4, 1) ||
	    pvm_upklong(got.l, 4, 1) || pvm_upkfloat(got.f, 4, 1) ||
	    pvm_upkdouble(got.d, 4, 1) || pvm_upkbyte(got.b, 8, 1))
		return "unpack";
	fill(&want, salt);
#define SAME(f)                                                                \
	if (memcmp(got.f, want.f, sizeof want.f))                              \
		return #f;
	SAME(s)
	SAME(i)
	SAME(l)
	SAME(f)
	SAME(d)
	SAME(b)
#undef SAME
	return "ok";
}

static int recv_from(int tid, int tag)
{
	struct timeval tmout = {WAIT_S, 0};
	return pvm_trecv(tid, tag, &tmout);
}

static void send_str(int tid, int tag, const char *s)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkstr((char *)s);
	pvm_send(tid, tag);
}

/* the copy's entry name */
static void box_of(int tid, char *name, size_t n)
{
	snprintf(name, n, "hx.t%x", tid);
}

/* ---- a copy ---- */

static const char *mhf_result = "no message";
static int mhf_salt;

/* The handler: checks the message, answers from inside on a send buffer
 * of its own. */
static int on_mhf(int mid)
{
	int src = -1;
	pvm_bufinfo(mid, NULL, NULL, &src);
	mhf_result = check(mhf_salt);
	int sb = pvm_setsbuf(pvm_mkbuf(PvmDataRaw));
	pack(mhf_salt + 1);
	pvm_send(src, TAG_MHFR);
	pvm_freebuf(pvm_setsbuf(sb));
	return 0;
}

static int copy(int parent)
{
	int me = pvm_mytid();
	char box[32], done[160];
	const char *mbox = "no entry", *ctx = "no message";
	mhf_salt = me & 0x7fff;

	if (pvm_recvinfo(MASTER_BOX, 0, PvmMboxDefault) > 0)
		mbox = check(1);
	pvm_initsend(PvmDataRaw);
	pack(me & 0xffff);
	box_of(me, box, sizeof box);
	pvm_putinfo(box, pvm_getsbuf(), PvmMboxDefault);
	pvm_addmhf(parent, TAG_MHF, pvm_getcontext(), on_mhf);
	send_str(parent, TAG_READY, "ready");

	/* the base context's message names the other context */
	int c = -1, v = 0;
	if (recv_from(parent, TAG_CTX) > 0 && pvm_upkint(&c, 1, 1) == 0 &&
	    c > 0) {
		int base = pvm_setcontext(c);
		ctx = recv_from(parent, TAG_CTX) > 0 &&
				      pvm_upkint(&v, 1, 1) == 0 && v == -77
			      ? "ok"
			      : "other context";
		pvm_setcontext(base);
	} else if (c == -77) {
		ctx = "the other context's message in the base context";
	}

	const uint16_t one = 1;
	printf("hx: %s long=%d\n",
	       *(const char *)&one ? "little-endian" : "big-endian",
	       (int)sizeof(long));
	fflush(stdout);
	snprintf(done, sizeof done, "mbox=%s mhf=%s ctx=%s", mbox, mhf_result,
		 ctx);
	send_str(parent, TAG_DONE, done);
	pvm_exit();
	return 0;
}

/* ---- the first task ---- */

/* One copy's services; prints its line; 0 if all passed. */
static int serve(const char *host, int tid)
{
	char box[32], done[160] = "no report";
	const char *back = "no entry", *mback = "no reply";
	if (recv_from(tid, TAG_READY) <= 0) {
		printf("%s: no ready\n", host);
		return 1;
	}
	box_of(tid, box, sizeof box);
	if (pvm_recvinfo(box, 0, PvmMboxDefault) > 0)
		back = check(tid & 0xffff);

	/* the handler's message, then the contexts' */
	pvm_initsend(PvmDataInPlace);
	int salt = tid & 0x7fff;
	struct payload p;
	pack_into(&p, salt);
	pvm_send(tid, TAG_MHF);
	if (recv_from(tid, TAG_MHFR) > 0)
		mback = check(salt + 1);

	int c = pvm_newcontext(), base = pvm_setcontext(c), marker = -77;
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&marker, 1, 1);
	pvm_send(tid, TAG_CTX);
	pvm_setcontext(base);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&c, 1, 1);
	pvm_send(tid, TAG_CTX);

	if (recv_from(tid, TAG_DONE) > 0)
		pvm_upkstr(done);
	pvm_freecontext(c);
	int ok = !strcmp(done, "mbox=ok mhf=ok ctx=ok") &&
		 !strcmp(back, "ok") && !strcmp(mback, "ok");
	/* "HOST: mbox=X mbox-back=X mhf=X mhf-back=X ctx=X" */
	char mbox[64] = "?", mhf[64] = "?", ctx[80] = "?";
	sscanf(done, "mbox=%63s mhf=%63s ctx=%79[^\n]", mbox, mhf, ctx);
	printf("%s: mbox=%s mbox-back=%s mhf=%s mhf-back=%s ctx=%s\n", host,
	       mbox, back, mhf, mback, ctx);
	return !ok;
}

/* Kills a sleeping copy on each host; every copy's exit is notified. */
static int notifies(char **hosts, int nh, int *tids, int nt)
{
	char *args[] = {"-sleep", NULL};
	int all[2 * MAXH], n = 0, fails = 0;
	for (int k = 0; k < nt; k++)
		all[n++] = tids[k];
	int sleepers = n;
	for (int h = 0; h < nh; h++) {
		int t;
		if (pvm_spawn("pt_hxsvc", args, PvmTaskHost, hosts[h], 1, &t) ==
		    1)
			all[n++] = t;
		else
			printf("notify: spawn of a sleeper on %s failed (%d)\n",
			       hosts[h], t);
	}
	pvm_notify(PvmTaskExit, TAG_EXIT, n, all);
	for (int k = sleepers; k < n; k++)
		if (pvm_kill(all[k]) < 0)
			fails++;
	int seen[2 * MAXH] = {0};
	for (int got = 0; got < n; got++) {
		int t = 0;
		if (recv_from(-1, TAG_EXIT) <= 0 || pvm_upkint(&t, 1, 1) < 0)
			break;
		for (int k = 0; k < n; k++)
			if (all[k] == t)
				seen[k]++;
	}
	for (int k = 0; k < n; k++)
		if (seen[k] != 1) {
			printf("notify: t%x notified %d times\n", all[k],
			       seen[k]);
			fails++;
		}
	printf("notify: %s\n", fails ? "FAILED" : "ok");
	return fails;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "-copy")) {
		int parent = pvm_parent();
		return parent > 0 ? copy(parent) : 1;
	}
	if (argc > 1 && !strcmp(argv[1], "-sleep")) {
		pvm_mytid();
		pvm_recv(-1, 999); /* until killed */
		return 0;
	}
	if (argc < 2 || argc - 1 > MAXH) {
		fprintf(stderr, "usage: pt_hxsvc HOST...\n");
		return 2;
	}
	if (pvm_mytid() < 0)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pvm_catchout(stdout);
	int autoerr = pvm_setopt(PvmAutoErr, 0); /* none left: PvmNotFound */
	pvm_delinfo(MASTER_BOX, 0, 0);
	pvm_setopt(PvmAutoErr, autoerr);
	pvm_initsend(PvmDataRaw);
	pack(1);
	if (pvm_putinfo(MASTER_BOX, pvm_getsbuf(), PvmMboxDefault) < 0) {
		printf("putinfo failed\n");
		return 1;
	}
	char *args[] = {"-copy", NULL};
	int tids[MAXH], nt = 0, fails = 0;
	for (int h = 1; h < argc; h++) {
		int t = 0;
		if (pvm_spawn("pt_hxsvc", args, PvmTaskHost, argv[h], 1, &t) !=
		    1) {
			printf("%s: spawn failed (%d)\n", argv[h], t);
			fails++;
			continue;
		}
		fails += serve(argv[h], t);
		tids[nt++] = t;
	}
	fails += notifies(argv + 1, argc - 1, tids, nt);
	pvm_delinfo(MASTER_BOX, 0, 0);
	pvm_exit(); /* returns when the children's output has ended */
	return fails != 0;
}
