/*
 * startwait.c - the wait of the process the user started for a pvmd that
 * detaches (startwait.h).  A hostfile's hosts may take up to the start
 * timeout (30 s) each: as the console's add does (console/addwait.c), the
 * waiting process says what it waits for, and Ctrl-C cancels the starts
 * still pending instead of leaving them to time out.
 *
 * The pipe carries records, each a line: "w Q N names" (N hosts still
 * starting, some of them named; Q 1: no status line now), "r text" (a
 * line for stderr), then "=" and the verdict up to the end.
 *
 * On a terminal (stderr): from 1 s on, one status line redrawn every
 * second and erased before anything else is printed.  Elsewhere: one
 * line at 2 s, then one every 10 s.  A start done sooner prints what it
 * always did.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvmd/startwait.h"

#define TICK_MS	      250
#define TTY_FIRST_MS  1000
#define TTY_EVERY_MS  1000
#define LOG_FIRST_MS  2000
#define LOG_EVERY_MS  10000
#define NAMES_MAX     400 /* of a "w" record's names */
#define STOP_AGAIN_MS 300 /* a second SIGINT sooner is the same one */

/* ---- the child's end ---- */

static int out_fd = -1;

void startwait_child(int fd)
{
	out_fd = fd;
}

int startwait_open(void)
{
	return out_fd >= 0;
}

static void put(const char *rec, size_t len)
{
	while (out_fd >= 0 && len) {
		ssize_t w = write(out_fd, rec, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* nobody waits any more */
		rec += w;
		len -= (size_t)w;
	}
}

void startwait_verdict(const char *msg)
{
	if (out_fd < 0)
		return;
	put("=", 1);
	put(msg, strlen(msg));
	close(out_fd);
	out_fd = -1;
}

void startwait_pending(int n, const char *names, int quiet)
{
	char rec[NAMES_MAX + 32];
	int k = snprintf(rec, sizeof rec, "w %d %d %.*s\n", quiet ? 1 : 0, n,
			 NAMES_MAX, names);
	/* names cut in the middle: the last one goes */
	if (k >= (int)sizeof rec - 1 || (k > 0 && rec[k - 1] != '\n')) {
		char *sp = strrchr(rec, ' ');
		if (sp)
			strcpy(sp, "\n");
		k = (int)strlen(rec);
	}
	put(rec, (size_t)k);
}

void startwait_say(const char *line)
{
	if (out_fd < 0) {
		fprintf(stderr, "%s\n", line);
		fflush(stderr);
		return;
	}
	char rec[600];
	int k = snprintf(rec, sizeof rec, "r %s", line);
	if (k >= (int)sizeof rec - 1)
		k = (int)sizeof rec - 2;
	for (int i = 2; i < k; i++)
		if (rec[i] == '\n' || rec[i] == '\r')
			rec[i] = ' ';
	rec[k++] = '\n';
	put(rec, (size_t)k);
}

/* ---- the waiting process ---- */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The stops (SIGINT or SIGTERM) received.  One stop may arrive twice:
 * timeout(1) sends its signal to the child and then to the child's
 * process group.  A signal sooner than STOP_AGAIN_MS after the last
 * counted one is its twin.  The handler itself tells them apart, from
 * the time the signal came: the loop may see a twin late, or between
 * two of its own steps (the handler runs with both signals blocked, and
 * is the only writer of last_stop_ms). */
static volatile sig_atomic_t stops;
static long last_stop_ms;

static void on_stop(int sig)
{
	(void)sig;
	long t = now_ms(); /* clock_gettime is async-signal-safe */
	if (stops && t - last_stop_ms < STOP_AGAIN_MS)
		return;
	last_stop_ms = t;
	stops++;
}

struct wait {
	int tty;
	long t0, next_ms;
	int drawn;    /* a status line is on the terminal */
	int n, quiet; /* the last "w" record */
	char names[NAMES_MAX + 1];
};

static void erase(struct wait *w)
{
	if (w->drawn) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
		w->drawn = 0;
	}
}

