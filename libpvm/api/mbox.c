/*
 * mbox.c - the message mailbox: pvm_putinfo, pvm_recvinfo, pvm_delinfo,
 * pvm_getmboxinfo and the old pvm_insert / pvm_lookup / pvm_delete.
 *
 * The mailbox lives in the pvmd (pvmd/mbox.c); an entry is a whole
 * message, sent as its encoding and body bytes (TM_MBOX_*, see
 * docs/protocol.md).  A read with PvmMboxWaitForInfo is a control call
 * whose reply the pvmd holds back until an entry appears; meanwhile the
 * library keeps taking in other traffic.
 */
#include "api.h"
#include "pack/pack.h"
#include "regex_cost.h"

#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* Largest body that fits a control frame with its other fields. */
#define MBOX_MAX_BODY (WIRE_MAX_CTRL - 4096)

/* Every mailbox request starts with the entry it is about: class name,
 * index and flags. */
static void wr_entry_key(struct wire_wr *w, const char *name, int index,
			 int flags)
{
	wire_wr_init(w);
	wire_wr_str(w, name);
	wire_wr_i32(w, index);
	wire_wr_i32(w, flags);
}

static int bad_name(const char *name)
{
	return !name || !*name || strlen(name) > 4096;
}

/* Stores the message of `bufid` as entry `index` (-1: first free). */
static int put(const char *fn, const char *name, int bufid, int index,
	       int flags)
{
	if (lp_api_enroll(fn) < 0)
		return pvm_errno;
	if (bad_name(name))
		return lp_err(fn, PvmBadParam);
	struct lp_buf *b = lp_buf_user(bufid);
	if (!b)
		return lp_err(fn, PvmNoSuchBuf);
	size_t len = lp_buf_bodylen(b);
	if (len > MBOX_MAX_BODY)
		return lp_err(fn, PvmNoMem);
	uint8_t *body = malloc(len ? len : 1);
	if (!body)
		return lp_err(fn, PvmNoMem);
	lp_buf_copybody(b, body);

	struct wire_wr w;
	wr_entry_key(&w, name, index, flags);
	wire_wr_i32(&w, lp_buf_wire_enc(b)); /* with the data format */
	wire_wr_bytes(&w, body, len);
	free(body);
	int st = lp_api_status(WIRE_TM_MBOX_PUT, &w);
	/* an entry of another task, or a duplicate: an answer a program
	 * expects, reported quietly as by the reference */
	return lp_err_but(fn, st, PvmDenied, PvmExists);
}

int pvm_putinfo(char *name, int bufid, int flags)
{
	/* Without MultiInstance the direct index (0 by default) names the
	 * slot; with it the pvmd takes the first free slot from the direct
	 * index on (index -1: it reads the index from the flags). */
	int index = flags & PvmMboxMultiInstance
			    ? -1
			    : (int)PvmMboxDirectIndexOf(flags);
	return put("pvm_putinfo", name, bufid, index, flags);
}

/* One read: returns the index or an error; on success *out is a new
 * received buffer holding the entry's message. */
static int get(const char *fn, const char *name, int index, int flags,
	       struct lp_buf **out)
{
	*out = NULL;
	if (lp_api_enroll(fn) < 0)
		return pvm_errno;
	if (bad_name(name) || index < 0)
		return lp_err(fn, PvmBadParam);
	struct wire_wr w;
	wr_entry_key(&w, name, index, flags);
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_MBOX_GET, &w, &rd, &mem);
	wire_wr_free(&w);
	if (st < 0) {
		free(mem);
		/* no such entry: an answer, quiet as with the reference */
		return lp_err_but(fn, st, PvmNotFound, PvmNotFound);
	}
	int src = wire_rd_i32(&rd);
	int enc = wire_rd_i32(&rd);
	size_t len = 0;
	const uint8_t *body = wire_rd_bytes(&rd, &len);
	struct lp_buf *b = NULL;
	if (rd.err || rd.left)
		st = PvmBadMsg;
	else if (!(b = lp_buf_new(enc & WIRE_ENC_MASK)) ||
		 lp_buf_reserve(b, len) < 0)
		st = PvmNoMem;
	if (st < 0) {
		if (b)
			lp_buf_free(b);
		free(mem);
		return lp_err(fn, st);
	}
	if (len)
		memcpy(b->data, body, len);
	free(mem);
	b->len = len;
	b->rpos = 0;
	lp_buf_set_wire_enc(b, (uint16_t)enc); /* the putter's data format */
	b->received = 1;
	b->src = src;
	b->dst = lp.mytid;
	b->tag = 0;
	b->ctx = 0;
	*out = b;
	return st;
}

