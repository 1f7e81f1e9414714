/*
 * vm.c - pvmrun's virtual machine: a private one (its own PVM_VMID, so
 * that it meets no other pvmd of the user) or, with --join, the running
 * one; its hosts; and at the end the halt and the cleanup, so that a run
 * leaves no pvmd, directory or shared-memory inbox behind.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/taskend.h"
#include "launcher/pvmrun.h"
#include "lpvm_priv.h"
#include "proto/shmseg.h"
#include "proto/vmdir.h"
#include "pvm3.h"
#include "pvmd/host/hostfile.h"

#define PVMD_GONE_WAIT_MS 10000 /* for a pvmd to exit, at most this */

static int started; /* we started the machine: we halt it */
static struct pvmhostinfo *hosts;
static int nhost;
static char vmdir[600]; /* the private machine's directory */

static void quiet(void)
{
	pvm_setopt(PvmAutoErr, 0);
}

/* PVM_PATH for the private pvmd: the user's (or the pvmd's default),
 * then the program's directory, so that a master finds the workers
 * installed beside it by name, as it would in the current directory. */
static void set_spawn_path(const char *progdir)
{
	if (!progdir)
		return;
	const char *cur = getenv("PVM_PATH");
	const char *root = getenv("PVM_ROOT");
	/* the pvmd's default, as pvmd/spawn.c makes it: the home (which
	 * the pvmd does not expand: ours to give) when there is one */
	const char *home = getenv("HOME");
	size_t n = (cur ? strlen(cur) : 0) + (root ? strlen(root) : 0) +
		   (home ? strlen(home) : 0) + strlen(progdir) + 64;
	char *v = malloc(n);
	if (!v)
		return;
	char hdir[32 + 4096] = "";
	if (home && *home)
		snprintf(hdir, sizeof hdir, "%s/pvm3/bin/$PVM_ARCH:", home);
	if (cur && *cur)
		snprintf(v, n, "%s:%s", cur, progdir);
	else if (root && *root)
		/* "$PVM_ARCH" is the pvmd's to expand (pvmd/spawn.c) */
		snprintf(v, n, "%s%s/bin/$PVM_ARCH:%s", hdir, root, progdir);
	else
		snprintf(v, n, "%s%s", hdir, progdir);
	setenv("PVM_PATH", v, 1);
	free(v);
}

static int refresh_config(void)
{
	int narch;
	return pvm_config(&nhost, &narch, &hosts);
}

/* Is `name` the host pvmrun runs on (the master)? */
static int is_local(const char *name)
{
	return !strcmp(name, "localhost") || !strcmp(name, ".") ||
	       (nhost > 0 && !strcmp(name, hosts[0].hi_name));
}

/* Adds the hosts of `names` that are not in the machine yet, each by its
 * bare name: the pvmd gives it the options of its line in the machine's
 * hostfile, or the file's defaults (the spawn path: write_hostfile).  A
 * host that cannot be added fails the run, as mpirun fails a job whose
 * nodes cannot all be reached: each gets a line with the reason, in the
 * remote shell's words where it said something. */
static int add_hosts(char **names, int count)
{
	char **want = calloc((size_t)count + 1, sizeof *want);
	int *infos = calloc((size_t)count + 1, sizeof *infos);
	int n = 0, bad = 0;
	if (!want || !infos) {
		fprintf(stderr, "pvmrun: out of memory\n");
		bad = 1;
	}
	for (int i = 0; !bad && i < count; i++) {
		int dup = is_local(names[i]);
		for (int k = 0; k < n && !dup; k++)
			dup = !strcmp(want[k], names[i]);
		for (int k = 0; k < nhost && !dup; k++)
			dup = !strcmp(hosts[k].hi_name, names[i]);
		if (!dup)
			want[n++] = names[i];
	}
	if (!bad && n > 0) {
		fprintf(stderr, "pvmrun: adding %d host%s...\n", n,
			n > 1 ? "s" : "");
		/* Ctrl-C (or SIGTERM) cancels the hosts still starting at
		 * once, rather than after the slowest: main stops the run */
		struct lpvm_addwatch w = {.stop = &run_signal};
		lpvm_priv_addhosts(want, n, infos, &w);
		for (int k = 0; k < n; k++) {
			if (infos[k] >= 0)
				continue;
			const char *why = lpvm_priv_addhost_why(k);
			if (w.cancelled && why && !strncmp(why, "cancelled", 9))
				continue; /* not a failure: the user's stop */
			fprintf(stderr, "pvmrun: cannot add host %s: %s%s%s\n",
				want[k], taskend_errstr(infos[k]),
				why && *why ? ": " : "", why ? why : "");
			bad = 1;
		}
		refresh_config();
	}
	free(want);
	free(infos);
	return bad ? RUN_EXIT_VM : 0;
}

