/*
 * hoster.c - the master starts pvmds on other hosts (docs/hosts.md,
 * "Starting a pvmd on another host"): TM_ADDHOST, TM_DELHOST and the
 * hostfile given at startup.
 *
 * A start runs `$PVM_RSH host '<dx> -s'` with pipes on its stdin, stdout
 * and stderr, writes the startup lines (the secret among them) to its
 * stdin, and waits, in the event loop, for the line the new pvmd prints:
 * "ok <ip>:<port> <arch> <dsig> [<our ip as it sees it>]" or "error
 * <text>".  Then it opens the link; when the link is up the host is in
 * the table.  Whatever goes wrong before, the host gets an error code and
 * the rest of the machine is not disturbed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto/wire.h"
#include "pvm3.h"
#include "pvmd/conn.h"
#include "pvmd/ctl.h"
#include "pvmd/host/addreq.h"
#include "pvmd/host/hostlayer.h"
#include "pvmd/host/hostfile.h"
#include "pvmd/host/password.h"
#include "pvmd/log.h"
#include "pvmd/spawn.h"

#define ADDHOST_MAX 1024

struct start {
	struct start *next;
	struct host *h;
	struct addreq *ar;
	int idx;   /* its slot in ar->results */
	pid_t pid; /* the rsh command */
	int out_fd, err_fd;
	struct loop_io out_io;
	struct loop_timer timer;
	char line[512];
	size_t nline;
	int connecting;	  /* got "ok": the link is being opened */
	int manual;	  /* so=ms: the user starts it; the dialogue
			   * is on our terminal (stdin, stdout) */
	int waiting;	  /* manual, behind another manual start */
	struct hostopt o; /* (manual: kept until its turn) */
	int pw;		  /* so=pw: its password is asked on the
			   * terminal (as a manual start), then ssh */
	int asking;	  /* pw: the prompt is up (password.c) */
	char pwfile[600]; /* pw: the password's file while ssh logs in */
};

static void manual_next(struct pvmd *d);

const struct hostopt *hoster_opts(const struct pvmd *d, const char *name)
{
	return d->hosts->have_hf ? hostfile_find(&d->hosts->hf, name) : NULL;
}

