/*
 * poll.c - the one wait primitive (see poll.h).
 */
#define _GNU_SOURCE
#include "poll.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "conn.h"
#include "lpvm.h"
#include "common/clock.h"
#include "tran.h"
#include "waitpol.h"

static struct lp_pollable *all;
static int nall, nbusy; /* registered; of them with busy_poll */

void lp_poll_add(struct lp_pollable *p)
{
	if (p->registered)
		return;
	p->prev = NULL;
	p->next = all;
	if (all)
		all->prev = p;
	all = p;
	p->registered = 1;
	nall++;
	nbusy += p->busy_poll != 0;
}

void lp_poll_del(struct lp_pollable *p)
{
	if (!p->registered)
		return;
	if (p->prev)
		p->prev->next = p->next;
	else
		all = p->next;
	if (p->next)
		p->next->prev = p->prev;
	p->next = p->prev = NULL;
	p->registered = 0;
	nall--;
	nbusy -= p->busy_poll != 0;
}

void lp_poll_busy(struct lp_pollable *p)
{
	if (p->busy_poll)
		return;
	p->busy_poll = 1;
	if (p->registered)
		nbusy++;
}

/* One ppoll of every pollable (the old lp_progress). */
static int poll_fds(const struct timespec *timeout)
{
	static struct pollfd *pfd;
	static struct lp_pollable **who;
	static int cap;

	if (nall == 0)
		return -1;
	if (nall > cap) {
		int ncap = nall * 2;
		struct pollfd *np = realloc(pfd, sizeof *np * (size_t)ncap);
		if (!np)
			return -1;
		pfd = np;
		struct lp_pollable **nw =
			realloc(who, sizeof *nw * (size_t)ncap);
		if (!nw)
			return -1;
		who = nw;
		cap = ncap;
	}
	int n = 0;
	for (struct lp_pollable *p = all; p; p = p->next) {
		pfd[n].fd = p->fd;
		pfd[n].events = p->events(p);
		pfd[n].revents = 0;
		who[n++] = p;
	}
	int r = ppoll(pfd, (nfds_t)n, timeout, NULL);
	if (r < 0)
		return errno == EINTR ? 0 : -1;
	int handled = 0;
	for (int i = 0; i < n && r > 0; i++) {
		if (!pfd[i].revents)
			continue;
		r--;
		/* A handler may have closed another pollable meanwhile; its
		 * struct stays valid until the next reap. */
		if (!who[i]->registered)
			continue;
		who[i]->ready(who[i], pfd[i].revents);
		handled++;
	}
	return handled;
}

/* ---- with a transport polled without a descriptor: spin, then sleep ----
 *
 * Such transports (shared-memory rings: struct lp_tran's progress ops)
 * are probed without any system call; the sockets (pvmd, direct routes)
 * get a zero-timeout ppoll only every SOCK_NS while spinning (the I-WAY
 * lesson: a syscall per probe would slow the fast path), and always when
 * going to sleep.  PvmPollConstant spins for ever; PvmPollSleep spins
 * for the wait policy's budget (waitpol.h: none when our CPUs are
 * crowded, else what recent waits cost; PvmPollTime probes when the
 * program set it),
 * then announces that it sleeps (sleep_begin) and blocks in ppoll on the
 * sockets and the transports' wake-up descriptors.
 *
 * While spinning it yields the core every YIELD_NS: a partner waiting
 * for our core gets it (with 1536 tasks waiting on 2 cores, spinning
 * without yielding made their release 6 times slower). */
#define SOCK_NS	     20000
#define YIELD_NS     50000
#define CLOCK_EVERY  64
/* The longest a wait polls its sockets before it blocks (sock_spin). */
#define SOCK_SPIN_NS 100000

int lp_poll_type = PvmPollSleep;
int lp_poll_time = 20000; /* probes before sleeping */

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

/* The transports with progress operations (set by route.c at each
 * enrollment), and how many of them to spin on now. */
static const struct lp_tran *spin_v[4];
static int spin_all, spin_n;

void lp_progress_set_pollers(const struct lp_tran *const *v, int n)
{
	spin_all = 0;
	for (int i = 0; i < n && i < (int)(sizeof spin_v / sizeof *spin_v); i++)
		spin_v[spin_all++] = v[i];
}

