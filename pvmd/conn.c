/*
 * conn.c - one task connection: accepting, the incremental frame parser,
 * the output queue and the two-phase close (see pvmd.h).
 *
 * Input is read into a fixed buffer and cut into frames; each frame is
 * copied once into a refcounted fbuf that is then queued, unchanged, on the
 * destination's connection.  A frame too large for the buffer is read
 * straight into its fbuf, so a message of any size costs one copy here.
 * Output is written from the before-sleep hook (many frames per writev);
 * LOOP_OUT is armed only while data is left over.
 */
#include "config.h"

#include "pvmd/conn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "proto/wire.h"
#include "pvmd/ctl.h"
#include "pvmd/flow.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

#define RBUF_SIZE     (64u << 10)
#define READ_BUDGET   (1u << 20) /* bytes per wakeup, for fairness */
#define WRITE_IOV     64
#define HANDSHAKE_MAX (64u << 10) /* largest frame before TM_CONNECT */

/* ---- frame buffers ----
 *
 * Frames up to the default fragment size (nearly all of them) get one
 * size of block, recycled through a free list: a large message passes
 * through here as thousands of such frames, and malloc, free and the heap
 * trimming and growing between messages (page faults) cost more than
 * copying them.  FB_KEEP blocks (some 16 MiB) are kept at most.
 */
#define FB_SMALL (WIRE_HDR_SIZE + 4080)
#define FB_KEEP	 4096

static struct fbuf *fb_free; /* linked through their data */
static size_t fb_nfree;

struct fbuf *fbuf_new(size_t len)
{
	struct fbuf *f;
	if (len <= FB_SMALL && fb_free) {
		f = fb_free;
		memcpy(&fb_free, f->data, sizeof fb_free);
		fb_nfree--;
	} else {
		f = malloc(sizeof *f + (len <= FB_SMALL ? FB_SMALL : len));
		if (!f)
			return NULL;
	}
	f->refs = 1;
	f->len = len;
	return f;
}

void fbuf_put(struct fbuf *f)
{
	if (!f || --f->refs > 0)
		return;
	if (f->len <= FB_SMALL && fb_nfree < FB_KEEP) {
		memcpy(f->data, &fb_free, sizeof fb_free);
		fb_free = f;
		fb_nfree++;
	} else {
		free(f);
	}
}

int fbuf_hold(struct fbuf ***v, size_t *n, size_t *cap, struct fbuf *f)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct fbuf **p = realloc(*v, c * sizeof *p);
		if (!p)
			return -1;
		*v = p;
		*cap = c;
	}
	f->refs++;
	(*v)[(*n)++] = f;
	return 0;
}

struct fbuf *fbuf_frame(const struct wire_hdr *h, const void *payload,
			size_t len)
{
	struct fbuf *f = fbuf_new(WIRE_HDR_SIZE + len);
	if (!f)
		return NULL;
	struct wire_hdr hh = *h;
	hh.len = (uint32_t)len;
	hh.total = len;
	hh.flags |= WIRE_F_FIRST | WIRE_F_LAST;
	wire_hdr_encode(&hh, f->data);
	if (len)
		memcpy(f->data + WIRE_HDR_SIZE, payload, len);
	return f;
}

/* ---- lifetime ---- */

pid_t conn_peer_pid(const struct conn *c)
{
	return c->pid;
}

struct task *conn_task(const struct conn *c)
{
	return c->task;
}

void conn_set_task(struct conn *c, struct task *t)
{
	c->task = t;
	c->state = t ? C_READY : C_HANDSHAKE;
}

static void conn_io_cb(struct loop *l, struct loop_io *io, uint32_t ev);

