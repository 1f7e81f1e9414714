#!/usr/bin/env bash
# build-ref-progs.sh - builds the test programs against the reference PVM
# 3.4.6 (/usr/include/pvm3.h, -lpvm3; -lgpvm3 too where ours links
# libgpvm3) into $PVM_TEST_REF_PROGS (default /tmp/pvmtest-refprogs), for
# PVM_TEST_REF=1 runs of the suite.  Each program's sources and libraries
# are read from test/local.mk, so a program made of several files builds
# here as it does in `make check`.  Arguments name the programs to build
# (default: all of them).
set -eu
: "${abs_top_srcdir:?}"
out=${PVM_TEST_REF_PROGS:-/tmp/pvmtest-refprogs}
mkdir -p "$out"
mk="$abs_top_srcdir/test/local.mk"
# man 3 pvm_reg_hoster names pvmsdpro.h; Debian ships its codes as
# pvmproto.h only
mkdir -p "$out/include"
echo '#include <pvmproto.h>' >"$out/include/pvmsdpro.h"

# var NAME: the value of an automake variable of test/local.mk, its
# continuation lines joined
var() {
	sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$mk" |
		sed -n "s|^$1[[:space:]]*=[[:space:]]*||p"
}

failed=
for prog in $(var test_progs); do
	name=$(basename "$prog")
	if [ $# -gt 0 ] && [[ " $* " != *" $name "* ]]; then
		continue
	fi
	key=$(echo "$prog" | tr '/.-' '___')
	srcs=
	for f in $(var "${key}_SOURCES"); do
		case $f in *.c) srcs="$srcs $abs_top_srcdir/$f" ;; esac
	done
	[ -n "$srcs" ] || { echo "build-ref-progs: no sources for $prog" >&2; exit 1; }
	libs="-lpvm3"
	case " $(var "${key}_LDADD") " in *libgpvm3*) libs="-lgpvm3 -lpvm3" ;; esac
	# shellcheck disable=SC2086 # word lists
	gcc -std=gnu11 -O2 -Wall -Wextra -I"$abs_top_srcdir/test/progs" -I"$out/include" -o "$out/$name" \
		$srcs $libs -lm 2>"$out/$name.log" || failed="$failed $name"
done
echo "reference test programs in $out"
# pt_hoster uses calls the reference's library does not export
# (pvm_getmwid): its suite does not run against the reference
for name in $failed; do
	echo "build-ref-progs: $name does not build against the reference ($out/$name.log)"
done
