/*
 * buf.c - the message buffer table and the buffer calls of the API
 * (pvm_mkbuf, pvm_freebuf, pvm_initsend, pvm_[gs]et[sr]buf, pvm_bufinfo,
 * pvm_[gs]etminfo).
 *
 * Buffer ids are small positive ints: an id indexes the table directly
 * (O(1) lookup) and a freed id is pushed on a stack of free ids, so ids
 * are reused as in PVM 3.4.6.  None of these calls enrolls the task: a
 * program may pack and unpack without a pvmd.
 */
#include "pack/buf.h"

#include "error.h"
#include "proto/wire.h"
#include "pvm3.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int lp_sbuf, lp_rbuf;

static struct lp_buf **tab; /* tab[id], id 1..ntab-1; tab[0] unused */
static int ntab;
static int *freeids; /* stack of free ids below ntab */
static int nfree;

struct lp_buf *lp_buf_get(int bufid)
{
	if (bufid <= 0 || bufid >= ntab)
		return NULL;
	return tab[bufid];
}

struct lp_buf *lp_buf_user(int bufid)
{
	struct lp_buf *b = lp_buf_get(bufid);

	return b && !b->inqueue ? b : NULL;
}

static void lp_buf_free_struct(struct lp_buf *b);

static int alloc_id(void)
{
	if (nfree > 0)
		return freeids[--nfree];
	if (ntab == 0)
		ntab = 1; /* id 0 means "no buffer" */
	int n = ntab < 16 ? 16 : ntab * 2;
	struct lp_buf **t = realloc(tab, (size_t)n * sizeof *t);
	if (!t)
		return -1;
	tab = t;
	int *f = realloc(freeids, (size_t)n * sizeof *f);
	if (!f)
		return -1;
	freeids = f;
	/* push the new ids so that the smallest comes out first */
	for (int id = n - 1; id > ntab; id--) {
		tab[id] = NULL;
		freeids[nfree++] = id;
	}
	int id = ntab;
	tab[id] = NULL;
	ntab = n;
	return id;
}

/* ---- a pool of freed buffers ----
 *
 * A program that sends and receives small messages creates and frees a
 * buffer per message; malloc and free then cost more than the message
 * itself.  Freed buffers (the struct, with a body of at most POOL_BODY
 * bytes kept attached) wait here for the next lp_buf_new.
 */
#define POOL_MAX  16
#define POOL_BODY (64u << 10)

static struct lp_buf *pool[POOL_MAX];
static int npool;

struct lp_buf *lp_buf_new(int enc)
{
	struct lp_buf *b;
	if (npool > 0) {
		b = pool[--npool];
		uint8_t *data = b->data;
		size_t cap = b->cap;
		struct lp_seg *seg = b->seg;
		int segcap = b->segcap;
		/* copying a zero struct compiles to a few vector stores;
		 * memset became "rep stos", slow to start on a hot path */
		static const struct lp_buf zero;
		*b = zero;
		b->data = data;
		b->cap = cap;
		b->seg = seg;
		b->segcap = segcap;
	} else if (!(b = calloc(1, sizeof *b))) {
		return NULL;
	}
	int id = alloc_id();
	if (id < 0) {
		lp_buf_free_struct(b);
		return NULL;
	}
	b->id = id;
	b->enc = enc;
	b->fmt = DSIG_FMT_NATIVE;
	b->src = lp_selftid;
	tab[id] = b;
	return b;
}

/* The buffer lets go of its lending record.  Returns 1 when others still
 * hold the body: then it is theirs, not the buffer's. */
static int unlend(struct lp_buf *b)
{
	struct lp_lend *l = b->lend;
	if (!l)
		return 0;
	b->lend = NULL;
	if (--l->refs > 0)
		return 1;
	free(l);
	return 0;
}

struct lp_lend *lp_buf_lend(struct lp_buf *b)
{
	if (!b->lend) {
		struct lp_lend *l = malloc(sizeof *l);
		if (!l)
			return NULL;
		*l = (struct lp_lend){.p = b->data, .cap = b->cap, .refs = 1};
		b->lend = l;
	}
	b->lend->refs++;
	return b->lend;
}

void lp_lend_put(struct lp_lend *l)
{
	if (--l->refs > 0)
		return;
	lp_mem_put(l->p, l->cap); /* the buffer had let go of it */
	free(l);
}

static void destroy(struct lp_buf *b)
{
	free(b->seg);
	lp_mem_put(b->data, b->cap);
	free(b);
}

