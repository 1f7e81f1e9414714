/*
 * gshm.c - ending a barrier generation in a group's shared slot
 * (gshm.h), for the last arrival and for the pvmd.
 */
#define _GNU_SOURCE
#include "config.h"

#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "proto/gshm.h"

int gshm_end(struct gshm_slot *s, uint64_t expect, int status)
{
	uint32_t gen = gshm_gen(expect);
	uint64_t next = gshm_state(gen + 1, 0, 0);
	if (!atomic_compare_exchange_strong_explicit(&s->state, &expect, next,
						     memory_order_acq_rel,
						     memory_order_acquire))
		return 0;
	/* Waiters that see the new generation spin until this is there. */
	atomic_store_explicit(&s->result[gen % 4],
			      (uint64_t)gen << 32 | (uint32_t)status,
			      memory_order_release);
	/* A waiter counts itself before its futex wait, which then finds
	 * the new generation if we read 0 here (both sequentially
	 * consistent): nobody to wake, no system call. */
	if (atomic_load(&s->sleepers))
		syscall(SYS_futex, gshm_futex(s), FUTEX_WAKE, INT_MAX, NULL,
			NULL, 0);
	return 1;
}
