#!/usr/bin/env bash
# run-pingpong.sh - run bench/pingpong against our system and against the
# Debian PVM 3.4.6 reference in one run, and print both side by side.
#
#   bench/run-pingpong.sh [BUILDDIR]       ("make bench" runs it)
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/pingpong and pvmd/pvmd.  The same pingpong.c is built
# here a second time against /usr/include/pvm3.h and Debian's libpvm3.
# Each system gets its own private virtual machine (own PVM_VMID and
# PVM_TMP); the reference never sees our library.  Runs are interleaved per
# (route, method) group, alternating which system goes first, so a change
# in background load hits both alike.
#
# The whole sequence runs BENCH_ROUNDS times; the table shows, per cell, the
# median over the rounds of each round's median half round trip.
#
# Environment: BENCH_ROUNDS   rounds (default 3)
#              BENCH_SECS     time budget per cell, system and round (default 0.2 s)
#              BENCH_MAXREPS  cap on timed round trips per cell (default 3000)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
ours_bin=$builddir/bench/pingpong
ours_pvmd=$builddir/pvmd/pvmd
ref_pvm=/usr/bin/pvm
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECS:-0.2}
maxreps=${BENCH_MAXREPS:-3000}

fail() { echo "run-pingpong: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
[ -x "$ref_pvm" ] && [ -e /usr/include/pvm3.h ] && [ -e "$ref_libdir/libpvm3.so" ] ||
	fail "the reference is missing: apt-get install pvm pvm-dev"

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench.XXXXXX")
ours_vmid=bench-ours-$$
ref_vmid=bench-ref-$$
mkdir -m 700 "$work/ours-tmp" "$work/ref-tmp"

# Environments of the two systems.  Neither inherits LD_LIBRARY_PATH: our
# binary finds its library through libtool's rpath, the reference's through
# the rpath set below.
ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT PVM_VMID="$ours_vmid"
	PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd")
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
	PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp")

. "$(dirname "$0")/vms.sh"
trap vms_cleanup EXIT
trap 'exit 130' INT TERM

# --- build the reference binary from the same source ---------------------
ref_bin=$work/pingpong-ref
ref_build "$ref_bin" "$srcdir/pingpong.c" -lpvm3
check_libpvm3 "$ours_bin" "$ref_bin"

# --- start both virtual machines ------------------------------------------
start_ref_vm

start_our_vm

# --- run, interleaved ------------------------------------------------------
echo "pingpong: ours $ours_lib, reference $ref_lib"
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds, $secs s per cell and round, at most $maxreps round trips"
showlog() { # system: the end of its pvmd log (spawned tasks write there)
	local f
	for f in "$work/$1"-tmp/pvm.*/pvmd.log "$work/$1"-tmp/pvml.*; do
		[ -f "$f" ] && { echo "--- end of $f:"; tail -n 20 "$f"; } >&2
	done
}
run() { # system route method
	local bin envname
	if [ "$1" = ours ]; then bin=$ours_bin; envname='ours_env[@]'
	else bin=$ref_bin; envname='ref_env[@]'; fi
	timeout 300 "${!envname}" "$bin" -q -t "$secs" -n "$maxreps" -r "$2" -m "$3" \
		>>"$work/$1.txt" 2>>"$work/$1.err" ||
		{ cat "$work/$1.err" >&2; showlog "$1"; fail "$1 pingpong failed on route $2, method $3"; }
}
: >"$work/ours.txt"; : >"$work/ref.txt"
interleave "$rounds" psend,Raw,InPlace,Default

echo "medians; latency = half round trip; MB/s = 10^6 bytes/s;" \
	"speedup = ref time / our time (>1: ours faster)"
awk -f "$srcdir/stats.awk" -f "$srcdir/pingpong-table.awk" "$work/ours.txt" "$work/ref.txt"
