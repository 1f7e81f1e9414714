/*
 * direct.c - the direct transport: task-to-task routes over Unix sockets
 * (and TCP, direct_tcp.c).
 *
 * Every enrolled task (unless PvmRoute is PvmDontRoute) listens on
 * vmdir_task_sock(mytid).  A task with PvmRoute = PvmRouteDirect that
 * sends to a peer connects to the peer's socket and opens with a hello
 * frame naming its tid (docs/protocol.md "Direct routes"); the accepting
 * side checks the peer's uid and the tid, then takes that peer's frames.
 * A Unix connection carries messages one way: from the connecting task
 * to the listening one.  A TCP one carries them both ways once the
 * listening task routes to its peer directly too (direct_reach).  Order
 * across routes is kept by the seq numbers.
 *
 * To a task of another host (or with PVM_DIRECT_TCP=1 to any), the
 * connection is a TCP socket that direct_tcp.c has connected or accepted
 * and authenticated (the VM secret instead of SO_PEERCRED); from the
 * hello on it is handled here exactly as a Unix one.
 */
#define _GNU_SOURCE
#include "tran/direct/direct.h"

#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/idhash.h"
#include "lpvm.h"
#include "proto/vmdir.h"

static int lfd = -1;
static struct lp_pollable lpl;
static char lpath[sizeof(((struct sockaddr_un *)0)->sun_path)];
static pid_t lpid;

/* every direct connection, both directions, for fini */
struct dconn {
	struct dconn *next;
	struct lp_conn *c;
};
static struct dconn *dconns;

/* PVM_TRAN named us: direct routes whatever PvmRoute says */
static int forced;

/* Peers a direct route failed to in a row: tid -> struct lp_backoff. */
static struct idhash backoffs;

/* c->what of TCP connections (compared by address) */
static const char what_tcp[] = "direct-tcp";

static void forget(struct lp_conn *c)
{
	for (struct dconn **pp = &dconns; *pp; pp = &(*pp)->next)
		if ((*pp)->c == c) {
			struct dconn *d = *pp;
			*pp = d->next;
			free(d);
			return;
		}
}

/* Single copy: a message of our peer, after its hello, may be read
 * straight into a waiting pvm_precv's buffer (tran.h, lp_pclaim). */
static void *direct_claim(struct lp_conn *c, const struct wire_hdr *h)
{
	if (c->peer == 0 || h->src != c->peer || h->dst != lp.mytid)
		return NULL;
	return lp_pclaim_begin(h);
}

static void direct_claimed(struct lp_conn *c, const struct wire_hdr *h, int ok)
{
	(void)c;
	lp_pclaim_end(h, ok);
}

static int remember(struct lp_conn *c)
{
	struct dconn *d = malloc(sizeof *d);
	if (!d)
		return -1;
	c->claim = direct_claim;
	c->claimed = direct_claimed;
	if (c->what == what_tcp)
		lp_poll_busy(&c->pl); /* a task of another host: poll.c */
	d->c = c;
	d->next = dconns;
	dconns = d;
	return 0;
}

/* Incoming frames on a direct connection (either end). */
static int direct_msg(struct lp_conn *c, struct lp_inmsg *m)
{
	if (c->peer == 0) {
		/* the hello: CTRL TM_CONNECT, i32 version, i32 tid */
		struct wire_rd r;
		int ok = (m->h.flags & WIRE_F_CTRL) &&
			 m->h.tag == WIRE_TM_CONNECT;
		wire_rd_init(&r, m->ctl, m->ctllen);
		int ver = wire_rd_i32(&r), tid = wire_rd_i32(&r);
		/* TCP: the task that authenticated (owner), of another host */
		int sane = c->what == what_tcp
				   ? lp_tcp_tid_ok(tid) &&
					     tid == (int)(intptr_t)c->owner
				   : lp_tid_local_peer(tid);
		ok = ok && !r.err && ver == WIRE_VERSION && sane &&
		     m->h.src == tid && m->h.dst == lp.mytid;
		free(m->ctl);
		if (m->buf)
			lp_buf_free(m->buf);
		if (!ok)
			return -1;
		c->peer = tid;
		return 0;
	}
	if ((m->h.flags & WIRE_F_CTRL) || m->h.src != c->peer ||
	    m->h.dst != lp.mytid) {
		free(m->ctl);
		if (m->buf)
			lp_buf_free(m->buf);
		return -1;
	}
	lp_tran_arrived(m->buf);
	return 0;
}

