# bench/: pingpong and groups, each one source measured against our system
# and the Debian reference.  "make bench" builds them and runs both
# benchmarks, each side by side with the reference (bench/run-pingpong.sh,
# bench/run-groups.sh; see bench/README.md); "make bench-pingpong" and
# "make bench-groups" run one.
noinst_PROGRAMS += bench/pingpong
bench_pingpong_SOURCES = bench/pingpong.c bench/timing.h
bench_pingpong_LDADD = libpvm/libpvm3.la
# -no-install: a real binary that finds the build tree's library by rpath,
# so the pvmd can spawn it by absolute path without LD_LIBRARY_PATH.
bench_pingpong_LDFLAGS = -no-install
EXTRA_DIST += bench/run-pingpong.sh bench/pingpong-table.awk bench/stats.awk

noinst_PROGRAMS += bench/groups
bench_groups_SOURCES = bench/groups.c bench/timing.h
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

# bench/xdr: pvm_pk*/pvm_upk* of large int and double arrays (Default and
# Raw), ours against the reference (bench/run-xdr.sh).
noinst_PROGRAMS += bench/xdr
bench_xdr_SOURCES = bench/xdr.c
bench_xdr_LDADD = libpvm/libpvm3.la
bench_xdr_LDFLAGS = -no-install
EXTRA_DIST += bench/run-xdr.sh bench/xdr-table.awk
.PHONY: bench-xdr
bench-xdr: bench/xdr$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-xdr.sh $(abs_top_builddir)

# Issue 6, one host: "make bench-local" runs ours (default route, and
# PVM_SHM=0), the reference, Open MPI, MPICH and memcpy in one run
# (bench/run-local.sh, see bench/README.md).  The MPI twin of pingpong,
# bench/pingpong_mpi.c, is built by that script with mpicc.openmpi and
# mpicc.mpich when they are installed, never by "make": CI needs no MPI.
noinst_PROGRAMS += bench/alltoall
bench_alltoall_SOURCES = bench/alltoall.c bench/timing.h
bench_alltoall_LDADD = libpvm/libpvm3.la
bench_alltoall_LDFLAGS = -no-install
noinst_PROGRAMS += bench/memcpy
bench_memcpy_SOURCES = bench/memcpy.c bench/timing.h
EXTRA_DIST += bench/run-local.sh bench/local-table.awk bench/local-cores.awk \
	bench/pingpong_mpi.c \
	bench/RESULTS.md
.PHONY: bench-local
bench-local: bench/pingpong$(EXEEXT) bench/alltoall$(EXEEXT) bench/memcpy$(EXEEXT) pvmd/pvmd$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-local.sh $(abs_top_builddir)

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

# Issue 7, two hosts: "make bench-hosts" runs pingpong with its partner on
# another host (test/hosts.bash: network namespaces, needs root), ours
# against the reference, through the pvmds and direct (bench/run-hosts.sh).
# bench/rawtcp is the floor: a plain TCP ping-pong, blocking and polling.
noinst_PROGRAMS += bench/rawtcp
bench_rawtcp_SOURCES = bench/rawtcp.c bench/timing.h
EXTRA_DIST += bench/run-hosts.sh bench/hosts-table.awk bench/hosts-floor.awk
.PHONY: bench-hosts
bench-hosts: bench/pingpong$(EXEEXT) bench/rawtcp$(EXEEXT) pvmd/pvmd$(EXEEXT) console/pvm$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-hosts.sh $(abs_top_builddir)

# Two builds of ours, before and after a change, in one interleaved run
# (bench/run-ab.sh, see bench/README.md): per cell each build's median and
# spread, after/before, and a flag where after leaves before's range.
#   make bench-ab BEFORE=/path/to/other/build [KIND=local|hosts|groups|all] [ROUNDS=N]
# AFTER is this build tree; BEFORE must be built (make, and its
# bench/pingpong, bench/groups); KIND hosts (part of all) needs root.
EXTRA_DIST += bench/run-ab.sh bench/ab-table.awk
.PHONY: bench-ab
bench-ab: bench/pingpong$(EXEEXT) bench/groups$(EXEEXT) pvmd/pvmd$(EXEEXT) console/pvm$(EXEEXT)
	@test -n "$(BEFORE)" || { echo "usage: make bench-ab BEFORE=/path/to/build" \
		"[KIND=local|hosts|groups|all] [ROUNDS=N]" >&2; exit 2; }
	kind='$(KIND)'; rounds='$(ROUNDS)'; \
	$(SHELL) $(abs_top_srcdir)/bench/run-ab.sh --kind "$${kind:-all}" \
		$${rounds:+--rounds "$$rounds"} "$(BEFORE)" $(abs_top_builddir)

# bench/probe: how long a small request waits while the pvmd has long work
# (a spawn of 4096, a costly mailbox pattern): bench/run-stall.sh.
noinst_PROGRAMS += bench/probe
bench_probe_SOURCES = bench/probe.c bench/timing.h
bench_probe_LDADD = libpvm/libpvm3.la
bench_probe_LDFLAGS = -no-install
EXTRA_DIST += bench/run-stall.sh
.PHONY: bench-stall
bench-stall: bench/probe$(EXEEXT) pvmd/pvmd$(EXEEXT) console/pvm$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/bench/run-stall.sh $(abs_top_builddir)
