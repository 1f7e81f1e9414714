/*
 * xfer.c - the data messages of reduce, scatter and gather: typed
 * packing, a small header, and a receive that notices a member gone.
 *
 * These messages travel in the system context WIRE_CTX_GROUP with the
 * user's tag, over direct routes, through buffers of their own: the
 * caller's active send and receive buffers, context and route option are
 * saved before and restored after (gs_save / gs_restore).
 */
#include "gs.h"
#include "lpvm_priv.h"

#include <sys/time.h>

/* How long one wait for a member's message lasts before we check that
 * the member is still in the group. */
#define GS_WAIT_USEC  300000
/* Last look for a message after learning that its sender left: it may
 * have sent before leaving, on another connection than the pvmd's. */
#define GS_GRACE_USEC 100000

size_t gs_type_size(int datatype)
{
	/* a string is no datatype of the collectives */
	return datatype == PVM_STR ? 0 : lpvm_priv_dtype_size(datatype);
}

/* (PVM_STR is no datatype of the collectives) */
static int pack(const void *p, int n, int datatype)
{
	/* pvm_pk* take non-const pointers */
	return datatype == PVM_STR
		       ? PvmBadParam
		       : lpvm_priv_pack(datatype, (void *)p, n, 1, 0);
}

static int unpack(void *d, int n, int datatype)
{
	return datatype == PVM_STR ? PvmBadParam
				   : lpvm_priv_pack(datatype, d, n, 1, 1);
}

void gs_save(struct gs_saved *s)
{
	/* detach, so that neither our receives (which free the active
	 * receive buffer) nor our sends touch the caller's buffers */
	s->sbuf = pvm_setsbuf(0);
	s->rbuf = pvm_setrbuf(0);
	s->ctx = pvm_setcontext(WIRE_CTX_GROUP);
	s->route = pvm_getopt(PvmRoute);
	pvm_setopt(PvmRoute, PvmRouteDirect);
}

void gs_restore(const struct gs_saved *s)
{
	if (s->route >= 0)
		pvm_setopt(PvmRoute, s->route);
	if (s->ctx >= 0)
		pvm_setcontext(s->ctx);
	pvm_setsbuf(s->sbuf > 0 ? s->sbuf : 0);
	pvm_setrbuf(s->rbuf > 0 ? s->rbuf : 0);
}

int gs_send(int tid, int tag, enum gs_kind kind, const void *data, int count,
	    int datatype, int status)
{
	/* Raw to every member: one of another data format converts as it
	 * unpacks (docs/hetero.md), and longs keep all their bits */
	int b = pvm_mkbuf(PvmDataRaw);
	if (b < 0)
		return b;
	pvm_setsbuf(b);
	int hdr[4] = {(int)kind, count, datatype, status < 0 ? status : 0};
	int r = pvm_pkint(hdr, 4, 1);
	if (r >= 0 && status >= 0)
		r = pack(data, count, datatype);
	if (r >= 0)
		r = pvm_send(tid, tag);
	pvm_setsbuf(0);
	pvm_freebuf(b);
	return r < 0 ? r : 0;
}

/* Unpacks a received message after checking its header. */
static int take(int bufid, enum gs_kind kind, void *out, int count,
		int datatype)
{
	int hdr[4];
	int r = pvm_upkint(hdr, 4, 1);
	if (r >= 0 &&
	    (hdr[0] != (int)kind || hdr[1] != count || hdr[2] != datatype))
		r = PvmMismatch;
	else if (r >= 0 && hdr[3] < 0)
		r = hdr[3]; /* the sender failed: no data follows */
	if (r >= 0)
		r = unpack(out, count, datatype);
	pvm_setrbuf(0);
	pvm_freebuf(bufid);
	return r < 0 ? r : 0;
}

int gs_recv(const char *group, int tid, int tag, enum gs_kind kind, void *out,
	    int count, int datatype)
{
	for (;;) {
		struct timeval tv = {0, GS_WAIT_USEC};
		int b = pvm_trecv(tid, tag, &tv);
		if (b > 0)
			return take(b, kind, out, count, datatype);
		if (b < 0)
			return b;
		/* still nothing: is the sender still one of us? */
		struct gs_members m;
		int st = gs_members_get(group, 1, &m);
		int gone = st < 0 || gs_members_find_tid(&m, tid) < 0;
		if (st == 0)
			gs_members_free(&m);
		if (!gone)
			continue;
		tv.tv_sec = 0;
		tv.tv_usec = GS_GRACE_USEC;
		b = pvm_trecv(tid, tag, &tv);
		if (b > 0)
			return take(b, kind, out, count, datatype);
		if (b < 0)
			return b;
		gs_cache_drop(group);
		return st < 0 && st != PvmNoGroup ? st : PvmNoGroup;
	}
}