struct conn *conn_new(struct pvmd *d, int fd, pid_t pid, enum conn_kind kind)
{
	struct conn *c = calloc(1, sizeof *c);
	uint8_t *rbuf = malloc(RBUF_SIZE);
	if (!c || !rbuf) {
		plog(PL_ERR, "rejected a connection: out of memory");
		free(c);
		free(rbuf);
		close(fd);
		return NULL;
	}
	/* room for a large message's frames in the socket: fewer
	 * wakeups of both ends (the kernel caps it at wmem_max) */
	int sndbuf = 1 << 20;
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof sndbuf);
	c->d = d;
	c->fd = fd;
	c->pid = pid;
	c->logsrc = pid > 0 ? LOG_SRC_PID(pid) : 0;
	c->kind = kind;
	c->since = c->last_rx = c->last_tx = loop_now_ms();
	c->rbuf = rbuf;
	c->state = C_HANDSHAKE;
	if (loop_io_start(d->loop, &c->io, fd, LOOP_IN, conn_io_cb, c) < 0) {
		plog(PL_ERR, "epoll: %s", strerror(errno));
		free(rbuf);
		free(c);
		close(fd);
		return NULL;
	}
	c->next = d->conns;
	if (d->conns)
		d->conns->prev = c;
	d->conns = c;
	return c;
}

void conn_accept_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct pvmd *d = io->data;
	(void)l;
	(void)ev;

	int freed = 0; /* a descriptor set aside was given back for this one */
	for (int i = 0; i < 64; i++) {
		int fd = accept4(d->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0 && !freed)
			spawn_fd_release(d); /* (spawn.c) */
		freed = 0;
		if (fd < 0) {
			if ((errno == EMFILE || errno == ENFILE) &&
			    spawn_fd_release(d)) {
				freed = 1;
				continue;
			}
			if (errno == EMFILE || errno == ENFILE) {
				/* Out of descriptors: pause accepting (the
				 * housekeeping tick resumes it) rather than
				 * spin on a listening socket that stays ready.
				 */
				plog(PL_ERR,
				     "accept: %s: not accepting for a second",
				     strerror(errno));
				loop_io_set(d->loop, &d->listen_io, 0);
				d->accept_paused = 1;
			} else if (errno != EAGAIN && errno != EWOULDBLOCK &&
				   errno != EINTR) {
				plog(PL_ERR, "accept: %s", strerror(errno));
			}
			return;
		}
		struct ucred cr;
		socklen_t crlen = sizeof cr;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &crlen) < 0) {
			plog(PL_ERR, "rejected a connection: SO_PEERCRED: %s",
			     strerror(errno));
			close(fd);
			continue;
		}
		if (cr.uid != getuid()) {
			plog(PL_ERR,
			     "rejected a connection from pid %d: uid %u is not ours",
			     (int)cr.pid, (unsigned)cr.uid);
			close(fd);
			continue;
		}
		if (!conn_new(d, fd, cr.pid, CONN_TASK))
			continue;
		plog(PL_DEBUG, "connection from pid %d", (int)cr.pid);
	}
}

static void unpause(struct pvmd *d, struct conn *c)
{
	struct conn **pp = &d->paused;
	while (*pp && *pp != c)
		pp = &(*pp)->pnext;
	if (*pp)
		*pp = c->pnext;
	c->pnext = NULL;
	c->rpaused = 0;
}

void conn_close(struct pvmd *d, struct conn *c, const char *why)
{
	if (c->state == C_CLOSING)
		return;
	c->state = C_CLOSING;
	loop_io_stop(d->loop, &c->io);
	/* Unlink from the live list onto the closing list. */
	if (c->prev)
		c->prev->next = c->next;
	else
		d->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->prev = NULL;
	c->next = d->closing;
	d->closing = c;

	if (c->rpaused)
		unpause(d, c);
	if (c->kind == CONN_LINK) {
		host_link_closed(d, c, why);
		return;
	}
	struct task *t = c->task;
	if (t) {
		plog(PL_DEBUG, "t%x: connection closed (%s)", t->tid, why);
		c->task = NULL;
		t->conn = NULL;
		task_exit(d, t, why);
	} else {
		plog(PL_DEBUG, "connection of pid %d closed (%s)", (int)c->pid,
		     why);
	}
}

/* Counts n more (or fewer) bytes queued on c, and for the tasks of
 * this host in all (flow.c's bounds). */
