/*
 * pvmd_route.c - the pvmd transport: task messages through the pvmd, on
 * the task's connection to it (tran/pvmd_link.c); the pvmd forwards each
 * frame to the destination task.  The route of last resort: it reaches
 * every task and every pvmd.
 *
 * Flow control (proto/wire.h, docs/limits.md): at most WIRE_WINDOW bytes
 * of our messages to one task are in the pvmds' hands.  A message beyond
 * the window is copied into a queue of this task for that destination and
 * goes out when a credit arrives, during whatever PVM call the program
 * makes next; so a send never waits, and a receiver that does not read
 * costs the pvmds one window per sender, its sender the rest.  As a
 * receiver, this transport gives the bytes back to each sender as they
 * are read.  pvm_exit hands what still waits to the pvmd (handoff).
 */
#include "tran/tran.h"

#include <stdlib.h>

#include "common/idhash.h"

/* A message waiting for room in its destination's window. */
struct held {
	struct held *next;
	struct wire_hdr h;
	uint64_t total;
	uint32_t frag;
	uint8_t body[];
};

/* Our traffic with one task through the pvmds. */
struct win {
	uint64_t inflight; /* sent to it, not given back yet */
	uint64_t unacked;  /* read from it, not given back yet */
	struct held *head, *tail;
};

static struct idhash wins;

static struct win *win_get(int tid)
{
	struct win *w = idhash_get(&wins, tid);
	if (w)
		return w;
	if (!(w = calloc(1, sizeof *w)))
		return NULL;
	if (idhash_put(&wins, tid, w) < 0) {
		free(w);
		return NULL;
	}
	return w;
}

static int send_now(struct lp_conn *c, struct win *w, const struct lp_omsg *m)
{
	int r = lp_conn_send(c, m);
	if (r == 0)
		w->inflight += wire_flow_bytes(m->total);
	return r;
}

/* Keeps a copy of m until its window has room. */
static int hold(struct win *w, const struct lp_omsg *m)
{
	if (m->total > SIZE_MAX - sizeof(struct held))
		return PvmNoMem;
	struct held *x = malloc(sizeof *x + (size_t)m->total);
	if (!x)
		return PvmNoMem;
	lp_mem_hint(x, sizeof *x + (size_t)m->total);
	x->next = NULL;
	x->h = m->h;
	x->total = m->total;
	x->frag = m->frag;
	lp_segs_copy(x->body, m->seg, m->nseg);
	if (w->tail)
		w->tail->next = x;
	else
		w->head = x;
	w->tail = x;
	return 0;
}

/* Sends what waits for w while the window has room (or all: force). */
static void release(struct win *w, int force)
{
	struct lp_conn *c = lp_pvmd_conn();
	while (c && w->head && (force || w->inflight < WIRE_WINDOW)) {
		struct held *x = w->head;
		struct lp_seg seg = {.p = x->body, .len = (size_t)x->total};
		struct lp_omsg m = {.h = x->h,
				    .seg = &seg,
				    .nseg = 1,
				    .total = x->total,
				    .frag = x->frag};
		if (send_now(c, w, &m) < 0)
			return; /* the pvmd is gone (or no memory): keep it */
		w->head = x->next;
		if (!w->head)
			w->tail = NULL;
		free(x);
	}
}

/* The window is full: read what the pvmd has for us, without waiting,
 * so that a sender in a loop of sends sees the credits of a receiver that
 * keeps up (whatever else arrives is queued as in any PVM call). */
static void take_credits(struct lp_conn *c)
{
	static int reading;
	if (reading || c->dead)
		return; /* (a send from inside the reading itself) */
	reading = 1;
	lp_conn_input(c);
	reading = 0;
}

