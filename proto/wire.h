/*
 * wire.h - the one wire protocol spoken between tasks and pvmds.
 *
 * Shared by pvmd and libpvm; docs/protocol.md describes it for readers.
 * Everything on a connection is a sequence of frames.  A frame is a fixed
 * 40-byte header (all integers big-endian) followed by `len` payload bytes.
 *
 * A message is one or more frames from the same source with the same
 * header fields; the first carries WIRE_F_FIRST and the total length, the
 * last carries WIRE_F_LAST.  Frames of different messages from different
 * sources may interleave on one connection (the pvmd forwards frames as
 * they come), never frames of two messages from the same source.
 *
 * Control frames (WIRE_F_CTRL) are single-frame requests, replies and
 * events between a task and its pvmd; their tag is a WIRE_TM_* code and
 * their payload is encoded with the wire_wr / wire_rd codec below.
 */
#ifndef PVM_WIRE_H
#define PVM_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Bumped on any incompatible change; checked in TM_CONNECT. */
#define WIRE_VERSION 3

#define WIRE_HDR_SIZE 40

/* Largest payload of one frame a receiver accepts; larger is a protocol
 * error and closes the connection.  Control frames are limited further. */
#define WIRE_MAX_FRAG (16u << 20)
#define WIRE_MAX_CTRL (8u << 20)

/* Header flags. */
#define WIRE_F_FIRST 0x1 /* first frame of a message: `total` is valid */
#define WIRE_F_LAST  0x2 /* last frame of a message */
#define WIRE_F_CTRL  0x4 /* control frame: tag is a WIRE_TM_* code */
/* Between pvmds only: this control frame is a reply (a request forwarded
 * for a task is answered with dst = that task; see docs/hosts.md).  A
 * pvmd clears it before handing a reply to a task. */
#define WIRE_F_REPLY 0x8
#define WIRE_F_KNOWN (WIRE_F_FIRST | WIRE_F_LAST | WIRE_F_CTRL | WIRE_F_REPLY)

/* Tid layout (PVM 3.4): host number in bits 18-29, task part in 0-17. */
#define WIRE_TID_HOST_MASK  0x3ffc0000
#define WIRE_TID_HOST_SHIFT 18
#define WIRE_TID_TASK_MASK  0x0003ffff
#define WIRE_TID_MCAST	    0x40000000
#define WIRE_TID_DAEMON	    0x80000000u
/* Source tid the pvmd puts on messages it generates for tasks (notifies,
 * output), as the reference does: the daemon bit alone. */
#define WIRE_TID_PVMD_SRC   ((int32_t)WIRE_TID_DAEMON)

/* A pvmd's address: the daemon bit, maybe a host part, no task part
 * (0x80000000 alone is the source of the messages a pvmd makes). */
static inline int wire_tid_is_pvmd(int32_t tid)
{
	return ((uint32_t)tid & WIRE_TID_DAEMON) &&
	       !((uint32_t)tid & (WIRE_TID_MCAST | WIRE_TID_TASK_MASK));
}
static inline int32_t wire_host_tid(int hostno)
{
	return (int32_t)((unsigned)hostno << WIRE_TID_HOST_SHIFT);
}

/* enc of a message frame: the PvmData* encoding in bits 0-7; for a Raw
 * or InPlace body the sender's data format (DSIG_FMT_*, proto/dsig.h)
 * in bits 8-9, so that a receiver of another format converts it. */
#define WIRE_ENC_MASK	   0x00ff
#define WIRE_ENC_FMT_SHIFT 8
#define WIRE_ENC_FMT_MASK  0x0300

struct wire_hdr {
	uint32_t len;	/* payload bytes in this frame */
	uint16_t flags; /* WIRE_F_* */
	uint16_t enc;	/* encoding of the body (PvmData*), WIRE_ENC_* */
	int32_t dst;	/* destination tid */
	int32_t src;	/* source tid */
	int32_t tag;	/* message tag, or WIRE_TM_* code for control */
	int32_t ctx;	/* message context */
	uint32_t seq;	/* per (src,dst) message number from 1; 0 = unordered */
	uint32_t wid;	/* control: request id echoed in the reply */
	uint64_t total; /* with WIRE_F_FIRST: payload bytes of the whole message
			 */
};

void wire_hdr_encode(const struct wire_hdr *h, uint8_t out[WIRE_HDR_SIZE]);
/* Decodes and validates a header.  Returns 0, or -1 when the frame is
 * malformed (unknown flags, len over `maxlen`, CTRL without FIRST|LAST,
 * total smaller than len on a first frame...). */
int wire_hdr_decode(const uint8_t in[WIRE_HDR_SIZE], struct wire_hdr *h,
		    uint32_t maxlen);

/*
 * Control codes (tag of WIRE_F_CTRL frames).  Requests go task -> pvmd and
 * carry a wid; the reply has the same code and wid.  Payload layouts are in
 * docs/protocol.md; "i32" is a big-endian int, "str" a u32 length then that
 * many bytes (no terminator).
 */
