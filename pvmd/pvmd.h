/*
 * pvmd.h - the daemon's state, passed around as one `struct pvmd *`.
 *
 * Modules: loop (epoll, timers), conn (a task connection: frame parsing
 * and output queue), task (the task table and routing), ctl + ctl_spawn
 * (control request dispatch), spawn, output (children's stdout/stderr),
 * notify, context, mbox, group, signals (SIGCHLD reaping, halt), log,
 * and main (options, startup, shutdown); the hash table is common/idhash.
 */
#ifndef PVMD_PVMD_H
#define PVMD_PVMD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/idhash.h"
#include "loop.h"

struct conn;
struct task;
struct fbuf;
struct wire_hdr;
struct wire_wr;
struct wire_rd;

/* Host number of this pvmd (a one-host machine is host 1). */
#define PVMD_HOSTNO 1
#define PVMD_SPEED 1000
#define PVMD_DSIG 0x408c41

struct pvmd {
	struct ev_loop *loop;
	int hosttid;            /* host number << 18: 0x40000 on the master */
	char hostname[256];
	char ip[64];            /* address other hosts reach this one at
				 * (docs/hosts.md); "" until known */
	const char *arch;

	int listen_fd;
	struct ev_io listen_io;
	int accept_paused;      /* out of fds: listen_io disarmed for now */
	int sig_fd;
	struct ev_io sig_io;
	int lock_fd;

	struct idhash tasks;    /* tid -> struct task */
	struct idhash children; /* pid of a child we forked -> tid (intptr) */
	int next_tid;           /* task part of the next tid to try */

	struct conn *conns;     /* every live connection */
	struct conn *closing;   /* closed, freed in the before-sleep hook */
	struct conn *dirty;     /* connections with output to flush */
	struct outpipe *pipes;  /* children's output pipes still open */

	struct notify *notifies; /* pvm_notify registrations, oldest first */
	struct notify **notify_tail; /* where the next one is linked */
	struct idhash contexts; /* ctx -> owner tid (intptr) */
	int next_ctx;

	char **spawn_path;      /* directories searched for spawn, NULL-ended */
	unsigned long child_nofile; /* RLIMIT_NOFILE soft limit for children
				     * (0: leave as is) */

	char dir[512];          /* the virtual machine's private directory */
	char sockpath[600], pidpath[600], lockpath[600], logpath[600];

	int halting;            /* TM_HALT or SIGTERM seen */
	uint64_t halt_deadline; /* when remaining tasks get SIGKILL (or,
				 * after it, when the halt stops waiting) */
	int halt_killed;        /* SIGKILL sent: waiting for them to go */
	pid_t *halt_pids;       /* processes to stop (negative: a group) */
	size_t nhalt_pids;
	struct ev_timer halt_timer;
	struct ev_timer tick;   /* housekeeping once a second */
	unsigned ticks;
};

/* ---- task.c ---- */

struct sibs {                   /* tids started by one spawn call */
	int refs;
	int n;
	int tids[];
};

struct task {
	int tid;
	int ptid;               /* parent, 0 if none */
	pid_t pid;              /* 0 if unknown */
	int flags;              /* TASK_F_* as pvm_tasks reports them */
	int pflags;             /* TM_CONNECT reply flags (CONN_PF_*) */
	int ctx;                /* context the task starts in */
	int outtid, outctx, outtag; /* output destination for its children */
	int noreset;            /* PvmNoReset set: a console's reset spares it */
	int tcp_port;           /* its direct-route TCP listener (TM_CONNECT),
				 * 0: none */
	char *aout;             /* program name ("" if not spawned) */
	struct sibs *sibs;      /* NULL when not spawned */
	struct conn *conn;      /* NULL until enrolled */
	struct fbuf **pend;     /* frames that arrived before it enrolled */
	size_t npend, cappend;
};

#define TASK_F_SPAWNED 0x2      /* started by this pvmd (reference: 'f') */
#define TASK_F_CONN 0x4         /* connected (WIRE_TF_CONN, reference: 'c') */

/* TM_CONNECT reply flags. */
#define CONN_PF_NOSPAWNPARENT 0x2

/* Allocates the next free tid (0x40001..0x7ffff, wrapping, skipping tids
 * in use) and a task for it in the table.  NULL when none is free. */
