# API layer sources (libpvm/api): the entry points that talk to the pvmd
# (tasks, spawn, notify, contexts, options, hosts), the other exported names of
# PVM 3.4.6, and those whose feature a later issue delivers (later.c).
lpvm_api_sources += \
	libpvm/api/api.h libpvm/api/call.c \
	libpvm/api/task.c libpvm/api/info.c libpvm/api/options.c \
	libpvm/api/context.c libpvm/api/taskctl.c \
	libpvm/api/spawn.c libpvm/api/export.c libpvm/api/start.c \
	libpvm/api/catchout.c libpvm/api/compat.c libpvm/api/later.c \
	libpvm/api/mbox.c libpvm/api/regex_cost.c libpvm/api/regex_cost.h \
	libpvm/api/hosts.c \
	libpvm/api/private.c libpvm/api/reghoster.c libpvm/lpvm_priv.h

# Unit test of regex_cost.c (test/run.sh runs every libpvm/api/*_test).
check_PROGRAMS += libpvm/api/regex_cost_test
libpvm_api_regex_cost_test_SOURCES = libpvm/api/regex_cost_test.c \
	libpvm/api/regex_cost.c libpvm/api/regex_cost.h test/unit/tap.h
libpvm_api_regex_cost_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
