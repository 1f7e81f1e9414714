/*
 * conn.h - one nonblocking stream connection carrying wire frames.
 *
 * A connection reads frames incrementally (header checked with
 * wire_hdr_decode before any payload is allocated), reassembles the
 * frames of each source into whole messages, and hands each complete
 * message to its owner's on_msg hook.  Output that cannot be written at
 * once waits in a per-connection queue that lp_progress() drains.
 *
 * Connections register themselves as pollables (poll.h) so that the one
 * wait primitive blocks on all of them.  A connection that fails (peer
 * closed, write error, protocol error) is marked dead and closed; its
 * owner learns it through on_close and nothing else is affected.
 */
#ifndef LPVM_TRAN_CONN_H
#define LPVM_TRAN_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "pack/buf.h"
#include "poll.h"
#include "proto/wire.h"

struct lp_conn;

/* A message that arrived whole on a connection.  For a control frame,
 * ctl/ctllen hold the payload (malloc'd, the hook takes it); otherwise
 * buf is a received lp_buf (the hook takes it). */
struct lp_inmsg {
	struct wire_hdr h; /* header of the first frame (total = body size) */
	struct lp_buf *buf;
	uint8_t *ctl;
	size_t ctllen;
};

/* Called for each complete message.  Returns 0, or -1 to declare a
 * protocol error (the connection is then closed). */
typedef int (*lp_conn_msg_fn)(struct lp_conn *c, struct lp_inmsg *m);
/* Called once when the connection is closed for any reason. */
typedef void (*lp_conn_close_fn)(struct lp_conn *c);
/* Optional, single copy (set by the owner after lp_conn_new): the first
 * frame of an ordinary message begins; returns a buffer of at least
 * h->total bytes to assemble the body in (a waiting pvm_precv's), or
 * NULL for a new message buffer.  A claimed message ends with
 * claimed(ok 1), or claimed(ok 0) when the connection closes first. */
typedef void *(*lp_conn_claim_fn)(struct lp_conn *c, const struct wire_hdr *h);
typedef void (*lp_conn_claimed_fn)(struct lp_conn *c, const struct wire_hdr *h,
				   int ok);

/* Receive statistics of the socket routes (lpvm_priv_stats): body bytes
 * of ordinary messages received, and bytes written into memory on the
 * way to where the program reads them (the kernel's copy into the
 * destination or into the read-ahead buffer, copies out of that buffer,
 * pvm_precv's copy out of a message buffer): one copy per byte is
 * copied == bytes. */
struct lp_rx_stats {
	uint64_t bytes, copied;
};
extern struct lp_rx_stats lp_rx_stats;

struct lp_asm; /* reassembly of one source's message in progress */
struct lp_ochunk;

struct lp_conn {
	int fd;
	int dead; /* closed: the struct lingers until its owner drops it */
	const char *what; /* for messages: "pvmd", "direct" */
	void *owner;	  /* the transport's per-connection data */
	int peer;	  /* direct: the peer's tid (0 if unknown) */
	lp_conn_msg_fn on_msg;
	lp_conn_close_fn on_close;
	lp_conn_claim_fn claim;
	lp_conn_claimed_fn claimed;
	/* the last message was large: at the next message boundary read its
	 * header alone, so a large body goes straight into place */
	int big;

	/* input: header being read, then the payload of that frame */
	uint8_t hbuf[WIRE_HDR_SIZE];
	size_t hgot;
	struct wire_hdr cur;	/* header of the frame whose payload we read */
	uint32_t pgot;		/* payload bytes of cur read so far */
	struct lp_asm *cur_asm; /* where cur's payload goes */
	struct lp_asm *asms;	/* messages in progress, one per source */

	/* read-ahead buffer */
	uint8_t *rbuf;
	size_t rlen, rpos;

	/* output waiting for the socket */
	struct lp_ochunk *oq_head, *oq_tail;
	size_t oq_bytes;

	struct lp_pollable pl;
};

/* Wraps a connected stream socket (made nonblocking here).  Returns NULL
 * when memory runs out (the fd is then closed). */
struct lp_conn *lp_conn_new(int fd, const char *what, lp_conn_msg_fn on_msg,
			    lp_conn_close_fn on_close, void *owner);
/* Closes the fd, drops queued output and partial input and calls
 * on_close (where the owner forgets its pointer).  The struct is freed
 * later, by lp_conn_reap() at the start of the next lp_progress(), so a
 * handler may close connections safely.  Idempotent. */
void lp_conn_close(struct lp_conn *c);
void lp_conn_reap(void);

/*
 * Outgoing message: header template (dst, src, tag, ctx, enc, seq, wid;
 * len/flags/total are filled per frame) and a body given as segments,
 * cut into frames of at most `frag` payload bytes.
 */
struct lp_omsg {
	struct wire_hdr h;
	const struct lp_seg *seg;
	int nseg;
	uint64_t total;
	uint32_t frag;
	int ctrl; /* single CTRL frame */
	/* the send buffer whose body is the one segment: a transport that
	 * queues the message may borrow the body (lp_buf_lend) instead of
	 * copying it.  NULL: the memory is the caller's (psend, InPlace). */
	struct lp_buf *body;
};

/* Sends a message: writes as much as the socket takes now, copies the
 * rest into the output queue (the caller's memory is free on return).
 * Never blocks.  Returns 0, or PvmSysErr if the connection is dead,
 * PvmNoMem if the copy fails. */
int lp_conn_send(struct lp_conn *c, const struct lp_omsg *m);

/* Reads what the socket has and dispatches complete messages.  Returns 0,
 * or -1 after closing the connection (EOF, error, protocol error). */
int lp_conn_input(struct lp_conn *c);
/* Writes queued output.  Returns 0, or -1 after closing the connection. */
int lp_conn_output(struct lp_conn *c);
static inline int lp_conn_pending(const struct lp_conn *c)
{
	return c->oq_head != NULL;
}

/* The send and pending operations of a transport whose endpoints are
 * connections (struct lp_tran; the pvmd and direct transports). */
int lp_conn_ep_send(void *ep, const struct lp_omsg *m);
int lp_conn_ep_pending(void *ep);

/* Asks for huge pages on a large fresh allocation (page faults dominate
 * the cost of touching a big message the first time). */
void lp_mem_hint(void *p, size_t len);

#endif /* LPVM_TRAN_CONN_H */
