/*
 * direct_tcp.c - the TCP side of direct routes: tasks of different hosts
 * (docs/protocol.md "Direct routes", docs/hosts.md "Authentication").
 *
 * A task that accepts direct routes also listens on a TCP port (the
 * kernel's choice) from enrollment on and tells its pvmd the port in
 * TM_CONNECT, on the address its pvmd listens on for other hosts: none
 * while the machine has one host (then from the pvmd's TM_NETUP on, the
 * port told in TM_TCPPORT).  A task routing
 * directly to a task of another host asks its pvmd for the peer's "ip:port"
 * (TM_ROUTEADDR), connects, and both prove they know the virtual machine's
 * secret (the file `secret` in the VM directory) with the pvmds' DM_HELLO /
 * DM_AUTH exchange, labels "task-acceptor" and "task-connector"
 * (proto/handshake.h, which this file feeds with frames).  Then the socket is
 * handed to direct.c and carries the hello and the messages exactly as a Unix
 * direct connection does.
 *
 * Nothing here blocks for long: the acceptor runs the handshake as a
 * small state machine in lp_progress(); the connector waits at most
 * START_WAIT_MS for it when it starts one, and otherwise finishes it in
 * the background while messages go through the pvmd (sequence numbers
 * keep the order when the route switches).  Handshake frames are small
 * control frames, read exactly (never past the frame), so that what
 * follows is left to the ordinary connection reader.
 */
#define _GNU_SOURCE
#include "tran/direct/direct.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "lpvm.h"
#include "proto/auth.h"
#include "proto/handshake.h"
#include "proto/vmdir.h"

#define HS_TIMEOUT_MS  10000 /* a handshake not done by then is dropped */
#define HS_MAX_PENDING 16    /* accepted connections still in handshake */
#define START_WAIT_MS  100   /* the connector's wait when it starts one */

static uint8_t secret[AUTH_SECRET_LEN];
static int have_secret;
static int force_tcp; /* PVM_DIRECT_TCP=1: TCP also within one host */
static int lfd = -1;
static struct lp_pollable lpl;

__attribute__((format(printf, 1, 2))) static void debug(const char *fmt, ...)
{
	if (lp.debugmask) {
		char what[512];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(what, sizeof what, fmt, ap);
		va_end(ap);
		lp_stderr("libpvm [t%x]: %s\n", (unsigned)lp.mytid, what);
	}
}

int lp_tcp_wanted(int tid)
{
	return force_tcp || ((tid ^ lp.mytid) & WIRE_TID_HOST_MASK) != 0;
}

int lp_tcp_tid_ok(int tid)
{
	return tid > 0 && !(tid & (WIRE_TID_MCAST | (int)WIRE_TID_DAEMON)) &&
	       (tid & WIRE_TID_TASK_MASK) != 0 &&
	       (tid & WIRE_TID_HOST_MASK) != 0 && tid != lp.mytid &&
	       lp_tcp_wanted(tid);
}

/* ---- handshake frames ---- */

struct rx {
	int fd;
	size_t got;
	struct wire_hdr h;
	uint8_t buf[WIRE_HDR_SIZE + HS_PAYLOAD_MAX];
};

/* Reads one control frame, never past its end.  Returns 1 when it is
 * complete in s->buf (payload at WIRE_HDR_SIZE, s->h.len bytes), 0 when
 * more must come, -1 on EOF, error or a frame that is no handshake. */
