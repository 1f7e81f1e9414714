/*
 * group_shm.c - the pvmd's side of the groups' shared slots (proto/gshm.h):
 * the file in the VM directory, a slot per group, and breaking a barrier
 * that can no longer complete.
 *
 * Without the file (it could not be created) every group gets slot -1 and
 * its barriers go through the pvmd (TM_GS_BARRIER) instead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "proto/gshm.h"
#include "pvm3.h"
#include "pvmd/group.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"

#define MAP_BYTES (GSHM_SLOTS * sizeof(struct gshm_slot))

void gshm_open(struct pvmd *d)
{
	if (snprintf(d->gshm_path, sizeof d->gshm_path, "%s/%s", d->dir,
		     VMDIR_GSHM) >= (int)sizeof d->gshm_path)
		return;
	unlink(d->gshm_path); /* one left by a pvmd that crashed */
	int fd = open(d->gshm_path,
		      O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)MAP_BYTES) < 0) {
		plog(PL_ERR, "%s: %s; group barriers go through the pvmd",
		     d->gshm_path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(d->gshm_path);
		}
		d->gshm_path[0] = '\0';
		return;
	}
	void *p = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		       0);
	close(fd);
	if (p == MAP_FAILED) {
		plog(PL_ERR, "mmap %s: %s; group barriers go through the pvmd",
		     d->gshm_path, strerror(errno));
		unlink(d->gshm_path);
		d->gshm_path[0] = '\0';
		return;
	}
	d->gshm = p;
}

void gshm_close(struct pvmd *d)
{
	if (d->gshm)
		munmap(d->gshm, MAP_BYTES);
	d->gshm = NULL;
	if (d->gshm_path[0])
		unlink(d->gshm_path);
	d->gshm_path[0] = '\0';
}

int gshm_slot_new(struct pvmd *d, int32_t *gid)
{
	if (++d->gshm_last_gid <= 0)
		d->gshm_last_gid = 1;
	*gid = d->gshm_last_gid;
	if (!d->gshm)
		return -1;
	for (int i = 0; i < GSHM_SLOTS; i++) {
		struct gshm_slot *s = &d->gshm[i];
		if (atomic_load(&s->flags) & GSHM_F_USED)
			continue;
		/* the generation goes on from the slot's last use, so that a
		 * waiter of an old group can never mistake it */
		uint32_t gen = gshm_gen(atomic_load(&s->state));
		atomic_store(&s->state, gshm_state(gen + 1, 0, 0));
		atomic_store(&s->members, 0);
		atomic_store(&s->gid, *gid);
		atomic_store(&s->flags, GSHM_F_USED);
		return i;
	}
	return -1; /* all in use: this group's barriers use the pvmd */
}

/* Ends the pending barrier of slot `s` with PvmNoGroup when the group is
 * defunct or its count is above the members left; retried while
 * arrivals race with us. */
static void break_if(struct pvmd *d, struct gshm_slot *s, int defunct)
{
	for (;;) {
		uint64_t st = atomic_load(&s->state);
		uint32_t cnt = gshm_count(st);
		if (!cnt)
			return;
		if (!defunct && cnt <= (uint32_t)atomic_load(&s->members))
			return;
		if (gshm_end(s, st, PvmNoGroup)) {
			plog(PL_DEBUG, "group slot %d: barrier of %u broken",
			     (int)(s - d->gshm), cnt);
			return;
		}
	}
}

void gshm_slot_update(struct pvmd *d, int slot, int members, int frozen,
		      int defunct, int departed)
{
	if (!d->gshm || slot < 0 || slot >= GSHM_SLOTS)
		return;
	struct gshm_slot *s = &d->gshm[slot];
	atomic_store(&s->members, members);
	int moved = atomic_load(&s->flags) & GSHM_F_MOVED;
	atomic_store(&s->flags, GSHM_F_USED | moved |
					(frozen ? GSHM_F_FROZEN : 0) |
					(defunct ? GSHM_F_DEFUNCT : 0));
	/* while members join, a count above the size is normal: only a
	 * departure makes it unreachable */
	if (departed || defunct)
		break_if(d, s, defunct);
}

void gshm_slot_move(struct pvmd *d, int slot)
{
	if (!d->gshm || slot < 0 || slot >= GSHM_SLOTS)
		return;
	struct gshm_slot *s = &d->gshm[slot];
	atomic_fetch_or(&s->flags, GSHM_F_MOVED);
	/* a barrier pending here: its members are told to arrive again at
	 * the pvmd (later arrivals see the flag first) */
	for (;;) {
		uint64_t st = atomic_load(&s->state);
		if (!gshm_count(st) || gshm_end(s, st, GSHM_MOVED))
			return;
	}
}

void gshm_slot_free(struct pvmd *d, int slot)
{
	if (!d->gshm || slot < 0 || slot >= GSHM_SLOTS)
		return;
	struct gshm_slot *s = &d->gshm[slot];
	atomic_store(&s->members, 0);
	break_if(d, s, 1);
	atomic_store(&s->gid, 0);
	atomic_store(&s->flags, 0);
}
