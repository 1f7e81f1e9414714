/*
 * signals.h - signals, reaping children and halting (signals.c).
 */
#ifndef PVMD_SIGNALS_H
#define PVMD_SIGNALS_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

/* Blocks SIGCHLD/SIGTERM/SIGINT and watches them through a signalfd;
 * ignores SIGPIPE and SIGHUP.  Returns 0 or -1 (errno set). */
int pvmd_signals_init(struct pvmd *d);
/* Starts the halt: kills every task, then stops the loop. */
void pvmd_halt(struct pvmd *d, const char *why);
/* Reaps exited children; a child that was a task is gone (after what it
 * wrote to its connection has been read). */
void pvmd_reap(struct pvmd *d);

#endif /* PVMD_SIGNALS_H */
