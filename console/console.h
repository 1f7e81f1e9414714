/*
 * console.h - internal interfaces of the PVM console (pvm).
 *
 * The console is a plain PVM task: it talks to the virtual machine only
 * through the public API of pvm3.h.  Its parts:
 *   main.c    start-up, the event loop (stdin and PVM messages at once), exit
 *   term.c    printing that does not garble a half-typed readline line
 *   cmdtab.c  the command table, word splitting, dispatch, help
 *   alias.c   alias and unalias, and alias expansion
 *   cmd_vm.c  commands about the machine: conf, mstat, add, delete, id,
 *             version, echo, halt, quit, and the commands of later issues
 *   cmd_ps.c  ps (and the task lines jobs -l prints)
 *   cmd_task.c  commands acting on tasks: kill, sig, pstat, reset
 *   cmd_opt.c   getopt and setopt
 *   cmd_env.c   setenv, export, unexport
 *   spawn.c   the spawn command
 *   jobs.c    jobs: output of children spawned with "->", shown live or
 *             written to a file; the jobs command
 *   rc.c      start-up: arguments, hostfile, .pvmrc files
 *   hostwatch.c  "Console: N new hosts added" when others add hosts
 *   addwait.c  add's wait: progress on stderr, Ctrl-C cancels
 *   script.c  --command, --script, --json: the console in scripts
 *   json.c    the --json forms of conf, ps, mstat, jobs and version
 *   complete.c  tab completion of commands and of programs for spawn
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdarg.h>
#include <stdio.h>

#include "pvm3.h"

/* Console-wide state. */
struct console {
	int mytid;	 /* our task id */
	int interactive; /* stdin is a terminal: readline, history */
	int quitting;	 /* set by quit/halt: the loop ends */
	int exit_code;	 /* status the process exits with */
	int detached;	 /* halted, or the pvmd went away: no pvm_exit() */
	int started;	 /* this console started the pvmd */
	int script;	 /* --command/--script: no banner, prompt or echo */
	int json;	 /* --json: conf, ps, mstat, jobs, version in JSON */
	int failed;	 /* a command failed: exit status 1 at the end */
};
extern struct console cons;

/* ---- commands (cmdtab.c) ---- */

/* A command handler gets the words of the line, argv[0] being the command
 * name.  It returns 0, or -1 after it has printed why it failed. */
typedef int (*cmd_fn)(int argc, char **argv);

struct cmd {
	const char *name;
	int minargs; /* words after the name, at least */
	int maxargs; /* at most; -1 = no limit */
	cmd_fn fn;
	const char *summary; /* one line, for the command list */
	const char *syntax;  /* "help name" text after the summary line */
};

/* Splits `line` into words (blanks separate; '...' and "..." group; a
 * backslash takes the next character literally; a word starting with '#'
 * starts a comment) and runs the command.
 * Returns what the handler returned, 0 for an empty line. */
int cmd_execute(const char *line);
const struct cmd *cmd_lookup(const char *name);
/* Iteration for help and completion: the i-th command, NULL at the end. */
const struct cmd *cmd_at(int i);

/* Handlers, by file: cmdtab.c, alias.c, cmd_vm.c, cmd_ps.c, cmd_task.c,
 * cmd_opt.c, cmd_env.c, spawn.c, jobs.c. */
