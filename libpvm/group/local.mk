# libgpvm3.so.3: dynamic groups (docs/groups.md).  Programs link it with
# -lgpvm3 -lpvm3 as with PVM 3.4.6.  It reaches the pvmd through
# libpvm3's private interface (libpvm/lpvm_priv.h).
lib_LTLIBRARIES += libpvm/group/libgpvm3.la
libpvm_group_libgpvm3_la_SOURCES = libpvm/group/gs.h \
	libpvm/group/member.c libpvm/group/sync.c libpvm/group/shmbar.c libpvm/group/bcast.c \
	libpvm/group/xfer.c libpvm/group/tree.c libpvm/group/reduce.c \
	libpvm/group/scatter.c libpvm/group/ops.c
libpvm_group_libgpvm3_la_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/libpvm
libpvm_group_libgpvm3_la_LIBADD = libpvm/libpvm3.la proto/libwire.la
# soname libgpvm3.so.3, file libgpvm3.so.3.4.6, as libpvm3 and Debian's.
# Only the names PVM 3.4.6's libgpvm3 exported leave the library.
libpvm_group_libgpvm3_la_LDFLAGS = -version-info 7:6:4 -no-undefined \
	-export-symbols-regex '^(pvm_(joingroup|lvgroup|gsize|gettid|getinst|barrier|bcast|reduce|scatter|gather|freezegroup)|Pvm(Max|Min|Sum|Product))$$'

# pkg-config's gpvm3.pc (made as libpvm/local.mk makes pvm3.pc)
pkgconfig_DATA += libpvm/group/gpvm3.pc
EXTRA_DIST += libpvm/group/gpvm3.pc.in
CLEANFILES += libpvm/group/gpvm3.pc
libpvm/group/gpvm3.pc: $(srcdir)/libpvm/group/gpvm3.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(pvm_subst) $(srcdir)/$@.in >$@
