/*
 * exits.h - how the processes the pvmd started ended (exits.c), for
 * TM_TASKEND: the wait status of each spawned task's process, kept for
 * the most recent EXITS_KEEP of them.
 */
#ifndef PVMD_EXITS_H
#define PVMD_EXITS_H

#include "proto/wire.h"
#include "pvmd/pvmd.h"

/* Records the wait status of the process of task `tid` (reaped). */
void exits_record(struct pvmd *d, int tid, int wstatus);
/* Records the program name of task `tid`, which is leaving the task
 * table (its process may run on after pvm_exit). */
void exits_name(struct pvmd *d, int tid, const char *aout);
void exits_free(struct pvmd *d);

struct conn;
/* TM_TASKEND: i32 tid -> how that task's process ended (docs/protocol.md). */
int ctl_taskend(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r);
/* TM_SPAWNPATH: (none) -> the directories spawn searches. */
int ctl_spawnpath(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r);

#endif /* PVMD_EXITS_H */