/* ---- the private machine's hostfile ---- */

/* The spawn path every host gets (ep=): the local pvmd's, so that a
 * master's workers are found beside it on every host.  NULL when there
 * is none or a hostfile cannot carry it (blanks, too long). */
static const char *host_spawn_path(void)
{
	const char *ep = getenv("PVM_PATH");
	if (!ep || !*ep || strpbrk(ep, " \t\r\n") ||
	    strlen(ep) >= sizeof((struct hostopt *)0)->ep)
		return NULL;
	return ep;
}

/* Writes the hostfile the private pvmd starts with to `out`: the user's
 * (`path`, already checked by hostfile_load) with every host deferred
 * ("&"), so that pvmrun adds them itself and learns why one fails, and
 * with ep= the spawn path on each host line that has none; then a '*'
 * line giving it to hosts added later, if the defaults have none.
 * Returns 0 or -1 (errno set). */
static int write_hostfile(FILE *out, const char *path, const char *ep)
{
	struct hostopt dflt, one;
	hostopt_default(&dflt);
	if (path) {
		FILE *in = fopen(path, "re");
		if (!in)
			return -1;
		char *line = NULL, err[512];
		size_t cap = 0;
		ssize_t len;
		while ((len = getline(&line, &cap, in)) >= 0) {
			while (len > 0 &&
			       (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = '\0';
			int k = hostopt_parse(line, &dflt, &one, err,
					      sizeof err);
			if (k == 1)
				fprintf(out, "%s%s%s%s\n",
					one.deferred ? "" : "& ", line,
					ep && !*one.ep ? " ep=" : "",
					ep && !*one.ep ? ep : "");
			else
				fprintf(out, "%s\n", line);
		}
		int e = ferror(in) ? errno : 0;
		free(line);
		fclose(in);
		if (e) {
			errno = e;
			return -1;
		}
	}
	if (ep && !*dflt.ep)
		fprintf(out, "* ep=%s\n", ep);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Makes that file (in $TMPDIR or /tmp); its path in `tmp`.  The pvmd
 * reads it before it says it is ready: the caller removes it then.
 * Returns 0, 1 when there is nothing to write (or it could not be made
 * and the run does without: no host named, so only hosts the job adds
 * miss the spawn path), or -1 after saying why. */
static int make_hostfile(const struct run_opts *o, char *tmp, size_t n)
{
	const char *path = o->hostfile;
	int needed = o->hostfile || o->hosts;
	const char *ep = host_spawn_path();
	if (!path && !ep)
		return 1;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(tmp, n, "%s/pvmrun-hosts.XXXXXX", dir);
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f || write_hostfile(f, path, ep) < 0) {
		if (needed)
			fprintf(stderr, "pvmrun: cannot write %s: %s\n", tmp,
				strerror(errno));
		if (f)
			fclose(f);
		else if (fd >= 0)
			close(fd);
		if (fd >= 0)
			unlink(tmp);
		return needed ? -1 : 1;
	}
	fclose(f);
	return 0;
}

/* The hosts of the user's hostfile the job runs on (not '&' ones). */
static char **hostfile_hosts(const struct hostfile *hf, int *n)
{
	char **v = calloc((size_t)hf->n + 1, sizeof *v);
	*n = 0;
	for (int i = 0; v && i < hf->n; i++)
		if (!hf->hosts[i].deferred)
			v[(*n)++] = hf->hosts[i].name;
	return v;
}

/* Whether the private pvmd still runs (by its lock: as its parent is
 * init, it may wait a zombie for a slow reaper). */
static int pvmd_alive(void)
{
	return vmdir[0] && vmdir_pvmd_alive(vmdir);
}

/* Waits up to PVMD_GONE_WAIT_MS for the pvmd to be gone: 1 when it is. */
static int pvmd_gone(void)
{
	const struct timespec step = {0, 10 * 1000000L};
	for (int ms = 0; pvmd_alive() && ms < PVMD_GONE_WAIT_MS; ms += 10)
		nanosleep(&step, NULL);
	return !pvmd_alive();
}

/* Empties and removes the private machine's directory: the pvmd leaves
 * its log and lock file for a next pvmd of the same name, which a
 * private name never has. */
static void remove_vmdir(void)
{
	if (vmdir_remove(vmdir) < 0 && errno != ENOENT)
		fprintf(stderr, "pvmrun: cannot remove %s: %s\n", vmdir,
			strerror(errno));
}

/* Starts the private machine: its own PVM_VMID, transient (every pvmd
 * of it removes its directory when it exits), the hostfile made by
 * make_hostfile. */
static int start_private(const struct run_opts *o, const char *progdir)
{
	/* the user's PVM_VMID in front: whoever cleans up after a machine
	 * of that name finds this one too */
	const char *outer = getenv("PVM_VMID");
	char id[128];
	snprintf(id, sizeof id, "%.80s%spvmrun-%d", outer ? outer : "",
		 outer && *outer ? "-" : "", (int)getpid());
	setenv("PVM_VMID", id, 1);
	set_spawn_path(progdir);
	if (vmdir_path(vmdir, sizeof vmdir) < 0)
		vmdir[0] = '\0';
	quiet();
	char tmp[4200];
	int hf = make_hostfile(o, tmp, sizeof tmp);
	if (hf < 0)
		return RUN_EXIT_VM;
	char *argv[2] = {tmp, NULL};
	setenv("PVMD_TRANSIENT", "1", 1);
	int cc = pvm_start_pvmd(hf == 0 ? 1 : 0, argv, 1);
	unsetenv("PVMD_TRANSIENT");
	if (hf == 0)
		unlink(tmp);
	if (cc < 0) {
		fprintf(stderr, "pvmrun: cannot start a pvmd: %s\n",
			taskend_errstr(cc));
		/* what a pvmd that failed at startup left (its log, its
		 * lock): the name is ours alone.  Its verdict comes before
		 * its exit, and it holds its lock until then. */
		if (pvmd_gone())
			remove_vmdir();
		return RUN_EXIT_VM;
	}
	started = 1;
	return 0;
}

int vm_open(const struct run_opts *o, const char *progdir)
{
	struct hostfile hf = {0};
	if (o->hostfile) {
		/* read here first: its errors are the user's to see before
		 * anything starts, in pvmrun's words */
		char err[700];
		if (hostfile_load(o->hostfile, &hf, err, sizeof err) < 0) {
			fprintf(stderr, "pvmrun: %s\n", err);
			return RUN_EXIT_VM;
		}
	}
	if (!o->join) {
		int st = start_private(o, progdir);
		if (st) {
			hostfile_free(&hf);
			return st;
		}
	} else {
		quiet();
		if (pvm_mytid() < 0) {
			const char *vmid = getenv("PVM_VMID");
			fprintf(stderr,
				"pvmrun: --join: no virtual machine runs "
				"(PVM_VMID=%s)\n",
				vmid ? vmid : "");
			return RUN_EXIT_VM;
		}
	}
	quiet();
	int st = 0;
	if (refresh_config() < 0) {
		fprintf(stderr, "pvmrun: cannot list the hosts\n");
		st = RUN_EXIT_VM;
	} else if (o->hosts) {
		st = add_hosts(o->hosts, o->nhosts);
	} else if (o->hostfile) {
		int n;
		char **names = hostfile_hosts(&hf, &n);
		st = names ? add_hosts(names, n) : RUN_EXIT_VM;
		free(names);
	}
	hostfile_free(&hf);
	return st;
}

const char *vm_host_of(int tid)
{
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < nhost; i++)
			if (pvm_tidtohost(hosts[i].hi_tid) ==
			    pvm_tidtohost(tid))
				return hosts[i].hi_name;
		if (pass == 0 && refresh_config() < 0)
			break; /* a host added since */
	}
	return "?";
}

int vm_nhosts(void)
{
	return nhost;
}

void vm_close(void)
{
	if (!started) {
		pvm_exit();
		return;
	}
	pvm_halt();
	if (!pvmd_gone()) {
		/* its tasks' inboxes are still its own */
		fprintf(stderr, "pvmrun: the pvmd of %s did not stop\n", vmdir);
	} else {
		remove_vmdir();
		shmseg_remove_all(); /* inboxes of tasks that died unseen */
	}
}
