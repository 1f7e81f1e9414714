# Transport layer sources (libpvm/tran: the route table, the progress
# engine, connections, enrollment; one folder per transport) and the
# message layer (libpvm/msg).
lpvm_tran_sources += \
	libpvm/tran/poll.h libpvm/tran/poll.c \
	libpvm/tran/waitpol.h libpvm/tran/waitpol.c \
	libpvm/tran/conn.h libpvm/tran/conn.c libpvm/tran/conn_out.c \
	libpvm/tran/tran.h libpvm/tran/route.c common/idhash.c \
	common/rundelay.c common/rundelay.h \
	libpvm/tran/enroll.c libpvm/tran/pvmd_link.c \
	libpvm/msg/msg.h libpvm/msg/rxq.c libpvm/msg/send.c libpvm/msg/recv.c \
	libpvm/msg/mhf.c
include libpvm/tran/pvmd/local.mk
include libpvm/tran/direct/local.mk
include libpvm/tran/shm/local.mk

# Unit test of the reassembly in conn.c (test/run.sh runs every
# libpvm/tran/*_test): the connection and what it needs below the route
# table, compiled in; the test stands in for the route table.
check_PROGRAMS += libpvm/tran/conn_test
libpvm_tran_conn_test_SOURCES = libpvm/tran/conn_test.c \
	libpvm/tran/conn.c libpvm/tran/conn_out.c libpvm/tran/conn.h \
	libpvm/tran/poll.c libpvm/tran/poll.h libpvm/tran/waitpol.c \
	libpvm/tran/waitpol.h libpvm/pack/buf.c libpvm/pack/buf.h \
	common/rundelay.c common/rundelay.h \
	libpvm/error.c test/unit/tap.h test/unit/rnd.h
libpvm_tran_conn_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
libpvm_tran_conn_test_LDADD = proto/libwire.la
