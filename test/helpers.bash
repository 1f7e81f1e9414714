# helpers.bash - loaded by every test/*.bats file.
#
# Each test gets its own virtual machine: a unique PVM_VMID, a private
# PVM_TMP (so its VM directory, socket and log live under a temp dir), a
# HOME of its own, and PVM_PATH pointing at a directory of links to the test
# programs and the Debian example programs, so that spawned tasks are found.
# teardown halts the VM and then kills every leftover process whose
# environment carries this test's PVM_VMID (never another VMID's).
#
# Every command that talks to a pvmd runs under `timeout`, so a hang fails
# the test instead of blocking the suite.
#
# PVM_TEST_REF=1 runs the same tests against the reference PVM 3.4.6
# (/usr/bin/pvmd, /usr/bin/pvm, programs built against /usr/include/pvm3.h
# into $PVM_TEST_REF_PROGS by test/build-ref-progs.sh): that is how the
# expected behaviour was checked.  Tests of things only ours has skip there.

: "${abs_top_builddir:?run the tests through make check or test/run.sh}"
: "${abs_top_srcdir:?run the tests through make check or test/run.sh}"
B=$abs_top_builddir
S=$abs_top_srcdir
TMO=${PVM_TEST_TIMEOUT:-60}

if [ -n "${PVM_TEST_REF:-}" ]; then
	REF=1
	PROGS=${PVM_TEST_REF_PROGS:-/tmp/pvmtest-refprogs}
	PVMD_BIN=/usr/bin/pvmd
	CONSOLE=/usr/bin/pvm
	OURLIB=
else
	REF=
	PROGS=$B/test/progs
	PVMD_BIN=$B/pvmd/pvmd
	CONSOLE=$B/console/pvm
	OURLIB=$B/libpvm/.libs
fi
# our libgpvm3.so.3 (dynamic groups), for the Debian group examples
OURGLIB=${OURLIB:+$B/libpvm/group/.libs}
# A build tree configured with --enable-sanitizers (test/run.sh's
# sanitizer pass): its own programs link the ASan runtime; the unchanged
# Debian binaries do not, and a process whose first library is not that
# runtime refuses to load our instrumented libpvm3.so.3 ("ASan runtime does
# not come first in initial library list").  They get the runtime our pvmd
# links preloaded (OURPRELOAD, set by as_ours and, for the ones it spawns,
# by the pvmd of start_pvmd_for_examples), so they run on our instrumented
# library.
OURPRELOAD=
if [ -n "$OURLIB" ] && grep -q libasan "$PVMD_BIN" 2>/dev/null; then
	OURPRELOAD=$(ldd "$PVMD_BIN" | awk '$1 ~ /^libasan[.]so/ { print $3; exit }')
fi

# Names of the Debian pvm-examples programs the tests spawn or run.
EXAMPLES="hello.pvm hello_other master1 slave1 spmd timing timing_slave
inherit1 inherit2 inherit3 inherita inheritb mtile"
# The Debian group examples (group-examples.bats).
GEXAMPLES="gexample ge gexamp thb tnb tjf tjl tst joinleave trsg gs.pvm
ibwtest rbwtest dbwtest pbwtest"

# pvm_test_env: per-test environment (called from setup).
pvm_test_env() {
	TESTTMP=$(mktemp -d /tmp/pvmt.XXXXXX)
	mkdir -p "$TESTTMP/tmp" "$TESTTMP/home" "$TESTTMP/bin"
	export PVM_TMP=$TESTTMP/tmp
	export HOME=$TESTTMP/home
	export PVM_VMID="t${BATS_ROOT_PID:-$$}x${BATS_TEST_NUMBER:-0}x$RANDOM"
	# A stale PVM_ROOT must not matter to ours; the reference needs it.
	export PVM_ROOT=/usr/lib/pvm3
	export PVM_ALLOW_ROOT=1
	export PVM_PVMD=$PVMD_BIN
	export PVM_PATH=$TESTTMP/bin
	export PATH=$TESTTMP/bin:$PATH
	unset PVM_EXPORT PVM_DEBUG PVM_ARCH PVM_SPAWN_TID LD_LIBRARY_PATH
	local p
	for p in "$PROGS"/pt_* "$PROGS"/mtile_driver; do
		[ -x "$p" ] && [ -f "$p" ] && ln -sf "$p" "$TESTTMP/bin/${p##*/}"
	done
	for p in $EXAMPLES $GEXAMPLES; do
		[ -x "/usr/bin/$p" ] && ln -sf "/usr/bin/$p" "$TESTTMP/bin/$p"
	done
	# the reference's groups need its group server on the spawn path
	[ -z "$REF" ] || ln -sf /usr/bin/pvmgs "$TESTTMP/bin/pvmgs"
	VMDIR=$PVM_TMP/pvm.$(id -u).$PVM_VMID
	return 0
}

