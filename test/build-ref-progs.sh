#!/usr/bin/env bash
# build-ref-progs.sh - builds the test programs against the reference PVM
# 3.4.6 (/usr/include/pvm3.h, -lpvm3) into $PVM_TEST_REF_PROGS (default
# /tmp/pvmtest-refprogs), for PVM_TEST_REF=1 runs of the suite.
set -eu
: "${abs_top_srcdir:?}"
out=${PVM_TEST_REF_PROGS:-/tmp/pvmtest-refprogs}
mkdir -p "$out"
for src in "$abs_top_srcdir"/test/progs/*.c; do
	name=$(basename "$src" .c)
	gcc -std=gnu11 -O2 -Wall -Wextra -I"$abs_top_srcdir/test/progs" -o "$out/$name" "$src" -lpvm3 -lm
done
echo "reference test programs in $out"