struct task *task_new(struct pvmd *d);
struct task *task_find(struct pvmd *d, int tid);
/* The task is gone: removes it from the table, sends its PvmTaskExit
 * notifies, drops its registrations and contexts, schedules its
 * connection for closing, frees it.  Safe to call once per task; `why`
 * goes to the log. */
void task_exit(struct pvmd *d, struct task *t, const char *why);
/* Sends `sig` to the task's process.  Returns 0 or a PVM error code. */
int task_signal(struct pvmd *d, struct task *t, int sig);
void sibs_put(struct sibs *s);
/* Forwards a data frame to local task h->dst (queued until the task
 * connects if it is spawned but not yet enrolled); dropped if there is no
 * such task.  Returns 1 if queued, 0 if dropped. */
int route_frame(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f);
/* The task has enrolled on connection `c`: hands it the frames held. */
void task_attach(struct pvmd *d, struct task *t, struct conn *c);

/* ---- conn.c ---- */

/* A frame ready to send: header bytes followed by the payload, shared by
 * reference between output queues. */
struct fbuf {
	int refs;
	size_t len;             /* header + payload bytes */
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
void conn_accept_cb(struct ev_loop *l, struct ev_io *io, uint32_t ev);
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
/* Closes connections that have not enrolled within max_ms. */
void conn_expire_handshakes(struct pvmd *d, uint64_t max_ms);
/* Identity of the peer, from SO_PEERCRED and TM_CONNECT. */
pid_t conn_peer_pid(const struct conn *c);
struct task *conn_task(const struct conn *c);
void conn_set_task(struct conn *c, struct task *t);

/* Sends a control reply (same code and wid as the request) to `c`. */
void conn_reply(struct pvmd *d, struct conn *c, const struct wire_hdr *req,
		const struct wire_wr *payload);
/* Delivers a message generated by the pvmd (src 0x80000000, seq 0,
 * encoding Default) to local task `dst`; dropped if it is gone. */
void pvmd_send_msg(struct pvmd *d, int dst, int tag, int ctx,
		   const void *payload, size_t len);

/* ---- ctl.c ---- */

/* Handles one control frame from connection `c` (payload complete).
 * Returns 0, or -1 when the frame is malformed (the caller closes `c`). */
/* Replies to request `h` with a status word alone. */
void ctl_reply_status(struct pvmd *d, struct conn *c,
		      const struct wire_hdr *h, int status);
int ctl_dispatch(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 const uint8_t *payload);

/* ---- spawn.c ---- */

struct spawn_req {
	char *file;
	int flags;
	char *where;
	int count;
	int ctx;
	int argc;
	char **argv;            /* argc strings, NULL-ended */
	int nenv;
	char **env;             /* nenv "NAME=value" strings, NULL-ended */
	int outtid, outctx, outtag;
};

/* Builds the spawn search path from PVM_PATH / HOME / PVM_ROOT. */
int spawn_init(struct pvmd *d);
/* Starts req->count copies for parent task `ptid` (of this host or
 * another); fills tids[] with tids or error codes.  Returns the number
 * started or a negative PVM error code. */
int spawn_tasks(struct pvmd *d, int ptid, const struct spawn_req *req,
		int *tids);
void spawn_req_free(struct spawn_req *r);
/* TM_SPAWN's payload (ctl_spawn.c).  decode: 0 or -1 (malformed). */
int spawn_decode(struct wire_rd *r, struct spawn_req *q);
void spawn_encode(struct wire_wr *w, const struct spawn_req *q);
/* Host-name checks shared with TM_MSTAT. */
int spawn_is_our_host(const struct pvmd *d, const char *name);
/* A connection is accepted, or is about to be and the pvmd is out of
 * descriptors: gives back one that a spawn set aside for a task still to
 * connect (spawn.c).  Returns 1 if there was one, else 0. */
int spawn_fd_release(struct pvmd *d);

/* ---- output.c ---- */

struct outpipe;
/* Watches the read end of a child's stdout/stderr pipe. */
struct outpipe *output_watch(struct pvmd *d, int fd, int tid, int outtid,
			     int outctx, int outtag, int ptid);
void output_close_all(struct pvmd *d);
/* Task `tid` moves its own output (TM_SETOPT PvmSelfOutput*): `which`
 * is one of OUTPUT_DEST_*.  Output already in its pipe goes to the old
 * destination first; the old one gets EOF, the new one the start
 * messages.  Nothing happens for a task whose output we do not read. */
enum { OUTPUT_DEST_TID, OUTPUT_DEST_CTX, OUTPUT_DEST_TAG };
void output_set_dest(struct pvmd *d, int tid, int which, int val);

/* ---- notify.c ---- */

struct notify;
/* Registers (or, with PvmNotifyCancel, cancels) notifies for `owner`.
 * Returns 0 or a PVM error code. */
int notify_request(struct pvmd *d, int owner, int what, int tag, int ctx,
		   int cnt, const int *tids);
/* Task `tid` is gone: delivers its PvmTaskExit notifies and drops the
 * registrations it owned. */
void notify_task_exit(struct pvmd *d, int tid);
/* Hosts were added: PvmHostAdd notifies with this body (XDR int n, then
 * n host tids, as DM_HOSTADD carries it: an XDR int is the wire's
 * big-endian i32). */
void notify_host_add(struct pvmd *d, const uint8_t *body, size_t len);
/* Host `hosttid` is gone: the PvmTaskExit notifies of its tasks and its
 * PvmHostDelete notifies, in the order they were registered. */
void notify_host_lost(struct pvmd *d, int hosttid);
void notify_free_all(struct pvmd *d);

/* ---- mbox.c ---- */

/* Control requests TM_MBOX_* (docs/protocol.md). */
int ctl_mbox_put(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_get(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_del(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_mbox_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
/* Task `tid` is gone: its non-persistent entries vanish, its persistent
 * ones get owner 0, its held reads are dropped. */
void mbox_task_exit(struct pvmd *d, int tid);
void mbox_free_all(struct pvmd *d);
/* Host `hostno` is gone: as mbox_task_exit for each of its tasks. */
void mbox_host_lost(struct pvmd *d, int hostno);

/* ---- group.c ---- */

/* Control requests TM_GS_* (docs/protocol.md, docs/groups.md). */
int ctl_gs_join(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_gs_leave(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 struct wire_rd *r);
int ctl_gs_info(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
int ctl_gs_barrier(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		   struct wire_rd *r);
int ctl_gs_freeze(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);
int ctl_gs_list(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
/* Task `tid` is gone: it leaves all its groups (waiters of barriers it
 * can no longer reach get PvmNoGroup), its held requests are dropped. */
void group_task_exit(struct pvmd *d, int tid);
void group_free_all(struct pvmd *d);
/* Host `hostno` is gone: its tasks leave their groups. */
void group_host_lost(struct pvmd *d, int hostno);
/* The machine went from one host to several or back: barriers move
 * between the shared slots and the pvmd, so every cached list is made
 * stale (TM_GS_EVENT). */
void group_hosts_changed(struct pvmd *d);

/* ---- group_shm.c: the groups' shared slots (proto/gshm.h) ---- */

/* Creates VMDIR_GSHM in the VM directory (on failure, logged, every group
 * gets slot -1 and barriers go through the pvmd); gshm_close removes it. */
void gshm_open(struct pvmd *d);
void gshm_close(void);
/* A slot for a new group: returns it (or -1: none) and sets *gid to the
 * group's new id. */
int gshm_slot_new(int32_t *gid);
/* After a membership change: publishes size and state; after a departure
 * also breaks a pending barrier that can no longer complete (PvmNoGroup). */
void gshm_slot_update(int slot, int members, int frozen, int defunct,
		      int departed);
/* The group is gone: breaks what waits, frees the slot. */
void gshm_slot_free(int slot);

/* ---- context.c ---- */

int context_new(struct pvmd *d, int owner);
int context_free(struct pvmd *d, int owner, int ctx);
void context_task_exit(struct pvmd *d, int owner);

/* ---- signals.c ---- */

/* Blocks SIGCHLD/SIGTERM/SIGINT and watches them through a signalfd;
 * ignores SIGPIPE and SIGHUP.  Returns 0 or -1 (errno set). */
int pvmd_signals_init(struct pvmd *d);
/* Starts the halt: kills every task, then stops the loop. */
void pvmd_halt(struct pvmd *d, const char *why);
/* Reaps exited children; a child that was a task is gone (after what it
 * wrote to its connection has been read). */
void pvmd_reap(struct pvmd *d);

#endif /* PVMD_PVMD_H */
