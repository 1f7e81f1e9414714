#!/usr/bin/env bash
# run-xdr.sh - run bench/xdr (packing and unpacking speed of large arrays)
# against our library and against the Debian PVM 3.4.6 reference in one
# run, and print both side by side.
#
#   bench/run-xdr.sh [BUILDDIR]        ("make bench-xdr" runs it)
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/xdr and pvmd/pvmd.  The same xdr.c is built here a
# second time against /usr/include/pvm3.h and Debian's libpvm3.  Packing
# needs no pvmd in our library, but the reference's enrolls on its first
# buffer call, so each system gets its own private virtual machine (own
# PVM_VMID and PVM_TMP), started as bench/vms.sh does for the others.
# Runs alternate which system goes first, BENCH_ROUNDS times; the table
# shows, per cell, the median over the rounds of each run's median.
#
# Environment: BENCH_ROUNDS  rounds (default 3)
#              BENCH_SECS    time budget per cell, system and round (default 0.3 s)
#              BENCH_BYTES   array size in bytes (default 1048576)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
ours_bin=$builddir/bench/xdr
ours_pvmd=$builddir/pvmd/pvmd
ref_pvm=/usr/bin/pvm
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECS:-0.3}
bytes=${BENCH_BYTES:-1048576}

fail() { echo "run-xdr: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
[ -x "$ref_pvm" ] && [ -e /usr/include/pvm3.h ] && [ -e "$ref_libdir/libpvm3.so" ] ||
	fail "the reference is missing: apt-get install pvm pvm-dev"

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench.XXXXXX")
ours_vmid=bench-ours-$$
ref_vmid=bench-ref-$$
mkdir -m 700 "$work/ours-tmp" "$work/ref-tmp"

ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT PVM_VMID="$ours_vmid"
	PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd")
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
	PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp")

. "$(dirname "$0")/vms.sh"
trap vms_cleanup EXIT
trap 'exit 130' INT TERM

# --- build the reference binary from the same source ---------------------
ref_bin=$work/xdr-ref
ref_build "$ref_bin" "$srcdir/xdr.c" -lpvm3
check_libpvm3 "$ours_bin" "$ref_bin"

start_ref_vm
start_our_vm

echo "xdr: ours $ours_lib, reference $ref_lib"
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds, $secs s per cell and round, arrays of $bytes bytes"
run() { # system
	local bin envname
	if [ "$1" = ours ]; then bin=$ours_bin; envname='ours_env[@]'
	else bin=$ref_bin; envname='ref_env[@]'; fi
	timeout 300 "${!envname}" "$bin" -q -t "$secs" -z "$bytes" \
		>>"$work/$1.txt" 2>>"$work/$1.err" ||
		{ cat "$work/$1.err" >&2; fail "$1 xdr failed"; }
}
: >"$work/ours.txt"; : >"$work/ref.txt"
for round in $(seq "$rounds"); do
	if [ $((round % 2)) = 1 ]; then run ours; run ref
	else run ref; run ours; fi
done

echo "medians; GB/s = 10^9 bytes of array per second;" \
	"speedup = our speed / reference speed"
awk -f "$srcdir/stats.awk" -f "$srcdir/xdr-table.awk" "$work/ours.txt" "$work/ref.txt"
