# pvmd: the daemon, one per host, user and PVM_VMID.
bin_PROGRAMS += pvmd/pvmd
# everything but main.c, which the fuzz targets leave out
pvmd_core_sources = \
	pvmd/pvmd.h pvmd/state.c \
	pvmd/signals.c \
	pvmd/startwait.c pvmd/startwait.h \
	pvmd/loop.c pvmd/loop.h \
	common/idhash.c common/idhash.h \
	common/rundelay.c common/rundelay.h \
	pvmd/log.c pvmd/log.h \
	pvmd/conn.c pvmd/conn.h \
	pvmd/flow.c pvmd/flow.h \
	pvmd/task.c \
	pvmd/ctl.c pvmd/ctl_spawn.c pvmd/ctl_route.c \
	pvmd/spawn.c \
	pvmd/output.c \
	pvmd/notify.c \
	pvmd/exits.c pvmd/exits.h \
	pvmd/context.c \
	pvmd/mbox.c \
	pvmd/group.c pvmd/group_shm.c \
	pvmd/ctl.h pvmd/task.h pvmd/spawn.h pvmd/output.h pvmd/notify.h \
	pvmd/mbox.h pvmd/group.h pvmd/context.h pvmd/signals.h
# the host layer: pvmd/host/local.mk adds its sources
include pvmd/host/local.mk
pvmd_pvmd_SOURCES = pvmd/main.c $(pvmd_core_sources)
pvmd_pvmd_CPPFLAGS = $(AM_CPPFLAGS)
pvmd_pvmd_LDADD = proto/libwire.la
dist_man_MANS += pvmd/pvmd.1

# Sends malformed input to a running pvmd (for the test suites).
check_PROGRAMS += pvmd/wirefuzz
pvmd_wirefuzz_SOURCES = pvmd/wirefuzz.c
pvmd_wirefuzz_CPPFLAGS = $(AM_CPPFLAGS)
pvmd_wirefuzz_LDADD = proto/libwire.la

# The script PvmTaskDebug runs unless PVM_DEBUGGER names another.
dist_pkglibexec_SCRIPTS = pvmd/debugger
pvmd_pvmd_CPPFLAGS += -DPVM_DEBUGGER_PATH='"$(pkglibexecdir)/debugger"'


# Unit tests beside their code (test/run.sh runs every pvmd/*_test).
check_PROGRAMS += pvmd/loop_test
pvmd_loop_test_SOURCES = pvmd/loop_test.c pvmd/loop.c pvmd/loop.h \
	test/unit/tap.h test/unit/rnd.h
pvmd_loop_test_CPPFLAGS = $(AM_CPPFLAGS)

# libFuzzer targets (configure --enable-fuzzing; test/fuzz.sh runs them):
# the pvmd's core in a library, driven in-process by fuzz_pvmd.c, with
# the calls that would reach outside (kill, clone, fork, exit) wrapped,
# and the clock (fz_later); sendmsg, which tells fz_settle when there is
# something to read.
if FUZZING
noinst_LTLIBRARIES += pvmd/libpvmd_core.la
pvmd_libpvmd_core_la_SOURCES = $(pvmd_core_sources)
pvmd_libpvmd_core_la_CPPFLAGS = $(pvmd_pvmd_CPPFLAGS)
endif
pvmd_fuzz_ldflags = -static $(FUZZ_LDFLAGS) \
	-Wl,--wrap=kill,--wrap=clone,--wrap=fork,--wrap=execvp,--wrap=exit \
	-Wl,--wrap=clock_gettime,--wrap=sendmsg
pvmd_fuzz_ldadd = pvmd/libpvmd_core.la proto/libwire.la
FUZZ_TARGETS += pvmd/ctl_fuzz
pvmd_ctl_fuzz_SOURCES = pvmd/ctl_fuzz.c pvmd/fuzz_pvmd.c pvmd/fuzz_pvmd.h
pvmd_ctl_fuzz_LDFLAGS = $(pvmd_fuzz_ldflags)
pvmd_ctl_fuzz_LDADD = $(pvmd_fuzz_ldadd)
