/*
 * jobs.c - jobs started by "spawn ->" (or ->file, ->>file), the output
 * of their tasks, and the jobs command.
 *
 * Each job gets a message tag of its own; its tasks (and their children,
 * which inherit the output destination) send their output to the console
 * as messages from the pvmd carrying that tag.  A message holds the
 * writer's tid, a count, and count bytes; count -1 announces a new task
 * (BEGIN), count 0 says the task's output has ended (EOF).
 *
 * Bytes are cut into lines here: a line is printed (or written to the
 * job's file), prefixed with "[job:tid] ", when its newline arrives or at
 * EOF.  After a task's EOF the console asks its pvmd how the task ended
 * (TM_TASKEND: the pvmd may not have reaped it yet, so maybe again at the
 * next poll) and, when it failed, says so in one more line of the job,
 * "[1:t40002] killed by signal 11 (SIGSEGV)"; a task that exits with
 * status 0 gets none, so a job that succeeds prints what the reference
 * prints.  A job whose last task has ended is reported "[job] finished"
 * on the console; how each of its tasks ended stays for the jobs
 * command (the newest FINISHED_KEEP jobs).
 */
#include "console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/linebuf.h"
#include "common/taskend.h"
#include "lpvm_priv.h"
#include "pvm3.h"

/* Output tags: far from the small tags a user might think of. */
#define JOB_TAG_BASE 0x40000000

/* After a task's EOF: how long to wait at once for its pvmd to reap it,
 * and at most in all (a task may go on after closing its output). */
#define END_WAIT_NOW_MS 100
#define END_WAIT_MAX_S	2.0
#define FINISHED_KEEP	16

struct task_out {
	int tid;
	struct linebuf out; /* the part of a line that has no newline yet */
	int eof;	    /* its output ended: waiting to know how it ended */
	double eof_at;	    /* when */
};

/* How one task ended (state -1: unknown, not spawned by our pvmd). */
struct task_end {
	int tid, state, code, core;
};

/* How the tasks of a finished job ended, for the jobs command. */
struct finished {
	int num;
	struct task_end *ends;
	int nends;
};
static struct finished done[FINISHED_KEEP];
static int ndone;

