/*
 * output.c - pvmrun relays the output of the job's tasks to its own
 * standard output, as the pvmd sends it (docs/protocol.md, "Output of
 * spawned tasks": tid, count, bytes).  Tagged, each line gets a
 * "[t40002@host] " prefix, like mpirun --tag-output, and is written
 * whole when its newline (or the task's EOF) arrives, so that lines of
 * different tasks never mix; untagged, bytes go out as they come.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/tasks.h"
#include "pvm3.h"

static int tagging;

void output_init(int tag)
{
	tagging = tag;
}

static void tagged_line(const struct jtask *t, const char *text, size_t n)
{
	printf("[t%x@%s] %.*s\n", (unsigned)t->tid, t->host, (int)n, text);
}

/* Appends bytes to the task's pending line, writing every full line. */
static void tagged_bytes(struct jtask *t, const char *p, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t chunk = nl ? (size_t)(nl - p) : n;
		if (!nl || t->len > 0) {
			if (t->len + chunk > t->cap) {
				size_t ncap = t->cap ? 2 * t->cap : 256;
				while (ncap < t->len + chunk)
					ncap *= 2;
				char *nb = realloc(t->line, ncap);
				if (!nb)
					return; /* out of memory: dropped */
				t->line = nb;
				t->cap = ncap;
			}
			memcpy(t->line + t->len, p, chunk);
			t->len += chunk;
			if (!nl)
				return;
			tagged_line(t, t->line, t->len);
			t->len = 0;
		} else {
			tagged_line(t, p, chunk);
		}
		p += chunk + 1;
		n -= chunk + 1;
	}
}

void output_flush_task(struct jtask *t)
{
	if (t->len > 0)
		tagged_line(t, t->line, t->len);
	t->len = 0;
	free(t->line);
	t->line = NULL;
	t->cap = 0;
}

int output_message(int bytes, int *count, int *ptid)
{
	int tid;
	*ptid = 0;
	if (bytes < 8 || pvm_upkint(&tid, 1, 1) < 0 ||
	    pvm_upkint(count, 1, 1) < 0)
		return 0;
	if (*count < 0) {
		if (pvm_upkint(ptid, 1, 1) < 0)
			*ptid = 0;
		return tid;
	}
	if (*count == 0 || *count > bytes - 8)
		return tid;
	char *data = malloc((size_t)*count);
	if (!data)
		return tid;
	if (pvm_upkbyte(data, *count, 1) >= 0) {
		struct jtask *t = jtask_find(tid);
		if (t && tagging)
			tagged_bytes(t, data, (size_t)*count);
		else
			fwrite(data, 1, (size_t)*count, stdout);
		fflush(stdout);
	}
	free(data);
	return tid;
}
