#!/usr/bin/env bats
# Adding a host whose remote shell hangs (issue 28): the console's add
# shows what it waits for and Ctrl-C (SIGINT) cancels it; libpvm's
# lpvm_priv_addhosts and the master's TM_ADDCANCEL underneath
# (test/progs/pt_addcancel.c); and a pvmd whose master never comes
# stops by itself.  127.0.0.2 is this host under another address, so the
# master does not take it for itself; the remote shell never reaches it.

load helpers

setup() {
	pvm_test_env
	skip_if_ref "the reference's add cannot be cancelled"
	hang_rsh_make
	start_pvmd PVM_RSH="$TESTTMP/bin/hang_rsh"
}

teardown() {
	[ -z "${CONS_PID:-}" ] || kill -KILL "$CONS_PID" 2>/dev/null || true
	stop_vm
}

# cons_start: the console on piped input from the fifo $TESTTMP/in (fd
# 7 writes it), its output (stdout and stderr) in $TESTTMP/out
cons_start() {
	mkfifo "$TESTTMP/in"
	timeout -k 5 "$TMO" "$CONSOLE" <"$TESTTMP/in" >"$TESTTMP/out" 2>&1 &
	CONS_PID=$!
	exec 7>"$TESTTMP/in"
}

# in_out FIXED: the console's output has FIXED as a line
in_out() {
	grep -qxF -- "$1" "$TESTTMP/out"
}

# cons_conf_end: the console still answers conf; then its input ends,
# its exit status in CONS_ST, its output shown.
cons_conf_end() {
	echo 'conf' >&7
	wait_until 5 in_out '1 host, 1 data format'
	exec 7>&-
	CONS_ST=0
	wait "$CONS_PID" || CONS_ST=$?
	CONS_PID=
	cat "$TESTTMP/out"
}

@test "piped console: add of a hung host says it waits after 2 s; SIGINT cancels it at once, 'cancelled' under the host, the console goes on and exits 1" {
	cons_start
	echo 'add 127.0.0.2' >&7
	wait_until 10 started
	wait_until 5 in_out 'add: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)'
	# (timeout passes SIGINT on to the console)
	local t0 t1
	t0=$(date +%s%N)
	kill -INT "$CONS_PID"
	wait_until 5 in_out '                           cancelled'
	t1=$(date +%s%N)
	echo "cancelled after $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt 2000 ]
	# still there, and usable; the failed add is the run's status
	cons_conf_end
	[ "$CONS_ST" -eq 1 ]
	# exactly this from the add, the progress line on stderr before the
	# table
	sed -n '/^pvm> add /,/^pvm> conf/p' "$TESTTMP/out" >"$TESTTMP/add"
	diff -u - "$TESTTMP/add" <<-EOF
		pvm> add 127.0.0.2
		add: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)
		0 successful
		                    HOST     DTID
		               127.0.0.2 Can't start pvmd
		                           cancelled
		pvm> conf
	EOF
	wait_until 5 no_rsh_left
	grep -q 'asked to cancel its add (wid [0-9]*): 1 host cancelled$' "$VMDIR/pvmd.log"
	# the host's slot is free: the machine has one host
	run console conf
	[[ "$output" == *"1 host, 1 data format"* ]]
}

@test "piped console: a SIGINT that comes twice, 50 ms apart (timeout(1) sends one to the child and to its group), cancels the add once and the console goes on" {
	cons_start
	echo 'add 127.0.0.2' >&7
	wait_until 10 started
	wait_until 5 in_out 'add: waiting for 127.0.0.2 (2 s; Ctrl-C cancels)'
	local cons
	cons=$(pgrep -P "$CONS_PID")
	[ -n "$cons" ]
	# the cancel is over in a few ms: the second comes after the add
	kill -INT "$cons"
	sleep 0.05
	kill -INT "$cons"
	wait_until 5 in_out '                           cancelled'
	cons_conf_end
	[ "$CONS_ST" -eq 1 ]
}

@test "an add done within a second prints what it always did: no progress line" {
	run console 'add nosuchhost.invalid'
	show
	[ "$output" = "$(printf '%s\n' 'pvmd already running.' 'pvm> add nosuchhost.invalid' '0 successful' \
		'                    HOST     DTID' '      nosuchhost.invalid No such host' 'pvm> quit' '' \
		'Console: exit handler called' 'pvmd still running.')" ]
}

