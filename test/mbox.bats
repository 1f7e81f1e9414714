#!/usr/bin/env bats
# The message mailbox: pvm_putinfo / pvm_recvinfo / pvm_delinfo /
# pvm_getmboxinfo and pvm_insert / pvm_lookup / pvm_delete (codes as the
# reference returns them), entries of other tasks, entries surviving or
# vanishing with their owner, PvmMboxWaitForInfo, the console's names, put
# and reset, and the Debian examples lmbi, gmbi, rme, task0/task1/task_end.
# test/progs/pt_mbox.c is the program.

load helpers

setup() {
	pvm_test_env
	start_pvmd_for_examples
}

teardown() {
	stop_vm
}

mb() {
	t "$TESTTMP/bin/pt_mbox" "$@"
}

# bg_own NAME FLAGS SECS: an owner task in the background, ready when this
# returns.
bg_own() {
	mb own "$@" >"$TESTTMP/own.$1" 2>&1 &
	wait_until 10 grep -q ready "$TESTTMP/own.$1"
}

@test "one task: put, replace, multi-instance, direct index, read, delete, list, insert/lookup/delete" {
	prog_ok pt_mbox rules
}

@test "no entry and a duplicate insert are answers: no message on stderr, as with the reference" {
	run t "$TESTTMP/bin/pt_mbox" quiet
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "recvinfo -32" ]
	[ "${lines[1]}" = "delinfo -32" ]
	[ "${lines[2]}" = "lookup -32" ]
	[ "${lines[3]}" = "delete -32" ]
	[ "${lines[4]}" = "insert 2" ]
	[ "${lines[5]}" = "insert again -8" ]
	[ "${lines[6]}" = "put 0" ]
	# the one real error is reported
	[[ "${lines[7]}" == "libpvm [t"*"]: pvm_recvinfo(): Bad parameter" ]]
	[ "${lines[8]}" = "bad -2" ]
	[ "${#lines[@]}" -eq 9 ]
}

@test "a bad buffer id gives PvmNoSuchBuf (the reference hangs)" {
	skip_if_ref "the reference hangs"
	prog_ok pt_mbox badbuf
}

@test "a costly pattern costs its asker alone: another task's list is answered while it runs" {
	skip_if_ref "the reference matches plain substrings, in its pvmd"
	local name pid
	name=fz$(printf 'x%.0s' $(seq 200))
	bg_own "$name" 0 60
	# 300 classes of 4096 letters against an expression of 1984 nodes
	# (of the 2048 taken): seconds of glibc's regexec (25 ms a name on
	# this VM) in the task that asks (a pvmd that ran it would serve
	# nobody then)
	run mb long 300 4096
	show
	[ "$output" = "put 300" ]
	mb list '(.?.?.?.?){110}y' >"$TESTTMP/slow" 2>&1 &
	pid=$!
	sleep 0.5
	kill -0 "$pid"
	TMO=10 run mb list fz
	show
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" =~ ^$name:\ 0\ 4[0-9a-f]{4}\ 0$ ]]
	# answered while the costly one is still matching
	kill -0 "$pid"
	kill "$pid"
	wait "$pid" || true
}

@test "a pattern glibc would take minutes and gigabytes on is refused at once: PvmBadParam" {
	skip_if_ref "the reference matches plain substrings only"
	mb put abc 1
	# each '+' doubles the tree regcomp builds (a finding of cmd_fuzz)
	TMO=5 run mb list ')++++++++++++++++++++++++++++++++ '
	show
	[ "${lines[0]}" = "getmboxinfo -2 n 0" ]
	TMO=5 run mb list '(a{999}){999}'
	[ "${lines[0]}" = "getmboxinfo -2 n 0" ]
	# a back-reference is matched by backtracking: refused
	TMO=5 run mb list '(.*)*(.*)*x\1\2'
	[ "${lines[0]}" = "getmboxinfo -2 n 0" ]
	# the largest taken: 2048 nodes
	run mb list '(a?){341}'
	[ "${lines[0]}" = "getmboxinfo 0 n 1" ]
	run mb list '(a?){342}'
	[ "${lines[0]}" = "getmboxinfo -2 n 0" ]
	# and the console says so, then goes on
	TMO=10 run console $'names )+++++++++++++++++++++++++++++++\nnames abc'
	show
	[[ "$output" == *"Bad parameter"* ]]
	[[ "$output" == *"abc"* ]]
}

@test "caps: a task holds at most 4096 entries (then PvmOutOfRes), room again after a delete, and another task still puts" {
	skip_if_ref "the reference has no cap"
	run mb fill many 8
	show
	[ "${lines[0]}" = "put 4096 code -27" ]
	[ "${lines[1]}" = "again 0" ]
	grep -q "mailbox entry many refused: beyond the caps" "$VMDIR/pvmd.log"
	bg_own other 0 30
	run mb list other
	[[ "${lines[1]}" == other:* ]]
}

