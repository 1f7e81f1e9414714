/*
 * cmd_task.c - console commands acting on tasks: kill, sig, pstat, reset.
 *
 * Task ids are written in hex, with or without a leading 't'.  Errors of
 * the library calls are reported by the library (PvmAutoErr), as in the
 * reference console, unless a command prints a status of its own.
 */
#include "console.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "pvm3.h"

/* kill -c: the direct children of `parent`, as the reference kills them
 * (the task itself lives on). */
static void kill_children(int parent)
{
	int ntask;
	struct pvmtaskinfo *tasks;

	if (pvm_tasks(0, &ntask, &tasks) < 0)
		return;
	/* pvm_tasks' array is the library's: copy the tids first. */
	int *tids = malloc(((size_t)ntask + 1) * sizeof *tids);
	if (!tids)
		return;
	int n = 0;
	for (int i = 0; i < ntask; i++)
		if (tasks[i].ti_ptid == parent && tasks[i].ti_tid != cons.mytid)
			tids[n++] = tasks[i].ti_tid;
	for (int i = 0; i < n; i++)
		pvm_kill(tids[i]);
	free(tids);
}

int cmd_kill(int argc, char **argv)
{
	int children = 0, i = 1;

	/* Flags first; an unknown one is reported and passed over. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		for (const char *p = argv[i] + 1; *p; p++) {
			if (*p == 'c')
				children = 1;
			else
				term_printf("unknown flag -%c\n", *p);
		}
	}
	if (i == argc) {
		term_printf("incorrect arg count\n");
		return -1;
	}
	for (; i < argc; i++) {
		int tid = cons_parse_tid(argv[i]);
		if (children) {
			kill_children(tid);
		} else if (tid == cons.mytid && tid > 0) {
			term_printf("t%x: that's me.\n", (unsigned)tid);
		} else {
			pvm_kill(tid);
		}
	}
	return 0;
}

/* A signal by number, or by name with or without "SIG" in any case
 * ("SIGUSR1", "usr1"); -1 if it is neither. */
static int parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int num;
	} names[] = {
		{"HUP", SIGHUP},       {"INT", SIGINT},	  {"QUIT", SIGQUIT},
		{"ILL", SIGILL},       {"TRAP", SIGTRAP}, {"ABRT", SIGABRT},
		{"BUS", SIGBUS},       {"FPE", SIGFPE},	  {"KILL", SIGKILL},
		{"USR1", SIGUSR1},     {"SEGV", SIGSEGV}, {"USR2", SIGUSR2},
		{"PIPE", SIGPIPE},     {"ALRM", SIGALRM}, {"TERM", SIGTERM},
		{"CHLD", SIGCHLD},     {"CONT", SIGCONT}, {"STOP", SIGSTOP},
		{"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},
		{"URG", SIGURG},       {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ},
		{"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH},
		{"IO", SIGIO},	       {"SYS", SIGSYS},
	};
	if (isdigit((unsigned char)*s)) {
		char *end;
		long n = strtol(s, &end, 10);
		return *end || n > 1000 ? -1 : (int)n;
	}
	if (strncasecmp(s, "SIG", 3) == 0)
		s += 3;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcasecmp(s, names[i].name) == 0)
			return names[i].num;
	return -1;
}

int cmd_sig(int argc, char **argv)
{
	int sig = parse_signal(argv[1]);
	if (sig < 0) {
		term_printf("sig: unknown signal %s\n", argv[1]);
		return -1;
	}
	for (int i = 2; i < argc; i++)
		pvm_sendsig(cons_parse_tid(argv[i]), sig);
	return 0;
}

int cmd_pstat(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int tid = cons_parse_tid(argv[i]);
		int cc = pvm_pstat(tid);
		term_printf("t%8x  %s\n", (unsigned)tid,
			    cc == PvmOk ? "run" : cons_errstr(cc));
	}
	return 0;
}

static int in_list(int tid, const int *list, int n)
{
	for (int i = 0; i < n; i++)
		if (list[i] == tid)
			return 1;
	return 0;
}

/* reset: kill every task but this console and the tasks that asked to be
 * spared (PvmNoReset: other consoles, servers). */
int cmd_reset(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "info") == 0) {
			/* reset info [class [index]]: orphaned entries only */
			mbox_reset_orphans(argc > 2 ? argv[2] : NULL,
					   argc > 3 ? atoi(argv[3]) : -1);
			return 0;
		} else {
			term_printf("\"%s\" arg to reset not valid\n", argv[1]);
		}
		return -1;
	}
	int *spare = NULL, nspare = 0;
	int cc = CONS_QUIET(pvm_getnoresets(&spare, &nspare));
	if (cc < 0) {
		/* Killing blind could kill other consoles: refuse. */
		term_printf("reset: cannot learn which tasks asked not to be "
			    "reset (pvm_getnoresets: %s); no task killed\n",
			    cons_errstr(cc));
		return -1;
	}
	int *keep = malloc(((size_t)nspare + 1) * sizeof *keep);
	if (!keep) {
		term_printf("reset: out of memory\n");
		return -1;
	}
	memcpy(keep, spare, (size_t)nspare * sizeof *keep);
	keep[nspare] = cons.mytid;

	int ntask;
	struct pvmtaskinfo *tasks;
	if (pvm_tasks(0, &ntask, &tasks) < 0) {
		free(keep);
		return -1;
	}
	int *victims = malloc(((size_t)ntask + 1) * sizeof *victims);
	if (!victims) {
		free(keep);
		term_printf("reset: out of memory\n");
		return -1;
	}
	int n = 0;
	for (int i = 0; i < ntask; i++)
		if (!in_list(tasks[i].ti_tid, keep, nspare + 1))
			victims[n++] = tasks[i].ti_tid;
	for (int i = 0; i < n; i++)
		CONS_QUIET(pvm_kill(victims[i])); /* gone meanwhile: fine */
	/* then the leftover mailbox entries: the killed tasks' own vanish as
	 * they exit, their persistent ones are orphaned; wait (a little)
	 * until they are gone */
	for (int tries = 0; tries < 40; tries++) {
		int alive = 0;
		for (int i = 0; i < n && !alive; i++)
			alive = CONS_QUIET(pvm_pstat(victims[i])) == PvmOk;
		if (!alive)
			break;
		usleep(50000);
	}
	mbox_reset_orphans(NULL, -1);
	free(victims);
	free(keep);
	return 0;
}
