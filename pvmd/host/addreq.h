/*
 * addreq.h - one request to add hosts (TM_ADDHOST, or the hostfile given
 * at startup) while its hosts start: what each one came to, and why a
 * start failed, in the words of the remote shell where it said some.
 * hoster.c starts the hosts; addreq.c answers when the last is done.
 */
#ifndef PVMD_HOST_ADDREQ_H
#define PVMD_HOST_ADDREQ_H

#include "proto/wire.h"
#include "pvmd/pvmd.h"

struct addreq {
	int req_tid; /* 0: the startup hostfile */
	struct wire_hdr req;
	int n, left;
	int *results; /* per host: its pvmd tid, or an error code */
	char **names; /* per host, for the hostfile's report */
	char **why;   /* per host: why it failed (NULL: no more to say) */
	int begun;    /* every start is under way (addreq_done(.., n, 0)) */
};

/* A request for n hosts, each left to answer, plus one that its maker
 * drops with addreq_done(d, ar, n, 0) once every start is under way (no
 * early answer).  NULL when out of memory. */
struct addreq *addreq_new(int n);
void addreq_name(struct addreq *ar, int idx, const char *name);
/* Records why host idx failed: `why`, then ": " and `detail` when that
 * is not empty (what the remote shell printed on its stderr). */
void addreq_why(struct addreq *ar, int idx, const char *why,
		const char *detail);
/* Host idx came to `result`; the last one answers the requester: i32
 * status, i32 n, n x i32 result, n x str why ("" for none), or, for the
 * hostfile, says on the starter's stderr which hosts were not added and
 * why, and lets it go (pvmd_started). */
void addreq_done(struct pvmd *d, struct addreq *ar, int idx, int result);

#endif
