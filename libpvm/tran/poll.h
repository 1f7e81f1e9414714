/*
 * poll.h - the one wait primitive of the task library.
 *
 * Everything that can make progress (connections, listening sockets;
 * later an eventfd doorbell for shared memory) registers a pollable.
 * lp_progress() polls all of them once, with a timeout, and runs the
 * handlers of those that are ready.  Receivers loop on it; nothing spins.
 */
#ifndef LPVM_TRAN_POLL_H
#define LPVM_TRAN_POLL_H

#include <time.h>

struct lp_pollable {
	int fd;
	/* poll events wanted now (POLLIN, plus POLLOUT with queued output) */
	short (*events)(struct lp_pollable *p);
	/* runs when poll reported revents != 0 */
	void (*ready)(struct lp_pollable *p, short revents);
	void *arg;
	struct lp_pollable *next, *prev;
	int registered;
	/* worth polling without blocking before a wait blocks (a direct
	 * connection to another task: waking an idle CPU costs more than a
	 * few reads that find nothing) */
	int busy_poll;
};

void lp_poll_add(struct lp_pollable *p);
void lp_poll_del(struct lp_pollable *p);
/* Marks p busy_poll (before or after lp_poll_add). */
void lp_poll_busy(struct lp_pollable *p);

/*
 * Polls every pollable once.  timeout: NULL blocks until something is
 * ready, {0,0} only looks.  Returns the number of pollables handled (0 on
 * timeout), or -1 if there is nothing at all to wait on.
 */
int lp_progress(const struct timespec *timeout);

struct lp_tran;
/* The transports whose progress operations the engine runs (route.c
 * sets them after each enrollment's init, and none at fini). */
void lp_progress_set_pollers(const struct lp_tran *const *v, int n);

/* One look at the transports polled without a descriptor (rings), with no
 * system call.  Returns the number of messages (records) they moved. */
int lp_progress_peek(void);

/* PvmPollType (PvmPollSleep by default) and PvmPollTime (probes before
 * sleeping, docs/shm.md): how lp_progress waits while it spins. */
extern int lp_poll_type;
extern int lp_poll_time;

#endif /* LPVM_TRAN_POLL_H */
