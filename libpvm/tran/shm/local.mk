# The shared-memory transport (docs/shm.md): rings in each receiver's
# inbox, single copy into a waiting pvm_precv; its layout is shared with
# the pvmd in proto/shmseg.h.
lpvm_tran_sources += libpvm/tran/shm/shm.h libpvm/tran/shm/ring.h \
	libpvm/tran/shm/shm.c \
	libpvm/tran/shm/shm_tx.c libpvm/tran/shm/shm_rx.c \
	libpvm/tran/shm/shm_precv.c
