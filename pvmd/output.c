/*
 * output.c - what spawned tasks write on stdout and stderr (one pipe per
 * child, read by the event loop).
 *
 * Without an output destination each complete line goes to the log as
 * "[t40005] text" (a last partial line when the pipe ends).  With one (the
 * spawner's PvmOutputTid), the output travels in messages, as the reference
 * sends them: (tid, -2, parent) and (tid, -1, parent) when the task starts,
 * (tid, count, bytes) for each chunk read, (tid, 0) at the end; XDR ints,
 * the bytes padded to a multiple of 4.  See docs/protocol.md.
 *
 * A running task may move its own output elsewhere (PvmSelfOutputTid,
 * -Code, -Context through TM_SETOPT): what it wrote before goes to the
 * old destination, which gets EOF, and the new one gets the start
 * messages (in the order the reference sends them on a switch: -1, -2).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvmd/conn.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/output.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

#define CHUNK	      4096
#define LINE_MAX_LOG  4096 /* longer lines are logged in pieces */
/* A destination task of this host that does not read (a console stopped
 * with ^Z) may have at most OUT_HOLD_MAX bytes queued at the pvmd: then
 * the pipes that feed it are not read, their writers block as on a
 * terminal stopped with ^S, and the pipes are read again once it has
 * taken its queue down to OUT_HOLD_LOW (docs/limits.md). */
#define OUT_HOLD_MAX  (4u << 20)
#define OUT_HOLD_LOW  (1u << 20)
/* Output for a task of another host stops being read while the link to
 * that host has more than LINK_HOLD_MAX bytes not yet written, and is
 * read again once the link is down to LINK_HOLD_LOW: a destination's
 * pvmd too busy to read its link would otherwise get everything the
 * writer wrote meanwhile, queued here, once it asks us to pause (a
 * loaded run held 31 MiB there). */
#define LINK_HOLD_MAX (1u << 20)
#define LINK_HOLD_LOW (256u << 10)

/* Output message codes in the count field. */
#define OUT_EOF	  0
#define OUT_BEGIN (-1)
#define OUT_NEW	  (-2)

struct outpipe {
	struct pvmd *d;
	struct outpipe *next, *prev;
	int fd;
	struct loop_io io;
	int tid;
	int ptid; /* the spawner, named in BEGIN messages */
	int outtid, outctx, outtag;
	int paused;  /* not read: its destination does not take its queue */
	int rpaused; /* not read: the pvmd of its destination, on another
		      * host, asked (DM_OUTPAUSE) */
	int lpaused; /* not read: the link to its destination's host is
		      * full (LINK_HOLD_MAX) */
	char line[LINE_MAX_LOG];
	size_t linelen;
};

static int lpaused_n; /* pipes with lpaused set */

static void put32(uint8_t *p, int32_t v)
{
	uint32_t u = (uint32_t)v;
	p[0] = (uint8_t)(u >> 24);
	p[1] = (uint8_t)(u >> 16);
	p[2] = (uint8_t)(u >> 8);
	p[3] = (uint8_t)u;
}

/* Sends (tid, code[, extra]) or (tid, n, bytes) to the destination. */
static void send_out(struct outpipe *p, int code, int extra, const char *bytes,
		     size_t n)
{
	uint8_t buf[12 + CHUNK + 3];
	size_t len = 8;
	put32(buf, p->tid);
	put32(buf + 4, bytes ? (int32_t)n : code);
	if (bytes) {
		memcpy(buf + 8, bytes, n);
		size_t pad = (4 - n % 4) % 4;
		memset(buf + 8 + n, 0, pad);
		len += n + pad;
	} else if (code < 0) {
		put32(buf + 8, extra);
		len += 4;
	}
	pvmd_send_msg(p->d, p->outtid, p->outtag, p->outctx, buf, len);
}

static void log_line(struct outpipe *p)
{
	plog(PL_INFO, "[t%x] %.*s", p->tid, (int)p->linelen, p->line);
	p->linelen = 0;
}

static void to_log(struct outpipe *p, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			log_line(p);
			continue;
		}
		if (p->linelen == sizeof p->line)
			log_line(p);
		p->line[p->linelen++] = s[i];
	}
}

/* The destination task is gone: later output goes to the log. */
static int dest_alive(struct outpipe *p)
{
	/* a task of another host: alive while its host is (its pvmd drops
	 * what comes after it exits) */
	if (p->outtid && !host_is_local_tid(p->d, p->outtid) &&
	    host_of_tid(p->d, p->outtid))
		return 1;
	if (p->outtid && !task_find(p->d, p->outtid)) {
		plog(PL_INFO,
		     "t%x: output destination t%x is gone; output goes to this log",
		     p->tid, p->outtid);
		p->outtid = 0;
	}
	return p->outtid != 0;
}

