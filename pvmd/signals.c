/*
 * signals.c - signals (through a signalfd in the event loop), reaping
 * children, the cancel of the startup hostfile's starts (SIGUSR1, from
 * the process waiting for them: startwait.c), and the halt: every task gets
 * SIGTERM, what is still running after a grace period SIGKILL, then the loop
 * stops.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvmd/conn.h"
#include "pvmd/exits.h"
#include "pvmd/host/host.h"
#include "pvmd/log.h"
#include "pvmd/pvmd.h"
#include "pvmd/signals.h"
#include "pvmd/task.h"

#define HALT_GRACE_MS 1000 /* SIGTERM, then SIGKILL after this */
#define HALT_KILL_MS  5000 /* then at most this for them to be gone */
#define HALT_POLL_MS  20
#define HALT_LINKS_MS                                                          \
	3000 /* the master: at most this for the other                         \
	      * hosts' pvmds to be gone */

/* A child process exited: if it was a task, the task is gone. */
static void child_exited(struct pvmd *d, pid_t pid, int status)
{
	intptr_t tid = (intptr_t)idhash_del(&d->children, (int)pid);
	if (!tid)
		return;
	exits_record(d, (int)tid, status); /* for TM_TASKEND */
	struct task *t = task_find(d, (int)tid);
	if (!t || t->pid != pid)
		return; /* left with pvm_exit, or enrolled another process */
	char why[64];
	if (WIFSIGNALED(status))
		snprintf(why, sizeof why, "process killed by signal %d",
			 WTERMSIG(status));
	else
		snprintf(why, sizeof why, "process exited with status %d",
			 WEXITSTATUS(status));
	/* Everything it wrote before dying is in its socket: read it first. */
	if (t->conn) {
		conn_drain_input(d, t->conn);
		t = task_find(d, (int)tid);
		if (!t)
			return;
	}
	task_exit(d, t, why);
}

void pvmd_reap(struct pvmd *d)
{
	int status;
	pid_t pid;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
		child_exited(d, pid, status);
}

static void signal_cb(struct loop *l, struct loop_io *io, uint32_t ev)
{
	struct pvmd *d = io->data;
	struct signalfd_siginfo si;
	(void)l;
	(void)ev;
	while (read(d->sig_fd, &si, sizeof si) == (ssize_t)sizeof si) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			pvmd_reap(d);
			break;
		case SIGUSR1:
			/* the process that started us was interrupted
			 * (startwait.c): the startup hostfile's starts
			 * still pending fail */
			plog(PL_INFO, "SIGUSR1: %d hostfile start(s) cancelled",
			     host_cancel_hostfile(d));
			break;
		case SIGTERM:
		case SIGINT:
			pvmd_halt(d, si.ssi_signo == SIGTERM ? "SIGTERM"
							     : "SIGINT");
			break;
		default:
			break;
		}
	}
}

int pvmd_signals_init(struct pvmd *d)
{
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	d->sig_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (d->sig_fd < 0)
		return -1;
	return loop_io_start(d->loop, &d->sig_io, d->sig_fd, LOOP_IN, signal_cb,
			     d);
}

/* Sends `sig` (0: just checks) to what the halt must stop.  Returns 1 if
 * any of it is still alive.  Zombies of our children are reaped first,
 * so they do not count. */
static int signal_all(struct pvmd *d, int sig)
{
	int alive = 0;
	for (size_t i = 0; i < d->nhalt_pids; i++)
		if (kill(d->halt_pids[i], sig) == 0)
			alive = 1;
	return alive;
}

/* Tasks started from a shell get SIGTERM once, as in the reference: one
 * that catches or ignores it survives the halt (man 3 pvm_halt says the
 * caller must do so).  Spawned children, with their process groups, are
 * what the halt waits for and, after the grace period, SIGKILLs. */
static void collect_pids(struct pvmd *d)
{
	size_t n = d->children.count, k = 0;
	for (size_t i = 0; i < d->tasks.cap; i++) {
		struct task *t = d->tasks.slots[i].val;
		if (d->tasks.slots[i].key && t->pid > 0 &&
		    !idhash_get(&d->children, (int)t->pid))
			kill(t->pid, SIGTERM);
	}
	d->halt_pids = calloc(n + 1, sizeof *d->halt_pids);
	if (!d->halt_pids)
		return;
	for (size_t i = 0; i < d->children.cap; i++)
		if (d->children.slots[i].key)
			d->halt_pids[k++] = -(pid_t)d->children.slots[i].key;
	d->nhalt_pids = k;
}

static void halt_tick(struct loop *l, struct loop_timer *tm)
{
	struct pvmd *d = tm->data;
	pvmd_reap(d);
	int alive = signal_all(d, 0);
	/* The master also waits for the other hosts' pvmds, which it told to
	 * halt, to close their links: once it is gone, so is the machine
	 * (whoever waits for it, pvmrun, finds nothing left anywhere).  Not
	 * for long: a host cut off cannot say it has stopped. */
	int links = d->halt_links_waited ? 0 : host_links_open(d);
	if (links && loop_now_ms() >= d->halt_started + HALT_LINKS_MS) {
		plog(PL_INFO,
		     "%d host%s still linked %d ms after the halt: not waiting",
		     links, links == 1 ? "" : "s", HALT_LINKS_MS);
		d->halt_links_waited = 1;
		links = 0;
	}
	if (!alive && !links) {
		loop_stop(l);
		return;
	}
	if (alive && loop_now_ms() >= d->halt_deadline) {
		if (d->halt_killed) {
			plog(PL_INFO, "tasks still there %d ms after SIGKILL",
			     HALT_KILL_MS);
			loop_stop(l);
			return;
		}
		plog(PL_INFO, "tasks still running after %d ms: SIGKILL",
		     HALT_GRACE_MS);
		signal_all(d, SIGKILL);
		/* a task inside shm_open when SIGKILL comes still creates
		 * its inbox: the inboxes are removed (at the end of the
		 * halt) only once the tasks are gone */
		d->halt_killed = 1;
		d->halt_deadline = loop_now_ms() + HALT_KILL_MS;
	}
	loop_timer_start(l, tm, HALT_POLL_MS);
}

void pvmd_halt(struct pvmd *d, const char *why)
{
	if (d->halting)
		return;
	d->halting = 1;
	plog(PL_INFO, "halting (%s)", why);
	loop_io_stop(d->loop, &d->listen_io);
	/* the master takes the other hosts down with it, however it was
	 * asked (TM_HALT, DM_HALT, SIGTERM) */
	host_halt_links(d);
	/* No PvmHostDelete notify for this host: the reference sends none at
	 * a halt, and its tasks are about to get SIGTERM. */
	/* Like the reference: every task gets SIGTERM, the caller too. */
	collect_pids(d);
	signal_all(d, SIGTERM);
	d->halt_started = loop_now_ms();
	d->halt_deadline = d->halt_started + HALT_GRACE_MS;
	loop_timer_init(&d->halt_timer, halt_tick, d);
	loop_timer_start(d->loop, &d->halt_timer, HALT_POLL_MS);
}
