/*
 * route.c - the transport table, the choice of a transport per
 * destination and the per-peer state (see tran.h).
 *
 * Nothing here knows one transport from another: the table is sorted by
 * exclusivity, PVM_TRAN (read at each enrollment) turns rows off, and the
 * row marked .always is the route of last resort.
 */
#define _GNU_SOURCE
#include "tran.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/idhash.h"
#include "lpvm.h"

/* Every transport built in, in any order (sorted by exclusivity below). */
static const struct lp_tran *const table[] = {
	&lp_tran_shm,
	&lp_tran_direct,
	&lp_tran_pvmd,
};
#define NTRANS (int)(sizeof table / sizeof table[0])

/* This enrollment's transports, by decreasing exclusivity: the selected
 * ones (use[]), whether init() accepted (up[]), and the last resort. */
static const struct lp_tran *use[NTRANS];
static int forced[NTRANS], up[NTRANS], nuse;
static const struct lp_tran *last_resort;
static int configured;
/* the transport that offers single copy into a posted pvm_precv buffer
 * (the highest-ranked one with post ops), NULL: none */
static const struct lp_tran *poster;
/* messages sent per transport (use[] index), for PVM_TRAN_REPORT */
static unsigned long nsent[NTRANS];

static struct idhash peers;
static void report_init(void);

/* ---- the layer above (tran.h) ---- */

static struct lp_tran_up above;
struct lp_precv_target lp_ptarget;
struct lp_pclaim lp_pclaim;

void lp_tran_set_up(const struct lp_tran_up *u)
{
	above = *u;
}

void lp_tran_arrived(struct lp_buf *b)
{
	if (above.arrived)
		above.arrived(b);
	else
		lp_buf_free(b); /* nobody in this program receives */
}

void lp_tran_dropped(void)
{
	if (above.dropped)
		above.dropped();
}

void lp_tran_took(int src, uint32_t seq)
{
	if (above.took)
		above.took(src, seq);
}

int lp_tran_direct_ok(int src, int tag, int ctx, uint32_t seq)
{
	return above.direct_ok && above.direct_ok(src, tag, ctx, seq);
}

void *lp_pclaim_begin(const struct wire_hdr *h)
{
	struct lp_precv_target *t = &lp_ptarget;
	int fmt = (h->enc & WIRE_ENC_FMT_MASK) >> WIRE_ENC_FMT_SHIFT;
	if (lp_pclaim.buf || !(t->copy || t->posted) || t->done || t->hit ||
	    !lp_precv_fits(h->src, h->tag, h->ctx) || h->total > t->room ||
	    /* another data format: pvm_precv converts it from a buffer */
	    ((h->enc & WIRE_ENC_MASK) != PvmDataDefault &&
	     fmt != DSIG_FMT_NATIVE) ||
	    !lp_tran_direct_ok(h->src, h->tag, h->ctx, h->seq))
		return NULL;
	/* posted for a sender of this host too: ours only if none took it */
	if (t->posted && !lp_route_post_withdraw())
		return NULL;
	t->posted = 0;
	lp_pclaim = (struct lp_pclaim){.buf = t->buf};
	t->copy = 0; /* nobody else writes into it */
	return t->buf;
}

void lp_pclaim_end(const struct wire_hdr *h, int ok)
{
	if (!ok) {
		lp_pclaim.buf = NULL;
		return;
	}
	lp_tran_took(h->src, h->seq);
	lp_pclaim.done = 1;
	lp_pclaim.src = h->src;
	lp_pclaim.tag = h->tag;
	lp_pclaim.len = (size_t)h->total;
}

struct lp_peer *lp_peer_find(int tid)
{
	return idhash_get(&peers, tid);
}

