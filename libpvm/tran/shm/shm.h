/*
 * shm.h - the shared-memory transport (docs/shm.md), internal to its
 * folder: shm.c (inbox, peers, life cycle, the struct lp_tran row),
 * shm_tx.c (sending), shm_rx.c (receiving, waiting) and shm_precv.c
 * (single copy into a waiting pvm_precv).  Nothing outside this folder
 * includes it: the rest of libpvm sees the transport through struct
 * lp_tran only.
 */
#ifndef LPVM_TRAN_SHM_SHM_H
#define LPVM_TRAN_SHM_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"
#include "lpvm.h"
#include "proto/shmseg.h"
#include "tran/tran.h"

/* A message waiting in the sender's memory for room in a ring. */
struct shm_out {
	struct shm_out *next;
	struct shmseg_rec rec; /* tag, ctx, seq, enc, total */
	uint8_t *data;
	size_t cap;
	struct lp_lend *lend; /* data is a send buffer's body (buf.h), not
			       * our copy */
	uint64_t sent;	      /* bytes of data already in the ring */
	int started;	      /* a START (or REF) record went out */
	int lent;	      /* a REF went out, or the receiver took the
			       * rest of a stream: it reads data */
	int pull;	      /* the receiver may take the rest of this
			       * stream (slot->pull_addr) */
	int64_t grace_ns;     /* a large one waits until then for the
			       * receiver to post its pvm_precv buffer */
};

/* How long a large queued message waits for a posted receive before it
 * streams through the ring (docs/shm.md). */
#define SHM_GRACE_NS  30000
/* A sender that offers an awake receiver to stream a large message fills
 * the first chunks of the bounce area for up to this long while the
 * receiver takes the offer; if it has not by then, the sender writes on
 * itself, SHM_PIECE bytes per process_vm_writev, looking for the
 * receiver again after each piece. */
#define SHM_TAKE_NS   2000
#define SHM_PIECE     (256u << 10)
/* ... and the sender waits for that posting before it makes its queue
 * copy, at most total / SHM_WAIT_BPNS ns (about a memcpy's speed here,
 * so that a wait in vain costs about what the copy would). */
#define SHM_WAIT_BPNS 32
/* A queued message of at least this many bytes borrows its send
 * buffer's body instead of copying it (docs/shm.md, "Borrowed send
 * buffers"): measured faster from 1 MiB on, slower below 512 KiB when
 * the VM's cores are far apart. */
#define SHM_LEND_MIN  (1u << 20)
/* A receiver that waits this long for the next record of a stream it may
 * pull copies the rest from the sender's memory itself (docs/shm.md,
 * "Pulling the rest of a stream"). */
#define SHM_PULL_NS   50000

enum shm_pstate { SHM_P_NEW, SHM_P_OK, SHM_P_FAIL, SHM_P_DEAD };

/* The sending side of one destination (the route's endpoint). */
struct shm_peer {
	struct shm_peer *bnext; /* list of peers with queued output */
	int busy;
	int tid;
	enum shm_pstate state;
	struct lp_backoff retry; /* opening its inbox failed (shm_reach) */
	void *base;
	size_t size;
	struct shmseg_hdr *hdr;
	struct shmseg_slot *slot;
	uint8_t *ring;
	uint8_t *bounce; /* its bounce area (shmseg.h) */
	uint64_t mask;	 /* ringsize - 1 */
	uint64_t head;	 /* our copy of slot->head */
	uint64_t pub;	 /* start of the record publish() releases */
	uint64_t tail;	 /* last tail we read */
	int efd;	 /* our copy of the receiver's eventfd */
	int nodirect;	 /* process_vm_writev is not allowed to it */
	int noposts;	 /* its last large message was not taken by a posted
			  * pvm_precv: do not wait for one (grace) */
	struct shm_out *q, *qtail;
	size_t qbytes;
};

/* ---- state shared by the three files ---- */
struct shm_in; /* receiving side of one slot (shm_rx.c) */
struct shm_self {
	int on; /* the route is up for this task */
	pid_t pid;
	void *base; /* our inbox */
	size_t size;
	struct shmseg_hdr *hdr;
	uint8_t *bounce; /* our bounce area (senders may change hdr) */
	uint32_t nslot, ringsize;
	int efd; /* our eventfd */
	char name[160];
	struct shm_in *in;     /* nslot entries */
	struct shm_peer *busy; /* peers with queued output */
	int forked;	       /* we are a child that inherited the mapping */
	int fdwatch; /* pvm_getfds was called: senders always wake us */
	/* the wait policy's last answer (shm_crowded): a peer shares our
	 * CPU, so a stream stalls whenever we run: pull it at once */
	int crowded;
};
extern struct shm_self lp_shm;

