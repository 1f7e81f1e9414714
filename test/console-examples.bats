#!/usr/bin/env bats
# Unchanged Debian pvm-examples binaries started from our console with
# `spawn -> ...` (issue 3): their output, and their children's, arrives in
# the console framed per task as the reference console frames it
# ([job:tid] text, [job:tid] EOF, [job] finished).  Tids and contexts differ
# from run to run, so relations are checked, not numbers.

load helpers

setup() {
	examples_setup
}

teardown() {
	stop_vm
}

# job CMD SECS: types CMD into a console, waits (at most SECS) until the job
# reports "[1] finished", then quits; the console's output is in $output.
job() {
	local fifo=$TESTTMP/in out=$TESTTMP/out n=$(($2 * 10))
	mkfifo "$fifo"
	timeout -k 5 "$TMO" "$CONSOLE" <"$fifo" >"$out" 2>&1 &
	local pid=$!
	exec 7>"$fifo"
	printf '%s\n' "$1" >&7
	while [ "$n" -gt 0 ] && ! grep -q '^\[1\] finished' "$out"; do
		sleep 0.1
		n=$((n - 1))
	done
	echo quit >&7
	exec 7>&-
	wait "$pid"
	status=$?
	output=$(cat "$out")
	mapfile -t lines <"$out"
}

# first_tid: the tid the console printed for the job's task.
first_tid() {
	printf '%s\n' "$output" | sed -n 's/^t\(4[0-9a-f]\{4\}\)$/\1/p' | head -n 1
}

has() {
	printf '%s\n' "$output" | grep -Eq "$1"
}

count() {
	printf '%s\n' "$output" | grep -Ec "$1"
}

@test "spawn -> hello.pvm: its line and its child's greeting, each task's EOF" {
	job 'spawn -> hello.pvm' 20
	show
	[ "$status" -eq 0 ]
	has '^1 successful$'
	local me other
	me=$(first_tid)
	[ -n "$me" ]
	has "^(pvm> )?\[1:t$me\] i'm t$me\$"
	other=$(printf '%s\n' "$output" |
		sed -n "s/^\[1:t$me\] from t\(4[0-9a-f]\{4\}\): hello, world from $HOSTNAME_\$/\1/p")
	[ -n "$other" ] && [ "$other" != "$me" ]
	has "^\[1:t$me\] EOF\$"
	has "^\[1:t$other\] EOF\$"
	has '^\[1\] finished$'
}

@test "spawn -> master1: three slave1 results, four EOFs" {
	job 'spawn -> master1' 30
	show
	[ "$status" -eq 0 ]
	local me who
	me=$(first_tid)
	has "^(pvm> )?\[1:t$me\] Spawning 3 worker tasks ... SUCCESSFUL\$"
	for who in 0 1 2; do
		has "^(pvm> )?\[1:t$me\] I got ([0-9.]+) from $who; \(expecting \2\)\$"
	done
	[ "$(count "^(pvm> )?\[1:t$me\] I got ")" -eq 3 ]
	[ "$(count '^(pvm> )?\[1:t4[0-9a-f]{4}\] EOF$')" -eq 4 ]
	has '^\[1\] finished$'
}

@test "spawn -> timing: round trips and bandwidth with timing_slave, to the end" {
	skip_if_ref "on the reference console this job does not finish within the suite's time limit"
	job 'spawn -> timing' 50
	show
	local me slave
	me=$(first_tid)
	slave=$(printf '%s\n' "$output" | sed -n "s/^.*\[1:t$me\] slave is task t\(4[0-9a-f]\{4\}\)\$/\1/p")
	[ -n "$slave" ]
	has "\[1:t$me\] Doing Round Trip test, minimal message size\$"
	has "\[1:t$me\] RTT Avg uSec [0-9]+\$"
	has "\[1:t$me\] Doing Bandwidth tests\$"
	has "\[1:t$me\] Message size 100000\$"
	has "^\[1:t$slave\] EOF\$"
	has "^\[1:t$me\] EOF\$"
	has '^\[1\] finished$'
}

@test "spawn -> inherita inherit1: the grandchild inherits the changed context" {
	job 'spawn -> inherita inherit1' 30
	show
	local me ctx
	me=$(first_tid)
	has "\[1:t$me\] inherita: t$me on machine <$HOSTNAME_> with original context 0\.\$"
	ctx=$(printf '%s\n' "$output" | sed -n "s/^.*\[1:t$me\] inherita: t$me on machine <.*> with changed context \([0-9]*\)\.\$/\1/p" | head -n 1)
	[ -n "$ctx" ] && [ "$ctx" -ne 0 ]
	has "inherit1: I just spawned inherit2 as tid t4[0-9a-f]{4} with context $ctx\.\$"
	has "inherit2 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $ctx\.\$"
	has "END - sent from inherit1 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $ctx\.\$"
	[ "$(count '^(pvm> )?\[1:t4[0-9a-f]{4}\] EOF$')" -eq 3 ]
	has '^\[1\] finished$'
}

@test "spawn -> inherita inherit3: a child's own new context reaches its child" {
	job 'spawn -> inherita inherit3' 30
	show
	local me ctx ctx3
	me=$(first_tid)
	ctx=$(printf '%s\n' "$output" | sed -n "s/^.*\[1:t$me\] inherita: t$me on machine <.*> with changed context \([0-9]*\)\.\$/\1/p" | head -n 1)
	ctx3=$(printf '%s\n' "$output" | sed -n "s/^.*inherit3: I just spawned inherit2 as tid t4[0-9a-f]\{4\} with context \([0-9]*\)\.\$/\1/p")
	[ -n "$ctx" ] && [ -n "$ctx3" ] && [ "$ctx" != "$ctx3" ] && [ "$ctx3" -ne 0 ]
	has "inherit2 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $ctx3\.\$"
	has "END - sent from inherit3 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $ctx\.\$"
	[ "$(count '^(pvm> )?\[1:t4[0-9a-f]{4}\] EOF$')" -eq 3 ]
	has '^\[1\] finished$'
}

@test "spawn -> inheritb: two inherit2 children answer in their own contexts" {
	job 'spawn -> inheritb' 30
	show
	local me c1 c2
	me=$(first_tid)
	c1=$(printf '%s\n' "$output" | sed -n "s/^.*1:inheritb: t$me on machine <.*> with new #1 context \([0-9]*\) --> spawn 1st inherit2\.\$/\1/p")
	c2=$(printf '%s\n' "$output" | sed -n "s/^.*2:inheritb: t$me on machine <.*> with new #2 context \([0-9]*\) --> spawn 2nd inherit2\.\$/\1/p")
	[ -n "$c1" ] && [ -n "$c2" ] && [ "$c1" != "$c2" ]
	has "inherit2 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $c2\. <-- received from 2nd inherit2\.\$"
	has "inherit2 t4[0-9a-f]{4} on machine <$HOSTNAME_> with context $c1\. <-- received from 1st inherit2\.\$"
	[ "$(count '^(pvm> )?\[1:t4[0-9a-f]{4}\] EOF$')" -eq 3 ]
	has '^\[1\] finished$'
}
