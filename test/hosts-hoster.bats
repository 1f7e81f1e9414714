#!/usr/bin/env bats
# A registered hoster (man 3 pvm_reg_hoster; docs/hosts.md, "Registered
# hoster") on real hosts built by hosts.bash: test/progs/pt_hoster
# registers on the master (h1), gets SM_STHOST for each host added, runs
# the command over ssh and answers SM_STHOSTACK.  The command carries a
# one-time ticket, never the VM secret; the new pvmd wipes it from its
# arguments and gets the secret over the first link.  Each test starts its
# own virtual machine (a new PVM_VMID) and teardown kills what is left.

load helpers
load hosts

HH_N=3

setup_file() {
	hosts_file_setup "$HH_N"
	export HH_BIN=$BATS_FILE_TMPDIR/bin
	hosts_bin "$HH_BIN" "$abs_top_srcdir/test/ticket_knock.py"
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "the multi-host suites run ours only"
	hosts_vm_env hh "$HH_BIN"
	HLOG=$BATS_TEST_TMPDIR/hoster.log
	HH_UP= HH_HOSTER=
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	[ -n "${PVM_VMID:-}" ] || return 0
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "$HH_UP" ]; then
		echo "--- hoster log"
		cat "$HLOG" 2>/dev/null || true
		local k
		for ((k = 1; k <= HH_N; k++)); do
			echo "--- last lines of h$k's pvmd.log"
			on_host "$k" tail -n 15 "$VMDIR/pvmd.log" 2>/dev/null || true
		done
	fi
	[ -z "$HH_HOSTER" ] || kill -KILL "$HH_HOSTER" 2>/dev/null || true
	hosts_vm_stop "$HH_N"
	return 0
}

# refute CMD...: fails (under set -e) when CMD succeeds.
refute() {
	! "$@"
}

# hh_start [HOST...] [-- ENV=VALUE...]: the master on h1 (the hosts named
# in its hostfile, started over ssh), every host with ep= the test bin.
hh_start() {
	local hosts=() envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do hosts+=("$1"); shift; done
	[ "${1:-}" != -- ] || { shift; envs=("$@"); }
	{ echo "* ep=$HH_BIN"; printf '%s\n' "${hosts[@]}"; } >"$BATS_TEST_TMPDIR/hostfile"
	HH_UP=1
	on_host 1 timeout -k 5 30 env "${envs[@]}" "$PVMD_BIN" "$BATS_TEST_TMPDIR/hostfile" \
		</dev/null >"$BATS_TEST_TMPDIR/pvmd.out" 2>&1 || {
		echo "the master did not start:"
		cat "$BATS_TEST_TMPDIR/pvmd.out"
		return 1
	}
	wait_until 10 on_host 1 test -S "$VMDIR/pvmd.sock"
}

# hh_hoster [MODE]: pt_hoster serve on h1, registered.
hh_hoster() {
	: >"$HLOG"
	on_host_bg 1 timeout -k 2 80 "$HH_BIN/pt_hoster" serve "$HLOG" "$@" </dev/null
	HH_HOSTER=$HOSTS_BG_PID
	wait_until 10 grep -q '^registered' "$HLOG" || {
		echo "the hoster did not register:"
		cat "$HLOG"
		return 1
	}
}

# hh_hoster_stop: kills the hoster and waits until the master has seen it go.
hh_hoster_stop() {
	local n
	n=$(hh_gone_count)
	kill "$HH_HOSTER" 2>/dev/null || true
	wait "$HH_HOSTER" 2>/dev/null || true
	HH_HOSTER=
	wait_until 5 hh_gone_after "$n"
}

hh_gone_count() {
	on_host 1 grep -c 'no longer the hoster' "$VMDIR/pvmd.log" || true
}

hh_gone_after() {
	[ "$(hh_gone_count)" -gt "$1" ]
}

hh_console() {
	printf '%s\n' "$2" | on_host "$1" timeout -k 5 "$TMO" "$CONSOLE" 2>&1
}

hh_conf_n() {
	hh_console 1 conf | sed -n 's/^\([0-9][0-9]*\) hosts\{0,1\},.*/\1/p'
}

hh_has_n() {
	[ "$(hh_conf_n)" = "$1" ]
}

