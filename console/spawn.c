/*
 * spawn.c - the console's spawn command.
 *
 *   spawn [ options ] file [ arg ... ]
 *
 * Options come before the file name, each in its own word:
 *   -N            start N copies
 *   -host, -ARCH  where (a name in capitals is an architecture), and
 *   -host:wd, -ARCH:wd, -:wd, --host=name[:wd]  with a working directory
 *                 (passed to pvm_spawn as "where:wd")
 *   -?            PvmTaskDebug
 *   ->  ->file  ->>file   the job's output to the console, to a new file,
 *                 appended to a file
 *   -@ -@file     tracing: not available yet
 * With an output option the children's output comes to this console
 * (PvmOutputTid = our tid, and a message tag of the job's own), and
 * jobs.c prints or writes it as it arrives.
 */
#include "console.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpvm_priv.h"
#include "pvm3.h"

struct spawn_opts {
	int count;
	int flags;	   /* PvmTaskHost, PvmTaskArch, PvmTaskDebug */
	const char *where; /* host or architecture name, maybe with ":wd" */
	int output;	   /* one of the OUT_* */
	const char *file;  /* for OUT_FILE and OUT_APPEND */
};

enum { OUT_NONE, OUT_CONSOLE, OUT_FILE, OUT_APPEND };

/* An architecture name is written in capitals (LINUX64, SUN4); anything
 * else after a '-' names a host.  Only the part before a ':' counts. */
