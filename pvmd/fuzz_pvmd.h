/*
 * fuzz_pvmd.h - a pvmd run inside a libFuzzer target (fuzz_pvmd.c): made
 * fresh for each input, fed through real connections (socketpairs), its
 * loop turned until nothing more happens, then freed.
 *
 * The harness wraps what would reach outside the process (kill, clone,
 * fork, execvp, exit: link flags in pvmd/local.mk): a spawn fails as if
 * the system were out of processes, a signal reaches nobody, and an exit
 * returns to the target.
 */
#ifndef PVMD_FUZZ_PVMD_H
#define PVMD_FUZZ_PVMD_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "pvmd/conn.h"
#include "pvmd/pvmd.h"

/* A fresh pvmd: host 1, the master, or host `hostno` (2..) as a slave
 * whose master is host 1.  Its files live in a private directory. */
void fz_pvmd_new(struct pvmd *d, int hostno);
void fz_pvmd_free(struct pvmd *d);

/* A socketpair: returns the pvmd's end, the other (nonblocking) in
 * *peer, which the harness reads and closes as fz_conn's. */
int fz_socket(int *peer);
/* A connection of `kind` to d; the other end, nonblocking, in *peer. */
struct conn *fz_conn(struct pvmd *d, enum conn_kind kind, int *peer);

/* A task enrolled with a well-formed TM_CONNECT on a connection of its
 * own (its end in *peer); returns its tid, or 0. */
int fz_task(struct pvmd *d, int *peer);

/* Writes n bytes into peer (as much as fits while the pvmd reads), then
 * turns the loop until nothing is ready, throwing away what the pvmd
 * writes to any peer of fz_conn. */
void fz_feed(struct pvmd *d, int peer, const void *p, size_t n);
void fz_settle(struct pvmd *d);
/* Moves the pvmd's clock on by ms, `steps` times, settling after each:
 * its timers fire as they would in that time, however fast the machine
 * (clock_gettime is wrapped). */
void fz_later(struct pvmd *d, int ms, int steps);

/* Writes one frame with a header built from h (len, total set here). */
void fz_frame(struct pvmd *d, int peer, struct wire_hdr h, const void *p,
	      size_t n);

/* exit() called by the code under test jumps here when armed. */
extern jmp_buf fz_exit_jmp;
extern int fz_exit_armed;

#endif /* PVMD_FUZZ_PVMD_H */
