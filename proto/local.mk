# The wire protocol shared by pvmd and libpvm (one module, linked into both).
noinst_LTLIBRARIES += proto/libwire.la
proto_libwire_la_SOURCES = proto/wire.c proto/wire.h proto/vmdir.c proto/vmdir.h \
	proto/gshm.c proto/gshm.h \
	proto/shmseg.c proto/shmseg.h \
	proto/auth.c proto/auth.h proto/handshake.c proto/handshake.h \
	proto/dsig.h
# auth.c's SHA-256 and HMAC are nettle's.  Every program and library that
# takes in libwire (libpvm3, libgpvm3, pvmd, the tools and tests) links
# -lnettle through it: libtool carries a convenience library's LIBADD.
proto_libwire_la_CPPFLAGS = $(AM_CPPFLAGS) $(NETTLE_CFLAGS)
proto_libwire_la_LIBADD = $(NETTLE_LIBS)

# Unit tests beside their code (test/run.sh runs every proto/*_test).
check_PROGRAMS += proto/wire_test
proto_wire_test_SOURCES = proto/wire_test.c test/unit/tap.h test/unit/rnd.h
proto_wire_test_LDADD = proto/libwire.la
check_PROGRAMS += proto/auth_test
proto_auth_test_SOURCES = proto/auth_test.c test/unit/tap.h
proto_auth_test_CPPFLAGS = $(AM_CPPFLAGS) $(NETTLE_CFLAGS)
proto_auth_test_LDADD = proto/libwire.la
check_PROGRAMS += proto/dsig_test
proto_dsig_test_SOURCES = proto/dsig_test.c proto/dsig.h test/unit/tap.h
check_PROGRAMS += proto/handshake_test
proto_handshake_test_SOURCES = proto/handshake_test.c test/unit/tap.h
proto_handshake_test_LDADD = proto/libwire.la

# libFuzzer targets (configure --enable-fuzzing; test/fuzz.sh runs them).
FUZZ_TARGETS += proto/wire_fuzz
proto_wire_fuzz_SOURCES = proto/wire_fuzz.c
proto_wire_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS)
proto_wire_fuzz_LDADD = proto/libwire.la
FUZZ_TARGETS += proto/handshake_fuzz
proto_handshake_fuzz_SOURCES = proto/handshake_fuzz.c
proto_handshake_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS)
proto_handshake_fuzz_LDADD = proto/libwire.la
