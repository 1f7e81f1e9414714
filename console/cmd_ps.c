/*
 * cmd_ps.c - the ps command, and the task lines jobs -l shares with it.
 *
 *   ps [ -a | -hHOSTTID | -nHOSTNAME ] [ -l ] [ -x ]
 *
 * As in the reference console the options come in ONE word ("ps -alx");
 * -h and -n take the rest of that word.  Without -x the console itself
 * is not listed.
 */
#include "console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pvm3.h"

/* Task status bits as pvm_tasks() reports them, with the letter ps shows;
 * printed highest bit first ("6/c,f"). */
static const struct {
	int bit;
	const char *name;
} task_flags[] = {
	{0x100, "T"}, {0x80, "R"}, {0x40, "H"}, {0x20, "s"},
	{0x10, "o"},  {0x8, "a"},  {0x4, "c"},	{0x2, "f"},
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

static const char *host_name(int dtid, const struct pvmhostinfo *hosts,
			     int nhost, char *buf, size_t size)
{
	for (int i = 0; i < nhost; i++)
		if (hosts[i].hi_tid == dtid)
			return hosts[i].hi_name;
	snprintf(buf, size, "%x", (unsigned)dtid);
	return buf;
}

void ps_print_header(int long_form)
{
	if (long_form)
		term_printf("%24s %8s %8s %6s %9s %s\n", "HOST", "TID", "PTID",
			    "PID", "FLAG 0x", "COMMAND");
	else
		term_printf("%24s %8s %9s %s\n", "HOST", "TID", "FLAG 0x",
			    "COMMAND");
}

void ps_print_task(const struct pvmtaskinfo *t, int long_form,
		   const struct pvmhostinfo *hosts, int nhost)
{
	char hbuf[16], tidbuf[16], ptidbuf[16], flags[64];
	const char *host =
		host_name(t->ti_host, hosts, nhost, hbuf, sizeof hbuf);

	if (t->ti_tid == cons.mytid)
		snprintf(tidbuf, sizeof tidbuf, "(cons)");
	else
		snprintf(tidbuf, sizeof tidbuf, "%x", (unsigned)t->ti_tid);
	format_flags(t->ti_flag, flags, sizeof flags);
	const char *aout = t->ti_a_out && t->ti_a_out[0] ? t->ti_a_out : "-";
	if (long_form) {
		if (t->ti_ptid)
			snprintf(ptidbuf, sizeof ptidbuf, "%x",
				 (unsigned)t->ti_ptid);
		else
			snprintf(ptidbuf, sizeof ptidbuf, "-");
		term_printf("%24s %8s %8s %6d %9s %-12s\n", host, tidbuf,
			    ptidbuf, t->ti_pid, flags, aout);
	} else {
		term_printf("%24s %8s %9s %-12s\n", host, tidbuf, flags, aout);
	}
}

/* The tid of the host called `name`, or 0 if there is none. */
static int host_by_name(const char *name, const struct pvmhostinfo *hosts,
			int nhost)
{
	for (int i = 0; i < nhost; i++)
		if (strcmp(hosts[i].hi_name, name) == 0)
			return hosts[i].hi_tid;
	return 0;
}

int cmd_ps(int argc, char **argv)
{
	int show_all = 0, long_form = 0;
	int nhost, narch, ntask;
	struct pvmhostinfo *hosts;
	struct pvmtaskinfo *tasks;

	if (pvm_config(&nhost, &narch, &hosts) < 0)
		return -1;
	int where = pvm_tidtohost(cons.mytid);
	if (where < 0)
		return -1;

	/* A word not starting with '-' is ignored, as by the reference. */
	if (argc == 2 && argv[1][0] == '-') {
		for (const char *p = argv[1] + 1; *p; p++) {
			switch (*p) {
			case 'a':
				where = 0;
				break;
			case 'x':
				show_all = 1;
				break;
			case 'l':
				long_form = 1;
				break;
			case 'h':
				/* The rest of the word, in hex; none or
				 * garbage is 0, every host. */
				where = (int)strtoul(p + 1, NULL, 16);
				p += strlen(p) - 1;
				break;
			case 'n': {
				int h = host_by_name(p + 1, hosts, nhost);
				if (h)
					where = h;
				else
					term_printf("unknown host %s\n", p + 1);
				p += strlen(p) - 1;
				break;
			}
			default:
				term_printf("unknown flag -%c\n", *p);
				break;
			}
		}
	}

	if (cons.json)
		return json_ps(where, show_all);
	if (pvm_tasks(where, &ntask, &tasks) < 0)
		return -1; /* the library has said why */
	ps_print_header(long_form);
	for (int i = 0; i < ntask; i++) {
		if (tasks[i].ti_tid == cons.mytid && !show_all)
			continue;
		ps_print_task(&tasks[i], long_form, hosts, nhost);
	}
	return 0;
}
