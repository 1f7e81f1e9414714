#!/usr/bin/env bats
# Unchanged Debian pvm-examples binaries (built against PVM 3.4.6) run on
# our libpvm3.so.3 (LD_LIBRARY_PATH) against our pvmd.  The pvmd is started
# with the same LD_LIBRARY_PATH so that the tasks it spawns load ours too.
# Expected output: what the same programs print on the reference (tids and
# contexts differ from run to run, so relations are checked, not numbers).

load helpers

setup() {
	examples_setup
}

teardown() {
	stop_vm
}

@test "the example programs load our libpvm3.so.3" {
	skip_if_ref
	LD_LIBRARY_PATH=$OURLIB ldd /usr/bin/hello.pvm | grep -F "$OURLIB/libpvm3.so.3"
	tr '\0' '\n' <"/proc/$(pvmd_pid)/environ" | grep -qx "LD_LIBRARY_PATH=$OURLIB"
	# a spawned example (mtile waits for work) has our library mapped
	prog_ok pt_task spawnone mtile
	[[ "$output" == *"n=1 tid="* ]]
	local p found=0
	for p in $(vm_pids "$PVM_VMID"); do
		[ "$(readlink "/proc/$p/exe")" = /usr/bin/mtile ] || continue
		grep -qF "$(readlink -f "$OURLIB/libpvm3.so.3")" "/proc/$p/maps"
		! grep -q '/usr/lib/.*libpvm3' "/proc/$p/maps" || false
		found=1
	done
	[ "$found" -eq 1 ]
}

