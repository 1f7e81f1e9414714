/*
 * conn.h - connections (conn.c): frames shared between output queues,
 * accepting, sending, closing; and the state of one connection, whose
 * fields only conn.c and the few modules that need them read.
 */
#ifndef PVMD_CONN_H
#define PVMD_CONN_H

#include <stdint.h>
#include <sys/types.h>

#include "proto/handshake.h"
#include "proto/wire.h"
#include "pvmd/loop.h"
#include "pvmd/pvmd.h"

enum conn_kind {
	CONN_TASK, /* a task on this host (Unix socket) */
	CONN_LINK, /* another pvmd (TCP, docs/hosts.md) */
};

enum conn_state {
	C_HANDSHAKE, /* accepted; only TM_CONNECT (a link: DM_HELLO/AUTH) */
	C_READY,     /* enrolled: c->task is set */
	C_CLOSING,   /* marked; freed in the before-sleep hook */
};

struct conn {
	struct pvmd *d;
	struct conn *next, *prev; /* d->conns, or d->closing (next only) */
	struct conn *dirty_next;  /* d->dirty */
	int dirty;
	int fd;
	struct loop_io io;
	enum conn_state state;
	pid_t pid;	 /* SO_PEERCRED */
	uint64_t logsrc; /* whose lines these are (log.h: plog_src) */
	uint64_t since;	 /* accepted at (loop_now_ms) */
	struct task *task;
	enum conn_kind kind;

	/* a link: the host at the other end once authenticated, and the
	 * handshake's state (link.c) */
	struct host *host;
	int outgoing;		   /* we opened it */
	int peer_no;		   /* host number the peer claims */
	struct hs hs;		   /* proto/handshake.h */
	uint64_t last_rx, last_tx; /* loop_now_ms of the last frame each way */

	/* input: rbuf[rpos..rlen) is unparsed; `cur` a large frame being
	 * read in place (curfill bytes so far) */
	uint8_t *rbuf;
	size_t rpos, rlen;
	struct fbuf *cur;
	size_t curfill;
	struct wire_hdr curhdr;
	/* the message in progress from this task */
	int in_msg;
	uint64_t msg_left;
	int32_t msg_dst;
	int msg_drop; /* its first frame had no receiver */

	/* not read (flow.c): its last frame went to task `rpaused`, which
	 * holds more than its bound; linked on d->paused by pnext */
	int32_t rpaused;
	struct conn *pnext;
	int leaving; /* TM_LEAVING: read it all, never pause it */

	/* output: a ring of frames; qoff bytes of the first are sent */
	struct fbuf **q;
	size_t qhead, qcount, qcap, qoff;
	size_t qbytes; /* bytes of the frames queued (what is not sent) */
};

struct host;

/* A frame ready to send: header bytes followed by the payload, shared by
 * reference between output queues. */
struct fbuf {
	int refs;
	size_t len; /* header + payload bytes */
	uint8_t data[];
};

struct fbuf *fbuf_new(size_t len);
void fbuf_put(struct fbuf *f);
/* Appends f (taking a reference) to a growing array of held frames.
 * Returns 0 or -1 (out of memory; nothing changed). */
int fbuf_hold(struct fbuf ***v, size_t *n, size_t *cap, struct fbuf *f);
/* Builds a single-frame message (FIRST|LAST). */
struct fbuf *fbuf_frame(const struct wire_hdr *h, const void *payload,
			size_t len);

/* Accepts new connections on the listening socket. */
void conn_accept_cb(struct loop *l, struct loop_io *io, uint32_t ev);
/* Queues a frame (takes a reference).  Returns 0, or -1 if the connection
 * is closing (the frame is dropped). */
int conn_send(struct pvmd *d, struct conn *c, struct fbuf *f);
/* Marks the connection for closing; it is freed in the before-sleep
 * hook.  Further input is ignored.  Pending output is flushed best effort. */
void conn_close(struct pvmd *d, struct conn *c, const char *why);
/* Reads and handles everything the peer has already written (before a
 * task is declared gone, so none of its last messages is lost). */
void conn_drain_input(struct pvmd *d, struct conn *c);
/* Before-sleep work: write pending output, free closed connections. */
void conn_before_sleep(struct pvmd *d);
/* Writes `c`'s pending output now, as far as the socket takes it (for
 * output that must be readable before a change in shared memory). */
void conn_flush_now(struct pvmd *d, struct conn *c);
void conn_close_all(struct pvmd *d);
/* Who is at the other end, for the log: "pid N", "a connection from
 * a.b.c.d", "the link to host N" (a static buffer). */
const char *conn_peer(const struct conn *c);
/* Closes connections that have not enrolled within max_ms. */
void conn_expire_handshakes(struct pvmd *d, uint64_t max_ms);
/* Identity of the peer, from SO_PEERCRED and TM_CONNECT. */
pid_t conn_peer_pid(const struct conn *c);
struct task *conn_task(const struct conn *c);
void conn_set_task(struct conn *c, struct task *t);

/* Flow control (flow.c): stop and start reading c (a task's
 * connection) because of task `tid`; the paused ones. */
void conn_pause_input(struct pvmd *d, struct conn *c, int tid);
void conn_resume_input(struct pvmd *d, struct conn *c);
void conn_set_leaving(struct pvmd *d, struct conn *c);
static inline int conn_paused_for(const struct conn *c)
{
	return c->rpaused;
}
static inline struct conn *conn_paused_next(const struct conn *c)
{
	return c->pnext;
}

/* Drops c's queued output but the frame being written (a task that
 * leaves: what it has not read it never will). */
void conn_drop_output(struct conn *c);

/* Sends a control reply (same code and wid as the request) to `c`. */
void conn_reply(struct pvmd *d, struct conn *c, const struct wire_hdr *req,
		const struct wire_wr *payload);
/* Delivers a message generated by the pvmd (src 0x80000000, seq 0,
 * encoding Default) to local task `dst`; dropped if it is gone. */
void pvmd_send_msg(struct pvmd *d, int dst, int tag, int ctx,
		   const void *payload, size_t len);

/* A new connection on fd (nonblocking), watched for input. NULL if out
 * of memory (fd is then closed). */
struct conn *conn_new(struct pvmd *d, int fd, pid_t pid, enum conn_kind kind);

#endif /* PVMD_CONN_H */
