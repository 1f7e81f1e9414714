/*
 * waitpol.h - the wait policy: how long a receive spins before it sleeps
 * (docs/architecture.md, "The wait policy").
 *
 * Spinning wins only while the task we wait for runs on another CPU.
 * When the CPUs we may run on are crowded (our peers on our only CPU,
 * more awake peers than CPUs, or the scheduler took the CPU from our
 * spin), a wait sleeps at once; otherwise it spins for a budget that
 * follows what recent waits cost.  PvmPollType and PvmPollTime, when the
 * program sets them, override both.
 */
#ifndef LPVM_TRAN_WAITPOL_H
#define LPVM_TRAN_WAITPOL_H

#include <stdint.h>

struct lp_cpus;

/* Asked when a wait would spin: whether a transport's peers crowd the
 * CPUs of `c` (NULL when no transport can tell).  Set by poll.c. */
typedef int (*lp_wait_crowd_fn)(const struct lp_cpus *c);

/* A spin budget for a wait starting at `now`: 0 sleeps at once, -1
 * spins until the message comes (PvmPollConstant). */
int64_t lp_wait_budget(int64_t now, lp_wait_crowd_fn crowd);
/* While spinning: the clock read before (`prev`) and now; a gap means
 * another task had our CPU.  1: so it did (stop spinning). */
int lp_wait_gap(int64_t prev, int64_t now);
/* A sched_yield while spinning took `ns`.  1: another task ran. */
int lp_wait_yielded(int64_t ns, int64_t now);
/* A wait that had the budget `used` ended after `ns`, found while
 * spinning (slept 0) or after a sleep (slept 1). */
void lp_wait_done(int64_t ns, int64_t used, int slept);
/* The program set PvmPollTime (options.c): the budget is its probes. */
extern int lp_poll_time_set;

#endif /* LPVM_TRAN_WAITPOL_H */
