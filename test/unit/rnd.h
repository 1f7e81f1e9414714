/*
 * rnd.h - a small deterministic random generator for the C unit tests
 * (xorshift32): the same sequence on every run, so that a failure can be
 * reproduced; rnd_seed() picks a test's own sequence.
 */
#ifndef PVM_TEST_RND_H
#define PVM_TEST_RND_H

#include <stdint.h>

static uint32_t rnd_state = 2463534242u;

__attribute__((unused)) static void rnd_seed(uint32_t seed)
{
	rnd_state = seed ? seed : 2463534242u; /* 0 would stay 0 */
}

__attribute__((unused)) static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

#endif /* PVM_TEST_RND_H */
