/*
 * ctl.h - the control dispatch: one handler per TM_ and DM_ request (ctl.c,
 * ctl_spawn.c, ctl_route.c).
 */
#ifndef PVMD_CTL_H
#define PVMD_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "pvmd/pvmd.h"

struct wire_rd;

/* A handler: decodes its payload from r and replies.  Returns 0, or -1
 * when the payload is malformed. */
typedef int (*ctl_fn)(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      struct wire_rd *r);

/* Which pvmd handles a request of a task (docs/hosts.md, "Which requests
 * go where"); pvmd/host/fwd.c sends it there. */
enum ctl_where {
	CTL_HERE,     /* the task's own pvmd; never taken from a link */
	CTL_ANY,      /* the one asked: the task's, or one asked over a link */
	CTL_MASTER,   /* the master: mailbox, groups, hosts, contexts */
	CTL_TID_HOST, /* the pvmd of the tid the payload starts with */
	CTL_SPLIT,    /* split over the hosts (spawn, tasks): fwd.c */
	CTL_ALL,      /* every pvmd, through the master (halt) */
};

/* One row of the control table, indexed by TM_* code.  The core's rows
 * are in ctl.c; the host layer adds its own (host_ctl_rows, host.h). */
struct ctl_row {
	const char *name;
	ctl_fn fn;
	enum ctl_where where;
};

/* Whether another pvmd may send this request on a task's behalf. */
static inline int ctl_from_link(const struct ctl_row *row)
{
	return row->where != CTL_HERE && row->where != CTL_ALL;
}

/* The tid a request on `c` is from: the task of a task connection, the
 * header's src on a link. */
int ctl_src(const struct conn *c, const struct wire_hdr *h);
/* Sends a control reply to task `tid` wherever it is: its connection
 * here, or over the link to its host (REPLY). */
void ctl_reply_tid(struct pvmd *d, int tid, const struct wire_hdr *req,
		   const struct wire_wr *payload);
/* ctl_reply_tid with the payload i32 status, i32 n, n x i32 v[i] (the
 * answer of spawn, addhost, delhost). */
void ctl_reply_list(struct pvmd *d, int tid, const struct wire_hdr *req,
		    int status, int n, const int *v);

/* Replies to request `h` with a status word alone. */
void ctl_reply_status(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		      int status);
/* Handles one control frame from connection `c` (payload complete).
 * Returns 0, or -1 when the frame is malformed (the caller closes `c`). */
int ctl_dispatch(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		 const uint8_t *payload);

#endif /* PVMD_CTL_H */
