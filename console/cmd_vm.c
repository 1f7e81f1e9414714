/*
 * cmd_vm.c - console commands that look at or act on the virtual machine
 * as a whole: conf, ps, id, version, echo, kill, halt, quit.
 *
 * Column layouts follow the reference console's, so scripts that read its
 * output read ours.
 */
#include "console.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pvm3.h"

int cmd_conf(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	int nhost, narch;
	struct pvmhostinfo *hosts;

	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return -1;
	term_printf("%d host%s, %d data format%s\n", nhost,
		    nhost == 1 ? "" : "s", narch, narch == 1 ? "" : "s");
	term_printf("%24s %8s %8s %7s %10s\n", "HOST", "DTID", "ARCH", "SPEED",
		    "DSIG");
	for (int i = 0; i < nhost; i++)
		term_printf("%24s %8x %8s %7d 0x%08x\n", hosts[i].hi_name,
			    (unsigned)hosts[i].hi_tid, hosts[i].hi_arch,
			    hosts[i].hi_speed, (unsigned)hosts[i].hi_dsig);
	return 0;
}

/* Task status bits as pvm_tasks() reports them, with the letter ps shows;
 * printed highest bit first ("6/c,f"). */
static const struct {
	int bit;
	const char *name;
} task_flags[] = {
    {0x100, "T"}, {0x80, "R"}, {0x40, "H"}, {0x20, "s"},
    {0x10, "o"},  {0x8, "a"},  {0x4, "c"},  {0x2, "f"},
};

static void format_flags(int flag, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%x/", (unsigned)flag);
	const char *sep = "";
	for (size_t i = 0; i < sizeof task_flags / sizeof task_flags[0]; i++) {
		if (!(flag & task_flags[i].bit) || n < 0 || (size_t)n >= size)
			continue;
		n += snprintf(buf + n, size - n, "%s%s", sep,
			      task_flags[i].name);
		sep = ",";
	}
}

static const char *host_name(int dtid, struct pvmhostinfo *hosts, int nhost,
			     char *buf, size_t size)
{
	for (int i = 0; i < nhost; i++)
		if (hosts[i].hi_tid == dtid)
			return hosts[i].hi_name;
	snprintf(buf, size, "%x", (unsigned)dtid);
	return buf;
}

int cmd_ps(int argc, char **argv)
{
	int all_hosts = 0, show_all = 0, long_form = 0;

	/* Options come in one word, "-alx"; a word not starting with '-'
	 * is ignored, as the reference does. */
	if (argc > 2) {
		term_printf("ps: wrong #args\n");
		return -1;
	}
	if (argc == 2 && argv[1][0] == '-') {
		for (const char *p = argv[1] + 1; *p; p++) {
			switch (*p) {
			case 'a':
				all_hosts = 1;
				break;
			case 'x':
				show_all = 1;
				break;
			case 'l':
				long_form = 1;
				break;
			default:
				term_printf("unknown flag -%c\n", *p);
				break;
			}
		}
	}

	int nhost, narch, ntask;
	struct pvmhostinfo *hosts;
	struct pvmtaskinfo *tasks;
	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return -1;
	int where = all_hosts ? 0 : pvm_tidtohost(cons.mytid);
	if (where < 0 || pvm_tasks(where, &ntask, &tasks) < 0)
		return -1;

	if (long_form)
		term_printf("%24s %8s %8s %6s %9s %s\n", "HOST", "TID", "PTID",
			    "PID", "FLAG 0x", "COMMAND");
	else
		term_printf("%24s %8s %9s %s\n", "HOST", "TID", "FLAG 0x",
			    "COMMAND");
	for (int i = 0; i < ntask; i++) {
		struct pvmtaskinfo *t = &tasks[i];
		int me = t->ti_tid == cons.mytid;
		if (me && !show_all)
			continue;
		char hbuf[16], tidbuf[16], ptidbuf[16], flags[64];
		const char *host =
		    host_name(t->ti_host, hosts, nhost, hbuf, sizeof hbuf);
		if (me)
			snprintf(tidbuf, sizeof tidbuf, "(cons)");
		else
			snprintf(tidbuf, sizeof tidbuf, "%x",
				 (unsigned)t->ti_tid);
		format_flags(t->ti_flag, flags, sizeof flags);
		const char *aout =
		    t->ti_a_out && t->ti_a_out[0] ? t->ti_a_out : "-";
		if (long_form) {
			if (t->ti_ptid)
				snprintf(ptidbuf, sizeof ptidbuf, "%x",
					 (unsigned)t->ti_ptid);
			else
				snprintf(ptidbuf, sizeof ptidbuf, "-");
			term_printf("%24s %8s %8s %6d %9s %-12s\n", host,
				    tidbuf, ptidbuf, t->ti_pid, flags, aout);
		} else {
			term_printf("%24s %8s %9s %-12s\n", host, tidbuf, flags,
				    aout);
		}
	}
	return 0;
}

int cmd_id(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	term_printf("t%x\n", (unsigned)cons.mytid);
	return 0;
}

int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	term_printf("%s\n", pvm_version());
	return 0;
}

int cmd_echo(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		term_printf("%s%s", i > 1 ? " " : "", argv[i]);
	term_printf("\n");
	return 0;
}

int cmd_kill(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		/* "-c" (kill the children of a task) comes with the full
		 * console; every other flag is unknown. */
		term_printf("unknown flag %s\n", argv[i]);
		return -1;
	}
	if (i == argc) {
		term_printf("incorrect arg count\n");
		return -1;
	}
	for (; i < argc; i++) {
		int tid = cons_parse_tid(argv[i]);
		if (tid == cons.mytid && tid > 0) {
			term_printf("t%x: that's me.\n", (unsigned)tid);
			continue;
		}
		/* The library reports a failure itself (PvmAutoErr). */
		pvm_kill(tid);
	}
	return 0;
}

/* The pvmd ends every task with SIGTERM when it halts, this console
 * included: that is our cue to leave, quietly and with status 0 (the
 * reference console dies of the signal, or hangs on piped input). */
static void halted(int sig)
{
	(void)sig;
	_exit(0);
}

int cmd_halt(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fflush(stdout);
	signal(SIGTERM, halted);
	int cc = pvm_halt();
	/* Still here: the pvmd let us go first. */
	cons.quitting = 1;
	cons.detached = 1;
	cons.exit_code = cc < 0 ? 1 : 0;
	return cc < 0 ? -1 : 0;
}

int cmd_quit(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	term_printf("\nConsole: exit handler called\npvmd still running.\n");
	cons.quitting = 1;
	cons.exit_code = 0;
	return 0;
}
