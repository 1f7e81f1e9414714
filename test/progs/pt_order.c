/*
 * pt_order - ordering under load.  Usage: pt_order NTASKS NMSG ROUTE
 * ROUTE is "pvmd" (default route), "direct" (PvmRouteDirect from the start)
 * or "switch" (pvmd route for the first half, then PvmRouteDirect).
 * Spawns NTASKS workers; each sends NMSG messages to every other worker,
 * round by round, with changing tags, encodings and lengths, while it
 * drains what arrives.  Every receiver checks each message for loss,
 * duplication, order (per sender, across tags, receiving with wildcards)
 * and content, and reports to the master, which prints the totals.
 */
#include <stdint.h>

#include "tcommon.h"

#define ME	   "pt_order"
#define TAG_LIST   1
#define TAG_REPORT 2
#define TAG_DATA0  10 /* data tags 10, 11, 12 */
#define MAXT	   64

static int value(int from, int to, int seq, int k)
{
	uint32_t v = (uint32_t)from * 2654435761u ^ (uint32_t)to * 40503u ^
		     (uint32_t)seq * 97u;
	return (int)(v + (uint32_t)k * 7919u);
}

struct peerstate {
	int next;  /* next sequence number expected */
	int count; /* messages received */
};

static int nerr;
static char firsterr[200];

static void err(const char *fmt, int a, int b, int c)
{
	if (!nerr++)
		snprintf(firsterr, sizeof firsterr, fmt, a, b, c);
}

static int tid_index(const int *tids, int n, int tid)
{
	int i;
	for (i = 0; i < n; i++)
		if (tids[i] == tid)
			return i;
	return -1;
}

/* Handles one received message (the active receive buffer). */
static void take(int b, const int *tids, int n, int me, struct peerstate *ps)
{
	int len, tag, src, hdr[3], k;
	pvm_bufinfo(b, &len, &tag, &src);
	int from = tid_index(tids, n, src);
	if (from < 0 || from == me) {
		err("message from unknown tid %x tag %d (%d)", src, tag, 0);
		return;
	}
	if (pvm_upkint(hdr, 3, 1) < 0) {
		err("short message from %d tag %d (%d)", from, tag, 0);
		return;
	}
	if (hdr[0] != from)
		err("sender index %d in a message from %d (%d)", hdr[0], from,
		    0);
	int seq = hdr[1], np = hdr[2];
	if (seq != ps[from].next)
		err("from %d: got seq %d, expected %d", from, seq,
		    ps[from].next);
	if (tag != TAG_DATA0 + seq % 3)
		err("from %d seq %d: tag %d", from, seq, tag);
	ps[from].next = seq + 1;
	ps[from].count++;
	if (np != seq % 9) {
		err("from %d seq %d: %d payload ints", from, seq, np);
		return;
	}
	int pl[16];
	if (np && pvm_upkint(pl, np, 1) < 0) {
		err("from %d seq %d: payload short (%d)", from, seq, np);
		return;
	}
	for (k = 0; k < np; k++)
		if (pl[k] != value(from, me, seq, k)) {
			err("from %d seq %d: payload int %d wrong", from, seq,
			    k);
			break;
		}
	int extra;
	if (pvm_upkint(&extra, 1, 1) != PvmNoData)
		err("from %d seq %d: extra data (%d)", from, seq, 0);
}

