/*
 * loop_test.c - the pvmd's event loop (loop.c) on its own: timers fire
 * in deadline order (random starts, re-arms and stops checked against a
 * model, equal deadlines, timers stopped and re-armed from inside
 * callbacks), a stopped timer never fires, loop_defer'd functions run after
 * the batch that deferred them, and a pipe watcher fires when readable and
 * not once stopped, also when stopped by another callback of the same
 * batch; after a turn with work the loop polls before it sleeps, within
 * the caller's timeout, only when may_spin agrees.  Prints TAP.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include "pvmd/loop.h"
#include "test/unit/rnd.h"
#include "test/unit/tap.h"

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
	while (nanosleep(&ts, &ts) < 0)
		;
}

/* A timer of the tests: what it is and what happened to it. */
struct tt {
	struct loop_timer t;
	int id;
	int fired;     /* times its callback ran */
	uint64_t late; /* now - when at its first firing (ms; 0 if early) */
	int early;     /* fired before its deadline */
};

/* The order timers fired in, across a run. */
#define MAXLOG 4096
static struct tt *firelog[MAXLOG];
static uint64_t firewhen[MAXLOG];
static int nlog;

static void record(struct tt *x)
{
	uint64_t now = loop_now_ms();
	if (now < x->t.when)
		x->early = 1;
	if (!x->fired)
		x->late = now - x->t.when;
	x->fired++;
	if (nlog < MAXLOG) {
		firewhen[nlog] = x->t.when;
		firelog[nlog++] = x;
	}
}

static void cb_record(struct loop *l, struct loop_timer *t)
{
	(void)l;
	record(t->data);
}

static void cb_stop_loop(struct loop *l, struct loop_timer *t)
{
	(void)t;
	loop_stop(l);
}

/* Did the log fire in non-decreasing deadline order? */
static int log_in_order(void)
{
	for (int i = 1; i < nlog; i++)
		if (firewhen[i] < firewhen[i - 1])
			return 0;
	return 1;
}

/* Runs the loop until `stop` fires; a safety timer of 3 s ends a run that
 * would hang.  Returns 1 if `stop` ended it. */
static struct loop_timer safety;
static int safety_fired;
static void cb_safety(struct loop *l, struct loop_timer *t)
{
	(void)t;
	safety_fired = 1;
	loop_stop(l);
}
static int run(struct loop *l)
{
	safety_fired = 0;
	loop_timer_init(&safety, cb_safety, NULL);
	loop_timer_start(l, &safety, 3000);
	int r = loop_run(l);
	loop_timer_stop(l, &safety);
	return r == 0 && !safety_fired;
}

/* ---- timer order against a model ---- */

#define NT 300

static void test_heap_model(void)
{
	struct loop *l = loop_new();
	static struct tt t[NT];
	int armed[NT] = {0};
	for (int i = 0; i < NT; i++) {
		memset(&t[i], 0, sizeof t[i]);
		t[i].id = i;
		loop_timer_init(&t[i].t, cb_record, &t[i]);
	}
	/* random starts, re-arms and stops; the model is `armed` */
	int ops = 0;
	for (int k = 0; k < 5000; k++) {
		int i = (int)(rnd() % NT);
		if (rnd() % 3) {
			if (loop_timer_start(l, &t[i].t, rnd() % 40) == 0)
				armed[i] = 1;
		} else {
			loop_timer_stop(l, &t[i].t);
			armed[i] = 0;
		}
		ops++;
	}
	int nstopped = 0, slots = 1;
	for (int i = 0; i < NT; i++) {
		nstopped += !armed[i];
		slots &= armed[i] ? t[i].t.slot != (size_t)-1
				  : t[i].t.slot == (size_t)-1;
	}
	ok(slots,
	   "after %d random starts, re-arms and stops, exactly the %d armed timers have a heap slot",
	   ops, NT - nstopped);

	/* every deadline has passed: one batch fires them all, and the heap
	 * must hand them out smallest deadline first */
	struct loop_timer stop;
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &stop, 45);
	sleep_ms(60);
	nlog = 0;
	int ran = run(l);
	int wrong = 0, early = 0;
	for (int i = 0; i < NT; i++) {
		wrong += t[i].fired != armed[i];
		early += t[i].early;
	}
	ok(ran && !wrong && nlog == NT - nstopped,
	   "every armed timer fired once, none of the %d stopped ones (%d wrong)",
	   nstopped, wrong);
	ok(log_in_order() && !early,
	   "in one batch the %d timers fired in deadline order, none before its deadline",
	   nlog);
	loop_free(l);
}