@test "--script: SIGINT during add cancels it and stops the script with status 1" {
	printf '%s\n' 'add 127.0.0.2' 'echo not-reached' >"$TESTTMP/script"
	timeout -k 5 "$TMO" "$CONSOLE" --script "$TESTTMP/script" >"$TESTTMP/out" 2>&1 &
	CONS_PID=$!
	wait_until 10 started
	sleep 0.3
	kill -INT "$CONS_PID"
	local st=0
	wait "$CONS_PID" || st=$?
	CONS_PID=
	cat "$TESTTMP/out"
	[ "$st" -eq 1 ]
	in_out '                           cancelled'
	! in_out 'not-reached' || false
	wait_until 5 no_rsh_left
}

@test "console on a terminal: a status line redrawn in place from 1 s, Ctrl-C cancels, the prompt comes back" {
	# the erase before each redraw, then ^C: the line is erased and the
	# table follows
	cat >"$TESTTMP/steps" <<-'EOF'
		expect 10 pvm>
		send add 127.0.0.2\r
		expect 5 \r\x1b\[Kadd: waiting for 127\.0\.0\.2 \(1 s; Ctrl-C cancels\)
		expect 5 \r\x1b\[Kadd: waiting for 127\.0\.0\.2 \(2 s; Ctrl-C cancels\)
		send \x03
		expect 3 \r\x1b\[K0 successful\r\n
		expect 3 127\.0\.0\.2 Can't start pvmd\r\n +cancelled\r\npvm>
		send conf\r
		expect 5 1 host, 1 data format
		send quit\r
		expect 5 pvmd still running
	EOF
	run timeout -k 5 "$TMO" python3 "$S/test/pty_chat.py" "$TESTTMP/tty" "$TESTTMP/steps" "$CONSOLE"
	show
	od -c "$TESTTMP/tty" | tail -n 20
	[ "$status" -eq 0 ]
	wait_until 5 no_rsh_left
}

@test "lpvm_priv_addhosts: the tick runs every 200 ms and cancels; a signal's stop flag ends the wait at once" {
	prog_ok pt_addcancel tick 127.0.0.2
	wait_until 5 no_rsh_left
	rm -f "$TESTTMP/rsh.pid" "$TESTTMP/sleep.pid"
	prog_ok pt_addcancel flag 127.0.0.2
	wait_until 5 no_rsh_left
}

@test "TM_ADDCANCEL of another task cancels nothing of this one's; with nothing pending it is answered 0" {
	"$TESTTMP/bin/pt_addcancel" wait 127.0.0.2 3 >"$TESTTMP/out" 2>&1 &
	local add=$!
	wait_until 10 started
	prog_ok pt_addcancel other
	# the other task's add still waits, its remote shell runs
	started
	kill -0 "$add"
	local st=0
	wait "$add" || st=$?
	cat "$TESTTMP/out"
	[ "$st" -eq 0 ]
	grep -q '^cancelled after [3-5]\.[0-9]* s: cancelled$' "$TESTTMP/out"
	wait_until 5 no_rsh_left
	grep -q 'asked to cancel its add (wid 12345): 0 hosts cancelled$' "$VMDIR/pvmd.log"
	grep -q 'asked to cancel its add (wid 0): 0 hosts cancelled$' "$VMDIR/pvmd.log"
	grep -q 'asked to cancel its add (wid [1-9][0-9]*): 1 host cancelled$' "$VMDIR/pvmd.log"
}

@test "a pvmd started with 'masterwait' halts when its master never comes" {
	# its own machine: the startup lines an ssh start sends, by hand
	local vmid=${PVM_VMID}s dir=$PVM_TMP/pvm.$(id -u).${PVM_VMID}s
	local secret
	secret=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
	run timeout -k 5 20 "$PVMD_BIN" -s <<-EOF
		version 3
		vmid $vmid
		hostno 2
		name fakehost
		timeout 4000
		masterwait 200
		secret $secret
		end
	EOF
	show
	[ "$status" -eq 0 ]
	[[ "$output" == "ok "* ]]
	wait_until 5 test -s "$dir/pvmd.pid"
	local pid t0
	pid=$(cat "$dir/pvmd.pid")
	t0=$SECONDS
	running "$pid"
	# 200 ms and the 5 s of grace
	wait_until 10 eval "! running $pid"
	echo "gone after $((SECONDS - t0)) s"
	grep -q 'halting (the master did not come in time)' "$dir/pvmd.log"
}
