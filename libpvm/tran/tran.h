/*
 * tran.h - the transport contract and the per-peer route table.
 *
 * A transport moves whole messages (struct lp_omsg) to a peer task.  The
 * route layer (route.c) keeps the transports sorted by exclusivity and
 * picks one per destination: the highest-ranked transport whose reach()
 * answers with an endpoint wins, and the choice is cached in the peer's
 * entry.  The route of last resort (.always: the pvmd route) ranks
 * lowest, reaches every task and cannot be turned off.  PVM_TRAN selects
 * transports by name (docs/architecture.md).
 *
 * Adding a transport means one folder under libpvm/tran/ and one row in
 * the table of route.c; route.c, the progress engine (poll.c) and the
 * layers above know transports only through this struct.  Transports
 * never call up into the API; complete incoming messages go to
 * lp_msg_arrived() (msg/msg.h) and control replies to lp_ctl_arrived().
 */
#ifndef LPVM_TRAN_H
#define LPVM_TRAN_H

#include <stdint.h>

#include "conn.h"
#include "lpvm.h"

/* What a sender wrote into a posted pvm_precv buffer (post_take). */
struct lp_posted {
	int src, tag, enc;
	uint64_t len;
	uint32_t seq;
};

/* The CPUs a waiting task may run on, for the wait policy (waitpol.h). */
#define LP_CPUS_MAX 1024
struct lp_cpus {
	uint64_t set[LP_CPUS_MAX / 64]; /* bit c: CPU c in our mask */
	int n;				/* CPUs in the mask */
	int cpu;			/* the one we run on, -1: unknown */
};
static inline int lp_cpus_has(const struct lp_cpus *c, int cpu)
{
	return cpu >= 0 && cpu < LP_CPUS_MAX &&
	       (c->set[cpu / 64] >> (cpu % 64) & 1);
}

struct lp_tran {
	const char *name; /* as PVM_TRAN names it */
	int exclusivity;  /* higher is preferred (route.c sorts by it) */
	int always;	  /* the route of last resort: reaches every task and
			   * pvmd, never fails over, cannot be excluded */

	/* ---- life cycle ---- */
	/* Optional, before TM_CONNECT: opens what the pvmd announces to
	 * other tasks.  Returns a TCP port for TM_CONNECT, or 0. */
	int (*listen)(void);
	/* After enrollment.  forced: PVM_TRAN named this transport, so it
	 * carries what it can reach whatever PvmRoute says.  Returns 0, or
	 * -1 when the transport is unavailable to this task (skipped). */
	int (*init)(int forced);
	/* Optional: the pvmd has begun to listen for other hosts (the
	 * machine got its first other host after we enrolled).  Opens what
	 * listen() would have; returns a TCP port to announce, or 0. */
	int (*net_up)(void);
	/* Optional, pvm_exit (lp_flush): hands output that waits on
	 * something other than a socket to the next route. */
	void (*handoff)(void);
	/* Closes everything the transport opened (pvm_exit, exit). */
	void (*fini)(void);

	/* ---- sending ---- */
	/* Returns an endpoint for sending to `tid`, or NULL if this transport
	 * cannot reach it (now); a transport that retries later keeps its
	 * own back-off.  May connect; never blocks for long. */
	void *(*reach)(int tid);
	/* Sends one message.  The message's memory stays the caller's: the
	 * transport copies what it cannot write now.  Never blocks.  Returns
	 * 0, or a negative code: the endpoint is then unusable (the route
	 * layer forgets it and falls back). */
	int (*send)(void *ep, const struct lp_omsg *m);
	/* Optional, the route of last resort: a task message arrived on the
	 * pvmd link (flow control).  Returns 1 when it was the transport's
	 * own (it is freed then), 0 to deliver it. */
	int (*link_arrived)(const struct wire_hdr *h, struct lp_buf *b);
	/* Whether output is still queued on an endpoint (for lp_flush). */
	int (*pending)(void *ep);
	/* Optional: a send on `ep` failed and the route layer forgets it
	 * (the transport may back off before reaching that peer again). */
	void (*ep_failed)(void *ep);

