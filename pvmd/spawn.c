/*
 * spawn.c - starting tasks (TM_SPAWN): host/arch checks, the program search
 * path, the working directory (where's ":dir"), the debugger
 * (PvmTaskDebug), fork/exec with the child's output on a pipe (pvmd.h).
 *
 * Each child gets a tid reserved before the fork, passed in PVM_SPAWN_TID,
 * under which it enrolls.  Exec failure is reported back through a
 * close-on-exec pipe, so the slot gets an error code instead of a tid.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/log.h"
#include "pvmd/loop.h"
#include "pvmd/output.h"
#include "pvmd/pvmd.h"
#include "pvmd/spawn.h"
#include "pvmd/task.h"

extern char **environ;

#ifndef PVM_DEBUGGER_PATH
#define PVM_DEBUGGER_PATH "pvm-debugger"
#endif

/* How one spawn request starts its copies. */
struct spawn_opts {
	const char *dir;      /* working directory, NULL: ours ($HOME) */
	const char *debugger; /* PvmTaskDebug: the script to run, else NULL */
};

static char *path_join(const char *dir, const char *file)
{
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, file);
	return p;
}

/* Replaces "$PVM_ARCH" in a path element by our architecture. */
static char *expand_arch(const char *elem, const char *arch)
{
	const char *v = strstr(elem, "$PVM_ARCH");
	if (!v)
		return strdup(elem);
	size_t n = strlen(elem) - 9 + strlen(arch) + 1;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%.*s%s%s", (int)(v - elem), elem, arch, v + 9);
	return p;
}

int spawn_init(struct pvmd *d)
{
	d->resv_src = -1;
	const char *pp = getenv("PVM_PATH");
	char *list = NULL;

	if (pp && *pp) {
		list = strdup(pp);
	} else {
		const char *home = getenv("HOME");
		const char *root = getenv("PVM_ROOT");
		size_t n = 2 * strlen(d->arch) + 64 +
			   (home ? strlen(home) : 0) +
			   (root ? strlen(root) : 0);
		list = malloc(n);
		if (list) {
			*list = 0;
			if (home && *home)
				snprintf(list, n, "%s/pvm3/bin/%s", home,
					 d->arch);
			if (root && *root)
				snprintf(list + strlen(list), n - strlen(list),
					 "%s%s/bin/%s", *list ? ":" : "", root,
					 d->arch);
		}
	}
	if (!list)
		return -1;

	size_t count = 1;
	for (const char *p = list; *p; p++)
		count += *p == ':';
	d->spawn_path = calloc(count + 1, sizeof *d->spawn_path);
	if (!d->spawn_path) {
		free(list);
		return -1;
	}
	size_t k = 0;
	for (char *save = NULL, *e = strtok_r(list, ":", &save); e;
	     e = strtok_r(NULL, ":", &save)) {
		char *x = expand_arch(e, d->arch);
		if (x) {
			d->spawn_path[k++] = x;
			plog(PL_DEBUG, "spawn path: %s", x);
		}
	}
	free(list);
	return 0;
}

/* "." names the local host (man 3 pvm_spawn), for pvm_mstat too, as in
 * the reference. */
int spawn_is_our_host(const struct pvmd *d, const char *name)
{
	return name && (!strcmp(name, ".") || !strcmp(name, d->hostname));
}

