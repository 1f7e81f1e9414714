/*
 * tpattern.h - a byte pattern for message bodies that the receiver checks
 * (test/progs/pt_shm.c, pt_stream.c, pt_pull.c, pt_tran.c): byte i of
 * pattern `seed`.
 */
#ifndef PVM_TPATTERN_H
#define PVM_TPATTERN_H

#include <stddef.h>
#include <stdint.h>

static __attribute__((unused)) uint8_t pat(uint64_t i, unsigned seed)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL ^ seed;
	return (uint8_t)(x >> 29 ^ x >> 7);
}

static __attribute__((unused)) void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = pat(i, seed);
}

/* index of the first wrong byte, or -1 */
static __attribute__((unused)) long bad(const uint8_t *p, size_t n,
					unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != pat(i, seed))
			return (long)i;
	return -1;
}

#endif /* PVM_TPATTERN_H */
