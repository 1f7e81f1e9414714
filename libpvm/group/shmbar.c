/*
 * shmbar.c - pvm_barrier among the tasks of one host through the group's
 * shared slot (proto/gshm.h, docs/groups.md): arriving is one
 * compare-and-swap; the last arrival ends the generation and wakes the
 * others, who wait on the generation word with a futex after a short
 * spin.  No message and no pvmd is involved, except when the pvmd breaks
 * a barrier that a member's departure made impossible.
 */
#define _GNU_SOURCE
#include "common/clock.h"
#include "common/cpu.h"
#include "gs.h"
#include "lpvm_priv.h"
#include "proto/gshm.h"
#include "proto/vmdir.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAP_BYTES (GSHM_SLOTS * sizeof(struct gshm_slot))
/* Checks of the generation before sleeping (a few microseconds), so that
 * a barrier whose members arrive together never sleeps.  Only when every
 * member can have a CPU of its own: otherwise a spinning waiter takes the
 * CPU that a member still to arrive needs. */
#define SPINS	  200
/* Then, up to this long, the waiter yields the CPU between looks: with
 * more members than CPUs the members still to arrive run meanwhile, and
 * the release is seen without the cost of a wake-up (on 2 CPUs, 16
 * members: about 90 us a barrier against about 150 with futex sleeps;
 * 70 us since the members share the master's scheduling group, see
 * pvmd/main.c detach()).
 * After it, the waiter sleeps on the futex and uses no CPU. */
#define YIELD_NS  500000

static struct gshm_slot *slots; /* the pvmd's file, mapped once */

static struct gshm_slot *map_slots(void)
{
	if (slots)
		return slots;
	char path[600];
	if (vmdir_file(path, sizeof path, VMDIR_GSHM) < 0)
		return NULL;
	int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	void *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	slots = p;
	return slots;
}

static int spins_for(uint32_t count)
{
	static long ncpu;
	if (!ncpu) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		if (ncpu < 1)
			ncpu = 1;
	}
	return count <= (uint32_t)ncpu ? SPINS : 0;
}

/* Waits until generation `gen` (of a barrier of `count`) has ended;
 * returns its status. */
static int wait_end(struct gshm_slot *s, uint32_t gen, uint32_t count)
{
	uint32_t *word = gshm_futex(s);
	int spins = spins_for(count);
	int64_t yield_until = 0;
	for (int i = 0;; i++) {
		uint64_t st =
			atomic_load_explicit(&s->state, memory_order_acquire);
		if (gshm_gen(st) != gen)
			break;
		if (i < spins) {
			cpu_relax();
			continue;
		}
		if (!yield_until)
			yield_until = mono_ns() + YIELD_NS;
		/* queued output (see below) is looked at now and then */
		if (mono_ns() < yield_until &&
		    ((i & 63) || !lpvm_priv_progress())) {
			sched_yield();
			continue;
		}
		/* Sleeps while the word still says `gen`.  Messages this task
		 * sent may still be queued here (a member may wait for them
		 * before it arrives): while there are, sleep 1 ms at a time
		 * and move them on.  The 1 s otherwise only bounds a sleep
		 * that a lost wake-up could make endless. */
		struct timespec to = {1, 0};
		if (lpvm_priv_progress())
			to = (struct timespec){0, 1000000};
		atomic_fetch_add(&s->sleepers, 1);
		syscall(SYS_futex, word, FUTEX_WAIT, gen, &to, NULL, 0);
		atomic_fetch_sub(&s->sleepers, 1);
	}
	/* the ender records the result right after moving the generation */
	for (int i = 0;; i++) {
		uint64_t r = atomic_load_explicit(&s->result[gen % 4],
						  memory_order_acquire);
		uint32_t rgen = (uint32_t)(r >> 32);
		if (rgen == gen)
			return (int32_t)(uint32_t)r;
		if ((int32_t)(rgen - gen) > 0)
			return 0; /* overwritten by a later generation: ours
				   * ended, and only a broken one would not
				   * have let the later ones complete */
		if (i > SPINS)
			sched_yield();
		else
			cpu_relax();
	}
}

int gs_shm_barrier(int slot, int gid, int count)
{
	struct gshm_slot *all = map_slots();
	if (!all || slot < 0 || slot >= GSHM_SLOTS)
		return PvmSysErr;
	struct gshm_slot *s = &all[slot];
	if (atomic_load(&s->gid) != gid)
		return PvmNoGroup; /* the group is gone (its slot reused) */

	for (;;) {
		uint64_t st =
			atomic_load_explicit(&s->state, memory_order_acquire);
		int flags = atomic_load(&s->flags);
		if (flags & GSHM_F_MOVED)
			return GSHM_MOVED;
		if (flags & GSHM_F_DEFUNCT)
			return PvmNoGroup;
		uint32_t gen = gshm_gen(st), arr = gshm_arrived(st), want;
		if (arr == 0) {
			/* the first arrival sets the count; -1: the size now */
			int32_t n = atomic_load(&s->members);
			want = count == -1 ? (uint32_t)n : (uint32_t)count;
			if (want == 0 || want > GSHM_MAX_COUNT)
				return PvmNoGroup;
			/* a frozen group gains no members: it would wait
			 * forever (as the pvmd's path answers) */
			if ((flags & GSHM_F_FROZEN) && want > (uint32_t)n)
				return PvmNoGroup;
		} else {
			want = gshm_count(st);
			if (count != -1 && (uint32_t)count != want)
				return PvmMismatch;
		}
		if (arr + 1 >= want) {
			if (gshm_end(s, st, 0))
				return 0;
			continue; /* someone else moved: look again */
		}
		uint64_t next = gshm_state(gen, arr + 1, want);
		if (atomic_compare_exchange_weak_explicit(&s->state, &st, next,
							  memory_order_acq_rel,
							  memory_order_acquire))
			return wait_end(s, gen, want);
	}
}