static void start_free(struct pvmd *d, struct start *s)
{
	for (struct start **pp = &d->hosts->starts; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	loop_timer_stop(d->loop, &s->timer);
	/* a registered hoster's start: its ticket dies with it */
	explicit_bzero(s->h->ticket, sizeof s->h->ticket);
	s->h->have_ticket = 0;
	s->h->hoster_wid = 0;
	if (s->out_fd >= 0) {
		loop_io_stop(d->loop, &s->out_io);
		close(s->out_fd);
	}
	if (s->err_fd >= 0)
		close(s->err_fd);
	if (s->pid > 0) {
		/* the remote shell leads a session of its own (run_rsh):
		 * its helpers (a wrapper script's children, a ProxyCommand)
		 * go with it; reaped by pvmd_reap */
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
	}
	if (s->asking)
		pw_cancel(d);
	pw_file_remove(s->pwfile);
	int was_manual = d->hosts->manual_now == s;
	if (was_manual)
		d->hosts->manual_now = NULL;
	free(s);
	if (was_manual)
		manual_next(d);
}

/* The start failed: the host leaves the table, the request learns why. */
static void start_fail(struct pvmd *d, struct start *s, int code,
		       const char *why)
{
	char err[400] = "";
	if (s->err_fd >= 0) {
		ssize_t n = read(s->err_fd, err, sizeof err - 1);
		err[n > 0 ? n : 0] = 0;
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		for (size_t k = strlen(err); k && err[k - 1] == ' '; k--)
			err[k - 1] = 0;
	}
	plog(PL_ERR, "cannot add host %s: %s%s%s", s->h->name, why,
	     *err ? ": " : "", err);
	struct host *h = s->h;
	struct addreq *ar = s->ar;
	int idx = s->idx;
	if (ar)
		addreq_why(ar, idx, why, err);
	start_free(d, s);
	if (d->hosts->hosts[h->no] == h) {
		h->state = HOST_FREE;
		host_lost(d, h, why);
	}
	if (ar)
		addreq_done(d, ar, idx, code);
}

static struct start *start_of(const struct pvmd *d, const struct host *h)
{
	for (struct start *s = d->hosts->starts; s; s = s->next)
		if (s->h == h)
			return s;
	return NULL;
}

void hoster_link_up(struct pvmd *d, struct host *h)
{
	struct start *s = start_of(d, h);
	h->state = HOST_UP;
	int tid = wire_host_tid(h->no);
	plog(PL_INFO, "host %s added as t%x (%s, %s)", h->name, tid, h->arch,
	     h->addr);
	struct addreq *ar = s ? s->ar : NULL;
	int idx = s ? s->idx : 0;
	if (s) {
		s->pid = 0; /* the rsh command ends by itself */
		start_free(d, s);
	}
	host_table_changed(d);
	if (ar)
		addreq_done(d, ar, idx, tid);
	else
		host_added(d, &tid, 1);
}

void hoster_link_failed(struct pvmd *d, struct host *h, const char *why)
{
	struct start *s = start_of(d, h);
	if (s)
		start_fail(d, s, PvmCantStart, why);
}

/* ---- the new pvmd's line ---- */

static void got_line(struct pvmd *d, struct start *s, char *line);

void hoster_answer(struct pvmd *d, struct host *h, char *line)
{
	struct start *s = start_of(d, h);
	if (s && !s->connecting)
		got_line(d, s, line);
}

void hoster_fail(struct pvmd *d, struct host *h, int code, const char *why)
{
	struct start *s = start_of(d, h);
	if (s)
		start_fail(d, s, code, why);
}

static void got_line(struct pvmd *d, struct start *s, char *line)
{
	struct host *h = s->h;
	pw_file_remove(s->pwfile); /* so=pw: ssh has logged in */
	if (!strncmp(line, "error ", 6)) {
		int code = strstr(line, "version")	     ? PvmBadVersion
			   : strstr(line, "already running") ? PvmDupHost
							     : PvmCantStart;
		start_fail(d, s, code, line + 6);
		return;
	}
	char addr[80], arch[32], client[64] = "";
	int dsig;
	if (strncmp(line, "ok ", 3) || sscanf(line + 3, "%79s %31s %d %63s",
					      addr, arch, &dsig, client) < 3) {
		start_fail(d, s, PvmCantStart,
			   "unexpected answer (not our pvmd?)");
		return;
	}
	snprintf(h->addr, sizeof h->addr, "%s", addr);
	snprintf(h->arch, sizeof h->arch, "%s", arch);
	h->dsig = dsig;
	/* how the other host sees us: our address for the others */
	if (*client && (!*d->ip || !strncmp(d->ip, "127.", 4)) &&
	    strcmp(client, d->ip)) {
		snprintf(d->ip, sizeof d->ip, "%s", client);
		link_unlisten(d); /* (on the old address, if at all) */
		host_set_addr(d);
	}
	/* the first host: from now on the others may open links to us */
	if (link_listen(d) < 0) {
		start_fail(d, s, PvmCantStart,
			   "cannot listen for other hosts (see the log)");
		return;
	}
	s->connecting = 1;
	if (s->out_fd >= 0) {
		loop_io_stop(d->loop, &s->out_io);
		close(s->out_fd);
		s->out_fd = -1;
	}
	if (host_connect(d, h) < 0)
		start_fail(d, s, PvmCantStart, "cannot connect to its pvmd");
}

static void out_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct start *s = io->data;
	struct pvmd *d = s->timer.data;
	(void)l;
	(void)ev;
	for (;;) {
		ssize_t n = read(s->out_fd, s->line + s->nline,
				 sizeof s->line - 1 - s->nline);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			start_fail(
				d, s, PvmCantStart,
				"the remote command ended without starting a pvmd");
			return;
		}
		s->nline += (size_t)n;
		s->line[s->nline] = 0;
		char *nl = strchr(s->line, '\n');
		if (nl) {
			*nl = 0;
			got_line(d, s, s->line);
			return;
		}
		if (s->nline == sizeof s->line - 1) {
			start_fail(d, s, PvmCantStart, "answer too long");
			return;
		}
	}
}

static void timeout_cb(struct loop *l, struct loop_timer *t)
{
	(void)l;
	struct pvmd *d = t->data;
	for (struct start *s = d->hosts->starts; s; s = s->next)
		if (&s->timer == t) {
			start_fail(d, s, PvmCantStart, "timed out");
			return;
		}
}

/* ---- starting ---- */

/* ---- manual start (so=ms): the dialogue on the foreground pvmd's
 * terminal, one host at a time, as the reference's pvmd holds it ---- */

static void pw_begin(struct pvmd *d, struct start *s);