enum wire_tm {
	WIRE_TM_CONNECT = 1,   /* enroll: first frame on a task connection */
	WIRE_TM_EXIT = 2,      /* task leaves (pvm_exit) */
	WIRE_TM_SPAWN = 3,     /* start tasks */
	WIRE_TM_TASKS = 4,     /* list tasks */
	WIRE_TM_CONFIG = 5,    /* list hosts */
	WIRE_TM_MSTAT = 6,     /* host status */
	WIRE_TM_PSTAT = 7,     /* task status */
	WIRE_TM_KILL = 8,      /* kill a task */
	WIRE_TM_SIGNAL = 9,    /* send a signal to a task */
	WIRE_TM_NOTIFY = 10,   /* register / cancel a notify */
	WIRE_TM_CONTEXT = 11,  /* allocate / free a context */
	WIRE_TM_HALT = 12,     /* stop the virtual machine */
	WIRE_TM_SIBLINGS = 13, /* tids started by the same spawn call */
	WIRE_TM_SETOPT = 14,   /* tell the pvmd a task option it acts on */
	WIRE_TM_NORESETS = 15, /* tasks that set PvmNoReset */
	WIRE_TM_MBOX_PUT = 16, /* pvm_putinfo: store a message in the mailbox */
	WIRE_TM_MBOX_GET = 17, /* pvm_recvinfo: read (maybe wait for) one */
	WIRE_TM_MBOX_DEL = 18, /* pvm_delinfo */
	WIRE_TM_MBOX_LIST = 19,	 /* pvm_getmboxinfo */
	WIRE_TM_GS_JOIN = 20,	 /* pvm_joingroup */
	WIRE_TM_GS_LEAVE = 21,	 /* pvm_lvgroup */
	WIRE_TM_GS_INFO = 22,	 /* one group's members (gsize, gettid...) */
	WIRE_TM_GS_BARRIER = 23, /* pvm_barrier: held until released */
	WIRE_TM_GS_FREEZE = 24,	 /* pvm_freezegroup: held until all called */
	WIRE_TM_GS_LIST = 25,	 /* every group (pvmgroups) */
	WIRE_TM_GS_EVENT = 26,	 /* pvmd -> task, unasked: a group it looked
				  * up (TM_GS_INFO) has changed */
	WIRE_TM_ADDHOST = 27,	 /* pvm_addhosts (handled by the master) */
	WIRE_TM_DELHOST = 28,	 /* pvm_delhosts (handled by the master) */
	WIRE_TM_HOSTSYNC = 29,	 /* pvm_hostsync: a host's clock */
	WIRE_TM_ROUTEADDR = 30,	 /* TCP address of a task's direct-route
				  * listener (PvmRouteDirect across hosts) */
	WIRE_TM_REGHOSTER = 31,	 /* pvm_reg_hoster: i32 on -> i32 status
				  * (the master's pvmd; docs/hosts.md) */
	WIRE_TM_LEAVING = 32,	 /* on a connection of its own, the only
				  * request on it: task src (that process)
				  * leaves; its pvmd reads all it still
				  * writes, past the bounds of flow control
				  * -> i32 status */
	WIRE_TM_NETUP = 33,	 /* pvmd -> task, unasked (wid 0): the pvmd
				  * now listens for other hosts (str ip);
				  * a task may open its TCP direct-route
				  * listener and say so with TM_TCPPORT */
	WIRE_TM_TCPPORT = 34,	 /* i32 port of that listener -> i32 status */
	WIRE_TM_TASKEND = 35,	 /* i32 tid -> how its process ended */
	WIRE_TM_SPAWNPATH = 36,	 /* the directories spawn searches */
	WIRE_TM_ADDCANCEL = 37,	 /* i32 wid of the asker's TM_ADDHOST (0:
				  * all of its) -> i32 hosts cancelled: its
				  * starts still pending fail (the master) */
	WIRE_TM_MAX
};

/* The state in a TM_TASKEND answer (docs/protocol.md). */
enum wire_taskend_state {
	WIRE_END_RUNNING = 0,  /* not reaped yet */
	WIRE_END_EXITED = 1,   /* code: its exit status */
	WIRE_END_SIGNALED = 2, /* code: the signal */
};

/*
 * Control codes spoken only between pvmds, on their TCP links
 * (docs/hosts.md).  Task connections never carry them.
 */
enum wire_dm {
	WIRE_DM_HELLO = 64, /* connector -> acceptor: version, hostno, nonce */
	WIRE_DM_AUTH = 65,  /* connector proves it knows the secret */
	WIRE_DM_HOSTTAB = 66,  /* master -> all: the whole host table */
	WIRE_DM_TASKEXIT = 67, /* a task of the sender's host is gone */
	WIRE_DM_HALT = 68,     /* to the master: halt the VM; from it: stop */
	WIRE_DM_PING = 69,     /* heartbeat (answered with a REPLY) */
	WIRE_DM_HOSTADD = 70,  /* master -> all: the hosts one add brought in */
	WIRE_DM_OUTPAUSE = 71, /* i32 writer, i32 destination: the writer's
				* output waits (its destination holds too
				* much it has not read) */
	WIRE_DM_OUTRESUME = 72, /* the same pair: read its output again */
	WIRE_DM_MAX
};

