#!/usr/bin/env bash
# run-local.sh - issue 6's one-host comparison in one run: our pingpong
# (the route our library picks by default, and with PVM_SHM=0 its fastest
# route without shared memory), the Debian PVM 3.4.6 reference (its faster
# route, PvmRouteDirect), Open MPI and MPICH (bench/pingpong_mpi.c) and one
# memcpy (bench/memcpy.c); prints medians and the ratios issue 6 targets.
#
#   bench/run-local.sh [BUILDDIR]          ("make bench-local" runs it)
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/pingpong, bench/memcpy and pvmd/pvmd.  The reference
# binary is built here from the same pingpong.c (as run-pingpong.sh does),
# the MPI twin with mpicc.openmpi and mpicc.mpich if they are installed (a
# missing MPI is left out of the table and its targets show "no data").
#
# Systems (columns of the table):
#   ours     bench/pingpong -r default: PvmRoute as our library sets it
#   noshm    the same with PVM_SHM=0 (exported to the partner, and set for
#            its own pvmd) and -r direct: our fastest route without the
#            shared-memory transport
#   ref      the reference's pingpong, -r direct
#   openmpi  mpirun.openmpi --allow-run-as-root -np 2 --mca pml ob1 --mca btl self,vader
#   mpich    mpirun.mpich -np 2
#   memcpy   bench/memcpy: one page-aligned copy, cache-cold at 16 MiB
# The PVM systems run psend/precv at all sizes, Raw send/recv at 8 B and
# PvmDataDefault at 1 MiB (the rows the targets name).  Each round runs
# every system once, starting with a different one each round, so a change
# in background load hits all alike; the table shows, per cell, the median
# over the rounds of each round's median.
#
# Issue 27 adds, in every round, for ours, noshm and ref: pingpong psend
# with both tasks on one CPU (their pvmd, hence the partner, and the
# master started under taskset -c on the first CPU of our mask), and
# bench/alltoall with 4 and 8 tasks on all CPUs; a second table
# (local-cores.awk) with their targets.  BENCH_CORES=no leaves them out.
#
# Environment: BENCH_ROUNDS   rounds (default 3)
#              BENCH_SECS     time budget per cell, system and round (default 0.2 s)
#              BENCH_MAXREPS  cap on timed round trips per cell (default 3000)
#              BENCH_SYSTEMS  the systems to run (default: all six above)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
ours_bin=$builddir/bench/pingpong
a2a_bin=$builddir/bench/alltoall
memcpy_bin=$builddir/bench/memcpy
ours_pvmd=$builddir/pvmd/pvmd
ref_pvm=/usr/bin/pvm
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECS:-0.2}
maxreps=${BENCH_MAXREPS:-3000}
read -ra systems <<<"${BENCH_SYSTEMS:-ours noshm ref openmpi mpich memcpy}"
cores=${BENCH_CORES:-yes}

fail() { echo "run-local: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$memcpy_bin" ] || fail "$memcpy_bin not built (run make first)"
[ "$cores" = no ] || [ -x "$a2a_bin" ] || fail "$a2a_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
[ -x "$ref_pvm" ] && [ -e /usr/include/pvm3.h ] && [ -e "$ref_libdir/libpvm3.so" ] ||
	fail "the reference is missing: apt-get install pvm pvm-dev"

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench-local.XXXXXX")
ours_vmid=bench-local-ours-$$
ref_vmid=bench-local-ref-$$
mkdir -m 700 "$work/ours-tmp" "$work/ours-noshm-tmp" "$work/ref-tmp" \
	"$work/ours-1c-tmp" "$work/ours-noshm-1c-tmp" "$work/ref-1c-tmp"

# Environments.  None inherits LD_LIBRARY_PATH: our binary finds its
# library through libtool's rpath, the reference's through the rpath
# ref_build sets.
ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT -u PVM_EXPORT -u PVM_SHM
	PVM_VMID="$ours_vmid" PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd")
noshm_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT PVM_SHM=0 PVM_EXPORT=PVM_SHM
	PVM_VMID="$ours_vmid-noshm" PVM_TMP="$work/ours-noshm-tmp" PVM_PVMD="$ours_pvmd")
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD -u PVM_EXPORT PVM_ROOT=/usr/lib/pvm3
	PVM_ALLOW_ROOT=1 PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp")