static int rx_read(struct rx *s)
{
	for (;;) {
		size_t need = WIRE_HDR_SIZE +
			      (s->got >= WIRE_HDR_SIZE ? s->h.len : 0);
		if (s->got == need && s->got >= WIRE_HDR_SIZE)
			return 1;
		ssize_t n = recv(s->fd, s->buf + s->got, need - s->got,
				 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		size_t before = s->got;
		s->got += (size_t)n;
		if (before < WIRE_HDR_SIZE && s->got == WIRE_HDR_SIZE &&
		    (wire_hdr_decode(s->buf, &s->h, HS_PAYLOAD_MAX) < 0 ||
		     !(s->h.flags & WIRE_F_CTRL)))
			return -1;
	}
}

/* Writes one handshake frame whole (a fresh socket has room for it). */
static int send_hs(int fd, int dst, const struct hs_msg *m)
{
	uint8_t frame[WIRE_HDR_SIZE + HS_PAYLOAD_MAX];
	struct wire_hdr h = {
		.len = m->len,
		.flags = WIRE_F_FIRST | WIRE_F_LAST | m->flags,
		.dst = dst,
		.src = lp.mytid,
		.tag = m->tag,
		.total = m->len,
	};
	wire_hdr_encode(&h, frame);
	memcpy(frame + WIRE_HDR_SIZE, m->payload, m->len);
	size_t len = WIRE_HDR_SIZE + m->len;
	ssize_t n;
	do
		n = send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	return n == (ssize_t)len ? 0 : -1;
}

/* The acceptor: a DM_HELLO of our version has named the peer's tid. */
static int in_key(struct hs *hs, const struct wire_hdr *h)
{
	(void)h;
	if (!lp_tcp_tid_ok(hs->peer)) {
		hs->why = "bad tid";
		return HS_DROP;
	}
	return HS_GO;
}

/* A handshake between tasks, keyed with the VM secret; the tids in the
 * headers must be the ones the payloads name. */
static void handshake_init(struct hs *hs, enum hs_role role, int peer)
{
	struct hs_conf conf = {.role = role,
			       .who = "task",
			       .self = lp.mytid,
			       .peer = peer,
			       .tids = 1,
			       .key = role == HS_ACCEPTOR ? in_key : NULL};
	hs_init(hs, &conf);
	hs_use_secret(hs, secret);
}

static void tune(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* ---- accepting side ---- */

struct tcp_in {
	struct tcp_in *next;
	struct rx s;
	struct hs hs; /* hs.peer: the tid its DM_HELLO named */
	int64_t deadline;
	struct lp_pollable pl;
};
static struct tcp_in *ins;
static int nins;

static void in_drop(struct tcp_in *t, const char *why)
{
	for (struct tcp_in **pp = &ins; *pp; pp = &(*pp)->next)
		if (*pp == t) {
			*pp = t->next;
			break;
		}
	nins--;
	lp_poll_del(&t->pl);
	if (why) {
		close(t->s.fd);
		debug("TCP direct connection (t%x) refused: %s", t->hs.peer,
		      why);
	}
	hs_wipe(&t->hs);
	free(t);
}

static const char *in_frame(struct tcp_in *t)
{
	struct hs_msg m;
	enum hs_result r =
		hs_step(&t->hs, &t->s.h, t->s.buf + WIRE_HDR_SIZE, &m);
	/* a refusal (PvmBadVersion) is sent too, before the close */
	if (m.tag && send_hs(t->s.fd, t->hs.peer, &m) < 0 && r != HS_FAILED)
		return "write failed";
	if (r == HS_FAILED)
		return t->hs.why;
	t->s.got = 0;
	if (r == HS_SEND)
		return NULL;
	/* authenticated: the hello and messages follow (direct.c) */
	int fd = t->s.fd, peer = t->hs.peer;
	in_drop(t, NULL);
	debug("TCP direct connection from t%x accepted", peer);
	lp_direct_adopt(fd, peer);
	return NULL;
}

static short in_events(struct lp_pollable *p)
{
	(void)p;
	return POLLIN;
}

static void in_ready(struct lp_pollable *p, short revents)
{
	struct tcp_in *t = p->arg;
	(void)revents;
	int r = rx_read(&t->s);
	if (r < 0) {
		in_drop(t, "closed or malformed frame");
		return;
	}
	if (r == 0)
		return;
	const char *why = in_frame(t);
	if (why)
		in_drop(t, why);
}

/* Drops handshakes past their time, and the oldest when too many wait
 * (a peer that connects and says nothing costs one fd for a while). */
static void in_expire(int room)
{
	int64_t now = mono_ms();
	struct tcp_in *t = ins, *next;
	for (; t; t = next) {
		next = t->next;
		if (now >= t->deadline)
			in_drop(t, "timeout");
	}
	while (room && nins >= HS_MAX_PENDING) {
		struct tcp_in *old = ins;
		while (old->next)
			old = old->next; /* new ones are added in front */
		in_drop(old, "too many handshakes");
	}
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
	in_expire(0);
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		in_expire(1);
		struct tcp_in *t = calloc(1, sizeof *t);
		if (!t) {
			close(fd);
			continue;
		}
		tune(fd);
		t->s.fd = fd;
		handshake_init(&t->hs, HS_ACCEPTOR, 0);
		t->deadline = mono_ms() + HS_TIMEOUT_MS;
		t->pl.fd = fd;
		t->pl.events = in_events;
		t->pl.ready = in_ready;
		t->pl.arg = t;
		t->next = ins;
		ins = t;
		nins++;
		lp_poll_add(&t->pl);
	}
}

/* The address to listen on: the one the pvmd listens on for other hosts
 * (VMDIR_NETADDR); with none (one host), the loopback address if
 * PVM_DIRECT_TCP=1 asks for TCP between tasks of this host, else none:
 * a task listens on the network only when its machine does. */
static int listen_addr(char *ip, size_t len)
{
	char path[600];
	if (vmdir_file(path, sizeof path, VMDIR_NETADDR) == 0) {
		FILE *f = fopen(path, "re");
		if (f) {
			int ok = fgets(ip, (int)len, f) != NULL;
			fclose(f);
			ip[strcspn(ip, "\n")] = 0;
			if (ok && *ip)
				return 0;
		}
	}
	if (!force_tcp)
		return -1;
	snprintf(ip, len, "127.0.0.1");
	return 0;
}

static int listen_on(const char *ip)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof ss);
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
	if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		len = sizeof *a4;
	} else if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		len = sizeof *a6;
	} else {
		return -1;
	}
	int fd = socket(ss.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&ss, len) < 0 ||
	    listen(fd, SOMAXCONN) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