struct lp_peer *lp_peer_get(int tid)
{
	struct lp_peer *p = idhash_get(&peers, tid);
	if (p || tid == 0)
		return p;
	p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->tid = tid;
	if (idhash_put(&peers, tid, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

void lp_peer_reset(void)
{
	for (size_t i = 0; i < peers.cap; i++) {
		struct lp_peer *p = idhash_at(&peers, i);
		if (!p)
			continue;
		while (p->held) {
			struct lp_buf *b = p->held;
			p->held = b->qnext;
			b->qnext = b->qprev = NULL;
			lp_buf_free(b);
		}
		free(p);
	}
	idhash_fini(&peers);
}

/* ---- PVM_TRAN ----
 *
 * "a,b": only these (each forced: used whatever PvmRoute says); "^a,b":
 * all but these; unset or empty: all.  The route of last resort is always
 * there.  PVM_SHM=0 is an alias of "^shm".  A name we do not know is
 * reported once on stderr and ignored. */

static int named(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		if (len == n && !strncmp(p, name, n))
			return 1;
		p += len;
		if (*p)
			p++;
	}
	return 0;
}

static void check_names(const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		int known = len == 0;
		for (int i = 0; i < NTRANS && !known; i++)
			known = strlen(table[i]->name) == len &&
				!strncmp(p, table[i]->name, len);
		if (!known)
			lp_stderr("libpvm: PVM_TRAN: no transport named "
				  "\"%.*s\" (known: shm, direct, pvmd)\n",
				  (int)len, p);
		p += len;
		if (*p)
			p++;
	}
}

static void configure_routes(void)
{
	const char *sel = getenv("PVM_TRAN");
	const char *shm = getenv("PVM_SHM");
	int exclude = sel && sel[0] == '^';
	const char *list = sel ? sel + exclude : "";
	static char lastwarned[256];

	if (*list && strncmp(lastwarned, list, sizeof lastwarned - 1)) {
		check_names(list);
		snprintf(lastwarned, sizeof lastwarned, "%s", list);
	}
	/* sort by exclusivity (a handful of rows) */
	const struct lp_tran *sorted[NTRANS];
	memcpy(sorted, table, sizeof sorted);
	for (int i = 1; i < NTRANS; i++)
		for (int j = i; j > 0 && sorted[j]->exclusivity >
						 sorted[j - 1]->exclusivity;
		     j--) {
			const struct lp_tran *t = sorted[j];
			sorted[j] = sorted[j - 1];
			sorted[j - 1] = t;
		}
	nuse = 0;
	last_resort = NULL;
	for (int i = 0; i < NTRANS; i++) {
		const struct lp_tran *t = sorted[i];
		/* the contract's mandatory part */
		if (!t->name || !t->init || !t->reach || !t->send ||
		    !t->pending || !t->fini)
			continue;
		int listed = *list && named(list, t->name);
		int in = !*list || listed != exclude;
		if (shm && !strcmp(shm, "0") && !strcmp(t->name, "shm"))
			in = 0;
		if (!in && !t->always)
			continue;
		forced[nuse] = listed && !exclude;
		up[nuse] = 0;
		use[nuse++] = t;
		if (t->always)
			last_resort = t;
	}
	configured = 1;
}

int lp_route_listen(void)
{
	int port = 0;
	configure_routes();
	for (int i = 0; i < nuse; i++)
		if (use[i]->listen) {
			int p = use[i]->listen();
			if (!port)
				port = p;
		}
	return port;
}

int lp_route_net_up(void)
{
	int port = 0;
	for (int i = 0; i < nuse; i++)
		if (up[i] && use[i]->net_up) {
			int p = use[i]->net_up();
			if (!port)
				port = p;
		}
	return port;
}

void lp_route_init(void)
{
	if (!configured)
		configure_routes();
	const struct lp_tran *pollers[NTRANS];
	int npollers = 0;
	report_init();
	poster = NULL;
	for (int i = 0; i < nuse; i++) {
		up[i] = use[i]->init(forced[i]) == 0;
		if (up[i] && use[i]->progress && use[i]->active)
			pollers[npollers++] = use[i];
		if (up[i] && use[i]->post && !poster)
			poster = use[i];
	}
	lp_progress_set_pollers(pollers, npollers);
}

/* ---- PVM_TRAN_REPORT: which transports carried this task's messages ----
 *
 * A file name; at pvm_exit (or exit) the task appends one line
 * "t<tid> <name>=<messages> ..." for the messages it sent to tasks.
 * The test suite uses it to check that a forced transport carried the
 * traffic; users may ask the same question. */

static int report_tid;

static void write_report(void)
{
	const char *path = getenv("PVM_TRAN_REPORT");
	unsigned long total = 0;
	for (int i = 0; i < nuse; i++)
		total += nsent[i];
	if (!path || !*path || !total)
		return;
	char line[256];
	int n = snprintf(line, sizeof line, "t%x", (unsigned)report_tid);
	for (int i = 0; i < nuse && n < (int)sizeof line; i++)
		n += snprintf(line + n, sizeof line - (size_t)n, " %s=%lu",
			      use[i]->name, nsent[i]);
	if (n >= (int)sizeof line)
		n = (int)sizeof line - 1;
	line[n++] = '\n';
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0) {
		/* one write: lines of concurrent tasks do not mix */
		ssize_t w = write(fd, line, (size_t)n);
		(void)w;
		close(fd);
	}
	memset(nsent, 0, sizeof nsent);
}

