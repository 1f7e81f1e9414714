/*
 * bcast.c - pvm_bcast: the caller's active send buffer, tag and context
 * to every member of the group but the caller, straight to each (direct
 * routes).  The caller need not be a member.
 */
#include "gs.h"

#include <stdlib.h>

int pvm_bcast(char *group, int msgtag)
{
	struct gs_members m;
	int r = gs_members_of(group, &m);
	if (r < 0)
		return gs_quiet_err(r);
	int me = pvm_mytid();
	int n = 0;
	for (int i = 0; i < m.n; i++)
		if (m.tid[i] != me)
			m.tid[n++] = m.tid[i];
	/* nobody to send to: the reference says PvmNoInst */
	if (n == 0) {
		gs_members_free(&m);
		return gs_quiet_err(PvmNoInst);
	}
	int route = pvm_getopt(PvmRoute);
	pvm_setopt(PvmRoute, PvmRouteDirect);
	/* pvm_mcast checks the tag and the buffer and reports its errors
	 * itself, as in the reference */
	r = pvm_mcast(m.tid, n, msgtag);
	if (route >= 0)
		pvm_setopt(PvmRoute, route);
	gs_members_free(&m);
	return r < 0 ? r : 0;
}
