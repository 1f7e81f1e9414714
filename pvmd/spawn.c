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

int spawn_tasks(struct pvmd *d, int ptid, const struct spawn_req *q, int *tids)
{
	if (d->halting)
		return PvmSysErr;
	/* "host:dir" or ":dir": the children's working directory */
	char *host = strdup(q->where);
	if (!host)
		return fill(tids, q->count, PvmNoMem);
	char *colon = strchr(host, ':');
	if (colon)
		*colon = '\0';
	struct spawn_opts o = {.dir = colon && colon[1] ? colon + 1 : NULL};
	int in = host_selected(d, q->flags, host);
	if (!in)
		plog(PL_INFO,
		     "t%x: spawn %s (flags 0x%x, where '%s'): no such host",
		     ptid, q->file, (unsigned)q->flags, q->where);
	if (in && (q->flags & PvmTaskDebug)) {
		o.debugger = getenv("PVM_DEBUGGER");
		if (!o.debugger || !*o.debugger)
			o.debugger = PVM_DEBUGGER_PATH;
	}
	char *path = in ? find_program(d, q->file) : NULL;
	if (in && !path)
		plog(PL_INFO, "t%x: spawn %s: no such executable file", ptid,
		     q->file);
	if (!path) {
		free(host);
		return fill(tids, q->count, in ? PvmNoFile : PvmNoHost);
	}
	/* relative names are relative to us: the child changes directory
	 * before it execs */
	char *dabs = NULL;
	if (o.dir) {
		char *a = absolute(path);
		if (a) {
			free(path);
			path = a;
		}
		if (o.debugger && (dabs = absolute(o.debugger)))
			o.debugger = dabs;
	}

	struct sibs *sibs =
		malloc(sizeof *sibs + (size_t)q->count * sizeof(int));
	if (!sibs) {
		free(path);
		free(host);
		free(dabs);
		return fill(tids, q->count, PvmNoMem);
	}
	sibs->refs = 0;
	sibs->n = 0;

	/* what is set aside for tasks that have connected since is free */
	size_t want = unconnected(d);
	while (d->nresv > want)
		close(d->resv[--d->nresv]);
	struct rlimit rl;
	rlim_t limit = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
				       rl.rlim_cur != RLIM_INFINITY
			       ? rl.rlim_cur
			       : (rlim_t)1 << 30;

	int nospawnparent = (q->flags & PvmNoSpawnParent) != 0;
	int short_of_fds = 0;
	for (int i = 0; i < q->count; i++) {
		if (short_of_fds || fd_reserve(d, limit) < 0) {
			if (!short_of_fds++)
				plog(PL_ERR,
				     "t%x: spawn %s: out of descriptors "
				     "(%s): %d of %d not started",
				     ptid, q->file, strerror(errno),
				     q->count - i, q->count);
			tids[i] = PvmOutOfRes;
			continue;
		}
		struct task *t = task_new(d);
		if (!t) {
			tids[i] = PvmOutOfRes;
			continue;
		}
		char *aout = strdup(q->file);
		if (!aout) {
			discard(d, t);
			tids[i] = PvmNoMem;
			continue;
		}
		free(t->aout);
		t->aout = aout;
		t->ptid = nospawnparent ? 0 : ptid;
		t->pflags = nospawnparent ? CONN_PF_NOSPAWNPARENT : 0;
		t->flags = TASK_F_SPAWNED;
		t->ctx = q->ctx;
		t->outtid = q->outtid;
		t->outctx = q->outctx;
		t->outtag = q->outtag;
		int st = start_one(d, t, path, q, &o, ptid);
		if (st < 0) {
			discard(d, t);
			tids[i] = st;
			if (d->nresv)
				close(d->resv[--d->nresv]);
			/* no descriptors or processes left: the rest fail too
			 */
			if (st == PvmOutOfRes && !short_of_fds++)
				plog(PL_ERR,
				     "t%x: spawn %s: out of resources "
				     "(descriptors or processes): %d of %d not "
				     "started",
				     ptid, q->file, q->count - i, q->count);
			continue;
		}
		tids[i] = t->tid;
		sibs->tids[sibs->n++] = t->tid;
		t->sibs = sibs;
		sibs->refs++;
		plog(PL_INFO, "t%x: spawned t%x: %s (pid %d)", ptid, t->tid,
		     path, (int)t->pid);
	}
	free(path);
	free(host);
	free(dabs);
	int started = sibs->n;
	if (!started)
		free(sibs);
	return started;
}