/* Timers that come due while the loop waits: each fires at or after its
 * deadline, in deadline order, and the loop sleeps meanwhile. */
static void test_timers_in_time(void)
{
	struct loop *l = loop_new();
	static struct tt t[40];
	uint64_t start = loop_now_ms();
	for (int i = 0; i < 40; i++) {
		memset(&t[i], 0, sizeof t[i]);
		loop_timer_init(&t[i].t, cb_record, &t[i]);
		/* descending and repeated deadlines: 0..19 ms, twice */
		loop_timer_start(l, &t[i].t, (uint64_t)(19 - i % 20));
	}
	struct loop_timer stop;
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &stop, 30);
	nlog = 0;
	int ran = run(l);
	uint64_t took = loop_now_ms() - start;
	int early = 0, all = 1, pairs = 0;
	for (int i = 0; i < 40; i++) {
		early += t[i].early;
		all &= t[i].fired == 1;
	}
	for (int i = 0; i < 20; i++)
		pairs += t[i].t.when == t[i + 20].t.when;
	ok(ran && all && nlog == 40 && log_in_order() && !early,
	   "40 timers of 0..19 ms started in descending order fire in deadline order, none early");
	ok(took >= 30 && took < 3000,
	   "the run ended with the 30 ms timer (%llu ms)",
	   (unsigned long long)took);
	diag("%d of 20 pairs of timers started with the same delay had the same deadline",
	     pairs);
	loop_free(l);
}

/* Equal deadlines: timers whose deadline is one and the same all fire,
 * in the same batch. */
static void test_equal_deadlines(void)
{
	struct loop *l = loop_new();
	static struct tt t[64];
	int same = 0;
	for (int i = 0; i < 64; i++) {
		memset(&t[i], 0, sizeof t[i]);
		loop_timer_init(&t[i].t, cb_record, &t[i]);
	}
	/* start them until all 64 share a millisecond (a tick between two
	 * starts restarts the set) */
	for (int attempt = 0; attempt < 20 && !same; attempt++) {
		for (int i = 0; i < 64; i++)
			loop_timer_start(l, &t[i].t, 5);
		same = 1;
		for (int i = 1; i < 64; i++)
			same &= t[i].t.when == t[0].t.when;
	}
	struct loop_timer stop;
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &stop, 5);
	ok(same, "64 timers started with the same delay share one deadline");
	nlog = 0;
	int ran = run(l);
	int all = 1;
	for (int i = 0; i < 64; i++)
		all &= t[i].fired == 1 && !t[i].early;
	ok(ran && all && nlog == 64,
	   "all 64 timers with the same deadline fire, once each");
	loop_free(l);
}

/* ---- timers changed from inside callbacks ---- */

static struct tt a, b, c, d, e, g, h;
static int g_rearms;

/* The run ends once c (re-armed) and g (re-arming) are done, whatever the
 * scheduler did to the times in between. */
static void maybe_stop(struct loop *l)
{
	if (c.fired && g.fired == 6)
		loop_stop(l);
}

static void cb_c(struct loop *l, struct loop_timer *t)
{
	record(t->data);
	maybe_stop(l);
}

static void cb_a(struct loop *l, struct loop_timer *t)
{
	record(t->data);
	loop_timer_stop(l, &b.t);      /* due in this batch: must not fire */
	loop_timer_start(l, &c.t, 20); /* due in this batch: moves on */
	loop_timer_start(l, &d.t, 0);  /* not armed before: fires too */
	loop_timer_stop(l, t);	       /* itself: already off the heap */
}

static void cb_g(struct loop *l, struct loop_timer *t)
{
	record(t->data);
	if (g_rearms < 5) {
		g_rearms++;
		loop_timer_start(l, t, 2);
	}
	maybe_stop(l);
}

