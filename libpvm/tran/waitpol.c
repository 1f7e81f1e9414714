/*
 * waitpol.c - the wait policy (see waitpol.h).
 */
#define _GNU_SOURCE
#include "waitpol.h"

#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/rundelay.h"
#include "lpvm.h"
#include "poll.h"
#include "tran.h"

/* Spin budgets: never above the 2 ms the engine always had, never below
 * what waking a sleeping partner costs on a virtual machine (60-120 us
 * measured): a shorter spin makes both sides of a ping-pong sleep, and
 * each then waits for the other's wake-up, for ever. */
#define SPIN_MAX_NS 2000000
#define SPIN_MIN_NS 200000
/* The affinity mask is read again after this long (the transport
 * decides how often it looks at its peers). */
#define MASK_NS	    100000000
/* A gap between two clock reads of the spin, or a sched_yield, this long:
 * another task had our CPU; this wait stops spinning.  (Not remembered
 * for later waits: a yield may hand the CPU to a SCHED_IDLE task, a
 * fuzzer here, for a whole tick; 196 of 20000 yields took over 20 us,
 * the longest 27 ms, on this VM with one running.) */
#define GAP_NS	    200000
#define YIELD_NS    200000

int lp_poll_time_set;

static struct lp_cpus cpus = {.cpu = -1};
static int64_t mask_at;
static int mask_read;
static int64_t budget = SPIN_MAX_NS;

static void read_mask(void)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	for (unsigned i = 0; i < sizeof cpus.set / sizeof *cpus.set; i++)
		cpus.set[i] = 0;
	cpus.n = 0;
	if (sched_getaffinity(0, sizeof s, &s) < 0)
		return; /* unknown: never crowded by the mask */
	for (int c = 0; c < CPU_SETSIZE && c < LP_CPUS_MAX; c++)
		if (CPU_ISSET(c, &s)) {
			cpus.set[c / 64] |= 1ULL << (c % 64);
			cpus.n++;
		}
}

int64_t lp_wait_budget(int64_t now, lp_wait_crowd_fn crowd)
{
	if (lp_poll_type == PvmPollConstant)
		return -1;
	if (lp_poll_time_set)
		return lp_poll_time ? SPIN_MAX_NS : 0; /* the probes decide */
	if (crowd) {
		if (!mask_read || now - mask_at >= MASK_NS) {
			read_mask();
			mask_at = now;
			mask_read = 1;
		}
		cpus.cpu = sched_getcpu(); /* (rseq: no system call) */
		if (cpus.n > 0 && crowd(&cpus, now))
			return 0;
	}
	/* more tasks than CPUs, whatever the peers are: a spin would hold
	 * a CPU that some task needs (4 and 8 tasks all-to-all on 2 CPUs,
	 * 8 B: 128 -> 84 and 535 -> 410 us an exchange, bench/RESULTS.md) */
	if (lp_wait_loaded(now))
		return 0;
	return budget;
}

int lp_wait_loaded(int64_t now)
{
	return rundelay_loaded(now, 5) > 0;
}

int64_t lp_wait_sock_budget(int64_t now, int64_t max)
{
	if (lp_poll_type == PvmPollConstant)
		return max;
	if (lp_poll_time_set)
		return lp_poll_time ? max : 0;
	if (lp_wait_loaded(now))
		return 0;
	return budget < max ? budget : max;
}

int lp_wait_gap(int64_t prev, int64_t now)
{
	return now - prev >= GAP_NS;
}

int lp_wait_yielded(int64_t ns)
{
	return ns >= YIELD_NS;
}

void lp_wait_done(int64_t ns, int64_t used, int slept)
{
	if (used <= 0 || lp_poll_time_set)
		return; /* slept at once, or spun for ever: nothing learnt */
	if (!slept) {
		/* spin at least four times what waits found by spinning
		 * took, so the usual one is always caught */
		if (4 * ns > budget)
			budget = 4 * ns < SPIN_MAX_NS ? 4 * ns : SPIN_MAX_NS;
		return;
	}
	/* a spin that ran out: it was too short if the message came soon
	 * after, wasted if it came much later */
	if (ns <= 2 * used)
		budget = 2 * budget < SPIN_MAX_NS ? 2 * budget : SPIN_MAX_NS;
	else
		budget = budget / 2 > SPIN_MIN_NS ? budget / 2 : SPIN_MIN_NS;
}
