#!/usr/bin/env bats
# The console's add cancelled by Ctrl-C (issue 28) with real ssh, on three
# hosts of test/hosts.bash: the master on h1 alone, hosts added from a
# console on h1 reading a fifo, SIGINT sent to it while it waits.  What
# one host can show is in add-cancel.bats; here: ssh to a host cut off the
# network is killed, and a pvmd that answered after all, its answer held
# back until the start was cancelled, halts on its own (masterwait).

load helpers
load hosts

setup_file() {
	hosts_file_setup 3
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	echo "# hosts_up 3 took $HOSTS_UP_SECONDS s" >&3
	export MH_BIN=$BATS_FILE_TMPDIR/bin
	hosts_bin "$MH_BIN"
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "cancelling an add: ours only"
	hosts_vm_env hc "$MH_BIN"
	HC_CONS=
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	host_uncut 3 2>/dev/null || true
	[ -z "$HC_CONS" ] || kill -KILL "$HC_CONS" 2>/dev/null || true
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		echo "--- h1's pvmd.log"
		on_host 1 tail -n 20 "$VMDIR/pvmd.log" 2>/dev/null || true
		echo "--- the console"
		cat "$BATS_TEST_TMPDIR/out" 2>/dev/null || true
	fi
	hosts_vm_stop 3
	return 0
}

# hc_master [ENV=VALUE...]: the master on h1, no other host.
hc_master() {
	echo "* ep=$MH_BIN" >"$BATS_TEST_TMPDIR/hostfile"
	on_host 1 timeout -k 5 30 env "$@" "$PVMD_BIN" "$BATS_TEST_TMPDIR/hostfile" \
		</dev/null >"$BATS_TEST_TMPDIR/pvmd.out" 2>&1
	wait_until 10 on_host 1 test -S "$VMDIR/pvmd.sock"
}

# hc_console: the console on h1 reading the fifo $BATS_TEST_TMPDIR/in
# (fd 7 writes it), output in $BATS_TEST_TMPDIR/out; HC_CONS its pid
# (timeout's, which passes SIGINT on).  The fifo is opened on the host:
# a background job's standard input would be /dev/null.
hc_console() {
	mkfifo "$BATS_TEST_TMPDIR/in"
	on_host_bg 1 sh -c 'exec timeout -k 5 "$2" "$0" <"$1"' "$CONSOLE" \
		"$BATS_TEST_TMPDIR/in" "$TMO" >"$BATS_TEST_TMPDIR/out" 2>&1
	HC_CONS=$HOSTS_BG_PID
	exec 7>"$BATS_TEST_TMPDIR/in"
}

hc_out() {
	grep -qxF -- "$1" "$BATS_TEST_TMPDIR/out"
}

# hc_end: closes the console's input; its exit status in HC_STATUS.
hc_end() {
	exec 7>&-
	HC_STATUS=0
	wait "$HC_CONS" || HC_STATUS=$?
	HC_CONS=
	cat "$BATS_TEST_TMPDIR/out"
}

# vm_ssh: this VM's ssh processes (they carry its PVM_VMID)
vm_ssh() {
	local p
	for p in $(vm_pids "$PVM_VMID"); do
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = ssh ] && echo "$p"
	done
	return 0
}

@test "add of a host cut off the network: the progress line, then Ctrl-C cancels before ssh gives up, and ssh is gone" {
	hc_master
	host_cut 3
	hc_console
	echo 'add h3' >&7
	wait_until 10 eval '[ -n "$(vm_ssh)" ]'
	wait_until 5 hc_out 'add: waiting for h3 (2 s; Ctrl-C cancels)'
	kill -INT "$HC_CONS"
	# ssh would give up after its ConnectTimeout of 5 s
	wait_until 2 hc_out '                           cancelled'
	echo conf >&7
	wait_until 5 hc_out '1 host, 1 data format'
	hc_end
	[ "$HC_STATUS" -eq 1 ]
	hc_out "$(printf '%24s %s' h3 "Can't start pvmd")"
	wait_until 5 eval '[ -z "$(vm_ssh)" ]'
}

@test "a start cancelled while its pvmd's answer is on the way: that pvmd halts by itself, the host is not in the machine" {
	# the harness's ssh, its answer line held back 20 s
	cat >"$BATS_TEST_TMPDIR/slow_rsh" <<-EOF
		#!/bin/sh
		"$PVM_RSH" "\$@" | { IFS= read -r l; sleep 20; printf '%s\n' "\$l"; cat; }
	EOF
	chmod +x "$BATS_TEST_TMPDIR/slow_rsh"
	hc_master PVM_RSH="$BATS_TEST_TMPDIR/slow_rsh" PVM_HOST_START_TIMEOUT=4000
	hc_console
	echo 'add h2' >&7
	# the pvmd on h2 has started (and answered)
	wait_until 10 eval '[ -n "$(host_pvmd_pid 2)" ]'
	local t0=$SECONDS
	kill -INT "$HC_CONS"
	wait_until 3 hc_out '                           cancelled'
	echo conf >&7
	wait_until 5 hc_out '1 host, 1 data format'
	hc_end
	[ "$HC_STATUS" -eq 1 ]
	# masterwait (the start timeout, 4 s) and 5 s of grace from its start
	wait_until 15 host_no_pvmd 2
	echo "h2's pvmd gone $((SECONDS - t0)) s after the cancel"
	on_host 2 grep -q 'halting (the master did not come in time)' "$VMDIR/pvmd.log"
	on_host 1 grep -q 'asked to cancel its add (wid [0-9]*): 1 host cancelled' "$VMDIR/pvmd.log"
	# nothing came of it later
	[ "$(printf 'conf\n' | on_host 1 timeout -k 5 "$TMO" "$CONSOLE" 2>&1 |
		sed -n 's/^\([0-9]*\) hosts\{0,1\},.*/\1/p')" = 1 ]
}