@test "caps: a task holds at most 64 MiB of entries: 16 of 4 MiB, the 17th PvmOutOfRes" {
	skip_if_ref "the reference has no cap"
	run mb fill big 4194304
	show
	[ "${lines[0]}" = "put 16 code -27" ]
	[ "${lines[1]}" = "again 0" ]
}

@test "caps: at most 256 PvmMboxWaitForInfo reads of one task are held; the rest are answered PvmOutOfRes at once" {
	skip_if_ref "the reference has no cap"
	run timeout 30 python3 "$S/test/frames.py" "$VMDIR/pvmd.sock" waits 300
	show
	[ "${lines[0]}" = "answered 44: -27 x44" ]
	# the pvmd goes on serving
	run mb list
	[ "$status" -eq 0 ]
}

@test "another task gets PvmDenied on an entry that is not overwritable" {
	bg_own x 0 30
	run mb other x
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "put -8" ]        # PvmDenied (reference; man page says PvmExists)
	[ "${lines[1]}" = "put multi 1" ]   # its own instance next to it
	[ "${lines[2]}" = "del -8" ]
	[ "${lines[3]}" = "read 7" ]        # reading is allowed
	# the other task's non-persistent instance went with it
	run mb list x
	show
	[[ "${lines[1]}" =~ ^x:\ 0\ 4[0-9a-f]{4}\ 0$ ]]
	[ "${#lines[@]}" -eq 2 ]
}

@test "an overwritable entry may be replaced and deleted by another task" {
	bg_own y 4 30
	run mb other y
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "put 0" ]
	[ "${lines[1]}" = "put multi 1" ]
	[ "${lines[2]}" = "del 0" ]
	[ "${lines[3]}" = "read -32" ]      # PvmNotFound: it is gone
}

@test "non-persistent entries vanish with their owner; persistent ones stay with owner 0" {
	run mb own gone 0 0
	[ "$status" -eq 0 ]
	run mb own kept 1 0
	[ "$status" -eq 0 ]
	run mb own kept2 3 0     # persistent, multi-instance
	[ "$status" -eq 0 ]
	bg_own alive 0 30
	run mb list
	show
	[ "${lines[0]}" = "getmboxinfo 0 n 3" ]
	[ "${lines[1]}" = "kept: 0 0 1" ]
	[ "${lines[2]}" = "kept2: 0 0 3" ]
	[[ "${lines[3]}" =~ ^alive:\ 0\ 4[0-9a-f]{4}\ 0$ ]]
	# the owner is killed: its entry goes too
	local owner=${lines[3]#alive: 0 }
	owner=${owner% 0}
	echo "kill $owner" | t "$CONSOLE" >/dev/null 2>&1
	wait_until 10 eval '! mb list | grep -q "^alive:"'
	# a persistent entry stays until deleted: not by another task...
	run mb other kept
	show
	[ "${lines[2]}" = "del -8" ]
}

@test "PvmMboxWaitForInfo blocks until another task puts the entry" {
	mb wait later >"$TESTTMP/wait.out" 2>&1 &
	local w=$!
	sleep 1.5
	# still waiting
	[ ! -s "$TESTTMP/wait.out" ]
	kill -0 "$w"
	run mb put later 42
	show
	[ "$output" = "put 0" ]
	wait "$w"
	cat "$TESTTMP/wait.out"
	grep -Eq '^got 42 after (1\.[5-9]|[2-9]\.[0-9]) s$' "$TESTTMP/wait.out"
}

@test "getmboxinfo: a pattern is a regular expression found anywhere in the name" {
	mb put abc 1 && mb put xabcx 2 && mb put def 3
	run mb list abc
	show
	[ "${lines[0]}" = "getmboxinfo 0 n 2" ]
	run mb list '*'
	[ "${lines[0]}" = "getmboxinfo 0 n 3" ]
	run mb list ''
	[ "${lines[0]}" = "getmboxinfo 0 n 3" ]
	run mb list zzz
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
	skip_if_ref "the reference matches plain substrings only"
	run mb list '^abc'
	show
	[ "${lines[0]}" = "getmboxinfo 0 n 1" ]
	[ "${lines[1]}" = "abc: 0 0 1" ]
	run mb list 'a.c|^d'
	[ "${lines[0]}" = "getmboxinfo 0 n 3" ]
}

@test "console: names, put, reset info, reset" {
	mb own orphan 1 0 && mb own orphan2 1 0
	bg_own live 0 30
	run console $'names\nput foo 0 bar\nput foo 1\nnames fo\nreset info orphan2\nnames orphan'
	show
	[[ "$output" == *$'<orphan>:\n\tindex=0 owner=0x0/0 flags=0x1\n'* ]]
	[[ "$output" == *$'<live>:\n\tindex=0 owner=0x4'* ]]
	[[ "$output" == *"put: wrong #args"* ]]
	local re=$'<foo>:\n\tindex=0 owner=0x4[0-9a-f]{4}/[0-9]+ flags=0x0\n'
	[[ "$output" =~ $re ]]
	# reset info CLASS deleted that orphan only
	[ "$(printf '%s\n' "$output" | grep -c '^<orphan')" -eq 3 ]
	run console $'names orphan2'
	[[ "$output" != *"<orphan2>"* ]]
	run console $'reset\nnames'
	show
	[[ "$output" != *"<orphan>"* ]]
	[[ "$output" != *"<live>"* ]]
	run mb list
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
}

@test "Debian task0 + task1 + task_end: a service found through the mailbox, in its context" {
	local x
	for x in task0 task1 task_end; do
		[ -x "/usr/bin/$x" ] || skip "pvm-examples is not installed (/usr/bin/$x)"
	done
	as_ours stdbuf -oL /usr/bin/task0 svc d >"$TESTTMP/task0.out" 2>&1 &
	local t0=$!
	wait_until 10 grep -q "waiting for service request" "$TESTTMP/task0.out"
	run as_ours /usr/bin/task1 svc 0 d
	show
	[ "$status" -eq 0 ]
	local srv ctx
	srv=$(sed -n 's/^task0: t\(4[0-9a-f]*\) on machine .* with context 0\.$/\1/p' "$TESTTMP/task0.out")
	ctx=$(sed -n 's/^task0: just inserted service name <svc> at index 0\.$/x/p' "$TESTTMP/task0.out")
	[ -n "$srv" ] && [ "$ctx" = x ]
	[[ "$output" =~ "task1: service name <svc> and index 0 with flags <PvmMboxDefault > tid: $srv and with context: "[1-9][0-9]* ]]
	[[ "$output" == *"from task t$srv welcome to my server - you are service request number 1."* ]]
	run as_ours /usr/bin/task_end svc 0
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"service name <svc> of index 0 on <"*"> id: $srv "* ]]
	wait "$t0"
	cat "$TESTTMP/task0.out"
	grep -q "task0: t$srv END  Request number 2." "$TESTTMP/task0.out"
	grep -q "task0: handled 2 service requests." "$TESTTMP/task0.out"
	# its non-persistent entry went with it
	run mb list svc
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
}