static void outpipe_free(void *ptr)
{
	free(ptr);
}

static void finish(struct outpipe *p)
{
	struct pvmd *d = p->d;
	if (p->linelen)
		log_line(p);
	if (dest_alive(p))
		send_out(p, OUT_EOF, 0, NULL, 0);
	if (p->lpaused)
		lpaused_n--;
	loop_io_stop(d->loop, &p->io);
	close(p->fd);
	p->fd = -1;
	if (p->prev)
		p->prev->next = p->next;
	else
		d->pipes = p->next;
	if (p->next)
		p->next->prev = p->prev;
	loop_defer(d->loop, outpipe_free, p);
}

/* Reads up to `budget` bytes.  Returns 1 if the pipe may hold more, 0 when
 * it is empty for now, -1 when it ended (p is freed). */
static int read_pipe(struct outpipe *p, size_t budget)
{
	char buf[CHUNK];
	size_t got = 0;
	while (got < budget) {
		ssize_t n = read(p->fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			if (n < 0)
				plog(PL_ERR, "t%x: reading its output: %s",
				     p->tid, strerror(errno));
			finish(p);
			return -1;
		}
		got += (size_t)n;
		if (dest_alive(p))
			send_out(p, 0, 0, buf, (size_t)n);
		else
			to_log(p, buf, (size_t)n);
	}
	return 1;
}

/* Read again: nothing holds p any more. */
static void unpause(struct outpipe *p)
{
	if (!p->paused && !p->rpaused && !p->lpaused)
		loop_io_set(p->d->loop, &p->io, LOOP_IN);
}

static void pipe_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct outpipe *p = io->data;
	if (p->outtid && !host_is_local_tid(p->d, p->outtid) &&
	    host_link_queued(p->d, p->outtid) > LINK_HOLD_MAX &&
	    !(ev & (LOOP_HUP | LOOP_ERR))) {
		if (!p->lpaused)
			lpaused_n++;
		p->lpaused = 1;
		loop_io_set(l, io, 0);
		return;
	}
	/* (a hang-up is reported even while paused: the rest is at most
	 * a pipe's buffer, read it rather than be woken again and again) */
	if (task_queued(p->d, p->outtid) > OUT_HOLD_MAX &&
	    !(ev & (LOOP_HUP | LOOP_ERR))) {
		p->paused = 1;
		loop_io_set(l, io, 0);
		plog_src(LOG_SRC_TID(p->tid), PL_INFO,
			 "t%x: its output destination t%x holds %zu bytes not "
			 "read: its output waits",
			 p->tid, p->outtid, task_queued(p->d, p->outtid));
		return;
	}
	read_pipe(p, 256u << 10);
}

/* ---- a destination on another host ----
 *
 * Output for a task of this host from a task of another arrives from
 * that host's pvmd, which cannot see our queue: past OUT_HOLD_MAX we ask
 * it to stop reading that writer's pipe (DM_OUTPAUSE), and let it go on
 * (DM_OUTRESUME) once the queue is down to OUT_HOLD_LOW or the
 * destination is gone.  What is on its way meanwhile (a few reads of
 * 256 KiB) is held. */

struct rpause {
	struct rpause *next;
	int hostno, wtid, dst;
};

static void ask(struct pvmd *d, int hostno, int code, int wtid, int dst)
{
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, wtid);
	wire_wr_i32(&w, dst);
	host_send_dm(d, hostno, code, &w);
	wire_wr_free(&w);
}

void output_remote_arrived(struct pvmd *d, int hostno, const struct wire_hdr *h,
			   const uint8_t *payload)
{
	if (h->len < 8 || task_queued(d, h->dst) <= OUT_HOLD_MAX)
		return;
	struct wire_rd rd;
	wire_rd_init(&rd, payload, h->len);
	int wtid = wire_rd_i32(&rd); /* (the writer, first in every output
				      * message) */
	if (wtid <= 0 || host_is_local_tid(d, wtid))
		return;
	for (struct rpause *r = d->rpauses; r; r = r->next)
		if (r->wtid == wtid && r->dst == h->dst)
			return;
	struct rpause *r = malloc(sizeof *r);
	if (!r)
		return;
	*r = (struct rpause){d->rpauses, hostno, wtid, h->dst};
	d->rpauses = r;
	plog_src(LOG_SRC_TID(wtid), PL_INFO,
		 "t%x: its output destination t%x holds %zu bytes not read: "
		 "asked its pvmd to hold it",
		 wtid, h->dst, task_queued(d, h->dst));
	ask(d, hostno, WIRE_DM_OUTPAUSE, wtid, h->dst);
}

