/*
 * linebuf.c - lines out of a stream of pieces (linebuf.h).
 */
#include "common/linebuf.h"

#include <stdlib.h>
#include <string.h>

void linebuf_feed(struct linebuf *b, const char *p, size_t n, linebuf_fn fn,
		  void *ctx)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t chunk = nl ? (size_t)(nl - p) : n;
		if (b->len + chunk + 1 > b->cap) {
			size_t ncap = b->cap ? b->cap : 128;
			while (ncap < b->len + chunk + 1)
				ncap *= 2;
			char *nb = realloc(b->buf, ncap);
			if (!nb)
				return;
			b->buf = nb;
			b->cap = ncap;
		}
		memcpy(b->buf + b->len, p, chunk);
		b->len += chunk;
		if (!nl)
			return;
		b->buf[b->len] = '\0';
		b->len = 0;
		fn(ctx, b->buf);
		p = nl + 1;
		n -= chunk + 1;
	}
}

void linebuf_flush(struct linebuf *b, linebuf_fn fn, void *ctx)
{
	if (b->len > 0) {
		b->buf[b->len] = '\0';
		b->len = 0;
		fn(ctx, b->buf);
	}
	linebuf_free(b);
}

void linebuf_free(struct linebuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}
