/*
 * link.c - the TCP links between pvmds (host.h, docs/hosts.md): the
 * listener, opening a link, the secret handshake that must come first
 * on it, and the heartbeats that find a silent one.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/handshake.h"
#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/log.h"
#include "pvmd/signals.h"
#include "pvmd/task.h"

/* Connections not authenticated yet that we keep at once: a peer that
 * opens many and says nothing costs at most this many descriptors (the
 * oldest goes first; a real pvmd authenticates within milliseconds). */
#define PREAUTH_MAX 32

static void handshake_init(struct pvmd *d, struct conn *c);
static int send_hs(struct pvmd *d, struct conn *c, const struct hs_msg *m);

/* ---- the listener and opening links ---- */

static void tcp_accept_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct pvmd *d = io->data;
	(void)l;
	(void)ev;
	for (int i = 0; i < 16; i++) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof sa;
		int fd = accept4(d->hosts->tcp_fd, (struct sockaddr *)&sa, &sl,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE) {
				/* the socket stays readable: stop watching it
				 * for a while rather than spin */
				plog(PL_ERR,
				     "accept (tcp): %s: not accepting for a while",
				     strerror(errno));
				loop_io_set(d->loop, &d->hosts->tcp_io, 0);
				d->hosts->tcp_paused = 1;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK &&
				   errno != EINTR) {
				plog(PL_ERR, "accept (tcp): %s",
				     strerror(errno));
			}
			return;
		}
		int one = 1;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		int npre = 0;
		struct conn *oldest = NULL; /* d->conns: newest first */
		for (struct conn *o = d->conns; o; o = o->next)
			if (o->kind == CONN_LINK && !o->outgoing &&
			    o->state == C_HANDSHAKE) {
				npre++;
				oldest = o;
			}
		if (npre >= PREAUTH_MAX) {
			/* counted against the address it came from: a line
			 * per drop would let a peer that only connects
			 * flood the log */
			plog_src(oldest->logsrc, PL_ERR,
				 "%s: dropped, the oldest of %d link "
				 "connections not authenticated",
				 conn_peer(oldest), npre);
			conn_close(d, oldest,
				   "too many connections not authenticated");
		}
		if (link_accepted(d, fd, sa.sin_addr.s_addr))
			plog(PL_DEBUG, "link connection from %s:%d",
			     inet_ntoa(sa.sin_addr), ntohs(sa.sin_port));
	}
}

/* "ip:port" into a sockaddr. */
static int parse_addr(const char *addr, struct sockaddr_in *sa)
{
	char ip[64];
	const char *colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof ip)
		return -1;
	memcpy(ip, addr, (size_t)(colon - addr));
	ip[colon - addr] = 0;
	char *end;
	long port = strtol(colon + 1, &end, 10);
	if (*end || port < 1 || port > 65535)
		return -1;
	memset(sa, 0, sizeof *sa);
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, ip, &sa->sin_addr) == 1 ? 0 : -1;
}

int host_connect(struct pvmd *d, struct host *h)
{
	struct sockaddr_in sa;
	if (parse_addr(h->addr, &sa) < 0) {
		plog(PL_ERR, "host %s: bad address '%s'", h->name, h->addr);
		return -1;
	}
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		plog(PL_ERR, "socket: %s", strerror(errno));
		return -1;
	}
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	/* from the address our table entry names, which the other end
	 * checks (admit); a pvmd not listening yet (the master adding its
	 * first host) connects from wherever the kernel chooses */
	struct sockaddr_in me = {.sin_family = AF_INET};
	if (link_listening(d) && inet_pton(AF_INET, d->ip, &me.sin_addr) == 1 &&
	    bind(fd, (struct sockaddr *)&me, sizeof me) < 0)
		plog(PL_ERR, "host %s: cannot connect from %s: %s", h->name,
		     d->ip, strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 &&
	    errno != EINPROGRESS) {
		plog(PL_ERR, "host %s: connect %s: %s", h->name, h->addr,
		     strerror(errno));
		close(fd);
		return -1;
	}
	struct conn *c = conn_new(d, fd, 0, CONN_LINK);
	if (!c)
		return -1;
	c->outgoing = 1;
	c->peer_no = h->no;
	h->connecting = c;
	handshake_init(d, c);
	struct hs_msg m;
	if (hs_start(&c->hs, &m) != HS_SEND) {
		conn_close(d, c, c->hs.why);
		return -1;
	}
	/* written once the connection is made (LOOP_OUT) */
	if (send_hs(d, c, &m) < 0)
		conn_close(d, c, "out of memory");
	plog(PL_DEBUG, "host %s: connecting to %s", h->name, h->addr);
	return 0;
}

