/*
 * rundelay.h - whether other threads keep this thread waiting for a CPU,
 * the test that turns busy-polling off in libpvm's waits and in the
 * pvmd's loop: polling only pays while the poller does not take the CPU
 * someone runnable needs.
 */
#ifndef PVM_COMMON_RUNDELAY_H
#define PVM_COMMON_RUNDELAY_H

#include <stdint.h>

/* 1 when this thread spent more than pct % of the last 10 ms (or more)
 * runnable but not running (run_delay, field 2 of
 * /proc/thread-self/schedstat), 0 when not, -1 when the kernel does not
 * tell.  Unlike the system's count of runnable threads it does not count
 * SCHED_IDLE tasks, which never keep us waiting.  Reads the file at most
 * every 10 ms (about 1 us a read); `now` is mono_ns(). */
int rundelay_loaded(int64_t now, int pct);

#endif /* PVM_COMMON_RUNDELAY_H */
