# The wire protocol shared by pvmd and libpvm (one module, linked into both).
noinst_LTLIBRARIES += proto/libwire.la
proto_libwire_la_SOURCES = proto/wire.c proto/wire.h proto/vmdir.c proto/vmdir.h \
	proto/gshm.c proto/gshm.h \
	proto/shmseg.c proto/shmseg.h \
	proto/sha256.c proto/sha256.h proto/auth.c proto/auth.h
