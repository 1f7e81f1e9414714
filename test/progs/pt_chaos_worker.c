/*
 * pt_chaos_worker.c - a worker of pt_chaos (test/faults.bats): streams
 * sequenced messages to every other worker the master lists (T_PEERS),
 * each on a route and in an encoding drawn at random (through the pvmds,
 * direct, the default), and checks each stream it receives: every message
 * once, in order, its header and bytes as sent.  At T_STOP it sends each
 * survivor a T_END with the count it sent, waits for theirs, and reports
 * its counts per peer to the master (T_REPORT); then waits for T_QUIT.
 *
 * argv: child worker INTERVAL_MS [BREAK]; BREAK (drop, dup or corrupt)
 * spoils the 6th message of each stream on purpose, for the test that
 * the accounting sees it.
 * A worker whose pvmd is gone (PvmSysErr) exits with status 3.
 */
#include <errno.h>

#include "pt_chaos.h"
#include "tcommon.h"

static struct peer peers[MAXPEER];
static int npeer, me, master;
static unsigned long long rng;
static unsigned char *sbuf, *rbuf, *xbuf;
#define MAXSIZE 65536

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static struct peer *peer_of(int tid, int add)
{
	for (int k = 0; k < npeer; k++)
		if (peers[k].tid == tid)
			return &peers[k];
	if (!add || npeer == MAXPEER)
		return NULL;
	struct peer *p = &peers[npeer++];
	memset(p, 0, sizeof *p);
	p->tid = tid;
	p->endcnt = -1;
	return p;
}

/* Leaves when the pvmd is gone: nothing more can be sent or received. */
static void check_rc(int rc)
{
	if (rc == PvmSysErr) {
		pvm_exit();
		exit(3);
	}
}

/* T_PEERS / T_STOP: the list becomes the set of active peers. */
static void take_list(void)
{
	int n = 0, t;
	pvm_upkint(&n, 1, 1);
	for (int k = 0; k < npeer; k++)
		peers[k].active = 0;
	for (int k = 0; k < n; k++) {
		if (pvm_upkint(&t, 1, 1) < 0)
			break;
		struct peer *p = t == me ? NULL : peer_of(t, 1);
		if (p)
			p->active = 1;
	}
}

static void take_data(int src)
{
	int h[5] = {0};
	struct peer *p = peer_of(src, 1);
	if (!p)
		return;
	p->recv++;
	if (pvm_upkint(h, 5, 1) < 0 || h[0] != src || h[1] != me || h[3] < 0 ||
	    h[3] > MAXSIZE || pvm_upkbyte((char *)rbuf, h[3], 1) < 0) {
		p->bad++;
		return;
	}
	chaos_fill(xbuf, h[3], src, me, h[2]);
	if (memcmp(rbuf, xbuf, (size_t)h[3]) != 0)
		p->bad++;
	if (h[2] > p->exp)
		p->gaps += h[2] - p->exp;
	if (h[2] < p->exp)
		p->dups++;
	else
		p->exp = h[2] + 1;
}

/* One message; returns 0 for T_QUIT. */
static int take(int b, int *stop)
{
	int len, tag, src;
	pvm_bufinfo(b, &len, &tag, &src);
	switch (tag) {
	case T_PEERS:
		if (!*stop)
			take_list();
		break;
	case T_STOP:
		take_list();
		*stop = 1;
		break;
	case T_DATA:
		take_data(src);
		break;
	case T_END: {
		struct peer *p = peer_of(src, 1);
		if (p)
			pvm_upkint(&p->endcnt, 1, 1);
		break;
	}
	case T_QUIT:
		return 0;
	}
	return 1;
}

