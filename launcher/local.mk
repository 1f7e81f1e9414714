# launcher/pvmrun: runs a job in one command (a private virtual machine,
# the job's output, its exit status), like mpirun.  Uses libpvm3's
# private interface (lpvm_priv.h) for how tasks ended (TM_TASKEND) and
# why a host could not be added, and the pvmd's hostfile parser
# (pvmd/host/hostfile.c) to check a --hostfile and make the private
# machine's.
bin_PROGRAMS += launcher/pvmrun
launcher_pvmrun_SOURCES = launcher/pvmrun.h launcher/tasks.h \
	launcher/main.c launcher/vm.c launcher/job.c launcher/output.c \
	common/linebuf.c common/linebuf.h \
	common/taskend.c common/taskend.h \
	pvmd/host/hostfile.c pvmd/host/hostfile.h
launcher_pvmrun_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
launcher_pvmrun_LDADD = libpvm/libpvm3.la proto/libwire.la
dist_man_MANS += launcher/pvmrun.1