struct job {
	struct job *next; /* in increasing job number */
	int num, tag;
	FILE *file;		/* NULL: the console */
	struct task_out *tasks; /* in the order they appeared */
	int ntasks, cap;
	struct task_end *ends; /* how its ended tasks ended */
	int nends;
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

/* A line of a job's output, to its file or to the console. */
static void job_line(struct job *j, int tid, const char *text)
{
	if (j->file)
		fprintf(j->file, "[%d:t%x] %s\n", j->num, (unsigned)tid, text);
	else
		out("[%d:t%x] %s\n", j->num, (unsigned)tid, text);
}

int jobs_create(int *tag)
{
	struct job *j = calloc(1, sizeof *j);
	if (!j)
		return -1;
	j->num = ++last_job;
	j->tag = JOB_TAG_BASE + j->num;
	struct job **pp = &jobs;
	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
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

void jobs_set_file(int num, FILE *f)
{
	struct job *j = job_by_num(num);
	if (j)
		j->file = f;
	else
		fclose(f);
}

static void job_free(struct job *j)
{
	for (struct job **pp = &jobs; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
	for (int i = 0; i < j->ntasks; i++)
		linebuf_free(&j->tasks[i].out);
	free(j->tasks);
	free(j->ends);
	if (j->file)
		fclose(j->file);
	free(j);
}

void jobs_clear(void)
{
	while (jobs)
		job_free(jobs);
	for (int i = 0; i < ndone; i++)
		free(done[i].ends);
	ndone = 0;
	last_job = 0;
}

/* Keeps a finished job's ends for the jobs command (takes j->ends). */
static void keep_finished(struct job *j)
{
	if (!j->ends)
		return;
	if (ndone == FINISHED_KEEP) {
		free(done[0].ends);
		memmove(&done[0], &done[1],
			(FINISHED_KEEP - 1) * sizeof done[0]);
		ndone--;
	}
	/* listed by job number, whichever finished first */
	int at = ndone;
	while (at > 0 && done[at - 1].num > j->num)
		at--;
	memmove(&done[at + 1], &done[at],
		(size_t)(ndone - at) * sizeof done[0]);
	done[at] = (struct finished){j->num, j->ends, j->nends};
	ndone++;
	j->ends = NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void add_end(struct job *j, int tid, int state, int code, int core)
{
	struct task_end *n =
		realloc(j->ends, (size_t)(j->nends + 1) * sizeof *n);
	if (!n)
		return;
	j->ends = n;
	j->ends[j->nends++] = (struct task_end){tid, state, code, core};
}

static const char *end_text(const struct task_end *e, char *buf, size_t size)
{
	if (e->state < 0)
		return "ended";
	return taskend_text(buf, size, e->state, e->code, e->core);
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
	return t;
}

/* Forgets a task that reached EOF; the job ends with its last task.
 * Returns 1 when the job has been freed. */
static int task_remove(struct job *j, struct task_out *t)
{
	linebuf_free(&t->out);
	int i = (int)(t - j->tasks);
	memmove(&j->tasks[i], &j->tasks[i + 1],
		(size_t)(j->ntasks - i - 1) * sizeof *t);
	if (--j->ntasks > 0)
		return 0;
	out("[%d] finished\n", j->num);
	keep_finished(j);
	job_free(j);
	return 1;
}

/* Asks how task t, whose output has ended, ended: with a failure, one
 * more line of the job.  Returns 1 once known (or given up on). */
static int task_settle(struct job *j, struct task_out *t, int wait_ms)
{
	struct lpvm_taskend end;
	int st;
	const struct timespec step = {0, 5 * 1000000L};
	for (;;) {
		st = CONS_QUIET(lpvm_priv_taskend(t->tid, &end));
		if (st < 0 || end.state != LPVM_END_RUNNING)
			break;
		if (wait_ms <= 0)
			return now_s() - t->eof_at >= END_WAIT_MAX_S;
		nanosleep(&step, NULL);
		wait_ms -= 5;
	}
	char how[128];
	if (st < 0) {
		add_end(j, t->tid, -1, 0,
			0); /* not spawned by a pvmd of ours */
		return 1;
	}
	taskend_text(how, sizeof how, end.state, end.code, end.core);
	add_end(j, t->tid, end.state, end.code, end.core);
	if (end.state != LPVM_END_EXITED || end.code != 0) {
		job_line(j, t->tid, how);
		/* a script waits for its jobs: its exit status says so (piped
		 * input may end before the job does) */
		if (cons.script)
			cons.failed = 1;
	}
	return 1;
}

/* Settles the tasks of job j whose output has ended.  Returns 1 when
 * the job has been freed. */
static int job_settle(struct job *j, int wait_ms)
{
	for (int i = 0; i < j->ntasks;) {
		struct task_out *t = &j->tasks[i];
		if (!t->eof || !task_settle(j, t, wait_ms)) {
			i++;
			continue;
		}
		if (j->file)
			fflush(j->file);
		if (task_remove(j, t))
			return 1;
	}
	return 0;
}

void jobs_add_tasks(int num, const int *tids, int n)
{
	struct job *j = job_by_num(num);
	if (!j)
		return;
	for (int i = 0; i < n; i++)
		task_add(j, tids[i]);
	if (j->ntasks == 0)
		job_free(j); /* nothing started: nothing to wait for */
}

/* A line of task `tid`'s output (linebuf's callback). */
struct out_ctx {
	struct job *j;
	int tid;
};

static void out_line(void *ctx, const char *line)
{
	struct out_ctx *c = ctx;
	job_line(c->j, c->tid, line);
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
		struct out_ctx c = {j, t->tid};
		if (pvm_upkbyte(data, count, 1) >= 0)
			linebuf_feed(&t->out, data, (size_t)count, out_line,
				     &c);
		free(data);
	} else if (count == 0) {
		/* a last line without its newline, then the EOF */
		struct out_ctx c = {j, t->tid};
		linebuf_flush(&t->out, out_line, &c);
		job_line(j, t->tid, "EOF");
		t->eof = 1;
		t->eof_at = now_s();
		job_settle(j, END_WAIT_NOW_MS);
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
			else
				hostwatch_message(bufid, tag);
		}
		pvm_freebuf(bufid);
	}
	/* tasks whose end was not known at their EOF */
	for (struct job *j = jobs, *next; j; j = next) {
		next = j->next;
		job_settle(j, 0);
	}
	if (bufid == PvmSysErr) {
		/* The pvmd is gone (halted from elsewhere, or killed). */
		out("pvm: lost the connection to the pvmd\n");
		cons.quitting = 1;
		cons.detached = 1;
		cons.exit_code = 1;
	}
	for (struct job *j = jobs; j; j = j->next)
		if (j->file)
			fflush(j->file);
	if (printing) {
		printing = 0;
		term_async_end();
	}
	fflush(stdout);
}

/* jobs -l: the ps line of each task of the job still running. */
static void job_long(const struct job *j, const struct pvmhostinfo *hosts,
		     int nhost)
{
	for (int i = 0; i < j->ntasks; i++) {
		int ntask;
		struct pvmtaskinfo *ti;
		if (CONS_QUIET(pvm_tasks(j->tasks[i].tid, &ntask, &ti)) < 0)
			continue; /* gone, its EOF not read yet */
		for (int k = 0; k < ntask; k++)
			ps_print_task(&ti[k], 0, hosts, nhost);
	}
}

int jobs_running(void)
{
	return jobs != NULL;
}

void jobs_json(void)
{
	printf("{\"jobs\":[");
	for (struct job *j = jobs; j; j = j->next) {
		printf("%s{\"job\":%d,\"finished\":false,\"tids\":[",
		       j == jobs ? "" : ",", j->num);
		for (int i = 0; i < j->ntasks; i++)
			printf("%s%d", i ? "," : "", j->tasks[i].tid);
		printf("]}");
	}
	for (int i = 0; i < ndone; i++) {
		printf("%s{\"job\":%d,\"finished\":true,\"tids\":[",
		       jobs || i ? "," : "", done[i].num);
		for (int k = 0; k < done[i].nends; k++)
			printf("%s%d", k ? "," : "", done[i].ends[k].tid);
		printf("],\"ends\":[");
		for (int k = 0; k < done[i].nends; k++) {
			const struct task_end *e = &done[i].ends[k];
			char how[128];
			printf("%s{\"tid\":%d,\"how\":", k ? "," : "", e->tid);
			json_str(end_text(e, how, sizeof how));
			if (e->state == LPVM_END_EXITED)
				printf(",\"status\":%d", e->code);
			else if (e->state == LPVM_END_SIGNALED)
				printf(",\"signal\":%d,\"core\":%s", e->code,
				       e->core ? "true" : "false");
			putchar('}');
		}
		printf("]}");
	}
	printf("]}\n");
}

int cmd_jobs(int argc, char **argv)
{
	int long_form = 0;
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && strchr(argv[i], 'l'))
			long_form = 1;

	/* Output that has arrived first, so finished jobs are not listed. */
	jobs_poll();
	if (cons.json) {
		jobs_json();
		return 0;
	}
	int nhost = 0, narch;
	struct pvmhostinfo *hosts = NULL;
	if (long_form) {
		if (pvm_config(&nhost, &narch, &hosts) < 0)
			return -1;
		ps_print_header(0);
	}
	for (struct job *j = jobs; j; j = j->next) {
		term_printf(" %d:", j->num);
		if (long_form) {
			term_printf("\n");
			job_long(j, hosts, nhost);
			continue;
		}
		for (int i = 0; i < j->ntasks; i++)
			term_printf(" t%x", (unsigned)j->tasks[i].tid);
		term_printf("\n");
	}
	/* how the tasks of finished jobs ended, in the "[1] finished"
	 * style: the lines above stay the reference's */
	for (int i = 0; i < ndone; i++) {
		term_printf("[%d] finished:", done[i].num);
		for (int k = 0; k < done[i].nends; k++) {
			char how[128];
			term_printf(
				"%s t%x %s", k ? "," : "",
				(unsigned)done[i].ends[k].tid,
				end_text(&done[i].ends[k], how, sizeof how));
		}
		term_printf("\n");
	}
	return 0;
}
