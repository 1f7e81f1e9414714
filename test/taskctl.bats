#!/usr/bin/env bats
# Task control: children's output (pvm_catchout framing, raw output,
# PvmOutputTid messages, PvmSelfOutputTid, pvm_exit waiting for output),
# spawn flags (PvmTaskDebug, PvmHostCompl, PvmMppFront), the working
# directory rule, pvm_sendsig, pvm_kill of oneself, pvm_getnoresets.  test/progs/pt_out.c
# is the program; it plays parent and child roles.

load helpers

setup() {
	pvm_test_env
	# PvmTaskDebug runs the debugger named in the pvmd's environment.
	cat >"$TESTTMP/fakedbg" <<-'EOF'
	#!/bin/sh
	echo "fakedbg: $*"
	exec "$@"
	EOF
	chmod +x "$TESTTMP/fakedbg"
	case "$BATS_TEST_DESCRIPTION" in
	*"our debugger script"*)
		start_pvmd PVM_DEBUGGER="$S/pvmd/debugger" ;;
	*) start_pvmd PVM_DEBUGGER="$TESTTMP/fakedbg" ;;
	esac
}

teardown() {
	stop_vm
}

# lines_of TID: the lines of $output framed for task TID, without the tag.
lines_of() {
	printf '%s\n' "$output" | sed -n "s/^\[t$1\] //p"
}

# line_no TEXT: number of the first line of $output equal to TEXT.
line_no() {
	printf '%s\n' "$output" | grep -nxF -- "$1" | head -n 1 | cut -d: -f1
}

