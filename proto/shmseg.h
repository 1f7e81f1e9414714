/*
 * shmseg.h - the shared-memory inbox of a task (docs/shm.md), shared by
 * libpvm (libpvm/tran/shm/) and the pvmd (task exit, cleanup).
 *
 * Every enrolled task creates one POSIX shared-memory object, its inbox,
 * named /pvm.<uid>.<vmid or 0>.<tid in hex> (so /dev/shm/pvm....), mode
 * 0600.  It holds a header, an array of slots and one ring per slot.  A
 * slot is a single-producer / single-consumer ring for one ordered pair:
 * a sender claims a free slot (CAS of `sender` from 0 to its tid) and is
 * from then on the only writer of `head`; the owner of the inbox is the
 * only writer of `tail`.  Both are 64-bit byte counters that only grow;
 * the ring position is the counter modulo the ring size (a power of two).
 *
 * The sender publishes a record with a release store of its `pos` word
 * (then of head, which only says how far the ring is filled); the owner
 * takes the record at its tail after an acquire load of that word and
 * frees the room with a release store of tail.  No lock, no system call while
 * the owner polls.
 *
 * Wake-up: before it sleeps the owner stores sleeping = 1 (seq_cst) and
 * looks at every ring once more; a sender stores pos, issues a seq_cst
 * fence and reads sleeping: if set, it writes its copy of the owner's
 * eventfd (obtained with pidfd_getfd), so no wake-up is lost.
 */
#ifndef PVM_SHMSEG_H
#define PVM_SHMSEG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHMSEG_MAGIC   0x314d48534d565050ULL /* "PPVMSHM1" */
#define SHMSEG_VERSION 8
#define SHMSEG_LINE    64
#define SHMSEG_MAXSLOT 1024

/* `inflight` of a slot: the seq of a message being streamed, with one of
 * these bits (docs/shm.md, "Leaving in the middle of a message"). */
#define SHMSEG_STREAMING (1ULL << 32)
#define SHMSEG_ABANDONED (1ULL << 33)
#define SHMSEG_READING                                                         \
	(1ULL << 34) /* the owner copies a REF's body,                         \
		      * or the rest of a stream */
/* A stream the owner may pull (slot->pull_addr set): the bytes the sender
 * has taken for records so far, from this bit on (docs/shm.md, "Pulling
 * the rest of a stream").  Such streams are below SHMSEG_PULL_MAX bytes. */
#define SHMSEG_OFF_SHIFT 35
#define SHMSEG_PULL_MAX	 ((1ULL << (64 - SHMSEG_OFF_SHIFT)) - 1)
/* `ref_ack`: the owner's answer to a REF record */
#define SHMSEG_REF_DONE	 (1ULL << 32)
#define SHMSEG_REF_FAIL	 (1ULL << 33)

/* Posted receive (docs/shm.md, "Large messages into a waiting
 * pvm_precv"): the low byte of pr_state. */
enum { SHMSEG_PR_IDLE, SHMSEG_PR_POSTED, SHMSEG_PR_CLAIMED, SHMSEG_PR_DONE };
/* The low byte of pr_offer (generation as in pr_state): the sender that
 * claimed a posting offers the owner to stream the message through the
 * bounce area (STREAM), or a part of the copy (OFFERED; docs/shm.md,
 * "Streaming through the bounce area", "Splitting the copy"). */
enum {
	SHMSEG_OF_NONE,
	SHMSEG_OF_OFFERED,
	SHMSEG_OF_RECV_TAKEN,
	SHMSEG_OF_RECV_DONE,
	SHMSEG_OF_RECV_FAILED,
	SHMSEG_OF_SENDER_TAKEN,
	SHMSEG_OF_STREAM
};

/* The bounce area of an inbox (docs/shm.md, "Streaming through the
 * bounce area"): SHMSEG_BOUNCE_N chunks of SHMSEG_BOUNCE_CHUNK bytes, a
 * pipeline from the sender that claimed the posting to the owner. */
#define SHMSEG_BOUNCE_CHUNK (64u << 10)
#define SHMSEG_BOUNCE_N	    8u

