/*
 * ctl_spawn.c - the control requests that carry lists: TM_SPAWN (decoded
 * here, carried out in spawn.c) and TM_TASKS.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

#define SPAWN_MAX_COUNT 4096

int ctl_spawn(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r);
int ctl_tasks(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r);

void spawn_req_free(struct spawn_req *q)
{
	free(q->file);
	free(q->where);
	if (q->argv)
		for (int i = 0; i < q->argc; i++)
			free(q->argv[i]);
	free(q->argv);
	if (q->env)
		for (int i = 0; i < q->nenv; i++)
			free(q->env[i]);
	free(q->env);
	memset(q, 0, sizeof *q);
}

/* Reads `n` strings into a NULL-ended array.  NULL on error (r->err). */
static char **read_strings(struct wire_rd *r, int n)
{
	char **v = calloc((size_t)n + 1, sizeof *v);
	if (!v) {
		r->err = 1;
		return NULL;
	}
	for (int i = 0; i < n; i++) {
		v[i] = wire_rd_strdup(r);
		if (!v[i]) {
			for (int j = 0; j < i; j++)
				free(v[j]);
			free(v);
			r->err = 1;
			return NULL;
		}
	}
	return v;
}

int spawn_decode(struct wire_rd *r, struct spawn_req *q)
{
	memset(q, 0, sizeof *q);
	q->file = wire_rd_strdup(r);
	q->flags = wire_rd_i32(r);
	q->where = wire_rd_strdup(r);
	q->count = wire_rd_i32(r);
	q->ctx = wire_rd_i32(r);
	q->argc = wire_rd_count(r, 4);
	if (r->err)
		return -1;
	q->argv = read_strings(r, q->argc);
	q->nenv = wire_rd_count(r, 4);
	if (r->err)
		return -1;
	q->env = read_strings(r, q->nenv);
	q->outtid = wire_rd_i32(r);
	q->outctx = wire_rd_i32(r);
	q->outtag = wire_rd_i32(r);
	return r->err || r->left ? -1 : 0;
}

void spawn_encode(struct wire_wr *w, const struct spawn_req *q)
{
	wire_wr_str(w, q->file);
	wire_wr_i32(w, q->flags);
	wire_wr_str(w, q->where);
	wire_wr_i32(w, q->count);
	wire_wr_i32(w, q->ctx);
	wire_wr_i32(w, q->argc);
	for (int i = 0; i < q->argc; i++)
		wire_wr_str(w, q->argv[i]);
	wire_wr_i32(w, q->nenv);
	for (int i = 0; i < q->nenv; i++)
		wire_wr_str(w, q->env[i]);
	wire_wr_i32(w, q->outtid);
	wire_wr_i32(w, q->outctx);
	wire_wr_i32(w, q->outtag);
}

/* The spawn has ended (spawn_start): the answer to its TM_SPAWN. */
static void spawn_replied(struct pvmd *d, const struct spawn_result *r)
{
	ctl_reply_list(d, r->ptid, r->hdr, r->status, r->count, r->tids);
}

int ctl_spawn(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r)
{
	struct spawn_req q;
	if (spawn_decode(r, &q) < 0) {
		spawn_req_free(&q);
		return -1;
	}
	int ptid = ctl_src(c, h);
	if (q.count < 1 || q.count > SPAWN_MAX_COUNT || !*q.file) {
		plog(PL_ERR, "t%x: spawn of '%s' with count %d refused", ptid,
		     q.file, q.count);
		ctl_reply_list(d, ptid, h, PvmBadParam, 0, NULL);
		spawn_req_free(&q);
		return 0;
	}
	spawn_start(d, ptid, &q, h, spawn_replied, 0);
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	int x = (*(struct task *const *)a)->tid;
	int y = (*(struct task *const *)b)->tid;
	return (x > y) - (x < y);
}

static void put_task(struct pvmd *d, struct wire_wr *w, const struct task *t)
{
	wire_wr_i32(w, t->tid);
	/* The reference shows PvmParentNotSet for a PvmNoSpawnParent child. */
	wire_wr_i32(w, (t->pflags & CONN_PF_NOSPAWNPARENT) ? PvmParentNotSet
							   : t->ptid);
	wire_wr_i32(w, d->hosttid);
	wire_wr_i32(w, t->flags);
	wire_wr_str(w, t->aout);
	wire_wr_i32(w, (int)t->pid);
}

int ctl_tasks(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
	      struct wire_rd *r)
{
	int where = wire_rd_i32(r);
	if (r->err || r->left)
		return -1;

	struct wire_wr w;
	wire_wr_init(&w);
	if (where == 0 || where == d->hosttid) {
		size_t n = 0;
		struct task **v = malloc((d->tasks.count + 1) * sizeof *v);
		if (!v) {
			wire_wr_i32(&w, PvmNoMem);
			wire_wr_i32(&w, 0);
		} else {
			for (size_t i = 0; i < d->tasks.cap; i++)
				if (d->tasks.slots[i].key)
					v[n++] = d->tasks.slots[i].val;
			qsort(v, n, sizeof *v, cmp_tid);
			wire_wr_i32(&w, 0);
			wire_wr_i32(&w, (int)n);
			for (size_t i = 0; i < n; i++)
				put_task(d, &w, v[i]);
			free(v);
		}
	} else {
		struct task *t = task_find(d, where);
		if (t) {
			wire_wr_i32(&w, 0);
			wire_wr_i32(&w, 1);
			put_task(d, &w, t);
		} else {
			/* No such task here: an empty list, as the reference
			 * answers; another host's tid: PvmNoHost. */
			int ours = (where & WIRE_TID_HOST_MASK) == d->hosttid &&
				   !(where & ~(WIRE_TID_HOST_MASK |
					       WIRE_TID_TASK_MASK));
			wire_wr_i32(&w, ours ? 0 : PvmNoHost);
			wire_wr_i32(&w, 0);
		}
	}
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}