static int pvmd_send(void *ep, const struct lp_omsg *m)
{
	if (m->ctrl || !wire_flow_counted(&m->h))
		return lp_conn_send(ep, m);
	struct win *w = win_get(m->h.dst);
	if (!w)
		return PvmNoMem;
	if (w->head || w->inflight >= WIRE_WINDOW)
		take_credits(ep); /* (a credit releases held ones first) */
	if (!w->head && w->inflight < WIRE_WINDOW)
		return send_now(ep, w, m);
	return hold(w, m);
}

static void send_credit(int tid, uint64_t bytes)
{
	struct lp_conn *c = lp_pvmd_conn();
	if (!c || !lp.enrolled)
		return;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_u64(&w, bytes);
	struct lp_seg seg = {.p = w.buf, .len = w.len};
	struct lp_omsg m = {.h = {.dst = tid,
				  .src = lp.mytid,
				  .ctx = WIRE_CTX_CREDIT,
				  .enc = PvmDataRaw},
			    .seg = &seg,
			    .nseg = 1,
			    .total = w.len,
			    .frag = lp_frag_size()};
	if (!w.err)
		lp_conn_send(c, &m); /* (a dead pvmd: nothing to give) */
	wire_wr_free(&w);
}

static int pvmd_link_arrived(const struct wire_hdr *h, struct lp_buf *b)
{
	if (wire_is_credit(h)) {
		struct win *w = idhash_get(&wins, h->src);
		struct wire_rd r;
		wire_rd_init(&r, b->data, b->len);
		uint64_t n = wire_rd_u64(&r);
		if (w && !r.err && !r.left) {
			w->inflight = n < w->inflight ? w->inflight - n : 0;
			release(w, 0);
		}
		lp_buf_free(b);
		return 1;
	}
	if (wire_flow_counted(h)) {
		uint64_t n = wire_flow_bytes(h->total);
		struct win *w = win_get(h->src);
		if (!w) {
			send_credit(h->src, n); /* no table: at once */
		} else if ((w->unacked += n) >= WIRE_CREDIT_STEP &&
			   lp.enrolled) {
			/* (while we enroll, our tid is not known yet: init
			 * gives these back) */
			send_credit(h->src, w->unacked);
			w->unacked = 0;
		}
	}
	return 0;
}

static int pvmd_init(int forced)
{
	(void)forced; /* the last resort carries what nothing else reaches */
	/* what came while we enrolled (held for us before we connected) */
	for (size_t i = 0; i < wins.cap; i++) {
		struct win *w = idhash_at(&wins, i);
		if (w && w->unacked >= WIRE_CREDIT_STEP) {
			send_credit(wins.slots[i].key, w->unacked);
			w->unacked = 0;
		}
	}
	return 0;
}

static void *pvmd_reach(int tid)
{
	(void)tid;
	return lp_pvmd_conn();
}

/* pvm_exit: what waits for a window goes to the pvmd now, past the
 * window; lp_flush tells the pvmd to take it past its bounds too
 * (lp_pvmd_leaving). */
static void pvmd_handoff(void)
{
	for (size_t i = 0; i < wins.cap; i++) {
		struct win *w = idhash_at(&wins, i);
		if (w && w->head)
			release(w, 1);
	}
}

static void pvmd_fini(void)
{
	/* (the link itself is the core's: lp_disconnect closes it) */
	for (size_t i = 0; i < wins.cap; i++) {
		struct win *w = idhash_at(&wins, i);
		if (!w)
			continue;
		while (w->head) {
			struct held *x = w->head;
			w->head = x->next;
			free(x);
		}
		free(w);
	}
	idhash_fini(&wins);
}

const struct lp_tran lp_tran_pvmd = {
	.name = "pvmd",
	.exclusivity = 0,
	.always = 1,
	.init = pvmd_init,
	.reach = pvmd_reach,
	.send = pvmd_send,
	/* (held messages are not output of the connection: lp_flush hands
	 * them off first, and a receive must not wait for them) */
	.pending = lp_conn_ep_pending,
	.link_arrived = pvmd_link_arrived,
	.handoff = pvmd_handoff,
	.fini = pvmd_fini,
};