@test "hello.pvm spawns hello_other and prints its greeting" {
	run as_ours /usr/bin/hello.pvm
	show
	[ "$status" -eq 0 ]
	local me other
	me=$(printf '%s\n' "$output" | sed -n "s/^i'm t\(4[0-9a-f]\{4\}\)\$/\1/p")
	other=$(printf '%s\n' "$output" | sed -n "s/^from t\(4[0-9a-f]\{4\}\): hello, world from $HOSTNAME_\$/\1/p")
	[ -n "$me" ] && [ -n "$other" ] && [ "$me" != "$other" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "master1 spawns 3 slave1 and gets the expected results" {
	run as_ours /usr/bin/master1
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Spawning 3 worker tasks ... SUCCESSFUL" ]
	local who n=0
	for who in 0 1 2; do
		printf '%s\n' "$output" | grep -Eq "^I got ([0-9.]+) from $who; \(expecting \1\)\$"
		n=$((n + 1))
	done
	[ "$n" -eq 3 ]
	[ "$(printf '%s\n' "$output" | grep -c '^I got ')" -eq 3 ]
}

@test "spmd spawned as 4 copies passes its token round the ring" {
	run t bash -c "(printf 'spawn -4 -> spmd\n'; sleep 3; printf 'quit\n') | '$CONSOLE' 2>&1"
	show
	printf '%s\n' "$output" | grep -Eq '^4 successful$'
	local tids dec=() t first
	tids=$(printf '%s\n' "$output" | sed -n 's/^t\(4[0-9a-f]\{4\}\)$/\1/p')
	[ "$(echo "$tids" | wc -w)" -eq 4 ]
	for t in $tids; do dec+=($((16#$t))); done
	first=${tids%%$'\n'*}
	printf '%s\n' "$output" | grep -Fq "[1:t$first] Pass a token through the   4 tid ring:"
	# the ring is the sibling list, in spawn order, back to the first
	printf '%s\n' "$output" | grep -Eq "\[1:t$first\] +${dec[0]} -> +${dec[1]} -> +${dec[2]} -> +${dec[3]} -> +${dec[0]} *\$"
	printf '%s\n' "$output" | grep -Fq "[1:t$first] token ring done"
	[ "$(printf '%s\n' "$output" | grep -Ec '\[1:t4[0-9a-f]{4}\] EOF$')" -eq 4 ]
}

@test "spmd copies started by a task of ours finish, their output in the pvmd log" {
	skip_if_ref "the reference logs elsewhere"
	prog_ok pt_task spawnwait spmd 4
	[ "$(printf '%s\n' "$output" | grep -c '^exited t')" -eq 4 ]
	grep -q 'Pass a token through the   4 tid ring:' "$VMDIR/pvmd.log"
	grep -q 'token ring done' "$VMDIR/pvmd.log"
}

@test "timing measures round trips and bandwidth with timing_slave (and exits 1)" {
	run as_ours /usr/bin/timing
	show
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" | grep -Eq "^i'm t4[0-9a-f]{4}\$"
	printf '%s\n' "$output" | grep -Eq '^slave is task t4[0-9a-f]{4}$'
	printf '%s\n' "$output" | grep -Eq '^RTT Avg uSec [0-9]+$'
	local sz
	for sz in 100 1000 10000 100000 1000000; do
		printf '%s\n' "$output" | grep -Eq "^Message size $sz\$"
	done
	[ "$(printf '%s\n' "$output" | grep -c '^Avg Byte/uSec')" -eq 5 ]
	[ "$(printf '%s\n' "$output" | grep -c '^done')" -ge 1 ]
	[ "$(printf '%s\n' "$output" | grep -c "can't send")" -eq 0 ]
}

@test "inherit1, inherit2, inherit3 started from a shell have no parent to send to" {
	# As on the reference: each pvm_send to the missing parent reports
	# PvmBadParam (PvmAutoErr prints it), and the programs end normally.
	local p n
	for p in inherit1:5 inherit2:1 inherit3:6; do
		run as_ours "/usr/bin/${p%%:*}"
		show
		[ "$status" -eq 0 ]
		n=$(printf '%s\n' "$output" | grep -c 'pvm_send(): Bad parameter')
		[ "$n" -eq "${p##*:}" ]
	done
}

# ctx_of LINE-PATTERN: the context number at the end of the matching line.
ctx_of() {
	printf '%s\n' "$output" | grep -E "$1" | head -n 1 | sed -n 's/.*context \(-\?[0-9]*\)\.$/\1/p'
}

@test "inherita inherit1: children inherit the parent's new context" {
	run as_ours /usr/bin/inherita inherit1
	show
	[ "$status" -eq 0 ]
	local c0 c1
	c0=$(ctx_of '^inherita: t4[0-9a-f]+ on machine <.*> with original context')
	c1=$(ctx_of '^inherita: t4[0-9a-f]+ on machine <.*> with changed context')
	[ "$c0" = 0 ] && [ -n "$c1" ] && [ "$c1" != 0 ]
	[ "$(ctx_of 'inherit1 t4[0-9a-f]+ on machine')" = "$c1" ]
	printf '%s\n' "$output" | grep -Eq "inherit1: I just spawned inherit2 as tid t4[0-9a-f]+ with context $c1\.\$"
	[ "$(ctx_of 'inherit2 t4[0-9a-f]+ on machine')" = "$c1" ]
	printf '%s\n' "$output" | grep -Eq "END - sent from inherit1 t4[0-9a-f]+ on machine <$HOSTNAME_> with context $c1\.\$"
	[ "${lines[-1]}" = "${lines[-1]%original context 0.}original context 0." ]
}

@test "inherita inherit3: a child's own new context is inherited by its child" {
	run as_ours /usr/bin/inherita inherit3
	show
	[ "$status" -eq 0 ]
	local c1 c3
	c1=$(ctx_of '^inherita: t4[0-9a-f]+ on machine <.*> with changed context')
	[ -n "$c1" ] && [ "$c1" != 0 ]
	# inherit3 reports c1 first, then its own new context c3
	c3=$(printf '%s\n' "$output" | grep -E 'inherit3 t4[0-9a-f]+ on machine' | sed -n '2s/.*context \([0-9]*\)\.$/\1/p')
	[ "$(ctx_of 'inherit3 t4[0-9a-f]+ on machine')" = "$c1" ]
	[ -n "$c3" ] && [ "$c3" != "$c1" ] && [ "$c3" != 0 ]
	printf '%s\n' "$output" | grep -Eq "inherit3: I just spawned inherit2 as tid t4[0-9a-f]+ with context $c3\.\$"
	[ "$(ctx_of 'inherit2 t4[0-9a-f]+ on machine')" = "$c3" ]
	printf '%s\n' "$output" | grep -Eq "END - sent from inherit3 t4[0-9a-f]+ on machine <$HOSTNAME_> with context $c1\.\$"
}

@test "inheritb: two inherit2 children in two contexts answer in their own" {
	run as_ours /usr/bin/inheritb
	show
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 6 ]
	local a b
	a=$(printf '%s\n' "${lines[1]}" | sed -n 's/.*with new #1 context \([0-9]*\) --> spawn 1st inherit2\.$/\1/p')
	b=$(printf '%s\n' "${lines[2]}" | sed -n 's/.*with new #2 context \([0-9]*\) --> spawn 2nd inherit2\.$/\1/p')
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ]
	[[ "${lines[0]}" == "0:inheritb: t4"*" on machine <$HOSTNAME_> with context 0." ]]
	[[ "${lines[3]}" == *"inherit2 t4"*" with context $b. <-- received from 2nd inherit2." ]]
	[[ "${lines[4]}" == *"with new #1 context $a." ]]
	[[ "${lines[5]}" == *"inherit2 t4"*" with context $a. <-- received from 1st inherit2." ]]
}

@test "mtile (xep's worker) computes the tiles our driver sends, pixel for pixel" {
	prog_ok mtile_driver 2
	[[ "$output" == *"2 workers, "*" pixels checked"* ]]
}