/* "h1, h2, h3", or as many as fit and "and N more" (as the console's). */
static void names_text(char *buf, size_t size, const struct wait *w)
{
	char copy[NAMES_MAX + 1];
	snprintf(copy, sizeof copy, "%s", w->names);
	size_t k = 0;
	int i = 0;
	buf[0] = 0;
	for (char *sv, *name = strtok_r(copy, " ", &sv); name;
	     name = strtok_r(NULL, " ", &sv), i++) {
		char more[32];
		if (i)
			snprintf(more, sizeof more, ", and %d more", w->n - i);
		else
			snprintf(more, sizeof more, "%d hosts", w->n);
		if (k + strlen(name) + 2 + (i < w->n - 1 ? strlen(more) : 0) >=
		    size) {
			snprintf(buf + k, size - k, "%s", more);
			return;
		}
		k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "",
				      name);
	}
	if (i < w->n) /* more than the record named */
		snprintf(buf + k, size - k, i ? ", and %d more" : "%d hosts",
			 i ? w->n - i : w->n);
}

static void show(struct wait *w)
{
	long ms = now_ms() - w->t0;
	if (w->n <= 0 || w->quiet) {
		erase(w);
		return;
	}
	if (ms < w->next_ms)
		return;
	char list[160];
	names_text(list, sizeof list, w);
	if (w->tty) {
		fprintf(stderr,
			"\r\033[Kpvmd: waiting for %s (%ld s; Ctrl-C cancels)",
			list, ms / 1000);
		w->drawn = 1;
		w->next_ms = (ms / TTY_EVERY_MS + 1) * TTY_EVERY_MS;
	} else {
		fprintf(stderr,
			"pvmd: waiting for %s (%ld s; Ctrl-C cancels)\n", list,
			ms / 1000);
		w->next_ms = (ms / LOG_EVERY_MS + 1) * LOG_EVERY_MS;
	}
	fflush(stderr);
}

/* One complete record at the start of buf: handled, its length; 0 when
 * incomplete or the verdict. */
static size_t record(struct wait *w, char *buf, size_t n)
{
	if (!n || buf[0] == '=')
		return 0;
	char *nl = memchr(buf, '\n', n);
	if (!nl)
		return 0;
	*nl = 0;
	if (buf[0] == 'w') {
		int q, cnt, off = 0;
		if (sscanf(buf, "w %d %d %n", &q, &cnt, &off) == 2) {
			w->quiet = q;
			w->n = cnt;
			snprintf(w->names, sizeof w->names, "%s", buf + off);
		}
	} else if (buf[0] == 'r') {
		erase(w);
		fprintf(stderr, "%s\n", buf + (buf[1] ? 2 : 1));
		fflush(stderr);
	}
	return (size_t)(nl - buf) + 1;
}

void startwait_parent(int fd, pid_t child, int slave)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop; /* no SA_RESTART: poll returns */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	struct wait w = {.tty = isatty(2), .t0 = now_ms()};
	w.next_ms = w.tty ? TTY_FIRST_MS : LOG_FIRST_MS;
	char buf[4096];
	size_t n = 0;
	int cancelled = 0;
	for (;;) {
		sig_atomic_t seen = stops; /* one reading for both tests */
		if (seen && !cancelled && w.n > 0) {
			/* the starts still pending fail as "cancelled" */
			kill(child, SIGUSR1);
			cancelled = 1;
		}
		/* a second stop (a user's, not a twin), or a stop with
		 * nothing to cancel: the user does not want to wait */
		if (seen > 1 || (seen && !cancelled)) {
			erase(&w);
			fprintf(stderr,
				"pvmd: not waiting: pid %d goes on starting\n",
				(int)child);
			exit(1);
		}
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		int r = poll(&pf, 1, TICK_MS);
		if (r > 0) {
			if (n == sizeof buf - 1)
				n = 0; /* a record longer than any we send */
			ssize_t k = read(fd, buf + n, sizeof buf - 1 - n);
			if (k == 0)
				break;
			if (k < 0 && errno != EINTR && errno != EAGAIN)
				break;
			n += k > 0 ? (size_t)k : 0;
			size_t used;
			while ((used = record(&w, buf, n)) > 0) {
				memmove(buf, buf + used, n - used);
				n -= used;
			}
		}
		show(&w);
	}
	erase(&w);
	buf[n] = 0;
	const char *msg = n && buf[0] == '=' ? buf + 1 : "";
	if (!strcmp(msg, "ok"))
		exit(0);
	if (!*msg) {
		int st;
		waitpid(child, &st, 0);
		msg = "failed to start";
	}
	if (slave)
		printf("error %s\n", msg); /* to the master */
	else
		fprintf(stderr, "pvmd: %s\n", msg);
	exit(1);
}
