#!/usr/bin/env bats
# The host calls and console commands, on ONE host: pvm_addhosts,
# pvm_delhosts, pvm_hostsync, pvm_archcode, pvm_config, pvm_mstat
# (test/progs/pt_hosts.c) and the console's add, delete, conf, mstat and
# `pvm hostfile`.  Expected values and output are the reference's (PVM
# 3.4.6), checked with PVM_TEST_REF=1 on a machine whose host name has a
# non-loopback address.  Tests across hosts are in the multi-host suites.

load helpers

setup() {
	pvm_test_env
	HOSTNAME_=$(hostname)
}

teardown() {
	stop_vm
}

# The results adding or deleting hosts need the pvmd's TM_ADDHOST,
# TM_DELHOST and TM_HOSTSYNC (docs/hosts.md); a pvmd without them answers
# PvmNotImpl (-24), and these tests skip with that reason.
# The reference refuses to add any host (PvmIPLoopback, "Master Host IP
# Address is Loopback!") when its host name resolves to a loopback address,
# as on a machine whose /etc/hosts maps it to 127.0.0.1.
skip_if_ref_loopback() {
	[ -n "$REF" ] || return 0
	local addr
	addr=$(getent hosts "$HOSTNAME_" | awk '{print $1; exit}')
	case $addr in
	127.* | ::1 | "") skip "the reference refuses adds: $HOSTNAME_ resolves to loopback ($addr)" ;;
	esac
}

# expect_line LINE: the last run's output has LINE exactly.
expect_line() {
	printf '%s\n' "$output" | grep -qxF -- "$1" ||
		{ echo "missing line: [$1]"; return 1; }
}

@test "argument checks of addhosts/delhosts/hostsync; archcode, config and mstat on one host" {
	start_pvmd
	prog_ok pt_hosts args
	# the errors are reported under the reference's names
	[[ "$output" == *"pvm_addhosts(): Bad parameter"* ]]
	[[ "$output" == *"pvm_delhosts(): Bad parameter"* ]]
	[[ "$output" == *"pvm_host_sync(): No such host"* ]]
	[[ "$output" == *"pvm_archcode(): Not Found"* ]]
}

@test "pvm_addhosts: this host again PvmDupHost, unknown name PvmNoHost, \"\" PvmBadParam, 0 returned" {
	start_pvmd
	skip_if_ref_loopback
	prog_ok pt_hosts add "$HOSTNAME_"
}

@test "pvm_delhosts: unknown name PvmNoHost, the master host PvmBadParam, 0 returned" {
	start_pvmd
	prog_ok pt_hosts del "$HOSTNAME_"
}

@test "pvm_hostsync of this host by any of its tids: its clock, delta within half the round trip; no such host PvmNoHost" {
	start_pvmd
	prog_ok pt_hosts sync
	printf '%s\n' "$output" | grep '^tid .* delta' | sed 's/^/# /' >&3
}

@test "console add: this host again is 'Duplicate host', an unknown name 'No such host', as the reference" {
	start_pvmd
	skip_if_ref_loopback
	run console "$(printf 'add %s\nadd %s nosuchhost.invalid' "$HOSTNAME_" "$HOSTNAME_")"
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -cxF '0 successful')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cxF '                    HOST     DTID')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cxF "$(printf '%24s Duplicate host' "$HOSTNAME_")")" -eq 2 ]
	expect_line "$(printf '%24s No such host' nosuchhost.invalid)"
	# one line per host, no more
	[ "$(printf '%s\n' "$output" | grep -c '^ *nosuchhost\.invalid ')" -eq 1 ]
	# nothing changed
	run console conf
	show
	expect_line '1 host, 1 data format'
}

# fake_rsh: a remote shell that cannot reach its host, as ssh says it
fake_rsh() {
	printf '#!/bin/sh\necho "ssh: connect to host $1 port 22: Connection refused" >&2\nexit 255\n' \
		>"$TESTTMP/bin/fake_rsh"
	chmod +x "$TESTTMP/bin/fake_rsh"
}

@test "console add of a host that cannot start: the remote shell's own message under 'Can't start pvmd'" {
	skip_if_ref "the reference says only 'Can't start pvmd'"
	fake_rsh
	start_pvmd PVM_RSH="$TESTTMP/bin/fake_rsh"
	run console 'add 127.0.0.2'
	show
	expect_line '0 successful'
	expect_line "$(printf '%24s Can'"'"'t start pvmd' 127.0.0.2)"
	expect_line "$(printf '%24s   %s' '' 'the remote command ended without starting a pvmd: ssh: connect to host 127.0.0.2 port 22: Connection refused')"
	# the host's line (then the reason), no second one
	[ "$(printf '%s\n' "$output" | grep -c '^ *127\.0\.0\.2 ')" -eq 1 ]
}