@test "catchout: BEGIN, each line tagged, a last line without newline, EOF, before pvm_exit returns" {
	run t "$TESTTMP/bin/pt_out" catch 1 say one two three
	show
	[ "$status" -eq 0 ]
	local tid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	[ -n "$tid" ]
	[ "$(lines_of "$tid")" = "BEGIN
err one
one
two
three
EOF" ]
	# BEGIN arrives during the spawn; EOF before pvm_exit returns
	[ "$(line_no "[t$tid] BEGIN")" -lt "$(line_no "child t$tid")" ]
	[ "$(line_no "[t$tid] EOF")" -lt "$(line_no "after exit")" ]
	[[ "$output" == *"exit notified t$tid"* ]]
}

@test "catchout: a grandchild's output comes to the grandparent, framed with its own tid" {
	run t "$TESTTMP/bin/pt_out" catch 1 parent
	show
	[ "$status" -eq 0 ]
	local tid gtid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	gtid=$(lines_of "$tid" | sed -n 's/^spawned 1 t//p')
	[ -n "$gtid" ] && [ "$gtid" != "$tid" ]
	[ "$(lines_of "$tid")" = "BEGIN
spawned 1 t$gtid
EOF" ]
	[ "$(lines_of "$gtid")" = "BEGIN
err grand
grand
child
EOF" ]
	[ "$(line_no "[t$gtid] EOF")" -lt "$(line_no "after exit")" ]
}

@test "catchout: a child crashing with SIGSEGV: its last output arrives and its exit is notified" {
	run t "$TESTTMP/bin/pt_out" catch 1 crash
	show
	[ "$status" -eq 0 ]
	local tid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	[[ "$output" == *"exit notified t$tid"* ]]
	lines_of "$tid" | grep -qxF "written line"
	if [ -z "$REF" ]; then
		# what stdio held when it crashed, a partial line too (the
		# reference loses both)
		[ "$(lines_of "$tid")" = "BEGIN
written line
stdio line
stdio partial
EOF" ]
	fi
	[ "$(line_no "[t$tid] EOF")" -lt "$(line_no "after exit")" ]
}

@test "catchout with PvmShowTids 0: raw lines, no tags, no BEGIN or EOF" {
	run t "$TESTTMP/bin/pt_out" catch 0 say one two
	show
	[ "$status" -eq 0 ]
	[ -z "$(printf '%s\n' "$output" | grep '^\[t')" ]
	local text
	text=$(printf '%s\n' "$output" |
		grep -vE '^(child t|exit notified|after exit|catch: |libpvm )')
	[ "$text" = "err one
one
two" ]
}

@test "pvm_exit with catchout on waits until the children's output has ended" {
	run t "$TESTTMP/bin/pt_out" exitnow slow
	show
	[ "$status" -eq 0 ]
	local tid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	[ "$(lines_of "$tid")" = "BEGIN
late line
EOF" ]
	[ "$(line_no "[t$tid] EOF")" -lt "$(line_no "after exit")" ]
	[[ "$output" == *"child task(s) still running"* ]]
}

@test "pvm_catchout(0): later children's output is not collected; earlier ones' still is" {
	run t "$TESTTMP/bin/pt_out" catchoff
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
	local a b
	read -r a b < <(printf '%s\n' "$output" | sed -n 's/^children t\([0-9a-f]*\) t\([0-9a-f]*\)$/\1 \2/p')
	[ -n "$b" ]
	[[ "$output" != *"second"* ]]
	[ -z "$(printf '%s\n' "$output" | grep "^\[t$b\]")" ]
	if [ -z "$REF" ]; then
		# the first child's output still comes (the reference drops it
		# with "pvmclaimo() message from task"); the second one's goes
		# to the pvmd log
		[ "$(lines_of "$a")" = "BEGIN
err first
first
EOF" ]
		grep -F "[t$b] second" "$VMDIR/pvmd.log"
	fi
}

@test "PvmOutputTid/Code/Context: output as messages (tid,-2,ptid) (tid,-1,ptid) (tid,n,bytes) (tid,0)" {
	prog_ok pt_out msgs
}

@test "PvmSelfOutputTid: a running task moves its own output; the old destination gets EOF" {
	prog_ok pt_out selfout
	if [ -z "$REF" ]; then
		# written before the switch: stays with the old destination
		grep -F "] before" "$VMDIR/pvmd.log"
	fi
}

@test "PvmTaskDebug runs the task under PVM_DEBUGGER with its path and arguments" {
	run t "$TESTTMP/bin/pt_out" debug say hi there
	show
	[ "$status" -eq 0 ]
	local tid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	lines_of "$tid" | grep -xE "fakedbg: /.*/pt_out say hi there"
	lines_of "$tid" | grep -qxF "there"
	[[ "$output" == *"exit notified t$tid"* ]]
}

@test "PvmTaskDebug with our debugger script: gdb in batch mode prints a backtrace" {
	skip_if_ref "our debugger script"
	command -v gdb >/dev/null || skip "gdb is not installed"
	unset DISPLAY
	run t "$TESTTMP/bin/pt_out" debug crash
	show
	[ "$status" -eq 0 ]
	local tid
	tid=$(printf '%s\n' "$output" | sed -n 's/^child t//p')
	lines_of "$tid" | grep -q "under gdb in batch mode"
	lines_of "$tid" | grep -q "SIGSEGV"
	# frames of the backtrace: "#1  0x00007f... in raise (..."
	lines_of "$tid" | grep -qE "^#[0-9]+ +0x[0-9a-f]+ in "
	[[ "$output" == *"exit notified t$tid"* ]]
}

@test "spawn flags on one host: PvmHostCompl, PvmMppFront, TaskHost over TaskArch, where's :dir" {
	prog_ok pt_out flags
}

@test "working directory: \$HOME of the pvmd by default, where \":dir\" absolute or relative to it" {
	prog_ok pt_out wd "$HOME"
	if [ -z "$REF" ]; then
		# a program named relative to $HOME, with a working directory
		# elsewhere (the reference fails this spawn with PvmNoFile)
		mkdir -p "$HOME/relbin"
		ln -s "$TESTTMP/bin/pt_out" "$HOME/relbin/pt_out"
		prog_ok pt_out wd "$HOME" relbin/pt_out
	fi
}

@test "pvm_sendsig delivers the signal; a fatal one is notified as an exit" {
	prog_ok pt_out sig
}

@test "pvm_kill of itself: returns 0, then the task dies and its exit is notified" {
	prog_ok pt_out killself
}

@test "pvm_getnoresets lists the tasks whose PvmNoReset is set, and only while it is" {
	prog_ok pt_out noreset
}
