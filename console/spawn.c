/*
 * spawn.c - the console's spawn command.
 *
 *   spawn [ -count ] [ -host | -ARCH ] [ -> ] file [ arg ... ]
 *
 * Options come before the file name, each in its own word.  With "->" the
 * children's output comes to this console (PvmOutputTid = our tid, and a
 * message tag of the job's own), and jobs.c prints it as it arrives.
 */
#include "console.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

struct spawn_opts {
	int count;
	int flags;	   /* PvmTaskHost, PvmTaskArch, PvmTaskDebug */
	const char *where; /* host or architecture name */
	int to_console;	   /* "->" */
};

/* An architecture name is written in capitals (LINUX64, SUN4); anything
 * else after a '-' names a host. */
static int looks_like_arch(const char *s)
{
	if (!isupper((unsigned char)*s))
		return 0;
	for (; *s; s++)
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
			if (opt[1]) {
				/* ->file and ->>file come with the full
				 * console (issue 3). */
				term_printf("spawn: output to a file is not "
					    "supported yet\n");
				return -1;
			}
			o->to_console = 1;
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
		} else if (opt[0]) {
			o->flags &= ~(PvmTaskHost | PvmTaskArch);
			o->flags |=
			    looks_like_arch(opt) ? PvmTaskArch : PvmTaskHost;
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

int cmd_spawn(int argc, char **argv)
{
	/* Like the reference console, children are not told the console is
	 * their parent (pvm_parent() gives PvmParentNotSet): it is not a
	 * program that could answer their messages. */
	struct spawn_opts o = {.count = 1, .flags = PvmNoSpawnParent};
	int file = parse_opts(argc, argv, &o);
	if (file < 0)
		return -1;

	int job = 0, tag = 0;
	if (o.to_console) {
		job = jobs_create(&tag);
		if (job < 0) {
			term_printf("spawn: out of memory\n");
			return -1;
		}
		term_printf("[%d]\n", job);
	}
	/* Children of this spawn send their output to us (tagged with the
	 * job's tag) or, without "->", to the pvmd's log. */
	pvm_setopt(PvmOutputTid, o.to_console ? cons.mytid : 0);
	pvm_setopt(PvmOutputCode, o.to_console ? tag : 0);

	int n = o.count > 0 ? o.count : 1;
	int *tids = calloc((size_t)n, sizeof(int));
	if (!tids) {
		term_printf("spawn: out of memory\n");
		if (job)
			jobs_add_tasks(job, NULL, 0);
		return -1;
	}
	/* argv after the file name is the children's argument vector. */
	char **args = file + 1 < argc ? &argv[file + 1] : NULL;
	int cc = pvm_spawn(argv[file], args, o.flags, (char *)o.where, o.count,
			   tids);

	pvm_setopt(PvmOutputTid, 0);
	pvm_setopt(PvmOutputCode, 0);
	if (cc < 0) {
		/* The library has said why (PvmAutoErr). */
		if (job)
			jobs_add_tasks(job, NULL, 0);
		free(tids);
		return -1;
	}
	term_printf("%d successful\n", cc);
	for (int i = 0; i < o.count; i++) {
		if (tids[i] >= 0)
			term_printf("t%x\n", (unsigned)tids[i]);
		else
			term_printf("%s\n", cons_errstr(tids[i]));
	}
	if (job) {
		/* Only the tasks that started produce output. */
		int k = 0;
		for (int i = 0; i < o.count; i++)
			if (tids[i] >= 0)
				tids[k++] = tids[i];
		jobs_add_tasks(job, tids, k);
	}
	free(tids);
	return 0;
}
