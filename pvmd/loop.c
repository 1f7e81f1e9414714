/*
 * loop.c - epoll event loop with a timer heap (see loop.h).
 */
#include "config.h"

#include "pvmd/loop.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

_Static_assert(LOOP_IN == EPOLLIN && LOOP_OUT == EPOLLOUT &&
		       LOOP_ERR == EPOLLERR && LOOP_HUP == EPOLLHUP,
	       "loop.h's event bits are epoll's");

#define NOT_ARMED  ((size_t)-1)
#define MAX_EVENTS 256

struct deferred {
	void (*fn)(void *);
	void *p;
};

struct loop {
	int epfd;
	int stop;
	int dispatching;
	struct loop_timer **heap;
	size_t nheap, capheap;
	struct deferred *defer;
	size_t ndefer, capdefer;
	loop_hook_cb before_sleep;
	void *before_sleep_data;
	/* spinning before a sleep (loop_set_spin) */
	int64_t spin_ns;
	int (*may_spin)(int64_t now);
	int busy; /* the last turn had work */
};

uint64_t loop_now_ms(void)
{
	return (uint64_t)mono_ms();
}

struct loop *loop_new(void)
{
	struct loop *l = calloc(1, sizeof *l);
	if (!l)
		return NULL;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void loop_free(struct loop *l)
{
	if (!l)
		return;
	close(l->epfd);
	free(l->heap);
	free(l->defer);
	free(l);
}

/* ---- fds ---- */

int loop_io_start(struct loop *l, struct loop_io *io, int fd, uint32_t events,
		  loop_io_cb cb, void *data)
{
	struct epoll_event ev = {.events = events, .data.ptr = io};
	io->fd = fd;
	io->events = events;
	io->cb = cb;
	io->data = data;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		io->fd = -1;
		return -1;
	}
	return 0;
}

int loop_io_set(struct loop *l, struct loop_io *io, uint32_t events)
{
	if (io->fd < 0 || io->events == events)
		return 0;
	struct epoll_event ev = {.events = events, .data.ptr = io};
	if (epoll_ctl(l->epfd, EPOLL_CTL_MOD, io->fd, &ev) < 0)
		return -1;
	io->events = events;
	return 0;
}

void loop_io_stop(struct loop *l, struct loop_io *io)
{
	if (io->fd < 0)
		return;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, io->fd, NULL);
	io->fd = -1;
}

/* ---- timers: binary min-heap on `when` ---- */

static void heap_place(struct loop *l, size_t i, struct loop_timer *t)
{
	l->heap[i] = t;
	t->slot = i;
}

static void heap_up(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (l->heap[parent]->when <= t->when)
			break;
		heap_place(l, i, l->heap[parent]);
		i = parent;
	}
	heap_place(l, i, t);
}

static void heap_down(struct loop *l, size_t i)
{
	struct loop_timer *t = l->heap[i];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= l->nheap)
			break;
		if (c + 1 < l->nheap && l->heap[c + 1]->when < l->heap[c]->when)
			c++;
		if (l->heap[c]->when >= t->when)
			break;
		heap_place(l, i, l->heap[c]);
		i = c;
	}
	heap_place(l, i, t);
}

void loop_timer_init(struct loop_timer *t, loop_timer_cb cb, void *data)
{
	t->when = 0;
	t->slot = NOT_ARMED;
	t->cb = cb;
	t->data = data;
}

void loop_timer_stop(struct loop *l, struct loop_timer *t)
{
	size_t i = t->slot;
	if (i == NOT_ARMED)
		return;
	t->slot = NOT_ARMED;
	l->nheap--;
	if (i == l->nheap)
		return;
	struct loop_timer *moved = l->heap[l->nheap];
	heap_place(l, i, moved);
	heap_up(l, i);
	heap_down(l, moved->slot);
}

int loop_timer_start(struct loop *l, struct loop_timer *t, uint64_t ms)
{
	loop_timer_stop(l, t);
	if (l->nheap == l->capheap) {
		size_t cap = l->capheap ? 2 * l->capheap : 16;
		struct loop_timer **h = realloc(l->heap, cap * sizeof *h);
		if (!h)
			return -1;
		l->heap = h;
		l->capheap = cap;
	}
	t->when = loop_now_ms() + ms;
	heap_place(l, l->nheap++, t);
	heap_up(l, t->slot);
	return 0;
}

