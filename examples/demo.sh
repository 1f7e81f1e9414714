#!/usr/bin/env bash
# demo.sh - start a private one-host virtual machine with the build tree's
# pvmd, run the examples in it, and halt it again ("make demo" runs this).
#
#   examples/demo.sh [BUILDDIR]        (default: the current directory)
#
# The virtual machine is private to this run: its own PVM_VMID and a fresh
# PVM_TMP directory, so it never meets another pvmd.  The examples spawn
# their partners by name; the pvmd finds them through PVM_PATH, which points
# at the build tree's examples directory.  Any failure stops the demo with
# a message and a non-zero exit status, and the pvmd is stopped either way.
set -euo pipefail

builddir=$(cd "${1:-.}" && pwd)
pvmd=$builddir/pvmd/pvmd
console=$builddir/console/pvm
examples=$builddir/examples

fail() { echo "demo: FAILED: $*" >&2; exit 1; }
for f in "$pvmd" "$console" "$examples/hello" "$examples/hello_other" "$examples/ring"; do
	[ -x "$f" ] || fail "$f is not built (run make first)"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/pvm-demo.XXXXXX")
unset LD_LIBRARY_PATH
export PVM_TMP=$work PVM_VMID=demo-$$ PVM_PVMD=$pvmd PVM_PATH=$examples

pvmd_pid() { cat "$work"/pvm.*/pvmd.pid 2>/dev/null || true; }
# alive PID: the process exists and is not a zombie waiting to be reaped.
alive() {
	local st
	st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	case "$st" in Z*|"") return 1;; esac
}
showlog() {
	local log
	for log in "$work"/pvm.*/pvmd.log; do
		[ -f "$log" ] && { echo "--- last lines of the pvmd log ($log):"; tail -n 25 "$log"; }
	done >&2
	return 0
}
started=
cleanup() {
	local rc=$? pid
	set +e
	if [ -n "$started" ] && pid=$(pvmd_pid) && [ -n "$pid" ] && alive "$pid"; then
		kill "$pid"   # only reached when the demo failed before its halt
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# step TITLE COMMAND...: runs one step with a time limit, failing clearly.
step() {
	local title=$1 rc=0
	shift
	echo "== $title"
	timeout 60 "$@" || rc=$?
	if [ "$rc" != 0 ]; then
		showlog
		[ "$rc" = 124 ] && fail "$title: no answer within 60 s"
		fail "$title (exit status $rc)"
	fi
	echo
}

echo "== starting a private virtual machine"
echo "   pvmd     $pvmd"
echo "   PVM_VMID $PVM_VMID, PVM_TMP $PVM_TMP, PVM_PATH $PVM_PATH"
"$pvmd" || { showlog; fail "the pvmd did not start"; }
started=1
echo "   pvmd running, pid $(pvmd_pid)"
echo

step "hello: spawns hello_other, which sends back a greeting" "$examples/hello"
step "ring: a token around 4 tasks in every encoding, checked at every hop" "$examples/ring" 4
step "the console: conf and ps -a" sh -c 'printf "conf\nps -a\n" | "$1"' sh "$console"

echo "== halting the virtual machine"
pid=$(pvmd_pid)
echo halt | timeout 20 "$console" >"$work/halt.out" 2>&1 || true
for _ in $(seq 50); do
	alive "$pid" || break
	sleep 0.1
done
if alive "$pid"; then
	cat "$work/halt.out" >&2
	fail "the pvmd (pid $pid) is still running after the console's halt"
fi
echo "   pvmd $pid has stopped"
echo
echo "demo: all steps passed"
