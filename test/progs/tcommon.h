/*
 * tcommon.h - small helpers shared by the test programs in test/progs.
 *
 * A top-level test program (started by a bats test) prints one line per
 * failed check ("FAIL file:line: ...") and a summary line, and exits 1 when
 * anything failed.  Spawned children cannot print (their output goes to the
 * pvmd log), so they send their findings back to the parent instead.
 */
#ifndef PVM_TCOMMON_H
#define PVM_TCOMMON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "pvm3.h"

/* One pair of counters per program, however many of its files include
 * this (weak: each file's definition is the same variable), so that
 * t_done counts the checks made in every file. */
__attribute__((weak)) int t_nfail;
__attribute__((weak)) int t_nok;

static void t_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), unused));
static void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	printf("FAIL %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	t_nfail++;
}

/* CHECK(cond, fmt, ...): counts a failure with a message when !cond. */
#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (cond)                                                      \
			t_nok++;                                               \
		else                                                           \
			t_fail(__FILE__, __LINE__, __VA_ARGS__);               \
	} while (0)

/* EQ(a, b): integer equality, printing both values. */
#define EQ(a, b)                                                               \
	do {                                                                   \
		long long t_a_ = (long long)(a), t_b_ = (long long)(b);        \
		CHECK(t_a_ == t_b_, "%s = %lld, expected %s = %lld", #a, t_a_, \
		      #b, t_b_);                                               \
	} while (0)

/* Seconds since an arbitrary start, monotonic. */
static __attribute__((unused)) double t_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __attribute__((unused)) void t_msleep(int ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* Spawns one copy of this program (`me`) as a child: argv "child" role
 * [arg].  Returns its tid, or -1 (a failed check). */
static __attribute__((unused)) int
t_spawn_self(const char *me, const char *role, const char *arg)
{
	char *av[4] = {"child", (char *)role, (char *)arg, NULL};
	int tid = 0;
	int n = pvm_spawn((char *)me, av, 0, NULL, 1, &tid);
	CHECK(n == 1 && tid > 0, "spawn %s: n=%d tid=%x", role, n, tid);
	return n == 1 ? tid : -1;
}

/* One int in a PvmDataDefault message. */
static __attribute__((unused)) void t_send_int(int tid, int tag, int v)
{
	pvm_initsend(PvmDataDefault);
	pvm_pkint(&v, 1, 1);
	pvm_send(tid, tag);
}

/* The next int of the receive buffer (-999 if there is none). */
static __attribute__((unused)) int t_upk1(void)
{
	int v = -999;
	pvm_upkint(&v, 1, 1);
	return v;
}

/* Prints the summary line and returns the exit status. */
static __attribute__((unused)) int t_done(const char *what)
{
	printf("%s: %d checks passed, %d failed\n", what, t_nok, t_nfail);
	fflush(stdout);
	return t_nfail ? 1 : 0;
}

/* Receives with a time limit so that a lost message fails instead of hanging.
 */
static __attribute__((unused)) int t_recv(int tid, int tag, double secs)
{
	struct timeval tv;
	tv.tv_sec = (long)secs;
	tv.tv_usec = (long)((secs - (long)secs) * 1e6);
	return pvm_trecv(tid, tag, &tv);
}

#endif /* PVM_TCOMMON_H */