	/* ---- progress without a descriptor (poll.c); all optional ----
	 * A transport whose data arrives without waking a descriptor (rings
	 * in shared memory) is polled by the progress engine: it spins on
	 * progress() while active() and not quiet(), and brackets a block
	 * in ppoll with sleep_begin()/sleep_end().  Descriptors themselves
	 * go through lp_poll_add (poll.h). */
	int (*active)(void);   /* 1: poll me now */
	int (*progress)(void); /* moves what it can, no system call; returns
				* the number of messages (records) moved */
	int (*quiet)(void);    /* 1: nothing can come without a wake-up */
	/* Before blocking: announce the sleep and look once more; returns
	 * > 0 when something arrived (then no sleep, sleep_end done);
	 * *cap_ns: longest sleep allowed (-1: no limit). */
	int (*sleep_begin)(int64_t *cap_ns);
	void (*sleep_end)(void);
	/* pvm_getfds: the program waits on our descriptors itself, so the
	 * transport must wake a descriptor for every arrival from now on. */
	void (*watch_fds)(void);
	/* Whether our peers crowd the CPUs of c at time now (1: sleep at
	 * once instead of spinning; waitpol.h); the transport may publish
	 * c->cpu as ours.  Asked at every wait that would spin: cheap. */
	int (*crowded)(const struct lp_cpus *c, int64_t now);

	/* ---- single copy into a waiting pvm_precv (optional) ---- */
	/* Smallest buffer worth posting now; SIZE_MAX: none. */
	size_t (*post_min)(void);
	/* Offers buf to senders of (src, tag): 1 if posted. */
	int (*post)(int src, int tag, void *buf, size_t len);
	/* 1 once a sender has filled the posting (meanwhile it moves what
	 * senders offer). */
	int (*post_done)(void);
	/* What the sender wrote; ends the posting. */
	void (*post_take)(struct lp_posted *out);
	/* Ends the posting without a message (1), or 0 when a sender had
	 * claimed it: it has waited for it to be filled; call post_take. */
	int (*post_withdraw)(void);
};

/* The table of route.c, each row defined in its transport's folder. */
extern const struct lp_tran lp_tran_pvmd;   /* tran/pvmd/ */
extern const struct lp_tran lp_tran_direct; /* tran/direct/ */
extern const struct lp_tran lp_tran_shm;    /* tran/shm/, docs/shm.md */

/* ---- the core's link to its pvmd (pvmd_link.c; the pvmd transport
 * sends on it too) ---- */

/* Connects to the pvmd's socket.  Returns 0 or PvmSysErr. */
int lp_pvmd_connect(void);
/* The connection to the pvmd, NULL when not connected or dead. */
struct lp_conn *lp_pvmd_conn(void);
/* Set once the pvmd connection has died; cleared by lp_pvmd_connect. */
extern int lp_pvmd_lost;
/* Closes it (pvm_exit). */
void lp_pvmd_close(void);
/* pvm_exit with output still queued: tells the pvmd, on a connection of
 * its own, to read everything we write from now on, past the bounds of
 * its flow control (TM_LEAVING), so that leaving never waits for a
 * receiver.  0, or PvmSysErr. */
int lp_pvmd_leaving(void);
/* Every task message that arrives on it goes first to the route of last
 * resort (lp_route_link_arrived), which keeps the flow control of the
 * pvmd route. */
/* Whether the process at the other end of a Unix socket runs as our uid. */
int lp_peer_is_us(int fd);

/* enroll.c: whether a control call waits for its reply now. */
int lp_ctl_busy(void);

/* ---- per-peer state (route.c) ---- */

