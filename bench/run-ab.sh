#!/usr/bin/env bash
# run-ab.sh - two builds of OUR system, before and after a change, measured
# in one interleaved run: the table shows per cell each build's median, the
# spread of its per-round medians and the ratio after / before, and flags
# the cells where after lies outside before's spread (widened by 10%).
#
#   bench/run-ab.sh [--kind local|hosts|groups|all] [--rounds N] BEFORE_BUILDDIR AFTER_BUILDDIR
#   make bench-ab BEFORE=/path/to/build [KIND=local]  (AFTER: that build tree)
#
# Each BUILDDIR is a configured and built tree with pvmd/pvmd and what the
# kind runs: bench/pingpong (local, hosts), console/pvm (hosts),
# bench/groups (groups).  Each build runs against virtual machines of its
# own (own PVM_VMID, PVM_TMP and PVM_PVMD); its binaries load its own
# libpvm3 (and libgpvm3) through libtool's rpath, never LD_LIBRARY_PATH,
# which is checked with ldd.
#
# Kinds (all: the three, one after the other; hosts is left out when this
# machine cannot build hosts, e.g. not root):
#   local   bench/pingpong on one host, the rows of run-local.sh (psend at
#           every size, Raw 8 B, Default 1 MiB) on three routes: default
#           (-r default: the library's choice, shared memory), and with
#           PVM_SHM=0 (for the pvmd and the tasks) direct and pvmd: shared
#           memory serves local tasks whatever PvmRoute says
#   hosts   bench/pingpong with its partner on another host, as
#           run-hosts.sh does (root; network namespaces of test/hosts.bash):
#           routes pvmd and direct, BENCH_METHODS at BENCH_SIZES
#   groups  bench/groups at BENCH_COUNTS members, as run-groups.sh does
# In every round each cell group (local and hosts: route and method; groups:
# member count) runs for both builds back to back; which build goes first
# alternates from group to group and from round to round.
#
# Environment: BENCH_ROUNDS   rounds (default 3; --rounds wins)
#              BENCH_SECS     time budget per cell, build and round
#                             (default 0.2 s for pingpong, 0.4 s for groups)
#              BENCH_MAXREPS  cap on timed round trips per cell (default 3000)
#              BENCH_METHODS, BENCH_SIZES   hosts, as for run-hosts.sh
#              BENCH_COUNTS, BENCH_BLOCKS, BENCH_MAXK   groups, as for run-groups.sh
#              BENCH_TOL      widening of before's range for the flags (default 0.1)
set -euo pipefail

usage() {
	echo "usage: run-ab.sh [--kind local|hosts|groups|all] [--rounds N]" \
		"BEFORE_BUILDDIR AFTER_BUILDDIR" >&2
	exit 2
}
fail() { echo "run-ab: $*" >&2; exit 1; }

srcdir=$(cd "$(dirname "$0")" && pwd)
kind=all
rounds=${BENCH_ROUNDS:-3}
while [ $# -gt 0 ]; do
	case $1 in
	--kind) [ $# -ge 2 ] || usage; kind=$2; shift 2 ;;
	--kind=*) kind=${1#*=}; shift ;;
	--rounds) [ $# -ge 2 ] || usage; rounds=$2; shift 2 ;;
	--rounds=*) rounds=${1#*=}; shift ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || usage
[[ $rounds =~ ^[1-9][0-9]*$ ]] || fail "--rounds: '$rounds' is not a positive number"
case $kind in
local|hosts|groups) kinds=("$kind") ;;
all) kinds=(local hosts groups) ;;
*) usage ;;
esac
has() { [[ " ${kinds[*]} " == *" $1 "* ]]; } # has KIND: it is to run

declare -A dir
dir[before]=$(cd "$1" && pwd) || fail "no directory $1"
dir[after]=$(cd "$2" && pwd) || fail "no directory $2"
secs=${BENCH_SECS:-0.2}
gsecs=${BENCH_SECS:-0.4}
maxreps=${BENCH_MAXREPS:-3000}
methods=${BENCH_METHODS:-psend,Raw,InPlace,Default}
sizes=${BENCH_SIZES:-8,1024,65536,1048576,16777216}
counts=${BENCH_COUNTS:-2 4 8 16 32}
blocks=${BENCH_BLOCKS:-5}
maxk=${BENCH_MAXK:-50}
tol=${BENCH_TOL:-0.1}

# hosts needs root and namespaces: an explicit --kind hosts fails without
# them, "all" leaves hosts out.
. "$srcdir/../test/hosts.bash"
if has hosts && ! why=$(hosts_check); then
	[ "$kind" = all ] || fail "cannot build hosts here: $why"
	echo "run-ab: hosts left out: $why" >&2
	kinds=(local groups)
fi

needs=(pvmd/pvmd)
for k in "${kinds[@]}"; do
	case $k in
	local) needs+=(bench/pingpong) ;;
	hosts) needs+=(bench/pingpong console/pvm) ;;
	groups) needs+=(bench/groups) ;;
	esac
