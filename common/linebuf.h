/*
 * linebuf.h - a task's output cut into lines, for the console's jobs and
 * pvmrun's tagged output: bytes come in pieces as the pvmd relays them,
 * and each line is handed on whole, once its newline has come.
 */
#ifndef PVM_COMMON_LINEBUF_H
#define PVM_COMMON_LINEBUF_H

#include <stddef.h>

struct linebuf {
	char *buf; /* the part of a line that has no newline yet */
	size_t len, cap;
};

/* Called with each line, NUL-terminated, without its newline. */
typedef void (*linebuf_fn)(void *ctx, const char *line);

/* Appends n bytes, calling fn for every line they end.  Out of memory,
 * the rest of the bytes is dropped. */
void linebuf_feed(struct linebuf *b, const char *p, size_t n, linebuf_fn fn,
		  void *ctx);
/* A last line without its newline, if any, goes to fn; then frees. */
void linebuf_flush(struct linebuf *b, linebuf_fn fn, void *ctx);
void linebuf_free(struct linebuf *b);

#endif /* PVM_COMMON_LINEBUF_H */