static void count_queued(struct conn *c, int64_t n)
{
	c->qbytes += (size_t)n;
	if (c->kind == CONN_TASK)
		c->d->task_qbytes += (uint64_t)n;
}

static void conn_free(struct conn *c)
{
	count_queued(c, -(int64_t)c->qbytes);
	for (size_t i = 0; i < c->qcount; i++)
		fbuf_put(c->q[(c->qhead + i) % c->qcap]);
	free(c->q);
	fbuf_put(c->cur);
	free(c->rbuf);
	if (c->fd >= 0)
		close(c->fd);
	hs_wipe(&c->hs); /* a link's key, or the secret a ticket brought */
	free(c);
}

const char *conn_peer(const struct conn *c)
{
	static char buf[64];
	char who[32];
	if (c->kind == CONN_LINK && c->host)
		snprintf(buf, sizeof buf, "the link to host %d", c->peer_no);
	else if (c->kind == CONN_LINK && c->logsrc) {
		/* accepted: the address it came from */
		log_src_name(c->logsrc, who, sizeof who);
		snprintf(buf, sizeof buf, "a connection from %s", who);
	} else if (c->kind == CONN_LINK)
		snprintf(buf, sizeof buf, "a link to host %d", c->peer_no);
	else
		snprintf(buf, sizeof buf, "pid %d", (int)c->pid);
	return buf;
}

void conn_expire_handshakes(struct pvmd *d, uint64_t max_ms)
{
	uint64_t now = loop_now_ms();
	for (struct conn *c = d->conns, *next; c; c = next) {
		next = c->next;
		if (c->state == C_HANDSHAKE && now - c->since > max_ms) {
			if (c->kind == CONN_LINK)
				plog_src(c->logsrc, PL_ERR,
					 "a link from %s did not authenticate "
					 "within %llu ms: dropped",
					 conn_peer(c),
					 (unsigned long long)max_ms);
			else
				plog_src(c->logsrc, PL_ERR,
					 "pid %d connected but sent no "
					 "TM_CONNECT within %llu ms: dropped",
					 (int)c->pid,
					 (unsigned long long)max_ms);
			conn_close(d, c, "no TM_CONNECT");
		}
	}
}

void conn_close_all(struct pvmd *d)
{
	while (d->conns)
		conn_close(d, d->conns, "pvmd exiting");
}

/* ---- output ---- */

static void mark_dirty(struct pvmd *d, struct conn *c)
{
	if (c->dirty)
		return;
	c->dirty = 1;
	c->dirty_next = d->dirty;
	d->dirty = c;
}

int conn_send(struct pvmd *d, struct conn *c, struct fbuf *f)
{
	if (c->state == C_CLOSING)
		return -1;
	if (c->qcount == c->qcap) {
		size_t cap = c->qcap ? 2 * c->qcap : 16;
		struct fbuf **q = malloc(cap * sizeof *q);
		if (!q) {
			plog(PL_ERR,
			     "out of memory queueing output: dropping a connection");
			conn_close(d, c, "out of memory");
			return -1;
		}
		for (size_t i = 0; i < c->qcount; i++)
			q[i] = c->q[(c->qhead + i) % c->qcap];
		free(c->q);
		c->q = q;
		c->qcap = cap;
		c->qhead = 0;
	}
	f->refs++;
	if (c->kind == CONN_LINK)
		c->last_tx = loop_now_ms();
	c->q[(c->qhead + c->qcount) % c->qcap] = f;
	c->qcount++;
	count_queued(c, (int64_t)f->len);
	mark_dirty(d, c);
	return 0;
}

/* Writes as much of the queue as the socket takes.  Returns 1 if data is
 * left, 0 if the queue is empty, -1 on a write error. */
