# libpvm3.so.3: the task library.  Sources are listed per layer in the
# fragments below (lpvm_tran_sources, lpvm_api_sources) and in
# libpvm/pack/local.mk (lpvm_pack_sources).
lib_LTLIBRARIES += libpvm/libpvm3.la
include_HEADERS += include/pvm3.h include/pvmtev.h include/pvmproto.h \
	include/pvmsdpro.h
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = libpvm/pvm3.pc

lpvm_tran_sources =
lpvm_api_sources =
include libpvm/tran.mk
include libpvm/api.mk

libpvm_libpvm3_la_SOURCES = libpvm/lpvm.h libpvm/error.h libpvm/error.c \
	$(lpvm_tran_sources) $(lpvm_api_sources) $(lpvm_pack_sources)
libpvm_libpvm3_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
libpvm_libpvm3_la_LIBADD = proto/libwire.la
# soname libpvm3.so.3 (current - age = 3), file libpvm3.so.3.4.6 as Debian's.
# Only the names PVM 3.4.6 exported leave the library, and the private
# interface of libgpvm3 and pvmgroups (lpvm_priv.h: lpvm_priv_*).
libpvm_libpvm3_la_LDFLAGS = -version-info 7:6:4 -no-undefined \
	-export-symbols-regex '^(pvm_|pvmgetclock$$|pvmsleep$$|pvmnametag$$|pvmdisplaymhfinfo$$|pvmctrc$$|pvmmyctx$$|pvmgetrsh$$|pvmgettmp$$|lpvmerr$$|lpvm_priv_ctl$$|lpvm_priv_err$$|lpvm_priv_gs_epoch$$|lpvm_priv_progress$$|lpvm_priv_dtype_size$$|lpvm_priv_stderr$$)'