/* ---- the handshake (docs/hosts.md, "Authentication"; proto/handshake.h) ----
 */

/* The acceptor: the connector has named its host number (hs->peer).  A
 * pvmd started through a hoster has no secret yet: it takes only the
 * master, keyed with the ticket (docs/hosts.md, "Registered hoster"). */
static int accept_key(struct hs *hs, const struct wire_hdr *h)
{
	const struct pvmd *d = hs->conf.arg;
	(void)h;
	if (d->hosts->have_secret) {
		hs_use_secret(hs, d->hosts->secret);
		return HS_GO;
	}
	if (!d->hosts->have_ticket || hs->peer != 1) {
		hs->why = "no secret yet: only the master, with the ticket";
		return PvmSysErr;
	}
	hs_use_ticket(hs, d->hosts->ticket, NULL);
	return HS_GO;
}

/* The connector: a host that a registered hoster is starting is keyed
 * with its ticket, and its DM_AUTH hands over the secret. */
static int connect_key(struct hs *hs, const struct wire_hdr *h)
{
	const struct pvmd *d = hs->conf.arg;
	struct host *th = host_get(d, hs->peer);
	(void)h;
	if (th && th->state == HOST_STARTING && th->have_ticket)
		hs_use_ticket(hs, th->ticket, d->hosts->secret);
	else
		hs_use_secret(hs, d->hosts->secret);
	return HS_GO;
}

static void handshake_init(struct pvmd *d, struct conn *c)
{
	struct hs_conf conf = {
		.role = c->outgoing ? HS_CONNECTOR : HS_ACCEPTOR,
		.who = "pvmd",
		.self = host_no_of_tid(d->hosttid),
		.peer = c->peer_no,
		.peer_min = 1,
		.peer_max = HOST_MAX,
		.key = c->outgoing ? connect_key : accept_key,
		.arg = d,
	};
	hs_init(&c->hs, &conf);
}

struct conn *link_accepted(struct pvmd *d, int fd, uint32_t ip)
{
	struct conn *c = conn_new(d, fd, 0, CONN_LINK);
	if (c) {
		/* its lines count against its address (log.h) */
		c->logsrc = LOG_SRC_IP4(ip);
		handshake_init(d, c);
	}
	return c;
}

/* Sends a handshake frame; -1 when out of memory. */
static int send_hs(struct pvmd *d, struct conn *c, const struct hs_msg *m)
{
	struct wire_hdr hh = {.flags = m->flags,
			      .dst = wire_host_tid(c->peer_no),
			      .src = d->hosttid,
			      .tag = m->tag};
	struct fbuf *f = fbuf_frame(&hh, m->payload, m->len);
	if (!f)
		return -1;
	conn_send(d, c, f);
	fbuf_put(f);
	return 0;
}

/* The link is authenticated. */
static void link_up(struct pvmd *d, struct conn *c)
{
	struct host *h = host_get(d, c->peer_no);
	if (!h && !d->hosts->master) {
		/* a new slave's first link (the master), or a host that the
		 * master's newest table, still on its way, brings: its entry
		 * comes with the table */
		h = host_new(d, c->peer_no);
		if (h) {
			snprintf(h->name, sizeof h->name, "(host %d)",
				 c->peer_no);
			h->state = HOST_UP;
		}
	}
	if (!h) {
		conn_close(d, c, "host not in the table");
		return;
	}
	c->state = C_READY;
	c->host = h;
	if (h->connecting == c)
		h->connecting = NULL;
	plog(PL_INFO, "link to host %s (%d) up (%s)", h->name, h->no,
	     c->outgoing ? "opened here" : "opened there");
	if (!h->link) {
		h->link = c;
		for (size_t i = 0; i < h->nq; i++) {
			conn_send(d, c, h->q[i]);
			fbuf_put(h->q[i]);
		}
		h->nq = 0;
	}
	if (c->outgoing && h->state == HOST_STARTING)
		hoster_link_up(d, h);
}

/* Whether an accepted link comes from the IPv4 address of table entry
 * "ip:port" (every pvmd opens its links from the address its entry
 * names: host_connect); an entry without an address yet matches. */
static int addr_is_peer(const char *addr, const struct conn *c)
{
	struct sockaddr_in sa;
	if (!*addr)
		return 1;
	if (parse_addr(addr, &sa) < 0)
		return 0;
	return (uint32_t)c->logsrc == (uint32_t)sa.sin_addr.s_addr;
}

