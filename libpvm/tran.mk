# Transport layer sources (libpvm/tran: the route table, the progress
# engine, connections, enrollment; one folder per transport) and the
# message layer (libpvm/msg).
lpvm_tran_sources += \
	libpvm/tran/poll.h libpvm/tran/poll.c \
	libpvm/tran/conn.h libpvm/tran/conn.c libpvm/tran/conn_out.c \
	libpvm/tran/tran.h libpvm/tran/route.c common/idhash.c \
	libpvm/tran/enroll.c libpvm/tran/pvmd_link.c \
	libpvm/msg/msg.h libpvm/msg/rxq.c libpvm/msg/send.c libpvm/msg/recv.c \
	libpvm/msg/mhf.c
include libpvm/tran/pvmd/local.mk
include libpvm/tran/direct/local.mk
include libpvm/tran/shm/local.mk