static void manual_begin(struct pvmd *d, struct start *s)
{
	char cmd[1200], lines[4096];
	s->waiting = 0;
	d->hosts->manual_now = s;
	if (s->pw) {
		pw_begin(d, s);
		return;
	}
	if (hoster_remote_command(&s->o, cmd, sizeof cmd) < 0) {
		start_fail(d, s, PvmSysErr, "cannot name the pvmd to start");
		return;
	}
	int n = hoster_startup_lines(d, s->h, &s->o, 0, lines, sizeof lines);
	printf("*** Manual startup ***\n"
	       "Login to \"%s\" and type:\n%s\n"
	       "and give it these lines on its standard input:\n%.*s"
	       "Type response: ",
	       s->o.name, cmd, n, lines);
	fflush(stdout);
	explicit_bzero(lines, sizeof lines);
	s->out_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
	if (s->out_fd < 0 || loop_io_start(d->loop, &s->out_io, s->out_fd,
					   LOOP_IN, out_cb, s) < 0) {
		char why[120];
		snprintf(why, sizeof why, "cannot read the terminal: %s",
			 strerror(errno));
		start_fail(d, s, PvmSysErr, why);
	}
}

static void manual_next(struct pvmd *d)
{
	struct start *next = NULL;
	for (struct start *s = d->hosts->starts; s; s = s->next)
		if (s->manual && s->waiting)
			next = s; /* the oldest: new ones go in front */
	if (next)
		manual_begin(d, next);
}

