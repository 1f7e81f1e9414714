#!/usr/bin/env bats
# Message handlers: pvm_addmhf / pvm_delmhf rules (PvmExists with
# wildcards, PvmNotFound / PvmBadParam on delete, ids reused), messages a
# handler matches never reach a receive, a handler that replies from inside
# the handler, pvmdisplaymhfinfo, and the Debian mhf_server + mhf_tickle.
# test/progs/pt_mbox.c is the program.

load helpers

setup() {
	pvm_test_env
	start_pvmd_for_examples
}

teardown() {
	stop_vm
}

@test "handler rules in one task; its messages never reach a receive" {
	prog_ok pt_mbox mhf
	# the table as pvmdisplaymhfinfo prints it (the reference's also lists
	# its 9 internal handlers)
	skip_if_ref "the reference's table has its own handlers too"
	[[ "$output" == *$'Display Message Handler Information: ndhandles = 2\tnhandles = 2\tfl_dhandles = -1'* ]]
	[[ "$output" =~ pt_mbox\ t4[0-9a-f]{4}:\ dhandles\[\ 1\]\.mhid\ =\ \ 1\ \ \.handle\ =\ \ 1\ .*\.header\.src\ =\ t4[0-9a-f]{4}\ +\.header\.ctx\ =\ +0\ \ \.header\.tag=\ +6 ]]
}

@test "a handler replies from inside the handler (20 round trips)" {
	t "$TESTTMP/bin/pt_mbox" echo >"$TESTTMP/echo.out" 2>&1 &
	local e=$!
	wait_until 10 grep -q "ready" "$TESTTMP/echo.out"
	local tid
	tid=$(sed -n 's/^echo t\(4[0-9a-f]*\) ready$/\1/p' "$TESTTMP/echo.out")
	prog_ok pt_mbox tickle "$tid" 20
	wait "$e"
	cat "$TESTTMP/echo.out"
	grep -qx "echo handled 20" "$TESTTMP/echo.out"
	grep -q " checks passed, 0 failed" "$TESTTMP/echo.out"
}

@test "Debian mhf_server + mhf_tickle: load a handler, hit it, delete it, miss" {
	local x
	for x in mhf_server mhf_tickle; do
		[ -x "/usr/bin/$x" ] || skip "pvm-examples is not installed (/usr/bin/$x)"
	done
	as_ours stdbuf -oL /usr/bin/mhf_server >"$TESTTMP/server.out" 2>&1 &
	local s=$!
	wait_until 10 grep -q "startup" "$TESTTMP/server.out"
	# our ids start at 0 (the reference's user ids at 9, after its own)
	local id=0
	[ -z "$REF" ] || id=9
	# LMH tag 77 ctx 0 SC1; HIT it; PMH; DMH; HIT again; SEAT
	run as_ours /usr/bin/mhf_tickle <<-EOF
	1
	77
	0
	1
	4
	77
	0
	1
	hello world
	0
	2
	$id
	4
	77
	0
	1
	again
	9
	EOF
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"mhf_tickle: will ping SC1:string_catcher1 with message <hello world>."* ]]
	wait "$s"
	cat "$TESTTMP/server.out"
	local out
	out=$(grep -v '^$' "$TESTTMP/server.out")
	# the handler got the first ping, before the server's HIT check
	[[ "$out" == *$'string_catcher1: string_catcher1 received message -->> <hello world>\nmhf_server: HIT:  ping target 1 - SC1   strings match <hello world>.'* ]]
	[[ "$out" == *"mhf_server: DMH: AFTER delete with pvm_delmhf( mhid = $id )"* ]]
	# deleted: the second ping reaches the server's receive instead
	[[ "$out" == *"mhf_server: NO HIT:  lmh = 1 - SC1   mhf_catch = -99 - ?C?   strings NO match - local <again>   mhf <NO MATCH>."* ]]
	[[ "$out" != *"received message -->> <again>"* ]]
	[[ "$out" == *"mhf_server: CEAT: Termiate Self..."* ]]
}
