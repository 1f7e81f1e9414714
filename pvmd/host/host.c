/*
 * host.c - the host table (host.h, docs/hosts.md): sending to a host,
 * the master's table and its copies (DM_HOSTTAB), the frames a link
 * carries once it is up, task exits, halt, and the loss of a host.  The
 * links themselves (listener, connect, handshake, heartbeats): link.c.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/vmdir.h"
#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/context.h"
#include "pvmd/ctl.h"
#include "pvmd/group.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/log.h"
#include "pvmd/mbox.h"
#include "pvmd/output.h"
#include "pvmd/notify.h"
#include "pvmd/signals.h"
#include "pvmd/task.h"

/* TM_CONFIG (pvm_config): the hosts of the machine and their kinds. */
static int ctl_config(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r)
{
	if (r->err || r->left)
		return -1;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	if (!d->hosts->nup) {
		/* not yet in a table (a slave before the master's) */
		wire_wr_i32(&w, 1); /* hosts */
		wire_wr_i32(&w, 1); /* architectures */
		wire_wr_i32(&w, d->hosttid);
		wire_wr_str(&w, d->hostname);
		wire_wr_str(&w, d->arch);
		wire_wr_i32(&w, PVMD_SPEED);
		wire_wr_i32(&w, DSIG_NATIVE);
	} else {
		int n = 0, narch = 0;
		const char *archs[64];
		for (int i = 1; i <= d->hosts->top; i++) {
			struct host *o = host_get(d, i);
			if (!o || o->state != HOST_UP)
				continue;
			n++;
			int k = 0;
			while (k < narch && strcmp(archs[k], o->arch))
				k++;
			if (k == narch && narch < 64)
				archs[narch++] = o->arch;
		}
		wire_wr_i32(&w, n);
		wire_wr_i32(&w, narch);
		for (int i = 1; i <= d->hosts->top; i++) {
			struct host *o = host_get(d, i);
			if (!o || o->state != HOST_UP)
				continue;
			wire_wr_i32(&w, wire_host_tid(i));
			wire_wr_str(&w, o->name);
			wire_wr_str(&w, o->arch);
			wire_wr_i32(&w, o->speed);
			wire_wr_i32(&w, o->dsig);
		}
	}
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}

/* The host layer's rows of the control table (ctl.h). */
const struct ctl_row host_ctl_rows[WIRE_TM_MAX] = {
	[WIRE_TM_CONFIG] = {"TM_CONFIG", ctl_config, CTL_ANY},
	[WIRE_TM_ADDHOST] = {"TM_ADDHOST", ctl_addhost, CTL_MASTER},
	[WIRE_TM_DELHOST] = {"TM_DELHOST", ctl_delhost, CTL_MASTER},
	[WIRE_TM_ADDCANCEL] = {"TM_ADDCANCEL", ctl_addcancel, CTL_MASTER},
	[WIRE_TM_HOSTSYNC] = {"TM_HOSTSYNC", ctl_hostsync, CTL_TID_HOST},
	[WIRE_TM_REGHOSTER] = {"TM_REGHOSTER", ctl_reghoster, CTL_HERE},
};

/* ---- the table ---- */

struct host *host_get(const struct pvmd *d, int hostno)
{
	return hostno >= 1 && hostno <= HOST_MAX ? d->hosts->hosts[hostno]
						 : NULL;
}

int host_no_of_tid(int tid)
{
	return (int)(((unsigned)tid & WIRE_TID_HOST_MASK) >>
		     WIRE_TID_HOST_SHIFT);
}

struct host *host_of_tid(const struct pvmd *d, int tid)
{
	return host_get(d, host_no_of_tid(tid));
}

int host_is_local_tid(const struct pvmd *d, int tid)
{
	return ((unsigned)tid & WIRE_TID_HOST_MASK) == (unsigned)d->hosttid;
}