int cmd_help(int argc, char **argv);
int cmd_alias(int argc, char **argv);
int cmd_unalias(int argc, char **argv);
int cmd_conf(int argc, char **argv);
int cmd_mstat(int argc, char **argv);
int cmd_add(int argc, char **argv);
int cmd_delete(int argc, char **argv);
int cmd_id(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_echo(int argc, char **argv);
int cmd_halt(int argc, char **argv);
int cmd_quit(int argc, char **argv);
int cmd_later(int argc, char **argv);
int cmd_names(int argc, char **argv);
int cmd_put(int argc, char **argv);
/* Deletes orphaned persistent mailbox entries (cmd_mbox.c). */
int mbox_reset_orphans(const char *name, int index);
int cmd_ps(int argc, char **argv);
int cmd_kill(int argc, char **argv);
int cmd_sig(int argc, char **argv);
int cmd_pstat(int argc, char **argv);
int cmd_reset(int argc, char **argv);
int cmd_getopt(int argc, char **argv);
int cmd_setopt(int argc, char **argv);
int cmd_setenv(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_unexport(int argc, char **argv);
int cmd_spawn(int argc, char **argv);
int cmd_jobs(int argc, char **argv);

/* ---- aliases (alias.c) ---- */

/* Replaces argv (from split_words: one block, freed with free()) by its
 * alias expansion.  Returns 0, or -1 after printing why not ("alias
 * loop"); *argvp is then still the caller's to free. */
int alias_expand(int *argcp, char ***argvp);
/* Iteration for completion: the i-th alias name, NULL at the end. */
const char *alias_name_at(int i);
/* Forgets every alias (the console as it started; cmd_fuzz.c between
 * inputs). */
void alias_clear(void);

/* ---- ps lines (cmd_ps.c) ---- */

/* The header and one line of "ps" (short form), for jobs -l too. */
void ps_print_header(int long_form);
void ps_print_task(const struct pvmtaskinfo *t, int long_form,
		   const struct pvmhostinfo *hosts, int nhost);

/* Text of a PVM error code ("No such file"). */
const char *cons_errstr(int code);
/* Parses a task id written in hex, with or without a leading 't'.
 * Anything else gives 0, which PVM calls then reject. */
int cons_parse_tid(const char *s);
/* Evaluates a library call with the library's own error messages
 * (PvmAutoErr) off, for calls whose errors the console reports in its own
 * words; yields the call's result. */
#define CONS_QUIET(expr)                                                       \
	({                                                                     \
		int autoerr_ = pvm_getopt(PvmAutoErr);                         \
		pvm_setopt(PvmAutoErr, 0);                                     \
		__typeof__(expr) r_ = (expr);                                  \
		pvm_setopt(PvmAutoErr, autoerr_);                              \
		r_;                                                            \
	})

/* ---- jobs and children's output (jobs.c) ---- */

/* Creates a job for a spawn with "->"; returns its number (1, 2...) and
 * the message tag its output will carry. */
int jobs_create(int *tag);
/* Records the tasks a job's spawn started; a job with none is dropped. */
void jobs_add_tasks(int job, const int *tids, int n);
/* Makes a job write its output to a file (opened by the caller) instead
 * of the console. */
void jobs_set_file(int job, FILE *f);
/* Handles every PVM message that has arrived; never blocks. */
void jobs_poll(void);
/* Whether a job's output has not all come yet. */
int jobs_running(void);
/* The jobs in JSON (json.c's printers): running, then finished. */
void jobs_json(void);
/* Forgets every job, running or finished (closing their files), and
 * numbers jobs from 1 again. */
void jobs_clear(void);

/* ---- hosts added by others (hostwatch.c) ---- */

/* Asks for PvmHostAdd notifies (once enrolled). */
void hostwatch_start(void);
/* Remembers a host our add command added: not announced again. */
void hostwatch_own(int tid);
/* Handles message bufid if it is a PvmHostAdd notify (returns 1). */
int hostwatch_message(int bufid, int tag);
/* Forgets the hosts hostwatch_own remembered. */
void hostwatch_clear(void);

/* ---- add's wait (addwait.c) ---- */

/* pvm_addhosts showing on stderr what it waits for, cancelled by
 * SIGINT (Ctrl-C) meanwhile: *cancelled is then 1 and the hosts still
 * starting failed with the reason "cancelled". */
int addwait_addhosts(char **names, int n, int *infos, int *cancelled);

/* ---- start-up (rc.c) ---- */

/* Starts or attaches to the pvmd with the console's arguments (pvmd
 * options and a hostfile), sets cons.mytid; exits on failure. */
void rc_attach(int argc, char **argv);
/* Executes $PVM_ROOT/.pvmrc and ~/.pvmrc, echoing each line. */
void rc_run(void);

/* ---- scripts (script.c) ---- */

/* Takes --command, --script and --json out of the arguments (the rest
 * are the pvmd's).  Returns 0, or an exit status after printing why. */
int script_parse_args(int *argc, char **argv);
/* Runs the commands given; sets cons.failed, cons.quitting. */
int script_run(void);

/* ---- JSON output (json.c) ---- */

/* A JSON string (quotes, escapes) on stdout. */
void json_str(const char *s);
int json_conf(void);
int json_ps(int where, int show_all);
int json_mstat(int argc, char **argv);
int json_version(void);

/* ---- tab completion (complete.c) ---- */

void complete_init(void);

/* ---- terminal output (term.c) ---- */

/* printf to stdout.  Between term_async_begin() and term_async_end()
 * the readline line being edited is hidden and then redrawn. */
void term_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void term_async_begin(void);
/* Set by main.c while readline's callback handler is installed and no
 * command runs, that is while the prompt and line are on the screen. */
extern int term_readline_active;
void term_async_end(void);

#endif /* CONSOLE_H */
