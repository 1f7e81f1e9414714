# Message buffers and packing (PvmDataDefault/XDR, Raw, InPlace).
lpvm_pack_sources = libpvm/pack/buf.h libpvm/pack/buf.c \
	libpvm/pack/pack.h libpvm/pack/pack.c \
	libpvm/pack/xdr.c libpvm/pack/pkmesg.c libpvm/pack/packf.c \
	libpvm/pack/convert.c libpvm/pack/kernel.h

# Unit test of buffers and packing: needs no pvmd; prints TAP.  It and
# xdr_test check our XDR against libtirpc's: a cross build without the
# target's libtirpc leaves them out.
if HAVE_TIRPC
check_PROGRAMS += libpvm/pack/pack_test
libpvm_pack_pack_test_SOURCES = libpvm/pack/pack_test.c libpvm/pack/test_types.h
libpvm_pack_pack_test_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS)
libpvm_pack_pack_test_LDFLAGS = -no-install
libpvm_pack_pack_test_LDADD = libpvm/libpvm3.la $(TIRPC_LIBS)

# PvmDataDefault against libtirpc on random data (all types, strides,
# lengths): needs no pvmd; prints TAP.
check_PROGRAMS += libpvm/pack/xdr_test
libpvm_pack_xdr_test_SOURCES = libpvm/pack/xdr_test.c libpvm/pack/test_types.h
libpvm_pack_xdr_test_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS)
libpvm_pack_xdr_test_LDFLAGS = -no-install
libpvm_pack_xdr_test_LDADD = libpvm/libpvm3.la $(TIRPC_LIBS)
endif

# Random bodies read with random pvm_upk* calls against a model of the
# encodings' sizes (also a libFuzzer target, see the file): needs no
# pvmd; prints TAP.
check_PROGRAMS += libpvm/pack/upk_test
libpvm_pack_upk_test_SOURCES = libpvm/pack/upk_test.c libpvm/pack/test_types.h
libpvm_pack_upk_test_LDFLAGS = -no-install
libpvm_pack_upk_test_LDADD = libpvm/libpvm3.la

# The same as a libFuzzer target (configure --enable-fuzzing): the
# unpacking of every encoding, checked against the model.
FUZZ_TARGETS += libpvm/pack/upk_fuzz
libpvm_pack_upk_fuzz_SOURCES = libpvm/pack/upk_test.c libpvm/pack/test_types.h
libpvm_pack_upk_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -DUPK_FUZZER
libpvm_pack_upk_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS)
libpvm_pack_upk_fuzz_LDADD = libpvm/libpvm3.la
