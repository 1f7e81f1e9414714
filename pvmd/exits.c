/*
 * exits.c - how the processes the pvmd started ended, and the TM_TASKEND
 * and TM_SPAWNPATH requests that tell it (docs/protocol.md).
 *
 * A task's end reaches its watchers as a PvmTaskExit notify whose body
 * is the tid alone (the reference's format, which old programs unpack);
 * a launcher or console that wants to say why a task failed asks
 * TM_TASKEND afterwards.  The notify (or the output's EOF) may come
 * before the process is reaped (pvm_exit, then exit(3)), so the answer
 * says "still running" until then.  The records live in a ring: the
 * newest EXITS_KEEP ends are known, older ones are forgotten.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/exits.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

#define EXITS_KEEP 4096

struct exit_rec {
	int tid;
	int wstatus;   /* -1: the process is not reaped (yet) */
	char aout[64]; /* the program's name as spawned, cut */
};

/* The ring (one per process: the pvmd has one state). */
static struct exit_rec *ring;
static size_t ring_next, ring_used;

static struct exit_rec *find(int tid);

/* A new record for `tid`, or NULL. */
static struct exit_rec *add(int tid)
{
	if (!ring) {
		ring = calloc(EXITS_KEEP, sizeof *ring);
		if (!ring)
			return NULL; /* the answer will be "unknown" */
	}
	struct exit_rec *e = &ring[ring_next];
	*e = (struct exit_rec){.tid = tid, .wstatus = -1};
	ring_next = (ring_next + 1) % EXITS_KEEP;
	if (ring_used < EXITS_KEEP)
		ring_used++;
	return e;
}

void exits_record(struct pvmd *d, int tid, int wstatus)
{
	(void)d;
	struct exit_rec *e = find(tid);
	if (!e || e->wstatus != -1)
		e = add(tid);
	if (e)
		e->wstatus = wstatus;
}

void exits_name(struct pvmd *d, int tid, const char *aout)
{
	(void)d;
	if (!aout || !*aout)
		return;
	struct exit_rec *e = find(tid);
	if (!e)
		e = add(tid);
	if (e)
		snprintf(e->aout, sizeof e->aout, "%s", aout);
}

void exits_free(struct pvmd *d)
{
	(void)d;
	free(ring);
	ring = NULL;
	ring_next = ring_used = 0;
}

/* The newest record of `tid`, or NULL. */
static struct exit_rec *find(int tid)
{
	for (size_t i = 1; i <= ring_used; i++) {
		struct exit_rec *e =
			&ring[(ring_next + EXITS_KEEP - i) % EXITS_KEEP];
		if (e->tid == tid)
			return e;
	}
	return NULL;
}

/* Is a process the pvmd started for `tid` still to be reaped? */
static int child_running(const struct pvmd *d, int tid)
{
	for (size_t i = 0; i < d->children.cap; i++)
		if (d->children.slots[i].val &&
		    (intptr_t)d->children.slots[i].val == tid)
			return 1;
	return 0;
}

int ctl_taskend(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	int tid = wire_rd_i32(r);
	if (r->err || r->left)
		return -1;
	int status = 0, state = WIRE_END_RUNNING, code = 0, core = 0;
	const struct exit_rec *e = find(tid);
	struct task *t = task_find(d, tid);
	const char *aout = t && t->aout ? t->aout : e ? e->aout : "";
	if (child_running(d, tid) || t)
		state = WIRE_END_RUNNING;
	else if (e && e->wstatus != -1 && WIFSIGNALED(e->wstatus)) {
		state = WIRE_END_SIGNALED;
		code = WTERMSIG(e->wstatus);
		core = WCOREDUMP(e->wstatus) != 0;
	} else if (e && e->wstatus != -1) {
		state = WIRE_END_EXITED;
		code = WEXITSTATUS(e->wstatus);
	} else {
		/* never spawned here, or forgotten */
		status = PvmNoTask;
	}
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	wire_wr_i32(&w, state);
	wire_wr_i32(&w, code);
	wire_wr_i32(&w, core);
	wire_wr_str(&w, aout);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}

int ctl_spawnpath(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	if (r->err || r->left)
		return -1;
	int n = 0;
	for (char **p = d->spawn_path; p && *p; p++)
		n++;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, 0);
	wire_wr_i32(&w, n);
	for (char **p = d->spawn_path; p && *p; p++)
		wire_wr_str(&w, *p);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}