int host_tid_present(const struct pvmd *d, int tid)
{
	if (host_is_local_tid(d, tid))
		return 1;
	const struct host *h = host_of_tid(d, tid);
	return h && h->state == HOST_UP;
}

int host_count(const struct pvmd *d)
{
	return d->hosts->nup ? d->hosts->nup : 1;
}

int host_links_open(const struct pvmd *d)
{
	int n = 0;
	if (!d->hosts || !d->hosts->master)
		return 0;
	for (int i = 2; i <= d->hosts->top; i++) {
		const struct host *h = d->hosts->hosts[i];
		n += h && h->link;
	}
	return n;
}

size_t host_link_queued(const struct pvmd *d, int tid)
{
	const struct host *h = host_of_tid(d, tid);
	return h && h->link ? h->link->qbytes : 0;
}

struct host *host_by_name(const struct pvmd *d, const char *name)
{
	for (int i = 1; i <= d->hosts->top; i++) {
		struct host *h = d->hosts->hosts[i];
		if (h && !strcmp(h->name, name))
			return h;
	}
	return NULL;
}

void host_slot_set(struct pvmd *d, int no, struct host *h)
{
	d->hosts->hosts[no] = h;
	if (no > d->hosts->top)
		d->hosts->top = no;
}

struct host *host_new(struct pvmd *d, int no)
{
	struct host *h = calloc(1, sizeof *h);
	if (!h)
		return NULL;
	h->no = no;
	h->speed = PVMD_SPEED;
	h->dsig = DSIG_NATIVE;
	host_slot_set(d, no, h);
	return h;
}

void host_drop_queue(struct host *h)
{
	for (size_t i = 0; i < h->nq; i++)
		fbuf_put(h->q[i]);
	free(h->q);
	h->q = NULL;
	h->nq = h->capq = 0;
}

/* ---- sending ---- */

int host_send(struct pvmd *d, struct host *h, struct fbuf *f)
{
	if (h->link)
		return conn_send(d, h->link, f) == 0;
	if (fbuf_hold(&h->q, &h->nq, &h->capq, f) < 0) {
		plog(PL_ERR, "out of memory: a frame for host %s lost",
		     h->name);
		return 0;
	}
	if (!h->connecting && h->state == HOST_UP && *h->addr)
		host_connect(d, h);
	return 1;
}

int host_send_ctrl(struct pvmd *d, int hostno, const struct wire_hdr *hh,
		   const struct wire_wr *payload)
{
	struct host *h = host_get(d, hostno);
	if (!h || (payload && payload->err))
		return 0;
	struct wire_hdr x = *hh;
	x.flags |= WIRE_F_CTRL;
	if (!x.dst)
		x.dst = wire_host_tid(hostno);
	struct fbuf *f = fbuf_frame(&x, payload ? payload->buf : NULL,
				    payload ? payload->len : 0);
	if (!f)
		return 0;
	int r = host_send(d, h, f);
	fbuf_put(f);
	return r;
}

/* A DM request with no reply, from this pvmd. */
static void send_dm(struct pvmd *d, struct host *h, int code,
		    const struct wire_wr *payload)
{
	struct wire_hdr hh = {.src = d->hosttid, .tag = code};
	host_send_ctrl(d, h->no, &hh, payload);
}

void host_send_dm(struct pvmd *d, int hostno, int code,
		  const struct wire_wr *payload)
{
	struct host *h = host_get(d, hostno);
	if (h && h->state == HOST_UP)
		send_dm(d, h, code, payload);
}

/* The same to every other host in the table. */
static void send_dm_all(struct pvmd *d, int code, const struct wire_wr *payload)
{
	for (int i = 1; i <= d->hosts->top; i++)
		if (d->hosts->hosts[i] &&
		    d->hosts->hosts[i]->state == HOST_UP &&
		    wire_host_tid(i) != d->hosttid)
			send_dm(d, d->hosts->hosts[i], code, payload);
}

/* ---- the host table (DM_HOSTTAB) ---- */