static int flush(struct conn *c)
{
	while (c->qcount) {
		struct iovec iov[WRITE_IOV];
		size_t n = 0, want = 0;
		for (; n < WRITE_IOV && n < c->qcount; n++) {
			struct fbuf *f = c->q[(c->qhead + n) % c->qcap];
			size_t off = n ? 0 : c->qoff;
			iov[n].iov_base = f->data + off;
			iov[n].iov_len = f->len - off;
			want += iov[n].iov_len;
		}
		struct msghdr mh = {.msg_iov = iov, .msg_iovlen = n};
		ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -1;
		}
		size_t left = (size_t)w;
		while (left && c->qcount) {
			struct fbuf *f = c->q[c->qhead];
			size_t rest = f->len - c->qoff;
			if (left < rest) {
				c->qoff += left;
				left = 0;
				break;
			}
			left -= rest;
			c->qoff = 0;
			count_queued(c, -(int64_t)f->len);
			fbuf_put(f);
			c->qhead = (c->qhead + 1) % c->qcap;
			c->qcount--;
		}
		if ((size_t)w < want)
			return 1; /* short write: the socket is full */
	}
	return 0;
}

static void flush_and_arm(struct pvmd *d, struct conn *c)
{
	int r = flush(c);
	if (r < 0) {
		if (c->state != C_CLOSING)
			conn_close(d, c, "write failed");
		return;
	}
	if (c->state != C_CLOSING)
		loop_io_set(d->loop, &c->io,
			    (c->rpaused ? 0 : LOOP_IN) | (r ? LOOP_OUT : 0));
}

void conn_flush_now(struct pvmd *d, struct conn *c)
{
	if (c->state != C_CLOSING)
		flush_and_arm(d, c);
}

void conn_before_sleep(struct pvmd *d)
{
	if (d->paused)
		flow_resume(d);
	while (d->dirty) {
		struct conn *c = d->dirty;
		d->dirty = c->dirty_next;
		c->dirty = 0;
		c->dirty_next = NULL;
		flush_and_arm(d, c);
	}
	while (d->closing) {
		struct conn *c = d->closing;
		d->closing = c->next;
		if (c->qcount)
			flush(c); /* last words, e.g. a PvmBadVersion reply */
		conn_free(c);
	}
}

void conn_reply(struct pvmd *d, struct conn *c, const struct wire_hdr *req,
		const struct wire_wr *payload)
{
	struct wire_hdr h = {
		.flags = WIRE_F_CTRL,
		.dst = c->task ? c->task->tid : 0,
		.src = d->hosttid,
		.tag = req->tag,
		.wid = req->wid,
	};
	if (c->kind == CONN_LINK) {
		/* a request of a task (or pvmd) of the host at the other end */
		h.flags |= WIRE_F_REPLY;
		h.dst = req->src;
	}
	if (payload && payload->err) {
		plog(PL_ERR, "reply to %s too large or out of memory",
		     c->task ? "a task" : "a peer");
		conn_close(d, c, "cannot build reply");
		return;
	}
	struct fbuf *f = fbuf_frame(&h, payload ? payload->buf : NULL,
				    payload ? payload->len : 0);
	if (!f) {
		conn_close(d, c, "out of memory");
		return;
	}
	conn_send(d, c, f);
	fbuf_put(f);
}

/* ---- input ---- */

/* Checks a data frame against the message in progress from this task.
 * Returns 0 or -1 (protocol error). */
static int check_msg_frame(struct conn *c, const struct wire_hdr *h)
{
	if (h->flags & WIRE_F_FIRST) {
		if (c->in_msg)
			return -1;
		c->in_msg = 1;
		c->msg_left = h->total;
		c->msg_dst = h->dst;
	} else if (!c->in_msg || h->dst != c->msg_dst) {
		return -1;
	}
	if (h->len > c->msg_left)
		return -1;
	c->msg_left -= h->len;
	if (h->flags & WIRE_F_LAST) {
		if (c->msg_left)
			return -1;
		c->in_msg = 0;
	}
	return 0;
}

