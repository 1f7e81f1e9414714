# The wire protocol shared by pvmd and libpvm (one module, linked into both).
noinst_LTLIBRARIES += proto/libwire.la
proto_libwire_la_SOURCES = proto/wire.c proto/wire.h proto/vmdir.c proto/vmdir.h \
	proto/gshm.c proto/gshm.h \
	proto/shmseg.c proto/shmseg.h \
	proto/sha256.c proto/sha256.h proto/auth.c proto/auth.h

# Unit tests beside their code (test/run.sh runs every proto/*_test).
check_PROGRAMS += proto/wire_test
proto_wire_test_SOURCES = proto/wire_test.c test/unit/tap.h test/unit/rnd.h
proto_wire_test_LDADD = proto/libwire.la
