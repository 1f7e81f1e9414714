/*
 * flow.c - credits for dropped messages and the pvmd's bounds on what it
 * queues for its tasks (flow.h, docs/limits.md).
 */
#include "config.h"

#include "pvmd/flow.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

static uint64_t env_size(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	long long n = size_parse(v);
	if (n < (long long)WIRE_WINDOW) {
		fprintf(stderr,
			"pvmd: %s=%s ignored (bytes, with k, M or G; at least "
			"%uk)\n",
			name, v, WIRE_WINDOW >> 10);
		return dflt;
	}
	return (uint64_t)n;
}

void flow_init(struct pvmd *d)
{
	d->hold_max = env_size("PVM_HOLD_MAX", FLOW_HOLD_MAX_DEFAULT);
	d->hold_total = env_size("PVM_HOLD_TOTAL", FLOW_HOLD_TOTAL_DEFAULT);
}

/* ---- credits in the name of a destination that will not read ---- */

/* A credit of n bytes to sender `to` in the name of task `from`. */
static void credit(struct pvmd *d, int to, int from, uint64_t n)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_u64(&w, n);
	struct wire_hdr c = {
		.flags = WIRE_F_FIRST | WIRE_F_LAST,
		.enc = PvmDataRaw,
		.dst = to,
		.src = from,
		.ctx = WIRE_CTX_CREDIT,
	};
	/* (out of memory: that sender's window to a gone task stays short) */
	if (!w.err)
		route_msg(d, &c, w.buf, w.len);
	wire_wr_free(&w);
}

void flow_dropped(struct pvmd *d, const struct wire_hdr *h)
{
	if ((h->flags & WIRE_F_FIRST) && wire_flow_counted(h))
		credit(d, h->src, h->dst, wire_flow_bytes(h->total));
}

/* (a count far past any window: a sender that ignores credits) */
#define OWED_MAX (LONG_MAX / 2)

void flow_delivered(struct pvmd *d, struct task *t, const struct wire_hdr *h)
{
	(void)d;
	if (!(h->flags & WIRE_F_FIRST) || !wire_flow_counted(h))
		return;
	uint64_t n = wire_flow_bytes(h->total);
	long owed = idhash_count(&t->flow_in, h->src);
	if (owed < OWED_MAX)
		idhash_count_add(&t->flow_in, h->src,
				 n < (uint64_t)(OWED_MAX - owed)
					 ? (long)n
					 : OWED_MAX - owed);
}

void flow_credit_seen(struct pvmd *d, struct task *t, const struct wire_hdr *h,
		      const uint8_t *p)
{
	(void)d;
	if (!t || !wire_is_credit(h) ||
	    (h->flags & (WIRE_F_FIRST | WIRE_F_LAST)) !=
		    (WIRE_F_FIRST | WIRE_F_LAST) ||
	    h->len != 8)
		return;
	struct wire_rd r;
	wire_rd_init(&r, p, h->len);
	uint64_t n = wire_rd_u64(&r);
	long owed = idhash_count(&t->flow_in, h->dst);
	if (owed > 0)
		idhash_count_add(&t->flow_in, h->dst,
				 n < (uint64_t)owed ? -(long)n : -owed);
}

void flow_task_gone(struct pvmd *d, struct task *t)
{
	struct idhash *in = &t->flow_in;
	for (size_t i = 0; i < in->cap; i++) {
		long owed = (long)(intptr_t)idhash_at(in, i);
		if (owed > 0)
			credit(d, in->slots[i].key, t->tid, (uint64_t)owed);
	}
	idhash_fini(in);
}

/* ---- the bounds ---- */

static int over(const struct pvmd *d, uint64_t q)
{
	/* past the total, only destinations that hold more than a window
	 * stop their senders: one that reads costs nobody a stall */
	return q > d->hold_max ||
	       (d->task_qbytes > d->hold_total && q > (uint64_t)WIRE_WINDOW);
}

static int has_room(const struct pvmd *d, uint64_t q)
{
	return q <= d->hold_max / 2 &&
	       (d->task_qbytes <= d->hold_total - d->hold_total / 4 ||
		q <= (uint64_t)WIRE_WINDOW / 2);
}

void flow_after_route(struct pvmd *d, struct conn *c, const struct wire_hdr *h)
{
	/* (every frame of a task comes here: while all tasks together hold
	 * less than either bound, no one of them can be over) */
	if (d->task_qbytes <= d->hold_max && d->task_qbytes <= d->hold_total)
		return;
	if (!over(d, task_queued(d, h->dst)) || conn_paused_for(c))
		return;
	struct task *s = conn_task(c);
	plog_src(LOG_SRC_TID(h->dst), PL_INFO,
		 "t%x holds %llu bytes it has not read (bounds: %llu per "
		 "task, %llu in all held %llu): not reading t%x until it "
		 "reads",
		 h->dst, (unsigned long long)task_queued(d, h->dst),
		 (unsigned long long)d->hold_max,
		 (unsigned long long)d->hold_total,
		 (unsigned long long)d->task_qbytes, s ? s->tid : 0);
	conn_pause_input(d, c, h->dst);
}

void flow_resume(struct pvmd *d)
{
	/* (resuming parses what the sender wrote, which may pause or close
	 * others: start over after each) */
	for (;;) {
		struct conn *c = d->paused;
		while (c && !has_room(d, task_queued(d, conn_paused_for(c))))
			c = conn_paused_next(c);
		if (!c)
			return;
		conn_resume_input(d, c);
	}
}