static int spin_active(void)
{
	spin_n = 0;
	for (int i = 0; i < spin_all; i++)
		if (spin_v[i]->active())
			spin_n = i + 1;
	return spin_n > 0;
}

static int probe(void)
{
	if (spin_n == 1) /* the usual case: one such transport */
		return spin_v[0]->progress();
	int n = 0;
	for (int i = 0; i < spin_n; i++)
		if (spin_v[i]->active())
			n += spin_v[i]->progress();
	return n;
}

static int all_quiet(void)
{
	for (int i = 0; i < spin_n; i++)
		if (spin_v[i]->active() && !spin_v[i]->quiet())
			return 0;
	return 1;
}

static void sleep_end(int upto)
{
	for (int i = 0; i < upto; i++)
		if (spin_v[i]->active())
			spin_v[i]->sleep_end();
}

/* Announces the sleep to every spinning transport; > 0 when one had
 * something after all (the others are woken again). */
static int sleep_begin(int64_t *cap)
{
	*cap = -1;
	for (int i = 0; i < spin_n; i++) {
		if (!spin_v[i]->active())
			continue;
		int64_t c;
		int n = spin_v[i]->sleep_begin(&c);
		if (n > 0) {
			sleep_end(i);
			return n;
		}
		if (c >= 0 && (*cap < 0 || c < *cap))
			*cap = c;
	}
	return 0;
}

/* The wait policy's question to the spinning transports. */
static int crowd(const struct lp_cpus *c, int64_t now)
{
	for (int i = 0; i < spin_n; i++)
		if (spin_v[i]->crowded && spin_v[i]->active() &&
		    spin_v[i]->crowded(c, now))
			return 1;
	return 0;
}

int lp_progress_peek(void)
{
	return spin_active() ? probe() : 0;
}

/* The remaining time of a wait until deadline (INT64_MAX: none), at
 * most cap (-1: no cap), for ppoll (NULL: block). */
static const struct timespec *left_of(int64_t deadline, int64_t cap,
				      struct timespec *t)
{
	int64_t now = mono_ns();
	int64_t left = deadline == INT64_MAX ? -1 : deadline - now;
	if (left < 0 && deadline != INT64_MAX)
		left = 0;
	if (cap >= 0 && (left < 0 || left > cap))
		left = cap;
	if (left < 0)
		return NULL;
	t->tv_sec = left / 1000000000;
	t->tv_nsec = left % 1000000000;
	return t;
}

/*
 * Only sockets can bring what we wait for.  A message from another host
 * wakes a blocked task some 15-25 us late on a virtual machine (an idle
 * vCPU must wake); a raw TCP ping-pong that polled its socket took 5.4
 * us a hop against 11.2 blocking (issue 27).  So while a direct
 * connection exists (busy_poll) a wait polls the descriptors without
 * blocking for the wait policy's budget, at most SOCK_SPIN_NS and none
 * while other tasks keep ours waiting for a CPU (lp_wait_sock_budget:
 * two tasks polling on a loaded 2-vCPU host took 60-110 us a hop
 * instead of 9), then blocks.  It does not yield: at 100 us
 * at most it takes little from others, and a yield gives the CPU away
 * just when the answer may come (a 60 us mode of an 8-byte TCP
 * ping-pong between the namespace hosts, against 9 us without).
 */
static int sock_spin(const struct timespec *timeout, int64_t start)
{
	static const struct timespec zero;
	int64_t deadline = timeout ? start + ts_ns(timeout) : INT64_MAX;
	int64_t budget =
		nbusy > 0 ? lp_wait_sock_budget(start, SOCK_SPIN_NS) : 0;
	int64_t last = start;
	int m;
	while (budget != 0) {
		if ((m = poll_fds(&zero)) != 0) {
			if (m > 0)
				lp_wait_done(mono_ns() - start, budget, 0);
			return m;
		}
		int64_t now = mono_ns();
		if (lp_wait_gap(last, now))
			break;
		last = now;
		if (now >= deadline)
			return 0;
		if (now - start >= budget)
			break;
	}
	int64_t cap = -1;
	int n = spin_n ? sleep_begin(&cap) : 0;
	if (n > 0)
		return n;
	struct timespec t;
	m = poll_fds(left_of(deadline, cap, &t));
	sleep_end(spin_n);
	n = spin_n ? probe() : 0;
	if (m > 0 || n > 0)
		lp_wait_done(mono_ns() - start, budget, 1);
	return m < 0 && n == 0 ? m : n + (m > 0 ? m : 0);
}