void output_remote_pause(struct pvmd *d, int wtid, int dst, int on)
{
	for (struct outpipe *p = d->pipes; p; p = p->next) {
		if (p->tid != wtid || p->outtid != dst || p->rpaused == on)
			continue;
		p->rpaused = on;
		if (on)
			loop_io_set(d->loop, &p->io, 0);
		else
			unpause(p);
	}
}

void output_links_drained(struct pvmd *d)
{
	if (!lpaused_n)
		return;
	for (struct outpipe *p = d->pipes; p; p = p->next)
		if (p->lpaused &&
		    host_link_queued(d, p->outtid) <= LINK_HOLD_LOW) {
			p->lpaused = 0;
			lpaused_n--;
			unpause(p);
		}
}

void output_resume(struct pvmd *d)
{
	for (struct outpipe *p = d->pipes; p; p = p->next) {
		/* (a destination's host that is gone cannot resume us) */
		if (p->rpaused && !host_of_tid(d, p->outtid)) {
			p->rpaused = 0;
			unpause(p);
		}
		if (p->paused && task_queued(p->d, p->outtid) <= OUT_HOLD_LOW) {
			p->paused = 0;
			unpause(p);
		}
	}
	for (struct rpause **pp = &d->rpauses; *pp;) {
		struct rpause *r = *pp;
		if (task_queued(d, r->dst) > OUT_HOLD_LOW &&
		    task_find(d, r->dst)) {
			pp = &r->next;
			continue;
		}
		ask(d, r->hostno, WIRE_DM_OUTRESUME, r->wtid, r->dst);
		*pp = r->next;
		free(r);
	}
}

struct outpipe *output_watch(struct pvmd *d, int fd, int tid, int outtid,
			     int outctx, int outtag, int ptid)
{
	struct outpipe *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->d = d;
	p->fd = fd;
	p->tid = tid;
	p->outtid = outtid;
	p->outctx = outctx;
	p->outtag = outtag;
	p->ptid = ptid;
	if (loop_io_start(d->loop, &p->io, fd, LOOP_IN, pipe_cb, p) < 0) {
		free(p);
		return NULL;
	}
	p->next = d->pipes;
	if (d->pipes)
		d->pipes->prev = p;
	d->pipes = p;
	if (dest_alive(p)) {
		send_out(p, OUT_NEW, ptid, NULL, 0);
		send_out(p, OUT_BEGIN, ptid, NULL, 0);
	}
	return p;
}

/* Reads whatever the pipe holds now.  Returns 0, or -1 if the pipe
 * ended (p is then freed). */
static int output_drain(struct outpipe *p)
{
	int r;
	while ((r = read_pipe(p, SIZE_MAX)) == 1)
		;
	return r;
}

void output_close_all(struct pvmd *d)
{
	while (d->rpauses) {
		struct rpause *r = d->rpauses;
		d->rpauses = r->next;
		free(r);
	}
	while (d->pipes) {
		struct outpipe *p = d->pipes;
		if (output_drain(p) == 0)
			finish(p); /* writers remain (grandchildren): stop now
				    */
	}
}

static struct outpipe *find_pipe(struct pvmd *d, int tid)
{
	for (struct outpipe *p = d->pipes; p; p = p->next)
		if (p->tid == tid && p->fd >= 0)
			return p;
	return NULL;
}

void output_set_dest(struct pvmd *d, int tid, int which, int val)
{
	struct outpipe *p = find_pipe(d, tid);
	if (!p)
		return; /* not started by us, or its output already ended */
	/* what the task wrote before asking goes where it was meant to go
	 * (bounded: another process may share the pipe and keep writing) */
	if (read_pipe(p, 1u << 20) < 0)
		return;
	int outtid = p->outtid, outctx = p->outctx, outtag = p->outtag;
	switch (which) {
	case OUTPUT_DEST_TID:
		outtid = val;
		break;
	case OUTPUT_DEST_CTX:
		outctx = val;
		break;
	case OUTPUT_DEST_TAG:
		outtag = val;
		break;
	default:
		return;
	}
	if (outtid == p->outtid && outctx == p->outctx && outtag == p->outtag)
		return;
	if (dest_alive(p))
		send_out(p, OUT_EOF, 0, NULL, 0);
	if (p->linelen)
		log_line(p);
	p->outtid = outtid;
	p->outctx = outctx;
	p->outtag = outtag;
	plog(PL_DEBUG, "t%x: output now goes to t%x (tag %d, context %d)", tid,
	     outtid, outtag, outctx);
	if (dest_alive(p)) {
		send_out(p, OUT_BEGIN, p->ptid, NULL, 0);
		send_out(p, OUT_NEW, p->ptid, NULL, 0);
	}
}