static void cb_h(struct loop *l, struct loop_timer *t)
{
	record(t->data);
	/* re-armed and stopped again before it fires: it never does */
	loop_timer_start(l, &e.t, 1);
	loop_timer_stop(l, &e.t);
}

static void test_callbacks(void)
{
	struct loop *l = loop_new();
	struct tt *all[] = {&a, &b, &c, &d, &e, &g, &h};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		memset(all[i], 0, sizeof *all[i]);
		all[i]->id = (int)i;
	}
	loop_timer_init(&a.t, cb_a, &a);
	loop_timer_init(&b.t, cb_record, &b);
	loop_timer_init(&c.t, cb_c, &c);
	loop_timer_init(&d.t, cb_record, &d);
	loop_timer_init(&e.t, cb_record, &e);
	loop_timer_init(&g.t, cb_g, &g);
	loop_timer_init(&h.t, cb_h, &h);
	g_rearms = 0;
	loop_timer_start(l, &a.t, 1);
	loop_timer_start(l, &b.t, 2);
	loop_timer_start(l, &c.t, 3);
	loop_timer_start(l, &h.t, 3);
	loop_timer_start(l, &e.t, 4);
	loop_timer_start(l, &g.t, 0);
	sleep_ms(10); /* a, b, c, e, g and h are all due in the first batch */
	nlog = 0;
	uint64_t start = loop_now_ms();
	int ran = run(l);
	ok(ran && a.fired == 1 && b.fired == 0,
	   "a timer stopped by an earlier callback of the same batch does not fire");
	ok(c.fired == 1 && !c.early && c.t.when >= start + 20,
	   "a due timer re-armed by a callback fires once, at its new deadline");
	ok(d.fired == 1 && !d.early,
	   "a timer first started by a callback, for 0 ms, fires");
	ok(h.fired == 1 && e.fired == 0,
	   "a timer re-armed and stopped again by a callback never fires");
	ok(g.fired == 6 && !g.early,
	   "a timer re-arming itself 5 times fires 6 times (%d)", g.fired);
	ok(log_in_order(), "the %d firings were in deadline order", nlog);
	loop_free(l);
}

/* ---- loop_defer ---- */

struct obj {
	int freed;
	int id;
};
static int defer_order[16], ndefer_order;

static void obj_free(void *p)
{
	struct obj *o = p;
	o->freed = 1;
	defer_order[ndefer_order++] = o->id;
}

static struct obj o1, o2, o3, o4;
static int seen_o1_in_batch, seen_o1_before_sleep, hook_calls;
static int o3_at_hook_return;

static void cb_defer_o1(struct loop *l, struct loop_timer *t)
{
	(void)t;
	loop_defer(l, obj_free, &o1);
	seen_o1_in_batch = !o1.freed; /* not at once */
}

static void cb_check_o1(struct loop *l, struct loop_timer *t)
{
	(void)l;
	(void)t;
	seen_o1_in_batch &= !o1.freed; /* nor later in the batch */
}

/* A deferred function that defers another: that one runs too. */
static void defer_more(void *p)
{
	struct loop *l = p;
	obj_free(&o4);
	loop_defer(l, obj_free, &o2);
}

static void hook(struct loop *l, void *data)
{
	(void)data;
	hook_calls++;
	if (hook_calls == 2) {
		/* the batch of the timers has ended before this */
		seen_o1_before_sleep = o1.freed;
		/* deferred from the hook: after it returns */
		loop_defer(l, obj_free, &o3);
		loop_defer(l, defer_more, l);
		o3_at_hook_return = o3.freed;
	}
}

