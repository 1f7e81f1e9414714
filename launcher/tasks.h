/*
 * tasks.h - the table of the job's tasks (job.c) and the relay of their
 * output (output.c), inside pvmrun.
 */
#ifndef PVMRUN_TASKS_H
#define PVMRUN_TASKS_H

#include <stddef.h>

#include "common/linebuf.h"

struct jtask {
	int tid, ptid;
	char prog[64];	  /* the program's base name */
	const char *host; /* where it runs (vm.c's table) */
	double t_begin, t_end;
	int eof;     /* its output has ended */
	int exited;  /* its PvmTaskExit notify came */
	int known;   /* how it ended is known (or cannot be) */
	int state;   /* LPVM_END_EXITED, LPVM_END_SIGNALED, or -1 unknown */
	int code;    /* exit status or signal */
	int core;    /* dumped core */
	int unknown; /* the PVM error that hid how it ended */
	int failed;  /* counts as a failure */
	struct linebuf out; /* output not yet ended by a newline (tagged) */
};

/* The task `tid`, or NULL (job.c). */
struct jtask *jtask_find(int tid);

/* Output messages (output.c).  `tag` says whether lines get a
 * "[tid@host] " prefix. */
void output_init(int tag);
/* Output message body (the current receive buffer) of `bytes` bytes:
 * returns the writer's tid and its count (-1, -2 new task with *ptid;
 * 0 EOF; n bytes, written out), or 0 if it is no output message. */
int output_message(int bytes, int *count, int *ptid);
/* Ends a task's pending partial line (at its EOF). */
void output_flush_task(struct jtask *t);

#endif /* PVMRUN_TASKS_H */
