/*
 * job.c - the job's tasks: spawning them, following their output and
 * their ends, forwarding SIGINT and SIGTERM, the timeout, the failure
 * lines and the summary.
 *
 * Every task of the job sends its output here (PvmOutputTid is pvmrun,
 * and children inherit it), so a task spawned by a task of the job
 * announces itself with the output's first message (count -2 or -1, with
 * its parent) before its parent's spawn returns: that is how the
 * master's workers join the job.  For each task pvmrun asks a
 * PvmTaskExit notify; once the notify or the output's EOF has come it
 * asks the pvmd how the process ended (TM_TASKEND, which says "running"
 * until the pvmd has reaped it: a task may call pvm_exit and go on).  A
 * task is done when that is known and its output has ended.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/taskend.h"
#include "launcher/pvmrun.h"
#include "launcher/tasks.h"
#include "lpvm_priv.h"
#include "pvm3.h"

/* Message tags of what the pvmd sends pvmrun. */
#define TAG_OUTPUT 0x7ffe0001
#define TAG_EXIT   0x7ffe0002

#define STOP_GRACE_S 3.0 /* after forwarding a signal, then SIGKILL */
#define KILL_GRACE_S 3.0 /* after SIGKILL, then give up waiting */
#define EOF_GRACE_S  2.0 /* output of an ended task still to come */
#define POLL_MS	     50

volatile sig_atomic_t run_signal;

