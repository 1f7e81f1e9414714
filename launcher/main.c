/*
 * main.c - pvmrun: runs a PVM job in one command, as mpirun runs an MPI
 * job (pvmrun.1).
 *
 *   pvmrun [-n N] [--master] [--host h1,h2 | --hostfile F] [--join]
 *          [--tag-output | --no-tag-output] [--timeout S] [--summary]
 *          program [arg...]
 *
 * Options end at the program's name (or at "--"); what follows is the
 * program's own.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/version.h"
#include "launcher/pvmrun.h"
#include "pvmd/host/hostfile.h"

static void usage(void)
{
	printf("usage: pvmrun [option...] program [arg...]\n"
	       "\n"
	       "Starts a private PVM virtual machine, runs the program as a "
	       "job in it,\n"
	       "relays the output of every task of the job, halts the "
	       "machine, and exits\n"
	       "with the status of the first task that failed (128+n for a "
	       "signal n).\n"
	       "\n"
	       "  -n, -np N        start N copies (default 1)\n"
	       "  --master         start one master: the tasks it spawns are "
	       "part of the job\n"
	       "  --host H1,H2...  run on these hosts, task i on the i-th "
	       "(cyclically)\n"
	       "  --hostfile FILE  the machine's hosts, as for pvmd(1)\n"
	       "  --join           run in the machine of $PVM_VMID that runs "
	       "already\n"
	       "  --tag-output     prefix each line with [tid@host] (the "
	       "default for\n"
	       "                   more than one task)\n"
	       "  --no-tag-output  never prefix\n"
	       "  --timeout S      stop the job after S seconds (exit status "
	       "124)\n"
	       "  --summary        print a summary of the tasks at the end\n"
	       "  --version        print the version and exit\n"
	       "  --help           print this help and exit\n");
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "pvmrun: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'pvmrun --help'.\n");
	return RUN_EXIT_USAGE;
}

/* Splits "a,b,c" into a NULL-ended list. */
static char **split_hosts(char *list, int *n)
{
	int count = 1;
	for (const char *p = list; *p; p++)
		count += *p == ',';
	char **v = calloc((size_t)count + 1, sizeof *v);
	if (!v)
		return NULL;
	*n = 0;
	for (char *save = NULL, *h = strtok_r(list, ",", &save); h;
	     h = strtok_r(NULL, ",", &save))
		v[(*n)++] = h;
	return *n ? v : NULL;
}

/* Whether `name` is a host name as a hostfile line takes it (the pvmd
 * adds it as one): not an option, a comment, '&' or blanks with more. */
static int host_name_ok(const char *name)
{
	struct hostopt dflt, o;
	char err[256];
	hostopt_default(&dflt);
	return hostopt_parse(name, &dflt, &o, err, sizeof err) == 1 &&
	       !o.deferred && !strcmp(o.name, name);
}

/* The value of option argv[*i]: after '=' in the same word, or the next
 * word.  NULL if there is none. */
static char *opt_value(int argc, char **argv, int *i)
{
	size_t n = strcspn(argv[*i], "=");
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] == '\0' && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

static int opt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);
	return !strncmp(arg, name, n) && (arg[n] == '\0' || arg[n] == '=');
}

/* Parses the options; returns the index of the program or an exit
 * status as a negative number. */