# vm_pids VMID: processes whose environment holds PVM_VMID=VMID.
vm_pids() {
	local f p
	env -u PVM_VMID grep -lzxF "PVM_VMID=$1" /proc/[0-9]*/environ 2>/dev/null |
		while read -r f; do
			p=${f#/proc/}
			p=${p%/environ}
			[ "$p" = "$$" ] || [ "$p" = "${BASHPID:-}" ] || echo "$p"
		done
}

pvmd_pid() {
	if [ -n "$REF" ]; then
		vm_pids "$PVM_VMID" | while read -r p; do
			[ "$(readlink /proc/$p/exe 2>/dev/null)" = /usr/bin/pvmd ] && echo "$p"
		done | head -n 1
	else
		cat "$VMDIR/pvmd.pid" 2>/dev/null
	fi
}

pvmd_alive() {
	local p
	p=$(pvmd_pid)
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null
}

# wait_until SECONDS COMMAND...: polls COMMAND every 0.1 s.
wait_until() {
	local n=$(($1 * 10))
	shift
	while [ "$n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# start_pvmd [ENV=VALUE...]: starts the VM's pvmd and waits for its socket.
start_pvmd() {
	if [ -n "$REF" ]; then
		echo quit | timeout -k 5 30 env "$@" /usr/bin/pvm >/dev/null 2>&1
		wait_until 10 pvmd_alive || { echo "reference pvmd did not start"; return 1; }
		return 0
	fi
	[ -x "$PVMD_BIN" ] || { echo "no pvmd at $PVMD_BIN"; return 1; }
	# PVM_TEST_PVMD_WRAP: a command to run the pvmd under (test/README.md)
	env "$@" ${PVM_TEST_PVMD_WRAP:-} "$PVMD_BIN" </dev/null >"$TESTTMP/pvmd.out" 2>&1 &
	if ! wait_until 30 test -S "$VMDIR/pvmd.sock"; then
		echo "pvmd did not create $VMDIR/pvmd.sock; its output:"
		cat "$TESTTMP/pvmd.out"
		return 1
	fi
	wait_until 5 test -s "$VMDIR/pvmd.pid"
	return 0
}

# start_pvmd_for_examples: starts the pvmd with our library on
# LD_LIBRARY_PATH, so that the unchanged Debian binaries it spawns load ours.
start_pvmd_for_examples() {
	if [ -n "$OURLIB" ]; then
		start_pvmd LD_LIBRARY_PATH="$OURLIB" ${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"}
	else
		start_pvmd
	fi
}

# examples_setup: set-up of suites that run the Debian example binaries:
# skips when pvm-examples is missing, starts the pvmd for them.
examples_setup() {
	pvm_test_env
	local p
	for p in $EXAMPLES; do
		[ -x "/usr/bin/$p" ] || skip "pvm-examples is not installed (/usr/bin/$p)"
	done
	start_pvmd_for_examples
	HOSTNAME_=$(hostname)
}

# The shared-memory inboxes of this VM's tasks are /dev/shm/ names with
# this prefix and a hex tid (docs/shm.md); inboxes lists them.
inbox_prefix() {
	echo "pvm.$(id -u).$PVM_VMID."
}
inboxes() {
	ls /dev/shm 2>/dev/null | grep -F "$(inbox_prefix)" || true
}

# stop_vm: halts the VM, kills what is left of it, removes its files.
stop_vm() {
	[ -n "${TESTTMP:-}" ] || return 0
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -z "$REF" ] && [ -f "$VMDIR/pvmd.log" ]; then
		echo "--- last lines of $VMDIR/pvmd.log"
		tail -n 25 "$VMDIR/pvmd.log"
	fi
	# Nothing here may fail the test: teardown must always clean up.
	if pvmd_alive; then
		echo halt | timeout -k 2 10 "$CONSOLE" >/dev/null 2>&1 || true
		wait_until 3 eval '! pvmd_alive' || true
	fi
	local pids
	pids=$(vm_pids "$PVM_VMID") || true
	if [ -n "$pids" ]; then
		kill -TERM $pids 2>/dev/null || true
		sleep 0.2
		pids=$(vm_pids "$PVM_VMID") || true
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
	fi
	rm -rf "$TESTTMP" || true
	# The pvmd removes its tasks' shared-memory inboxes at halt; a pvmd
	# killed above (say, a test that failed with many tasks still
	# starting) leaves them.  They are this VM's alone: the names carry
	# PVM_VMID.
	[ -n "$REF" ] || [ -z "${PVM_VMID:-}" ] ||
		rm -f /dev/shm/"$(inbox_prefix)"* 2>/dev/null || true
	# The reference keeps its files in /tmp whatever PVM_TMP says.
	if [ -n "$REF" ]; then
		rm -f "/tmp/pvmd.$(id -u).$PVM_VMID" "/tmp/pvml.$(id -u).$PVM_VMID" || true
	fi
	return 0
}

# t CMD...: runs CMD with the suite's time limit (use as `run t prog args`).
t() {
	timeout -k 5 "$TMO" "$@"
}

# show: prints the last `run`'s status and output (bats shows it on failure).
show() {
	echo "status: $status"
	printf '%s\n' "$output"
}

# output_is WANT: the last `run`'s output is exactly WANT, else shows the
# difference (used with the transcripts of pt_notify).
output_is() {
	diff -u <(printf '%s\n' "$1") <(printf '%s\n' "$output") || {
		echo "(- the expected output, + this run's)"
		return 1
	}
}

# prog_ok NAME ARGS...: runs a test program, expects exit 0 and its summary
# line with 0 failed checks.
prog_ok() {
	run t "$TESTTMP/bin/$1" "${@:2}"
	show
	# measurements go into the TAP stream as comments
	printf '%s\n' "$output" | grep -E 'checked in|bytes in|per round trip' |
		sed 's/^/# /' >&3 || true
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
}

# as_ours CMD...: runs an unchanged Debian binary on our library.
as_ours() {
	if [ -n "$OURLIB" ]; then
		timeout -k 5 "$TMO" env LD_LIBRARY_PATH="$OURLIB" \
			${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"} "$@"
	else
		timeout -k 5 "$TMO" "$@"
	fi
}

# console CMDS: feeds the lines in CMDS to the console.
console() {
	printf '%s\n' "$1" | timeout -k 5 "$TMO" "$CONSOLE" 2>&1
}

# timed LINES...: feeds lines to the console, "sleep N" lines as pauses.
timed() {
	local l
	for l in "$@"; do
		case $l in
		sleep\ *) $l ;;
		*) printf '%s\n' "$l" ;;
		esac
	done | timeout -k 5 "$TMO" "$CONSOLE" 2>&1
}

# has REGEX, count REGEX: on the last run's output, each line without the
# prompt a piped console prints before children's output ("pvm> [1]
# finished").
has() {
	printf '%s\n' "$output" | sed 's/^pvm> //' | grep -Eq -- "$1"
}

count() {
	printf '%s\n' "$output" | sed 's/^pvm> //' | grep -Ec -- "$1"
}

skip_if_ref() {
	[ -z "$REF" ] || skip "${1:-not applicable to the reference}"
}

# make_secret: a VM secret as auth_secret_save writes it (64 hex digits and
# a newline, mode 0600): what a one-host pvmd lacks for TCP direct routes.
make_secret() {
	(umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$VMDIR/secret.tmp" &&
		echo >>"$VMDIR/secret.tmp" && mv "$VMDIR/secret.tmp" "$VMDIR/secret")
}

# skip_if_tran_forced: for tests of what PvmRoute chooses, which a
# transport selection (PVM_TRAN=direct, PVM_TRAN=pvmd: test/run.sh's
# forced-transport passes) overrides by design.
skip_if_tran_forced() {
	[ -z "${PVM_TRAN:-}" ] || skip "PVM_TRAN=$PVM_TRAN chooses the route, not PvmRoute"
}

# skip_unless_tran ROUTE: for a test of one route (pvmd, direct; shm:
# none forced) whose twin for the forced transport runs the very same
# traffic in a forced-transport pass: there, only that twin runs.
skip_unless_tran() {
	[ -z "${PVM_TRAN:-}" ] || [ "$PVM_TRAN" = "$1" ] ||
		skip "PVM_TRAN=$PVM_TRAN carries it: the same as the test of that route"
}

# without_shm: restarts the test's pvmd with the shared-memory route off
# (PVM_SHM=0) for it, the tasks it spawns and the test's own programs, for
# tests of the routes underneath (pvmd, direct sockets), which shared
# memory would otherwise replace between tasks of one host.
without_shm() {
	export PVM_SHM=0
	[ -z "$REF" ] || return 0
	if pvmd_alive; then
		echo halt | timeout -k 2 10 "$CONSOLE" >/dev/null 2>&1 || true
		wait_until 5 eval '! pvmd_alive' || true
	fi
	start_pvmd PVM_SHM=0
}

# Default set-up: a fresh VM per test.  Files that want no pvmd define their
# own setup and call pvm_test_env only.
vm_setup() {
	pvm_test_env
	start_pvmd
}

# ---- a remote shell that hangs (add-cancel.bats, hostfile-cancel.bats) ----

# hang_rsh_make: $TESTTMP/bin/hang_rsh, a remote shell that never
# returns; it notes its pid in $TESTTMP/rsh.pid and its child's in
# $TESTTMP/sleep.pid
hang_rsh_make() {
	cat >"$TESTTMP/bin/hang_rsh" <<-EOF
		#!/bin/sh
		echo \$\$ >"$TESTTMP/rsh.pid"
		sleep 300 &
		echo \$! >"$TESTTMP/sleep.pid"
		wait
	EOF
	chmod +x "$TESTTMP/bin/hang_rsh"
}

# running PID: the process exists and is no zombie (a killed remote
# shell's child waits a moment for init to reap it)
running() {
	[ -r "/proc/$1/stat" ] && ! awk '{ exit !($3 == "Z") }' "/proc/$1/stat" 2>/dev/null
}

# no_rsh_left: the hung remote shell and its child are gone
no_rsh_left() {
	! running "$(cat "$TESTTMP/rsh.pid")" && ! running "$(cat "$TESTTMP/sleep.pid")"
}

# started: the master runs the hung remote shell (and its child)
started() {
	[ -s "$TESTTMP/sleep.pid" ] && [ -s "$TESTTMP/rsh.pid" ] &&
		running "$(cat "$TESTTMP/sleep.pid")"
}
