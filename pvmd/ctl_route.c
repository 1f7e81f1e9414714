/*
 * ctl_route.c - TM_ROUTEADDR: where a task of this host listens for
 * direct routes over TCP (docs/protocol.md, "Direct routes").
 *
 * A task tells its pvmd its listener's port in TM_CONNECT; a task of
 * another host that wants a direct route to it asks (through its own
 * pvmd, which forwards the request here) for "ip:port".  Only tids of
 * this host are answered here; requests for other hosts' tids are
 * forwarded before they reach this handler.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/task.h"

int ctl_routeaddr(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	int tid = wire_rd_i32(r);
	if (r->err || r->left != 0)
		return -1;

	int status = 0;
	struct task *t = NULL;
	if ((tid & WIRE_TID_HOST_MASK) == (d->hosttid & WIRE_TID_HOST_MASK) &&
	    (tid & WIRE_TID_TASK_MASK) != 0 &&
	    !(tid & ~(WIRE_TID_HOST_MASK | WIRE_TID_TASK_MASK)))
		t = task_find(d, tid);
	if (!t || !t->conn || t->tcp_port <= 0)
		status = PvmNoTask;

	/* not listening on the network (one host): its tasks do not either,
	 * but with PVM_DIRECT_TCP=1 on the loopback address; an IPv6
	 * address goes in brackets */
	char addr[96] = "";
	if (status == 0) {
		const char *ip =
			link_listening(d) && d->ip[0] ? d->ip : "127.0.0.1";
		int v6 = strchr(ip, ':') != NULL;
		snprintf(addr, sizeof addr, "%s%s%s:%d", v6 ? "[" : "", ip,
			 v6 ? "]" : "", t->tcp_port);
	}
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_i32(&w, status);
	wire_wr_str(&w, addr);
	conn_reply(d, c, h, &w);
	wire_wr_free(&w);
	return 0;
}
