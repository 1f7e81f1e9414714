# examples/: small PVM programs, and "make demo", which runs them in a
# private one-host virtual machine started with the build tree's pvmd
# (examples/demo.sh).
#
# -no-install: real binaries that find the build tree's library by rpath,
# so the pvmd can spawn them (found through PVM_PATH) without
# LD_LIBRARY_PATH.
noinst_PROGRAMS += examples/hello examples/hello_other examples/ring
examples_hello_SOURCES = examples/hello.c
examples_hello_LDADD = libpvm/libpvm3.la
examples_hello_LDFLAGS = -no-install
examples_hello_other_SOURCES = examples/hello_other.c
examples_hello_other_LDADD = libpvm/libpvm3.la
examples_hello_other_LDFLAGS = -no-install
examples_ring_SOURCES = examples/ring.c
examples_ring_LDADD = libpvm/libpvm3.la
examples_ring_LDFLAGS = -no-install
EXTRA_DIST += examples/demo.sh examples/README.md

.PHONY: demo
demo: examples/hello$(EXEEXT) examples/hello_other$(EXEEXT) examples/ring$(EXEEXT) \
		pvmd/pvmd$(EXEEXT) console/pvm$(EXEEXT)
	$(SHELL) $(abs_top_srcdir)/examples/demo.sh $(abs_top_builddir)