static int worker(int nmsg, const char *route)
{
	int par = pvm_parent(), tids[MAXT], n, i, p, k;
	if (pvm_mytid() < 0)
		return 2;
	int b = t_recv(par, TAG_LIST, 60);
	if (b <= 0)
		return 3;
	pvm_upkint(&n, 1, 1);
	if (n < 1 || n > MAXT)
		return 4;
	pvm_upkint(tids, n, 1);
	int me = tid_index(tids, n, pvm_mytid());
	struct peerstate ps[MAXT];
	memset(ps, 0, sizeof ps);
	if (!strcmp(route, "direct"))
		pvm_setopt(PvmRoute, PvmRouteDirect);
	int expect = (n - 1) * nmsg, got = 0;
	double t0 = t_now();
	for (i = 0; i < nmsg; i++) {
		if (i == nmsg / 2 && !strcmp(route, "switch"))
			pvm_setopt(PvmRoute, PvmRouteDirect);
		for (p = 0; p < n; p++) {
			if (p == me)
				continue;
			int hdr[3] = {me, i, i % 9}, pl[16];
			for (k = 0; k < hdr[2]; k++)
				pl[k] = value(me, p, i, k);
			pvm_initsend(i % 3); /* Default, Raw, InPlace in turn */
			pvm_pkint(hdr, 3, 1);
			if (hdr[2])
				pvm_pkint(pl, hdr[2], 1);
			if (pvm_send(tids[p], TAG_DATA0 + i % 3) < 0)
				err("send to %d seq %d failed (%d)", p, i, 0);
		}
		/* drain what has arrived so far */
		while ((b = pvm_nrecv(-1, -1)) > 0) {
			take(b, tids, n, me, ps);
			got++;
		}
	}
	while (got < expect && t_now() - t0 < 240) {
		b = t_recv(-1, -1, 30);
		if (b <= 0)
			break;
		take(b, tids, n, me, ps);
		got++;
	}
	for (p = 0; p < n; p++)
		if (p != me && ps[p].count != nmsg)
			err("from %d: %d messages, expected %d", p, ps[p].count,
			    nmsg);
	/* anything more is a duplicate */
	struct timeval tv = {0, 200000};
	while ((b = pvm_trecv(-1, -1, &tv)) > 0) {
		take(b, tids, n, me, ps);
		got++;
		err("extra message after all %d arrived (%d %d)", expect, 0, 0);
	}
	int rep[3] = {me, nerr, got};
	pvm_initsend(PvmDataDefault);
	pvm_pkint(rep, 3, 1);
	pvm_pkstr(firsterr);
	pvm_send(par, TAG_REPORT);
	t_recv(par, TAG_LIST + 100, 30); /* stay until the master is done */
	pvm_exit();
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && !strcmp(argv[1], "worker"))
		return worker(atoi(argv[2]), argv[3]);
	if (argc < 4) {
		fprintf(stderr,
			"usage: pt_order NTASKS NMSG pvmd|direct|switch\n");
		return 2;
	}
	int n = atoi(argv[1]), nmsg = atoi(argv[2]), i;
	if (n < 2 || n > MAXT || nmsg < 1)
		return 2;
	int me = pvm_mytid();
	CHECK(me > 0, "mytid %d", me);
	int tids[MAXT];
	char *av[] = {"worker", argv[2], argv[3], NULL};
	double t0 = t_now();
	int started = pvm_spawn(ME, av, 0, NULL, n, tids);
	EQ(started, n);
	if (started != n)
		return t_done("order");
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&n, 1, 1);
	pvm_pkint(tids, n, 1);
	EQ(pvm_mcast(tids, n, TAG_LIST), 0);
	long long total = 0;
	int reported = 0;
	for (i = 0; i < n; i++) {
		int b = t_recv(-1, TAG_REPORT, 300);
		CHECK(b > 0, "only %d of %d workers reported", i, n);
		if (b <= 0)
			break;
		int rep[3];
		char why[200] = "";
		pvm_upkint(rep, 3, 1);
		pvm_upkstr(why);
		CHECK(rep[1] == 0, "worker %d: %d errors, first: %s", rep[0],
		      rep[1], why);
		CHECK(rep[2] == (n - 1) * nmsg,
		      "worker %d received %d messages, expected %d", rep[0],
		      rep[2], (n - 1) * nmsg);
		total += rep[2];
		reported++;
	}
	pvm_initsend(PvmDataDefault);
	pvm_mcast(tids, n, TAG_LIST + 100);
	printf("%d workers, %lld messages checked in %.1f s (%s route)\n",
	       reported, total, t_now() - t0, argv[3]);
	pvm_exit();
	return t_done("order");
}
