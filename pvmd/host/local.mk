# The host layer of the pvmd (docs/hosts.md): the host table and what
# links carry (host.c), the links between pvmds (link.c), requests
# forwarded to the pvmd that handles them (fwd.c), starting pvmds on other
# hosts over ssh or through a registered hoster task (hoster.c,
# hoster_task.c, startup.c, password.c, the hostfile in hostfile.c, the
# answer to a request in addreq.c), and
# the start of a pvmd started that way (slave.c).  The core sees host.h.
pvmd_core_sources += pvmd/host/host.h pvmd/host/hostlayer.h pvmd/host/host.c \
	pvmd/host/link.c pvmd/host/fwd.c \
	pvmd/host/hoster.c pvmd/host/hoster_task.c pvmd/host/startup.c \
	pvmd/host/addreq.c pvmd/host/addreq.h \
	pvmd/host/password.c pvmd/host/password.h \
	pvmd/host/hostfile.c pvmd/host/hostfile.h \
	pvmd/host/slave.c

# Unit test beside its code (test/run.sh runs pvmd/host/*_test).
check_PROGRAMS += pvmd/host/hostfile_test
pvmd_host_hostfile_test_SOURCES = pvmd/host/hostfile_test.c \
	pvmd/host/hostfile.c pvmd/host/hostfile.h test/unit/tap.h

# libFuzzer targets (pvmd/local.mk has the harness and its flags).
FUZZ_TARGETS += pvmd/host/link_fuzz
pvmd_host_link_fuzz_SOURCES = pvmd/host/link_fuzz.c pvmd/fuzz_pvmd.c \
	pvmd/fuzz_pvmd.h
pvmd_host_link_fuzz_LDFLAGS = $(pvmd_fuzz_ldflags)
pvmd_host_link_fuzz_LDADD = $(pvmd_fuzz_ldadd)
# the two that read startup lines keep the variables those set apart
host_fuzz_env = pvmd/host/fuzz_env.c pvmd/host/fuzz_env.h
host_fuzz_ldflags = $(pvmd_fuzz_ldflags) -Wl,--wrap=setenv,--wrap=unsetenv
FUZZ_TARGETS += pvmd/host/hostfile_fuzz
pvmd_host_hostfile_fuzz_SOURCES = pvmd/host/hostfile_fuzz.c $(host_fuzz_env) \
	pvmd/fuzz_pvmd.c pvmd/fuzz_pvmd.h
pvmd_host_hostfile_fuzz_LDFLAGS = $(host_fuzz_ldflags)
pvmd_host_hostfile_fuzz_LDADD = $(pvmd_fuzz_ldadd)
FUZZ_TARGETS += pvmd/host/startup_fuzz
pvmd_host_startup_fuzz_SOURCES = pvmd/host/startup_fuzz.c $(host_fuzz_env) \
	pvmd/fuzz_pvmd.c pvmd/fuzz_pvmd.h
pvmd_host_startup_fuzz_LDFLAGS = $(host_fuzz_ldflags)
pvmd_host_startup_fuzz_LDADD = $(pvmd_fuzz_ldadd)
