/*
 * waitpol.h - the wait policy: how long a receive spins before it sleeps
 * (docs/architecture.md, "The wait policy").
 *
 * Spinning wins only while the task we wait for runs on another CPU.
 * When our peers crowd the CPUs we may run on (a peer on our only CPU,
 * an awake peer on the CPU we run on, more awake peers than CPUs), or
 * this task waited for a CPU over 5% of the last 10 ms, a wait sleeps
 * at once; otherwise it spins for a budget that follows what
 * recent waits cost, and stops early when the scheduler gave its CPU to
 * another task.  PvmPollType and PvmPollTime, when the program sets
 * them, override both.
 */
#ifndef LPVM_TRAN_WAITPOL_H
#define LPVM_TRAN_WAITPOL_H

#include <stdint.h>

struct lp_cpus;

/* Asked when a wait would spin (poll.c asks the transports): whether
 * their peers crowd the CPUs of `c`, at time `now`. */
typedef int (*lp_wait_crowd_fn)(const struct lp_cpus *c, int64_t now);

/* A spin budget in ns for a wait starting at `now`: 0 sleeps at once, -1
 * spins until the message comes (PvmPollConstant). */
int64_t lp_wait_budget(int64_t now, lp_wait_crowd_fn crowd);
/* 1 while other tasks keep this one waiting for a CPU: more than 5% of
 * the last 10 ms runnable but not running (common/rundelay.h).  The
 * budgets are then 0, and shared memory makes no posting. */
int lp_wait_loaded(int64_t now);
/* The budget of a wait that polls sockets (at most max): none while
 * lp_wait_loaded, else as lp_wait_budget's. */
int64_t lp_wait_sock_budget(int64_t now, int64_t max);
/* While spinning: the clock read before (`prev`) and now.  1: a gap,
 * another task had our CPU (stop spinning). */
int lp_wait_gap(int64_t prev, int64_t now);
/* A sched_yield while spinning took `ns`.  1: another task ran. */
int lp_wait_yielded(int64_t ns);
/* A wait that had the budget `used` ended after `ns`, found while
 * spinning (slept 0) or after a sleep (slept 1). */
void lp_wait_done(int64_t ns, int64_t used, int slept);
/* The program set PvmPollTime (options.c): the budget is its probes. */
extern int lp_poll_time_set;

#endif /* LPVM_TRAN_WAITPOL_H */