int lp_tcp_listen_open(void)
{
	char path[600];
	const char *e = getenv("PVM_DIRECT_TCP");
	force_tcp = e && !strcmp(e, "1");
	if (lfd >= 0)
		lp_tcp_fini();
	have_secret = vmdir_file(path, sizeof path, VMDIR_SECRET) == 0 &&
		      auth_secret_load(path, secret) == 0;
	if (!have_secret) {
		debug("no VM secret (%s): no direct routes over TCP", path);
		return 0;
	}
	if (lp.route == PvmDontRoute)
		return 0;
	char ip[64];
	if (listen_addr(ip, sizeof ip) < 0) {
		debug("one host: no TCP listener for direct routes");
		return 0;
	}
	int fd = listen_on(ip);
	if (fd < 0) {
		debug("cannot listen on %s for direct routes", ip);
		return 0;
	}
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0) {
		close(fd);
		return 0;
	}
	lfd = fd;
	return ntohs(ss.ss_family == AF_INET6
			     ? ((struct sockaddr_in6 *)&ss)->sin6_port
			     : ((struct sockaddr_in *)&ss)->sin_port);
}

int lp_tcp_listening(void)
{
	return lfd >= 0;
}

void lp_tcp_start(void)
{
	if (lfd < 0 || lpl.registered)
		return;
	lpl.fd = lfd;
	lpl.events = listen_events;
	lpl.ready = listen_ready;
	lp_poll_add(&lpl);
}

/* ---- connecting side ---- */

enum { OUT_CONNECTING, OUT_HANDSHAKE, OUT_DONE, OUT_FAILED };

struct tcp_out {
	struct tcp_out *next;
	int tid;
	int state;
	int64_t deadline;
	struct rx s;
	struct hs hs;
	struct lp_pollable pl;
};
static struct tcp_out *outs;

