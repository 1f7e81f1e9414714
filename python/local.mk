# python/: the pvm3 Python module (docs/python.md), for the interpreter
# configure was given (PYTHON).  A C extension, pvm3._pvm3 (python/*.c:
# one function per PVM call, buffers through the buffer protocol), and the
# Python package around it (python/pvm3/*.py).  Both go to
# $(PYTHON_SITEDIR)/pvm3; the extension links the installed libgpvm3 and
# libpvm3.
pvm3_py = python/pvm3/__init__.py python/pvm3/errors.py \
	python/pvm3/message.py python/pvm3/tasks.py python/pvm3/comm.py \
	python/pvm3/groups.py
EXTRA_DIST += $(pvm3_py)
if HAVE_PYTHON
pvm3pydir = $(PYTHON_SITEDIR)/pvm3
pvm3py_LTLIBRARIES = python/_pvm3.la
pvm3py_DATA = $(pvm3_py)
python__pvm3_la_SOURCES = python/pvm3mod.h python/mod.c python/types.c \
	python/msg.c python/group.c
python__pvm3_la_CPPFLAGS = $(AM_CPPFLAGS) $(PYTHON_CPPFLAGS)
python__pvm3_la_LIBADD = libpvm/group/libgpvm3.la libpvm/libpvm3.la
# the interpreter's file name for an extension (_pvm3.cpython-311-...so),
# with only its init function exported, and a RUNPATH to $(libdir) as
# pvm3.pc gives programs (libpvm/local.mk): the installed module loads
# this installation's libpvm3.so.3, not Debian's of the same soname
python__pvm3_la_LDFLAGS = -module -avoid-version -shared \
	-shrext $(PYTHON_EXT_SUFFIX) -export-symbols-regex '^PyInit__pvm3$$' \
	$(pvm_rpath_flags)

# python/inplace: the package as the build tree has it, the sources'
# .py files and the built extension linked side by side, so that
# PYTHONPATH=$(builddir)/python/inplace imports it without an install
# (the tests do: test/python/).  python/inplace/python runs the
# interpreter configure was given.
noinst_DATA = python/inplace/stamp
python/inplace/stamp: python/_pvm3.la $(pvm3_py:%=$(srcdir)/%) Makefile
	$(AM_V_GEN)$(MKDIR_P) python/inplace/pvm3 && \
	for f in $(pvm3_py); do \
		ln -sf '$(abs_top_srcdir)'/$$f python/inplace/pvm3/ || exit 1; \
	done && \
	ln -sf ../../.libs/_pvm3$(PYTHON_EXT_SUFFIX) python/inplace/pvm3/ && \
	printf '#!/bin/sh\nexec %s "$$@"\n' '$(PYTHON)' >python/inplace/python && \
	chmod +x python/inplace/python && touch $@
endif
# Python needs no libtool archive beside the module (installed with the
# data: the directory's name has no "exec")
install-data-hook: remove-pvm3-la
remove-pvm3-la:
	test -z '$(pvm3pydir)' || rm -f '$(DESTDIR)$(pvm3pydir)/_pvm3.la'
uninstall-hook: remove-pvm3-la
clean-local: clean-python-inplace
clean-python-inplace:
	-rm -rf python/inplace
.PHONY: clean-python-inplace remove-pvm3-la
