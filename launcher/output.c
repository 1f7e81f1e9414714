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

static void tagged_line(void *ctx, const char *text)
{
	const struct jtask *t = ctx;
	printf("[t%x@%s] %s\n", (unsigned)t->tid, t->host, text);
}

void output_flush_task(struct jtask *t)
{
	linebuf_flush(&t->out, tagged_line, t);
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
			linebuf_feed(&t->out, data, (size_t)*count, tagged_line,
				     t);
		else
			fwrite(data, 1, (size_t)*count, stdout);
		fflush(stdout);
	}
	free(data);
	return tid;
}
