/*
 * pvmd.h - the daemon's state, passed around as one `struct pvmd *`.
 *
 * Each module has its header: loop.h (epoll, timers), conn.h (a
 * connection: frame parsing and output queue), task.h (the task table and
 * routing), ctl.h (control request dispatch), spawn.h, output.h
 * (children's stdout/stderr), notify.h, context.h, mbox.h, group.h,
 * signals.h (SIGCHLD reaping, halt), log.h, host.h (the other hosts);
 * main.c holds options, startup and shutdown; the hash table is
 * common/idhash.  Module state is kept in struct pvmd, the host layer's
 * behind d->hosts; log.c's, main.c's start-up report and conn.c's pool
 * of free frame buffers are the process's own (docs/architecture.md).
 */
#ifndef PVMD_PVMD_H
#define PVMD_PVMD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/idhash.h"
#include "pvmd/loop.h"

struct conn;
struct task;
struct fbuf;
struct wire_hdr;
struct wire_wr;
struct wire_rd;
struct mb_class;
struct group;
struct gshm_slot;
struct mb_wait;
struct hostlayer;

/* Host number of this pvmd (a one-host machine is host 1). */
#define PVMD_HOSTNO 1
#define PVMD_SPEED  1000

struct pvmd {
	struct loop *loop;
	int hosttid; /* host number << 18: 0x40000 on the master */
	char hostname[256];
	char ip[64]; /* address other hosts reach this one at
		      * (docs/hosts.md); "" until known */
	const char *arch;

	int listen_fd;
	struct loop_io listen_io;
	int accept_paused; /* out of fds: listen_io disarmed for now */
	int sig_fd;
	struct loop_io sig_io;
	int lock_fd;

	struct idhash tasks;	/* tid -> struct task */
	struct idhash children; /* pid of a child we forked -> tid (intptr) */
	int next_tid;		/* task part of the next tid to try */

	struct conn *conns;   /* every live connection */
	struct conn *closing; /* closed, freed in the before-sleep hook */
	struct conn *dirty;   /* connections with output to flush */
	struct conn *paused;  /* task connections not read (flow.c) */
	uint64_t task_qbytes; /* queued for the tasks of this host */
	uint64_t hold_max, hold_total; /* its bounds (flow.h) */
	struct outpipe *pipes;	       /* children's output pipes still open */
	struct rpause *rpauses;	       /* writers of other hosts asked to hold
					* their output for our tasks (output.c) */

	struct notify *notifies; /* pvm_notify registrations, oldest first */
	struct notify **notify_tail; /* where the next one is linked */
	struct idhash notify_use;    /* owner -> registrations it has (count) */
	struct idhash contexts;	     /* ctx -> owner tid (intptr) */
	int next_ctx;

	/* dynamic groups (group.c), sorted by name */
	struct group **groups;
	size_t ngroups, capgroups;
	struct idhash gs_use; /* tid -> groups it is a member of (count) */
	/* the groups' shared slots (group_shm.c), NULL: none */
	struct gshm_slot *gshm;
	char gshm_path[600];
	int32_t gshm_last_gid;
	/* the mailbox (mbox.c) */
	struct mb_class *mb_classes; /* by name, in creation order */
	struct mb_wait *mb_waits;    /* reads held until an entry appears */
	/* what the mailbox holds, for its caps (mbox.c): in all, and per
	 * owner (tid -> struct mb_use) */
	size_t mb_count, mb_bytes;
	struct idhash mb_use;

	/* the other hosts: table, links, starts, forwards (pvmd/host/) */
	struct hostlayer *hosts;

	char **spawn_path; /* directories searched for spawn, NULL-ended */
	/* descriptors set aside for spawned tasks still to connect
	 * (spawn.c), copied from resv_src (/dev/null, or -1) */
	int *resv;
	size_t nresv, capresv;
	int resv_src;
	unsigned long child_nofile; /* RLIMIT_NOFILE soft limit for children
				     * (0: leave as is) */

	char dir[512]; /* the virtual machine's private directory */
	char sockpath[600], pidpath[600], lockpath[600], logpath[600];

	int transient; /* PVMD_TRANSIENT: the directory goes at exit */

	int halting;		/* TM_HALT or SIGTERM seen */
	uint64_t halt_deadline; /* when remaining tasks get SIGKILL (or,
				 * after it, when the halt stops waiting) */
	int halt_killed;	/* SIGKILL sent: waiting for them to go */
	uint64_t halt_started;	/* when the halt began */
	int halt_links_waited;	/* the master gave up waiting for hosts */
	pid_t *halt_pids;	/* processes to stop (negative: a group) */
	size_t nhalt_pids;
	struct loop_timer halt_timer;
	struct loop_timer tick; /* housekeeping once a second */
	unsigned ticks;
};

/* state.c: every field at its start value (no descriptor, no loop). */
void pvmd_state_init(struct pvmd *d);
/* state.c: closes every connection, ends every task and frees what the
 * modules hold (the loop, the signal descriptor and the files of the VM
 * directory stay). */
void pvmd_state_free(struct pvmd *d);

/* main.c: the hosts of the startup hostfile are in (or have failed):
 * the process that started the pvmd may return (host_started). */
void pvmd_started(void);

#endif /* PVMD_PVMD_H */