struct shmseg_hdr {
	/* line 0: written once by the owner at creation */
	uint64_t magic;
	uint32_t version;
	int32_t tid; /* owner */
	int32_t pid;
	int32_t efd; /* the owner's eventfd (a number in its fd table) */
	uint32_t nslot;
	uint32_t ringsize;		/* bytes per ring, a power of two */
	uint64_t slot_off;		/* offset of slot[0] */
	uint64_t ring_off;		/* offset of ring 0 */
	uint64_t size;			/* bytes in the object */
	uint8_t pad0[SHMSEG_LINE - 56]; /* the bounce area follows the rings */
	/* line 1: flags read by senders */
	_Atomic int32_t dead;	  /* set by the pvmd when the owner is gone */
	_Atomic int32_t sleeping; /* the owner may block: wake it */
	/* the CPU the owner last waited on, + 1 (0: unknown); written only
	 * when it changes, read by the peers' wait policy (waitpol.h) */
	_Atomic int32_t cpu;
	uint8_t pad1[SHMSEG_LINE - 12];
	/* line 2: posted receive: the owner waits in pvm_precv for a message
	 * of up to pr_len bytes at pr_addr in its memory.  pr_state is
	 * (generation << 8 | SHMSEG_PR_*): the generation changes with every
	 * posting, so a sender's CAS never claims a later one. */
	_Atomic uint32_t pr_state;
	int32_t pr_src, pr_tag, pr_ctx; /* filter (-1: any) */
	uint64_t pr_addr, pr_len;	/* the owner's buffer */
	int32_t pr_gotsrc, pr_gottag;	/* filled in by the sender */
	uint64_t pr_gotlen;
	uint32_t pr_gotseq;
	_Atomic int32_t pr_spid; /* pid of the sender that claimed */
	int32_t pr_gotenc;
	/* the owner's data format (DSIG_FMT_*): a sender of another one
	 * sends through the ring, where the owner converts (a 32-bit and a
	 * 64-bit task of one host) */
	int32_t pr_fmt; /* (line 2 is full) */
	/* line 3: the offer of a part of the copy: the owner copies of_len
	 * bytes at of_addr in the claimer's memory (pid pr_spid) to offset
	 * of_off of its buffer (OFFERED); or the message, of_len bytes,
	 * streams through the bounce area (STREAM). */
	_Atomic uint32_t pr_offer;
	int32_t of_cpu; /* STREAM: the CPU the claimer runs on */
	uint64_t of_addr, of_off, of_len;
	uint8_t pad3[SHMSEG_LINE - 32];
	/* line 4: written by the claimer only: (generation << 32) | chunks
	 * of the message it has put in the bounce area so far.  Chunk c
	 * holds the message from c * SHMSEG_BOUNCE_CHUNK if c < st_k0, else
	 * from st_off + (c - st_k0) * SHMSEG_BOUNCE_CHUNK (the claimer wrote
	 * what lies between itself). */
	_Atomic uint64_t st_filled;
	_Atomic uint64_t st_off;
	_Atomic uint32_t st_k0;
	uint8_t pad4[SHMSEG_LINE - 20];
	/* line 5: written by the owner only: ... chunks it has taken out */
	_Atomic uint64_t st_drained;
	uint8_t pad5[SHMSEG_LINE - 8];
	/* lines 6..: bitmap of claimed slots (bit i: slot i has a sender) */
	_Atomic uint64_t active[SHMSEG_MAXSLOT / 64];
};

struct shmseg_slot {
	/* line 0: identity and rarely written words */
	_Atomic int32_t sender;	    /* tid of the sender, 0: free */
	_Atomic int32_t spid;	    /* its pid */
	_Atomic int32_t sefd;	    /* its eventfd number (for want_space) */
	_Atomic int32_t closed;	    /* the sender left: free once drained */
	_Atomic int32_t want_space; /* the sender sleeps with data queued */
	_Atomic uint32_t delivered; /* last seq the owner took from this slot */
	_Atomic uint64_t inflight;  /* seq | STREAMING / ABANDONED /
				     * READING [| offset], or 0 */
	_Atomic uint64_t ref_ack;   /* seq | REF_DONE / REF_FAIL (REF records,
				     * pulled streams) */
	_Atomic uint64_t pull_addr; /* set before a START: where the stream's
				     * body is in the sender's memory; 0: the
				     * owner may not pull it */
	uint8_t pad0[SHMSEG_LINE - 48];
	/* line 1: written by the sender only */
	_Atomic uint64_t head;
	uint8_t pad1[SHMSEG_LINE - 8];
	/* line 2: written by the owner only */
	_Atomic uint64_t tail;
	uint8_t pad2[SHMSEG_LINE - 8];
};

