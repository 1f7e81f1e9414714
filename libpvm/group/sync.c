/*
 * sync.c - pvm_barrier and pvm_freezegroup.  A barrier meets in the
 * group's shared slot (shmbar.c); without one, and for freezes, one
 * TM_GS_* control call whose reply the pvmd holds until the members have
 * arrived.
 */
#include "gs.h"
#include "proto/gshm.h"

int pvm_barrier(char *group, int count)
{
	int r = gs_name_check(group);
	if (r < 0)
		return gs_quiet_err(r);
	/* -1 means the group's size when the barrier starts */
	if (count == 0 || count < -1)
		return gs_quiet_err(PvmBadParam);
	/* The host-local step in shared memory when the group has a slot
	 * (docs/groups.md); otherwise the pvmd counts the arrivals.  All
	 * members take the same path: the slot is the group's. */
	int slot, gid, me = pvm_mytid();
	if (me > 0 && !gs_cache_slot(group, me, &slot, &gid)) {
		struct gs_members m;
		r = gs_members_get(group, 0, &m);
		if (r < 0)
			return gs_quiet_err(r);
		if (gs_members_find_tid(&m, me) < 0)
			m.slot = -1; /* not a member: the pvmd answers that */
		slot = m.slot;
		gid = m.gid;
		gs_members_free(&m);
	}
	if (me > 0 && slot >= 0 && (count == -1 || count <= GSHM_MAX_COUNT)) {
		r = gs_shm_barrier(slot, gid, count);
		if (r != GSHM_MOVED)
			return gs_quiet_err(r);
		/* the machine grew: the pvmd counts this barrier now, and
		 * every member arrives there (again) */
		gs_cache_drop(group);
	}
	r = gs_simple_call(WIRE_TM_GS_BARRIER, group, 1, count);
	return gs_quiet_err(r > 0 ? 0 : r);
}

int pvm_freezegroup(char *group, int size)
{
	int r = gs_name_check(group);
	if (r < 0)
		return gs_quiet_err(r);
	if (size == 0 || size < -1)
		return gs_quiet_err(PvmBadParam);
	r = gs_simple_call(WIRE_TM_GS_FREEZE, group, 1, size);
	if (r < 0)
		return gs_quiet_err(r);
	/* the group cannot change any more: keep its list from now on
	 * (gs_members_get caches a list the pvmd reports frozen) */
	struct gs_members m;
	if (gs_members_get(group, 1, &m) == 0)
		gs_members_free(&m);
	return r;
}