static void in_closed(struct lp_conn *c)
{
	forget(c);
}

static void out_closed(struct lp_conn *c)
{
	forget(c);
	lp_route_ep_lost(c);
}

static short listen_events(struct lp_pollable *p)
{
	(void)p;
	return POLLIN;
}

static void listen_ready(struct lp_pollable *p, short revents)
{
	(void)p;
	(void)revents;
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return; /* EAGAIN, or out of fds: try again later */
		}
		if (!lp_peer_is_us(fd)) {
			close(fd);
			continue;
		}
		struct lp_conn *c =
			lp_conn_new(fd, "direct", direct_msg, in_closed, NULL);
		if (c && remember(c) < 0) {
			c->on_close = NULL;
			lp_conn_close(c);
		}
	}
}

void lp_direct_adopt(int fd, int tid)
{
	struct lp_conn *c = lp_conn_new(fd, what_tcp, direct_msg, in_closed,
					(void *)(intptr_t)tid);
	if (c && remember(c) < 0) {
		c->on_close = NULL;
		lp_conn_close(c);
	}
}

static void unlink_at_exit(void)
{
	if (lpath[0] && getpid() == lpid)
		unlink(lpath);
}

static int direct_init(int named)
{
	static int atexit_done;
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	forced = named;
	if (lp.route == PvmDontRoute || lfd >= 0)
		return 0; /* we may still connect out */
	lp_tcp_start();
	if (vmdir_task_sock(sa.sun_path, sizeof sa.sun_path, lp.mytid) < 0)
		return 0;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	unlink(sa.sun_path); /* left by a dead task that had our tid */
	/* the mode is ours to set, not the umask's (the library cannot
	 * change the process's umask); nobody connects before listen */
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    chmod(sa.sun_path, 0600) < 0 || listen(fd, SOMAXCONN) < 0) {
		close(fd);
		return 0;
	}
	lfd = fd;
	memcpy(lpath, sa.sun_path, sizeof lpath);
	lpid = getpid();
	if (!atexit_done && atexit(unlink_at_exit) == 0)
		atexit_done = 1;
	lpl.fd = fd;
	lpl.events = listen_events;
	lpl.ready = listen_ready;
	lp_poll_add(&lpl);
	return 0;
}

/* A Unix socket connected to the listener of `tid` (same host), or -1. */
static int unix_connect(int tid)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	if (!lp_tid_local_peer(tid) ||
	    vmdir_task_sock(sa.sun_path, sizeof sa.sun_path, tid) < 0)
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* nonblocking: a full backlog gives EAGAIN and we use the pvmd */
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    !lp_peer_is_us(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A direct attempt failed: the pvmd route carries the traffic meanwhile
 * (sequence numbers keep the order when direct works later), and the next
 * attempt waits 2, 4, ... up to 1000 ms, so that a peer that never
 * listens costs at most one connect() a second. */
static void failed(int tid)
{
	struct lp_backoff *b = idhash_get(&backoffs, tid);
	if (!b) {
		b = calloc(1, sizeof *b);
		if (!b || idhash_put(&backoffs, tid, b) < 0) {
			free(b);
			return;
		}
	}
	lp_backoff_failed(b, mono_ns(), 2000000, 1000000000);
}

static void direct_ep_failed(void *ep)
{
	struct lp_conn *c = ep;
	failed(c->peer);
}

/* A TCP connection that `tid` opened to us and greeted with its hello,
 * not yet carrying our messages back, or NULL. */
static struct lp_conn *accepted_from(int tid)
{
	for (struct dconn *d = dconns; d; d = d->next) {
		struct lp_conn *c = d->c;
		if (!c->dead && c->what == what_tcp && c->peer == tid &&
		    c->on_close == in_closed)
			return c;
	}
	return NULL;
}

static void *direct_reach(int tid)
{
	if (!forced && lp.route != PvmRouteDirect)
		return NULL;
	/* Between hosts our messages go back on the peer's connection when
	 * it has one: TCP then acknowledges each message with the reply
	 * that follows it.  With a connection per direction every message
	 * was acknowledged on its own, and at small sizes the receiver sent
	 * that bare ACK in its read, before it could answer: 2 us more a
	 * hop of an 8-byte ping-pong between two namespace hosts. */
	struct lp_conn *in = lp_tcp_wanted(tid) ? accepted_from(tid) : NULL;
	if (in) {
		in->on_close = out_closed; /* now one of our routes too */
		return in;
	}
	struct lp_backoff *b = idhash_get(&backoffs, tid);
	if (b && lp_backoff_waiting(b, mono_ns()))
		return NULL;
	int tcp = lp_tcp_wanted(tid);
	int fd = tcp ? lp_tcp_connect(tid) : unix_connect(tid);
	if (fd < 0) {
		failed(tid);
		return NULL;
	}
	if (b)
		free(idhash_del(&backoffs, tid));
	struct lp_conn *c = lp_conn_new(fd, tcp ? what_tcp : "direct",
					direct_msg, out_closed, NULL);
	if (!c)
		return NULL;
	c->peer = tid;
	if (remember(c) < 0) {
		c->on_close = NULL;
		lp_conn_close(c);
		return NULL;
	}
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, WIRE_VERSION);
	wire_wr_i32(&w, lp.mytid);
	struct lp_seg seg = {.p = w.buf, .len = w.len};
	struct lp_omsg m = {
		.h = {.dst = tid, .src = lp.mytid, .tag = WIRE_TM_CONNECT},
		.seg = &seg,
		.nseg = 1,
		.total = w.len,
		.frag = WIRE_MAX_CTRL,
		.ctrl = 1,
	};
	int r = w.err ? PvmNoMem : lp_conn_send(c, &m);
	wire_wr_free(&w);
	if (r < 0) {
		c->on_close = NULL;
		forget(c);
		lp_conn_close(c);
		return NULL;
	}
	return c;
}