/* After enrollment: the report (if asked for) names this tid, also when
 * the program exits without pvm_exit. */
static void report_init(void)
{
	static int atexit_done;
	report_tid = lp.mytid;
	if (!atexit_done && getenv("PVM_TRAN_REPORT")) {
		atexit_done = 1;
		atexit(write_report);
	}
}

void lp_route_fini(void)
{
	write_report();
	for (int i = nuse - 1; i >= 0; i--)
		use[i]->fini();
	for (int i = 0; i < nuse; i++)
		up[i] = 0;
	lp_progress_set_pollers(NULL, 0);
	poster = NULL;
	configured = 0;
}

/* ---- choosing and sending ---- */

static void choose(struct lp_peer *p)
{
	int cur = p->tran ? p->rank : nuse;
	/* look for something better than the current choice (an option
	 * such as PvmRoute may allow one now) */
	for (int i = 0; i < cur; i++) {
		if (!up[i])
			continue;
		void *ep = use[i]->reach(p->tid);
		if (ep) {
			p->tran = use[i];
			p->ep = ep;
			p->rank = i;
			return;
		}
	}
}

static void forget(struct lp_peer *p)
{
	if (p->tran->ep_failed)
		p->tran->ep_failed(p->ep);
	p->tran = NULL;
	p->ep = NULL;
}

int lp_route_send(struct lp_peer *p, const struct lp_omsg *m)
{
	for (;;) {
		choose(p);
		if (!p->tran)
			return PvmSysErr;
		/* the send may lose its connection and, through
		 * lp_route_ep_lost, forget the peer's route (p->tran NULL,
		 * the endpoint freed): what it used is kept here */
		const struct lp_tran *t = p->tran;
		void *ep = p->ep;
		int rank = p->rank;
		int r = t->send(ep, m);
		if (r == 0)
			nsent[rank]++;
		if (r == 0 || t->always)
			return r;
		/* a better route failed: the peer is probably gone; the last
		 * resort delivers or drops the message as for any send */
		if (p->tran == t && p->ep == ep)
			forget(p);
	}
}

int lp_route_send_last(const struct lp_omsg *m)
{
	if (!last_resort)
		return PvmSysErr;
	void *ep = last_resort->reach(m->h.dst);
	return ep ? last_resort->send(ep, m) : PvmSysErr;
}

int lp_route_link_arrived(const struct wire_hdr *h, struct lp_buf *b)
{
	return last_resort && last_resort->link_arrived &&
	       last_resort->link_arrived(h, b);
}

void lp_route_ep_lost(void *ep)
{
	for (size_t i = 0; i < peers.cap; i++) {
		struct lp_peer *p = idhash_at(&peers, i);
		if (p && p->ep == ep && p->tran)
			forget(p);
	}
}

/* Whether any endpoint of any peer still has output queued. */
int lp_route_pending(void)
{
	for (size_t i = 0; i < peers.cap; i++) {
		struct lp_peer *p = idhash_at(&peers, i);
		if (p && p->tran && p->ep && p->tran->pending(p->ep))
			return 1;
	}
	return 0;
}

void lp_route_handoff(void)
{
	for (int i = 0; i < nuse; i++)
		if (up[i] && use[i]->handoff)
			use[i]->handoff();
}

void lp_route_watch_fds(void)
{
	for (int i = 0; i < nuse; i++)
		if (up[i] && use[i]->watch_fds)
			use[i]->watch_fds();
}

/* ---- single copy into a posted pvm_precv buffer ---- */

/* (a source that only a socket can bring, a task of another host or one
 * whose route is not the poster's, would never fill a posting) */
size_t lp_route_post_min(int src)
{
	if (!poster)
		return SIZE_MAX;
	if (src != -1) {
		struct lp_peer *p = lp_peer_find(src);
		if (!lp_tid_local_peer(src) ||
		    (p && p->tran && p->tran != poster))
			return SIZE_MAX;
	}
	return poster->post_min();
}

int lp_route_post(int src, int tag, void *buf, size_t len)
{
	return poster && poster->post(src, tag, buf, len);
}

int lp_route_post_done(void)
{
	return poster && poster->post_done();
}

void lp_route_post_take(struct lp_posted *out)
{
	poster->post_take(out);
}

int lp_route_post_withdraw(void)
{
	return poster ? poster->post_withdraw() : 1;
}
