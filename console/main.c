/*
 * main.c - the PVM console: start-up, the event loop, exit.
 *
 * The console starts a pvmd when none runs (else attaches to it), runs
 * the .pvmrc files (both in rc.c), then reads commands.  On a terminal it
 * uses readline (editing, completion, history kept in ~/.pvm_history);
 * otherwise it reads plain lines, printing the prompt
 * and each command as the reference console does, so a script's output
 * reads like a session.  End of input means quit.
 *
 * Children's output must show while the console waits for a command, so
 * the loop waits on standard input and on the library's sockets together
 * (pvm_getfds), with a short timer as a safety net for messages the
 * library has already read into its queue.
 */
#include "config.h"

#include "console.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "common/version.h"
#include "pvm3.h"

#define PROMPT	     "pvm> "
#define HISTORY_FILE ".pvm_history"
#define HISTORY_KEEP 1000

struct console cons;

static char *history_path;
static volatile sig_atomic_t got_sigint;

/* ---- waiting for input and messages at once ---- */

/* Waits until stdin is readable (returns 1), or until PVM messages may
 * have arrived or the safety timer ran out (returns 0). */
static int wait_input(void)
{
	fd_set rfds;
	int maxfd = 0;
	int *fds = NULL;
	int nfds = pvm_getfds(&fds);
	struct timeval tv;

	FD_ZERO(&rfds);
	FD_SET(0, &rfds);
	for (int i = 0; i < nfds; i++) {
		if (fds[i] < 0 || fds[i] >= FD_SETSIZE)
			continue;
		FD_SET(fds[i], &rfds);
		if (fds[i] > maxfd)
			maxfd = fds[i];
	}
	/* Without the library's fds, poll often; with them, the timer only
	 * catches messages already queued inside the library. */
	tv.tv_sec = 0;
	tv.tv_usec = nfds > 0 ? 250000 : 50000;
	int n = select(maxfd + 1, &rfds, NULL, NULL, &tv);
	if (n < 0)
		return 0; /* EINTR: let the caller look at signals */
	return FD_ISSET(0, &rfds) ? 1 : 0;
}

/* ---- piped input: plain lines ---- */

static void run_line(const char *line)
{
	if (cmd_execute(line) < 0)
		cons.failed = 1; /* exit status 1 at the end */
	jobs_poll();
}