static int spin_progress(const struct timespec *timeout)
{
	static const struct timespec zero;
	static unsigned calls;
	static int64_t last_sock;

	int n = probe();
	if (timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0) {
		/* a look at everything (pvm_nrecv, pvm_probe, events) */
		last_sock = mono_ns();
		int m = poll_fds(timeout);
		return m > 0 ? n + m : n ? n : m;
	}
	if (n > 0) {
		/* busy with the rings: the sockets now and then all the same */
		if (++calls % CLOCK_EVERY == 0) {
			int64_t now = mono_ns();
			if (now - last_sock >= SOCK_NS) {
				last_sock = now;
				int m = poll_fds(&zero);
				if (m > 0)
					n += m;
			}
		}
		return n;
	}
	int64_t start = mono_ns();
	int64_t deadline = timeout ? start + ts_ns(timeout) : INT64_MAX;
	long probes = 0;
	int64_t last_yield = start, last = start;
	int shared = 0; /* the scheduler gave our CPU to another task */
	/* (probes counted as the program's PvmPollTime asks) */
	/* No sender has a ring in our inbox and nothing of ours waits for
	 * room: what comes next can only come by a socket (a task of another
	 * host), or from a new local sender, which wakes us.  Spinning would
	 * only delay the socket and take the core the pvmds and the network
	 * need: sleep at once. */
	if (lp_poll_type != PvmPollConstant && all_quiet())
		return sock_spin(timeout, start);
	int64_t budget = lp_poll_type == PvmPollConstant
				 ? -1
				 : lp_wait_budget(start, crowd);
	while (budget != 0) {
		if ((n = probe()) > 0) {
			lp_wait_done(mono_ns() - start, budget, 0);
			return n;
		}
		if (++probes % CLOCK_EVERY)
			continue;
		int64_t now = mono_ns();
		shared |= lp_wait_gap(last, now);
		last = now;
		if (now - last_yield >= YIELD_NS) {
			/* a partner waiting for our core (more runnable tasks
			 * than cores) gets it now and then */
			sched_yield();
			last = last_yield = mono_ns();
			shared |= lp_wait_yielded(last_yield - now);
		}
		if (now - last_sock >= SOCK_NS) {
			last_sock = now;
			int m = poll_fds(&zero);
			if (m != 0)
				return m;
		}
		if (now >= deadline)
			return 0;
		if (budget > 0 &&
		    (probes >= lp_poll_time || now - start >= budget || shared))
			break;
	}
	int64_t cap;
	if ((n = sleep_begin(&cap)) > 0)
		return n;
	struct timespec t;
	int m = poll_fds(left_of(deadline, cap, &t));
	sleep_end(spin_n);
	last_sock = mono_ns();
	n = probe();
	if (n > 0 || m > 0)
		lp_wait_done(last_sock - start, budget, 1);
	return m < 0 && n == 0 ? m : n + (m > 0 ? m : 0);
}

int lp_progress(const struct timespec *timeout)
{
	lp_conn_reap();
	if (spin_active())
		return spin_progress(timeout);
	if (nbusy > 0 && lp_poll_type != PvmPollConstant &&
	    !(timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0))
		return sock_spin(timeout, mono_ns());
	return poll_fds(timeout);
}

int lp_tran_fds(int **fds)
{
	static int *v;
	static int cap;
	struct lp_conn *pc = lp_pvmd_conn();
	int n = 0;

	lp_route_watch_fds();

	if (nall + 1 > cap) {
		int *nv = realloc(v, sizeof *nv * (size_t)(nall + 8));
		if (!nv)
			return PvmNoMem;
		v = nv;
		cap = nall + 8;
	}
	if (pc)
		v[n++] = pc->fd;
	for (struct lp_pollable *p = all; p; p = p->next)
		if (!pc || p != &pc->pl)
			v[n++] = p->fd;
	if (fds)
		*fds = v;
	return n;
}
