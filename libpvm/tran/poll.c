/*
 * poll.c - the one wait primitive (see poll.h).
 */
#define _GNU_SOURCE
#include "poll.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "conn.h"
#include "lpvm.h"
#include "tran.h"

static struct lp_pollable *all;
static int nall;

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
}

int lp_progress(const struct timespec *timeout)
{
	static struct pollfd *pfd;
	static struct lp_pollable **who;
	static int cap;

	lp_conn_reap();
	if (nall == 0)
		return -1;
	if (nall > cap) {
		int ncap = nall * 2;
		struct pollfd *np = realloc(pfd, sizeof *np * (size_t)ncap);
		if (!np)
			return -1;
		pfd = np;
		struct lp_pollable **nw = realloc(who, sizeof *nw * (size_t)ncap);
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

int lp_tran_fds(int **fds)
{
	static int *v;
	static int cap;
	struct lp_conn *pc = lp_pvmd_conn();
	int n = 0;

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
