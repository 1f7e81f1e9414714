/*
 * jobs.c - jobs started by "spawn ->", and the output of their tasks.
 *
 * Each job gets a message tag of its own; its tasks (and their children,
 * which inherit the output destination) send their output to the console
 * as messages from the pvmd carrying that tag.  A message holds the
 * writer's tid, a count, and count bytes; count -1 announces a new task
 * (BEGIN), count 0 says the task's output has ended (EOF).
 *
 * Bytes are cut into lines here: a line is printed, prefixed with
 * "[job:tid] ", when its newline arrives or at EOF.  A job whose last task
 * reached EOF is reported "[job] finished".
 */
#include "console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

/* Output tags: far from the small tags a user might think of. */
#define JOB_TAG_BASE 0x40000000

struct task_out {
	int tid;
	char *line; /* the part of a line that has no newline yet */
	size_t len, cap;
};

struct job {
	struct job *next;
	int num, tag;
	int done; /* every task has reached EOF */
	struct task_out *tasks;
	int ntasks, cap;
};

static struct job *jobs;
static int last_job;
static int printing; /* term_async_begin() has been called in this poll */

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void out(const char *fmt, ...)
{
	if (!printing) {
		term_async_begin();
		printing = 1;
	}
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
}

int jobs_create(int *tag)
{
	struct job *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	j->num = ++last_job;
	j->tag = JOB_TAG_BASE + j->num;
	j->next = jobs;
	jobs = j;
	*tag = j->tag;
	return j->num;
}

static struct job *job_by_num(int num)
{
	for (struct job *j = jobs; j; j = j->next)
		if (j->num == num)
			return j;
	return NULL;
}

static struct job *job_by_tag(int tag)
{
	for (struct job *j = jobs; j; j = j->next)
		if (j->tag == tag)
			return j;
	return NULL;
}

static struct task_out *task_find(struct job *j, int tid)
{
	for (int i = 0; i < j->ntasks; i++)
		if (j->tasks[i].tid == tid)
			return &j->tasks[i];
	return NULL;
}

static struct task_out *task_add(struct job *j, int tid)
{
	struct task_out *t = task_find(j, tid);
	if (t)
		return t;
	if (j->ntasks == j->cap) {
		int ncap = j->cap ? 2 * j->cap : 4;
		struct task_out *n =
		    realloc(j->tasks, (size_t)ncap * sizeof *n);
		if (!n)
			return NULL;
		j->tasks = n;
		j->cap = ncap;
	}
	t = &j->tasks[j->ntasks++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	j->done = 0;
	return t;
}

static void task_remove(struct job *j, struct task_out *t)
{
	free(t->line);
	*t = j->tasks[--j->ntasks];
	if (j->ntasks == 0) {
		j->done = 1;
		out("[%d] finished\n", j->num);
	}
}

void jobs_add_tasks(int num, const int *tids, int n)
{
	struct job *j = job_by_num(num);
	if (!j)
		return;
	for (int i = 0; i < n; i++)
		task_add(j, tids[i]);
	if (j->ntasks == 0)
		j->done = 1; /* nothing started: nothing to wait for */
}

/* Appends bytes to a task's pending line, printing every full line. */
static void task_output(struct job *j, struct task_out *t, const char *p,
			size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t chunk = nl ? (size_t)(nl - p) : n;
		if (t->len + chunk + 1 > t->cap) {
			size_t ncap = t->cap ? t->cap : 128;
			while (ncap < t->len + chunk + 1)
				ncap *= 2;
			char *nb = realloc(t->line, ncap);
			if (!nb)
				return; /* out of memory: drop the rest */
			t->line = nb;
			t->cap = ncap;
		}
		memcpy(t->line + t->len, p, chunk);
		t->len += chunk;
		if (!nl)
			return;
		t->line[t->len] = '\0';
		out("[%d:t%x] %s\n", j->num, (unsigned)t->tid, t->line);
		t->len = 0;
		p = nl + 1;
		n -= chunk + 1;
	}
}

/* One output message, already the current receive buffer. */
static void output_message(struct job *j, int bytes)
{
	int tid, count;

	if (bytes < 8 || pvm_upkint(&tid, 1, 1) < 0 ||
	    pvm_upkint(&count, 1, 1) < 0)
		return; /* not an output message: ignore it */
	struct task_out *t = task_add(j, tid);
	if (!t)
		return;
	if (count > 0) {
		if (count > bytes - 8)
			return;
		char *data = malloc((size_t)count);
		if (!data)
			return;
		if (pvm_upkbyte(data, count, 1) >= 0)
			task_output(j, t, data, (size_t)count);
		free(data);
	} else if (count == 0) {
		if (t->len > 0) {
			t->line[t->len] = '\0';
			out("[%d:t%x] %s\n", j->num, (unsigned)t->tid, t->line);
		}
		out("[%d:t%x] EOF\n", j->num, (unsigned)t->tid);
		task_remove(j, t);
	}
	/* count -1 (BEGIN): the task is now known to the job; nothing to
	 * print, as in the reference console. */
}

void jobs_poll(void)
{
	int bufid;

	if (cons.detached)
		return; /* a PVM call now would enroll us again */
	while ((bufid = pvm_nrecv(-1, -1)) > 0) {
		int bytes, tag, src;
		if (pvm_bufinfo(bufid, &bytes, &tag, &src) >= 0) {
			struct job *j = job_by_tag(tag);
			if (j)
				output_message(j, bytes);
		}
		pvm_freebuf(bufid);
	}
	if (bufid == PvmSysErr) {
		/* The pvmd is gone (halted from elsewhere, or killed). */
		out("pvm: lost the connection to the pvmd\n");
		cons.quitting = 1;
		cons.detached = 1;
		cons.exit_code = 1;
	}
	if (printing) {
		printing = 0;
		term_async_end();
	}
	fflush(stdout);
}