static void put_host(struct wire_wr *w, const struct host *h)
{
	wire_wr_i32(w, wire_host_tid(h->no));
	wire_wr_str(w, h->name);
	wire_wr_str(w, h->arch);
	wire_wr_i32(w, h->speed);
	wire_wr_i32(w, h->dsig);
	wire_wr_str(w, h->addr);
}

void host_table_changed(struct pvmd *d)
{
	struct wire_wr w;
	wire_wr_init(&w);
	int n = 0;
	for (int i = 1; i <= d->hosts->top; i++)
		if (d->hosts->hosts[i] && d->hosts->hosts[i]->state == HOST_UP)
			n++;
	wire_wr_i32(&w, n);
	for (int i = 1; i <= d->hosts->top; i++)
		if (d->hosts->hosts[i] && d->hosts->hosts[i]->state == HOST_UP)
			put_host(&w, d->hosts->hosts[i]);
	send_dm_all(d, WIRE_DM_HOSTTAB, &w);
	wire_wr_free(&w);
	int before = d->hosts->nup;
	d->hosts->nup = n;
	if ((before > 1) != (n > 1))
		group_hosts_changed(d);
}

void host_added(struct pvmd *d, const int *tids, int n)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, n);
	for (int i = 0; i < n; i++)
		wire_wr_i32(&w, tids[i]);
	if (!w.err) {
		/* the DM_HOSTADD payload is the notify's body */
		send_dm_all(d, WIRE_DM_HOSTADD, &w);
		notify_host_add(d, w.buf, w.len);
	}
	wire_wr_free(&w);
}

/* A slave: the hosts the master's last add brought in. */
static int dm_hostadd(struct pvmd *d, const uint8_t *payload, size_t len)
{
	struct wire_rd r;
	wire_rd_init(&r, payload, len);
	int n = wire_rd_count(&r, 4);
	if (r.err || n < 1 || n > HOST_MAX)
		return -1;
	for (int i = 0; i < n; i++) {
		int tid = wire_rd_i32(&r);
		int no = host_no_of_tid(tid);
		if (r.err || no < 1 || tid != wire_host_tid(no))
			return -1;
	}
	if (r.left)
		return -1;
	notify_host_add(d, payload, len);
	return 0;
}

/* A slave applies the master's table. */
static int dm_hosttab(struct pvmd *d, struct wire_rd *r)
{
	int n = wire_rd_count(r, 24);
	if (r->err || n < 1 || n > HOST_MAX)
		return -1;
	char seen[HOST_MAX + 1] = {0};
	for (int i = 0; i < n; i++) {
		int tid = wire_rd_i32(r);
		char *name = wire_rd_strdup(r);
		char *arch = wire_rd_strdup(r);
		int speed = wire_rd_i32(r);
		int dsig = wire_rd_i32(r);
		char *addr = wire_rd_strdup(r);
		int no = host_no_of_tid(tid);
		int ok = !r->err && no >= 1 && tid == wire_host_tid(no) &&
			 strlen(name) < sizeof d->hosts->hosts[0]->name &&
			 strlen(arch) < sizeof d->hosts->hosts[0]->arch &&
			 strlen(addr) < sizeof d->hosts->hosts[0]->addr &&
			 !seen[no];
		if (ok) {
			seen[no] = 1;
			struct host *h = host_get(d, no);
			if (!h)
				h = host_new(d, no);
			if (h) {
				strcpy(h->name, name);
				strcpy(h->arch, arch);
				strcpy(h->addr, addr);
				h->speed = speed;
				h->dsig = dsig;
				h->state = HOST_UP;
			}
		}
		free(name);
		free(arch);
		free(addr);
		if (!ok)
			return -1;
	}
	if (r->left)
		return -1;
	for (int i = 1; i <= d->hosts->top; i++)
		if (d->hosts->hosts[i] && !seen[i] &&
		    wire_host_tid(i) != d->hosttid)
			host_lost(d, d->hosts->hosts[i],
				  "deleted from the virtual machine");
	d->hosts->nup = n;
	return 0;
}