@test "a hostfile's host that cannot start: the pvmd says which and why on the starter's stderr, before the console goes on" {
	skip_if_ref "the reference only logs it"
	fake_rsh
	printf '%s\n' 127.0.0.2 >"$TESTTMP/hostfile"
	# started by the console
	run bash -c "echo conf | PVM_RSH='$TESTTMP/bin/fake_rsh' timeout -k 5 $TMO '$CONSOLE' '$TESTTMP/hostfile' 2>&1"
	show
	[ "${lines[0]}" = "pvmd: host 127.0.0.2 not added: Can't start pvmd: the remote command ended without starting a pvmd: ssh: connect to host 127.0.0.2 port 22: Connection refused" ]
	expect_line '1 host, 1 data format'
	echo halt | timeout -k 5 10 "$CONSOLE" >/dev/null 2>&1 || true
	wait_until 10 eval '! pvmd_alive'
	# started by hand: the line is there when the pvmd command returns
	run env PVM_RSH="$TESTTMP/bin/fake_rsh" timeout -k 5 "$TMO" "$PVMD_BIN" "$TESTTMP/hostfile"
	show
	[ "$status" -eq 0 ]
	[[ "$output" == "pvmd: host 127.0.0.2 not added: Can't start pvmd: "*"Connection refused" ]]
}

@test "console delete: an unknown host 'No such host', the master 'Bad parameter', as the reference" {
	start_pvmd
	run console "$(printf 'delete nosuchhost.invalid\ndelete %s nosuchhost.invalid' "$HOSTNAME_")"
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -cxF '0 successful')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cxF '                    HOST  STATUS')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -cxF "$(printf '%24s  No such host' nosuchhost.invalid)")" -eq 2 ]
	expect_line "$(printf '%24s  Bad parameter' "$HOSTNAME_")"
	run console conf
	show
	expect_line '1 host, 1 data format'
}

@test "console add, delete and mstat without a host: 'wrong #args'" {
	start_pvmd
	run console "$(printf 'add\ndelete\nmstat')"
	show
	# ours: commands that failed make piped input exit 1 (docs/compat.md)
	if [ -n "$REF" ]; then [ "$status" -eq 0 ]; else [ "$status" -eq 1 ]; fi
	expect_line 'add: wrong #args'
	expect_line 'delete: wrong #args'
	expect_line 'mstat: wrong #args'
}

@test "console conf: the header line, the column titles, one line per host as the reference" {
	start_pvmd
	run console conf
	show
	[ "$status" -eq 0 ]
	expect_line '1 host, 1 data format'
	expect_line '                    HOST     DTID     ARCH   SPEED       DSIG'
	expect_line "$(printf '%24s %8x %8s%8d 0x%08x' "$HOSTNAME_" 0x40000 LINUX64 1000 0x408c41)"
	# as many host lines as the header counts
	local n
	n=$(printf '%s\n' "$output" | sed -n 's/^\([0-9]*\) hosts\{0,1\}, .*/\1/p')
	[ "$(printf '%s\n' "$output" | grep -cE '^ +[^ ]+ +[0-9a-f]+ +[A-Z0-9_]+ +[0-9]+ 0x[0-9a-f]{8}$')" -eq "$n" ]
}

@test "console mstat: 'ok' for this host, 'No such host' for another, one line each" {
	start_pvmd
	run console "mstat $HOSTNAME_ nosuchhost.invalid"
	show
	[ "$status" -eq 0 ]
	expect_line "$(printf '%24s  ok' "$HOSTNAME_")"
	expect_line "$(printf '%24s  No such host' nosuchhost.invalid)"
}

@test "pvm HOSTFILE starts the pvmd with that hostfile (its full path); an unknown host in it leaves one host" {
	printf '# hosts\n%s\nnosuchhost.invalid\n' "$HOSTNAME_" >"$TESTTMP/hosts"
	local hf=hosts
	[ -z "$REF" ] || hf=$TESTTMP/hosts # the reference hangs on a relative one
	run t bash -c "cd '$TESTTMP' && printf 'conf\nquit\n' | '$CONSOLE' '$hf' 2>&1"
	show
	[ "$status" -eq 0 ]
	expect_line '1 host, 1 data format'
	[[ "$output" != *"pvmd already running"* ]]
	if [ -z "$REF" ]; then
		local pid
		pid=$(pvmd_pid)
		[ -n "$pid" ]
		tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF "$TESTTMP/hosts"
	fi
}

@test "pvm HOSTFILE with a pvmd running: 'pvmd already running.', the hostfile is not used" {
	start_pvmd
	printf 'nosuchhost.invalid\n' >"$TESTTMP/hosts"
	run t bash -c "printf 'conf\nquit\n' | '$CONSOLE' '$TESTTMP/hosts' 2>&1"
	show
	[ "$status" -eq 0 ]
	expect_line 'pvmd already running.'
	expect_line '1 host, 1 data format'
}
