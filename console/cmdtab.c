/*
 * cmdtab.c - the console's command table, word splitting, dispatch, help.
 *
 * Every command is one row of `commands`: adding one is a handler plus a
 * row.  Names, summaries, help texts and the messages for bad input are
 * the reference console's ("foo: not found", "kill: wrong #args").
 */
#include "console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/taskend.h"
#include "pvm3.h"

static const struct cmd commands[] = {
	{"add", 1, -1, cmd_add, "Add hosts to virtual machine",
	 "Syntax:  add hostname ...\n"
	 "  or     add 'hostname <option>=<value>...' ...\n"
	 "(See man page for 'pvmd3' for valid host (file) options.)\n"
	 "Ctrl-C while it waits cancels the hosts still starting.\n"},
	{"alias", 0, -1, cmd_alias, "Define/list command aliases",
	 "Syntax:  alias [name command args ...]\n"},
	{"conf", 0, 0, cmd_conf, "List virtual machine configuration",
	 "Syntax:  conf\n"
	 "Output fields:\n"
	 "  HOST    host name\n"
	 "  DTID    tid base of pvmd\n"
	 "  ARCH    host architecture\n"
	 "  SPEED   host relative speed\n"
	 "  DSIG    data signature (byte order and word sizes)\n"},
	{"delete", 1, -1, cmd_delete, "Delete hosts from virtual machine",
	 "Syntax:  delete hostname ...\n"},
	{"echo", 0, -1, cmd_echo, "Echo arguments",
	 "Syntax:  echo [ arg ... ]\n"},
	{"export", 0, -1, cmd_export,
	 "Add environment variables to spawn export list",
	 "Syntax:  export [ varname ... ]\n"},
	{"getopt", 0, 1, cmd_getopt, "Display PVM options for the console task",
	 "Syntax:  getopt [ what ]\n"},
	{"halt", 0, 0, cmd_halt, "Stop pvmds", "Syntax:  halt\n"},
	{"help", 0, 1, cmd_help, "Print helpful information about a command",
	 "Syntax:  help [ command ]\n"},
	{"id", 0, 0, cmd_id, "Print console task id", "Syntax:  id\n"},
	{"jobs", 0, -1, cmd_jobs, "Display list of running jobs",
	 "Syntax:  jobs [ options ]\n"
	 "Options:  -l   give long listing\n"},
	{"kill", 1, -1, cmd_kill, "Terminate tasks",
	 "Syntax:  kill [ options ] tid ...\n"
	 "Options:  -c   kill children of tid\n"},
	{"mstat", 1, -1, cmd_mstat, "Show status of hosts",
	 "Syntax:  mstat name ...\n"},
	{"names", 0, 1, cmd_names, "List message mailbox names",
	 "Syntax:  names [ pattern ]\n"},
	{"ps", 0, 1, cmd_ps, "List tasks",
	 "Syntax:  ps [ -axh ]\n"
	 "Options:  -a       all hosts (default is local)\n"
	 "          -hhost   specific host tid\n"
	 "          -nhost   specific host name\n"
	 "          -l       long (show process id)\n"
	 "          -x       show all tasks (e.g. console and nulls)\n"
	 "Output fields:\n"
	 "  HOST    host name\n"
	 "  TID     task id\n"
	 "  PTID    parent task id\n"
	 "  PID     task process id\n"
	 "  FLAG    status\n"
	 "  COMMAND executable name\n"
	 "FLAG values:\n"
	 "  f   task process is child of pvmd\n"
	 "  c   task connected to pvmd\n"
	 "  a   task waiting authorization\n"
	 "  o   task connection being closed\n"
	 "  s   task needs too many shared pages, is deadlocked\n"
	 "  H   hoster task\n"
	 "  R   resource manager task\n"
	 "  T   tasker task\n"},
	{"pstat", 1, -1, cmd_pstat, "Show status of tasks",
	 "Syntax:  pstat tid ...\n"},
	{"put", 3, 3, cmd_put, "Add entry to message mailbox",
	 "Syntax:  put name flags\n"},
	{"quit", 0, 0, cmd_quit, "Exit console", "Syntax:  quit\n"},
	{"reset", 0, 3, cmd_reset, "Kill all tasks, delete leftover mboxes",
	 "Syntax:  reset\n"
	 "\n"
	 "reset info    Delete orphaned persistent mbox entries\n"
	 "Syntax:  reset info [ class [ index ] ]\n"},
	{"setenv", 0, -1, cmd_setenv, "Display or set environment variables",
	 "Syntax:  setenv [ name [ value ] ]\n"},
	{"setopt", 2, 2, cmd_setopt,
	 "Set PVM options - for the console task *only*!",
	 "Syntax:  setopt what value\n"},
	{"sig", 2, -1, cmd_sig, "Send signal to task",
	 "Syntax:  sig signum task ...\n"},
	{"spawn", 1, -1, cmd_spawn, "Spawn task",
	 "Syntax:  spawn [ options ] file [ arg ... ]\n"
	 "Options:  -(count)         number of tasks, default is 1\n"
	 "          -(host)          spawn on host, default is any\n"
	 "          -(host):(wd)     spawn on host, in directory 'wd'\n"
	 "          --host=(IP)      spawn on host with given IP addr\n"
	 "          --host=(IP):(wd) spawn on IP, in directory 'wd'\n"
	 "          -(ARCH)          spawn on hosts of ARCH\n"
	 "          -(ARCH):(wd)     spawn on hosts of ARCH, in 'wd'\n"
	 "          -:(wd)           spawn in working directory 'wd'\n"
	 "          -?               enable debugging\n"
	 "          ->               redirect job output to console\n"
	 "          ->(file)         redirect output of job to file\n"
	 "          ->>(file)        append output of job to file\n"
	 "          -@               trace job, output to terminal\n"
	 "          -@(file)         trace job, output to file\n"},
	{"trace", 0, -1, cmd_later, "Set/display trace event mask",
	 "Syntax:  trace\n"
	 "         trace [+] name ...\n"
	 "         trace - name ...\n"
	 "         trace [+] *\n"
	 "         trace - *\n"
	 "         trace xpvm (default mask for XPVM display)\n"
	 "         trace buf nbytes\n"
	 "         trace buf\n"
	 "         trace opt < full | time | count >\n"
	 "         trace opt\n"},
	{"unalias", 1, -1, cmd_unalias, "Undefine command alias",
	 "Syntax:  unalias name ...\n"},
	{"unexport", 0, -1, cmd_unexport,
	 "Remove environment variables from spawn export list",
	 "Syntax:  unexport [ varname ... ]\n"},
	{"version", 0, 0, cmd_version, "Show libpvm version",
	 "Syntax:  version\n"},
};