static void lp_buf_free_struct(struct lp_buf *b)
{
	if (unlend(b)) {
		b->data = NULL;
		b->cap = 0;
	}
	for (int i = 0; i < b->nown; i++)
		free(b->own[i]);
	free(b->own);
	b->own = NULL;
	b->nown = b->owncap = 0;
	if (npool < POOL_MAX && b->cap <= POOL_BODY) {
		pool[npool++] = b;
		return;
	}
	destroy(b);
}

void lp_buf_free(struct lp_buf *b)
{
	if (!b)
		return;
	if (lp_sbuf == b->id)
		lp_sbuf = 0;
	if (lp_rbuf == b->id)
		lp_rbuf = 0;
	tab[b->id] = NULL;
	freeids[nfree++] = b->id; /* room: freeids has ntab slots */
	lp_buf_free_struct(b);
}

/* ---- reuse of large bodies ----
 *
 * Writing a large message into freshly allocated memory costs a page fault
 * per page (zeroing included), more than the copy itself.  So the bodies of
 * freed buffers of at least MEM_MIN bytes are kept, a few of them and at
 * most MEM_KEEP bytes in all, and handed to the next buffer that needs that
 * much: a program that receives (or packs) large messages one after the
 * other then reuses memory that is already mapped.
 */
#define MEM_MIN	  (128u << 10)
#define MEM_SLOTS 4
#define MEM_KEEP  (64u << 20)

static struct {
	void *p;
	size_t cap;
} kept[MEM_SLOTS];
static int nkept;
static size_t kept_bytes;

/* A new block.  From HUGE_MIN bytes on it asks for huge pages (where
 * transparent huge pages are "madvise"): every 4 KiB page first touched
 * costs a fault, and on a virtual machine such faults can cost more than
 * the copy (queueing 16 MiB for a receiver that is not reading yet took
 * 54 ms with 4 KiB pages, 2 ms with huge pages, on this VM). */
#define HUGE_MIN (2u << 20)
static void *fresh_block(size_t need, size_t *cap)
{
#ifdef MADV_HUGEPAGE
	if (need >= HUGE_MIN) {
		size_t sz = (need + HUGE_MIN - 1) & ~(size_t)(HUGE_MIN - 1);
		void *p = aligned_alloc(HUGE_MIN, sz);
		if (p) {
			madvise(p, sz, MADV_HUGEPAGE);
			*cap = sz;
			return p;
		}
	}
#endif
	void *p = malloc(need ? need : 1);
	if (p)
		*cap = need;
	return p;
}

void *lp_mem_get(size_t need, size_t *cap)
{
	int best = -1;
	if (need >= MEM_MIN) {
		/* the smallest block that fits, unless it is far too big (it
		 * would be missing for the next large message meanwhile) */
		for (int i = 0; i < nkept; i++)
			if (kept[i].cap >= need && kept[i].cap / 4 <= need &&
			    (best < 0 || kept[i].cap < kept[best].cap))
				best = i;
	}
	if (best < 0)
		return fresh_block(need, cap);
	void *p = kept[best].p;
	*cap = kept[best].cap;
	kept_bytes -= kept[best].cap;
	kept[best] = kept[--nkept];
	return p;
}

void lp_mem_put(void *p, size_t cap)
{
	if (!p)
		return;
	if (cap < MEM_MIN || cap > MEM_KEEP) {
		free(p);
		return;
	}
	/* make room by dropping the oldest blocks (kept[0] first) */
	while (nkept > 0 &&
	       (nkept == MEM_SLOTS || kept_bytes + cap > MEM_KEEP)) {
		free(kept[0].p);
		kept_bytes -= kept[0].cap;
		memmove(&kept[0], &kept[1], (size_t)--nkept * sizeof kept[0]);
	}
	kept[nkept].p = p;
	kept[nkept++].cap = cap;
	kept_bytes += cap;
}

void lp_buf_caches_free(void)
{
	while (npool > 0)
		destroy(pool[--npool]); /* (bodies too small to be kept) */
	while (nkept > 0)
		free(kept[--nkept].p);
	kept_bytes = 0;
}

size_t lp_buf_bodylen(const struct lp_buf *b)
{
	if (b->enc == PvmDataInPlace && !b->received) {
		size_t n = 0;
		for (int i = 0; i < b->nseg; i++)
			n += b->seg[i].len;
		return n;
	}
	return b->len;
}