done
for b in before after; do
	for f in "${needs[@]}"; do
		[ -x "${dir[$b]}/$f" ] || fail "$b: ${dir[$b]}/$f not built"
	done
done

# $work stays visible on the hosts (HOSTS_KEEP), like both build trees.
work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-bench-ab.XXXXXX")
chmod 755 "$work"
export HOSTS_KEEP="$work ${dir[before]} ${dir[after]}"

# mkenv NAME BUILD LABEL VAR=value...: the array NAME = the env command of
# BUILD's pvmd and tasks, with a virtual machine of its own: PVM_VMID and
# PVM_TMP ($work/LABEL-tmp) from LABEL.
mkenv() {
	local -n arr=$1
	# shellcheck disable=SC2034 # arr is a nameref: it sets the array NAME
	arr=(env -u LD_LIBRARY_PATH -u PVM_ROOT -u PVM_EXPORT -u PVM_SHM -u PVM_GROUP_TREE
		-u PINGPONG_HOST PVM_VMID="bench-ab-$3-$$" PVM_TMP="$work/$3-tmp"
		PVM_PVMD="${dir[$2]}/pvmd/pvmd" "${@:4}")
	mkdir -m 700 "$work/$3-tmp"
}
for b in before after; do
	mkenv "${b}_env" "$b" "ours-$b"
	mkenv "${b}_noshm_env" "$b" "ours-$b-noshm" PVM_SHM=0 PVM_EXPORT=PVM_SHM
	mkenv "${b}_hosts_env" "$b" "hosts-$b" PINGPONG_HOST=h2
done

hosts_started=
cleanup() {
	set +e
	if [ -n "$hosts_started" ]; then
		for b in before after; do
			local e="${b}_hosts_env[@]"
			(echo halt | on_host 1 "${!e}" timeout 10 "${dir[$b]}/console/pvm") >/dev/null 2>&1
		done
		hosts_down
	fi
	local pidfile
	for pidfile in "$work"/ours-*-tmp/pvm.*/pvmd.pid; do
		[ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
	done
	sleep 0.2
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# lib_of ENVARRAY BIN LIB (bench/vms.sh)
. "$srcdir/vms.sh"
# checklib BUILD ENVARRAY BIN LIB...: BIN loads each LIB from BUILD's tree.
checklib() {
	local b=$1 envname=$2 bin=$3 lib l
	shift 3
	for lib; do
		l=$(lib_of "$envname" "$bin" "$lib")
		case $l in "${dir[$b]}"/*) ;;
		*) fail "$b: $bin loads $lib from '${l:-nowhere}', not from ${dir[$b]}" ;;
		esac
	done
}
for b in before after; do
	if has groups; then
		checklib "$b" "${b}_env" "${dir[$b]}/bench/groups" libpvm3.so.3 libgpvm3.so.3
	fi
	if has local || has hosts; then
		checklib "$b" "${b}_env" "${dir[$b]}/bench/pingpong" libpvm3.so.3
	fi
done

# startvm BUILD ENVARRAY LABEL [HOSTFILE]: BUILD's pvmd in that environment,
# with a HOSTFILE on host 1 (it detaches by itself, exits 0 once it serves).
startvm() {
	local b=$1 e="$2[@]" label=$3 pre=()
	shift 3
	[ $# -eq 0 ] || pre=(on_host 1)
	"${pre[@]}" "${!e}" "${dir[$b]}/pvmd/pvmd" "$@" </dev/null \
		>"$work/$label-pvmd.out" 2>&1 ||
		{ cat "$work/$label-pvmd.out" >&2; fail "$b: pvmd did not start ($label)"; }
}
showlog() { # LABEL: the end of the pvmd logs under $work/LABEL-tmp
	local f
	for f in "$work/$1"-tmp/pvm.*/pvmd.log "$work/$1"-tmp/pvml.*; do
		[ -f "$f" ] && { echo "--- end of $f:"; tail -n 20 "$f"; } >&2
	done
	return 0
}
: >"$work/results.txt"
# keep BUILD KIND: the last run's result lines go to results.txt as
# "BUILD KIND ROUTE-or-N METHOD-or-OP BYTES-or-- US" (ab-table.awk's input).
keep() {
	awk -v b="$1" -v k="$2" '/^#/ { next }
		k == "groups" && NF >= 5 { print b, k, $1, $2, "-", $5; next }
		NF >= 6 { print b, k, $1, $2, $3, $5 }' "$work/last.txt" >>"$work/results.txt"
}
# pp BUILD KIND ENVARRAY LABEL [on_host 1] -- PINGPONG-OPTIONS: one pingpong
# run (LABEL: its VM's, for the log on failure).
pp() {
	local b=$1 k=$2 envname="$3[@]" label=$4 pre=()
	shift 4
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	"${pre[@]}" timeout 300 "${!envname}" "${dir[$b]}/bench/pingpong" -q -t "$secs" \
		-n "$maxreps" "$@" >"$work/last.txt" 2>>"$work/$b.err" ||
		{ cat "$work/$b.err" >&2; showlog "$label"; fail "$b pingpong failed ($k: $*)"; }
	keep "$b" "$k"
}
# local_cell BUILD ROUTE METHOD-OPTIONS...: route default in the VM with
# shared memory; direct and pvmd in the one with PVM_SHM=0 (shared memory
# serves every local destination whatever PvmRoute says, docs/shm.md).
local_cell() {
	local b=$1 r=$2
	shift 2
	if [ "$r" = default ]; then pp "$b" local "${b}_env" "ours-$b" -- -r default "$@"
	else pp "$b" local "${b}_noshm_env" "ours-$b-noshm" -- -r "$r" "$@"; fi
}
hosts_cell() { # BUILD ROUTE METHOD
	pp "$1" hosts "${1}_hosts_env" "hosts-$1" on_host 1 -- -r "$2" -m "$3" -z "$sizes"
}
groups_cell() { # BUILD MEMBERS
	local b=$1 envname="${1}_env[@]"
	timeout 600 "${!envname}" "${dir[$b]}/bench/groups" -q -n "$2" -t "$gsecs" -b "$blocks" \
		-k "$maxk" >"$work/last.txt" 2>>"$work/$b.err" ||
		{ cat "$work/$b.err" >&2; showlog "ours-$b"; fail "$b groups failed with $2 members"; }
	keep "$b" groups
}
# ab CELLFUNCTION ARGS...: the cell group for both builds, back to back;
# before first when round + group number is odd.
ab() {
	local f=$1
	shift
	if (((round + group++) % 2)); then "$f" before "$@"; "$f" after "$@"
	else "$f" after "$@"; "$f" before "$@"; fi
}

wait_h2() { # BUILD: until h2 is in its VM's configuration (40 s at most)
	local e="${1}_hosts_env[@]" n=0
	until echo conf | on_host 1 "${!e}" timeout 10 "${dir[$1]}/console/pvm" 2>/dev/null |
		grep -qw h2; do
		((n++ < 80)) || fail "$1: h2 did not join the virtual machine"
		sleep 0.5
	done
}
setup() { # KIND: its virtual machines (and hosts)
	local b
	for b in before after; do
		case $1 in
		local)
			startvm "$b" "${b}_env" "ours-$b"
			startvm "$b" "${b}_noshm_env" "ours-$b-noshm" ;;
		groups) [ -e "$work/ours-$b-pvmd.out" ] || startvm "$b" "${b}_env" "ours-$b" ;;
		hosts)
			if [ -z "$hosts_started" ]; then
				hosts_started=1
				hosts_up 2 || fail "hosts_up 2 failed"
				echo "h2 ep=$work" >"$work/hostfile"
			fi
			startvm "$b" "${b}_hosts_env" "hosts-$b" "$work/hostfile"
			wait_h2 "$b" ;;
		esac
	done
}

