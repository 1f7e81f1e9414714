/*
 * tran.h - transports and the per-peer route table.
 *
 * A transport moves whole messages (struct lp_omsg) to a peer task.  The
 * route layer (route.c) picks one per destination, by exclusivity: the
 * highest-ranked transport whose reach() answers with an endpoint wins,
 * and the choice is cached in the peer's entry.  The pvmd route ranks
 * lowest and always answers.  Adding a transport (shared memory, TCP)
 * means one more struct lp_tran in the table of route.c; nothing above
 * this layer changes.
 *
 * Transports never call up into the API; complete incoming messages go
 * to lp_msg_arrived() (msg/msg.h) and control replies to lp_ctl_arrived().
 */
#ifndef LPVM_TRAN_H
#define LPVM_TRAN_H

#include "conn.h"

struct lp_tran {
	const char *name;
	int exclusivity; /* higher is preferred */
	/* Called after enrollment (listeners...).  Returns 0, or -1 when the
	 * transport is unavailable to this task (it is then skipped). */
	int (*init)(void);
	/* Returns an endpoint for sending to `tid`, or NULL if this transport
	 * cannot reach it (now).  May connect; never blocks for long. */
	void *(*reach)(int tid);
	/* Sends one message.  The message's memory stays the caller's: the
	 * transport copies what it cannot write now.  Never blocks.  Returns
	 * 0, or a negative code: the endpoint is then unusable (the route
	 * layer forgets it and falls back). */
	int (*send)(void *ep, const struct lp_omsg *m);
	/* Whether output is still queued on an endpoint (for lp_flush). */
	int (*pending)(void *ep);
	/* Closes everything the transport opened (pvm_exit, exit). */
	void (*fini)(void);
};

extern const struct lp_tran lp_tran_pvmd;
extern const struct lp_tran lp_tran_direct;
/* shared memory (tran_shm*.c, docs/shm.md): every local destination */
extern const struct lp_tran lp_tran_shm;

/* ---- pvmd route (tran_pvmd.c) ---- */

/* Connects to the pvmd's socket.  Returns 0 or PvmSysErr. */
int lp_pvmd_connect(void);
/* The connection to the pvmd, NULL when not connected or dead. */
struct lp_conn *lp_pvmd_conn(void);
/* Set once the pvmd connection has died; cleared by lp_pvmd_connect. */
extern int lp_pvmd_lost;
/* Whether the process at the other end of a Unix socket runs as our uid. */
int lp_peer_is_us(int fd);

/* ---- direct routes over TCP (tran_tcp.c), part of lp_tran_direct ---- */

/* Before TM_CONNECT: loads the VM secret and opens the TCP listener.
 * Returns its port, or 0 when the task accepts no TCP direct routes. */
int lp_tcp_listen_open(void);
/* After enrollment: starts accepting on it. */
void lp_tcp_start(void);
/* Whether a direct route to `tid` goes over TCP: another host, or
 * PVM_DIRECT_TCP=1 (a test option). */
int lp_tcp_wanted(int tid);
/* Whether `tid` may open a TCP direct route to us (its hello). */
int lp_tcp_tid_ok(int tid);
/* An authenticated socket to `tid`, or -1: none (yet); then the pvmd
 * route is used and the handshake may finish in the background. */
int lp_tcp_connect(int tid);
/* Closes the listener and every handshake in progress. */
void lp_tcp_fini(void);
/* tran_direct.c: an accepted socket has authenticated as task `tid`. */
void lp_direct_adopt(int fd, int tid);
/* enroll.c: whether a control call waits for its reply now. */
int lp_ctl_busy(void);

/* ---- per-peer state (route.c) ---- */

enum lp_route_state { LP_ROUTE_UNKNOWN, LP_ROUTE_SET };

struct lp_peer {
	struct lp_peer *next; /* hash chain */
	int tid;
	/* as sender: */
	uint32_t sseq;               /* last seq sent to this peer */
	const struct lp_tran *tran;  /* chosen transport, NULL = not chosen */
	void *ep;                    /* its endpoint */
	/* direct route attempts that failed in a row (the peer may not listen
	 * yet: a child that has not enrolled), and when to try again */
	int direct_fails;
	int64_t direct_retry_ms;
	/* as receiver: */
	uint32_t rseq;               /* last seq delivered from this peer */
	struct lp_buf *held;         /* early messages, sorted by seq */
};

/* Finds or creates the entry of `tid`; NULL when memory runs out. */
struct lp_peer *lp_peer_get(int tid);
struct lp_peer *lp_peer_find(int tid);
/* Forgets every peer (and frees held messages). */
void lp_peer_reset(void);

/* Sends a message to task m->h.dst on its route, choosing one first if
 * needed; falls back to the pvmd route when another fails. */
int lp_route_send(struct lp_peer *p, const struct lp_omsg *m);
/* A transport's endpoint died: peers using it choose again. */
void lp_route_ep_lost(void *ep);
/* Initialises transports after enrollment / closes them all. */
void lp_route_init(void);
void lp_route_fini(void);
/* Whether some endpoint still has output queued. */
int lp_route_pending(void);

/* ---- hooks into the layers above (msg/, enroll.c) ---- */

/* A complete ordinary message arrived (ownership passes). */
void lp_msg_arrived(struct lp_buf *b);
/* A control frame arrived from the pvmd (ownership of data passes). */
void lp_ctl_arrived(const struct wire_hdr *h, uint8_t *data, size_t len);
/* Count of TM_GS_EVENTs received (lpvm_priv_gs_epoch). */
extern unsigned lp_gs_epoch;

#endif /* LPVM_TRAN_H */