struct lp_peer {
	struct lp_peer *next; /* hash chain */
	int tid;
	/* as sender: */
	uint32_t sseq;		    /* last seq sent to this peer */
	const struct lp_tran *tran; /* chosen transport, NULL = not chosen */
	void *ep;		    /* its endpoint */
	int rank;		    /* tran's place in route.c's table */
	/* as receiver: */
	uint32_t rseq;	     /* last seq delivered from this peer */
	struct lp_buf *held; /* early messages, sorted by seq */
};

/* Whether `tid` is another task of this host (a task tid, our host part,
 * not ours): what the shared-memory and Unix-socket routes can reach. */
static inline int lp_tid_local_peer(int tid)
{
	return tid > 0 && !(tid & (WIRE_TID_MCAST | (int)WIRE_TID_DAEMON)) &&
	       (tid & WIRE_TID_TASK_MASK) != 0 &&
	       (tid & WIRE_TID_HOST_MASK) == (lp.mytid & WIRE_TID_HOST_MASK) &&
	       tid != lp.mytid;
}

/* Back-off of a transport that failed to reach a peer (one may not be
 * there yet: a child that has not enrolled): after each failure in a row
 * the next attempt waits first_ns, then twice as long, up to max_ns. */
struct lp_backoff {
	int64_t wait_ns;  /* the last wait, 0: no failure */
	int64_t retry_ns; /* no attempt before then */
};
static inline int lp_backoff_waiting(const struct lp_backoff *b, int64_t now)
{
	return b->wait_ns && now < b->retry_ns;
}
static inline void lp_backoff_failed(struct lp_backoff *b, int64_t now,
				     int64_t first_ns, int64_t max_ns)
{
	int64_t w = b->wait_ns ? 2 * b->wait_ns : first_ns;
	b->wait_ns = w < max_ns ? w : max_ns;
	b->retry_ns = now + b->wait_ns;
}

/* Finds or creates the entry of `tid`; NULL when memory runs out. */
struct lp_peer *lp_peer_get(int tid);
struct lp_peer *lp_peer_find(int tid);
/* Forgets every peer (and frees held messages). */
void lp_peer_reset(void);

/* Sends a message to task m->h.dst on its route, choosing one first if
 * needed; falls back to the route of last resort when another fails. */
int lp_route_send(struct lp_peer *p, const struct lp_omsg *m);
/* Sends a message on the route of last resort: to a pvmd (m->h.dst is a
 * pvmd's tid; unordered, seq 0), or one that a transport hands off. */
int lp_route_send_last(const struct lp_omsg *m);
/* A task message arrived on the pvmd link: 1 if the route of last
 * resort took it (link_arrived), 0 to deliver it. */
int lp_route_link_arrived(const struct wire_hdr *h, struct lp_buf *b);
/* A transport's endpoint died: peers using it choose again. */
void lp_route_ep_lost(void *ep);
/* Before TM_CONNECT: reads PVM_TRAN and opens the transports' listeners;
 * returns the TCP port to announce (0: none). */
int lp_route_listen(void);
/* TM_NETUP: every transport's net_up; returns the TCP port to announce
 * (0: none). */
int lp_route_net_up(void);
/* Initialises transports after enrollment / closes them all. */
void lp_route_init(void);
void lp_route_fini(void);
/* Whether some endpoint still has output queued. */
int lp_route_pending(void);
/* pvm_exit: every transport hands its waiting output to the next route. */
void lp_route_handoff(void);
/* pvm_getfds: every transport wakes a descriptor for each arrival. */
void lp_route_watch_fds(void);

/* Single copy into a waiting pvm_precv, through the transport that
 * offers it (the highest-ranked one with post ops, see struct lp_tran):
 * lp_route_post_min is SIZE_MAX when none does now. */
size_t lp_route_post_min(int src);
int lp_route_post(int src, int tag, void *buf, size_t len);
int lp_route_post_done(void);
void lp_route_post_take(struct lp_posted *out);
int lp_route_post_withdraw(void);

/* The seq after `s` (0 means "unordered" and is skipped on wrap). */
static inline uint32_t lp_seq_next(uint32_t s)
{
	return s + 1 ? s + 1 : 1;
}