void lp_segs_copy(void *out, const struct lp_seg *seg, int nseg)
{
	uint8_t *o = out;
	for (int i = 0; i < nseg; i++) {
		if (seg[i].len)
			memcpy(o, seg[i].p, seg[i].len);
		o += seg[i].len;
	}
}

void lp_buf_copybody(const struct lp_buf *b, void *out)
{
	if (b->enc == PvmDataInPlace && !b->received) {
		lp_segs_copy(out, b->seg, b->nseg);
	} else if (b->len) {
		memcpy(out, b->data, b->len);
	}
}

int lp_buf_reserve(struct lp_buf *b, size_t more)
{
	if (more <= b->cap - b->len)
		return 0;
	if (more > SIZE_MAX / 2 - b->len)
		return PvmNoMem;
	size_t need = b->len + more;
	size_t cap = b->cap ? b->cap : 256;
	while (cap < need)
		cap *= 2;
	if (b->lend && b->lend->refs > 1) {
		/* queued output holds the body: grow into a new one */
		uint8_t *d = lp_mem_get(cap, &cap);
		if (!d)
			return PvmNoMem;
		if (b->len)
			memcpy(d, b->data, b->len);
		unlend(b);
		b->data = d;
		b->cap = cap;
		return 0;
	}
	unlend(b); /* nobody else holds it: the buffer's again */
	if (b->len == 0 && cap >= MEM_MIN) {
		/* nothing to keep: a body kept from an earlier buffer will do
		 */
		void *d = lp_mem_get(need, &cap);
		if (!d)
			return PvmNoMem;
		lp_mem_put(b->data, b->cap);
		b->data = d;
		b->cap = cap;
		return 0;
	}
	uint8_t *d = realloc(b->data, cap);
	if (!d)
		return PvmNoMem;
	b->data = d;
	b->cap = cap;
	return 0;
}

int lp_buf_encsig(const struct lp_buf *b)
{
	if (b->enc == PvmDataDefault)
		return LP_SIG_XDR;
	if (b->enc == PvmDataInPlace && !b->received)
		return LP_SIG_INPLACE;
	return dsig_of_fmt(b->fmt);
}

uint16_t lp_buf_wire_enc(const struct lp_buf *b)
{
	int fmt = b->enc == PvmDataDefault ? 0 : b->fmt;
	return (uint16_t)(b->enc | fmt << WIRE_ENC_FMT_SHIFT);
}

void lp_buf_set_wire_enc(struct lp_buf *b, uint16_t enc)
{
	b->enc = enc & WIRE_ENC_MASK;
	b->fmt = (enc & WIRE_ENC_FMT_MASK) >> WIRE_ENC_FMT_SHIFT;
	if (b->enc == PvmDataDefault)
		b->fmt = DSIG_FMT_NATIVE; /* XDR is the same everywhere */
}

/* ---- API ---- */

/* PvmDataTrace (the tracer's encoding) belongs to the tracing feature of
 * a later issue: PvmNotImpl until then. */
static int check_enc(int enc)
{
	if (enc == PvmDataDefault || enc == PvmDataRaw || enc == PvmDataInPlace)
		return 0;
	return enc == PvmDataTrace ? PvmNotImpl : PvmBadParam;
}

int pvm_mkbuf(int encoding)
{
	int cc = check_enc(encoding);
	if (cc < 0)
		return lp_err("pvm_mkbuf", cc);
	struct lp_buf *b = lp_buf_new(encoding);
	if (!b)
		return lp_err("pvm_mkbuf", PvmNoMem);
	return b->id;
}

int pvm_freebuf(int bufid)
{
	if (bufid < 0)
		return lp_err("pvm_freebuf", PvmBadParam);
	if (bufid == 0)
		return 0; /* as the reference: nothing to free */
	struct lp_buf *b = lp_buf_user(bufid);
	if (!b)
		return lp_err("pvm_freebuf", PvmNoSuchBuf);
	lp_buf_free(b);
	return 0;
}

#define REUSE_MAX (16u << 20)

int pvm_initsend(int encoding)
{
	int cc = check_enc(encoding);
	if (cc < 0)
		return lp_err("pvm_initsend", cc);
	struct lp_buf *b = lp_buf_new(encoding);
	if (!b)
		return lp_err("pvm_initsend", PvmNoMem);
	struct lp_buf *old = lp_buf_get(lp_sbuf);
	if (old) {
		/* keep the old body's memory (up to a limit): a program that
		 * sends many messages of one size then packs without
		 * reallocating, and without faulting fresh pages in */
		if (old->data && old->cap <= REUSE_MAX &&
		    encoding != PvmDataInPlace && old->cap > b->cap &&
		    !old->lend) {
			lp_mem_put(b->data, b->cap);
			b->data = old->data;
			b->cap = old->cap;
			old->data = NULL;
			old->cap = 0;
		}
		lp_buf_free(old);
	}
	lp_sbuf = b->id;
	return b->id;
}

