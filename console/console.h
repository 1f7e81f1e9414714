/*
 * console.h - internal interfaces of the PVM console (pvm).
 *
 * The console is a plain PVM task: it talks to the virtual machine only
 * through the public API of pvm3.h.  Its parts:
 *   main.c    start-up, the event loop (stdin and PVM messages at once), exit
 *   term.c    printing that does not garble a half-typed readline line
 *   cmdtab.c  the command table, word splitting, dispatch, help
 *   cmd_vm.c  commands about the machine: conf, ps, id, version, kill...
 *   spawn.c   the spawn command
 *   jobs.c    jobs: output of children spawned with "->", shown live
 */
#ifndef CONSOLE_H
#define CONSOLE_H

#include <stdarg.h>

/* Console-wide state. */
struct console {
	int mytid;	 /* our task id */
	int interactive; /* stdin is a terminal: readline, history */
	int quitting;	 /* set by quit/halt: the loop ends */
	int exit_code;	 /* status the process exits with */
	int detached;	 /* halted, or the pvmd went away: no pvm_exit() */
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

/* Handlers, by file. */
int cmd_help(int argc, char **argv);
int cmd_conf(int argc, char **argv);
int cmd_ps(int argc, char **argv);
int cmd_id(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_echo(int argc, char **argv);
int cmd_kill(int argc, char **argv);
int cmd_halt(int argc, char **argv);
int cmd_quit(int argc, char **argv);
int cmd_spawn(int argc, char **argv);

/* Text of a PVM error code ("No such file"). */
const char *cons_errstr(int code);
/* Parses a task id written in hex, with or without a leading 't'.
 * Anything else gives 0, which PVM calls then reject. */
int cons_parse_tid(const char *s);

/* ---- jobs and children's output (jobs.c) ---- */

/* Creates a job for a spawn with "->"; returns its number (1, 2...) and
 * the message tag its output will carry. */
int jobs_create(int *tag);
/* Records the tasks a job's spawn started; a job with none is dropped. */
void jobs_add_tasks(int job, const int *tids, int n);
/* Handles every PVM message that has arrived; never blocks. */
void jobs_poll(void);

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
