/*
 * task.h - the task table: tids, tasks, siblings, and routing frames to
 * local tasks (task.c).
 */
#ifndef PVMD_TASK_H
#define PVMD_TASK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/idhash.h"
#include "pvmd/pvmd.h"

struct sibs_wait; /* a pvm_siblings asked before its spawn ended */

struct sibs { /* tids started by one spawn call */
	int refs;
	int done;	    /* the spawn has ended: the list is whole */
	int nwait, capwait; /* requests held until it ends */
	struct sibs_wait *wait;
	int n;
	int tids[];
};

struct task {
	int tid;
	int ptid;		    /* parent, 0 if none */
	pid_t pid;		    /* 0 if unknown */
	int flags;		    /* TASK_F_* as pvm_tasks reports them */
	int pflags;		    /* TM_CONNECT reply flags (CONN_PF_*) */
	int ctx;		    /* context the task starts in */
	int outtid, outctx, outtag; /* output destination for its children */
	int noreset;	    /* PvmNoReset set: a console's reset spares it */
	int nctx;	    /* contexts it holds (context.c) */
	int tcp_port;	    /* its direct-route TCP listener (TM_CONNECT),
			     * 0: none */
	char *aout;	    /* program name ("" if not spawned) */
	struct sibs *sibs;  /* NULL when not spawned */
	struct conn *conn;  /* NULL until enrolled */
	struct fbuf **pend; /* frames that arrived before it enrolled */
	size_t npend, cappend;
	/* flow control (flow.c): per sender tid, the bytes of its messages
	 * given to this task and not given back by a credit yet */
	struct idhash flow_in;
};

#define TASK_F_SPAWNED 0x2 /* started by this pvmd (reference: 'f') */
#define TASK_F_CONN    0x4 /* connected (WIRE_TF_CONN, reference: 'c') */

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
/* TM_SIBLINGS of task t (on c): answered with the whole list of its spawn,
 * so a child that enrolls while its spawn is still starting copies (they
 * start in steps, spawn.c) waits for the rest. */
void sibs_ask(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct task *t);
/* The spawn of `s` has ended: answers the requests held for it. */
void sibs_done(struct pvmd *d, struct sibs *s);
/* Forwards a data frame to local task h->dst (queued until the task
 * connects if it is spawned but not yet enrolled); dropped if there is no
 * such task.  Returns 1 if queued, 0 if dropped. */
int route_frame(struct pvmd *d, const struct wire_hdr *h, struct fbuf *f);
/* The bytes queued at this pvmd for local task `tid` and not written to
 * it yet; 0 for no such task (or not connected yet). */
size_t task_queued(struct pvmd *d, int tid);
/* The same for a message of one frame the pvmd makes (header h, payload
 * of len bytes): 1 queued, 0 dropped, -1 out of memory. */
int route_msg(struct pvmd *d, const struct wire_hdr *h, const void *payload,
	      size_t len);
/* The task has enrolled on connection `c`: hands it the frames held. */
void task_attach(struct pvmd *d, struct task *t, struct conn *c);

#endif /* PVMD_TASK_H */