_Static_assert(sizeof(struct shmseg_slot) == 3 * SHMSEG_LINE, "slot lines");
_Static_assert(offsetof(struct shmseg_hdr, dead) == SHMSEG_LINE, "hdr line 1");
_Static_assert(offsetof(struct shmseg_hdr, pr_state) == 2 * SHMSEG_LINE,
	       "hdr line 2");
_Static_assert(offsetof(struct shmseg_hdr, pr_offer) == 3 * SHMSEG_LINE,
	       "hdr line 3");
_Static_assert(offsetof(struct shmseg_hdr, st_drained) == 5 * SHMSEG_LINE,
	       "hdr line 5");

/* A record in a ring: this header, then `len` payload bytes.  Every
 * record starts on a cache line (shmseg_span): a short message is one
 * line, so the receiver takes it with the one miss it polls on (docs/shm.md,
 * "Records").  Records may wrap around the end of the ring. */
/* REF: the payload is the 64-bit address of the body in the sender's
 * memory; the owner copies it with process_vm_readv and answers in
 * slot->ref_ack (docs/shm.md, "Large messages by reference"). */
enum { SHMSEG_WHOLE = 1, SHMSEG_START = 2, SHMSEG_CONT = 3, SHMSEG_REF = 4 };
struct shmseg_rec {
	/* stream position of the record + 1: the sender stores it last
	 * (release), the owner takes the record at its tail only when this
	 * equals tail + 1 (acquire), so it polls the record itself, not
	 * head.  The sender stores 0 (never valid) at the next record's
	 * place before publishing, so stale bytes there never pass. */
	_Atomic uint64_t pos;
	uint16_t kind; /* SHMSEG_WHOLE... */
	uint16_t enc;  /* the message's (WIRE_ENC_*) */
	uint32_t len;  /* payload bytes in this record */
	int32_t tag, ctx;
	uint32_t seq;
	uint32_t wid;	/* its wait id (pvm_setminfo, pvm_getminfo) */
	uint64_t total; /* message body size (WHOLE, START) */
};
_Static_assert(sizeof(struct shmseg_rec) == 40, "record header");
/* The sender leaves this many bytes free: the line of the next record,
 * whose pos it clears. */
#define SHMSEG_RESERVE SHMSEG_LINE

/* Bytes from a record's start to the next's, for len payload bytes. */
static inline uint64_t shmseg_span(uint64_t len)
{
	return (sizeof(struct shmseg_rec) + len + SHMSEG_LINE - 1) &
	       ~(uint64_t)(SHMSEG_LINE - 1);
}

static inline struct shmseg_slot *shmseg_slot(void *base, uint32_t i)
{
	struct shmseg_hdr *h = base;
	return (struct shmseg_slot *)((char *)base + h->slot_off) + i;
}

static inline uint8_t *shmseg_ring(void *base, uint32_t i)
{
	struct shmseg_hdr *h = base;
	return (uint8_t *)base + h->ring_off + (uint64_t)i * h->ringsize;
}

/* Bytes of an inbox with nslot rings of ringsize bytes, and where its
 * parts start. */
uint64_t shmseg_size(uint32_t nslot, uint32_t ringsize, uint64_t *slot_off,
		     uint64_t *ring_off, uint64_t *bounce_off);

/* Name of the inbox of `tid` ("/pvm.<uid>.<vmid>.<tid hex>"), from
 * PVM_VMID.  Returns 0, or -1 if it does not fit. */
int shmseg_name(char *buf, size_t n, int tid);

/* The pvmd: task `tid` is gone.  Marks its inbox dead (senders stop and
 * drop what they queued for it) and unlinks the name.  Quiet when there
 * is none. */
void shmseg_mark_dead(int tid);

/* The pvmd, at startup and halt: removes every inbox name of this
 * virtual machine (uid and PVM_VMID) from /dev/shm.  Returns how many. */
int shmseg_remove_all(void);

#endif /* PVM_SHMSEG_H */