static int looks_like_arch(const char *s)
{
	if (!isupper((unsigned char)*s))
		return 0;
	for (; *s && *s != ':'; s++)
		if (!isupper((unsigned char)*s) &&
		    !isdigit((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* Parses the option words; returns the index of the file name, or -1
 * after printing why not. */
static int parse_opts(int argc, char **argv, struct spawn_opts *o)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *opt = argv[i] + 1;
		if (opt[0] == '>') {
			if (opt[1] == '>') {
				o->output = OUT_APPEND;
				o->file = opt + 2;
			} else if (opt[1]) {
				o->output = OUT_FILE;
				o->file = opt + 1;
			} else {
				o->output = OUT_CONSOLE;
			}
			if (o->output != OUT_CONSOLE && !*o->file) {
				term_printf("spawn: no file name after %s\n",
					    argv[i]);
				return -1;
			}
		} else if (isdigit((unsigned char)opt[0])) {
			char *end;
			long n = strtol(opt, &end, 10);
			if (*end || n > 0x7fffffff) {
				term_printf("spawn: bad count %s\n", argv[i]);
				return -1;
			}
			/* A count of 0 goes to pvm_spawn, which refuses it
			 * (PvmBadParam), as the reference console does. */
			o->count = (int)n;
		} else if (opt[0] == '?' && !opt[1]) {
			o->flags |= PvmTaskDebug;
		} else if (opt[0] == '@') {
			term_printf("spawn: -@ (tracing) not available yet "
				    "(tracing comes with a later release)\n");
			return -1;
		} else if (opt[0] == ':') {
			/* Only a working directory: anywhere, in wd. */
			o->flags &= ~(PvmTaskHost | PvmTaskArch);
			o->where = opt;
		} else if (opt[0] == '-' && !strncmp(opt + 1, "host=", 5)) {
			o->flags &= ~PvmTaskArch;
			o->flags |= PvmTaskHost;
			o->where = opt + 6;
		} else if (opt[0]) {
			o->flags &= ~(PvmTaskHost | PvmTaskArch);
			o->flags |= looks_like_arch(opt) ? PvmTaskArch
							 : PvmTaskHost;
			o->where = opt;
		} else {
			break; /* a lone "-": no file follows */
		}
	}
	if (i >= argc || argv[i][0] == '-') {
		term_printf("incorrect arg count\n");
		return -1;
	}
	return i;
}

/* Opens the job's output file: "->file" makes a new one and, like the
 * reference, will not overwrite one that exists; "->>file" appends. */
static FILE *open_output(const struct spawn_opts *o)
{
	int fl = O_WRONLY | O_CREAT | O_CLOEXEC |
		 (o->output == OUT_APPEND ? O_APPEND : O_EXCL);
	int fd = open(o->file, fl, 0600);
	FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
	if (!f) {
		term_printf("%s: %s\n", o->file, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

/* Prints the result of pvm_spawn as the reference does. */
static void report(int cc, const int *tids, int count)
{
	term_printf("%d successful\n", cc);
	for (int i = 0; i < count; i++) {
		if (tids[i] >= 0)
			term_printf("t%x\n", (unsigned)tids[i]);
		else
			term_printf("%s\n", cons_errstr(tids[i]));
	}
}

/* "$PVM_ARCH" in a PVM_PATH entry, as the pvmd expands it. */
static void expand_arch(char *out, size_t size, const char *path,
			const char *arch)
{
	size_t o = 0;
	out[0] = '\0';
	while (*path && o + 1 < size) {
		if (!strncmp(path, "$PVM_ARCH", 9)) {
			o += (size_t)snprintf(out + o, size - o, "%s", arch);
			path += 9;
		} else {
			out[o++] = *path++;
			out[o] = '\0';
		}
	}
}

/* After "No such file" for a plain name: where the pvmd looked, and
 * whether the console's PVM_PATH (which tab completion offers programs
 * from) says otherwise. */
static void explain_nofile(const char *file)
{
	char path[4096], mine[4096];
	if (strchr(file, '/') ||
	    CONS_QUIET(lpvm_priv_spawnpath(path, sizeof path)) < 0)
		return;
	term_printf("spawn: %s not found in the pvmd's PVM_PATH: %s\n", file,
		    path[0] ? path : "(empty)");
	const char *env = getenv("PVM_PATH");
	int nhost, narch;
	struct pvmhostinfo *hosts;
	if (!env || !*env || CONS_QUIET(pvm_config(&nhost, &narch, &hosts)) < 0)
		return;
	const char *arch = "";
	for (int i = 0; i < nhost; i++)
		if (pvm_tidtohost(hosts[i].hi_tid) == pvm_tidtohost(cons.mytid))
			arch = hosts[i].hi_arch;
	expand_arch(mine, sizeof mine, env, arch);
	if (strcmp(mine, path))
		term_printf("spawn: the console's PVM_PATH is another: %s\n",
			    mine);
}

int cmd_spawn(int argc, char **argv)
{
	/* Like the reference console, children are not told the console is
	 * their parent (pvm_parent() gives PvmParentNotSet): it is not a
	 * program that could answer their messages. */
	struct spawn_opts o = {.count = 1, .flags = PvmNoSpawnParent};
	int file = parse_opts(argc, argv, &o);
	if (file < 0)
		return -1;

	FILE *out = NULL;
	if (o.output == OUT_FILE || o.output == OUT_APPEND) {
		out = open_output(&o);
		if (!out)
			return -1;
	}
	int job = 0, tag = 0;
	if (o.output != OUT_NONE) {
		job = jobs_create(&tag);
		if (job < 0) {
			term_printf("spawn: out of memory\n");
			if (out)
				fclose(out);
			return -1;
		}
		if (out)
			jobs_set_file(job, out);
		term_printf("[%d]\n", job);
	}
	int n = o.count > 0 ? o.count : 1;
	int *tids = calloc((size_t)n, sizeof(int));
	if (!tids) {
		term_printf("spawn: out of memory\n");
		if (job)
			jobs_add_tasks(job, NULL, 0);
		return -1;
	}

	/* With an output option the children of this spawn send their
	 * output to us, tagged with the job's tag; without, it goes where
	 * the console's own options say (the pvmd's log by default). */
	int otid = pvm_getopt(PvmOutputTid), ocode = pvm_getopt(PvmOutputCode);
	if (job) {
		pvm_setopt(PvmOutputTid, cons.mytid);
		pvm_setopt(PvmOutputCode, tag);
	}
	/* argv after the file name is the children's argument vector. */
	char **args = file + 1 < argc ? &argv[file + 1] : NULL;
	int cc = pvm_spawn(argv[file], args, o.flags, (char *)o.where, o.count,
			   tids);
	if (job) {
		/* The old destination may have gone meanwhile: then the
		 * pvmd's log, the default. */
		if (CONS_QUIET(pvm_setopt(PvmOutputTid, otid)) < 0 &&
		    pvm_getopt(PvmOutputTid) != otid)
			pvm_setopt(PvmOutputTid, 0);
		pvm_setopt(PvmOutputCode, ocode);
	}

	if (cc < 0) {
		/* The library has said why (PvmAutoErr). */
		if (job)
			jobs_add_tasks(job, NULL, 0);
		free(tids);
		return -1;
	}
	report(cc, tids, o.count);
	int nofile = 0;
	for (int i = 0; i < o.count; i++)
		nofile |= tids[i] == PvmNoFile;
	if (nofile)
		explain_nofile(argv[file]);
	if (job) {
		/* Only the tasks that started produce output. */
		int k = 0;
		for (int i = 0; i < o.count; i++)
			if (tids[i] >= 0)
				tids[k++] = tids[i];
		jobs_add_tasks(job, tids, k);
	}
	free(tids);
	/* a slot that did not start is a failure, for scripts (main.c) */
	return cc < o.count ? -1 : 0;
}