/* Contexts reserved for the system (as in the reference); TM_CONTEXT
 * never hands them out. */
#define WIRE_CTX_SYSTEM_FIRST 0x7fff8
#define WIRE_CTX_SYSTEM_LAST  0x7ffff

/* Context of the messages group operations exchange between tasks
 * (reduce, scatter, gather): the reference's SYSCTX_DG.  Never handed out
 * by TM_CONTEXT, so no user receive can take them. */
#define WIRE_CTX_GROUP 0x7fffc

/*
 * Flow control of the pvmd route (docs/limits.md, "Messages held for a
 * destination").  A task keeps at most WIRE_WINDOW bytes of its messages
 * to one task in the pvmds' hands (each message counts its body plus
 * WIRE_HDR_SIZE); what is beyond waits in the sender.  The receiving task
 * gives the bytes back as it reads them, in a credit message once
 * WIRE_CREDIT_STEP have come; the pvmd gives back the bytes of a message
 * it drops (no such task, or the task left without reading it).  A credit
 * is a data message with seq 0 (no task message has it), context
 * WIRE_CTX_CREDIT and tag 0, from the task whose window it opens (or from
 * the pvmd in its name), its body the byte count as a big-endian u64.
 * Both numbers are the protocol's: a receiver gives back before the
 * sender's window is full because WIRE_CREDIT_STEP < WIRE_WINDOW.
 */
#define WIRE_WINDOW	 (4u << 20)
#define WIRE_CREDIT_STEP (1u << 20)
#define WIRE_CTX_CREDIT	 0x7fffb
static inline uint64_t wire_flow_bytes(uint64_t total)
{
	return total + WIRE_HDR_SIZE;
}
static inline int wire_is_credit(const struct wire_hdr *h)
{
	return h->seq == 0 && h->ctx == WIRE_CTX_CREDIT && h->src > 0;
}
/* Whether a message counts against its sender's window: a task's
 * ordered message to another task (not a credit, not to a pvmd). */
static inline int wire_flow_counted(const struct wire_hdr *h)
{
	return h->seq != 0 && h->src > 0 && h->dst > 0 &&
	       !(h->flags & WIRE_F_CTRL);
}

/* TM_CONTEXT operations. */
#define WIRE_CTX_NEW  1
#define WIRE_CTX_FREE 2

/* Task flags reported in pvmtaskinfo.ti_flag (values the reference shows). */
#define WIRE_TF_CONN 0x4 /* task is connected to its pvmd */

/* Environment variable a pvmd sets for a spawned child: the tid reserved
 * for it, so that it enrolls under that tid. */
#define WIRE_ENV_SPAWN_TID "PVM_SPAWN_TID"

/* ---- payload codec: sticky-error writer and length-checked reader ---- */

struct wire_wr {
	uint8_t *buf;
	size_t len, cap;
	int err; /* set on allocation failure; later writes are ignored */
};

void wire_wr_init(struct wire_wr *w);
void wire_wr_free(struct wire_wr *w);
void wire_wr_i32(struct wire_wr *w, int32_t v);
void wire_wr_u64(struct wire_wr *w, uint64_t v);
void wire_wr_bytes(struct wire_wr *w, const void *p,
		   size_t n);			    /* u32 len + bytes */
void wire_wr_str(struct wire_wr *w, const char *s); /* NULL writes "" */
/* A string as pvm_pkstr packs it in PvmDataDefault (XDR): i32 length with
 * the NUL, the bytes and the NUL, zeros up to a multiple of 4.  (An XDR
 * int is wire_wr_i32.)  For the bodies a pvmd writes to a task. */
void wire_wr_xdr_str(struct wire_wr *w, const char *s);

struct wire_rd {
	const uint8_t *p;
	size_t left;
	int err; /* set when a read runs past the end or a length is absurd */
};

void wire_rd_init(struct wire_rd *r, const void *p, size_t n);
int32_t wire_rd_i32(struct wire_rd *r);
uint64_t wire_rd_u64(struct wire_rd *r);
/* Returns a pointer into the payload and its length (not terminated);
 * NULL with r->err set when the length exceeds what is left. */
const uint8_t *wire_rd_bytes(struct wire_rd *r, size_t *n);
/* Returns a newly allocated NUL-terminated copy, or NULL with r->err set
 * (also on allocation failure).  Rejects embedded NUL bytes. */
char *wire_rd_strdup(struct wire_rd *r);
/* Reads a wire_wr_xdr_str string of at most `max` bytes with its NUL into
 * out.  Returns 0, or -1 with r->err set (too long, no NUL, a NUL inside,
 * past the end). */
int wire_rd_xdr_str(struct wire_rd *r, char *out, size_t max);
/* A count of following items, each at least `minsize` bytes: rejected
 * (r->err, returns 0) when negative or more than the bytes left allow. */
int32_t wire_rd_count(struct wire_rd *r, size_t minsize);

#endif /* PVM_WIRE_H */
