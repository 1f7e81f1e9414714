#!/usr/bin/env bash
# build-ref-progs.sh - builds the test programs against the reference PVM
# 3.4.6 (/usr/include/pvm3.h, -lpvm3; -lgpvm3 too for pt_group) into
# $PVM_TEST_REF_PROGS (default /tmp/pvmtest-refprogs), for PVM_TEST_REF=1
# runs of the suite.
set -eu
: "${abs_top_srcdir:?}"
out=${PVM_TEST_REF_PROGS:-/tmp/pvmtest-refprogs}
mkdir -p "$out"
for src in "$abs_top_srcdir"/test/progs/*.c; do
	name=$(basename "$src" .c)
	libs="-lpvm3"
	# the group tests need the group library, as with PVM 3.4.6
	[ "$name" = pt_group ] && libs="-lgpvm3 -lpvm3"
	gcc -std=gnu11 -O2 -Wall -Wextra -I"$abs_top_srcdir/test/progs" -o "$out/$name" "$src" $libs -lm
done
echo "reference test programs in $out"