/* Whether process pid has exited (pid <= 0: not known yet, so no). */
int lp_shm_pid_gone(pid_t pid);
/* Copies n bytes at addr in process pid to dst (process_vm_readv).
 * Returns 0, or -1 (errno set; ESRCH: pid has exited). */
int lp_shm_read(pid_t pid, void *dst, uint64_t addr, uint64_t n);

/* shm_tx.c */
int lp_shm_tx_send(struct shm_peer *sp, const struct lp_omsg *m);
int lp_shm_tx_push(struct shm_peer *sp); /* records written */
void lp_shm_out_free(struct shm_out *o);
void lp_shm_tx_drop(struct shm_peer *sp);
/* pvm_exit: whole queued messages go through the pvmd route, a message
 * cut short is abandoned and resent whole there. */
void lp_shm_tx_handoff(struct shm_peer *sp);

/* shm_rx.c */
int lp_shm_rx_init(void);
void lp_shm_rx_fini(void);
int lp_shm_rx_poll(void);
int lp_shm_rx_check(int *took);
/* Stores, in every active slot, the last seq delivered in order from its
 * sender (for the senders' single-copy check). */
void lp_shm_rx_publish_delivered(void);

/* shm_precv.c: single copy into a waiting pvm_precv */
int lp_shm_tx_direct(struct shm_peer *sp, const struct lp_omsg *m);
int lp_shm_tx_direct_wait(struct shm_peer *sp, const struct lp_omsg *m);

/* ---- the operations of lp_tran_shm (shm.c) ---- */

/* Whether the shared-memory route is up (then lp_progress spins). */
static inline int lp_shm_active(void)
{
	return lp_shm.on && !lp_shm.forked; /* a forked child reads none */
}
/* Takes in whatever the rings hold and pushes queued output.  Returns the
 * number of messages (or records) moved: 0 when nothing happened. */
int lp_shm_poll(void);
/* 1 when no sender has a ring in our inbox and no output of ours waits
 * for room: nothing to spin for (lp_progress sleeps at once). */
int lp_shm_quiet(void);
/* Before blocking: announces that we sleep and looks once more.  Returns
 * > 0 if something arrived (then do not sleep); *cap_ns is set to the
 * longest sleep allowed (-1: no limit) for the checks of dead peers. */
int lp_shm_sleep_begin(int64_t *cap_ns);
void lp_shm_sleep_end(void);
/* pvm_getfds: a program that waits on our fds itself must see shm
 * arrivals too, so senders write our eventfd for every message. */
void lp_shm_watch_fds(void);
/* Single copy (shm_precv.c): pvm_precv posts its buffer (returns 1
 * if it did: at least lp_shm_direct_min bytes, route up, none posted);
 * lp_shm_post_done says a sender has filled it (meanwhile it copies the
 * part of the message a sender offers us), lp_shm_post_take gets
 * what it wrote and ends the posting; lp_shm_withdraw ends it without a
 * message (1), or returns 0 when a sender had claimed it: it has waited
 * for DONE, call lp_shm_post_take. */
extern size_t lp_shm_direct_min;
/* Whether a message of `total` bytes may go by a posting now: at least
 * lp_shm_direct_min, and this task not waiting for a CPU
 * (lp_wait_loaded).  Under that load a posting keeps each side
 * waiting for the other (8 tasks all-to-all on 2 CPUs, 64 KiB: 900-960
 * us an exchange with postings, 600-620 without, 950-1020 over sockets;
 * bench/RESULTS.md). */
int lp_shm_direct_ok(uint64_t total);
/* from lp_shm_stream_min bytes on (PVM_SHM_STREAM, 0: never) the
 * receiver is offered to take part of a message through the bounce area;
 * without that, a message is split with an awake receiver from
 * lp_shm_split_min bytes on (PVM_SHM_SPLIT, 0: never) */
extern size_t lp_shm_stream_min;
extern size_t lp_shm_split_min;
/* A queued message of more than half a ring (and at least
 * lp_shm_direct_min bytes) streams through the ring, and the receiver
 * may pull the rest if the sender stops pushing; from lp_shm_ref_min
 * bytes on (PVM_SHM_REF, 0: never) it goes by reference at once: the
 * receiver copies it all from the sender's memory. */
extern size_t lp_shm_ref_min;
/* Tests only (PVM_SHM_TEST_NAP, microseconds): a pause between the last
 * look at the rings and the look before sleeping, the window in which a
 * sender can publish and die (test/shm.bats). */
extern unsigned lp_shm_test_nap_us;
int lp_shm_post(int src, int tag, void *buf, size_t len);
int lp_shm_post_done(void);
void lp_shm_post_take(struct lp_posted *out);
int lp_shm_withdraw(void);

/* pvm_exit (lp_flush): hands every queued message to the pvmd route. */
void lp_shm_handoff(void);

#endif /* LPVM_TRAN_SHM_SHM_H */