int pvm_getsbuf(void)
{
	return lp_sbuf;
}

int pvm_getrbuf(void)
{
	return lp_rbuf;
}

int pvm_setsbuf(int bufid)
{
	if (bufid < 0)
		return lp_err("pvm_setsbuf", PvmBadParam);
	if (bufid && !lp_buf_user(bufid))
		return lp_err("pvm_setsbuf", PvmNoSuchBuf);
	int old = lp_sbuf;
	if (bufid && bufid == lp_rbuf)
		lp_rbuf = 0; /* a buffer is never both, as in the reference */
	lp_sbuf = bufid;
	return old;
}

int pvm_setrbuf(int bufid)
{
	if (bufid < 0)
		return lp_err("pvm_setrbuf", PvmBadParam);
	if (bufid && !lp_buf_user(bufid))
		return lp_err("pvm_setrbuf", PvmNoSuchBuf);
	int old = lp_rbuf;
	if (bufid && bufid == lp_sbuf)
		lp_sbuf = 0;
	/* the unpack position is kept: the reference does not rewind */
	lp_rbuf = bufid;
	return old;
}

/* bufinfo and getminfo only read, so they also see a message still in the
 * receive queue: the id pvm_probe returns, or the one a pvm_recvf match
 * function is asked about (man 3 pvm_probe, pvm_recvf). */
int pvm_bufinfo(int bufid, int *bytes, int *msgtag, int *tid)
{
	if (bufid <= 0)
		return lp_err("pvm_bufinfo", PvmBadParam);
	struct lp_buf *b = lp_buf_get(bufid);
	if (!b)
		return lp_err("pvm_bufinfo", PvmNoSuchBuf);
	if (bytes) {
		size_t n = lp_buf_bodylen(b);
		*bytes = n > INT32_MAX ? INT32_MAX : (int)n;
	}
	if (msgtag)
		*msgtag = b->tag;
	if (tid)
		*tid = b->src;
	return 0;
}

int pvm_getminfo(int bufid, struct pvmminfo *info)
{
	if (bufid <= 0 || !info)
		return lp_err("pvm_getminfo", PvmBadParam);
	struct lp_buf *b = lp_buf_get(bufid);
	if (!b)
		return lp_err("pvm_getminfo", PvmNoSuchBuf);
	size_t n = lp_buf_bodylen(b);
	info->len = n > INT32_MAX ? INT32_MAX : (int)n;
	info->ctx = b->ctx;
	info->tag = b->tag;
	info->wid = b->wid;
	info->enc = lp_buf_encsig(b);
	info->crc = b->crc;
	info->src = b->src;
	info->dst = b->dst;
	return 0;
}

/* PVM 3.3's names for the wait id alone (man 3 pvm_setmwid); the
 * reference declares them only under PVM33COMPAT and does not export
 * them.  A hoster answers SM_STHOST with the request's wait id. */
int pvm_getmwid(int bufid)
{
	if (bufid <= 0)
		return lp_err("pvm_getmwid", PvmBadParam);
	struct lp_buf *b = lp_buf_get(bufid);
	if (!b)
		return lp_err("pvm_getmwid", PvmNoSuchBuf);
	return b->wid;
}

int pvm_setmwid(int bufid, int waitid)
{
	if (bufid <= 0)
		return lp_err("pvm_setmwid", PvmBadParam);
	struct lp_buf *b = lp_buf_user(bufid);
	if (!b)
		return lp_err("pvm_setmwid", PvmNoSuchBuf);
	b->wid = waitid;
	return 0;
}

int pvm_setminfo(int bufid, struct pvmminfo *info)
{
	if (bufid <= 0 || !info)
		return lp_err("pvm_setminfo", PvmBadParam);
	struct lp_buf *b = lp_buf_user(bufid);
	if (!b)
		return lp_err("pvm_setminfo", PvmNoSuchBuf);
	/* only these may be set (man 3 pvm_setminfo) */
	b->ctx = info->ctx;
	b->tag = info->tag;
	b->wid = info->wid;
	b->src = info->src;
	b->dst = info->dst;
	return 0;
}