/* ---- frames on a link ---- */

static int dm_request(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      const uint8_t *payload, const char **why)
{
	struct wire_rd r;
	wire_rd_init(&r, payload, h->len);
	switch (h->tag) {
	case WIRE_DM_PING:
		return 0;
	case WIRE_DM_HOSTTAB:
		if (d->hosts->master || c->host->no != 1 ||
		    dm_hosttab(d, &r) < 0) {
			*why = "bad host table";
			return -1;
		}
		return 0;
	case WIRE_DM_HOSTADD:
		if (d->hosts->master || c->host->no != 1 ||
		    dm_hostadd(d, payload, h->len) < 0) {
			*why = "bad host addition";
			return -1;
		}
		return 0;
	case WIRE_DM_TASKEXIT: {
		int tid = wire_rd_i32(&r);
		if (r.err || r.left || host_no_of_tid(tid) != c->host->no) {
			*why = "bad task exit";
			return -1;
		}
		notify_task_exit(d, tid);
		if (d->hosts->master) {
			context_task_exit(d, tid);
			mbox_task_exit(d, tid);
			group_task_exit(d, tid);
		}
		return 0;
	}
	case WIRE_DM_OUTPAUSE:
	case WIRE_DM_OUTRESUME: {
		int wtid = wire_rd_i32(&r), dst = wire_rd_i32(&r);
		if (r.err || r.left || !host_is_local_tid(d, wtid) ||
		    host_no_of_tid(dst) != c->host->no) {
			*why = "bad output pause";
			return -1;
		}
		output_remote_pause(d, wtid, dst, h->tag == WIRE_DM_OUTPAUSE);
		return 0;
	}
	case WIRE_DM_HALT:
		if (d->hosts->master) {
			plog(PL_INFO, "halt asked by host %s", c->host->name);
			host_halt_all(d);
		} else if (c->host->no == 1) {
			pvmd_halt(d, "halted by the master");
		}
		return 0;
	default:
		*why = "unknown pvmd request";
		return -1;
	}
}

int host_link_frame(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		    struct fbuf *f, const char **why)
{
	const uint8_t *payload = f->data + WIRE_HDR_SIZE;
	if (c->state != C_READY)
		return link_handshake(d, c, h, payload, why);
	int peer = c->host->no;
	if (h->flags & WIRE_F_CTRL) {
		if (h->flags & WIRE_F_REPLY) {
			if (!host_is_local_tid(d, h->dst)) {
				*why = "reply for another host";
				return -1;
			}
			fwd_reply(d, h, f);
			return 0;
		}
		if (h->dst != d->hosttid || (h->src != wire_host_tid(peer) &&
					     host_no_of_tid(h->src) != peer)) {
			*why = "request with a wrong src or dst";
			return -1;
		}
		if (h->tag >= WIRE_DM_HELLO)
			return dm_request(d, c, h, payload, why);
		if (ctl_dispatch(d, c, h, payload) < 0) {
			*why = "malformed forwarded request";
			return -1;
		}
		return 0;
	}
	/* data: from a task of that host (or its pvmd) to one of ours */
	if ((host_no_of_tid(h->src) != peer && h->src != WIRE_TID_PVMD_SRC) ||
	    !host_is_local_tid(d, h->dst)) {
		*why = "data frame with a wrong src or dst";
		return -1;
	}
	route_frame(d, h, f);
	if (h->src == WIRE_TID_PVMD_SRC)
		output_remote_arrived(d, peer, h, f->data + WIRE_HDR_SIZE);
	return 0;
}

