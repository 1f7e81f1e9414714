/*
 * loop.h - the pvmd's single-threaded event loop (epoll).
 *
 * File descriptors are watched through caller-owned `struct ev_io`s, timers
 * through caller-owned `struct ev_timer`s kept in a min-heap.  A
 * before-sleep hook runs after each batch of events (the pvmd flushes output
 * queues and frees closed connections there).  Objects that own an ev_io
 * must not be freed while a batch is being dispatched: hand them to
 * ev_defer() instead, which frees them after the batch.
 */
#ifndef PVMD_LOOP_H
#define PVMD_LOOP_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct ev_io;
struct ev_timer;

typedef void (*ev_io_cb)(struct ev_loop *l, struct ev_io *io, uint32_t revents);
typedef void (*ev_timer_cb)(struct ev_loop *l, struct ev_timer *t);
typedef void (*ev_hook_cb)(struct ev_loop *l, void *data);

struct ev_io {
	int fd;		 /* -1 once removed: pending events are skipped */
	uint32_t events; /* EPOLLIN / EPOLLOUT currently watched */
	ev_io_cb cb;
	void *data;
};

struct ev_timer {
	uint64_t when; /* monotonic ms */
	size_t slot;   /* position in the heap, or (size_t)-1 if not armed */
	ev_timer_cb cb;
	void *data;
};

struct ev_loop *ev_loop_new(void);
void ev_loop_free(struct ev_loop *l);

/* Watches io->fd for `events`.  Returns 0 or -1 (errno set). */
int ev_io_start(struct ev_loop *l, struct ev_io *io, int fd, uint32_t events,
		ev_io_cb cb, void *data);
/* Changes the watched events (no system call if unchanged). */
int ev_io_set(struct ev_loop *l, struct ev_io *io, uint32_t events);
/* Stops watching; does not close the fd.  Sets io->fd to -1. */
void ev_io_stop(struct ev_loop *l, struct ev_io *io);

void ev_timer_init(struct ev_timer *t, ev_timer_cb cb, void *data);
/* (Re)arms the timer to fire once after `ms` milliseconds. */
int ev_timer_start(struct ev_loop *l, struct ev_timer *t, uint64_t ms);
void ev_timer_stop(struct ev_loop *l, struct ev_timer *t);

void ev_set_before_sleep(struct ev_loop *l, ev_hook_cb cb, void *data);
/* Calls fn(p) after the current batch of events (or at once outside one). */
void ev_defer(struct ev_loop *l, void (*fn)(void *), void *p);

/* Runs until ev_stop(). Returns 0, or -1 if epoll_wait fails. */
int ev_run(struct ev_loop *l);
void ev_stop(struct ev_loop *l);

uint64_t ev_now_ms(void);

#endif /* PVMD_LOOP_H */