/* The acceptor has checked the connector's proof: may the link come up?
 * Nobody may claim our own host number; a link must claim a host number
 * of our table and come from that host's address (a slave's first link,
 * the master's, brings the table).  On a link keyed with
 * our start ticket, DM_AUTH brought the secret: it must be the one the
 * master committed to on our command line (someone who only read the
 * ticket there cannot hand us one of their own); then it is ours and the
 * ticket is burnt (one use). */
static int admit(struct pvmd *d, struct conn *c, const char **why)
{
	if (c->peer_no == host_no_of_tid(d->hosttid)) {
		/* even with the secret: no peer speaks as this host */
		plog_src(c->logsrc, PL_ERR,
			 "refused a link from %s claiming host %d, this "
			 "host's own number",
			 conn_peer(c), c->peer_no);
		*why = "a link claiming this host's number";
		return -1;
	}
	if (!c->hs.ticket) {
		struct host *h = host_get(d, c->peer_no);
		/* a slave learns the table from the master's first link */
		int first = !d->hosts->master && c->peer_no == 1 && !h;
		if (!h && !first) {
			plog_src(c->logsrc, PL_ERR,
				 "refused a link from %s claiming host %d, "
				 "which is not in the table",
				 conn_peer(c), c->peer_no);
			*why = "host number not in the table";
			return -1;
		}
		if (h && !addr_is_peer(h->addr, c)) {
			plog_src(c->logsrc, PL_ERR,
				 "refused a link from %s claiming host %d, "
				 "whose address is %s",
				 conn_peer(c), c->peer_no, h->addr);
			*why = "a link claiming another host's number";
			return -1;
		}
		return 0;
	}
	/* another link may have used it since this one's DM_HELLO */
	if (!d->hosts->have_ticket || d->hosts->have_secret ||
	    c->peer_no != 1) {
		*why = "the ticket was used already";
		return -1;
	}
	uint8_t mac[AUTH_MAC_LEN];
	auth_mac(c->hs.secret, "pvmd-secret-commit", d->hosts->ticket,
		 d->hosts->ticket, mac);
	if (!auth_mac_equal(mac, d->hosts->commit)) {
		hs_wipe(&c->hs);
		plog(PL_ERR,
		     "refused a link claiming host 1: its secret is not the one committed to");
		*why = "wrong secret";
		return -1;
	}
	memcpy(d->hosts->secret, c->hs.secret, AUTH_SECRET_LEN);
	hs_wipe(&c->hs);
	explicit_bzero(d->hosts->ticket, sizeof d->hosts->ticket);
	d->hosts->have_ticket = 0;
	d->hosts->have_secret = 1;
	plog(PL_INFO, "the master proved the ticket: the VM secret is here");
	/* for our tasks' direct routes (docs/protocol.md) */
	if (host_save_secret(d) < 0)
		plog(PL_ERR, "cannot write the secret: %s", strerror(errno));
	return 0;
}

int link_handshake(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   const uint8_t *payload, const char **why)
{
	struct hs_msg m;
	enum hs_result r = hs_step(&c->hs, h, payload, &m);
	c->peer_no = c->hs.peer; /* the acceptor learns it from DM_HELLO */
	if (r == HS_FAILED) {
		const char *key = c->hs.ticket ? "ticket" : "secret";
		if (c->hs.fail == HS_E_MAC && c->outgoing)
			plog(PL_ERR,
			     "the pvmd at host %d does not know the %s: link refused",
			     c->peer_no, key);
		else if (c->hs.fail == HS_E_MAC)
			plog_src(c->logsrc, PL_ERR,
				 "refused a link from %s claiming host %d: it "
				 "does not know the %s",
				 conn_peer(c), c->peer_no, key);
		if (m.tag) /* the refusal, before the connection closes */
			send_hs(d, c, &m);
		*why = c->hs.why;
		return -1;
	}
	if (r == HS_DONE && !c->outgoing && admit(d, c, why) < 0)
		return -1;
	if (m.tag && send_hs(d, c, &m) < 0) {
		*why = "out of memory";
		return -1;
	}
	if (r == HS_DONE)
		link_up(d, c);
	return 0;
}

/* ---- heartbeats ---- */

