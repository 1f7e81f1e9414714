#!/usr/bin/env bats
# The pvmd itself: its private directory, stale state, a second pvmd, peers
# of another uid, malformed input, foreground mode and its log.

load helpers

setup() {
	pvm_test_env
	[ -z "$REF" ] || skip "tests of our pvmd's files and wire protocol"
}

teardown() {
	stop_vm
	# a machine that lived in the home fallback (proto/vmdir.h)
	if [ -n "${FALLBACK_VMDIR:-}" ]; then
		rm -rf "$FALLBACK_VMDIR"
		rmdir "${FALLBACK_VMDIR%/*}" "${FALLBACK_VMDIR%/*/*}" 2>/dev/null || true
	fi
}

@test "the VM directory is private (0700) and holds the socket, pid file, lock and log" {
	start_pvmd
	[ "$(stat -c %a "$VMDIR")" = 700 ]
	[ "$(stat -c %u "$VMDIR")" = "$(id -u)" ]
	[ -S "$VMDIR/pvmd.sock" ]
	[ -s "$VMDIR/pvmd.log" ]
	[ -f "$VMDIR/pvmd.lock" ]
	[ "$(cat "$VMDIR/pvmd.pid")" -gt 1 ]
	kill -0 "$(cat "$VMDIR/pvmd.pid")"
	# nothing in it is readable by others
	[ -z "$(find "$VMDIR" -perm /o+rw ! -type s)" ]
}

@test "the log records enrollments and exits" {
	start_pvmd
	prog_ok pt_task info
	grep -q 't40001' "$VMDIR/pvmd.log"
}

@test "a stale directory left by a pvmd killed with SIGKILL is detected and replaced" {
	start_pvmd
	local old
	old=$(cat "$VMDIR/pvmd.pid")
	kill -KILL "$old"
	wait_until 5 eval '! kill -0 '"$old"' 2>/dev/null'
	[ -S "$VMDIR/pvmd.sock" ] # the dead pvmd's socket is still there
	# a task finds no pvmd behind the stale socket
	prog_ok pt_task nopvmd
	start_pvmd
	# start_pvmd returns at once here (the stale socket and pid file are
	# still there): wait for the new pvmd to have replaced them (the pid
	# file is briefly missing in between)
	wait_until 10 eval 'p=$(cat "$VMDIR/pvmd.pid" 2>/dev/null) && [ -n "$p" ] && [ "$p" != "$old" ]'
	local new
	new=$(cat "$VMDIR/pvmd.pid")
	[ "$new" != "$old" ]
	kill -0 "$new"
	wait_until 10 test -S "$VMDIR/pvmd.sock"
	prog_ok pt_task info
}

@test "a stale directory with a dead pid file and no lock holder is replaced" {
	mkdir -m 700 -p "$VMDIR"
	echo 999999 >"$VMDIR/pvmd.pid"
	: >"$VMDIR/pvmd.sock"
	: >"$VMDIR/pvmd.lock"
	start_pvmd
	prog_ok pt_task info
}

@test "a second pvmd for the same VM refuses to start and the first keeps serving" {
	start_pvmd
	local first
	first=$(cat "$VMDIR/pvmd.pid")
	run t "$PVMD_BIN" -f
	show
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	run t "$PVMD_BIN"
	sleep 1
	[ "$(cat "$VMDIR/pvmd.pid")" = "$first" ]
	kill -0 "$first"
	# exactly one pvmd process for this VM
	local n=0 p
	for p in $(vm_pids "$PVM_VMID"); do
		[ "$(readlink "/proc/$p/exe")" = "$(readlink -f "$PVMD_BIN")" ] && n=$((n + 1))
	done
	[ "$n" -eq 1 ]
	prog_ok pt_task info
}

@test "a peer of another uid is dropped (SO_PEERCRED)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run a client as user nobody"
	command -v setpriv >/dev/null || skip "no setpriv"
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	start_pvmd
	# The 0700 directory is the first defence: nobody cannot even reach the
	# socket.  To test the second one, SO_PEERCRED, open the way on purpose.
	cp "$S/test/frames.py" "$TESTTMP/frames.py"
	chmod 644 "$TESTTMP/frames.py"
	chmod 711 "$TESTTMP" "$PVM_TMP" "$VMDIR"
	chmod 777 "$VMDIR/pvmd.sock"
	run timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
		/usr/bin/python3 "$TESTTMP/frames.py" "$VMDIR/pvmd.sock" peer
	chmod 700 "$VMDIR"
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"peer of another uid: closed"* ]]
	# the same client as ourselves is served
	run t /usr/bin/python3 "$S/test/frames.py" "$VMDIR/pvmd.sock" connect
	show
	[ "$status" -eq 0 ]
	grep -q 65534 "$VMDIR/pvmd.log" # the rejection is logged
	kill -0 "$(cat "$VMDIR/pvmd.pid")"
	prog_ok pt_task info
}

@test "garbage and truncated frames close only their connection; the VM keeps working" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	start_pvmd
	# a task that stays connected through it all
	"$TESTTMP/bin/pt_task" spawnwait pt_task 1 child wait >"$TESTTMP/waiter.out" 2>&1 &
	local waiter=$!
	local before
	before=$(wc -l <"$VMDIR/pvmd.log")
	run t /usr/bin/python3 "$S/test/frames.py" "$VMDIR/pvmd.sock" bad
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
	kill -0 "$(cat "$VMDIR/pvmd.pid")"
	# what was rejected is in the log
	[ "$(wc -l <"$VMDIR/pvmd.log")" -ge $((before + 15)) ]
	run t /usr/bin/python3 "$S/test/frames.py" "$VMDIR/pvmd.sock" connect
	show
	[ "$status" -eq 0 ]
	prog_ok pt_msg mcast
	prog_ok pt_task info
	# the task that was connected all along is still there
	[ "$(grep -c '^spawned\|^exited' "$TESTTMP/waiter.out")" -eq 0 ]
	kill -0 "$waiter"
}