void host_link_closed(struct pvmd *d, struct conn *c, const char *why)
{
	struct host *h = c->host ? c->host : host_get(d, c->peer_no);
	if (!h || (h->link != c && h->connecting != c)) {
		plog(PL_DEBUG, "a pvmd link closed (%s)", why);
		return;
	}
	if (h->connecting == c)
		h->connecting = NULL;
	if (d->halting) {
		if (h->link == c)
			h->link = NULL;
		return; /* every link goes: nothing to tell anyone */
	}
	int was_link = h->link == c;
	if (was_link)
		h->link = NULL;
	/* another link to it that is up takes over */
	for (struct conn *o = d->conns; was_link && o; o = o->next)
		if (o != c && o->kind == CONN_LINK && o->host == h &&
		    o->state == C_READY) {
			h->link = o;
			return;
		}
	plog(PL_INFO, "link to host %s (%d) closed: %s", h->name, h->no, why);
	if (h->state == HOST_STARTING) {
		hoster_link_failed(d, h, why);
	} else if (d->hosts->master) {
		host_lost(d, h, why);
	} else if (h->no == 1) {
		pvmd_halt(d, "lost the master pvmd");
	} else {
		host_drop_queue(h);
	}
}

void host_lost(struct pvmd *d, struct host *h, const char *why)
{
	int no = h->no;
	if (wire_host_tid(no) == d->hosttid)
		return;
	plog(strcmp(why, "deleted") ? PL_ERR : PL_INFO,
	     "host %s (t%x) is gone: %s", h->name, wire_host_tid(no), why);
	int was_up = h->state == HOST_UP;
	d->hosts->hosts[no] = NULL;
	for (struct conn *c = d->conns, *next; c; c = next) {
		next = c->next;
		if (c->kind == CONN_LINK &&
		    (c->host == h || (!c->host && c->peer_no == no))) {
			c->host = NULL;
			c->peer_no = 0;
			conn_close(d, c, why);
		}
	}
	host_drop_queue(h);
	free(h);
	fwd_host_lost(d, no);
	if (!was_up)
		return;
	notify_host_lost(d, wire_host_tid(no));
	if (d->hosts->master) {
		mbox_host_lost(d, no);
		group_host_lost(d, no);
		host_table_changed(d);
	} else {
		d->hosts->nup--;
	}
}

void host_task_exit(struct pvmd *d, int tid)
{
	hoster_task_exit(d, tid);
	if (d->hosts->nup <= 1)
		return;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, tid);
	send_dm_all(d, WIRE_DM_TASKEXIT, &w);
	wire_wr_free(&w);
}

void host_halt_all(struct pvmd *d)
{
	if (!d->hosts->master) {
		struct host *m = host_get(d, 1);
		if (m && m->link) {
			send_dm(d, m, WIRE_DM_HALT, NULL);
			return;
		}
		pvmd_halt(d, "halt (the master is unreachable)");
		return;
	}
	pvmd_halt(d, "halt");
}

void host_halt_links(struct pvmd *d)
{
	if (!d->hosts || !d->hosts->master)
		return;
	for (int i = 2; i <= d->hosts->top; i++) {
		struct host *h = d->hosts->hosts[i];
		if (h && h->link) {
			send_dm(d, h, WIRE_DM_HALT, NULL);
			conn_flush_now(d, h->link);
		}
	}
}

/* ---- startup ---- */

/* The first IPv4 address of our host name that is not a loopback one. */
static void guess_ip(struct pvmd *d)
{
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL;
	if (getaddrinfo(d->hostname, NULL, &hints, &res) != 0)
		return;
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		struct sockaddr_in *sa = (struct sockaddr_in *)a->ai_addr;
		if ((ntohl(sa->sin_addr.s_addr) >> 24) == 127 && *d->ip)
			continue;
		inet_ntop(AF_INET, &sa->sin_addr, d->ip, sizeof d->ip);
		if ((ntohl(sa->sin_addr.s_addr) >> 24) != 127)
			break;
	}
	freeaddrinfo(res);
}

void host_set_addr(struct pvmd *d)
{
	struct host *me = host_of_tid(d, d->hosttid);
	if (me)
		snprintf(me->addr, sizeof me->addr, "%s:%d", d->ip,
			 d->hosts->port);
}

