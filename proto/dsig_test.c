/*
 * dsig_test.c - unit test of proto/dsig.h: the reference's signatures of
 * the architectures we build for, this build's own, and what a signature
 * says back.  Prints TAP.
 */
#include "config.h"

#include <stdio.h>

#include "proto/dsig.h"
#include "test/unit/tap.h"

static void is(int32_t got, int32_t want, const char *what)
{
	if (!ok(got == want, "%s: 0x%08x", what, (unsigned)want))
		diag("got 0x%08x", (unsigned)got);
}

int main(void)
{
	/* PVM 3.4.6 as Debian builds it (pvm_config's hi_dsig) */
	is(DSIG_MAKE(0, 2, 4, 8), 0x00408c41, "LINUX64 (x86_64, LP64)");
	is(DSIG_MAKE(0, 2, 4, 4), 0x00408841, "LINUX (i386, ILP32)");
	is(DSIG_MAKE(1, 2, 4, 8), 0x0658ef59, "LINUXS390 (s390x, big-endian)");

#if defined(__x86_64__) && !defined(__ILP32__)
	is(DSIG_NATIVE, 0x00408c41, "this build (x86_64)");
#elif defined(__i386__)
	is(DSIG_NATIVE, 0x00408841, "this build (i386)");
#elif defined(__s390x__)
	is(DSIG_NATIVE, 0x0658ef59, "this build (s390x)");
#else
	ok(1, "this build: 0x%08x (no reference value for it) # SKIP",
	   (unsigned)DSIG_NATIVE);
#endif
	/* a switch case needs a constant expression (pkmesg.c uses one) */
	switch (0x00408c41) {
	case DSIG_MAKE(0, 2, 4, 8):
		ok(1, "DSIG_MAKE is a constant expression");
		break;
	default:
		ok(0, "DSIG_MAKE is a constant expression");
	}

	ok(!dsig_big_endian(0x00408c41) && !dsig_big_endian(0x00408841) &&
		   dsig_big_endian(0x0658ef59),
	   "byte order read back from each");
	ok(dsig_long_size(0x00408c41) == 8 && dsig_long_size(0x00408841) == 4 &&
		   dsig_long_size(0x0658ef59) == 8,
	   "size of long read back from each");
	ok(dsig_big_endian(DSIG_NATIVE) ==
			   (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) &&
		   dsig_long_size(DSIG_NATIVE) == (int)sizeof(long),
	   "this build's read back: big-endian %d, long of %d bytes",
	   dsig_big_endian(DSIG_NATIVE), dsig_long_size(DSIG_NATIVE));
	return tap_done();
}
