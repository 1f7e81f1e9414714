/*
 * sync.c - pvm_barrier and pvm_freezegroup: one TM_GS_* control call
 * each, whose reply the pvmd holds until the members have arrived.
 */
#include "gs.h"

int pvm_barrier(char *group, int count)
{
	int r = gs_name_check(group);
	if (r < 0)
		return gs_quiet_err(r);
	/* -1 means the group's size when the barrier starts */
	if (count == 0 || count < -1)
		return gs_quiet_err(PvmBadParam);
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