static struct jtask *tasks;
static int ntasks, captasks;
static double t_start;
static int first_failure; /* exit status of the first failed task, or 0 */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct jtask *jtask_find(int tid)
{
	for (int i = 0; i < ntasks; i++)
		if (tasks[i].tid == tid)
			return &tasks[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Adds task `tid` (if new) and asks for its exit notify. */
static struct jtask *add_task(int tid, int ptid, const char *prog)
{
	struct jtask *t = jtask_find(tid);
	if (t)
		return t;
	if (ntasks == captasks) {
		int ncap = captasks ? 2 * captasks : 16;
		struct jtask *n = realloc(tasks, (size_t)ncap * sizeof *n);
		if (!n) {
			fprintf(stderr, "pvmrun: out of memory\n");
			return NULL;
		}
		tasks = n;
		captasks = ncap;
	}
	t = &tasks[ntasks++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->ptid = ptid;
	t->state = -1;
	t->t_begin = now();
	t->host = vm_host_of(tid);
	if (!prog) {
		/* a child: its name as its parent spawned it */
		int n;
		struct pvmtaskinfo *ti;
		if (pvm_tasks(tid, &n, &ti) >= 0 && n == 1 && ti[0].ti_a_out)
			prog = ti[0].ti_a_out;
	}
	snprintf(t->prog, sizeof t->prog, "%s", prog ? base_name(prog) : "?");
	pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tid);
	return t;
}

/* ---- spawning ---- */

static int spawn_error(const struct run_opts *o, int err)
{
	if (err == PvmNoFile && !strchr(o->prog, '/')) {
		char path[4096];
		if (lpvm_priv_spawnpath(path, sizeof path) >= 0) {
			fprintf(stderr,
				"pvmrun: cannot start %s: not found in the "
				"pvmd's PVM_PATH (%s) nor in PATH\n",
				o->prog, path);
			return RUN_EXIT_NOFILE;
		}
	}
	fprintf(stderr, "pvmrun: cannot start %s: %s\n", o->prog,
		taskend_errstr(err));
	return err == PvmNoFile ? RUN_EXIT_NOFILE : 1;
}

int job_spawn(const struct run_opts *o)
{
	int mytid = pvm_mytid();
	pvm_setopt(PvmOutputTid, mytid);
	pvm_setopt(PvmOutputCode, TAG_OUTPUT);
	output_init(o->tag);
	t_start = now();

	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		cwd[0] = '\0';
	int n = o->master ? 1 : o->ntasks;
	int *tids = calloc((size_t)n, sizeof *tids);
	if (!tids) {
		fprintf(stderr, "pvmrun: out of memory\n");
		return 1;
	}
	/* without hosts named, the pvmd places them (round robin) in one
	 * call; with --host, task i goes to host i modulo their number */
	int started = 0, err = 0;
	int calls = o->hosts ? n : 1;
	for (int c = 0; c < calls && !err; c++) {
		char where[4400];
		const char *h = o->hosts ? o->hosts[c % o->nhosts] : "";
		if (!strcmp(h, "localhost"))
			h = ".";
		snprintf(where, sizeof where, "%s:%s", h, cwd);
		int want = o->hosts ? 1 : n;
		int got = pvm_spawn(o->prog, o->args,
				    o->hosts ? PvmTaskHost : PvmTaskDefault,
				    where, want, tids + started);
		if (got < 0) {
			err = got;
			break;
		}
		for (int i = 0; i < got; i++)
			add_task(tids[started + i], mytid, o->prog);
		started += got;
		if (got < want)
			err = tids[started];
	}
	free(tids);
	if (err < 0) {
		int st = spawn_error(o, err);
		/* what did start is stopped: the job cannot run as asked */
		for (int i = 0; i < ntasks; i++)
			pvm_kill(tasks[i].tid);
		if (ntasks > 0)
			job_wait(o);
		return st;
	}
	return 0;
}

/* ---- ends ---- */

static void report_end(struct jtask *t)
{
	char how[128];
	if (t->state < 0) {
		fprintf(stderr,
			"pvmrun: t%x (%s on %s) ended; how is unknown (%s)\n",
			(unsigned)t->tid, t->prog, t->host,
			taskend_errstr(t->unknown));
		t->failed = t->unknown == PvmNoHost;
		if (t->failed && !first_failure)
			first_failure = 1;
		return;
	}
	if (t->state == LPVM_END_EXITED && t->code == 0)
		return;
	t->failed = 1;
	fprintf(stderr, "pvmrun: t%x (%s on %s) %s\n", (unsigned)t->tid,
		t->prog, t->host,
		taskend_text(how, sizeof how, t->state, t->code, t->core));
	if (!first_failure)
		first_failure = taskend_shell_status(t->state, t->code);
}

/* Asks how the tasks whose end has been announced ended. */
static void query_ends(void)
{
	for (int i = 0; i < ntasks; i++) {
		struct jtask *t = &tasks[i];
		if (t->known || !(t->exited || t->eof))
			continue;
		struct lpvm_taskend end;
		int st = lpvm_priv_taskend(t->tid, &end);
		if (st >= 0 && end.state == LPVM_END_RUNNING)
			continue; /* not reaped yet: ask again */
		t->known = 1;
		t->t_end = now();
		if (!strcmp(t->prog, "?") && end.aout[0])
			snprintf(t->prog, sizeof t->prog, "%s",
				 base_name(end.aout));
		if (st >= 0) {
			t->state = end.state;
			t->code = end.code;
			t->core = end.core;
		} else {
			t->unknown = st;
		}
		report_end(t);
	}
}

static int all_done(void)
{
	double tn = now();
	for (int i = 0; i < ntasks; i++) {
		const struct jtask *t = &tasks[i];
		if (!t->known || (!t->eof && tn - t->t_end < EOF_GRACE_S))
			return 0;
	}
	return 1;
}

static void signal_all(int sig)
{
	for (int i = 0; i < ntasks; i++)
		if (!tasks[i].known)
			pvm_sendsig(tasks[i].tid, sig);
}

static void on_message(int bufid)
{
	int bytes, tag, src;
	if (pvm_bufinfo(bufid, &bytes, &tag, &src) < 0)
		return;
	if (tag == TAG_OUTPUT) {
		int count, ptid;
		int tid = output_message(bytes, &count, &ptid);
		if (!tid)
			return;
		struct jtask *t = jtask_find(tid);
		if (!t && count < 0)
			t = add_task(tid, ptid, NULL);
		if (t && count == 0) {
			output_flush_task(t);
			t->eof = 1;
		}
	} else if (tag == TAG_EXIT) {
		int tid;
		if (pvm_upkint(&tid, 1, 1) >= 0) {
			struct jtask *t = jtask_find(tid);
			if (t)
				t->exited = 1;
		}
	}
}

int job_wait(const struct run_opts *o)
{
	double deadline = o->timeout > 0 ? t_start + o->timeout : 0;
	double stop_at = 0; /* when SIGKILL follows the forwarded signal */
	double give_up = 0; /* when waiting ends after SIGKILL */
	int stop_sig = 0, timed_out = 0;

	while (!all_done()) {
		double tn = now();
		int sig = run_signal;
		if (sig) {
			run_signal = 0;
			if (!stop_sig) {
				stop_sig = sig;
				fprintf(stderr,
					"pvmrun: got SIG%s: stopping the job\n",
					sigabbrev_np(sig));
				signal_all(sig);
				stop_at = tn + STOP_GRACE_S;
			} else {
				stop_at = tn; /* again: no more grace */
			}
		}
		if (deadline && tn >= deadline && !stop_sig) {
			timed_out = 1;
			stop_sig = SIGTERM;
			fprintf(stderr,
				"pvmrun: timeout: the job ran for %g s; "
				"stopping it\n",
				o->timeout);
			signal_all(SIGTERM);
			stop_at = tn + STOP_GRACE_S;
		}
		if (stop_at && tn >= stop_at && !give_up) {
			signal_all(SIGKILL);
			give_up = tn + KILL_GRACE_S;
		}
		if (give_up && tn >= give_up) {
			fprintf(stderr,
				"pvmrun: tasks did not end; giving up\n");
			break;
		}
		struct timeval tmout = {0, POLL_MS * 1000};
		int bufid = pvm_trecv(-1, -1, &tmout);
		if (bufid == PvmSysErr) {
			fprintf(stderr, "pvmrun: lost the pvmd\n");
			return 1;
		}
		while (bufid > 0) {
			on_message(bufid);
			pvm_freebuf(bufid);
			bufid = pvm_nrecv(-1, -1);
		}
		query_ends();
	}
	fflush(stdout);
	if (timed_out)
		return RUN_EXIT_TIMEOUT;
	if (first_failure)
		return first_failure;
	return stop_sig ? 128 + stop_sig : 0;
}

/* ---- summary ---- */

void job_summary(void)
{
	int failed = 0, unknown = 0;
	for (int i = 0; i < ntasks; i++) {
		failed += tasks[i].failed;
		unknown += tasks[i].state < 0 && !tasks[i].failed;
	}
	fprintf(stderr,
		"pvmrun: summary: %d task%s on %d host%s in %.2f s: %d "
		"succeeded, %d failed",
		ntasks, ntasks == 1 ? "" : "s", vm_nhosts(),
		vm_nhosts() == 1 ? "" : "s", now() - t_start,
		ntasks - failed - unknown, failed);
	if (unknown)
		fprintf(stderr, ", %d unknown", unknown);
	fprintf(stderr, "\n%-9s %-9s %-16s %-16s %8s  %s\n", "TID", "PARENT",
		"PROGRAM", "HOST", "SECONDS", "END");
	for (int i = 0; i < ntasks; i++) {
		const struct jtask *t = &tasks[i];
		char how[128], parent[16];
		if (t->state >= 0)
			taskend_text(how, sizeof how, t->state, t->code,
				     t->core);
		else
			snprintf(how, sizeof how, "unknown (%s)",
				 t->known ? taskend_errstr(t->unknown)
					  : "still running");
		snprintf(parent, sizeof parent, "t%x", (unsigned)t->ptid);
		double end = t->known ? t->t_end : now();
		fprintf(stderr, "t%-8x %-9s %-16s %-16s %8.2f  %s\n",
			(unsigned)t->tid, parent, t->prog, t->host,
			end - t->t_begin, how);
	}
}
