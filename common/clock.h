/*
 * clock.h - the one monotonic clock of pvmd and libpvm.  Every timeout,
 * deadline, back-off and spin budget is measured on CLOCK_MONOTONIC
 * through these, so that a change of the wall clock never moves them.
 */
#ifndef PVM_COMMON_CLOCK_H
#define PVM_COMMON_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, as a struct timespec (for ppoll and timespec deadlines). */
static inline struct timespec mono_timespec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts;
}

/* Now, in nanoseconds. */
static inline int64_t mono_ns(void)
{
	struct timespec ts = mono_timespec();
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Now, in milliseconds. */
static inline int64_t mono_ms(void)
{
	struct timespec ts = mono_timespec();
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

#endif /* PVM_COMMON_CLOCK_H */