/* ---- what the message layer above registers: no transport calls up
 * by name (docs/architecture.md) ---- */

struct lp_tran_up {
	/* A complete ordinary message arrived (ownership passes). */
	void (*arrived)(struct lp_buf *b);
	/* A message of src with seq went straight into the waiting
	 * pvm_precv's buffer (lp_ptarget): the order moves past it. */
	void (*took)(int src, uint32_t seq);
	/* Whether the waiting pvm_precv may take this message straight
	 * into its buffer: it matches, it is the next in order from src,
	 * and no message handler wants it. */
	int (*direct_ok)(int src, int tag, int ctx, uint32_t seq);
	/* An enrollment failed: what arrived on its connection was for a
	 * task that never was, and is dropped. */
	void (*dropped)(void);
};
/* Called once by the layer above at start-up. */
void lp_tran_set_up(const struct lp_tran_up *up);
/* What transports call (a message nobody registered for is freed). */
void lp_tran_arrived(struct lp_buf *b);
void lp_tran_took(int src, uint32_t seq);
void lp_tran_dropped(void);
int lp_tran_direct_ok(int src, int tag, int ctx, uint32_t seq);

/*
 * The receive waiting now (set by msg/ for the time of one lp_progress).
 * For a pvm_precv (copy = 1) a transport that has a whole message which
 * lp_tran_direct_ok accepts may copy it straight into buf (then fill in
 * the result and call lp_tran_took) instead of building a buffer.  A
 * matching message that joins the queue meanwhile turns the target off,
 * so that the earliest match still wins, and sets hit: a transport then
 * stops reading more for now, so that the receive returns at once.
 */
struct lp_precv_target {
	int active, done;
	int copy;	   /* buf is a pvm_precv's: a transport may fill it */
	int posted;	   /* buf is posted for single copy (lp_route_post):
			      a socket may fill it once it withdrew that */
	int hit;	   /* a matching message joined the queue */
	int tid, tag, ctx; /* the filter (-1: any) */
	void *buf;
	size_t room;
	int src, rtag; /* result */
	size_t len;
};
extern struct lp_precv_target lp_ptarget;

/*
 * A pvm_precv buffer that a socket transport fills over several
 * lp_progress calls (a message read straight into it): set by the
 * transport when the first frame arrives, while lp_ptarget offered buf.
 * The pvm_precv then waits for that message whatever else arrives, and
 * no other transport writes into buf.  done: complete (src, tag, len
 * set; the order has moved past it).  buf NULL again: the message was
 * lost (its connection closed), the wait goes on as before.
 */
struct lp_pclaim {
	void *buf;
	int done;
	int src, tag;
	size_t len;
};
extern struct lp_pclaim lp_pclaim;
/* Whether a message with this first frame may be read straight into the
 * offered pvm_precv buffer (lp_ptarget): it fits, it matches, it is the
 * next in order, no claim is under way; then claims it and returns buf. */
void *lp_pclaim_begin(const struct wire_hdr *h);
/* The claimed message is complete (ok 1) or lost (ok 0). */
void lp_pclaim_end(const struct wire_hdr *h, int ok);
static inline int lp_precv_fits(int src, int tag, int ctx)
{
	return lp_ptarget.active &&
	       (lp_ptarget.tid == -1 || lp_ptarget.tid == src) &&
	       (lp_ptarget.tag == -1 || lp_ptarget.tag == tag) &&
	       lp_ptarget.ctx == ctx;
}

/* ---- enroll.c: the core below every transport ---- */

/* A control frame arrived from the pvmd (ownership of data passes). */
void lp_ctl_arrived(const struct wire_hdr *h, uint8_t *data, size_t len);
/* Called after each enrollment (the API layer keeps the variables
 * programs read in step); set once at start-up. */
void lp_enroll_set_hook(void (*enrolled)(void));
/* Count of TM_GS_EVENTs received (lpvm_priv_gs_epoch). */
extern unsigned lp_gs_epoch;

#endif /* LPVM_TRAN_H */
