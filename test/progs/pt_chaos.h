/*
 * pt_chaos.h - what the two files of pt_chaos share (test/faults.bats):
 * pt_chaos.c (the master and its accounting) and pt_chaos_worker.c (the
 * workers that stream checked messages to each other).
 */
#ifndef PT_CHAOS_H
#define PT_CHAOS_H

#include <stdint.h>

#include "pvm3.h"

#define ME "pt_chaos"

/* master -> worker */
#define T_PEERS	 40 /* int n, n tids: the workers alive now */
#define T_STOP	 41 /* int n, n tids: the survivors; stop, send T_END */
#define T_QUIT	 42 /* the accounting is done: exit */
/* worker -> worker */
#define T_DATA	 50 /* int {src, dst, seq, size, enc}, size bytes */
#define T_END	 51 /* int n: the number of T_DATA sent to the receiver */
/* worker -> master */
#define T_HELLO	 60 /* int pid */
#define T_REPORT 61 /* int n, n x REP_INTS ints (struct peer's counts) */
/* notifies, to the master */
#define T_TX	 70
#define T_HD	 71
#define T_HA	 72

#define MAXPEER 1024

/* One stream each way between a worker and one peer. */
struct peer {
	int tid;
	int active;  /* in the master's latest T_PEERS list */
	int sent;    /* T_DATA sent to it (the next seq) */
	int senderr; /* pvm_send to it that failed */
	int recv;    /* T_DATA from it that arrived */
	int exp;     /* the next seq expected from it */
	int gaps;    /* messages skipped over (seq > exp) */
	int dups;    /* seq < exp: a duplicate or out of order */
	int bad;     /* header or payload differs from what was sent */
	int endcnt;  /* its T_END count, -1 before it came */
};
#define REP_INTS 8 /* tid sent senderr recv gaps dups bad endcnt */

/* The bytes of message seq from src to dst (both sides compute them). */
static inline void chaos_fill(unsigned char *b, int n, int src, int dst,
			      int seq)
{
	uint64_t x = (uint64_t)(unsigned)src * 0x9E3779B97F4A7C15ull ^
		     (uint64_t)(unsigned)dst * 0xC2B2AE3D27D4EB4Full ^
		     (uint64_t)(unsigned)seq * 0x165667B19E3779F9ull;
	x |= 1;
	for (int k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[k] = (unsigned char)x;
	}
}

int worker_main(int interval_ms, const char *brk);

#endif