static void out_free(struct tcp_out *o, int closefd)
{
	for (struct tcp_out **pp = &outs; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	lp_poll_del(&o->pl);
	if (closefd && o->s.fd >= 0)
		close(o->s.fd);
	hs_wipe(&o->hs);
	free(o);
}

/* One step of the connector's handshake, as far as it goes without
 * waiting.  Sets o->state. */
static void out_step(struct tcp_out *o)
{
	struct hs_msg m;
	int e;

	if (o->state == OUT_CONNECTING) {
		struct pollfd pf = {.fd = o->s.fd, .events = POLLOUT};
		if (poll(&pf, 1, 0) <= 0)
			return;
		socklen_t len = sizeof e;
		if (getsockopt(o->s.fd, SOL_SOCKET, SO_ERROR, &e, &len) < 0 ||
		    e != 0 || hs_start(&o->hs, &m) != HS_SEND ||
		    send_hs(o->s.fd, o->tid, &m) < 0) {
			o->state = OUT_FAILED;
			return;
		}
		o->state = OUT_HANDSHAKE;
		return;
	}
	if (o->state != OUT_HANDSHAKE)
		return;
	e = rx_read(&o->s);
	if (e <= 0) {
		if (e < 0)
			o->state = OUT_FAILED;
		return;
	}
	enum hs_result r =
		hs_step(&o->hs, &o->s.h, o->s.buf + WIRE_HDR_SIZE, &m);
	if (r == HS_FAILED || (m.tag && send_hs(o->s.fd, o->tid, &m) < 0)) {
		o->state = OUT_FAILED;
		return;
	}
	o->s.got = 0;
	o->state = r == HS_DONE ? OUT_DONE : OUT_HANDSHAKE;
}

static short out_events(struct lp_pollable *p)
{
	struct tcp_out *o = p->arg;
	return o->state == OUT_CONNECTING ? POLLOUT : POLLIN;
}

static void out_ready(struct lp_pollable *p, short revents)
{
	struct tcp_out *o = p->arg;
	(void)revents;
	out_step(o);
	if (o->state == OUT_FAILED) {
		debug("TCP direct route to t%x failed", o->tid);
		out_free(o, 1);
	} else if (o->state == OUT_DONE) {
		lp_poll_del(&o->pl); /* waits for the next send to take it */
	}
}

/* "ip:port" or "[ip6]:port" to a socket address. */
static int parse_addr(const char *s, struct sockaddr_storage *ss,
		      socklen_t *len)
{
	char host[80];
	const char *colon = strrchr(s, ':');
	if (!colon || colon == s || (size_t)(colon - s) >= sizeof host)
		return -1;
	const char *h = s;
	size_t hl = (size_t)(colon - s);
	if (h[0] == '[' && hl >= 2 && h[hl - 1] == ']') {
		h++;
		hl -= 2;
	}
	memcpy(host, h, hl);
	host[hl] = 0;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV};
	struct addrinfo *ai = NULL;
	if (getaddrinfo(host, colon + 1, &hints, &ai) != 0 || !ai)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

/* Asks the pvmd where `tid` listens and starts connecting there. */
static struct tcp_out *out_start(int tid)
{
	struct wire_wr w;
	uint8_t *rep = NULL;
	size_t replen = 0;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	int e = lp_ctl_call(WIRE_TM_ROUTEADDR, &w, &rep, &replen);
	wire_wr_free(&w);
	if (e < 0)
		return NULL;
	struct wire_rd r;
	wire_rd_init(&r, rep, replen);
	int status = wire_rd_i32(&r);
	char *addr = status == 0 ? wire_rd_strdup(&r) : NULL;
	free(rep);
	struct sockaddr_storage ss;
	socklen_t len;
	if (!addr || parse_addr(addr, &ss, &len) < 0) {
		free(addr);
		return NULL;
	}
	int fd = socket(ss.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct tcp_out *o = fd >= 0 ? calloc(1, sizeof *o) : NULL;
	if (!o || (connect(fd, (struct sockaddr *)&ss, len) < 0 &&
		   errno != EINPROGRESS)) {
		debug("no TCP direct route to t%x (%s)", tid, addr);
		free(addr);
		free(o);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	debug("connecting to t%x at %s", tid, addr);
	free(addr);
	tune(fd);
	o->tid = tid;
	o->state = OUT_CONNECTING;
	handshake_init(&o->hs, HS_CONNECTOR, tid);
	o->deadline = mono_ms() + HS_TIMEOUT_MS;
	o->s.fd = fd;
	o->pl.fd = fd;
	o->pl.events = out_events;
	o->pl.ready = out_ready;
	o->pl.arg = o;
	o->next = outs;
	outs = o;
	lp_poll_add(&o->pl);
	return o;
}

int lp_tcp_connect(int tid)
{
	struct tcp_out *o;
	for (o = outs; o && o->tid != tid; o = o->next)
		;
	if (!o) {
		static int told;
		if (!have_secret && !told++)
			debug("no VM secret: direct routes over TCP (t%x) go "
			      "through the pvmd",
			      tid);
		if (!have_secret || lp_ctl_busy() || !(o = out_start(tid)))
			return -1;
		/* a peer in the library answers at once: wait a little so
		 * that the first message already goes direct */
		int64_t until = mono_ms() + START_WAIT_MS;
		for (;;) {
			out_step(o);
			if (o->state == OUT_DONE || o->state == OUT_FAILED)
				break;
			int64_t left = until - mono_ms();
			if (left <= 0)
				break;
			struct pollfd pf = {.fd = o->s.fd,
					    .events = out_events(&o->pl)};
			poll(&pf, 1, (int)left);
		}
	} else {
		out_step(o);
	}
	if (o->state == OUT_DONE) {
		int fd = o->s.fd;
		out_free(o, 0);
		debug("direct route to t%x over TCP", tid);
		return fd;
	}
	if (o->state == OUT_FAILED || mono_ms() >= o->deadline) {
		debug("TCP direct route to t%x failed", tid);
		out_free(o, 1);
	}
	return -1;
}

void lp_tcp_fini(void)
{
	while (ins) {
		close(ins->s.fd);
		in_drop(ins, NULL);
	}
	while (outs)
		out_free(outs, 1);
	if (lfd >= 0) {
		lp_poll_del(&lpl);
		close(lfd);
		lfd = -1;
	}
	have_secret = 0;
	memset(secret, 0, sizeof secret);
}
