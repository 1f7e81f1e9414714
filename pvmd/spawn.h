/*
 * spawn.h - starting tasks: the spawn request, the search path, the
 * descriptors set aside (spawn.c; its wire form in ctl_spawn.c).
 */
#ifndef PVMD_SPAWN_H
#define PVMD_SPAWN_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

struct spawn_req {
	char *file;
	int flags;
	char *where;
	int count;
	int ctx;
	int argc;
	char **argv; /* argc strings, NULL-ended */
	int nenv;
	char **env; /* nenv "NAME=value" strings, NULL-ended */
	int outtid, outctx, outtag;
};

/* Builds the spawn search path from PVM_PATH / HOME / PVM_ROOT. */
int spawn_init(struct pvmd *d);
/* How a spawn ended, for its requester: `status` is the number started
 * or a negative PVM error code of the whole request (then count is 0);
 * tids[count] holds each copy's tid or error code.  hdr: the request's
 * header, ptid its parent; cookie: what spawn_start was given. */
struct spawn_result {
	int ptid;
	const struct wire_hdr *hdr;
	int status;
	int count;
	const int *tids;
	intptr_t cookie;
};
typedef void (*spawn_done_fn)(struct pvmd *d, const struct spawn_result *r);

/* Starts q->count copies for parent task `ptid` (of this host or
 * another), taking q over (it is zeroed).  The copies are started in
 * steps of a few milliseconds after the loop's current batch, between
 * which the pvmd serves everyone else; `done` is called once at the end,
 * or at once when nothing can start.  Under halt the rest fail with
 * PvmSysErr. */
void spawn_start(struct pvmd *d, int ptid, struct spawn_req *q,
		 const struct wire_hdr *h, spawn_done_fn done, intptr_t cookie);
void spawn_req_free(struct spawn_req *r);
/* TM_SPAWN's payload (ctl_spawn.c).  decode: 0 or -1 (malformed). */
int spawn_decode(struct wire_rd *r, struct spawn_req *q);
void spawn_encode(struct wire_wr *w, const struct spawn_req *q);
/* Host-name checks shared with TM_MSTAT. */
int spawn_is_our_host(const struct pvmd *d, const char *name);
/* A connection is accepted, or is about to be and the pvmd is out of
 * descriptors: gives back one that a spawn set aside for a task still to
 * connect (spawn.c).  Returns 1 if there was one, else 0. */
int spawn_fd_release(struct pvmd *d);

#endif /* PVMD_SPAWN_H */
