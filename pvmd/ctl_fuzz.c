/*
 * ctl_fuzz.c - libFuzzer target: what a task may send its pvmd.  Every
 * TM_* request goes through the real dispatch and handlers of a pvmd made
 * fresh for each input (fuzz_pvmd.h), with a second enrolled task for
 * requests to name.
 *
 * Input byte 0:
 *   bit 0  raw: the rest is written as it is on a connection not yet
 *          enrolled (the frame parser, TM_CONNECT, TM_LEAVING);
 *   bit 1  no second task;
 *   bit 2  the pvmd is a slave (host 2), not the master;
 *   bit 3  raw after enrollment: the rest follows a good TM_CONNECT.
 * Otherwise the rest is records, each a code byte, a wid byte, a 16-bit
 * little-endian length and that many payload bytes: a control request of
 * that code (below 0x80), or a message of tag code-0x80 to the second
 * task, with well-formed headers the harness writes.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/fuzz_pvmd.h"

static void records(struct pvmd *d, int peer, int tid, int other,
		    const uint8_t *p, size_t n)
{
	uint32_t seq = 0;
	while (n >= 4) {
		uint8_t code = p[0], wid = p[1];
		size_t len = (size_t)p[2] | (size_t)p[3] << 8;
		p += 4;
		n -= 4;
		if (len > n)
			len = n;
		struct wire_hdr h = {.flags = WIRE_F_FIRST | WIRE_F_LAST,
				     .src = tid,
				     .wid = wid};
		if (code < 0x80) {
			h.flags |= WIRE_F_CTRL;
			h.dst = d->hosttid;
			h.tag = code;
		} else {
			h.dst = other ? other : tid;
			h.tag = code - 0x80;
			h.enc = PvmDataDefault;
			h.seq = ++seq;
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
	fz_pvmd_new(d, mode & 4 ? 2 : 1);
	int other = 0, opeer, peer;
	if (!(mode & 2))
		other = fz_task(d, &opeer);
	if (mode & 1) {
		fz_conn(d, CONN_TASK, &peer);
		fz_feed(d, peer, in, n);
	} else {
		int tid = fz_task(d, &peer);
		if (mode & 8)
			fz_feed(d, peer, in, n);
		else
			records(d, peer, tid, other, in, n);
	}
	fz_later(d, 25, 4); /* the timers of the next 100 ms: a halt's */
	fz_pvmd_free(d);
	return 0;
}