static int next_timeout(struct loop *l)
{
	if (!l->nheap)
		return -1;
	uint64_t now = loop_now_ms(), when = l->heap[0]->when;
	if (when <= now)
		return 0;
	uint64_t d = when - now;
	return d > 60000 ? 60000 : (int)d;
}

static void run_timers(struct loop *l)
{
	uint64_t now = loop_now_ms();
	while (l->nheap && l->heap[0]->when <= now) {
		struct loop_timer *t = l->heap[0];
		loop_timer_stop(l, t);
		t->cb(l, t);
	}
}

/* ---- deferred frees ---- */

void loop_defer(struct loop *l, void (*fn)(void *), void *p)
{
	if (!l->dispatching) {
		fn(p);
		return;
	}
	if (l->ndefer == l->capdefer) {
		size_t cap = l->capdefer ? 2 * l->capdefer : 16;
		struct deferred *d = realloc(l->defer, cap * sizeof *d);
		if (!d) {
			/* Leaking is safer than a use-after-free. */
			return;
		}
		l->defer = d;
		l->capdefer = cap;
	}
	l->defer[l->ndefer++] = (struct deferred){fn, p};
}

static void run_deferred(struct loop *l)
{
	/* A deferred function may defer more: loop until empty. */
	while (l->ndefer) {
		struct deferred d = l->defer[--l->ndefer];
		d.fn(d.p);
	}
}

void loop_set_before_sleep(struct loop *l, loop_hook_cb cb, void *data)
{
	l->before_sleep = cb;
	l->before_sleep_data = data;
}

void loop_set_spin(struct loop *l, int64_t ns, int (*may_spin)(int64_t now))
{
	l->spin_ns = ns;
	l->may_spin = may_spin;
}

void loop_stop(struct loop *l)
{
	l->stop = 1;
}

int loop_run_once(struct loop *l, int timeout_ms)
{
	struct epoll_event evs[MAX_EVENTS];

	l->dispatching = 1;
	if (l->before_sleep)
		l->before_sleep(l, l->before_sleep_data);
	l->dispatching = 0;
	run_deferred(l);
	if (l->stop)
		return 0;

	int next = next_timeout(l);
	if (timeout_ms >= 0 && (next < 0 || next > timeout_ms))
		next = timeout_ms;
	int n = 0;
	if (l->spin_ns > 0 && l->busy && next != 0) {
		/* traffic just passed: what answers it often comes within
		 * microseconds, and a sleeping vCPU takes 15-25 us to wake */
		int64_t t0 = mono_ns(), now = t0;
		int64_t until = t0 + l->spin_ns;
		if (next > 0 && t0 + (int64_t)next * 1000000 < until)
			until = t0 + (int64_t)next * 1000000;
		if (!l->may_spin || l->may_spin(t0))
			while (now < until &&
			       (n = epoll_wait(l->epfd, evs, MAX_EVENTS, 0)) ==
				       0) {
				/* a task runnable on this CPU (often the one
				 * just woken) runs first */
				sched_yield();
				now = mono_ns();
			}
		if (n == 0 && next > 0) {
			next -= (int)((now - t0) / 1000000);
			if (next < 0)
				next = 0;
		}
	}
	if (n == 0)
		n = epoll_wait(l->epfd, evs, MAX_EVENTS, next);
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	l->busy = n > 0;
	l->dispatching = 1;
	for (int i = 0; i < n; i++) {
		struct loop_io *io = evs[i].data.ptr;
		if (io->fd < 0)
			continue; /* stopped earlier in this batch */
		io->cb(l, io, evs[i].events);
	}
	run_timers(l);
	l->dispatching = 0;
	run_deferred(l);
	return n;
}

int loop_run(struct loop *l)
{
	l->stop = 0;
	while (!l->stop)
		if (loop_run_once(l, -1) < 0)
			return -1;
	return 0;
}