static int is_exec_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* The program to run for `file`, malloc'd, or NULL if none qualifies. */
static char *find_program(const struct pvmd *d, const char *file)
{
	if (strchr(file, '/'))
		return is_exec_file(file) ? strdup(file) : NULL;
	for (char **dir = d->spawn_path; dir && *dir; dir++) {
		char *p = path_join(*dir, file);
		if (p && is_exec_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Environment of a child: ours, minus names the request sets and
 * PVM_SPAWN_TID, plus the request's NAME=value strings and our
 * PVM_SPAWN_TID.  The strings are borrowed except the last one. */
static char **child_env(const struct spawn_req *q, int tid)
{
	size_t nenv = 0;
	while (environ[nenv])
		nenv++;
	char **v = calloc(nenv + (size_t)q->nenv + 2, sizeof *v);
	char *mine = malloc(64);
	if (!v || !mine) {
		free(v);
		free(mine);
		return NULL;
	}
	size_t k = 0;
	for (size_t i = 0; i < nenv; i++) {
		const char *e = environ[i];
		size_t nl = strcspn(e, "=");
		if (nl == strlen(WIRE_ENV_SPAWN_TID) &&
		    !strncmp(e, WIRE_ENV_SPAWN_TID, nl))
			continue;
		int overridden = 0;
		for (int j = 0; j < q->nenv && !overridden; j++)
			overridden = !strncmp(q->env[j], e, nl) &&
				     q->env[j][nl] == '=';
		if (!overridden)
			v[k++] = environ[i];
	}
	for (int j = 0; j < q->nenv; j++)
		if (strchr(q->env[j], '=') && q->env[j][0] != '=')
			v[k++] = q->env[j];
	snprintf(mine, 64, "%s=%d", WIRE_ENV_SPAWN_TID, tid);
	v[k++] = mine;
	v[k] = NULL;
	return v;
}

static void free_env(char **env)
{
	size_t n = 0;
	while (env[n])
		n++;
	if (n)
		free(env[n - 1]); /* our PVM_SPAWN_TID string */
	free(env);
}

/*
 * A child is started with clone(CLONE_VM | CLONE_VFORK): it runs on its own
 * small stack in our memory until it execs, and we sleep meanwhile.  That
 * copies no page tables (a fork of a pvmd with thousands of tasks would, and
 * would leave every page of ours copy-on-write until the exec), and the exec
 * error comes back through memory instead of a pipe.  Between clone and exec
 * the child makes only system calls on its own descriptors; our signals are
 * blocked and have no handlers (signals.c), so nothing of ours runs in it.
 */
struct child_args {
	const struct pvmd *d;
	char **argv, **env;
	const char *dir;
	int null; /* /dev/null for its stdin, or -1 */
	int outw; /* its stdout and stderr */
	int err;  /* set by the child: why the exec failed */
};

#define CHILD_STACK (64u << 10)
static _Alignas(64) unsigned char child_stack[CHILD_STACK];

static void say(const char *s)
{
	if (write(2, s, strlen(s)) < 0) {
		/* the task's output is all we have */
	}
}

static int child_main(void *arg)
{
	struct child_args *a = arg;
	sigset_t none;
	sigemptyset(&none);
	/* Its own process group, so that a halt also stops what it starts. */
	setpgid(0, 0);
	if (a->null >= 0) {
		dup2(a->null, 0);
	} else {
		int null = open("/dev/null", O_RDONLY);
		if (null > 0) {
			dup2(null, 0);
			close(null);
		}
	}
	if (dup2(a->outw, 1) < 0 || dup2(a->outw, 2) < 0)
		goto fail;
	if (a->outw > 2)
		close(a->outw);
	/* where's ":dir", relative to our own directory ($HOME); like the
	 * reference, a directory that cannot be entered leaves the task in
	 * ours (the message lands in the task's output) */
	if (a->dir && chdir(a->dir) < 0) {
		int e = errno;
		say("pvmd: cannot enter working directory ");
		say(a->dir);
		say(": ");
		say(strerror(e));
		say("\n");
	}
	/* last: opening /dev/null above may need a descriptor past it */
	if (a->d->child_nofile) {
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
			rl.rlim_cur = (rlim_t)a->d->child_nofile;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (strchr(a->argv[0], '/'))
		execve(a->argv[0], a->argv, a->env);
	else /* a debugger named without a directory: on our PATH */
		execvpe(a->argv[0], a->argv, a->env);
fail:
	a->err = errno ? errno : ENOEXEC;
	return 127;
}

/*
 * Descriptors: each task costs the pvmd two, its output pipe and its
 * connection, but the connection comes later, from the task.  So that a
 * pvmd near its RLIMIT_NOFILE refuses spawns (PvmOutOfRes) rather than
 * start tasks it then cannot accept, a spawn also sets aside one
 * descriptor per task that has not connected yet; each accepted
 * connection gives one back (spawn_fd_release), before the accept when
 * it would fail for want of one.  Each spawn trims the set to the tasks
 * still unconnected (some die first).  FD_MARGIN descriptors are left for
 * consoles and tasks that were not spawned.
 */
#define FD_MARGIN 16

int spawn_fd_release(struct pvmd *d)
{
	if (!d->nresv)
		return 0;
	close(d->resv[--d->nresv]);
	return 1;
}

static size_t unconnected(const struct pvmd *d)
{
	size_t n = 0;
	for (size_t i = 0; i < d->tasks.cap; i++) {
		const struct task *t = d->tasks.slots[i].val;
		n += d->tasks.slots[i].key && (t->flags & TASK_F_SPAWNED) &&
		     !t->conn;
	}
	return n;
}

/* Sets one descriptor aside for a task about to start: 0, or -1 when the
 * pvmd is (nearly) out of them. */
static int fd_reserve(struct pvmd *d, rlim_t limit)
{
	if (d->nresv == d->capresv) {
		size_t cap = d->capresv ? 2 * d->capresv : 64;
		int *v = realloc(d->resv, cap * sizeof *v);
		if (!v)
			return -1;
		d->resv = v;
		d->capresv = cap;
	}
	if (d->resv_src < 0 &&
	    (d->resv_src = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	int fd = fcntl(d->resv_src, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	/* the lowest free descriptor: all below are taken, so fewer than
	 * limit - fd are left */
	if ((rlim_t)fd + FD_MARGIN >= limit) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	d->resv[d->nresv++] = fd;
	return 0;
}

/* Starts one copy for task t.  Returns 0, or a PVM error code. */
static int start_one(struct pvmd *d, struct task *t, const char *path,
		     const struct spawn_req *q, const struct spawn_opts *o,
		     int ptid)
{
	int outp[2];
	if (pipe2(outp, O_CLOEXEC) < 0)
		return errno == ENOMEM ? PvmNoMem : PvmOutOfRes;
	/* under PvmTaskDebug: debugger program args... (man 3 pvm_spawn) */
	char **argv = calloc((size_t)q->argc + 3, sizeof *argv);
	char **env = child_env(q, t->tid);
	int st = PvmNoMem;
	if (!argv || !env)
		goto out;
	int k = 0;
	if (o->debugger)
		argv[k++] = (char *)o->debugger;
	argv[k++] = (char *)path;
	for (int i = 0; i < q->argc; i++)
		argv[k++] = q->argv[i];

	struct child_args a = {.d = d,
			       .argv = argv,
			       .env = env,
			       .dir = o->dir,
			       .null = d->resv_src,
			       .outw = outp[1]};
	pid_t pid = clone(child_main, child_stack + CHILD_STACK,
			  CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	if (pid < 0) {
		/* EAGAIN: RLIMIT_NPROC or the pid space; ENOMEM */
		plog(PL_ERR, "spawn %s: clone: %s", path, strerror(errno));
		st = errno == ENOMEM ? PvmNoMem : PvmOutOfRes;
		goto out;
	}
	close(outp[1]);
	outp[1] = -1;
	if (a.err) {
		/* exec failed: the child has exited already. */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		plog(PL_ERR, "spawn %s: exec %s failed: %s", path, argv[0],
		     strerror(a.err));
		st = (a.err == ENOENT || a.err == EACCES || a.err == ENOEXEC ||
		      a.err == ENOTDIR || a.err == EISDIR)
			     ? PvmNoFile
			     : PvmOutOfRes;
		goto out;
	}

	t->pid = pid;
	idhash_put(&d->children, (int)pid, (void *)(intptr_t)t->tid);
	fcntl(outp[0], F_SETFL, O_NONBLOCK);
	if (!output_watch(d, outp[0], t->tid, q->outtid, q->outctx, q->outtag,
			  ptid))
		close(outp[0]);
	outp[0] = -1;
	st = 0;
out:
	free(argv);
	if (env)
		free_env(env);
	for (int i = 0; i < 2; i++)
		if (outp[i] >= 0)
			close(outp[i]);
	return st;
}

/* Removes a reserved task that never started (no notifies: nobody could
 * know its tid yet). */
static void discard(struct pvmd *d, struct task *t)
{
	idhash_del(&d->tasks, t->tid);
	free(t->aout);
	free(t);
}

static int fill(int *tids, int count, int code)
{
	for (int i = 0; i < count; i++)
		tids[i] = code;
	return 0;
}

/* `p` made absolute (malloc'd) if it is a relative path with a '/';
 * NULL if it needs nothing (or memory ran out: then it stays as is). */
static char *absolute(const char *p)
{
	char cwd[4096];
	if (p[0] == '/' || !strchr(p, '/') || !getcwd(cwd, sizeof cwd))
		return NULL;
	return path_join(cwd, p);
}

/*
 * Whether this host is in the set `where` and the flags name (man 3
 * pvm_spawn; the reference decides the one-host cases): PvmTaskHost
 * (which wins over PvmTaskArch) names a host, PvmTaskArch an
 * architecture, and PvmHostCompl takes the complement, so that on one
 * host HostCompl alone (the complement of every host) names none.
 * `host` is `where` without its ":dir" part.  PvmMppFront changes
 * nothing on a host that is not a multiprocessor.
 */
static int host_selected(const struct pvmd *d, int flags, const char *host)
{
	int in;
	if (flags & PvmTaskHost)
		in = spawn_is_our_host(d, host);
	else if (flags & PvmTaskArch)
		in = !strcmp(host, d->arch);
	else
		in = 1;
	return (flags & PvmHostCompl) ? !in : in;
}

/* A spawn in progress: its copies are started in steps of about
 * SPAWN_STEP_MS, between which the loop serves everyone else (one request
 * for 4096 tasks took 3.6 s of fork and exec in one go). */
#define SPAWN_STEP_MS 10

struct spawn_job {
	struct pvmd *d;
	struct spawn_req q; /* owned */
	int ptid;
	struct wire_hdr hdr;
	spawn_done_fn done;
	intptr_t cookie;
	char *path, *dabs;
	struct spawn_opts o;
	struct sibs *sibs; /* with a reference of the job's own */
	int *tids;
	int i, short_of_fds;
	rlim_t limit;
	struct loop_timer timer;
};

/* Starts copy j->i. */
static void start_slot(struct spawn_job *j)
{
	struct pvmd *d = j->d;
	const struct spawn_req *q = &j->q;
	int i = j->i, ptid = j->ptid;
	int *tids = j->tids;
	if (j->short_of_fds || fd_reserve(d, j->limit) < 0) {
		if (!j->short_of_fds++)
			plog(PL_ERR,
			     "t%x: spawn %s: out of descriptors (%s): %d of %d "
			     "not started",
			     ptid, q->file, strerror(errno), q->count - i,
			     q->count);
		tids[i] = PvmOutOfRes;
		return;
	}
	struct task *t = task_new(d);
	if (!t) {
		tids[i] = PvmOutOfRes;
		return;
	}
	char *aout = strdup(q->file);
	if (!aout) {
		discard(d, t);
		tids[i] = PvmNoMem;
		return;
	}
	int nospawnparent = (q->flags & PvmNoSpawnParent) != 0;
	free(t->aout);
	t->aout = aout;
	t->ptid = nospawnparent ? 0 : ptid;
	t->pflags = nospawnparent ? CONN_PF_NOSPAWNPARENT : 0;
	t->flags = TASK_F_SPAWNED;
	t->ctx = q->ctx;
	t->outtid = q->outtid;
	t->outctx = q->outctx;
	t->outtag = q->outtag;
	int st = start_one(d, t, j->path, q, &j->o, ptid);
	if (st < 0) {
		discard(d, t);
		tids[i] = st;
		if (d->nresv)
			close(d->resv[--d->nresv]);
		/* no descriptors or processes left: the rest fail too */
		if (st == PvmOutOfRes && !j->short_of_fds++)
			plog(PL_ERR,
			     "t%x: spawn %s: out of resources (descriptors or "
			     "processes): %d of %d not started",
			     ptid, q->file, q->count - i, q->count);
		return;
	}
	tids[i] = t->tid;
	j->sibs->tids[j->sibs->n++] = t->tid;
	t->sibs = j->sibs;
	j->sibs->refs++;
	plog(PL_INFO, "t%x: spawned t%x: %s (pid %d)", ptid, t->tid, j->path,
	     (int)t->pid);
}

/* The spawn has ended: its requester learns the tids. */
static void job_end(struct spawn_job *j, int status)
{
	struct pvmd *d = j->d;
	loop_timer_stop(d->loop, &j->timer);
	int started = j->sibs ? j->sibs->n : 0;
	struct spawn_result r = {
		.ptid = j->ptid,
		.hdr = &j->hdr,
		.status = status < 0 ? status : started,
		.count = status < 0 ? 0 : j->q.count,
		.tids = j->tids,
		.cookie = j->cookie,
	};
	j->done(d, &r);
	sibs_done(d, j->sibs);
	sibs_put(j->sibs);
	spawn_req_free(&j->q);
	free(j->path);
	free(j->dabs);
	free(j->tids);
	free(j);
}

static void job_step(struct loop *l, struct loop_timer *tm)
{
	struct spawn_job *j = tm->data;
	uint64_t end = loop_now_ms() + SPAWN_STEP_MS;
	while (j->i < j->q.count) {
		if (j->d->halting) {
			/* the rest are not started */
			while (j->i < j->q.count)
				j->tids[j->i++] = PvmSysErr;
			break;
		}
		start_slot(j);
		j->i++;
		if (loop_now_ms() >= end)
			break;
	}
	if (j->i < j->q.count)
		loop_timer_start(l, tm, 0);
	else
		job_end(j, 0);
}

/* What the request names, and its options: 0, or the code every copy
 * gets. */
static int job_prepare(struct spawn_job *j)
{
	struct pvmd *d = j->d;
	const struct spawn_req *q = &j->q;
	/* "host:dir" or ":dir": the children's working directory */
	char *host = strdup(q->where);
	if (!host)
		return PvmNoMem;
	char *colon = strchr(host, ':');
	if (colon)
		*colon = '\0';
	int in = host_selected(d, q->flags, host);
	free(host);
	colon = strchr(q->where, ':');
	j->o.dir = colon && colon[1] ? colon + 1 : NULL;
	if (!in) {
		plog(PL_INFO,
		     "t%x: spawn %s (flags 0x%x, where '%s'): no such host",
		     j->ptid, q->file, (unsigned)q->flags, q->where);
		return PvmNoHost;
	}
	if (q->flags & PvmTaskDebug) {
		j->o.debugger = getenv("PVM_DEBUGGER");
		if (!j->o.debugger || !*j->o.debugger)
			j->o.debugger = PVM_DEBUGGER_PATH;
	}
	j->path = find_program(d, q->file);
	if (!j->path) {
		plog(PL_INFO, "t%x: spawn %s: no such executable file", j->ptid,
		     q->file);
		return PvmNoFile;
	}
	/* relative names are relative to us: the child changes directory
	 * before it execs */
	if (j->o.dir) {
		char *a = absolute(j->path);
		if (a) {
			free(j->path);
			j->path = a;
		}
		if (j->o.debugger && (j->dabs = absolute(j->o.debugger)))
			j->o.debugger = j->dabs;
	}
	j->sibs = malloc(sizeof *j->sibs + (size_t)q->count * sizeof(int));
	if (!j->sibs)
		return PvmNoMem;
	*j->sibs = (struct sibs){.refs = 1};

	/* what is set aside for tasks that have connected since is free */
	size_t want = unconnected(d);
	while (d->nresv > want)
		close(d->resv[--d->nresv]);
	struct rlimit rl;
	j->limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
				   rl.rlim_cur != RLIM_INFINITY
			   ? rl.rlim_cur
			   : (rlim_t)1 << 30;
	return 0;
}

void spawn_start(struct pvmd *d, int ptid, struct spawn_req *q,
		 const struct wire_hdr *h, spawn_done_fn done, intptr_t cookie)
{
	struct spawn_job *j = calloc(1, sizeof *j);
	int *tids = j ? calloc((size_t)q->count, sizeof *tids) : NULL;
	if (!tids) {
		free(j);
		struct spawn_result r = {.ptid = ptid,
					 .hdr = h,
					 .status = PvmNoMem,
					 .cookie = cookie};
		done(d, &r);
		spawn_req_free(q);
		return;
	}
	j->d = d;
	j->q = *q;
	memset(q, 0, sizeof *q); /* the job's now */
	j->ptid = ptid;
	j->hdr = *h;
	j->done = done;
	j->cookie = cookie;
	j->tids = tids;
	loop_timer_init(&j->timer, job_step, j);
	if (d->halting) {
		job_end(j, PvmSysErr);
		return;
	}
	int st = job_prepare(j);
	if (st < 0) {
		fill(j->tids, j->q.count, st);
		job_end(j, 0);
		return;
	}
	/* the first step after the loop's current batch: the requester's
	 * handler returns first, and the others waiting are served */
	loop_timer_start(d->loop, &j->timer, 0);
}
