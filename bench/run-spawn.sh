#!/usr/bin/env bash
# run-spawn.sh - run bench/spawn against our system and against the Debian
# PVM 3.4.6 reference in one run, and print both with their ratio.
#
#   bench/run-spawn.sh [BUILDDIR]          ("make bench-spawn" runs it)
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/spawn and pvmd/pvmd.  The same spawn.c is built a
# second time against /usr/include/pvm3.h and Debian's libpvm3.  Each system
# has its own private virtual machine (bench/vms.sh).  The rounds alternate
# which system goes first; the table shows the median over the rounds of
# each round's median.
#
# Environment: BENCH_ROUNDS  rounds (default 3)
#              BENCH_REPS    timed spawns per round (default 11)
#              BENCH_TASKS   tasks per spawn (default 16)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
ours_bin=$builddir/bench/spawn
ours_pvmd=$builddir/pvmd/pvmd
ref_pvm=/usr/bin/pvm
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
reps=${BENCH_REPS:-11}
ntasks=${BENCH_TASKS:-16}

fail() { echo "run-spawn: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
[ -x "$ref_pvm" ] && [ -e /usr/include/pvm3.h ] && [ -e "$ref_libdir/libpvm3.so" ] ||
	fail "the reference is missing: apt-get install pvm pvm-dev"

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench.XXXXXX")
ours_vmid=bench-spawn-ours-$$
ref_vmid=bench-spawn-ref-$$
mkdir -m 700 "$work/ours-tmp" "$work/ref-tmp"

ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT PVM_VMID="$ours_vmid"
	PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd")
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1
	PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp")

. "$srcdir/vms.sh"
trap vms_cleanup EXIT
trap 'exit 130' INT TERM

# The reference binary, from the same source (bench/vms.sh).
ref_bin=$work/spawn-ref
ref_build "$ref_bin" "$srcdir/spawn.c" -lpvm3
check_libpvm3 "$ours_bin" "$ref_bin"

start_ref_vm
start_our_vm

run() { # system
	local bin envname
	if [ "$1" = ours ]; then bin=$ours_bin; envname='ours_env[@]'
	else bin=$ref_bin; envname='ref_env[@]'; fi
	timeout 300 "${!envname}" "$bin" -q -n "$ntasks" -r "$reps" \
		>>"$work/$1.txt" 2>>"$work/$1.err" ||
		{ cat "$work/$1.err" >&2; fail "$1 spawn failed"; }
}
: >"$work/ours.txt"; : >"$work/ref.txt"
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds of $reps spawns of $ntasks tasks"
for round in $(seq "$rounds"); do
	if [ $((round % 2)) = 1 ]; then run ours; run ref; else run ref; run ours; fi
done

# median of the rounds' medians (field 5 of "spawn N tasks: median U us ...")
med() { awk '{ print $5 }' "$1" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ours=$(med "$work/ours.txt")
ref=$(med "$work/ref.txt")
awk -v o="$ours" -v r="$ref" -v n="$ntasks" 'BEGIN {
	printf "%-10s %12s %14s\n", "system", "spawn " n " (us)", "per task (us)"
	printf "%-10s %12.0f %14.0f\n", "ours", o, o / n
	printf "%-10s %12.0f %14.0f\n", "reference", r, r / n
	printf "ours / reference = %.3f (target: at most 0.25)\n", o / r
}'
