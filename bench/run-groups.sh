#!/usr/bin/env bash
# run-groups.sh - run bench/groups against our system and against the Debian
# PVM 3.4.6 reference in one run, and print both side by side.
#
#   bench/run-groups.sh [BUILDDIR]          ("make bench-groups" runs it)
#   bench/run-groups.sh BUILDDIR tune       ours only, one column per
#                                           PVM_GROUP_TREE shape
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/groups (built against our libgpvm3 and libpvm3) and
# pvmd/pvmd.  The same groups.c is built here a second time against
# /usr/include/pvm3.h and Debian's libgpvm3/libpvm3.  Each system gets its
# own private virtual machine (own PVM_VMID and PVM_TMP); the reference
# never sees our libraries.  Its group server, /usr/bin/pvmgs, must be on
# its spawn path: the reference runs with a private HOME whose
# pvm3/bin/LINUX64 holds a link to it (and the reference-built benchmark).
#
# Runs are interleaved per member count, alternating which system goes
# first, so a change in background load hits both alike.  The whole
# sequence runs BENCH_ROUNDS times; the table shows, per cell, the median
# over the rounds of each round's median time per operation.
#
# Environment: BENCH_ROUNDS   rounds (default 3)
#              BENCH_SECS     time budget per cell, system and round (default 0.4 s)
#              BENCH_BLOCKS   timed blocks per cell, at least (default 5)
#              BENCH_MAXK     cap on operations per block (default 50; 8 for
#                             the 1 MiB / 100000-double operations; 1: every
#                             operation alone between two barriers)
#              BENCH_COUNTS   member counts (default "2 4 8 16 32"; tune: "16 32")
#              BENCH_FROZEN   1: freeze the groups (pvm_freezegroup) first
#              BENCH_TREES    tune mode: the PVM_GROUP_TREE values (default "flat 2 4 8")
#              PVM_GROUP_TREE passed on to our tasks (not in tune mode)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
mode=${2:-compare}
ours_bin=$builddir/bench/groups
ours_pvmd=$builddir/pvmd/pvmd
ref_pvm=/usr/bin/pvm
ref_pvmgs=/usr/bin/pvmgs
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECS:-0.4}
blocks=${BENCH_BLOCKS:-5}
maxk=${BENCH_MAXK:-50}
frozen=${BENCH_FROZEN:-0}
trees=${BENCH_TREES:-flat 2 4 8}
read -ra tree_list <<<"$trees"
case "$mode" in
compare) counts=${BENCH_COUNTS:-2 4 8 16 32} ;;
tune) counts=${BENCH_COUNTS:-16 32} ;;
*) echo "usage: run-groups.sh [BUILDDIR [compare|tune]]" >&2; exit 2 ;;
esac

