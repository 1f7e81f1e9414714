/*
 * cpu.h - a pause for spin loops, on every architecture we build for.
 *
 * x86's PAUSE tells the core (and its hyper-thread sibling) that we
 * spin; aarch64's YIELD and POWER's "or 27,27,27" say the same.  Where
 * there is no such hint (s390x, others) a compiler barrier keeps the
 * loop re-reading memory, which is all correctness needs.
 */
#ifndef PVM_COMMON_CPU_H
#define PVM_COMMON_CPU_H

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__) || (defined(__arm__) && __ARM_ARCH >= 7)
	__asm__ __volatile__("yield" ::: "memory");
#elif defined(__powerpc__) || defined(__powerpc64__)
	__asm__ __volatile__("or 27,27,27" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* PVM_COMMON_CPU_H */
