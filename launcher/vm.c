/*
 * vm.c - pvmrun's virtual machine: a private one (its own PVM_VMID, so
 * that it meets no other pvmd of the user) or, with --join, the running
 * one; its hosts; and at the end the halt and the cleanup, so that a run
 * leaves no pvmd, directory or shared-memory inbox behind.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/taskend.h"
#include "launcher/pvmrun.h"
#include "proto/shmseg.h"
#include "proto/vmdir.h"
#include "pvm3.h"

#define PVMD_GONE_WAIT_MS 10000 /* after the halt, at most this */

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

static int add_hosts(const struct run_opts *o)
{
	char **want = calloc((size_t)o->nhosts + 1, sizeof *want);
	int *infos = calloc((size_t)o->nhosts + 1, sizeof *infos);
	int n = 0, bad = 0;
	if (!want || !infos) {
		fprintf(stderr, "pvmrun: out of memory\n");
		bad = 1;
	}
	for (int i = 0; !bad && i < o->nhosts; i++) {
		int dup = is_local(o->hosts[i]);
		for (int k = 0; k < n && !dup; k++)
			dup = !strcmp(want[k], o->hosts[i]);
		for (int k = 0; k < nhost && !dup; k++)
			dup = !strcmp(hosts[k].hi_name, o->hosts[i]);
		if (!dup)
			want[n++] = o->hosts[i];
	}
	if (!bad && n > 0) {
		fprintf(stderr, "pvmrun: adding %d host%s...\n", n,
			n > 1 ? "s" : "");
		pvm_addhosts(want, n, infos);
		for (int k = 0; k < n; k++) {
			if (infos[k] >= 0)
				continue;
			fprintf(stderr, "pvmrun: cannot add host %s: %s\n",
				want[k], taskend_errstr(infos[k]));
			bad = 1;
		}
		refresh_config();
	}
	free(want);
	free(infos);
	return bad ? RUN_EXIT_VM : 0;
}

int vm_open(const struct run_opts *o, const char *progdir)
{
	if (!o->join) {
		/* the user's PVM_VMID in front: whoever cleans up after a
		 * machine of that name finds this one too */
		const char *outer = getenv("PVM_VMID");
		char id[128];
		snprintf(id, sizeof id, "%.80s%spvmrun-%d", outer ? outer : "",
			 outer && *outer ? "-" : "", (int)getpid());
		setenv("PVM_VMID", id, 1);
		set_spawn_path(progdir);
		quiet();
		char *argv[2] = {(char *)o->hostfile, NULL};
		int cc = pvm_start_pvmd(o->hostfile ? 1 : 0, argv, 1);
		if (cc < 0) {
			fprintf(stderr, "pvmrun: cannot start a pvmd: %s\n",
				taskend_errstr(cc));
			return RUN_EXIT_VM;
		}
		started = 1;
		if (vmdir_path(vmdir, sizeof vmdir) < 0)
			vmdir[0] = '\0';
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
	if (refresh_config() < 0) {
		fprintf(stderr, "pvmrun: cannot list the hosts\n");
		return RUN_EXIT_VM;
	}
	if (o->hosts)
		return add_hosts(o);
	return 0;
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

/* Whether the private pvmd still runs (by its lock: as its parent is
 * init, it may wait a zombie for a slow reaper). */
static int pvmd_alive(void)
{
	return vmdir[0] && vmdir_pvmd_alive(vmdir);
}

/* Empties and removes the private machine's directory: the pvmd leaves
 * its log and lock file for a next pvmd of the same name, which a
 * private name never has. */
static void remove_vmdir(void)
{
	DIR *dir = opendir(vmdir);
	if (!dir)
		return;
	struct dirent *e;
	while ((e = readdir(dir)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(dir), e->d_name, 0);
	closedir(dir);
	if (rmdir(vmdir) < 0 && errno != ENOENT)
		fprintf(stderr, "pvmrun: cannot remove %s: %s\n", vmdir,
			strerror(errno));
}

void vm_close(void)
{
	if (!started) {
		pvm_exit();
		return;
	}
	pvm_halt();
	const struct timespec step = {0, 10 * 1000000L};
	for (int ms = 0; pvmd_alive() && ms < PVMD_GONE_WAIT_MS; ms += 10)
		nanosleep(&step, NULL);
	if (pvmd_alive()) {
		/* its tasks' inboxes are still its own */
		fprintf(stderr, "pvmrun: the pvmd of %s did not stop\n", vmdir);
	} else {
		remove_vmdir();
		shmseg_remove_all(); /* inboxes of tasks that died unseen */
	}
}
