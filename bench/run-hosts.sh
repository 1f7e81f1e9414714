#!/usr/bin/env bash
# run-hosts.sh - issue 7: bench/pingpong with its partner on ANOTHER host,
# our system against the Debian PVM 3.4.6 reference in one run, through the
# pvmds (PvmDontRoute) and direct (PvmRouteDirect).
#
#   bench/run-hosts.sh [BUILDDIR]          ("make bench-hosts" runs it)
#
# BUILDDIR is the configured build tree (default: the current directory);
# it must hold bench/pingpong, pvmd/pvmd and console/pvm.  Needs root: two
# hosts h1 and h2 are built on this machine with test/hosts.bash (network
# namespaces joined by veth pairs on a bridge, each with its own sshd).
# On h1 each system's master pvmd starts with a hostfile naming h2, and
# starts h2's pvmd over ssh ($PVM_RSH, the harness's ssh wrapper): ours as
# `<our pvmd> -s`, the reference through a dx= wrapper that gives the
# remote pvmd what ssh's clean environment lacks (PVM_ROOT,
# PVM_ALLOW_ROOT, PVM_VMID).  pingpong runs on h1 with PINGPONG_HOST=h2, so
# its partner is spawned on h2 (and the program checks that it runs there).
#
# The reference binary is built from the same pingpong.c (as
# run-pingpong.sh does).  Runs are interleaved per (route, method),
# alternating which system goes first; the table shows per cell the median
# over BENCH_ROUNDS rounds of each round's median half round trip, and the
# target of issue 7: ours at least the reference's speed on both routes.
#
# The floors of issue 27 run in every round too, before or after the PVM
# runs (alternating): bench/rawtcp between h1 and h2, blocking and
# polling, and Open MPI's pingpong_mpi over its TCP BTL when mpicc.openmpi
# is installed (rank 0 on h1, rank 1 on h2, started over ssh with
# --bind-to none --mca btl self,tcp).  A second table (hosts-floor.awk)
# puts them beside ours and the reference, with issue 27's targets.
#
# Environment: BENCH_ROUNDS   rounds (default 3)
#              BENCH_SECS     time budget per cell, system and round (default 0.2 s)
#              BENCH_MAXREPS  cap on timed round trips per cell (default 3000)
#              BENCH_METHODS  methods (default psend,Raw,InPlace,Default)
#              BENCH_SIZES    sizes in bytes (default 8,1024,65536,1048576,16777216)
#              BENCH_OURS_ENV more VAR=value words for our pingpong (a
#                             diagnosis, e.g. "PVM_SHM=0 PVM_EXPORT=PVM_SHM")
set -euo pipefail

srcdir=$(cd "$(dirname "$0")" && pwd)
builddir=$(cd "${1:-.}" && pwd)
ours_bin=$builddir/bench/pingpong
ours_pvmd=$builddir/pvmd/pvmd
ours_console=$builddir/console/pvm
rawtcp_bin=$builddir/bench/rawtcp
ref_pvm=/usr/bin/pvm
ref_pvmd=/usr/lib/pvm3/lib/pvmd
ref_libdir=/usr/lib/x86_64-linux-gnu
rounds=${BENCH_ROUNDS:-3}
secs=${BENCH_SECS:-0.2}
maxreps=${BENCH_MAXREPS:-3000}
methods=${BENCH_METHODS:-psend,Raw,InPlace,Default}
sizes=${BENCH_SIZES:-8,1024,65536,1048576,16777216}

fail() { echo "run-hosts: $*" >&2; exit 1; }

[ -x "$ours_bin" ] || fail "$ours_bin not built (run make first)"
[ -x "$ours_pvmd" ] || fail "$ours_pvmd not built (run make first)"
[ -x "$ours_console" ] || fail "$ours_console not built (run make first)"
[ -x "$rawtcp_bin" ] || fail "$rawtcp_bin not built (run make first)"
[ -x "$ref_pvm" ] && [ -x "$ref_pvmd" ] && [ -e /usr/include/pvm3.h ] &&
	[ -e "$ref_libdir/libpvm3.so" ] ||
	fail "the reference is missing: apt-get install pvm pvm-dev"
. "$srcdir/../test/hosts.bash"
why=$(hosts_check) || fail "cannot build hosts here: $why"

# $work is made in the real /tmp and kept visible on every host (HOSTS_KEEP),
# like the build tree: both masters spawn their partner by absolute path.
work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench-hosts.XXXXXX")
chmod 755 "$work"
export HOSTS_KEEP="$work $builddir"
ours_vmid=bench-hosts-ours-$$
ref_vmid=bench-hosts-ref-$$
mkdir -m 700 "$work/ours-tmp" "$work/ref-tmp"