static void direct_fini(void)
{
	for (size_t i = 0; i < backoffs.cap; i++)
		free(idhash_at(&backoffs, i));
	idhash_fini(&backoffs);
	forced = 0;
	lp_tcp_fini();
	while (dconns) {
		struct dconn *d = dconns;
		dconns = d->next;
		d->c->on_close = NULL;
		lp_conn_close(d->c);
		free(d);
	}
	if (lfd >= 0) {
		lp_poll_del(&lpl);
		close(lfd);
		lfd = -1;
		if (getpid() == lpid)
			unlink(lpath);
		lpath[0] = 0;
	}
}

/* The machine got another host after we enrolled: tasks there may now
 * route to us directly too. */
static int direct_net_up(void)
{
	if (lp_tcp_listening())
		return 0;
	int port = lp_tcp_listen_open();
	if (port)
		lp_tcp_start();
	return port;
}

/*
 * The frame size on a task-to-task socket.  The fragment size
 * (PvmFragSize, 4080 by default) suits the route through the pvmds,
 * which forward a frame only once it is whole.  A direct socket has no
 * hop, and there the frame size still moves the bandwidth: between two
 * hosts (bench/RESULTS.md, 2026-11-28 14:30) 16 KiB frames were best for
 * messages up to 256 KiB (64 KiB: 2670 MB/s against 2460 in 4080-byte
 * frames and 2250 in one frame), 256 KiB frames from 1 MiB (1 MiB:
 * 2600-3180 MB/s against 1610-1900 in 4080-byte frames, 1650-1970 in
 * 1 MiB frames).  A larger PvmFragSize is kept.
 */
#define DIRECT_FRAG_SMALL (16u << 10)
#define DIRECT_FRAG_LARGE (256u << 10)
#define DIRECT_LARGE_MIN  (512u << 10) /* message size that takes the latter */

static int direct_send(void *ep, const struct lp_omsg *m)
{
	uint32_t frag = m->total >= DIRECT_LARGE_MIN ? DIRECT_FRAG_LARGE
						     : DIRECT_FRAG_SMALL;
	if (m->ctrl || m->total <= m->frag || m->frag >= frag)
		return lp_conn_ep_send(ep, m); /* (one frame, or large ones) */
	struct lp_omsg re = *m;
	re.frag = frag;
	return lp_conn_ep_send(ep, &re);
}

const struct lp_tran lp_tran_direct = {
	.name = "direct",
	.exclusivity = 10,
	.listen = lp_tcp_listen_open,
	.net_up = direct_net_up,
	.init = direct_init,
	.fini = direct_fini,
	.reach = direct_reach,
	.send = direct_send,
	.pending = lp_conn_ep_pending,
	.ep_failed = direct_ep_failed,
};