static void ping_cb(struct loop *l, struct loop_timer *t)
{
	struct pvmd *d = t->data;
	uint64_t now = loop_now_ms();
	if (d->hosts->have_ticket && !d->hosts->have_secret &&
	    now > d->hosts->ticket_deadline) {
		/* started through a hoster and the master never came: the
		 * ticket is dead, and so are we */
		explicit_bzero(d->hosts->ticket, sizeof d->hosts->ticket);
		d->hosts->have_ticket = 0;
		pvmd_halt(d, "the master did not come with the ticket in time");
		return;
	}
	if (d->hosts->master_wait_ms && !d->hosts->nup &&
	    now > d->hosts->master_deadline) {
		/* the master gave up on our start (it timed out or was
		 * cancelled) before it came: no one will */
		pvmd_halt(d, "the master did not come in time");
		return;
	}
	if (d->hosts->tcp_paused && !d->halting) {
		d->hosts->tcp_paused = 0;
		loop_io_set(l, &d->hosts->tcp_io, LOOP_IN);
	}
	for (struct conn *c = d->conns, *next; c; c = next) {
		next = c->next;
		if (c->kind != CONN_LINK || c->state != C_READY)
			continue;
		if (now - c->last_rx > d->hosts->timeout_ms) {
			char why[80];
			snprintf(why, sizeof why, "no sign of life for %llu ms",
				 (unsigned long long)(now - c->last_rx));
			conn_close(d, c, why);
			continue;
		}
		if (now - c->last_tx >= HOST_PING_MS) {
			struct wire_hdr hh = {.flags = WIRE_F_CTRL,
					      .dst = wire_host_tid(c->host->no),
					      .src = d->hosttid,
					      .tag = WIRE_DM_PING};
			struct fbuf *f = fbuf_frame(&hh, NULL, 0);
			if (f) {
				conn_send(d, c, f);
				fbuf_put(f);
			}
		}
	}
	/* a silent link is noticed at most a tenth of the timeout late */
	unsigned step = d->hosts->timeout_ms / 10;
	loop_timer_start(l, t,
			 step < 50	       ? 50
			 : step > HOST_PING_MS ? HOST_PING_MS
					       : step);
}

int link_listen(struct pvmd *d)
{
	if (d->hosts->tcp_fd >= 0)
		return 0;
	/* the address our table entry names (an IPv4 one: links are IPv4);
	 * with none yet, the loopback address: nothing else can reach us */
	struct sockaddr_in sa = {.sin_family = AF_INET};
	const char *ip = *d->ip ? d->ip : "127.0.0.1";
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		plog(PL_ERR,
		     "%s is no IPv4 address: listening on every address for "
		     "other hosts",
		     ip);
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	}
	socklen_t sl = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 ||
	    listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0 ||
	    loop_io_start(d->loop, &d->hosts->tcp_io, fd, LOOP_IN,
			  tcp_accept_cb, d) < 0) {
		plog(PL_ERR, "cannot listen for other hosts on %s: %s", ip,
		     strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	d->hosts->tcp_fd = fd;
	d->hosts->port = ntohs(sa.sin_port);
	host_set_addr(d);
	/* our tasks' direct-route listeners take the same address */
	char path[600], line[80];
	snprintf(line, sizeof line, "%s\n", ip);
	if (vmdir_in(path, sizeof path, d->dir, VMDIR_NETADDR) == 0 &&
	    vmdir_write_file(path, line) < 0)
		plog(PL_ERR, "cannot write %s: %s", path, strerror(errno));
	plog(PL_INFO, "listening for other hosts on %s:%d", ip, d->hosts->port);
	/* tasks enrolled before may listen now too (TM_NETUP, unasked) */
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, ip);
	struct wire_hdr ev = {.tag = WIRE_TM_NETUP, .wid = 0};
	for (size_t i = 0; i < d->tasks.cap; i++) {
		struct task *t = idhash_at(&d->tasks, i);
		if (t && t->conn)
			conn_reply(d, t->conn, &ev, &w);
	}
	wire_wr_free(&w);
	return 0;
}

int link_listening(const struct pvmd *d)
{
	return d->hosts && d->hosts->tcp_fd >= 0;
}

int link_init(struct pvmd *d, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	loop_timer_init(&d->hosts->ping, ping_cb, d);
	loop_timer_start(d->loop, &d->hosts->ping, 200);
	if (d->hosts->have_ticket)
		d->hosts->ticket_deadline =
			loop_now_ms() + 5000 +
			(d->hosts->ticket_life_ms ? d->hosts->ticket_life_ms
						  : hoster_start_timeout());
	if (d->hosts->master_wait_ms)
		d->hosts->master_deadline =
			loop_now_ms() + 5000 + d->hosts->master_wait_ms;
	return 0;
}

void link_fini(struct pvmd *d)
{
	link_unlisten(d);
}

void link_unlisten(struct pvmd *d)
{
	if (d->hosts->tcp_fd >= 0) {
		loop_io_stop(d->loop, &d->hosts->tcp_io);
		close(d->hosts->tcp_fd);
		d->hosts->tcp_fd = -1;
		char path[600];
		if (vmdir_in(path, sizeof path, d->dir, VMDIR_NETADDR) == 0)
			unlink(path);
	}
}
