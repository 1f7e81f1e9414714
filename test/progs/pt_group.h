/*
 * pt_group.h - what the files of pt_group share (test/group.bats):
 * pt_group.c (single-task and puppet modes, main) and pt_group_spmd.c
 * (N members running the same checks).
 */
#ifndef PT_GROUP_H
#define PT_GROUP_H

#define TAG_COUNTS 900	  /* spmd: a copy's check counts */
#define SPMD	   "spmd" /* the group of the spmd mode */

/* A line of output, flushed at once (the bats tests read it as it comes). */
#define P(...) (printf(__VA_ARGS__), fflush(stdout))

extern const char *self_name; /* this program, to spawn copies of */

/* gsize polled until it equals want (at most secs); returns the last. */
int gsize_until(const char *g, int want, double secs);

/* spmd MODE N ARGS (child: a spawned copy), in pt_group_spmd.c. */
int spmd_main(int child, const char *mode, int n, int argc, char **argv);

#endif