static void loop_plain(void)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int eof = 0;

	fputs(PROMPT, stdout);
	fflush(stdout);
	while (!cons.quitting && !eof) {
		int ready = wait_input();
		jobs_poll();
		if (!ready || cons.quitting)
			continue;
		if (cap - len < 4096) {
			size_t ncap = cap ? 2 * cap : 8192;
			char *nb = realloc(buf, ncap);
			if (!nb) {
				fprintf(stderr, "pvm: out of memory\n");
				break;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(0, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			eof = 1;
			if (len == 0)
				break;
			buf[len++] = '\n'; /* a last line without newline */
		} else {
			len += (size_t)r;
		}
		/* Run every complete line; keep the rest for later. */
		size_t start = 0;
		char *nl;
		while (!cons.quitting &&
		       (nl = memchr(buf + start, '\n', len - start))) {
			*nl = '\0';
			/* Echo the command after the prompt, as a terminal
			 * would have shown it. */
			printf("%s\n", buf + start);
			fflush(stdout); /* before the library writes stderr */
			run_line(buf + start);
			start = (size_t)(nl - buf) + 1;
			if (!cons.quitting) {
				fputs(PROMPT, stdout);
				fflush(stdout);
			}
		}
		memmove(buf, buf + start, len - start);
		len -= start;
	}
	free(buf);
	if (!cons.quitting) {
		/* End of input is quit, and the reference says so. */
		printf("quit\n");
		cmd_execute("quit");
	}
}

/* ---- terminal: readline ---- */

static void on_line(char *line)
{
	term_readline_active = 0;
	if (!line) {
		printf("quit\n");
		cmd_execute("quit");
	} else {
		if (line[strspn(line, " \t")]) {
			add_history(line);
			if (history_path)
				append_history(1, history_path);
		}
		run_line(line);
		free(line);
	}
	if (cons.quitting)
		rl_callback_handler_remove();
	else
		term_readline_active = 1;
}

static void on_sigint(int sig)
{
	(void)sig;
	got_sigint = 1;
}

static void history_open(void)
{
	const char *home = getenv("HOME");
	if (!home || !*home) {
		struct passwd *pw = getpwuid(getuid());
		home = pw ? pw->pw_dir : NULL;
	}
	if (!home)
		return;
	size_t n = strlen(home) + sizeof(HISTORY_FILE) + 2;
	history_path = malloc(n);
	if (!history_path)
		return;
	snprintf(history_path, n, "%s/%s", home, HISTORY_FILE);
	using_history();
	stifle_history(HISTORY_KEEP);
	/* append_history() needs the file to exist. */
	if (read_history(history_path) == ENOENT)
		write_history(history_path);
}

static void loop_readline(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, NULL);
	rl_readline_name = "pvm";
	rl_catch_signals = 0;
	complete_init();
	/* Pasted lines should run one by one, as typed ones do (and EOF
	 * then leaves "quit" after the prompt, as in the reference). */
	rl_variable_bind("enable-bracketed-paste", "off");
	history_open();
	rl_callback_handler_install(PROMPT, on_line);
	term_readline_active = 1;
	while (!cons.quitting) {
		int ready = wait_input();
		if (got_sigint) {
			/* ^C drops the line being typed, as a shell does. */
			got_sigint = 0;
			printf("^C\n");
			rl_free_line_state();
			rl_callback_sigcleanup();
			rl_replace_line("", 0);
			rl_on_new_line();
			rl_redisplay();
		}
		jobs_poll();
		if (ready && !cons.quitting)
			rl_callback_read_char();
	}
	if (term_readline_active)
		rl_callback_handler_remove();
	term_readline_active = 0;
	if (history_path) {
		history_truncate_file(history_path, HISTORY_KEEP);
		free(history_path);
	}
}

/* --help and --version: answered before anything needs a pvmd.  The other
 * arguments are the pvmd's (rc.c), which has no long options. */
static void usage(void)
{
	printf("usage: pvm [-dMASK] [-nNAME] [pvmd-option...] [hostfile]\n"
	       "       pvm [--json] (--command CMD | --script FILE)... "
	       "[pvmd-option...] [hostfile]\n"
	       "\n"
	       "The console of the PVM virtual machine of this user and "
	       "$PVM_VMID.\n"
	       "With no pvmd running it starts one, passing it the arguments "
	       "(see pvmd(1));\n"
	       "with one running it attaches to it.  Then it reads commands: "
	       "type help.\n"
	       "\n"
	       "  --command CMD  run CMD (one command a line), no banner or "
	       "prompt; repeatable\n"
	       "  --script FILE  run the commands of FILE (- for standard "
	       "input) the same way\n"
	       "                 the first command that fails ends the run "
	       "with status 1\n"
	       "  --json         conf, ps, mstat, jobs and version print "
	       "JSON\n"
	       "  --version      print the version and exit\n"
	       "  --help         print this help and exit\n");
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help")) {
			usage();
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			fputs(PVM_VERSION_TEXT("pvm"), stdout);
			return 0;
		}
	}
	int st = script_parse_args(&argc, argv);
	if (st)
		return st;
	rc_attach(argc - 1, argv + 1);
	cons.interactive = isatty(0) && !cons.script;
	if (cons.script) {
		/* no .pvmrc: a script says all it wants */
		script_run();
	} else {
		rc_run();
	}
	/* A .pvmrc may have said quit or halt already. */
	if (!cons.quitting && cons.interactive)
		loop_readline();
	else if (!cons.quitting)
		loop_plain();
	fflush(stdout);
	/* After halt the pvmd is gone and this task with it. */
	if (!cons.detached)
		pvm_exit();
	return cons.exit_code ? cons.exit_code : cons.failed ? 1 : 0;
}
