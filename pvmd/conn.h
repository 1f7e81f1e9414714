/*
 * conn.h - the state of one task connection (private to conn.c and the
 * few modules that need its fields; others use the functions in pvmd.h).
 */
#ifndef PVMD_CONN_H
#define PVMD_CONN_H

#include <stdint.h>
#include <sys/types.h>

#include "loop.h"
#include "pvmd.h"
#include "wire.h"


enum conn_kind {
	CONN_TASK,   /* a task on this host (Unix socket) */
	CONN_LINK,   /* another pvmd (TCP, docs/hosts.md) */
};

enum conn_state {
	C_HANDSHAKE, /* accepted; only TM_CONNECT (a link: DM_HELLO/AUTH) */
	C_READY,     /* enrolled: c->task is set */
	C_CLOSING,   /* marked; freed in the before-sleep hook */
};

struct conn {
	struct pvmd *d;
	struct conn *next, *prev;   /* d->conns, or d->closing (next only) */
	struct conn *dirty_next;    /* d->dirty */
	int dirty;
	int fd;
	struct ev_io io;
	enum conn_state state;
	pid_t pid;                  /* SO_PEERCRED */
	uint64_t since;             /* accepted at (ev_now_ms) */
	struct task *task;
	enum conn_kind kind;

	/* a link: the host at the other end once authenticated, and the
	 * handshake's state (host.c) */
	struct host *host;
	int outgoing;               /* we opened it */
	int auth_step;
	int by_ticket;              /* handshake keyed with a start ticket
				     * (docs/hosts.md, "Registered hoster") */
	int peer_no;                /* host number the peer claims */
	uint8_t nonce_c[32], nonce_a[32];
	uint64_t last_rx, last_tx;  /* ev_now_ms of the last frame each way */

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
	int msg_drop;               /* its first frame had no receiver */

	/* output: a ring of frames; qoff bytes of the first are sent */
	struct fbuf **q;
	size_t qhead, qcount, qcap, qoff;
};

struct host;

/* A new connection on fd (nonblocking), watched for input. NULL if out
 * of memory (fd is then closed). */
struct conn *conn_new(struct pvmd *d, int fd, pid_t pid, enum conn_kind kind);

#endif /* PVMD_CONN_H */
