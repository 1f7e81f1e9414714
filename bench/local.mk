# bench/: pingpong and groups, each one source measured against our system
# and the Debian reference.  "make bench" builds them and runs both
# benchmarks, each side by side with the reference (bench/run-pingpong.sh,
# bench/run-groups.sh; see bench/README.md); "make bench-pingpong" and
# "make bench-groups" run one.
noinst_PROGRAMS += bench/pingpong
bench_pingpong_SOURCES = bench/pingpong.c
bench_pingpong_LDADD = libpvm/libpvm3.la
# -no-install: a real binary that finds the build tree's library by rpath,
# so the pvmd can spawn it by absolute path without LD_LIBRARY_PATH.
bench_pingpong_LDFLAGS = -no-install
EXTRA_DIST += bench/run-pingpong.sh bench/pingpong-table.awk

noinst_PROGRAMS += bench/groups
bench_groups_SOURCES = bench/groups.c
bench_groups_LDADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la
bench_groups_LDFLAGS = -no-install
EXTRA_DIST += bench/run-groups.sh bench/groups-table.awk bench/vms.sh

# One recipe runs both, one after the other (never in parallel under -j).
.PHONY: bench bench-pingpong bench-groups
bench: bench/pingpong$(EXEEXT) bench/groups$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-pingpong.sh $(abs_top_builddir)
	$(SHELL) $(abs_top_srcdir)/bench/run-groups.sh $(abs_top_builddir)
bench-pingpong: bench/pingpong$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-pingpong.sh $(abs_top_builddir)
bench-groups: bench/groups$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-groups.sh $(abs_top_builddir)

# spawn: N tasks started in one pvm_spawn, each replying once, against the
# reference (bench/run-spawn.sh); "make bench-spawn".
noinst_PROGRAMS += bench/spawn
bench_spawn_SOURCES = bench/spawn.c
bench_spawn_LDADD = libpvm/libpvm3.la
bench_spawn_LDFLAGS = -no-install
EXTRA_DIST += bench/run-spawn.sh
.PHONY: bench-spawn
bench-spawn: bench/spawn$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-spawn.sh $(abs_top_builddir)
