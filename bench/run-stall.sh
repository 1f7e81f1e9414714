#!/usr/bin/env bash
# run-stall.sh - how long a small request waits while the pvmd is given
# long work (docs/limits.md, docs/security.md): bench/probe times a
# pvm_config every 10 ms while, on the same virtual machine,
#   idle      nothing else happens (the baseline)
#   spawn     the console spawns 4096 copies of /bin/true in one call
#   pattern   a task lists the mailbox with a pattern that makes glibc's
#             regexec backtrack for minutes (cut off after 5 s)
# and prints, per case, the probe's median, 99th percentile and maximum.
#
#   bench/run-stall.sh [BUILDDIR]          ("make bench-stall" runs it)
#
# Ours only: the reference's pvmd cannot hold 4096 tasks (docs/limits.md).
# A pvmd that ran the pattern itself would still be at it when this ends:
# the pvmd is killed if it does not halt.
set -euo pipefail

builddir=$(cd "${1:-.}" && pwd)
probe=$builddir/bench/probe
pvmd=$builddir/pvmd/pvmd
console=$builddir/console/pvm
[ -x "$probe" ] && [ -x "$pvmd" ] && [ -x "$console" ] ||
	{ echo "run-stall: build first (bench/probe, pvmd, console)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-stall.XXXXXX")
export PVM_VMID=bench-stall-$$ PVM_TMP=$work/tmp PVM_PVMD=$pvmd PVM_PATH=$work/bin
unset LD_LIBRARY_PATH PVM_EXPORT
mkdir -m 700 "$work/tmp" "$work/bin"
ln -s /bin/true "$work/bin/quick"
cleanup() {
	local pid
	pid=$(cat "$work/tmp/pvm.$(id -u).$PVM_VMID/pvmd.pid" 2>/dev/null) || true
	echo halt | timeout 10 "$console" >/dev/null 2>&1 || true
	[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
"$pvmd" </dev/null >/dev/null 2>&1 &
for _ in $(seq 100); do
	[ -S "$work/tmp/pvm.$(id -u).$PVM_VMID/pvmd.sock" ] && break
	sleep 0.1
done

# case NAME CMD...: the probe runs while CMD does
case_run() {
	local name=$1 stop=$work/stop.$1 out=$work/probe.$1
	shift
	"$probe" "$stop" 60 >"$out" &
	local pid=$!
	while ! grep -q probing "$out" 2>/dev/null; do sleep 0.05; done
	sleep 0.3
	"$@" >/dev/null 2>&1 || true
	sleep 0.3
	touch "$stop"
	wait "$pid"
	printf '%-8s %s\n' "$name" "$(tail -n 1 "$out")"
}

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cpus; load $(cut -d' ' -f1-3 /proc/loadavg)"
case_run idle sleep 2
case_run spawn sh -c "printf 'spawn -4096 quick\n' | '$console'"
# an entry the pattern can backtrack over, and the pattern
"$probe" -put "fz$(printf 'x%.0s' $(seq 200))"
case_run pattern timeout 5 "$probe" -list '(.*)*(.*)*(.*)*(.*)*(.*)*x\1\2'
