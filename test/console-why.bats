#!/usr/bin/env bats
# Failures that say why (issue 28): the console's line after a failed
# task's EOF and the jobs command's finished jobs; spawn's "No such
# file" with where the pvmd looked; libpvm's "Can't contact local
# daemon" with the machine, the socket and the machines that run.
# pt_run (test/progs/pt_run.c) plays the tasks.

load helpers

setup() {
	pvm_test_env
	HOSTNAME_=$(hostname)
	ulimit -c 0
}

teardown() {
	stop_vm
}

@test "a task that exits 3: its EOF, then how it ended; one that exits 0 gets no such line" {
	skip_if_ref
	start_pvmd
	run timed 'spawn -> pt_run exit 3' 'sleep 1' 'spawn -> pt_run ok' 'sleep 1'
	show
	has '^\[1:t40002\] exiting 3$'
	# the reference's framing, then one more line, then finished
	printf '%s\n' "$output" | sed 's/^pvm> //' | grep -A2 -x '\[1:t40002\] EOF' >"$TESTTMP/after"
	[ "$(cat "$TESTTMP/after")" = "$(printf '%s\n' '[1:t40002] EOF' '[1:t40002] exited with status 3' '[1] finished')" ]
	has '^\[2:t40003\] EOF$'
	! has '^\[2:t40003\] exited' || false
}

@test "a task killed by SIGSEGV, one that exits 6 after pvm_exit: the signal's name, the status" {
	skip_if_ref
	start_pvmd
	run timed 'spawn -> pt_run segv' 'sleep 1' 'spawn -> pt_run leave 6' 'sleep 1.5'
	show
	has '^\[1:t40002\] crashing$'
	has '^\[1:t40002\] killed by signal 11 \(SIGSEGV\)$'
	has '^\[2:t40003\] exited with status 6$'
}

@test "jobs shows how the tasks of finished jobs ended" {
	skip_if_ref
	start_pvmd
	run timed 'spawn -2 -> pt_run ok' 'spawn -> pt_run segv' 'sleep 1.5' 'jobs'
	show
	has '^\[1\] finished: t40002 exited with status 0, t40003 exited with status 0$|^\[1\] finished: t40003 exited with status 0, t40002 exited with status 0$'
	has '^\[2\] finished: t40004 killed by signal 11 \(SIGSEGV\)$'
}

@test "spawn of a program the pvmd cannot find says where it looked, and that the console's PVM_PATH differs" {
	skip_if_ref
	start_pvmd
	run console 'spawn nosuch'
	show
	has '^No such file$'
	has "^spawn: nosuch not found in the pvmd's PVM_PATH: $PVM_PATH\$"
	! has "console's PVM_PATH" || false
	run env PVM_PATH="/elsewhere/\$PVM_ARCH:$PVM_PATH" "$CONSOLE" <<<'spawn nosuch'
	show
	has "^spawn: nosuch not found in the pvmd's PVM_PATH: $PVM_PATH\$"
	has "^spawn: the console's PVM_PATH is another: /elsewhere/LINUX64:$PVM_PATH\$"
}

@test "a spawn that fails makes piped input exit 1; one that works, 0" {
	skip_if_ref
	start_pvmd
	run console 'spawn -> nosuch'
	show
	[ "$status" -eq 1 ]
	run console 'spawn pt_run ok'
	[ "$status" -eq 0 ]
}

@test "no pvmd: Can't contact local daemon, then the machine, its socket and the machines that run" {
	skip_if_ref
	run env PVM_VMID=wrong "$TESTTMP/bin/pt_run" ok
	show
	local pid
	pid=$(sed -n '1s/^libpvm \[pid\([0-9]*\)\].*/\1/p' <<<"$output")
	[ "${lines[0]}" = "libpvm [pid$pid]: pvm_mytid(): Can't contact local daemon" ]
	[ "${lines[1]}" = "libpvm [pid$pid]: no pvmd runs for PVM_VMID=wrong (socket $PVM_TMP/pvm.$(id -u).wrong/pvmd.sock)" ]
	[ "${lines[2]}" = "libpvm [pid$pid]: virtual machines of this user running: none" ]
	start_pvmd
	run env PVM_VMID=wrong "$TESTTMP/bin/pt_run" ok
	show
	[ "${lines[2]}" = "libpvm [pid$pid]: virtual machines of this user running: $PVM_VMID" ] ||
		[[ "${lines[2]}" == *"virtual machines of this user running: $PVM_VMID" ]]
	run env -u PVM_VMID "$TESTTMP/bin/pt_run" ok
	show
	[[ "${lines[1]}" == *"]: no pvmd runs for PVM_VMID=(unset) (socket $PVM_TMP/pvm.$(id -u)/pvmd.sock)" ]]
}

@test "a pvmd that cannot be run: the console names the program and why, status 1" {
	skip_if_ref
	run env PVM_PVMD="$TESTTMP/no/pvmd" "$CONSOLE" </dev/null
	show
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "pvm: cannot start pvmd: Can't start pvmd" ]
	[ "${lines[1]}" = "pvm: cannot run the pvmd $TESTTMP/no/pvmd (PVM_PVMD): No such file or directory" ]
	printf '#!/bin/sh\n' >"$TESTTMP/noexec"
	run env PVM_PVMD="$TESTTMP/noexec" "$CONSOLE" </dev/null
	show
	[ "${lines[1]}" = "pvm: cannot run the pvmd $TESTTMP/noexec (PVM_PVMD): Permission denied" ]
}
