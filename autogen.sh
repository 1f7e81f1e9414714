#!/bin/sh
# Regenerate the build system (configure, Makefile.in) from configure.ac and
# Makefile.am. Generated files are never committed.
set -e
cd "$(dirname "$0")"
autoreconf -fi