fail() { echo "run-groups: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
if [ "$mode" = compare ] && ! { [ -x "$ref_pvm" ] && [ -x "$ref_pvmgs" ] &&
	[ -e /usr/include/pvm3.h ] && [ -e "$ref_libdir/libpvm3.so" ] &&
	[ -e "$ref_libdir/libgpvm3.so" ]; }; then
	fail "the reference is missing: apt-get install pvm pvm-dev"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench-groups.XXXXXX")
ours_vmid=bench-groups-ours-$$
ref_vmid=bench-groups-ref-$$
refbin=$work/ref-home/pvm3/bin/LINUX64
mkdir -m 700 "$work/ours-tmp" "$work/ref-tmp" "$work/refinc"
mkdir -p "$refbin"

groups_flag=()
[ "$frozen" = 1 ] && groups_flag=(-f)

# Environments of the two systems.  Neither inherits LD_LIBRARY_PATH: our
# binary finds its libraries through libtool's rpath, the reference's
# through the rpath set below.  Our tasks get PVM_GROUP_TREE through
# PVM_EXPORT (set per run in tune mode).
ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT -u PVM_EXPORT -u PVM_GROUP_TREE
	PVM_VMID="$ours_vmid" PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd")
if [ "$mode" = compare ] && [ -n "${PVM_GROUP_TREE:-}" ]; then
	ours_env+=(PVM_GROUP_TREE="$PVM_GROUP_TREE" PVM_EXPORT=PVM_GROUP_TREE)
fi
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD -u PVM_EXPORT -u PVM_GROUP_TREE -u PVM_PATH
	PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 HOME="$work/ref-home"
	PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp")

. "$(dirname "$0")/vms.sh"
trap vms_cleanup EXIT
trap 'exit 130' INT TERM

libof() { # library binary...: the path the loader picks for that library
	local lib=$1
	shift
	"$@" 2>/dev/null | awk -v l="$lib" '$1 == l { print $3 }'
}
for lib in libpvm3.so.3 libgpvm3.so.3; do
	l=$(libof $lib "${ours_env[@]}" ldd "$ours_bin")
	case "$l" in "$builddir"/*) ;; *) fail "our groups loads $lib from '$l', not the build tree";; esac
done
ours_lib=$(libof libgpvm3.so.3 "${ours_env[@]}" ldd "$ours_bin")

# --- build the reference binary from the same source ---------------------
# A private copy of Debian's header, so a pvm3.h in /usr/local/include
# cannot be picked up; rpath so a libpvm3 in /usr/local/lib cannot either.
# The binary lives on the reference's spawn path, next to its group server.
ref_bin=$refbin/groups
if [ "$mode" = compare ]; then
	cp /usr/include/pvm3.h "$work/refinc/"
	"${CC:-gcc}" -std=gnu11 -O2 -I"$work/refinc" -o "$ref_bin" "$srcdir/groups.c" \
		-L"$ref_libdir" -Wl,--disable-new-dtags,-rpath,"$ref_libdir" -lgpvm3 -lpvm3 ||
		fail "cannot build groups against the reference"
	ln -s "$ref_pvmgs" "$refbin/pvmgs"
	for lib in libpvm3.so.3 libgpvm3.so.3; do
		l=$(libof $lib "${ref_env[@]}" ldd "$ref_bin")
		case "$l" in "$ref_libdir"/*|/lib/x86_64-linux-gnu/*) ;;
			*) fail "the reference groups loads $lib from '$l', not Debian's";; esac
	done
	ref_lib=$(libof libgpvm3.so.3 "${ref_env[@]}" ldd "$ref_bin")

	# --- start both virtual machines --------------------------------------
	start_ref_vm
fi

start_our_vm

# --- run, interleaved ------------------------------------------------------
if [ "$mode" = compare ]; then
	echo "groups: ours $ours_lib${PVM_GROUP_TREE:+ (PVM_GROUP_TREE=$PVM_GROUP_TREE)}," \
		"reference $ref_lib with $ref_pvmgs"
else
	echo "groups, tuning: ours $ours_lib, PVM_GROUP_TREE = $trees"
fi
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds, $secs s per cell and round, >= $blocks blocks of <= $maxk ops per cell," \
	"$([ "$frozen" = 1 ] && echo frozen || echo plain) groups"
showlog() { # system: the end of its pvmd log (spawned tasks write there)
	local f
	for f in "$work/$1"-tmp/pvm.*/pvmd.log "$work/$1"-tmp/pvml.*; do
		[ -f "$f" ] && { echo "--- end of $f:"; tail -n 20 "$f"; } >&2
	done
}
run() { # label members [PVM_GROUP_TREE]
	local label=$1 n=$2 bin sys envname
	local extra=()
	if [ "$label" = ref ]; then bin=$ref_bin; sys=ref; envname='ref_env[@]'
	else bin=$ours_bin; sys=ours; envname='ours_env[@]'; fi
	[ $# -ge 3 ] && extra=(PVM_GROUP_TREE="$3" PVM_EXPORT=PVM_GROUP_TREE)
	timeout 600 "${!envname}" "${extra[@]}" "$bin" -q -n "$n" -t "$secs" -b "$blocks" -k "$maxk" \
		"${groups_flag[@]}" >"$work/last.txt" 2>>"$work/$sys.err" ||
		{ cat "$work/$sys.err" >&2; showlog "$sys"; fail "$label groups failed with $n members"; }
	awk -v l="$label" '{ print l, $0 }' "$work/last.txt" >>"$work/results.txt"
}
: >"$work/results.txt"
turn=0
start=$(date +%s)
for round in $(seq "$rounds"); do
	for n in $counts; do
		if [ "$mode" = compare ]; then
			if [ $((turn % 2)) = 0 ]; then run ours "$n"; run ref "$n"
			else run ref "$n"; run ours "$n"; fi
		else
			# rotate the order of the shapes from one count to the next
			for ((i = 0; i < ${#tree_list[@]}; i++)); do
				t=${tree_list[(turn + i) % ${#tree_list[@]}]}
				run "tree=$t" "$n" "$t"
			done
		fi
		turn=$((turn + 1))
	done
	echo "round $round done ($(($(date +%s) - start)) s)"
done

if [ "$mode" = compare ]; then
	echo "medians of the rounds; us per operation; speedup = reference time / our time" \
		"(>1: ours faster)"
else
	echo "medians of the rounds; us per operation"
fi
awk -v mode="$mode" -f "$srcdir/stats.awk" -f "$srcdir/groups-table.awk" "$work/results.txt"