#define NCOMMANDS ((int)(sizeof commands / sizeof commands[0]))

const struct cmd *cmd_at(int i)
{
	return i >= 0 && i < NCOMMANDS ? &commands[i] : NULL;
}

const struct cmd *cmd_lookup(const char *name)
{
	for (int i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static void help_one(const struct cmd *c)
{
	term_printf("%-11s %s\n", c->name, c->summary);
	fputs(c->syntax, stdout);
}

int cmd_help(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "help") != 0) {
		/* Like the reference: an unknown topic prints nothing, and
		 * "help help" is "help". */
		const struct cmd *c = cmd_lookup(argv[1]);
		if (c)
			help_one(c);
		return 0;
	}
	help_one(cmd_lookup("help"));
	term_printf("Commands are:\n");
	for (int i = 0; i < NCOMMANDS; i++)
		term_printf("  %-11s %s\n", commands[i].name,
			    commands[i].summary);
	return 0;
}

/* Word splitting (blanks separate words; quotes group; a backslash quotes
 * the next character; '#' at the start of a word comments out the rest of
 * the line).  Returns a NULL-terminated vector whose strings live in
 * one block after it (free the vector only), or NULL when out of memory. */
static char **split_words(const char *line, int *argcp)
{
	size_t len = strlen(line);
	size_t nmax = len / 2 + 2; /* words are separated, so at most this */
	char **argv = malloc(nmax * sizeof(char *) + len + 1);
	if (!argv)
		return NULL;
	char *out = (char *)(argv + nmax);
	const char *p = line;
	int argc = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (!*p || *p == '#')
			break; /* a word starting with '#' begins a comment */
		argv[argc++] = out;
		char quote = 0;
		for (; *p; p++) {
			if (quote) {
				if (*p == quote)
					quote = 0;
				else
					*out++ = *p;
			} else if (*p == '\'' || *p == '"') {
				quote = *p;
			} else if (*p == '\\') {
				if (p[1])
					*out++ = *++p;
			} else if (*p == ' ' || *p == '\t' || *p == '\n' ||
				   *p == '\r') {
				break;
			} else {
				*out++ = *p;
			}
		}
		*out++ = '\0';
	}
	argv[argc] = NULL;
	*argcp = argc;
	return argv;
}

int cmd_execute(const char *line)
{
	int argc;
	char **argv = split_words(line, &argc);
	if (!argv) {
		term_printf("out of memory\n");
		return -1;
	}
	int rc = 0;
	if (argc > 0 && alias_expand(&argc, &argv) < 0) {
		rc = -1;
	} else if (argc > 0) {
		const struct cmd *c = cmd_lookup(argv[0]);
		int nargs = argc - 1;
		if (!c) {
			term_printf("%s: not found\n", argv[0]);
			rc = -1;
		} else if (nargs < c->minargs ||
			   (c->maxargs >= 0 && nargs > c->maxargs)) {
			term_printf("%s: wrong #args\n", argv[0]);
			rc = -1;
		} else {
			rc = c->fn(argc, argv);
		}
	}
	free(argv);
	fflush(stdout);
	return rc;
}

const char *cons_errstr(int code)
{
	return taskend_errstr(code);
}

int cons_parse_tid(const char *s)
{
	if (*s == 't')
		s++;
	char *end;
	unsigned long v = strtoul(s, &end, 16);
	if (end == s || *end || v > 0x7fffffffUL)
		return 0;
	return (int)v;
}
