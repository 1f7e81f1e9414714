/*
 * kernel.h - loops over contiguous arrays that gcc vectorises, shared by
 * the XDR codec (xdr.c) and the conversion of other hosts' Raw data
 * (convert.c).  Why the loops look as they do is in xdr.c's comment on
 * its kernels: blocks of a fixed number of items, restrict pointers,
 * memcpy loads and stores, and on x86-64 an AVX2 clone picked at load
 * time, since a vector byte swap needs a shuffle SSE2 lacks.
 */
#ifndef LPVM_PACK_KERNEL_H
#define LPVM_PACK_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GLIBC__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define LP_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef LP_CLONES
#define LP_CLONES
#endif

#define BLK 32 /* items per block: a multiple of any vector length */

/* The contiguous kernel NAME applies STEP to words 0..n-1. */
#define KERNEL(NAME, STEP)                                                     \
	static LP_CLONES void NAME(uint8_t *restrict to,                       \
				   const uint8_t *restrict from, size_t n)     \
	{                                                                      \
		size_t w = 0;                                                  \
		for (; n - w >= BLK; w += BLK)                                 \
			for (size_t k = 0; k < BLK; k++)                       \
				STEP(to, from, w + k);                         \
		for (; w < n; w++)                                             \
			STEP(to, from, w);                                     \
	}

#endif /* LPVM_PACK_KERNEL_H */