# One core: the first CPU of our mask, for a pvmd (so for the partners
# it spawns) and the master; VMs of their own.
cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
one=(taskset -c "$cpu0")
ours1_env=("${one[@]}" env -u LD_LIBRARY_PATH -u PVM_ROOT -u PVM_EXPORT -u PVM_SHM
	PVM_VMID="$ours_vmid-1c" PVM_TMP="$work/ours-1c-tmp" PVM_PVMD="$ours_pvmd")
noshm1_env=("${one[@]}" env -u LD_LIBRARY_PATH -u PVM_ROOT PVM_SHM=0 PVM_EXPORT=PVM_SHM
	PVM_VMID="$ours_vmid-noshm-1c" PVM_TMP="$work/ours-noshm-1c-tmp" PVM_PVMD="$ours_pvmd")
ref1_env=("${one[@]}" env -u LD_LIBRARY_PATH -u PVM_PVMD -u PVM_EXPORT PVM_ROOT=/usr/lib/pvm3
	PVM_ALLOW_ROOT=1 PVM_VMID="$ref_vmid-1c" PVM_TMP="$work/ref-1c-tmp")
openmpi_env=(env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
openmpi_run=(mpirun.openmpi --allow-run-as-root -np 2 --mca pml ob1 --mca btl self,vader)
mpich_run=(mpirun.mpich -np 2)

. "$(dirname "$0")/vms.sh"
ref1_started=
cleanup() {
	set +e # (halt kills the console: a failure here must not end the cleanup)
	if [ -n "$ref1_started" ]; then
		(echo halt | "${ref1_env[@]}" timeout 10 "$ref_pvm") >/dev/null 2>&1
		for p in $(pgrep -x pvmd); do
			tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" |
				grep -qx "PVM_VMID=$ref_vmid-1c" && kill "$p"
		done
	fi
	vms_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

has() { local s; for s in "${systems[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

# --- builds -----------------------------------------------------------------
ref_bin=$work/pingpong-ref
ref_build "$ref_bin" "$srcdir/pingpong.c" -lpvm3
check_libpvm3 "$ours_bin" "$ref_bin"
a2a_ref=$work/alltoall-ref
[ "$cores" = no ] || ref_build "$a2a_ref" "$srcdir/alltoall.c" -lpvm3

# The MPI twin, once per MPI; an MPI that is not installed is dropped.
kept=()
for s in "${systems[@]}"; do
	case $s in
	openmpi|mpich)
		if command -v "mpicc.$s" >/dev/null && command -v "mpirun.$s" >/dev/null; then
			"mpicc.$s" -std=gnu11 -O2 -o "$work/pingpong_mpi-$s" "$srcdir/pingpong_mpi.c" ||
				fail "cannot build pingpong_mpi.c with mpicc.$s"
		else
			echo "run-local: $s is not installed (apt-get install openmpi-bin" \
				"libopenmpi-dev mpich libmpich-dev): left out" >&2
			continue
		fi ;;
	ours|noshm|ref|memcpy) ;;
	*) fail "unknown system '$s' in BENCH_SYSTEMS" ;;
	esac
	kept+=("$s")
done
systems=("${kept[@]}")

# --- virtual machines ---------------------------------------------------------
if has ref; then start_ref_vm; fi
if has ours; then start_our_vm; fi
if has noshm; then start_our_vm noshm_env ours-noshm; fi
if [ "$cores" != no ]; then
	start_our_vm ours1_env ours-1c
	start_our_vm noshm1_env ours-noshm-1c
	echo quit | "${ref1_env[@]}" timeout 20 "$ref_pvm" >"$work/ref-1c-console.out" 2>&1 ||
		{ cat "$work/ref-1c-console.out" >&2; fail "the reference pvmd (one core) did not start"; }
	ref1_started=1
fi

echo "local: ours $ours_lib, reference $ref_lib"
echo "host: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds, $secs s per cell and round, at most $maxreps round trips;" \
	"systems: ${systems[*]}"

