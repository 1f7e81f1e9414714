#!/bin/sh
# build.sh BUILDDIR DIR: the installation install.bats uses, made as a
# new user would make it: BUILDDIR's `make distdir` (what a tarball
# holds) into DIR/src, configured in DIR/b with --prefix DIR/p, built and
# installed there.  DIR is emptied first.  Its output is the build's log.
# test/run.sh runs it in the background ahead of install.bats (and writes
# DIR/installed when it succeeded); install.bats runs it itself otherwise.
set -e
B=$1 D=$2
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}
rm -rf "$D/src" "$D/b" "$D/p" "$D/installed"
mkdir -p "$D/b"
mk -C "$B" distdir distdir="$D/src"
cd "$D/b"
"$D/src/configure" --prefix="$D/p"
mk -j2 install