static void test_defer(void)
{
	struct loop *l = loop_new();
	struct obj *all[] = {&o1, &o2, &o3, &o4};
	for (int i = 0; i < 4; i++) {
		memset(all[i], 0, sizeof *all[i]);
		all[i]->id = i + 1;
	}
	ndefer_order = 0;
	struct obj now = {.id = 9};
	loop_defer(l, obj_free, &now);
	ok(now.freed, "loop_defer outside a batch calls the function at once");

	loop_set_before_sleep(l, hook, NULL);
	struct loop_timer t1, t2, stop;
	loop_timer_init(&t1, cb_defer_o1, NULL);
	loop_timer_init(&t2, cb_check_o1, NULL);
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &t1, 1);
	loop_timer_start(l, &t2, 2);
	loop_timer_start(l, &stop, 20);
	sleep_ms(5);
	hook_calls = 0;
	int ran = run(l);
	ok(ran && seen_o1_in_batch,
	   "a function deferred by a callback has not run when it returns, nor in the batch's later callbacks");
	ok(seen_o1_before_sleep,
	   "... and has run before the next before-sleep hook");
	ok(!o3_at_hook_return && o3.freed,
	   "a function deferred by the before-sleep hook runs after the hook returns");
	ok(o4.freed && o2.freed,
	   "a deferred function that defers another: both run before the loop sleeps");
	loop_free(l);
}

/* ---- fd watchers ---- */

struct watch {
	struct loop_io io;
	int fires;
	uint32_t revents;
	int fd_w;	     /* the pipe's write end */
	int stop_self;	     /* stop on the first firing and make it readable */
	struct watch *other; /* stopped and deferred-freed by this one */
	int freed;
	int saw_other_freed;
};

static void watch_free(void *p)
{
	((struct watch *)p)->freed = 1;
}

static void cb_watch(struct loop *l, struct loop_io *io, uint32_t revents)
{
	struct watch *w = io->data;
	w->fires++;
	w->revents |= revents;
	char ch;
	if (revents & EPOLLIN)
		(void)!read(io->fd, &ch, 1);
	if (revents & EPOLLHUP)
		loop_io_stop(l, io); /* would fire on every pass */
	if (w->stop_self) {
		loop_io_stop(l, io);
		/* readable again: a stopped watcher must not see it */
		(void)!write(w->fd_w, "y", 1);
	}
	if (w->other && w->other->io.fd >= 0) {
		loop_io_stop(l, &w->other->io);
		loop_defer(l, watch_free, w->other);
		w->saw_other_freed = w->other->freed;
	}
}

static void test_io(void)
{
	struct loop *l = loop_new();
	int p[2];
	if (pipe(p) < 0)
		abort();
	struct watch w = {.fd_w = p[1], .stop_self = 1};
	ok(loop_io_start(l, &w.io, p[0], EPOLLIN, cb_watch, &w) == 0 &&
		   w.io.fd == p[0],
	   "a pipe's read end is watched");
	(void)!write(p[1], "x", 1);
	struct loop_timer stop;
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &stop, 50);
	int ran = run(l);
	ok(ran && w.fires == 1 && (w.revents & EPOLLIN),
	   "it fires for readability, and not after it stopped itself though readable again (%d firings)",
	   w.fires);
	ok(w.io.fd == -1, "loop_io_stop sets fd to -1");

	/* loop_io_set: no events, no firing; EPOLLIN again, firing */
	struct watch v = {.fd_w = p[1]};
	loop_io_start(l, &v.io, p[0], EPOLLIN, cb_watch, &v);
	loop_io_set(l, &v.io, 0);
	loop_timer_start(l, &stop, 30);
	ran = run(l);
	int quiet = ran && v.fires == 0;
	loop_io_set(l, &v.io, EPOLLIN);
	loop_timer_start(l, &stop, 30);
	ran = run(l);
	ok(quiet && ran && v.fires == 1 && (v.revents & EPOLLIN),
	   "with its events set to 0 a readable pipe does not fire; set back to EPOLLIN it does");

	/* the writer closes: hang-up */
	close(p[1]);
	v.revents = 0;
	v.fires = 0;
	loop_timer_start(l, &stop, 30);
	ran = run(l);
	ok(ran && v.fires >= 1 && (v.revents & EPOLLHUP),
	   "the write end closed: the watcher sees EPOLLHUP");
	loop_io_stop(l, &v.io);
	close(p[0]);

	struct loop_io bad;
	ok(loop_io_start(l, &bad, -5, EPOLLIN, cb_watch, NULL) < 0 &&
		   bad.fd == -1,
	   "watching a bad fd fails and leaves fd -1");
	loop_free(l);
}

/* Two watchers ready in the same batch, each stopping and deferring the
 * free of the other: the second's pending event is skipped, and its
 * struct is freed only after the batch. */
