# common/: small pieces that pvmd and libpvm both compile in, included by
# folder (#include "common/clock.h"): the monotonic clock and the
# int-keyed hash table (pvmd's for now; libpvm's two fixed tables on the
# send path move to it once benchmarks say it costs nothing there).
noinst_HEADERS += common/clock.h common/cpu.h common/version.h

# Unit tests beside their code (test/run.sh runs every common/*_test).
check_PROGRAMS += common/idhash_test
common_idhash_test_SOURCES = common/idhash_test.c common/idhash.c \
	test/unit/tap.h