/* Handles one complete frame.  Returns 0, or -1 with *why set. */
static int handle_frame(struct pvmd *d, struct conn *c,
			const struct wire_hdr *h, struct fbuf *f,
			const char **why)
{
	if (c->kind == CONN_LINK)
		return host_link_frame(d, c, h, f, why);
	if (h->flags & WIRE_F_CTRL) {
		if (ctl_dispatch(d, c, h, f->data + WIRE_HDR_SIZE) < 0) {
			*why = "malformed control message";
			return -1;
		}
		return 0;
	}
	if (!c->task) {
		*why = "data frame before TM_CONNECT";
		return -1;
	}
	if (h->src != c->task->tid) {
		*why = "frame src is not the sender's tid";
		return -1;
	}
	if (check_msg_frame(c, h) < 0) {
		*why = "bad message framing (FIRST/LAST/total)";
		return -1;
	}
	flow_credit_seen(d, c->task, h, f->data + WIRE_HDR_SIZE);
	/* A message whose first frame found no receiver is dropped whole. */
	if (h->flags & WIRE_F_FIRST)
		c->msg_drop = !route_frame(d, h, f);
	else if (!c->msg_drop)
		route_frame(d, h, f);
	flow_after_route(d, c, h);
	return 0;
}

/* Parses the frames in rbuf[rpos..rlen).  Returns 0, or -1 with *why. */
static int parse(struct pvmd *d, struct conn *c, const char **why)
{
	while (c->state != C_CLOSING && !c->rpaused &&
	       c->rlen - c->rpos >= WIRE_HDR_SIZE) {
		struct wire_hdr h;
		const uint8_t *p = c->rbuf + c->rpos;
		/* Before enrollment only a small TM_CONNECT is legal. */
		uint32_t maxlen =
			c->task || c->host ? WIRE_MAX_FRAG : HANDSHAKE_MAX;
		if (wire_hdr_decode(p, &h, maxlen) < 0) {
			*why = "malformed frame header";
			return -1;
		}
		size_t need = WIRE_HDR_SIZE + (size_t)h.len;
		size_t have = c->rlen - c->rpos;
		if (have < need && need <= RBUF_SIZE / 2)
			break; /* small frame: wait for the rest in rbuf */
		struct fbuf *f = fbuf_new(need);
		if (!f) {
			*why = "out of memory for a frame";
			return -1;
		}
		if (have < need) {
			/* Large frame: read the rest straight into f. */
			memcpy(f->data, p, have);
			c->cur = f;
			c->curhdr = h;
			c->curfill = have;
			c->rpos = c->rlen;
			break;
		}
		memcpy(f->data, p, need);
		c->rpos += need;
		int r = handle_frame(d, c, &h, f, why);
		fbuf_put(f);
		if (r < 0)
			return -1;
	}
	if (c->rpos == c->rlen) {
		c->rpos = c->rlen = 0;
	} else if (c->rpos > RBUF_SIZE / 2) {
		memmove(c->rbuf, c->rbuf + c->rpos, c->rlen - c->rpos);
		c->rlen -= c->rpos;
		c->rpos = 0;
	}
	return 0;
}

/* Reads what is available (up to `budget` bytes).  Returns 1 if more may
 * be waiting, 0 when the socket is drained or the connection closed. */