# Environments of the two systems on h1 (pvmds on h2 get theirs through
# ssh: ours from the master over the ssh channel, the reference's from the
# wrapper below).  Neither inherits LD_LIBRARY_PATH.
ours_env=(env -u LD_LIBRARY_PATH -u PVM_ROOT -u PVM_EXPORT PVM_VMID="$ours_vmid"
	PVM_TMP="$work/ours-tmp" PVM_PVMD="$ours_pvmd" PINGPONG_HOST=h2)
read -ra ours_extra <<<"${BENCH_OURS_ENV:-}"
for w in "${ours_extra[@]}"; do
	[[ "$w" == [A-Za-z_]*=* ]] || fail "BENCH_OURS_ENV: '$w' is not VAR=value"
done
ref_env=(env -u LD_LIBRARY_PATH -u PVM_PVMD -u PVM_EXPORT PVM_ROOT=/usr/lib/pvm3
	PVM_ALLOW_ROOT=1 PVM_VMID="$ref_vmid" PVM_TMP="$work/ref-tmp" PINGPONG_HOST=h2)

hosts_started=
cleanup() {
	set +e
	if [ -n "$hosts_started" ]; then
		# halt both virtual machines (every host), then remove the hosts,
		# which kills whatever is left in their namespaces
		(echo halt | on_host 1 "${ref_env[@]}" timeout 10 "$ref_pvm") >/dev/null 2>&1
		(echo halt | on_host 1 "${ours_env[@]}" timeout 10 "$ours_console") >/dev/null 2>&1
		hosts_down
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ref_build and check_libpvm3 (they use work, ours_env, ref_env, ref_libdir)
. "$srcdir/vms.sh"

# --- build the reference binary from the same source ---------------------
ref_bin=$work/pingpong-ref
ref_build "$ref_bin" "$srcdir/pingpong.c" -lpvm3
check_libpvm3 "$ours_bin" "$ref_bin"
mpi_bin=
if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
	mpi_bin=$work/pingpong_mpi
	mpicc.openmpi -std=gnu11 -O2 -o "$mpi_bin" "$srcdir/pingpong_mpi.c" ||
		fail "cannot build pingpong_mpi.c with mpicc.openmpi"
else
	echo "run-hosts: Open MPI is not installed (apt-get install openmpi-bin" \
		"libopenmpi-dev): its row is left out" >&2
fi

# --- the hosts and the two virtual machines --------------------------------
hosts_started=1
hosts_up 2 || fail "hosts_up 2 failed"

# The reference's remote pvmd runs in ssh's clean environment: the dx=
# wrapper gives it root permission (without PVM_ALLOW_ROOT=1 h2 never
# joins), and, to be explicit, its root and the VMID of this run.
cat >"$work/ref-dx" <<EOF
#!/bin/sh
PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_VMID=$ref_vmid
export PVM_ROOT PVM_ALLOW_ROOT PVM_VMID
exec $ref_pvmd "\$@"
EOF
chmod 755 "$work/ref-dx"
echo "h2 dx=$work/ref-dx ep=$work" >"$work/ref-hostfile"
echo "h2 ep=$work" >"$work/ours-hostfile"

# conf_has_h2 SYSTEM: its console on h1 lists h2 in the configuration.
conf_has_h2() {
	local envname="$1_env[@]" console
	if [ "$1" = ours ]; then console=$ours_console; else console=$ref_pvm; fi
	echo conf | on_host 1 "${!envname}" timeout 10 "$console" 2>/dev/null |
		grep -qw h2
}
wait_h2() { # SYSTEM: waits up to 40 s for h2 in its configuration
	local n=0
	until conf_has_h2 "$1"; do
		((n++ < 80)) || fail "$1: h2 did not join the virtual machine"
		sleep 0.5
	done
}

on_host 1 "${ours_env[@]}" "$ours_pvmd" "$work/ours-hostfile" </dev/null \
	>"$work/ours-pvmd.out" 2>&1 ||
	{ cat "$work/ours-pvmd.out" >&2; fail "our pvmd did not start"; }
echo quit | on_host 1 "${ref_env[@]}" timeout 60 "$ref_pvm" "$work/ref-hostfile" \
	>"$work/ref-console.out" 2>&1 ||
	{ cat "$work/ref-console.out" >&2; fail "the reference pvmd did not start"; }
wait_h2 ours
wait_h2 ref

# --- run, interleaved ------------------------------------------------------
echo "pingpong across two hosts: ours $ours_lib, reference $ref_lib"
echo "hosts: h1 -> h2, network namespaces on one machine joined by veth pairs" \
	"on a bridge: loopback-class networking, not a real wire"
echo "date: $(date -u "+%Y-%m-%d %H:%M UTC"); machine: $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
	"$rounds rounds, $secs s per cell and round, at most $maxreps round trips"
showlog() { # system: the end of its master pvmd's log
	local f
	for f in "$work/$1"-tmp/pvm.*/pvmd.log "$work/$1"-tmp/pvml.*; do
		[ -f "$f" ] && { echo "--- end of $f:"; tail -n 20 "$f"; } >&2
	done
}
run() { # system route
	local bin envname
	if [ "$1" = ours ]; then bin=$ours_bin; envname='ours_run[@]'
	else bin=$ref_bin; envname='ref_env[@]'; fi
	on_host 1 timeout 300 "${!envname}" "$bin" -q -t "$secs" -n "$maxreps" -r "$2" \
		-m "$3" -z "$sizes" >>"$work/$1.txt" 2>>"$work/$1.err" ||
		{ cat "$work/$1.err" >&2; showlog "$1"; fail "$1 pingpong failed on route $2, method $3"; }
}
ours_run=("${ours_env[@]}" "${ours_extra[@]}")
[ ${#ours_extra[@]} -eq 0 ] || echo "ours runs with: ${ours_extra[*]}"
# floors: raw TCP, blocking and polling (the echo side on h2), Open MPI
h2_addr=$(host_addr 2)
rawtcp_run() { # -p or nothing
	local port=$((20000 + RANDOM % 20000))
	on_host_bg 2 "$rawtcp_bin" -s "$port" $1 >"$work/rawtcp-srv.out" 2>&1
	local srv=$HOSTS_BG_PID n=0
	until grep -q listening "$work/rawtcp-srv.out" 2>/dev/null; do
		((n++ < 100)) || fail "rawtcp: the echo side on h2 did not start"
		sleep 0.05
	done
	on_host 1 timeout 300 "$rawtcp_bin" -c "$h2_addr:$port" $1 -q -t "$secs" \
		-n "$maxreps" -z "$sizes" >>"$work/floor.txt" 2>>"$work/floor.err" ||
		{ cat "$work/floor.err" >&2; fail "rawtcp $1 failed"; }
	wait "$srv" 2>/dev/null || true
}
mpi_run() {
	[ -n "$mpi_bin" ] || return 0
	on_host 1 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		timeout 300 mpirun.openmpi --allow-run-as-root -np 2 --host h1,h2 \
		--bind-to none --mca pml ob1 --mca btl self,tcp \
		--mca plm_rsh_agent "$PVM_RSH" \
		--mca btl_tcp_if_include "$HOSTS_NET.0/24" \
		--mca oob_tcp_if_include "$HOSTS_NET.0/24" \
		"$mpi_bin" -q -t "$secs" -n "$maxreps" -z "$sizes" </dev/null \
		>>"$work/floor.txt" 2>>"$work/floor.err" ||
		{ cat "$work/floor.err" >&2; fail "Open MPI pingpong_mpi failed"; }
}
floors() { rawtcp_run ""; rawtcp_run -p; mpi_run; }
: >"$work/ours.txt"; : >"$work/ref.txt"; : >"$work/floor.txt"
for round in $(seq "$rounds"); do
	[ $((round % 2)) = 1 ] && floors
	interleave 1 "$methods" "$round"
	[ $((round % 2)) = 0 ] && floors
done

for sys in ours ref; do # what the programs said on stderr (e.g. a route refused)
	[ -s "$work/$sys.err" ] && { echo "$sys pingpong's stderr:"; sort "$work/$sys.err" | uniq -c; }
done
echo "medians; latency = half round trip; MB/s = 10^6 bytes/s;" \
	"ours/ref = our speed / the reference's = ref time / our time (>= 1: target met)"
awk -f "$srcdir/stats.awk" -f "$srcdir/hosts-table.awk" "$work/ours.txt" "$work/ref.txt"
echo
echo "issue 27: the floors and psend (latency us at 8 B and 1 KiB, MB/s from 64 KiB)"
awk -f "$srcdir/stats.awk" -f "$srcdir/hosts-floor.awk" "$work/ours.txt" "$work/ref.txt" \
	"$work/floor.txt"