@test "the pvmd stays in the session it was started from (a process group of its own), and so do its tasks" {
	# With autogroup scheduling a session is one scheduling group: the
	# tasks must share it with the programs the user starts from there.
	skip_if_ref "the reference's pvmd keeps the console's process group"
	start_pvmd
	local pid sess
	pid=$(pvmd_pid)
	sess=$(ps -o sid= -p $$ | tr -d ' ')
	[ "$(ps -o sid= -p "$pid" | tr -d ' ')" = "$sess" ]
	[ "$(ps -o pgid= -p "$pid" | tr -d ' ')" = "$pid" ]
	ln -sf /bin/sleep "$TESTTMP/bin/sleep"
	run console "spawn sleep 30"
	show
	local t
	wait_until 10 eval 't=$(pgrep -f "sleep 30$" -P "$pid")'
	[ "$(ps -o sid= -p "$t" | tr -d ' ')" = "$sess" ]
	# its own process group too (a halt stops what the task starts)
	[ "$(ps -o pgid= -p "$t" | tr -d ' ')" = "$t" ]
}

@test "pvmd -f stays in the foreground and stops on SIGTERM, removing its socket" {
	"$PVMD_BIN" -f </dev/null >"$TESTTMP/fg.out" 2>&1 &
	local pid=$!
	wait_until 10 test -S "$VMDIR/pvmd.sock"
	[ "$(cat "$VMDIR/pvmd.pid")" = "$pid" ]
	kill -0 "$pid"
	prog_ok pt_task info
	kill -TERM "$pid"
	wait_until 5 eval '! kill -0 '"$pid"' 2>/dev/null'
	[ ! -S "$VMDIR/pvmd.sock" ]
}

@test "pvmd -h prints usage; a bad option or PVM_VMID is refused" {
	run t "$PVMD_BIN" -h
	show
	[ "$status" -eq 0 ]
	[ -n "$output" ]
	run t "$PVMD_BIN" -Z
	[ "$status" -ne 0 ]
	run t env PVM_VMID='../../evil' "$PVMD_BIN" -f
	show
	[ "$status" -ne 0 ]
	[ "$status" -ne 124 ]
	[ ! -e "$PVM_TMP/evil" ]
}

@test "pvmd/wirefuzz (random malformed frames) leaves the pvmd serving" {
	[ -x "$B/pvmd/wirefuzz" ] || skip "pvmd/wirefuzz is not built"
	start_pvmd
	run t "$B/pvmd/wirefuzz" 300
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^not ok')" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^ok')" -gt 0 ]
	kill -0 "$(cat "$VMDIR/pvmd.pid")"
	prog_ok pt_task info
}

@test "pvm -nNAME starts a pvmd that goes by NAME: conf shows it, spawn -NAME places there" {
	run t bash -c "printf 'conf\nspawn -pvmtest-alias.invalid pt_task child wait\nhalt\n' | '$CONSOLE' -npvmtest-alias.invalid 2>&1"
	show
	printf '%s\n' "$output" | grep -Eq '^ +pvmtest-alias\.invalid +40000 +LINUX64 '
	printf '%s\n' "$output" | grep -Eq '^1 successful$'
}

@test "another user's directory at the machine's name does not stop it: the machine lives in ~/.pvm/HOST/, where its console and tasks find it" {
	skip_if_ref "the reference would use it or fail"
	[ "$(id -u)" -eq 0 ] || skip "needs root to act as user nobody"
	command -v setpriv >/dev/null || skip "no setpriv"
	local pub=$TESTTMP/pub home primary
	# a shared PVM_TMP like /tmp, where nobody gets there first
	mkdir -m 1777 "$pub"
	chmod 711 "$TESTTMP"
	export PVM_TMP=$pub
	primary=$pub/pvm.0.$PVM_VMID
	setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 777 "$primary"
	[ "$(stat -c %U "$primary")" = nobody ]
	home=$(getent passwd 0 | cut -d: -f6)
	VMDIR=$home/.pvm/$(hostname)/pvm.0.$PVM_VMID
	FALLBACK_VMDIR=$VMDIR
	start_pvmd
	[ "$(stat -c %a "$VMDIR")" = 700 ]
	grep -q "$primary belongs to another user: this machine lives in $VMDIR" "$VMDIR/pvmd.log"
	# the console and a task find it there, without being told
	run t "$CONSOLE" <<<conf
	show
	[[ "$output" == *"1 host, 1 data format"* ]]
	run t "$TESTTMP/bin/pt_mbox" list
	show
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
	# a task of another machine's name lists it among those that run
	run env PVM_VMID=wrong "$TESTTMP/bin/pt_run" ok
	show
	[[ "${lines[2]}" == *"]: virtual machines of this user running: $PVM_VMID" ]]
	# and nobody's directory stayed nobody's, and empty
	[ "$(stat -c %U "$primary")" = nobody ]
	[ -z "$(ls -A "$primary")" ]
	# the holder removes its name: our machine is still found where it is
	rmdir "$primary"
	run t "$TESTTMP/bin/pt_mbox" list
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
	[ ! -e "$primary" ]
}
