# The shared-memory transport (docs/shm.md): rings in each receiver's
# inbox, single copy into a waiting pvm_precv; its layout is shared with
# the pvmd in proto/shmseg.h.
lpvm_tran_sources += libpvm/tran/shm/shm.h libpvm/tran/shm/ring.h \
	libpvm/tran/shm/shm.c \
	libpvm/tran/shm/shm_tx.c libpvm/tran/shm/shm_rx.c \
	libpvm/tran/shm/shm_precv.c

# Unit test of one ring (ring.h): its arithmetic by hand, then two threads
# on a malloc'd ring (test/run.sh runs every libpvm/tran/*/*_test).
check_PROGRAMS += libpvm/tran/shm/ring_test
libpvm_tran_shm_ring_test_SOURCES = libpvm/tran/shm/ring_test.c \
	libpvm/tran/shm/ring.h test/unit/tap.h
libpvm_tran_shm_ring_test_CFLAGS = $(AM_CFLAGS) -pthread
libpvm_tran_shm_ring_test_LDFLAGS = -pthread