int pvm_recvinfo(char *name, int index, int flags)
{
	struct lp_buf *b;
	int st = get("pvm_recvinfo", name, index, flags, &b);
	if (st < 0)
		return st;
	/* it becomes the active receive buffer; the previous one is freed,
	 * as by a receive */
	struct lp_buf *old = lp_rbuf ? lp_buf_get(lp_rbuf) : NULL;
	if (old && old != b)
		lp_buf_free(old);
	lp_rbuf = b->id;
	return b->id;
}

static int del(const char *fn, const char *name, int index, int flags,
	       int quiet)
{
	if (lp_api_enroll(fn) < 0)
		return pvm_errno;
	if (bad_name(name) || index < 0)
		return lp_err(fn, PvmBadParam);
	struct wire_wr w;
	wr_entry_key(&w, name, index, flags);
	int st = lp_api_status(WIRE_TM_MBOX_DEL, &w);
	return lp_err_but(fn, st, PvmNotFound, quiet);
}

int pvm_delinfo(char *name, int index, int flags)
{
	return del("pvm_delinfo", name, index, flags, PvmDenied);
}

/* The last result of pvm_getmboxinfo: the library owns it and frees it at
 * the next call, as the reference does. */
static struct pvmmboxinfo *mblist;
static int nmblist;

static void mblist_free(void)
{
	for (int i = 0; i < nmblist; i++) {
		free(mblist[i].mi_name);
		free(mblist[i].mi_indices);
		free(mblist[i].mi_owners);
		free(mblist[i].mi_flags);
	}
	free(mblist);
	mblist = NULL;
	nmblist = 0;
}

static int decode_list(struct wire_rd *rd)
{
	int n = wire_rd_count(rd, 8);
	if (rd->err)
		return PvmBadMsg;
	mblist = calloc(n ? (size_t)n : 1, sizeof *mblist);
	if (!mblist)
		return PvmNoMem;
	for (int i = 0; i < n; i++) {
		struct pvmmboxinfo *m = &mblist[i];
		nmblist = i + 1;
		m->mi_name = wire_rd_strdup(rd);
		int ne = wire_rd_count(rd, 12);
		if (rd->err)
			return PvmBadMsg;
		size_t sz = (ne ? (size_t)ne : 1) * sizeof(int);
		m->mi_indices = malloc(sz);
		m->mi_owners = malloc(sz);
		m->mi_flags = malloc(sz);
		if (!m->mi_indices || !m->mi_owners || !m->mi_flags)
			return PvmNoMem;
		m->mi_nentries = ne;
		for (int j = 0; j < ne; j++) {
			m->mi_indices[j] = wire_rd_i32(rd);
			m->mi_owners[j] = wire_rd_i32(rd);
			m->mi_flags[j] = wire_rd_i32(rd);
		}
	}
	return rd->err || rd->left ? PvmBadMsg : 0;
}

/* Keeps the classes of mblist whose names `re` matches, in order. */
static void mblist_keep(const regex_t *re)
{
	int k = 0;
	for (int i = 0; i < nmblist; i++) {
		struct pvmmboxinfo *m = &mblist[i];
		if (regexec(re, m->mi_name, 0, NULL, 0) == 0) {
			mblist[k++] = *m;
			continue;
		}
		free(m->mi_name);
		free(m->mi_indices);
		free(m->mi_owners);
		free(m->mi_flags);
	}
	nmblist = k;
}