int host_save_secret(const struct pvmd *d)
{
	char path[600];
	if (vmdir_in(path, sizeof path, d->dir, VMDIR_SECRET) < 0)
		return -1;
	return auth_secret_save(path, d->hosts->secret);
}

int host_layer_new(struct pvmd *d)
{
	d->hosts = calloc(1, sizeof *d->hosts);
	if (!d->hosts)
		return -1;
	d->hosts->tcp_fd = -1;
	idhash_init(&d->hosts->fwaits);
	return 0;
}

int host_init(struct pvmd *d, int master, char *err, size_t errlen)
{
	d->hosts->master = master;
	d->hosts->timeout_ms = HOST_TIMEOUT_MS;
	const char *t = getenv("PVM_HOST_TIMEOUT");
	if (t && *t) {
		char *end;
		long v = strtol(t, &end, 10);
		if (*end || v < 200 || v > 3600000) {
			snprintf(
				err, errlen,
				"bad PVM_HOST_TIMEOUT '%s' (milliseconds, 200..3600000)",
				t);
			return -1;
		}
		d->hosts->timeout_ms = (unsigned)v;
	}
	if (link_init(d, err, errlen) < 0)
		return -1;
	const char *addr = getenv("PVM_ADDR");
	if (master && addr && *addr) {
		struct in_addr a;
		if (inet_pton(AF_INET, addr, &a) != 1) {
			snprintf(err, errlen,
				 "bad PVM_ADDR '%s' (an IPv4 address of this "
				 "host)",
				 addr);
			return -1;
		}
		snprintf(d->ip, sizeof d->ip, "%s", addr);
	}
	if (!*d->ip)
		guess_ip(d);
	if (!master && d->hosts->have_secret && host_save_secret(d) < 0) {
		snprintf(err, errlen, "cannot write the secret: %s",
			 strerror(errno));
		return -1;
	}
	if (master) {
		if (auth_random(d->hosts->secret, AUTH_SECRET_LEN) < 0 ||
		    host_save_secret(d) < 0) {
			snprintf(err, errlen, "cannot create the secret: %s",
				 strerror(errno));
			return -1;
		}
		d->hosts->have_secret = 1;
		struct host *me = host_new(d, host_no_of_tid(d->hosttid));
		if (!me) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		snprintf(me->name, sizeof me->name, "%s", d->hostname);
		snprintf(me->arch, sizeof me->arch, "%s", d->arch);
		me->state = HOST_UP;
		host_set_addr(d);
		d->hosts->nup = 1;
	}
	/* a slave is part of a machine of many hosts; the master listens
	 * once it adds one (hoster.c), unless PVM_ADDR asks for it now */
	if ((!master || (addr && *addr)) && link_listen(d) < 0) {
		snprintf(err, errlen, "cannot listen for other hosts on %s",
			 *d->ip ? d->ip : "127.0.0.1");
		return -1;
	}
	return 0;
}

int host_started(struct pvmd *d, int foreground, const char *hostfile,
		 char *err, size_t errlen)
{
	if (!d->hosts->master)
		slave_report_ok(d);
	d->hosts->foreground = foreground;
	return hostfile ? hoster_start_hostfile(d, hostfile, err, errlen) : 0;
}

void host_fini(struct pvmd *d)
{
	hoster_fini(d);
	link_fini(d);
	fwd_fini(d);
	for (int i = 1; i <= d->hosts->top; i++) {
		if (d->hosts->hosts[i]) {
			host_drop_queue(d->hosts->hosts[i]);
			free(d->hosts->hosts[i]);
			d->hosts->hosts[i] = NULL;
		}
	}
	char path[600];
	if (vmdir_in(path, sizeof path, d->dir, VMDIR_SECRET) == 0)
		unlink(path);
	explicit_bzero(d->hosts, sizeof *d->hosts); /* the secret */
	free(d->hosts);
	d->hosts = NULL;
}
