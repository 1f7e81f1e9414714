/*
 * wire.c - frame header and control payload codec (see wire.h).
 */
#include "proto/wire.h"

#include <stdlib.h>
#include <string.h>

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

void wire_hdr_encode(const struct wire_hdr *h, uint8_t out[WIRE_HDR_SIZE])
{
	put32(out + 0, h->len);
	out[4] = (uint8_t)(h->flags >> 8);
	out[5] = (uint8_t)h->flags;
	out[6] = (uint8_t)(h->enc >> 8);
	out[7] = (uint8_t)h->enc;
	put32(out + 8, (uint32_t)h->dst);
	put32(out + 12, (uint32_t)h->src);
	put32(out + 16, (uint32_t)h->tag);
	put32(out + 20, (uint32_t)h->ctx);
	put32(out + 24, h->seq);
	put32(out + 28, h->wid);
	put32(out + 32, (uint32_t)(h->total >> 32));
	put32(out + 36, (uint32_t)h->total);
}

int wire_hdr_decode(const uint8_t in[WIRE_HDR_SIZE], struct wire_hdr *h,
		    uint32_t maxlen)
{
	h->len = get32(in);
	h->flags = (uint16_t)(in[4] << 8 | in[5]);
	h->enc = (uint16_t)(in[6] << 8 | in[7]);
	h->dst = (int32_t)get32(in + 8);
	h->src = (int32_t)get32(in + 12);
	h->tag = (int32_t)get32(in + 16);
	h->ctx = (int32_t)get32(in + 20);
	h->seq = get32(in + 24);
	h->wid = get32(in + 28);
	h->total = (uint64_t)get32(in + 32) << 32 | get32(in + 36);

	if (h->flags & ~WIRE_F_KNOWN)
		return -1;
	if ((h->flags & WIRE_F_REPLY) && !(h->flags & WIRE_F_CTRL))
		return -1;
	if (h->len > maxlen)
		return -1;
	if (h->flags & WIRE_F_CTRL) {
		if ((h->flags & (WIRE_F_FIRST | WIRE_F_LAST)) !=
		    (WIRE_F_FIRST | WIRE_F_LAST))
			return -1;
		if (h->len > WIRE_MAX_CTRL)
			return -1;
	}
	if ((h->flags & WIRE_F_FIRST) && h->total < h->len)
		return -1;
	if ((h->flags & (WIRE_F_FIRST | WIRE_F_LAST)) ==
		    (WIRE_F_FIRST | WIRE_F_LAST) &&
	    h->total != h->len)
		return -1;
	return 0;
}

/* ---- writer ---- */

void wire_wr_init(struct wire_wr *w)
{
	w->buf = NULL;
	w->len = w->cap = 0;
	w->err = 0;
}

void wire_wr_free(struct wire_wr *w)
{
	free(w->buf);
	wire_wr_init(w);
}

static uint8_t *wr_room(struct wire_wr *w, size_t n)
{
	if (w->err)
		return NULL;
	if (n > WIRE_MAX_CTRL || w->len + n > WIRE_MAX_CTRL) {
		w->err = 1;
		return NULL;
	}
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n)
			cap *= 2;
		uint8_t *nb = realloc(w->buf, cap);
		if (!nb) {
			w->err = 1;
			return NULL;
		}
		w->buf = nb;
		w->cap = cap;
	}
	uint8_t *p = w->buf + w->len;
	w->len += n;
	return p;
}

void wire_wr_i32(struct wire_wr *w, int32_t v)
{
	uint8_t *p = wr_room(w, 4);
	if (p)
		put32(p, (uint32_t)v);
}

void wire_wr_u64(struct wire_wr *w, uint64_t v)
{
	uint8_t *p = wr_room(w, 8);
	if (p) {
		put32(p, (uint32_t)(v >> 32));
		put32(p + 4, (uint32_t)v);
	}
}

void wire_wr_bytes(struct wire_wr *w, const void *src, size_t n)
{
	if (n > WIRE_MAX_CTRL) {
		w->err = 1;
		return;
	}
	uint8_t *p = wr_room(w, 4 + n);
	if (p) {
		put32(p, (uint32_t)n);
		if (n)
			memcpy(p + 4, src, n);
	}
}

void wire_wr_str(struct wire_wr *w, const char *s)
{
	wire_wr_bytes(w, s ? s : "", s ? strlen(s) : 0);
}

void wire_wr_xdr_str(struct wire_wr *w, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + 3) & ~(size_t)3;
	if (n > WIRE_MAX_CTRL) {
		w->err = 1;
		return;
	}
	uint8_t *p = wr_room(w, 4 + padded);
	if (p) {
		put32(p, (uint32_t)n);
		memcpy(p + 4, s, n);
		memset(p + 4 + n, 0, padded - n);
	}
}

/* ---- reader ---- */

void wire_rd_init(struct wire_rd *r, const void *p, size_t n)
{
	r->p = p;
	r->left = n;
	r->err = 0;
}

int32_t wire_rd_i32(struct wire_rd *r)
{
	if (r->err || r->left < 4) {
		r->err = 1;
		return 0;
	}
	uint32_t v = get32(r->p);
	r->p += 4;
	r->left -= 4;
	return (int32_t)v;
}

uint64_t wire_rd_u64(struct wire_rd *r)
{
	if (r->err || r->left < 8) {
		r->err = 1;
		return 0;
	}
	uint64_t v = (uint64_t)get32(r->p) << 32 | get32(r->p + 4);
	r->p += 8;
	r->left -= 8;
	return v;
}

const uint8_t *wire_rd_bytes(struct wire_rd *r, size_t *n)
{
	uint32_t len = (uint32_t)wire_rd_i32(r);
	if (r->err || len > r->left) {
		r->err = 1;
		*n = 0;
		return NULL;
	}
	const uint8_t *p = r->p;
	r->p += len;
	r->left -= len;
	*n = len;
	return p;
}

char *wire_rd_strdup(struct wire_rd *r)
{
	size_t n;
	const uint8_t *p = wire_rd_bytes(r, &n);
	if (!p)
		return NULL;
	if (n && memchr(p, 0, n)) {
		r->err = 1;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		r->err = 1;
		return NULL;
	}
	memcpy(s, p, n);
	s[n] = 0;
	return s;
}

int wire_rd_xdr_str(struct wire_rd *r, char *out, size_t max)
{
	int32_t n = wire_rd_i32(r);
	size_t padded = ((size_t)n + 3) & ~(size_t)3;
	if (r->err || n < 1 || (size_t)n > max || padded > r->left ||
	    r->p[n - 1] != 0 || memchr(r->p, 0, (size_t)n - 1)) {
		r->err = 1;
		return -1;
	}
	memcpy(out, r->p, (size_t)n);
	r->p += padded;
	r->left -= padded;
	return 0;
}

int32_t wire_rd_count(struct wire_rd *r, size_t minsize)
{
	int32_t n = wire_rd_i32(r);
	if (r->err)
		return 0;
	if (n < 0 || (minsize && (size_t)n > r->left / minsize)) {
		r->err = 1;
		return 0;
	}
	return n;
}