static int read_some(struct pvmd *d, struct conn *c, size_t budget)
{
	const char *why = NULL;
	size_t got = 0;

	while (c->state != C_CLOSING && !c->rpaused && got < budget) {
		uint8_t *dst;
		size_t room;
		if (c->cur) {
			dst = c->cur->data + c->curfill;
			room = c->cur->len - c->curfill;
		} else {
			if (c->rlen == RBUF_SIZE) {
				/* Only possible with rpos > 0: compact. */
				memmove(c->rbuf, c->rbuf + c->rpos,
					c->rlen - c->rpos);
				c->rlen -= c->rpos;
				c->rpos = 0;
			}
			dst = c->rbuf + c->rlen;
			room = RBUF_SIZE - c->rlen;
		}
		ssize_t n = read(c->fd, dst, room);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			conn_close(d, c, strerror(errno));
			return 0;
		}
		if (n == 0) {
			if (c->cur || c->rlen > c->rpos || c->in_msg)
				plog_src(
					c->logsrc, PL_ERR,
					"%s%s: connection ended inside a frame "
					"or message",
					conn_peer(c),
					c->task ? " (a task)" : "");
			conn_close(d, c, "end of file");
			return 0;
		}
		got += (size_t)n;
		/* less than there was room for: the socket is empty now, and
		 * the loop (level-triggered) calls again when it is not; a
		 * read to see EAGAIN would cost a system call per message */
		int drained = (size_t)n < room;
		if (c->kind == CONN_LINK)
			c->last_rx = loop_now_ms();
		if (c->cur) {
			c->curfill += (size_t)n;
			if (c->curfill < c->cur->len) {
				if (drained)
					return 0;
				continue;
			}
			struct fbuf *f = c->cur;
			c->cur = NULL;
			int r = handle_frame(d, c, &c->curhdr, f, &why);
			fbuf_put(f);
			if (r < 0)
				goto bad;
		} else {
			c->rlen += (size_t)n;
			if (parse(d, c, &why) < 0)
				goto bad;
		}
		if (drained)
			return 0;
	}
	return c->state != C_CLOSING && !c->rpaused;

bad:
	if (c->task)
		plog_src(c->logsrc, PL_ERR,
			 "t%x (pid %d): protocol error: %s; closing its "
			 "connection",
			 c->task->tid, (int)c->pid, why);
	else
		plog_src(c->logsrc, PL_ERR,
			 "%s: protocol error: %s; closing the connection",
			 conn_peer(c), why);
	conn_close(d, c, why);
	return 0;
}

void conn_drain_input(struct pvmd *d, struct conn *c)
{
	/* the task is gone: what it wrote is all it will, so take it all */
	if (c->rpaused)
		unpause(d, c);
	while (read_some(d, c, SIZE_MAX))
		;
}

static void conn_io_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct conn *c = io->data;
	struct pvmd *d = c->d;
	(void)l;

	if (ev & LOOP_OUT)
		flush_and_arm(d, c);
	/* a paused task that hangs up has written all it ever will: its
	 * last messages are bounded by the socket's buffer (epoll reports
	 * the hang-up even while we do not read) */
	if (c->state != C_CLOSING && c->rpaused && (ev & (LOOP_HUP | LOOP_ERR)))
		conn_drain_input(d, c);
	else if (c->state != C_CLOSING &&
		 (ev & (LOOP_IN | LOOP_HUP | LOOP_ERR)))
		read_some(d, c, READ_BUDGET);
}

void conn_drop_output(struct conn *c)
{
	size_t keep = c->qcount && c->qoff ? 1 : 0;
	for (size_t i = keep; i < c->qcount; i++) {
		struct fbuf *f = c->q[(c->qhead + i) % c->qcap];
		count_queued(c, -(int64_t)f->len);
		fbuf_put(f);
	}
	c->qcount = keep;
}

/* ---- flow control (flow.c) ---- */

void conn_pause_input(struct pvmd *d, struct conn *c, int tid)
{
	if (c->rpaused || c->leaving || c->state == C_CLOSING)
		return;
	c->rpaused = tid;
	c->pnext = d->paused;
	d->paused = c;
	loop_io_set(d->loop, &c->io, c->qcount ? LOOP_OUT : 0);
}

void conn_set_leaving(struct pvmd *d, struct conn *c)
{
	c->leaving = 1;
	conn_resume_input(d, c);
}

void conn_resume_input(struct pvmd *d, struct conn *c)
{
	const char *why = NULL;
	if (!c->rpaused)
		return;
	unpause(d, c);
	/* frames already read wait in rbuf: no event will announce them */
	if (parse(d, c, &why) < 0) {
		plog_src(c->logsrc, PL_ERR,
			 "%s: protocol error: %s; closing the connection",
			 conn_peer(c), why);
		conn_close(d, c, why);
		return;
	}
	if (c->state != C_CLOSING)
		loop_io_set(d->loop, &c->io,
			    (c->rpaused ? 0 : LOOP_IN) |
				    (c->qcount ? LOOP_OUT : 0));
}