/* A pattern is an extended regular expression searched anywhere in the
 * name (docs/compat.md); one with no special character is a plain
 * substring, which the pvmd matches itself.  A regular expression is
 * matched here, by the task that asks: glibc's matcher backtracks without
 * a bound on time or memory, which in the pvmd would stall everyone else
 * (the pvmd then sends every class).  A pattern that does not compile is
 * a plain substring, as before.  One that glibc would take minutes and
 * gigabytes to compile or match is refused (regex_cost.c): more than
 * PATTERN_NODES_MAX nodes, or a back-reference. */
#define PATTERN_NODES_MAX 2048

static int pattern_too_costly(const char *pat)
{
	int backref;
	return lp_regex_cost(pat, &backref) > PATTERN_NODES_MAX || backref;
}

int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes)
{
	const char *fn = "pvm_getmboxinfo";
	if (nclasses)
		*nclasses = 0;
	if (classes)
		*classes = NULL;
	if (lp_api_enroll(fn) < 0)
		return pvm_errno;
	if (pattern && strlen(pattern) > 4096)
		return lp_err(fn, PvmBadParam);
	mblist_free();
	const char *pat = pattern ? pattern : "";
	int special =
		*pat && strcmp(pat, "*") && strpbrk(pat, ".[]()*+?{}|^$\\");
	if (special && pattern_too_costly(pat))
		return lp_err(fn, PvmBadParam);
	regex_t re;
	int here = special && regcomp(&re, pat, REG_EXTENDED | REG_NOSUB) == 0;
	struct wire_wr w;
	wire_wr_init(&w);
	wire_wr_str(&w, here ? "" : pat);
	struct wire_rd rd;
	uint8_t *mem;
	int st = lp_api_call(WIRE_TM_MBOX_LIST, &w, &rd, &mem);
	wire_wr_free(&w);
	if (st >= 0)
		st = decode_list(&rd);
	free(mem);
	if (here) {
		if (st >= 0)
			mblist_keep(&re);
		regfree(&re);
	}
	if (st < 0) {
		mblist_free();
		return lp_err(fn, st);
	}
	if (nclasses)
		*nclasses = nmblist;
	if (classes)
		*classes = mblist;
	return 0;
}

/* ---- the PVM 3.3 database calls, on top of the mailbox: an entry holds
 * one packed int, persistent, several per name ---- */

int pvm_insert(char *name, int req, int data)
{
	const char *fn = "pvm_insert";
	if (lp_api_enroll(fn) < 0)
		return pvm_errno;
	if (req < -1)
		return lp_err(fn, PvmBadParam);
	struct lp_buf *b = lp_buf_new(PvmDataDefault);
	if (!b)
		return lp_err(fn, PvmNoMem);
	int sbf = pvm_setsbuf(b->id);
	pvm_pkint(&data, 1, 1);
	int st = put(fn, name, b->id, req,
		     PvmMboxPersistent | PvmMboxMultiInstance);
	pvm_setsbuf(sbf);
	lp_buf_free(b);
	return st;
}

int pvm_lookup(char *name, int req, int *datap)
{
	struct lp_buf *b;
	if (req < -1)
		return lp_err("pvm_lookup", PvmBadParam);
	int st = get("pvm_lookup", name, req < 0 ? 0 : req,
		     req < 0 ? PvmMboxFirstAvail : 0, &b);
	if (st < 0)
		return st;
	/* the value, without touching the active receive buffer */
	if (datap && b->len >= 4) {
		const uint8_t *p = b->data;
		if (b->enc == PvmDataDefault)
			*datap = (int)((uint32_t)p[0] << 24 |
				       (uint32_t)p[1] << 16 |
				       (uint32_t)p[2] << 8 | p[3]);
		else if (b->fmt == DSIG_FMT_NATIVE)
			memcpy(datap, p, sizeof *datap);
		else /* put by a host of another data format */
			lp_convert(LP_INT, b->fmt, p, datap, 1, 1);
	}
	lp_buf_free(b);
	return st;
}

int pvm_delete(char *name, int req)
{
	/* as the reference: a denied delete is reported */
	return del("pvm_delete", name, req, 0, PvmNotFound);
}