@test "Debian lmbi + gmbi + rme: entries listed, persistent ones orphaned, delete rules" {
	local x
	for x in lmbi gmbi rme; do
		[ -x "/usr/bin/$x" ] || skip "pvm-examples is not installed (/usr/bin/$x)"
	done
	run as_ours /usr/bin/lmbi 2 p e
	show
	[ "$status" -eq 0 ]
	local p
	p=$(printf '%s\n' "$output" | sed -n 's/^lmbi: t\(4[0-9a-f]*\) on machine .*/\1/p')
	[ -n "$p" ]
	[[ "$output" == *"lmbi: just inserted entry <t${p}lmbi1> at index 0."* ]]
	as_ours stdbuf -oL /usr/bin/lmbi 1 mo w >"$TESTTMP/lmbi.out" 2>&1 &
	wait_until 10 grep -q "waiting for exit request" "$TESTTMP/lmbi.out"
	local w
	w=$(sed -n 's/^lmbi: t\(4[0-9a-f]*\) on machine .* - waiting.*/\1/p' "$TESTTMP/lmbi.out")
	run as_ours /usr/bin/gmbi lmbi
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "gmbi: 3 mbox entries returned." ]
	[[ "$output" == *$'gmbi: class name: <t'"$p"$'lmbi0>\n\t: indices <0>\towner_tid <t0>\tflags <1> = <PvmMboxPersistent >'* ]]
	[[ "$output" == *$'gmbi: class name: <t'"$w"$'lmbi0>\n\t: indices <0>\towner_tid <t'"$w"$'>\tflags <6> = <PvmMboxOverWritable PvmMboxMultiInstance >'* ]]
	# an orphaned persistent entry: another task may not delete it
	run as_ours /usr/bin/rme "t${p}lmbi0" 0
	show
	[ "$status" -ne 0 ]
	[[ "$output" == *"rme: Key locked by another task, can't delete."* ]]
	# an overwritable one: it may
	run as_ours /usr/bin/rme "t${w}lmbi0" 0
	show
	[ "$status" -eq 0 ]
	run as_ours /usr/bin/gmbi
	show
	[ "${lines[0]}" = "gmbi: 2 mbox entries returned." ]
	# no such entry
	run as_ours /usr/bin/rme nosuch 0
	[[ "$output" == *"rme: no service running for <nosuch> index <0>"* ]]
	kill %1 2>/dev/null || true
}
