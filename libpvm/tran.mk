# Transport layer sources (libpvm/tran, libpvm/msg).
lpvm_tran_sources += \
	libpvm/tran/poll.h libpvm/tran/poll.c \
	libpvm/tran/conn.h libpvm/tran/conn.c libpvm/tran/conn_out.c \
	libpvm/tran/tran.h libpvm/tran/route.c \
	libpvm/tran/tran_pvmd.c libpvm/tran/tran_direct.c libpvm/tran/tran_tcp.c \
	libpvm/tran/tran_shm.h libpvm/tran/tran_shm.c \
	libpvm/tran/tran_shm_tx.c libpvm/tran/tran_shm_rx.c \
	libpvm/tran/tran_shm_pr.c \
	libpvm/tran/enroll.c \
	libpvm/msg/msg.h libpvm/msg/rxq.c libpvm/msg/send.c libpvm/msg/recv.c
