#!/usr/bin/env bats
# Tasks: enrollment, information calls, options, spawn, kill, notify,
# contexts and halt, each against a real pvmd with real tasks.

load helpers

setup() {
	pvm_test_env
	if [ "$BATS_TEST_DESCRIPTION" != "pvm_mytid and pvm_spawn with no pvmd give PvmSysErr promptly and start none" ]; then
		start_pvmd
	fi
}

teardown() {
	stop_vm
}

@test "pvm_mytid and pvm_spawn with no pvmd give PvmSysErr promptly and start none" {
	prog_ok pt_task nopvmd
	[ ! -e "$VMDIR/pvmd.sock" ]
	sleep 0.5
	[ -z "$(vm_pids "$PVM_VMID")" ]
}

@test "pvm_start_pvmd starts our pvmd when none runs; a second call gives PvmDupHost" {
	stop_vm
	pvm_test_env
	prog_ok pt_task startpvmd
	wait_until 5 pvmd_alive
	if [ -z "$REF" ]; then
		[ "$(readlink -f "/proc/$(pvmd_pid)/exe")" = "$(readlink -f "$PVMD_BIN")" ]
	fi
}

@test "mytid, tidtohost, parent, siblings, config, tasks, mstat, pstat, version" {
	prog_ok pt_task info
}

@test "getopt defaults are the reference's and setopt returns the old value" {
	prog_ok pt_task opts
}

@test "PvmAutoErr: 1 prints the failing call on stderr, 0 is silent, 2 prints and exits" {
	run t "$TESTTMP/bin/pt_task" autoerr
	show
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	[[ "$output" != *FAIL* ]]
	[[ "$output" == *"before exit"* ]]
	[[ "$output" != *"after exit"* ]]
	[ "$(printf '%s\n' "$output" | grep -c 'pvm_send(): Bad parameter')" -eq 2 ]
	[ "$(printf '%s\n' "$output" | grep -c 'pvm_kill')" -eq 0 ]
}

@test "spawn: argv, parent, siblings, PVM_EXPORT, PvmTaskHost, PvmTaskArch, PvmNoSpawnParent, PvmNoHost, PvmNoFile" {
	prog_ok pt_task spawn
}

@test "siblings: every child of a spawn of 300 gets the whole list, however early it asks" {
	prog_ok pt_task sibsbig 300
	[[ "$output" == *"children 300: whole lists 300, short 0, shortest 300"* ]]
}

@test "spawn looks up a relative name on the spawn path only; an absolute path is used as is" {
	prog_ok pt_task spawnwait "$PROGS/pt_task" 1 child exit
	[[ "$output" == *"exited t"* ]]
	# "true" exists in /usr/bin but not on the spawn path
	prog_ok pt_task spawnone true
	[[ "$output" == *"n=0 tid=-7"* ]]
	prog_ok pt_task spawnone pt_task
	[[ "$output" == *"n=1 tid="* ]]
}

@test "kill removes the task" {
	prog_ok pt_task kill
}

@test "notify: PvmTaskExit on pvm_exit, plain exit, SIGSEGV, kill, already gone; PvmNotifyCancel" {
	prog_ok pt_task notify
}

@test "contexts: same tags isolated, child starts in parent's context, base context 0" {
	prog_ok pt_task ctx
}

@test "notify: a task has at most 65536 registrations (then PvmOutOfRes); one cancelled makes room for one" {
	skip_if_ref "the reference has no cap"
	prog_ok pt_task notifycap
}

@test "contexts: a task holds at most 4096 (then PvmOutOfRes); one freed makes room for one" {
	skip_if_ref "the reference has no cap"
	prog_ok pt_task ctxcap
}

@test "a spawned task's output goes to the pvmd log" {
	skip_if_ref "the reference logs elsewhere"
	prog_ok pt_task spawnwait pt_task 2 child print
	local tid
	for tid in $(printf '%s\n' "$output" | sed -n 's/^spawned t//p'); do
		grep -F "[t$tid] hello from child t$tid" "$VMDIR/pvmd.log"
		grep -F "[t$tid] stderr line from t$tid" "$VMDIR/pvmd.log"
	done
}

@test "a task waiting in pvm_recv when the pvmd dies gets PvmSysErr instead of hanging" {
	"$TESTTMP/bin/pt_task" orphan >"$TESTTMP/orphan.out" 2>&1 &
	local task=$!
	wait_until 10 grep -q waiting "$TESTTMP/orphan.out"
	sleep 0.3
	kill -KILL "$(pvmd_pid)"
	wait_until 15 eval '! kill -0 '"$task"' 2>/dev/null' || { kill -KILL "$task"; false; }
	local status=0
	wait "$task" || status=$?
	cat "$TESTTMP/orphan.out"
	grep -q '^recv returned -14$' "$TESTTMP/orphan.out"
	grep -q ' checks passed, 0 failed' "$TESTTMP/orphan.out"
	[ "$status" -eq 0 ]
}

@test "pvm_halt stops the pvmd and kills its tasks" {
	run t "$TESTTMP/bin/pt_task" halt
	show
	# the reference's pvm_halt also kills the calling task (status 143);
	# either way, no check may have failed before
	[[ "$output" != *FAIL* ]]
	local child
	child=$(printf '%s\n' "$output" | sed -n 's/^child //p')
	[ -n "$child" ] && [ "$child" != "-1" ]
	wait_until 10 eval '[ -z "$(vm_pids "$PVM_VMID")" ]'
	# a new task finds no pvmd
	run t "$TESTTMP/bin/pt_task" nopvmd
	show
	[ "$status" -eq 0 ]
}
