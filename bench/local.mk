# bench/: pingpong, one source measured against our system and the Debian
# reference.  "make bench" builds it and runs both side by side
# (bench/run-pingpong.sh; see bench/README.md).
noinst_PROGRAMS += bench/pingpong
bench_pingpong_SOURCES = bench/pingpong.c
bench_pingpong_LDADD = libpvm/libpvm3.la
# -no-install: a real binary that finds the build tree's library by rpath,
# so the pvmd can spawn it by absolute path without LD_LIBRARY_PATH.
bench_pingpong_LDFLAGS = -no-install
EXTRA_DIST += bench/run-pingpong.sh bench/pingpong-table.awk

.PHONY: bench
bench: bench/pingpong$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-pingpong.sh $(abs_top_builddir)
