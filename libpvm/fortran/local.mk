# libfpvm3: the Fortran interface (pvmf* and pvmsum...), C wrappers over
# libpvm3 and libgpvm3 in gfortran's calling convention (fpvm.h).  Built
# when configure found a Fortran compiler (pvmfc needs one); a shared
# libfpvm3.so.3 and a static libfpvm3.a, as Debian ships a static one.
# The shared library links libgpvm3 and libpvm3, so that a program that
# links -lfpvm3 -lpvm3 (as Debian's examples do when they use no groups)
# finds the group calls its wrappers reference; the static one leaves
# them to the program's -lgpvm3 -lpvm3, as Debian's.
if HAVE_FC
fpvm_sources = libpvm/fortran/fpvm.h libpvm/fortran/fstr.c \
	libpvm/fortran/ftasks.c libpvm/fortran/fhosts.c libpvm/fortran/fmsg.c \
	libpvm/fortran/fmbox.c libpvm/fortran/fgroup.c
lib_LTLIBRARIES += libpvm/fortran/libfpvm3.la
libpvm_fortran_libfpvm3_la_SOURCES = $(fpvm_sources)
libpvm_fortran_libfpvm3_la_LIBADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la
# soname libfpvm3.so.3, as libpvm3's; only the Fortran names and the
# reference's two string helpers leave it.
libpvm_fortran_libfpvm3_la_LDFLAGS = -version-info 7:6:4 -no-undefined \
	-export-symbols-regex '^(pvmf[a-z]+_|pvm(max|min|sum|product)_|ftocstr|ctofstr)$$'
lib_LIBRARIES += libpvm/fortran/libfpvm3.a
libpvm_fortran_libfpvm3_a_SOURCES = $(fpvm_sources)
# (flags of its own: objects apart from the shared library's)
libpvm_fortran_libfpvm3_a_CPPFLAGS = $(AM_CPPFLAGS)
include_HEADERS += include/fpvm3.h

pkgconfig_DATA += libpvm/fortran/fpvm3.pc
bin_SCRIPTS += libpvm/fortran/pvmfc
dist_man_MANS += libpvm/fortran/pvmfc.1
CLEANFILES += libpvm/fortran/fpvm3.pc libpvm/fortran/pvmfc
libpvm/fortran/fpvm3.pc: $(srcdir)/libpvm/fortran/fpvm3.pc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(pvm_subst) -e 's|@FC[@]|$(FC)|g' \
	-e 's|@FC_PVMFLAGS[@]|$(FC_PVMFLAGS)|g' \
	$(srcdir)/$@.in >$@
libpvm/fortran/pvmfc: $(srcdir)/libpvm/fortran/pvmfc.in Makefile
	$(AM_V_GEN)$(MKDIR_P) $(@D) && $(pvm_subst) -e 's|@FC[@]|$(FC)|g' \
	-e 's|@FC_PVMFLAGS[@]|$(FC_PVMFLAGS)|g' \
	$(srcdir)/$@.in >$@ && chmod +x $@
endif
EXTRA_DIST += libpvm/fortran/fpvm3.pc.in libpvm/fortran/pvmfc.in
