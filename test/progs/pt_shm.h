/*
 * pt_shm.h - what the two halves of pt_shm share: pt_shm.c (the modes
 * test/shm.bats runs) and pt_shm_child.c (the children they spawn, and
 * the loops both sides run).
 */
#ifndef PT_SHM_H
#define PT_SHM_H

#define ME	"pt_shm"
#define T_DATA	10
#define T_END	11
#define T_DEF	12
#define T_OK	13
#define T_EXIT	14
#define T_READY 15
#define T_BURST 100 /* ..107: child-burst */

/* mode lend: each part of a message is this big */
#define LEND_MIB ((size_t)1 << 20)

/* Sends `mib` MiB in 1 MiB messages to `peer`, then receives as much from
 * it and checks it.  Returns the number of errors. */
int mutual(int peer, int mib, unsigned seed_out, unsigned seed_in);

/* n ping-pongs with `peer`, random pauses on the way (first: we send
 * first).  Returns the number of errors. */
int stress(int peer, int n, unsigned seed, int first);

/* Runs child mode m (argument a) and returns its exit status, or -1 when
 * m is not a child mode. */
int pt_shm_child(const char *m, const char *a);

#endif