showlog() { # label: the end of the pvmd logs under $work/label-tmp
	local f
	for f in "$work/$1"-tmp/pvm.*/pvmd.log "$work/$1"-tmp/pvml.*; do
		[ -f "$f" ] && { echo "--- end of $f:"; tail -n 20 "$f"; } >&2
	done
}
# pvm_runs SYSTEM ENVARRAY BIN ROUTE LABEL: the three pingpong runs of a PVM system
pvm_runs() {
	local sys=$1 envname="$2[@]" bin=$3 route=$4 label=$5 args
	for args in "-m psend" "-m Raw -z 8" "-m Default -z 1048576"; do
		# shellcheck disable=SC2086 # args is a list of options
		timeout 300 "${!envname}" "$bin" -q -t "$secs" -n "$maxreps" -r "$route" $args \
			>>"$work/$sys.txt" 2>>"$work/$sys.err" ||
			{ cat "$work/$sys.err" >&2; showlog "$label"; fail "$sys pingpong failed ($args)"; }
	done
}
mpi_run() { # SYSTEM command...
	local sys=$1
	shift
	timeout 300 "$@" "$work/pingpong_mpi-$sys" -q -t "$secs" -n "$maxreps" \
		>>"$work/$sys.txt" 2>>"$work/$sys.err" </dev/null ||
		{ cat "$work/$sys.err" >&2; fail "$sys pingpong_mpi failed"; }
}
run() { # system
	case $1 in
	ours) pvm_runs ours ours_env "$ours_bin" default ours ;;
	noshm) pvm_runs noshm noshm_env "$ours_bin" direct ours-noshm ;;
	ref) pvm_runs ref ref_env "$ref_bin" direct ref ;;
	openmpi) mpi_run openmpi "${openmpi_env[@]}" "${openmpi_run[@]}" ;;
	mpich) mpi_run mpich "${mpich_run[@]}" ;;
	memcpy)
		timeout 300 "$memcpy_bin" -q -t "$secs" -n "$maxreps" >>"$work/memcpy.txt" ||
			fail "memcpy failed" ;;
	esac
}

# cores_run SYSTEM: its one-core pingpong and all-to-all runs (issue 27)
cores_run() {
	local sys=$1 env1 env2 bin a2a route f="$work/cores-$1.txt"
	case $sys in
	ours) env1=ours1_env; env2=ours_env; bin=$ours_bin; a2a=$a2a_bin; route=default ;;
	noshm) env1=noshm1_env; env2=noshm_env; bin=$ours_bin; a2a=$a2a_bin; route=direct ;;
	ref) env1=ref1_env; env2=ref_env; bin=$ref_bin; a2a=$a2a_ref; route=direct ;;
	esac
	local e1="$env1[@]" e2="$env2[@]" n
	# the route column says where it ran: 1core
	timeout 300 "${!e1}" "$bin" -q -t "$secs" -n "$maxreps" -r "$route" -m psend \
		-z 8,65536,1048576 2>>"$work/$sys.err" | sed 's/^[^ ]*/1core/' >>"$f" ||
		{ cat "$work/$sys.err" >&2; fail "$sys one-core pingpong failed"; }
	for n in 4 8; do
		timeout 120 "${!e2}" "$a2a" -N "$n" -q -t "$secs" -n "$maxreps" \
			-r "$route" -z 8,65536 >>"$f" 2>>"$work/$sys.err" ||
			{ cat "$work/$sys.err" >&2; fail "$sys alltoall -N $n failed"; }
	done
}
csys=(ours noshm ref)

files=()
for s in "${systems[@]}"; do : >"$work/$s.txt"; files+=("$work/$s.txt"); done
for s in "${csys[@]}"; do : >"$work/cores-$s.txt"; done
n=${#systems[@]}
start=$(date +%s)
for round in $(seq "$rounds"); do
	for i in $(seq 0 $((n - 1))); do
		run "${systems[$(((i + round - 1) % n))]}"
	done
	if [ "$cores" != no ]; then
		for i in 0 1 2; do cores_run "${csys[$(((i + round - 1) % 3))]}"; done
	fi
	echo "round $round done ($(( $(date +%s) - start )) s)"
done

echo "load average at the end: $(cut -d" " -f1-3 /proc/loadavg)"
awk -f "$srcdir/stats.awk" -f "$srcdir/local-table.awk" "${files[@]}"
if [ "$cores" != no ]; then
	echo
	echo "issue 27: two tasks on CPU $cpu0 (1core), and 4 and 8 tasks all-to-all on $(nproc) CPUs"
	awk -f "$srcdir/stats.awk" -f "$srcdir/local-cores.awk" \
		"$work/cores-ours.txt" "$work/cores-noshm.txt" "$work/cores-ref.txt"
fi
