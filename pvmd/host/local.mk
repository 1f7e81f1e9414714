# The host layer of the pvmd (docs/hosts.md): the host table and what
# links carry (host.c), the links between pvmds (link.c), requests
# forwarded to the pvmd that handles them (fwd.c), starting pvmds on other
# hosts over ssh or through a registered hoster task (hoster.c,
# hoster_task.c, startup.c, password.c, the hostfile in hostfile.c), and
# the start of a pvmd started that way (slave.c).  The core sees host.h.
pvmd_pvmd_SOURCES += pvmd/host/host.h pvmd/host/hostlayer.h pvmd/host/host.c \
	pvmd/host/link.c pvmd/host/fwd.c \
	pvmd/host/hoster.c pvmd/host/hoster_task.c pvmd/host/startup.c \
	pvmd/host/password.c pvmd/host/password.h \
	pvmd/host/hostfile.c pvmd/host/hostfile.h \
	pvmd/host/slave.c

# Unit test beside its code (test/run.sh runs pvmd/host/*_test).
check_PROGRAMS += pvmd/host/hostfile_test
pvmd_host_hostfile_test_SOURCES = pvmd/host/hostfile_test.c \
	pvmd/host/hostfile.c pvmd/host/hostfile.h test/unit/tap.h
