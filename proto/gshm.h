/*
 * gshm.h - the host-local step of group barriers: one slot of shared
 * memory per group, shared by the pvmd and the tasks of its host.
 *
 * The pvmd creates the file VMDIR_GSHM (an array of GSHM_SLOTS slots) in
 * the virtual machine's private directory and gives each group a slot
 * (TM_GS_INFO tells which, with the group's id).  It keeps `members` and
 * `flags` current; tasks arrive at a barrier with one atomic
 * compare-and-swap on `state` and wait on it with a futex, so a barrier
 * among the tasks of one host costs no message and no system call but
 * the last arrival's wake-up (docs/groups.md).  The pvmd breaks a barrier
 * that can no longer complete (a member left or died) the same way.
 *
 * state, 64 bits: bits 0-31 the generation (the futex word; it only grows,
 * by one per completed or broken barrier), bits 32-47 the arrivals so far,
 * bits 48-63 the count of the pending barrier (0: none pending).
 * result[g % 4] holds (g << 32 | status) once generation g has ended:
 * status 0, or PvmNoGroup for a broken barrier.
 */
#ifndef PVM_GSHM_H
#define PVM_GSHM_H

#include <stdatomic.h>
#include <stdint.h>

#define VMDIR_GSHM     "groups.shm"
#define GSHM_SLOTS     1024
#define GSHM_MAX_COUNT 0xffff /* larger barriers go through the pvmd */

/* flags */
#define GSHM_F_USED    0x1 /* the slot belongs to group `gid` */
#define GSHM_F_FROZEN  0x2 /* pvm_freezegroup completed */
#define GSHM_F_DEFUNCT 0x4 /* frozen, then a member left: barriers fail */
/* The machine has (or had) several hosts: the group's barriers go through
 * the pvmd for good.  A barrier pending in the slot when it moves ends
 * with status GSHM_MOVED, and its members arrive again at the pvmd. */
#define GSHM_F_MOVED   0x8
#define GSHM_MOVED     1

struct gshm_slot {
	_Atomic uint64_t state;
	_Atomic int32_t gid; /* id of the group using the slot, never 0 */
	_Atomic int32_t flags;
	_Atomic int32_t members;   /* the group's size */
	_Atomic uint32_t sleepers; /* waiters in FUTEX_WAIT (or about to be) */
	_Atomic uint64_t result[4];
	uint8_t pad[64 - 8 - 16 - 32];
};

_Static_assert(sizeof(struct gshm_slot) == 64, "one cache line per slot");

static inline uint32_t gshm_gen(uint64_t s)
{
	return (uint32_t)s;
}
static inline uint32_t gshm_arrived(uint64_t s)
{
	return (uint32_t)(s >> 32) & 0xffff;
}
static inline uint32_t gshm_count(uint64_t s)
{
	return (uint32_t)(s >> 48);
}
static inline uint64_t gshm_state(uint32_t gen, uint32_t arrived,
				  uint32_t count)
{
	return (uint64_t)count << 48 | (uint64_t)arrived << 32 | gen;
}

/* The 32-bit futex word: the generation half of `state`. */
static inline uint32_t *gshm_futex(struct gshm_slot *s)
{
	uint32_t *w = (uint32_t *)(void *)&s->state;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w++;
#endif
	return w;
}

/*
 * Ends generation `gen` with `status` if `state` is still `expect`:
 * bumps the generation, clears the pending barrier, records the result
 * and wakes every waiter.  Returns 1 if it did, 0 if `state` had changed.
 * Used by the last arrival (status 0) and by the pvmd (PvmNoGroup).
 */
int gshm_end(struct gshm_slot *s, uint64_t expect, int status);

#endif /* PVM_GSHM_H */
