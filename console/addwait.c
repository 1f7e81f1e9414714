/*
 * addwait.c - the add command's wait: starting a pvmd over ssh can take
 * up to the master's start timeout (30 s), so the console says what it
 * waits for, and Ctrl-C (SIGINT) cancels the hosts still starting
 * (TM_ADDCANCEL, through lpvm_priv_addhosts) instead of ending the
 * console or being ignored until the timeout.
 *
 * On a terminal (stderr): from 1 s on, one status line redrawn in place
 * every second and erased before the table.  Elsewhere (a log, a pipe):
 * one line at 2 s, then one every 10 s, so a log shows a slow start
 * without filling up; an add done sooner prints what it always did.
 */
#include "console.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lpvm_priv.h"

#define TICK_MS	     250 /* how soon a status line is due, at most */
#define TTY_FIRST_MS 1000
#define TTY_EVERY_MS 1000
#define LOG_FIRST_MS 2000
#define LOG_EVERY_MS 10000
#define TWIN_MS	     250 /* a SIGINT's twin comes sooner (see below) */

struct show {
	char **names;
	int n;
	int tty;      /* stderr is a terminal: one line, redrawn */
	long next_ms; /* the next line is due then */
	int drawn;    /* a status line is on the terminal */
};

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* "h1, h2, h3", or as many as fit and "and N more". */
static void names_text(char *buf, size_t size, char **names, int n)
{
	size_t k = 0;
	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		char more[32];
		if (i)
			snprintf(more, sizeof more, ", and %d more", n - i);
		else
			snprintf(more, sizeof more, "%d hosts", n);
		size_t need = strlen(names[i] ? names[i] : "") + 2;
		/* room for this name, and for "and N more" after it */
		if (k + need + (i < n - 1 ? strlen(more) : 0) >= size) {
			snprintf(buf + k, size - k, "%s", more);
			return;
		}
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "",
				      names[i] ? names[i] : "");
	}
}

/* The library's tick while the master answers: a status line when due.
 * It never cancels by itself: Ctrl-C does (the library sees the flag). */
static int tick(void *arg, long ms)
{
	struct show *s = arg;
	if (ms < s->next_ms)
		return 0;
	char list[160];
	names_text(list, sizeof list, s->names, s->n);
	if (s->tty) {
		fprintf(stderr,
			"\r\033[Kadd: waiting for %s (%ld s; Ctrl-C "
			"cancels)",
			list, ms / 1000);
		s->drawn = 1;
		s->next_ms = (ms / TTY_EVERY_MS + 1) * TTY_EVERY_MS;
	} else {
		fprintf(stderr, "add: waiting for %s (%ld s; Ctrl-C cancels)\n",
			list, ms / 1000);
		s->next_ms = (ms / LOG_EVERY_MS + 1) * LOG_EVERY_MS;
	}
	fflush(stderr);
	return 0;
}

int addwait_addhosts(char **names, int n, int *infos, int *cancelled)
{
	struct show s = {.names = names, .n = n, .tty = isatty(2)};
	s.next_ms = s.tty ? TTY_FIRST_MS : LOG_FIRST_MS;
	struct lpvm_addwatch w = {
		.period_ms = TICK_MS,
		.tick = tick,
		.arg = &s,
		.stop = &interrupted,
	};
	/* Ctrl-C is ours while the add waits (piped input would die of
	 * it, readline's loop would only see it afterwards) */
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	interrupted = 0;
	sigaction(SIGINT, &sa, &old);
	fflush(stdout); /* what came before, ahead of the status line */
	int cc = lpvm_priv_addhosts(names, n, infos, &w);
	if (interrupted) {
		/* timeout(1) sends its SIGINT to its child and then to the
		 * child's process group: the twin of the one that cancelled
		 * may come after the add is over, and must not reach the
		 * old disposition (for piped input: the end of the console) */
		struct timespec ts = {0, TWIN_MS * 1000000L};
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	sigaction(SIGINT, &old, NULL);
	/* the status line, and the ^C the terminal echoed, make room for
	 * the table */
	if (s.tty && (s.drawn || w.cancelled)) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	*cancelled = w.cancelled;
	return cc;
}
