/*
 * link_fuzz.c - libFuzzer target: what another pvmd may send on an
 * authenticated link.  Every DM_* request, forwarded TM_* request, reply
 * and data frame goes through the real host layer of a pvmd made fresh
 * for each input (pvmd/fuzz_pvmd.h), with an enrolled task of its own
 * and a third host in its table.
 *
 * Input byte 0:
 *   bit 0  the pvmd under test is a slave (host 2) and the link is its
 *          master's; else it is the master and the link a slave's;
 *   bit 1  raw: the rest is written on the link as it is;
 *   bit 2  raw, on a connection just accepted on the TCP port, before
 *          any handshake (DM_HELLO, the checks of admit() in link.c).
 * Otherwise the rest is records: code, flags, wid, a 16-bit little-endian
 * length, payload.  Flags: 1 a reply, 2 a data message (tag = code) not
 * a control frame, 4 from a task of the peer's host rather than its
 * pvmd, 8 to our task rather than our pvmd, 16 from WIRE_TID_PVMD_SRC
 * (a remote task's output).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/fuzz_pvmd.h"
#include "pvmd/host/hostlayer.h"

static struct host *add_host(struct pvmd *d, int no)
{
	struct host *h = host_get(d, no);
	if (!h)
		h = host_new(d, no);
	if (!h)
		return NULL;
	snprintf(h->name, sizeof h->name, "h%d", no);
	snprintf(h->arch, sizeof h->arch, "%s", d->arch);
	snprintf(h->addr, sizeof h->addr, "127.0.0.%d:%d", no, 4000 + no);
	h->speed = 1000;
	if (h->state != HOST_UP)
		d->hosts->nup++;
	h->state = HOST_UP;
	return h;
}

static void records(struct pvmd *d, int peer, int peer_no, int task,
		    const uint8_t *p, size_t n)
{
	uint32_t seq = 0;
	while (n >= 5) {
		uint8_t code = p[0], fl = p[1], wid = p[2];
		size_t len = (size_t)p[3] | (size_t)p[4] << 8;
		p += 5;
		n -= 5;
		if (len > n)
			len = n;
		struct wire_hdr h = {.flags = WIRE_F_FIRST | WIRE_F_LAST,
				     .src = wire_host_tid(peer_no),
				     .dst = d->hosttid,
				     .tag = code,
				     .wid = wid};
		if (fl & 4)
			h.src |= 1;
		if (fl & 16)
			h.src = WIRE_TID_PVMD_SRC;
		if ((fl & 8) && task)
			h.dst = task;
		if (fl & 2) {
			h.enc = PvmDataDefault;
			h.seq = ++seq;
		} else {
			h.flags |= WIRE_F_CTRL;
			if (fl & 1)
				h.flags |= WIRE_F_REPLY;
		}
		fz_frame(d, peer, h, p, len);
		p += len;
		n -= len;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t n)
{
	static struct pvmd pv;
	struct pvmd *d = &pv;
	if (n < 1)
		return 0;
	uint8_t mode = in[0];
	in++;
	n--;
	int slave = mode & 1, peer_no = slave ? 1 : 2;
	fz_pvmd_new(d, slave ? 2 : 1);
	struct host *ph = add_host(d, peer_no);
	add_host(d, slave ? 2 : 1);
	add_host(d, 3);
	int tpeer, peer;
	int task = fz_task(d, &tpeer);
	if (mode & 4) {
		/* as link.c accepts a TCP connection from 127.0.0.2 */
		if (link_accepted(d, fz_socket(&peer), htonl(0x7f000002)))
			fz_feed(d, peer, in, n);
		fz_later(d, 25, 4);
		fz_pvmd_free(d);
		return 0;
	}
	struct conn *c = fz_conn(d, CONN_LINK, &peer);
	c->state = C_READY;
	c->host = ph;
	c->peer_no = peer_no;
	ph->link = c;
	if (mode & 2)
		fz_feed(d, peer, in, n);
	else
		records(d, peer, peer_no, task, in, n);
	fz_later(d, 25, 4); /* the timers of the next 100 ms: a halt's */
	fz_pvmd_free(d);
	return 0;
}
