/*
 * pvmrun.h - internal interfaces of pvmrun, the one-shot launcher.
 *
 * pvmrun starts a private virtual machine (or joins the running one),
 * spawns the job, relays the output of every task of the job (the
 * spawned ones and whatever they spawn: children inherit the output
 * destination), reports each task that failed and exits with the status
 * of the first one, then halts the machine it started.  Its parts:
 *   main.c  options, the run from start to exit status
 *   vm.c    the machine: private or joined, hosts, halt and cleanup
 *   job.c   the job's tasks: output, ends, signals, the summary
 */
#ifndef PVMRUN_H
#define PVMRUN_H

#include <signal.h>

/* Exit statuses of pvmrun's own failures (a task's status otherwise). */
#define RUN_EXIT_USAGE	 2   /* bad command line */
#define RUN_EXIT_VM	 1   /* no machine: cannot start, join, add hosts */
#define RUN_EXIT_NOFILE	 127 /* the program cannot be started, as a shell */
#define RUN_EXIT_TIMEOUT 124 /* --timeout ran out, as timeout(1) */

struct run_opts {
	int ntasks;	/* -n: copies to start (master mode: 1) */
	int master;	/* --master: one task, its spawns in the job */
	int join;	/* --join: the running machine, not a new one */
	int tag;	/* --tag-output 1, --no-tag-output 0, -1 auto */
	int summary;	/* --summary */
	double timeout; /* seconds, 0 none */
	char **hosts;	/* --host list, NULL-ended, or NULL */
	int nhosts;
	const char *hostfile; /* --hostfile, or NULL */
	char *prog;	      /* the program (resolved) */
	char **args;	      /* its arguments, NULL-ended */
};

/* ---- the machine (vm.c) ---- */

/* Starts the private machine (its own PVM_VMID, transient, every host
 * given the spawn path) or joins the running one, enrolls, and adds the
 * hosts of --hostfile or --host: all of them, or the run fails.  Returns
 * 0, or prints why not and returns RUN_EXIT_VM. */
int vm_open(const struct run_opts *o, const char *progdir);
/* The host name a task of host part `tid` runs on ("?" if unknown). */
const char *vm_host_of(int tid);
/* The number of hosts of the machine. */
int vm_nhosts(void);
/* Halts the machine pvmrun started, waits until its pvmd is gone and
 * removes its directory and shared memory; leaves a joined one. */
void vm_close(void);

/* ---- the job (job.c) ---- */

/* Signals pvmrun caught and not yet handled (set by its handlers). */
extern volatile sig_atomic_t run_signal;

/* Spawns the job's tasks.  Returns 0 or an exit status after printing
 * why. */
int job_spawn(const struct run_opts *o);
/* Relays output and waits until every task of the job has ended (or the
 * timeout ran out, or signals stopped it).  Returns the exit status. */
int job_wait(const struct run_opts *o);
/* The --summary report, on stderr. */
void job_summary(void);

#endif /* PVMRUN_H */