hh_prog() {
	local k=$1
	shift
	on_host "$k" timeout -k 5 "$TMO" "$HH_BIN/$1" "${@:2}"
}

hh_secret_hex() {
	on_host "$1" cat "$VMDIR/secret"
}

# hh_ticket HOST: the ticket in the command the hoster got for HOST.
hh_ticket() {
	grep "^cmd .*'name $1'" "$HLOG" | sed -n "s/.*'ticket \([0-9a-f]*\)'.*/\1/p" | tail -n 1
}

# hh_port HOST: the TCP port of HOST's pvmd, from the master's log.
hh_port() {
	on_host 1 cat "$VMDIR/pvmd.log" |
		sed -n "s/.*host $1 added as t[0-9a-f]* (LINUX64, [0-9.]*:\([0-9]*\)).*/\1/p" | tail -n 1
}

@test "console add and pvm_addhosts go through the hoster; the command has a ticket, not the secret; tasks run there, every route works" {
	hh_start
	hh_hoster
	run hh_console 1 "add h2"
	show
	[[ "$output" == *"1 successful"* ]]
	# so= goes to the hoster, which deals with it (the reference's
	# "options" field): the pvmd holds no manual dialogue for it
	run hh_prog 1 pt_hoster add "h3 so=ms"
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"add h3 so=ms $((3 << 18))"* ]]
	run hh_conf_n
	[ "$output" = 3 ]
	cat "$HLOG"
	# one SM_STHOST per host, from the master's daemon address, login the
	# host's name, the command "<dx>" -s -S 'key value'... 'end'
	[ "$(grep -c '^cmd ' "$HLOG")" -eq 2 ]
	grep -q "^host t$(printf '%x' $((2 << 18))) wid [1-9][0-9]* src t80040000 login h2 so ''" "$HLOG"
	grep -q "^cmd \"$PVMD_BIN\" -s -S 'version 3' 'vmid $PVM_VMID' 'hostno 2' 'name h2' .*'ticket [0-9a-f]\{64\}' 'end'$" "$HLOG"
	grep -q "^host t$(printf '%x' $((3 << 18))) wid [1-9][0-9]* src t80040000 login h3 so 'ms'" "$HLOG"
	grep -q '^answer ok ' "$HLOG"
	# the VM secret is on no command line: not in what the hoster got
	local secret
	secret=$(hh_secret_hex 1)
	[ ${#secret} -eq 64 ]
	refute grep -qF "$secret" "$HLOG"
	refute grep -q ' secret ' "$HLOG"
	# ... and the new pvmds have it (from the first link), file mode 0600
	[ "$(hh_secret_hex 2)" = "$secret" ]
	[ "$(hh_secret_hex 3)" = "$secret" ]
	[ "$(on_host 3 stat -c %a "$VMDIR/secret")" = 600 ]
	# the ticket is gone from the pvmd's arguments at once
	local p t
	p=$(host_pvmd_pid 2)
	[ -n "$p" ]
	t=$(hh_ticket h2)
	[ ${#t} -eq 64 ]
	tr '\0' ' ' <"/proc/$p/cmdline"
	refute grep -qaF "$t" "/proc/$p/cmdline"
	refute grep -qaE 'ticket [0-9a-f]' "/proc/$p/cmdline"
	grep -qa 'hostno 2' "/proc/$p/cmdline"
	# tasks on the new hosts run and talk, over every route (the direct
	# TCP routes need the secret file there)
	run hh_prog 1 pt_mh pingall nobig
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
}

@test "a ticket works once: the slave then refuses it; a pvmd started by hand with the same command never gets the secret and stops" {
	hh_start -- PVM_HOST_START_TIMEOUT=2000
	hh_hoster
	run hh_prog 1 pt_hoster add h2
	show
	[[ "$output" == *"add h2 $((2 << 18))"* ]]
	local t port cmd
	t=$(hh_ticket h2)
	port=$(hh_port h2)
	[ ${#t} -eq 64 ] && [ -n "$port" ]
	# replayed against the slave it opened: the slave has the secret and
	# keys its handshake with it
	run on_host 1 timeout 20 python3 "$HH_BIN/ticket_knock.py" h2 "$port" "$t"
	show
	[ "$output" = refused-key ]
	# the same command run by hand on h3: a pvmd that waits for a master
	# that will never come (the master burnt its copy)
	cmd=$(grep "^cmd .*'name h2'" "$HLOG" | tail -n 1)
	cmd=${cmd#cmd }
	run on_host 1 timeout 20 "$PVM_RSH" h3 "$cmd"
	show
	[[ "$output" == "ok "* ]]
	[ -n "$(host_pvmd_pid 3)" ]
	# no secret file there, and it is not in the machine
	refute on_host 3 test -e "$VMDIR/secret"
	[ "$(hh_conf_n)" = 2 ]
	# it gives up when the ticket's life (the start timeout + 5 s) is over
	wait_until 15 host_no_pvmd 3
	# the real slave is unaffected
	[ -n "$(host_pvmd_pid 2)" ]
	[ "$(hh_conf_n)" = 2 ]
}

@test "the hoster answers PvmCantStart, PvmDupHost or a malformed body: pvm_addhosts reports it, the machine is unaffected" {
	hh_start h3
	wait_until 30 hh_has_n 2
	hh_hoster reply=PvmCantStart
	run hh_prog 1 pt_hoster add h2
	show
	[[ "$output" == *"add h2 -29"* ]]
	[ "$(hh_conf_n)" = 2 ]
	host_no_pvmd 2
	hh_hoster_stop
	hh_hoster reply=PvmDupHost
	run hh_prog 1 pt_hoster add h2
	show
	[[ "$output" == *"add h2 -28"* ]]
	[ "$(grep -c '^answer ' "$HLOG")" -eq 1 ]
	# a malformed answer: that start fails, nothing else happens
	hh_hoster_stop
	hh_hoster junk
	run hh_prog 1 pt_hoster add h2
	show
	[[ "$output" == *"add h2 -29"* ]]
	grep -q '^answer junk' "$HLOG"
	on_host 1 grep -q 'malformed SM_STHOSTACK' "$VMDIR/pvmd.log"
	[ -n "$(host_pvmd_pid 1)" ]
	# the rest of the machine still works
	run hh_prog 1 pt_mh stream h3 1
	show
	[ "$status" -eq 0 ]
}

@test "a hoster that never answers: PvmCantStart after the start timeout; one that exits: PvmCantStart at once, then the pvmd starts hosts itself" {
	hh_start -- PVM_HOST_START_TIMEOUT=2000
	hh_hoster mute
	local t0 t1
	t0=$(date +%s%N)
	run hh_prog 1 pt_hoster add h2
	t1=$(date +%s%N)
	show
	[[ "$output" == *"add h2 -29"* ]]
	echo "took $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -ge 1800 ] && [ $(((t1 - t0) / 1000000)) -lt 8000 ]
	hh_hoster_stop
	# exits without answering: the pending start fails when it is gone
	hh_hoster exit
	t0=$(date +%s%N)
	run hh_prog 1 pt_hoster add h2
	t1=$(date +%s%N)
	show
	[[ "$output" == *"add h2 -29"* ]]
	grep -q '^exiting' "$HLOG"
	echo "took $(((t1 - t0) / 1000000)) ms"
	[ $(((t1 - t0) / 1000000)) -lt 1800 ]
	# no hoster now: the master's own ssh start
	run hh_console 1 "add h2"
	show
	[[ "$output" == *"1 successful"* ]]
	[ "$(hh_conf_n)" = 2 ]
	local p
	p=$(host_pvmd_pid 2)
	[ "$(tr '\0' ' ' <"/proc/$p/cmdline")" = "$PVMD_BIN -s " ]
	on_host 1 grep -q 'no longer the hoster' "$VMDIR/pvmd.log"
}

@test "pvm_reg_hoster as the reference: a second task PvmAlready, a second call withdraws, PvmHostrNMstr off the master; pvm_getmwid/setmwid checks" {
	hh_start h2
	wait_until 30 hh_has_n 2
	run hh_prog 1 pt_hoster check
	show
	[[ "$output" == *" checks passed, 0 failed"* ]]
	hh_hoster
	run hh_prog 1 pt_hoster reg </dev/null
	show
	[ "$output" = "reg -30" ]
	run hh_prog 2 pt_hoster reg </dev/null
	show
	[ "$output" = "reg -34" ]
	hh_hoster_stop
	run hh_prog 1 pt_hoster reg </dev/null
	show
	[ "$output" = "reg 0" ]
}