/* Runs the rsh command for `o`.  Returns 0 or a PVM error code. */
static int run_rsh(struct pvmd *d, struct start *s, const struct hostopt *o)
{
	char cmd[1200];
	if (hoster_task_tid(d) && !*s->pwfile) {
		/* a task registered with pvm_reg_hoster runs it (a so=pw host
		 * whose password was typed before it registered keeps ours) */
		int st = hoster_task_start(d, s->h, o);
		if (st == 0)
			loop_timer_start(d->loop, &s->timer,
					 hoster_start_timeout());
		return st;
	}
	if (hoster_remote_command(o, cmd, sizeof cmd) < 0)
		return PvmSysErr;

	const char *rsh = getenv("PVM_RSH");
	char rshbuf[1024];
	snprintf(rshbuf, sizeof rshbuf, "%s", rsh && *rsh ? rsh : "ssh");
	char *argv[64];
	int argc = 0;
	for (char *tok = strtok(rshbuf, " \t"); tok && argc < 50;
	     tok = strtok(NULL, " \t"))
		argv[argc++] = tok;
	if (*s->pwfile)
		argc = pw_ssh_args(argv, argc);
	if (*o->lo) {
		argv[argc++] = "-l";
		argv[argc++] = (char *)o->lo;
	}
	argv[argc++] = (char *)(*o->ip ? o->ip : o->name);
	argv[argc++] = cmd;
	argv[argc] = NULL;

	int in[2], out[2], err[2];
	if (pipe2(in, O_CLOEXEC) < 0)
		return PvmSysErr;
	if (pipe2(out, O_CLOEXEC) < 0) {
		close(in[0]), close(in[1]);
		return PvmSysErr;
	}
	if (pipe2(err, O_CLOEXEC) < 0) {
		close(in[0]), close(in[1]), close(out[0]), close(out[1]);
		return PvmSysErr;
	}
	pid_t pid = fork();
	if (pid == 0) {
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		signal(SIGPIPE, SIG_DFL);
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		setsid(); /* no terminal: ssh cannot ask for a password */
		if (*s->pwfile)
			pw_ssh_env(s->pwfile); /* but so=pw's askpass can */
		execvp(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (pid < 0) {
		close(in[1]), close(out[0]), close(err[0]);
		return PvmSysErr;
	}
	s->pid = pid;
	s->out_fd = out[0];
	s->err_fd = err[0];
	fcntl(s->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(s->err_fd, F_SETFL, O_NONBLOCK);

	/* the startup lines: the secret goes only this way */
	char buf[4096];
	int n = hoster_startup_lines(d, s->h, o, hoster_start_timeout(), buf,
				     sizeof buf);
	ssize_t w = write(in[1], buf, (size_t)n);
	explicit_bzero(buf, sizeof buf);
	close(in[1]);
	if (w != n)
		plog(PL_ERR, "host %s: could not write its startup lines",
		     o->name);

	loop_timer_init(&s->timer, timeout_cb, d);
	loop_timer_start(d->loop, &s->timer, hoster_start_timeout());
	if (loop_io_start(d->loop, &s->out_io, s->out_fd, LOOP_IN, out_cb, s) <
	    0)
		return PvmSysErr;
	return 0;
}

/* ---- so=pw: the password on the terminal, then ssh (password.c) ---- */

static void pw_got(struct pvmd *d, void *arg, const char *pw, const char *why)
{
	struct start *s = arg;
	char buf[200];
	int st = PvmCantStart;
	s->asking = 0;
	d->hosts->manual_now =
		NULL; /* the terminal is free for the next host */
	s->manual = 0;
	if (pw &&
	    pw_file_write(d, s->h->no, pw, s->pwfile, sizeof s->pwfile) < 0) {
		snprintf(buf, sizeof buf, "cannot write the password file: %s",
			 strerror(errno));
		why = buf;
		st = PvmSysErr;
	} else if (pw) {
		st = run_rsh(d, s, &s->o);
		why = "cannot run the remote shell command";
		if (st == 0)
			plog(PL_INFO,
			     "starting a pvmd on %s (host %d) with a "
			     "password",
			     s->o.name, s->h->no);
	}
	if (st < 0)
		start_fail(d, s, st, why);
	manual_next(d);
}

static void pw_begin(struct pvmd *d, struct start *s)
{
	char why[200];
	if (pw_prompt(d, s->o.name, s->o.lo, pw_got, s, why, sizeof why) < 0)
		start_fail(d, s, PvmCantStart, why);
	else
		s->asking = 1;
}

/* Host numbers go up from 2 as hosts are added (a deleted host's number
 * is not given again at once, as the reference does); past the last one
 * the lowest free number is taken. */
static int next_no(struct pvmd *d)
{
	int last = d->hosts->last_no > 1 ? d->hosts->last_no : 1;
	for (int i = 0; i < HOST_MAX; i++) {
		int no = last + 1 + i;
		if (no > HOST_MAX)
			no = no - HOST_MAX + 1; /* 2, 3, ... */
		if (no >= 2 && no <= HOST_MAX && !d->hosts->hosts[no]) {
			d->hosts->last_no = no;
			return no;
		}
	}
	return 0;
}

/* 1 if `ip` (dotted) is the address of this host or of a host in the
 * machine or being started. */
static int known_address(const struct pvmd *d, const char *ip)
{
	if (!strcmp(ip, d->ip))
		return 1;
	for (int i = 1; i <= d->hosts->top; i++) {
		const struct host *h = d->hosts->hosts[i];
		size_t n = strlen(ip);
		if (h && !strncmp(h->addr, ip, n) && h->addr[n] == ':')
			return 1;
	}
	return 0;
}

/* Starts one host for request `ar` (slot idx); the answer comes later
 * unless this returns an error code at once. */
static int start_host(struct pvmd *d, const struct hostopt *o,
		      struct addreq *ar, int idx)
{
	if (host_by_name(d, o->name) || spawn_is_our_host(d, o->name))
		return PvmDupHost;
	/* a registered hoster gets so= with the host and deals with it, as
	 * in the reference */
	int by_hoster = hoster_task_tid(d) != 0;
	if (!strcmp(o->so, "ms") && !d->hosts->foreground && !by_hoster) {
		plog(PL_ERR,
		     "host %s: manual startup (so=ms) needs the master "
		     "pvmd in the foreground (pvmd -f): the dialogue is on its "
		     "terminal",
		     o->name);
		if (ar)
			addreq_why(
				ar, idx,
				"manual startup (so=ms) needs the master pvmd in "
				"the foreground (pvmd -f)",
				"");
		return PvmCantStart;
	}
	if (!strcmp(o->so, "pw") && !d->hosts->foreground && !by_hoster) {
		plog(PL_ERR,
		     "host %s: so=pw needs the master pvmd in the "
		     "foreground (pvmd -f): the password is asked on its "
		     "terminal",
		     o->name);
		if (ar)
			addreq_why(
				ar, idx,
				"so=pw needs the master pvmd in the foreground "
				"(pvmd -f)",
				"");
		return PvmCantStart;
	}
	struct addrinfo hints = {.ai_family = AF_INET,
				 .ai_socktype = SOCK_STREAM};
	struct addrinfo *res = NULL;
	if (getaddrinfo(*o->ip ? o->ip : o->name, NULL, &hints, &res) != 0) {
		plog(PL_ERR, "cannot add host %s: no such host", o->name);
		return PvmNoHost;
	}
	char ip[64];
	inet_ntop(AF_INET, &((struct sockaddr_in *)res->ai_addr)->sin_addr, ip,
		  sizeof ip);
	freeaddrinfo(res);
	/* this host, or one already there, under another name */
	if (known_address(d, ip)) {
		plog(PL_ERR, "cannot add host %s: %s is already in the machine",
		     o->name, ip);
		return PvmDupHost;
	}
	int no = next_no(d);
	if (!no)
		return PvmOutOfRes;
	struct host *h = calloc(1, sizeof *h);
	struct start *s = calloc(1, sizeof *s);
	if (!h || !s) {
		free(h);
		free(s);
		return PvmNoMem;
	}
	h->no = no;
	h->state = HOST_STARTING;
	h->speed = o->sp > 0 ? o->sp : PVMD_SPEED;
	h->dsig = DSIG_NATIVE;
	snprintf(h->name, sizeof h->name, "%s", o->name);
	host_slot_set(d, no, h);
	s->h = h;
	s->ar = ar;
	s->idx = idx;
	s->out_fd = s->err_fd = -1;
	loop_timer_init(&s->timer, timeout_cb, d);
	s->next = d->hosts->starts;
	d->hosts->starts = s;
	if ((!strcmp(o->so, "ms") || !strcmp(o->so, "pw")) && !by_hoster) {
		/* no time limit: a person is typing */
		s->manual = s->waiting = 1;
		s->pw = !strcmp(o->so, "pw");
		s->o = *o;
		plog(PL_INFO, "host %s (host %d): %s", o->name, no,
		     s->pw ? "password login (so=pw)" : "manual startup");
		if (!d->hosts->manual_now)
			manual_begin(d, s);
		return 0;
	}
	int st = run_rsh(d, s, o);
	if (st < 0) {
		s->ar = NULL;
		start_fail(d, s, st, "cannot run the remote shell command");
		return st;
	}
	plog(PL_INFO, "starting a pvmd on %s (host %d)", o->name, no);
	return 0;
}

/* ---- TM_ADDHOST: i32 n, n x str -> i32 added, i32 n, n x i32 ---- */

int ctl_addhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	int n = wire_rd_count(r, 4);
	if (r->err)
		return -1;
	char **lines = calloc((size_t)n + 1, sizeof *lines);
	if (!lines)
		return -1;
	for (int i = 0; i < n; i++)
		lines[i] = wire_rd_strdup(r);
	int bad = r->err || r->left;
	struct addreq *ar = bad || n > ADDHOST_MAX || !d->hosts->master
				    ? NULL
				    : addreq_new(n);
	if (!ar) {
		for (int i = 0; i < n; i++)
			free(lines[i]);
		free(lines);
		if (bad)
			return -1;
		ctl_reply_status(d, c, h,
				 !d->hosts->master ? PvmNotImpl
				 : n > ADDHOST_MAX ? PvmBadParam
						   : PvmNoMem);
		return 0;
	}
	ar->req_tid = ctl_src(c, h);
	ar->req = *h;
	for (int i = 0; i < n; i++) {
		addreq_name(ar, i, lines[i]);
		struct hostopt dflt, o;
		/* the defaults of the hostfile's '*' lines apply to hosts
		 * added later too (man 1 pvmd3) */
		if (d->hosts->have_hf)
			dflt = d->hosts->hf.dflt;
		else
			hostopt_default(&dflt);
		char err[200];
		int k = hostopt_parse(lines[i], &dflt, &o, err, sizeof err);
		int st;
		if (k != 1) {
			plog(PL_ERR, "addhost '%s': %s", lines[i],
			     k < 0 ? err : "no host name");
			addreq_why(ar, i, k < 0 ? err : "no host name", "");
			st = PvmBadParam;
		} else {
			/* the hostfile's options for it, unless the line
			 * gives its own */
			const struct hostopt *fo = hoster_opts(d, o.name);
			if (fo && !strchr(lines[i], '='))
				o = *fo;
			st = start_host(d, &o, ar, i);
		}
		if (st < 0)
			addreq_done(d, ar, i, st);
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	addreq_done(d, ar, n, 0);
	return 0;
}

/* ---- TM_ADDCANCEL: i32 wid -> i32 hosts cancelled ---- */

/* A start of task tid's add request `wid` (0: of any of its requests) to
 * cancel, or NULL.  Manual starts waiting for the terminal go first, so
 * that ending the one holding it hands the terminal to none of them. */
static struct start *cancel_next(const struct pvmd *d, int tid, uint32_t wid)
{
	struct start *pick = NULL;
	for (struct start *s = d->hosts->starts; s; s = s->next)
		if (s->ar && s->ar->req_tid == tid &&
		    (!wid || s->ar->req.wid == wid) && (!pick || s->waiting))
			pick = s;
	return pick;
}

/* Each fails as a timed-out start does (its remote shell killed, its
 * slot freed, a late answer unread); the last one answers the request
 * (an add's reply goes ahead of TM_ADDCANCEL's).  Returns how many. */
static int cancel_starts(struct pvmd *d, int tid, uint32_t wid)
{
	int n = 0;
	struct start *s;
	while (d->hosts->master && (s = cancel_next(d, tid, wid))) {
		start_fail(d, s, PvmCantStart, "cancelled");
		n++;
	}
	return n;
}

int host_cancel_hostfile(struct pvmd *d)
{
	return cancel_starts(d, 0, 0); /* req_tid 0: the hostfile's */
}

int ctl_addcancel(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		  struct wire_rd *r)
{
	uint32_t wid = (uint32_t)wire_rd_i32(r);
	if (r->err || r->left)
		return -1;
	/* only the asker's: the request names no one else's */
	int tid = ctl_src(c, h), n = cancel_starts(d, tid, wid);
	plog(PL_INFO,
	     "t%x asked to cancel its add (wid %u): %d host%s cancelled", tid,
	     wid, n, n == 1 ? "" : "s");
	ctl_reply_status(d, c, h, n);
	return 0;
}

/* ---- TM_DELHOST: i32 n, n x str -> i32 deleted, i32 n, n x i32 ---- */

int ctl_delhost(struct pvmd *d, struct conn *c, const struct wire_hdr *h,
		struct wire_rd *r)
{
	int n = wire_rd_count(r, 4);
	if (r->err)
		return -1;
	int *res = calloc((size_t)n + 1, sizeof *res);
	char **names = calloc((size_t)n + 1, sizeof *names);
	int ok = 0;
	for (int i = 0; i < n && !r->err && res && names; i++) {
		char *name = wire_rd_strdup(r);
		if (!name)
			break;
		names[i] = name;
		int again = 0; /* named earlier in this request (reference) */
		for (int j = 0; j < i && !again; j++)
			again = names[j] && !strcmp(names[j], name);
		struct host *o = host_by_name(d, name);
		if (!o && spawn_is_our_host(d, name))
			o = host_of_tid(d, d->hosttid);
		if (again) {
			res[i] = PvmDupHost;
		} else if (!o || o->state != HOST_UP) {
			res[i] = PvmNoHost;
		} else if (wire_host_tid(o->no) == d->hosttid) {
			res[i] = PvmBadParam; /* not the master itself */
		} else {
			if (o->link) {
				struct wire_hdr hh = {.src = d->hosttid,
						      .tag = WIRE_DM_HALT};
				host_send_ctrl(d, o->no, &hh, NULL);
				conn_flush_now(d, o->link);
			}
			host_lost(d, o, "deleted");
			ok++;
		}
	}
	for (int i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
	if (r->err || r->left || !res) {
		free(res);
		return -1;
	}
	ctl_reply_list(d, ctl_src(c, h), h, ok, n, res);
	free(res);
	return 0;
}

/* ---- the hostfile given at startup ---- */

int hoster_start_hostfile(struct pvmd *d, const char *path, char *err,
			  size_t errlen)
{
	if (hostfile_load(path, &d->hosts->hf, err, errlen) < 0)
		return -1;
	d->hosts->have_hf = 1;
	int n = 0;
	for (int i = 0; i < d->hosts->hf.n; i++)
		n += !d->hosts->hf.hosts[i].deferred &&
		     !spawn_is_our_host(d, d->hosts->hf.hosts[i].name);
	if (!n)
		return 0;
	struct addreq *ar = addreq_new(n);
	if (!ar)
		return 0;
	for (int i = 0, k = 0; i < d->hosts->hf.n; i++) {
		const struct hostopt *o = &d->hosts->hf.hosts[i];
		if (o->deferred || spawn_is_our_host(d, o->name))
			continue;
		addreq_name(ar, k, o->name);
		int st = start_host(d, o, ar, k);
		if (st < 0)
			addreq_done(d, ar, k, st);
		k++;
	}
	addreq_done(d, ar, n, 0);
	return 1;
}

void hoster_fini(struct pvmd *d)
{
	while (d->hosts->starts)
		start_free(d, d->hosts->starts);
	if (d->hosts->have_hf)
		hostfile_free(&d->hosts->hf);
	d->hosts->have_hf = 0;
}
