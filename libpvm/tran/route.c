/*
 * route.c - per-peer state and the choice of a transport per destination
 * (see tran.h).
 */
#include "tran.h"

#include <stdlib.h>
#include <time.h>

#include "common/clock.h"
#include "lpvm.h"

/* Transports by decreasing exclusivity; the pvmd route comes last and
 * always reaches. */
static const struct lp_tran *const trans[] = {
	&lp_tran_shm, /* whatever PvmRoute says (docs/shm.md) */
	&lp_tran_direct,
	&lp_tran_pvmd,
};
#define NTRANS (int)(sizeof trans / sizeof trans[0])
static int tran_ok[NTRANS];

#define NBUCKET 256
static struct lp_peer *bucket[NBUCKET];

static unsigned hash(int tid)
{
	unsigned x = (unsigned)tid;
	return (x ^ (x >> 8) ^ (x >> 18)) % NBUCKET;
}

struct lp_peer *lp_peer_find(int tid)
{
	for (struct lp_peer *p = bucket[hash(tid)]; p; p = p->next)
		if (p->tid == tid)
			return p;
	return NULL;
}

struct lp_peer *lp_peer_get(int tid)
{
	struct lp_peer *p = lp_peer_find(tid);
	if (p)
		return p;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tid = tid;
	p->next = bucket[hash(tid)];
	bucket[hash(tid)] = p;
	return p;
}

void lp_peer_reset(void)
{
	for (int i = 0; i < NBUCKET; i++) {
		while (bucket[i]) {
			struct lp_peer *p = bucket[i];
			bucket[i] = p->next;
			while (p->held) {
				struct lp_buf *b = p->held;
				p->held = b->qnext;
				b->qnext = b->qprev = NULL;
				lp_buf_free(b);
			}
			free(p);
		}
	}
}

static int tran_index(const struct lp_tran *t)
{
	for (int i = 0; i < NTRANS; i++)
		if (trans[i] == t)
			return i;
	return -1;
}

/* A direct attempt failed: the pvmd route carries the traffic meanwhile
 * (sequence numbers keep the order when direct works later), and the next
 * attempt waits 2, 4, ... up to 1000 ms, so that a peer that never
 * listens costs at most one connect() a second. */
static void direct_failed(struct lp_peer *p)
{
	int n = p->direct_fails < 10 ? p->direct_fails + 1 : 10;
	p->direct_fails = n;
	int64_t delay = (int64_t)1 << n;
	p->direct_retry_ms = mono_ms() + (delay < 1000 ? delay : 1000);
}

/* Whether transport i may be tried for peer p now. */
static int allowed(int i, const struct lp_peer *p)
{
	if (!tran_ok[i])
		return 0;
	if (trans[i] == &lp_tran_direct)
		return lp.route == PvmRouteDirect &&
		       (p->direct_fails == 0 || mono_ms() >= p->direct_retry_ms);
	return 1;
}

static void choose(struct lp_peer *p)
{
	int cur = p->tran ? tran_index(p->tran) : NTRANS;
	/* look for something better than the current choice (the option may
	 * have been switched to PvmRouteDirect since) */
	for (int i = 0; i < cur; i++) {
		if (!allowed(i, p))
			continue;
		void *ep = trans[i]->reach(p->tid);
		if (ep) {
			p->tran = trans[i];
			p->ep = ep;
			if (trans[i] == &lp_tran_direct)
				p->direct_fails = 0;
			return;
		}
		if (trans[i] == &lp_tran_direct)
			direct_failed(p);
	}
}

int lp_route_send(struct lp_peer *p, const struct lp_omsg *m)
{
	for (;;) {
		choose(p);
		if (!p->tran)
			return PvmSysErr;
		int r = p->tran->send(p->ep, m);
		if (r == 0 || p->tran == &lp_tran_pvmd)
			return r;
		/* a better route failed: the peer is probably gone; the pvmd
		 * route delivers or drops the message as for any send */
		if (p->tran == &lp_tran_direct)
			direct_failed(p);
		p->tran = NULL;
		p->ep = NULL;
	}
}

void lp_route_ep_lost(void *ep)
{
	for (int i = 0; i < NBUCKET; i++)
		for (struct lp_peer *p = bucket[i]; p; p = p->next)
			if (p->ep == ep) {
				if (p->tran == &lp_tran_direct)
					direct_failed(p);
				p->tran = NULL;
				p->ep = NULL;
			}
}

void lp_route_init(void)
{
	for (int i = 0; i < NTRANS; i++)
		tran_ok[i] = trans[i]->init() == 0;
}

void lp_route_fini(void)
{
	for (int i = NTRANS - 1; i >= 0; i--)
		if (trans[i]->fini)
			trans[i]->fini();
	for (int i = 0; i < NTRANS; i++)
		tran_ok[i] = 0;
}

/* Whether any endpoint of any peer still has output queued. */
int lp_route_pending(void)
{
	for (int i = 0; i < NBUCKET; i++)
		for (struct lp_peer *p = bucket[i]; p; p = p->next)
			if (p->tran && p->ep && p->tran->pending(p->ep))
				return 1;
	return 0;
}
