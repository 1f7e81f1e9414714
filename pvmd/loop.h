/*
 * loop.h - the pvmd's single-threaded event loop (epoll).
 *
 * File descriptors are watched through caller-owned `struct loop_io`s, timers
 * through caller-owned `struct loop_timer`s kept in a min-heap.  A
 * before-sleep hook runs after each batch of events (the pvmd flushes output
 * queues and frees closed connections there).  Objects that own an loop_io
 * must not be freed while a batch is being dispatched: hand them to
 * loop_defer() instead, which frees them after the batch.
 */
#ifndef PVMD_LOOP_H
#define PVMD_LOOP_H

#include <stddef.h>
#include <stdint.h>

/* The events a loop_io watches and reports: epoll's values (loop.c
 * checks), so that callers need not include <sys/epoll.h>. */
#define LOOP_IN	 0x001u
#define LOOP_OUT 0x004u
#define LOOP_ERR 0x008u
#define LOOP_HUP 0x010u

struct loop;
struct loop_io;
struct loop_timer;

typedef void (*loop_io_cb)(struct loop *l, struct loop_io *io,
			   uint32_t revents);
typedef void (*loop_timer_cb)(struct loop *l, struct loop_timer *t);
typedef void (*loop_hook_cb)(struct loop *l, void *data);

struct loop_io {
	int fd;		 /* -1 once removed: pending events are skipped */
	uint32_t events; /* LOOP_IN / LOOP_OUT currently watched */
	loop_io_cb cb;
	void *data;
};

struct loop_timer {
	uint64_t when; /* monotonic ms */
	size_t slot;   /* position in the heap, or (size_t)-1 if not armed */
	loop_timer_cb cb;
	void *data;
};

struct loop *loop_new(void);
void loop_free(struct loop *l);

/* Watches io->fd for `events`.  Returns 0 or -1 (errno set). */
int loop_io_start(struct loop *l, struct loop_io *io, int fd, uint32_t events,
		  loop_io_cb cb, void *data);
/* Changes the watched events (no system call if unchanged). */
int loop_io_set(struct loop *l, struct loop_io *io, uint32_t events);
/* Stops watching; does not close the fd.  Sets io->fd to -1. */
void loop_io_stop(struct loop *l, struct loop_io *io);

void loop_timer_init(struct loop_timer *t, loop_timer_cb cb, void *data);
/* (Re)arms the timer to fire once after `ms` milliseconds. */
int loop_timer_start(struct loop *l, struct loop_timer *t, uint64_t ms);
void loop_timer_stop(struct loop *l, struct loop_timer *t);

void loop_set_before_sleep(struct loop *l, loop_hook_cb cb, void *data);
/* After a turn that had work, polls for up to `ns` before it sleeps,
 * when may_spin(now) says so (NULL: always); 0 turns it off. */
void loop_set_spin(struct loop *l, int64_t ns, int (*may_spin)(int64_t now));
/* Calls fn(p) after the current batch of events (or at once outside one). */
void loop_defer(struct loop *l, void (*fn)(void *), void *p);

/* Runs until loop_stop(). Returns 0, or -1 if epoll_wait fails. */
int loop_run(struct loop *l);
/* One turn of loop_run: the before-sleep hook, then what is ready within
 * timeout_ms (-1: until the next timer or event).  Returns how many
 * descriptors were ready (0 also after loop_stop), -1 if epoll_wait
 * fails.  For harnesses that drive the loop themselves (the fuzzers). */
int loop_run_once(struct loop *l, int timeout_ms);
void loop_stop(struct loop *l);

uint64_t loop_now_ms(void);

#endif /* PVMD_LOOP_H */
