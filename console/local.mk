# console/pvm: the interactive PVM console, a plain client of libpvm3.
# It needs readline: a cross build without the target's leaves it out.
if HAVE_READLINE
bin_PROGRAMS += console/pvm
console_pvm_SOURCES = console/console.h console/main.c console/term.c \
	console/cmdtab.c console/alias.c console/cmd_vm.c console/cmd_ps.c \
	console/cmd_task.c console/cmd_opt.c console/cmd_env.c \
	console/cmd_mbox.c console/spawn.c console/jobs.c console/rc.c console/complete.c \
	console/hostwatch.c console/addwait.c console/script.c \
	console/json.c common/taskend.c common/taskend.h \
	common/linebuf.c common/linebuf.h
console_pvm_CPPFLAGS = $(AM_CPPFLAGS) $(READLINE_CFLAGS) -I$(top_srcdir)/libpvm
console_pvm_LDADD = libpvm/libpvm3.la $(READLINE_LIBS)
endif
dist_man_MANS += console/pvm.1

# console/pvmgroups: lists the dynamic groups (TM_GS_LIST), like the
# reference's pvmgroups.  Uses libpvm3's private interface (lpvm_priv.h).
bin_PROGRAMS += console/pvmgroups
console_pvmgroups_SOURCES = console/pvmgroups.c
console_pvmgroups_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
console_pvmgroups_LDADD = libpvm/libpvm3.la proto/libwire.la
dist_man_MANS += console/pvmgroups.1

# libFuzzer target (configure --enable-fuzzing; test/fuzz.sh runs it):
# command lines run against a pvmd played from the input.
if HAVE_READLINE
FUZZ_TARGETS += console/cmd_fuzz
console_cmd_fuzz_SOURCES = console/cmd_fuzz.c console/term.c \
	console/cmdtab.c console/alias.c console/cmd_vm.c console/cmd_ps.c \
	console/cmd_task.c console/cmd_opt.c console/cmd_env.c \
	console/cmd_mbox.c console/spawn.c console/jobs.c console/rc.c \
	console/complete.c console/hostwatch.c console/addwait.c \
	console/json.c common/taskend.c common/linebuf.c \
	libpvm/api/fuzz_peer.c libpvm/api/fuzz_peer.h
console_cmd_fuzz_CPPFLAGS = $(AM_CPPFLAGS) $(READLINE_CFLAGS) \
	-I$(top_srcdir)/libpvm
console_cmd_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS) -Wl,--wrap=connect,--wrap=ppoll,--wrap=open
console_cmd_fuzz_LDADD = libpvm/libpvm3.la proto/libwire.la \
	$(READLINE_LIBS) -lpthread
endif