static void test_io_stopped_in_batch(void)
{
	struct loop *l = loop_new();
	int p[2], q[2];
	if (pipe(p) < 0 || pipe(q) < 0)
		abort();
	struct watch *x = calloc(1, sizeof *x), *y = calloc(1, sizeof *y);
	x->other = y;
	y->other = x;
	loop_io_start(l, &x->io, p[0], EPOLLIN, cb_watch, x);
	loop_io_start(l, &y->io, q[0], EPOLLIN, cb_watch, y);
	(void)!write(p[1], "x", 1);
	(void)!write(q[1], "x", 1);
	struct loop_timer stop;
	loop_timer_init(&stop, cb_stop_loop, NULL);
	loop_timer_start(l, &stop, 30);
	int ran = run(l);
	ok(ran && x->fires + y->fires == 1,
	   "of two watchers ready at once that stop each other, exactly one fires (%d, %d)",
	   x->fires, y->fires);
	struct watch *first = x->fires ? x : y;
	ok(!first->saw_other_freed && first->other->freed,
	   "the one stopped is freed (deferred) after the batch, not during it");
	free(x);
	free(y);
	close(p[0]);
	close(p[1]);
	close(q[0]);
	close(q[1]);
	loop_free(l);
}

/* ---- polling before a sleep (loop_set_spin) ---- */

static int spin_asks, spin_answer;

static int may_spin(int64_t now)
{
	(void)now;
	spin_asks++;
	return spin_answer;
}

static int64_t ns_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void test_spin(void)
{
	struct loop *l = loop_new();
	int p[2];
	if (pipe(p) < 0)
		abort();
	struct watch w = {.fd_w = p[1]};
	loop_io_start(l, &w.io, p[0], EPOLLIN, cb_watch, &w);
	loop_set_spin(l, 200 * 1000000LL, may_spin); /* 200 ms */
	spin_answer = 1;

	/* an idle turn first: no spin after it */
	spin_asks = 0;
	loop_run_once(l, 0);
	int64_t t0 = ns_now();
	int n = loop_run_once(l, 20);
	int64_t idle_ms = (ns_now() - t0) / 1000000;
	ok(n == 0 && spin_asks == 0,
	   "a turn after one without work sleeps at once: may_spin not asked (%d)",
	   spin_asks);

	/* a turn with work, then one that polls: what comes meanwhile is
	 * taken, and the timeout given still bounds the wait */
	(void)!write(p[1], "x", 1);
	n = loop_run_once(l, 0);
	ok(n == 1 && w.fires == 1, "the pipe's byte is a turn with work");
	t0 = ns_now();
	n = loop_run_once(l, 30);
	int64_t spin_ms = (ns_now() - t0) / 1000000;
	ok(n == 0 && spin_asks == 1 && spin_ms >= 29 && spin_ms < 150,
	   "after it the loop polls, asks may_spin once, and returns at the caller's timeout (30 ms: %lld; idle turn %lld)",
	   (long long)spin_ms, (long long)idle_ms);

	(void)!write(p[1], "x", 1);
	loop_run_once(l, 0);
	spin_answer = 0;
	spin_asks = 0;
	t0 = ns_now();
	n = loop_run_once(l, 10);
	ok(n == 0 && spin_asks == 1,
	   "may_spin saying no: the loop sleeps (asked %d)", spin_asks);

	/* the spin itself sees a byte that comes while it polls */
	(void)!write(p[1], "x", 1);
	loop_run_once(l, 0);
	spin_answer = 1;
	loop_set_spin(l, 2 * 1000000LL, may_spin);
	(void)!write(p[1], "x", 1);
	int before = w.fires;
	n = loop_run_once(l, -1);
	ok(n == 1 && w.fires == before + 1,
	   "a byte ready during the poll is handled by that turn");
	loop_io_stop(l, &w.io);
	close(p[0]);
	close(p[1]);
	loop_free(l);
}

int main(void)
{
	rnd_seed(88172645u);
	alarm(30); /* a hung loop is a failure, not a stuck suite */
	test_heap_model();
	test_timers_in_time();
	test_equal_deadlines();
	test_callbacks();
	test_defer();
	test_io();
	test_io_stopped_in_batch();
	test_spin();
	return tap_done();
}
