# The direct transport: task-to-task sockets (Unix within a host, TCP
# with the VM secret's handshake between hosts).
lpvm_tran_sources += libpvm/tran/direct/direct.h \
	libpvm/tran/direct/direct.c libpvm/tran/direct/direct_tcp.c
