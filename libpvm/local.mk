# libpvm3.so.3: the task library.  Sources are listed per layer in the
# fragments below (lpvm_tran_sources, lpvm_api_sources) and in
# libpvm/pack/local.mk (lpvm_pack_sources).
lib_LTLIBRARIES += libpvm/libpvm3.la
include_HEADERS += include/pvm3.h include/pvmtev.h include/pvmproto.h \
	include/pvmsdpro.h

# What programs build with: pkg-config's pvm3.pc (gpvm3.pc: the group
# library's local.mk) and the pvmcc wrapper.  make fills in the
# installation directories (so `make install prefix=...` is honoured) and
# the RUNPATH flag: none when configure had --disable-rpath or when libdir
# is a system library directory.
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = libpvm/pvm3.pc
bin_SCRIPTS += libpvm/pvmcc
dist_man_MANS += libpvm/pvmcc.1
EXTRA_DIST += libpvm/pvm3.pc.in libpvm/pvmcc.in
CLEANFILES += libpvm/pvm3.pc libpvm/pvmcc
pvm_rpath_flags = `case " $(PVM_SYSTEM_LIBDIRS) " in \
	*" $(libdir) "*) ;; \
	*) test "$(PVM_RPATH)" = no || echo "-Wl,-rpath,$(libdir) " ;; esac`
pvm_subst = rp=$(pvm_rpath_flags) && sed \
	-e 's|@prefix[@]|$(prefix)|g' -e 's|@exec_prefix[@]|$(exec_prefix)|g' \
	-e 's|@libdir[@]|$(libdir)|g' -e 's|@includedir[@]|$(includedir)|g' \
	-e 's|@CC[@]|$(CC)|g' -e 's|@PACKAGE_STRING[@]|$(PACKAGE_STRING)|g' \
	-e 's|@PACKAGE_NAME[@]|$(PACKAGE_NAME)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	-e 's|@PVM_API_VERSION[@]|$(PVM_API_VERSION)|g' \
	-e "s|@RPATH_FLAGS[@]|$$rp|g"
libpvm/pvm3.pc: $(srcdir)/libpvm/pvm3.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(pvm_subst) $(srcdir)/$@.in >$@
libpvm/pvmcc: $(srcdir)/libpvm/pvmcc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(pvm_subst) $(srcdir)/$@.in >$@ && \
	chmod +x $@

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
	-export-symbols-regex '^(pvm_|pvmgetclock$$|pvmsleep$$|pvmnametag$$|pvmdisplaymhfinfo$$|pvmctrc$$|pvmmyctx$$|pvmgetrsh$$|pvmgettmp$$|lpvmerr$$|lpvm_priv_ctl$$|lpvm_priv_err$$|lpvm_priv_gs_epoch$$|lpvm_priv_progress$$|lpvm_priv_dtype_size$$|lpvm_priv_errstr$$|lpvm_priv_pack$$|lpvm_priv_stderr$$|lpvm_priv_taskend$$|lpvm_priv_spawnpath$$|lpvm_priv_addhost_why$$|lpvm_priv_start_why$$|lpvm_priv_addhosts$$|lpvm_priv_rx_stats$$)'

# libFuzzer targets (configure --enable-fuzzing; test/fuzz.sh runs them):
# the library's frame reader, and everything it takes from a pvmd played
# from the input (api/fuzz_peer.h: connect is wrapped).
FUZZ_TARGETS += libpvm/tran/conn_fuzz
libpvm_tran_conn_fuzz_SOURCES = libpvm/tran/conn_fuzz.c
libpvm_tran_conn_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
libpvm_tran_conn_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS)
libpvm_tran_conn_fuzz_LDADD = libpvm/libpvm3.la proto/libwire.la
FUZZ_TARGETS += libpvm/api/reply_fuzz
libpvm_api_reply_fuzz_SOURCES = libpvm/api/reply_fuzz.c \
	libpvm/api/fuzz_peer.c libpvm/api/fuzz_peer.h
libpvm_api_reply_fuzz_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
libpvm_api_reply_fuzz_LDFLAGS = -static $(FUZZ_LDFLAGS) -Wl,--wrap=connect,--wrap=ppoll
libpvm_api_reply_fuzz_LDADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la \
	proto/libwire.la -lpthread