static void send_one(struct peer *p, const char *spoil_mode)
{
	static const int routes[3] = {PvmDontRoute, PvmRouteDirect,
				      PvmAllowDirect};
	static const int encs[2] = {PvmDataDefault, PvmDataRaw};
	unsigned r = rnd(100);
	int size = r < 70   ? (int)rnd(257)
		   : r < 95 ? (int)rnd(8193)
			    : (int)rnd(MAXSIZE + 1);
	int enc = encs[rnd(2)];
	/* the spoiled message of a BREAK run: the 6th to each peer */
	int spoil = spoil_mode && p->sent == 5;
	if (spoil && !strcmp(spoil_mode, "corrupt") && size == 0)
		size = 1; /* a byte to damage */
	int h[5] = {me, p->tid, p->sent, size, enc};
	chaos_fill(sbuf, size, me, p->tid, p->sent);
	if (spoil && !strcmp(spoil_mode, "drop")) {
		p->sent++; /* counted, never sent */
		return;
	}
	if (spoil && !strcmp(spoil_mode, "corrupt"))
		sbuf[size / 2] ^= 0x40;
	pvm_setopt(PvmRoute, routes[rnd(3)]);
	for (int n = spoil && !strcmp(spoil_mode, "dup") ? 2 : 1; n > 0; n--) {
		pvm_initsend(enc);
		pvm_pkint(h, 5, 1);
		pvm_pkbyte((char *)sbuf, size, 1);
		int rc = pvm_send(p->tid, T_DATA);
		check_rc(rc);
		if (rc < 0) {
			p->senderr++;
			return;
		}
	}
	p->sent++;
}

static void report(void)
{
	pvm_setopt(PvmRoute, PvmAllowDirect);
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&npeer, 1, 1);
	for (int k = 0; k < npeer; k++) {
		struct peer *p = &peers[k];
		int v[REP_INTS] = {p->tid,  p->sent, p->senderr, p->recv,
				   p->gaps, p->dups, p->bad,	 p->endcnt};
		pvm_pkint(v, REP_INTS, 1);
	}
	check_rc(pvm_send(master, T_REPORT));
}

int worker_main(int interval_ms, const char *spoil_mode)
{
	me = pvm_mytid();
	master = pvm_parent();
	if (me < 0 || master < 0)
		return 2;
	rng = (unsigned long long)(unsigned)me * 2654435761ull + 1;
	sbuf = malloc(MAXSIZE + 1);
	rbuf = malloc(MAXSIZE + 1);
	xbuf = malloc(MAXSIZE + 1);
	if (!sbuf || !rbuf || !xbuf)
		return 2;
	t_send_int(master, T_HELLO, (int)getpid());
	int stop = 0, next = 0;
	double tnext = t_now();
	/* streaming, until T_STOP */
	while (!stop) {
		double wait = tnext - t_now();
		int b = t_recv(-1, -1, wait > 0 ? wait : 0);
		check_rc(b);
		if (b > 0) {
			take(b, &stop);
			continue;
		}
		if (t_now() < tnext)
			continue;
		tnext += (interval_ms / 2 +
			  (int)rnd((unsigned)interval_ms + 1)) /
			 1e3;
		if (t_now() > tnext + 1)
			tnext = t_now(); /* after a stop: no burst */
		for (int k = 0; k < npeer; k++) {
			struct peer *p = &peers[(next + k) % npeer];
			if (p->active) {
				next = (next + k + 1) % npeer;
				send_one(p, spoil_mode);
				break;
			}
		}
	}
	/* the end of every stream to a survivor, after its data */
	pvm_setopt(PvmRoute, PvmAllowDirect);
	for (int k = 0; k < npeer; k++)
		if (peers[k].active) {
			t_send_int(peers[k].tid, T_END, peers[k].sent);
		}
	/* their ends (in order after their data), then the report */
	double t0 = t_now();
	for (;;) {
		int missing = 0;
		for (int k = 0; k < npeer; k++)
			missing += peers[k].active && peers[k].endcnt < 0;
		if (!missing || t_now() - t0 > 60)
			break;
		int b = t_recv(-1, -1, 1);
		check_rc(b);
		if (b > 0 && !take(b, &stop))
			break;
	}
	/* (what a task prints goes to its pvmd's log) */
	for (int k = 0; k < npeer; k++)
		if (peers[k].active && peers[k].endcnt < 0)
			printf("t%x: no end from t%x after %.0f s\n",
			       (unsigned)me, (unsigned)peers[k].tid,
			       t_now() - t0);
	fflush(stdout);
	report();
	for (;;) {
		int b = t_recv(master, T_QUIT, 120);
		check_rc(b);
		if (b <= 0)
			break;
		if (!take(b, &stop))
			break;
	}
	free(sbuf), free(rbuf), free(xbuf);
	pvm_exit();
	return 0;
}