src_of() { # BUILDDIR: its source tree, and the commit that tree is at now
	local s c=
	s=$(sed -n 's/^abs_top_srcdir = //p' "$1/Makefile" 2>/dev/null) || true
	[ -z "$s" ] || c=$(git --no-optional-locks -C "$s" describe --always --dirty 2>/dev/null) || c=
	echo "${s:-?}${c:+, now at $c}"
}
echo "before: ${dir[before]} (source $(src_of "${dir[before]}"))"
echo "after:  ${dir[after]} (source $(src_of "${dir[after]}"))"
[ "${dir[before]}" != "${dir[after]}" ] || echo "(before and after are the same build: an A/A run)"
echo "date: $(date -u "+%Y-%m-%d %H:%M UTC"); host: $(nproc) cpus, load average" \
	"$(cut -d' ' -f1-3 /proc/loadavg); $rounds rounds; kinds: ${kinds[*]}"
echo "pingpong: $secs s per cell, build and round, at most $maxreps round trips;" \
	"groups: $gsecs s per cell, >= $blocks blocks of <= $maxk ops"
start=$(date +%s)
for k in "${kinds[@]}"; do
	setup "$k"
	for round in $(seq "$rounds"); do
		group=0
		case $k in
		local)
			for r in default direct pvmd; do
				ab local_cell "$r" -m psend
				ab local_cell "$r" -m Raw -z 8
				ab local_cell "$r" -m Default -z 1048576
			done ;;
		hosts)
			for r in pvmd direct; do
				for m in ${methods//,/ }; do ab hosts_cell "$r" "$m"; done
			done ;;
		groups)
			for n in $counts; do ab groups_cell "$n"; done ;;
		esac
		echo "$k: round $round done ($(($(date +%s) - start)) s)"
	done
done

for b in before after; do # what the programs said on stderr (e.g. a route refused)
	[ -s "$work/$b.err" ] && { echo "$b's stderr:"; sort "$work/$b.err" | uniq -c; }
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "routes: local default = -r default (shared memory); local direct and pvmd with" \
	"PVM_SHM=0; hosts: partner on h2"
awk -v tol="$tol" -v rounds="$rounds" -f "$srcdir/stats.awk" -f "$srcdir/ab-table.awk" \
	"$work/results.txt"