static int parse(int argc, char **argv, struct run_opts *o)
{
	int i;
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		char *a = argv[i], *v;
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (opt_is(a, "-n") || opt_is(a, "-np") || opt_is(a, "--np")) {
			v = opt_value(argc, argv, &i);
			char *end;
			long n = v ? strtol(v, &end, 10) : 0;
			if (!v || *end || n < 1 || n > 100000)
				return -bad_usage("%s needs a count from 1", a);
			o->ntasks = (int)n;
		} else if (opt_is(a, "--host") || opt_is(a, "-H")) {
			v = opt_value(argc, argv, &i);
			if (!v || !(o->hosts = split_hosts(v, &o->nhosts)))
				return -bad_usage("%s needs host names", a);
			for (int k = 0; k < o->nhosts; k++)
				if (!host_name_ok(o->hosts[k]))
					return -bad_usage("bad host name '%s'",
							  o->hosts[k]);
		} else if (opt_is(a, "--hostfile")) {
			v = opt_value(argc, argv, &i);
			if (!v)
				return -bad_usage("%s needs a file", a);
			o->hostfile = v;
		} else if (opt_is(a, "--timeout")) {
			v = opt_value(argc, argv, &i);
			char *end;
			double s = v ? strtod(v, &end) : 0;
			if (!v || *end || s <= 0 || s > 1e9)
				return -bad_usage(
					"%s needs a number of seconds", a);
			o->timeout = s;
		} else if (!strcmp(a, "--master")) {
			o->master = 1;
		} else if (!strcmp(a, "--join")) {
			o->join = 1;
		} else if (!strcmp(a, "--tag-output")) {
			o->tag = 1;
		} else if (!strcmp(a, "--no-tag-output")) {
			o->tag = 0;
		} else if (!strcmp(a, "--summary")) {
			o->summary = 1;
		} else {
			return -bad_usage("unknown option %s", a);
		}
	}
	if (i >= argc)
		return -bad_usage("%s", "no program to run");
	if (o->hostfile && o->hosts)
		return -bad_usage("%s", "--host and --hostfile exclude each "
					"other");
	if (o->hostfile && o->join)
		return -bad_usage("%s", "--hostfile starts a machine: not "
					"with --join");
	if (o->master && o->ntasks > 1)
		return -bad_usage("%s", "--master starts one task: not with "
					"-n");
	return i;
}

/* The program's path: a name with '/' made absolute, a plain name
 * looked up in PATH as a shell would; one found in neither is left to
 * the pvmd's PVM_PATH.  *dir gets the directory of a found one. */
static char *resolve(const char *prog, char **dir)
{
	char *found = NULL;
	*dir = NULL;
	if (strchr(prog, '/')) {
		/* absolute, but not through symbolic links: the task's name
		 * is the one the user gave */
		char cwd[PATH_MAX];
		if (access(prog, X_OK) < 0) {
			fprintf(stderr, "pvmrun: cannot start %s: %s\n", prog,
				strerror(errno));
			return NULL;
		}
		if (prog[0] == '/' || !getcwd(cwd, sizeof cwd)) {
			found = strdup(prog);
		} else {
			size_t n = strlen(cwd) + strlen(prog) + 2;
			found = malloc(n);
			if (found)
				snprintf(found, n, "%s/%s", cwd, prog);
		}
	} else {
		const char *path = getenv("PATH");
		char *copy = strdup(path ? path : "");
		for (char *save = NULL, *d = strtok_r(copy, ":", &save);
		     d && !found; d = strtok_r(NULL, ":", &save)) {
			char buf[PATH_MAX];
			snprintf(buf, sizeof buf, "%s/%s", d, prog);
			if (d[0] == '/' && access(buf, X_OK) == 0)
				found = strdup(buf);
		}
		free(copy);
		if (!found)
			return strdup(prog);
	}
	if (!found)
		return NULL;
	*dir = strdup(found);
	char *slash = strrchr(*dir, '/');
	if (slash)
		slash[slash == *dir ? 1 : 0] = '\0';
	return found;
}

static void on_signal(int sig)
{
	run_signal = sig;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage();
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			fputs(PVM_VERSION_TEXT("pvmrun"), stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--"))
			break;
	}
	struct run_opts o = {.ntasks = 1, .tag = -1};
	int at = parse(argc, argv, &o);
	if (at < 0)
		return -at;
	char *dir;
	o.prog = resolve(argv[at], &dir);
	if (!o.prog)
		return RUN_EXIT_NOFILE;
	o.args = argv + at + 1;
	if (o.tag < 0)
		o.tag = o.master || o.ntasks > 1;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	int st = vm_open(&o, dir);
	int sig = run_signal;
	if (st == 0 && sig) {
		/* Ctrl-C while the hosts were starting (those still starting
		 * are cancelled, vm.c): the job is not started at all */
		fprintf(stderr, "pvmrun: got SIG%s: stopping the job\n",
			sigabbrev_np(sig));
		st = 128 + sig;
	} else if (st == 0) {
		st = job_spawn(&o);
		if (st == 0)
			st = job_wait(&o);
		if (o.summary)
			job_summary();
	}
	fflush(stdout);
	vm_close();
	free(dir);
	free(o.prog);
	free(o.hosts);
	return st;
}
