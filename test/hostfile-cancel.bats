#!/usr/bin/env bats
# A hostfile given at startup whose host's remote shell hangs (issue 28):
# the process the user started (`pvmd hostfile`, or the console that
# starts the pvmd) shows what it waits for, as the console's add does,
# and SIGINT (Ctrl-C) cancels the hosts still starting: the machine
# comes up with the hosts that did start, the cancelled ones named on
# stderr (pvmd/startwait.c).  127.0.0.2 is this host under another
# address; the remote shell never reaches it.

load helpers

setup() {
	pvm_test_env
	skip_if_ref "the reference's pvmd prints nothing while it waits"
	hang_rsh_make
	export PVM_RSH=$TESTTMP/bin/hang_rsh
	printf '%s\n' 127.0.0.2 >"$TESTTMP/hostfile"
}

teardown() {
	[ -z "${START_PID:-}" ] || kill -KILL "$START_PID" 2>/dev/null || true
	[ -z "${TRACER_PID:-}" ] || kill -KILL "$TRACER_PID" 2>/dev/null || true
	local p
	for p in "$TESTTMP/rsh.pid" "$TESTTMP/sleep.pid"; do
		[ ! -s "$p" ] || kill -KILL "$(cat "$p")" 2>/dev/null || true
	done
	stop_vm
}

in_err() {
	grep -qxF -- "$1" "$TESTTMP/err"
}

# traced PID: a tracer (strace) has attached to PID
traced() {
	! grep -q '^TracerPid:[[:space:]]*0$' "/proc/$1/status"
}

# ms_since T0: milliseconds since T0 (date +%s%N)
ms_since() {
	echo $((($(date +%s%N) - $1) / 1000000))
}

@test "pvmd hostfile: 'waiting for' the hung host at 2 s; SIGINT cancels it within a second, the pvmd runs alone" {
	timeout -k 5 "$TMO" "$PVMD_BIN" "$TESTTMP/hostfile" 2>"$TESTTMP/err" &
	START_PID=$!
	wait_until 10 started
	wait_until 5 in_err 'pvmd: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)'
	local t0 st=0
	t0=$(date +%s%N)
	# (timeout passes SIGINT on to the pvmd's waiting process)
	kill -INT "$START_PID"
	wait "$START_PID" || st=$?
	START_PID=
	echo "returned after $(ms_since "$t0") ms, status $st"
	cat "$TESTTMP/err"
	[ "$st" -eq 0 ]
	[ "$(ms_since "$t0")" -lt 2000 ]
	[ "$(cat "$TESTTMP/err")" = "$(printf '%s\n' 'pvmd: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)' \
		"pvmd: host 127.0.0.2 not added: Can't start pvmd: cancelled")" ]
	pvmd_alive
	run console conf
	show
	[[ "$output" == *"1 host, 1 data format"* ]]
	wait_until 5 no_rsh_left
}

@test "pvmd hostfile: SIGTERM to the waiting process, twice at once as timeout(1) sends it, cancels as one SIGINT does" {
	timeout -k 5 "$TMO" "$PVMD_BIN" "$TESTTMP/hostfile" 2>"$TESTTMP/err" &
	START_PID=$!
	wait_until 10 started
	sleep 0.5
	local st=0 waiter
	waiter=$(pgrep -P "$START_PID")
	[ -n "$waiter" ]
	# timeout(1) passes a signal to its child and then to the child's
	# group: the waiting process may see it twice, and must count it once
	kill -TERM "$waiter"
	kill -TERM "$waiter"
	wait "$START_PID" || st=$?
	START_PID=
	cat "$TESTTMP/err"
	[ "$st" -eq 0 ]
	in_err "pvmd: host 127.0.0.2 not added: Can't start pvmd: cancelled"
	pvmd_alive
	wait_until 5 no_rsh_left
}

@test "pvmd hostfile: the twin SIGTERM comes while the waiting process is in the middle of its cancel (its kill held 200 ms by strace)" {
	command -v strace >/dev/null || skip "no strace"
	timeout -k 5 "$TMO" "$PVMD_BIN" "$TESTTMP/hostfile" 2>"$TESTTMP/err" &
	START_PID=$!
	wait_until 10 started
	wait_until 5 in_err 'pvmd: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)'
	local st=0 waiter
	waiter=$(pgrep -P "$START_PID")
	[ -n "$waiter" ]
	strace -p "$waiter" -o "$TESTTMP/strace" -e trace=kill \
		-e inject=kill:delay_enter=200000 &
	TRACER_PID=$!
	wait_until 5 traced "$waiter"
	kill -TERM "$waiter"
	sleep 0.05 # the cancel's kill(2) of the pvmd is under way
	kill -TERM "$waiter"
	wait "$START_PID" || st=$?
	START_PID=
	wait "$TRACER_PID" || true
	TRACER_PID=
	cat "$TESTTMP/err"
	[ "$st" -eq 0 ]
	in_err "pvmd: host 127.0.0.2 not added: Can't start pvmd: cancelled"
	pvmd_alive
	wait_until 5 no_rsh_left
}

@test "console with a hostfile on a terminal: a status line redrawn from 1 s, Ctrl-C cancels, the console comes up with its own host" {
	cat >"$TESTTMP/steps" <<-'EOF'
		expect 10 \r\x1b\[Kpvmd: waiting for 127\.0\.0\.2 \(1 s; Ctrl-C cancels\)
		expect 5 \r\x1b\[Kpvmd: waiting for 127\.0\.0\.2 \(2 s; Ctrl-C cancels\)
		send \x03
		expect 3 \r\x1b\[Kpvmd: host 127\.0\.0\.2 not added: Can't start pvmd: cancelled\r\n
		expect 5 pvm>
		send conf\r
		expect 5 1 host, 1 data format
		send quit\r
		expect 5 pvmd still running
	EOF
	run timeout -k 5 "$TMO" python3 "$S/test/pty_chat.py" "$TESTTMP/tty" "$TESTTMP/steps" "$CONSOLE" "$TESTTMP/hostfile"
	show
	od -c "$TESTTMP/tty" | tail -n 20
	[ "$status" -eq 0 ]
	wait_until 5 no_rsh_left
}

@test "a hostfile start done within a second prints what it always did: no progress line" {
	# a remote shell that fails at once
	cat >"$TESTTMP/bin/fail_rsh" <<-'EOF'
		#!/bin/sh
		echo "no route to $1" >&2
		exit 255
	EOF
	chmod +x "$TESTTMP/bin/fail_rsh"
	run env PVM_RSH="$TESTTMP/bin/fail_rsh" timeout -k 5 "$TMO" "$PVMD_BIN" "$TESTTMP/hostfile"
	show
	[ "$status" -eq 0 ]
	[ "$output" = "pvmd: host 127.0.0.2 not added: Can't start pvmd: the remote command ended without starting a pvmd: no route to 127.0.0.2" ]
}
