#!/usr/bin/env bats
# The unchanged Debian pvm-examples group programs (built against PVM 3.4.6,
# linked with -lgpvm3 -lpvm3) on our libpvm3.so.3 and libgpvm3.so.3
# (LD_LIBRARY_PATH) against our pvmd: gexample, ge, gexamp, thb + tnb, tjf,
# tjl, tst, joinleave, trsg, gs.pvm and the bandwidth tests ibwtest,
# rbwtest, dbwtest, pbwtest.  The pvmd gets the same LD_LIBRARY_PATH so that
# the copies it spawns load ours too.  Expected output: what they print on
# the reference (their sources are in /usr/share/doc/pvm-examples); tids
# differ from run to run, so relations are checked, not numbers.  What
# spawned copies print goes to the pvmd's log, which is checked too.

load helpers

setup() {
	pvm_test_env
	local p
	for p in $GEXAMPLES; do
		[ -x "/usr/bin/$p" ] || skip "pvm-examples is not installed (/usr/bin/$p)"
	done
	if [ -n "$OURLIB" ]; then
		start_pvmd LD_LIBRARY_PATH="$OURLIB:$OURGLIB" ${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"}
	else
		start_pvmd
	fi
	cd "$TESTTMP"
}

teardown() {
	stop_vm
}

# gx PROG ARGS...: runs a Debian group example (found on PATH, so that its
# argv[0] is its plain name as when typed) on our libraries.
gx() {
	if [ -n "$OURLIB" ]; then
		timeout -k 5 "$TMO" env LD_LIBRARY_PATH="$OURLIB:$OURGLIB" \
			${OURPRELOAD:+LD_PRELOAD="$OURPRELOAD"} "$@"
	else
		timeout -k 5 "$TMO" "$@"
	fi
}

# task_log: the pvmd's log, where the output of spawned tasks goes.
task_log() {
	if [ -n "$REF" ]; then
		cat "$PVM_TMP/pvml.$(id -u).$PVM_VMID" 2>/dev/null ||
			cat "/tmp/pvml.$(id -u).$PVM_VMID" 2>/dev/null
	else
		cat "$VMDIR/pvmd.log" 2>/dev/null
	fi
}

# log_has N REGEX: waits (5 s at most) until N lines of the log end in
# "[tTID] " followed by REGEX (an extended regular expression).
log_count_is() {
	[ "$(task_log | grep -cE "\[t4[0-9a-f]{4}\] $2\$")" -eq "$1" ]
}

log_has() {
	wait_until 5 log_count_is "$1" "$2" || {
		echo "log: expected $1 lines matching '$2':"
		task_log | tail -n 40
		return 1
	}
}

@test "the group examples load our libgpvm3.so.3 and libpvm3.so.3" {
	skip_if_ref
	local l
	l=$(LD_LIBRARY_PATH="$OURLIB:$OURGLIB" ldd /usr/bin/gexample)
	echo "$l"
	grep -F "$OURGLIB/libgpvm3.so.3" <<<"$l"
	grep -F "$OURLIB/libpvm3.so.3" <<<"$l"
}

@test "tst: joins and leaves two groups" {
	run gx tst
	show
	[ "$status" -eq 0 ]
	[ "$output" = "joined prognosis 0, negative 0
left prognosis 0, negative 0" ]
}

@test "tjl: joins 32 groups, checks gettid and getinst, leaves them" {
	run gx tjl
	show
	[ "$status" -eq 0 ]
	[ "$output" = "$(for i in $(seq 0 31); do echo "joined group$i"; done)" ]
}

@test "tjf: joins 33 groups (its array holds 32: the 33rd instance number, 0, lands on the name)" {
	run gx tjf
	show
	[ "$status" -eq 0 ]
	# the reference prints the same "joined " (an empty name) last
	[ "$output" = "$(for i in $(seq 0 31); do echo "joined group$i"; done; echo "joined ")" ]
}

@test "joinleave: 1000 joins and leaves of one group" {
	run gx joinleave 1000
	show
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^joinleave\ 0x4[0-9a-f]{4}\ enrolled$ ]]
	[ "${#lines[@]}" -eq 11 ]
	for i in $(seq 1 10); do
		[ "${lines[$i]}" = "Joined $((i * 100)) times" ]
	done
}

@test "thb: joins 32 groups, spawns 4 tnb which join group0, barrier of 5, bcast" {
	run gx thb 4
	show
	[ "$status" -eq 0 ]
	local want
	want="$(for i in $(seq 0 31); do echo "joined group$i"; done)
spawning ... barrier on group0 
 leaving all the groups 
done."
	[ "$output" = "$want" ]
	# the tnb copies ended (they leave after the bcast)
	wait_until 10 eval '[ -z "$(vm_pids "$PVM_VMID" | while read -r p; do readlink /proc/$p/exe; done | grep tnb)" ]'
}

@test "ge 4: spawns 3 copies, barrier, every member broadcasts its instance and tid" {
	run gx ge 4
	show
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^ge\ 0x(4[0-9a-f]{4})\ enrolled$ ]]
	local me=${BASH_REMATCH[1]}
	[ "${lines[1]}" = "ge 0x$me 0" ]
	local i
	for i in 2 3 4; do
		[[ "${lines[$i]}" =~ ^0x4[0-9a-f]{4}$ ]]
	done
	[ "${lines[5]}" = "group ge size 4 gid 0: sync" ]
	# ge checks the others' instances after some may have left: the
	# reference too sometimes prints "gid N doesn't match up!" here
	[ "${lines[-1]}" = "done" ]
	log_has 3 'ge 0x4[0-9a-f]{4} enrolled'
	log_has 3 'nproc 4'
	local g
	for g in 1 2 3; do
		log_has 1 "ge 0x4[0-9a-f]{4} $g"
		log_has 1 "group ge size 4 gid $g: sync"
	done
	log_has 3 done
}

@test "gexamp 4: spawns 3 copies, barrier, broadcasts checked by every member, barrier, leave" {
	run gx gexamp 4
	show
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^gexamp\ 0x(4[0-9a-f]{4})\ enrolled$ ]]
	[ "${lines[1]}" = "gexamp 0x${BASH_REMATCH[1]} 0" ]
	[[ "${lines[2]}" =~ ^0x4[0-9a-f]{4}$ ]]
	[[ "${lines[4]}" =~ ^0x4[0-9a-f]{4}$ ]]
	[ "${lines[5]}" = "gexamp 0: sync" ]
	[ "${#lines[@]}" -eq 6 ]
	local g
	for g in 1 2 3; do
		log_has 1 "gexamp 0x4[0-9a-f]{4} $g"
		log_has 1 "(.*/)?gexamp $g: sync"
	done
	# here everyone leaves after a last barrier: no mismatch anywhere
	! task_log | grep -q "doesn't match" || false
}

@test "gs.pvm 4: waits in pvm_gsize for 3 spawned copies, barrier, leave" {
	run gx gs.pvm 4
	# (its output is hundreds of "waiting on kids to join" lines)
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^gs\.pvm\ 0x4[0-9a-f]{4}\ enrolled$ ]]
	[ "$(printf '%s\n' "$output" | grep -cE '^0x4[0-9a-f]{4}$')" -eq 3 ]
	[ "$(printf '%s\n' "$output" | grep -vcE '^0x4[0-9a-f]{4}$|^waiting on kids to join$')" -eq 1 ]
	log_has 3 '(.*/)?gs\.pvm 0x4[0-9a-f]{4} enrolled'
}

@test "trsg: reduce, scatter and gather with 4 members, 5 elements (stdin)" {
	run gx trsg <<<$'4\n5'
	show
	# trsg always ends with exit(1)
	[ "$status" -eq 1 ]
	[ "$output" = "
 *** Example use of PVM Reduce, Scatter, and Gather *** 
 Number of processors to use (1-16)? :  Number of elements per row to use (1-20)? :  INPUT values: nprocs = 4, count = 5 

 Test OK: Sum of Squares of first 20 integers is 2870 
 Test Ok: Received (5.000000, 2.000000): " ]
}

@test "trsg: 16 members, 20 elements" {
	run gx trsg <<<$'16\n20'
	show
	[ "$status" -eq 1 ]
	[[ "$output" == *" INPUT values: nprocs = 16, count = 20 "* ]]
	[[ "$output" == *" Test OK: Sum of Squares of first 320 integers is 10973920 "* ]]
	[[ "$output" == *" Test Ok: Received (20.000000, 8.000000): "* ]]
}

gexample_expect() {
	printf '%s\n' \
		" This program demonstrates some group and reduction  " \
		" operations in PVM.  The output displays the " \
		" the product of the first column of a Toeplitz matrix" \
		" and the matrix 1-norm. The matrix data is distributed " \
		" among several processors.  The Toeplitz matrix is " \
		" symmetric with the first row being the row " \
		" vector [1 2 ... n]." \
		" Input dimension ( >0 ) of matrix:  Input number of tasks (1-32): " \
		"       --> Using $2 processors <-- " \
		"" \
		" The 1-Norm is $(($1 * ($1 + 1) / 2))  " \
		" ( Should be the sum of the integers from 1 to $1 )" \
		" The product of column 1 is $3  " \
		" ( Should be $1 factorial)"
}

@test "gexample: dimension 100, 4 tasks from stdin: freezegroup, reduce (sum and a user function), barrier" {
	run gx gexample <<<$'100\n4'
	show
	[ "$status" -eq 0 ]
	diff -u <(gexample_expect 100 4 9.33262e+157) <(printf '%s\n' "$output")
}

@test "gexample: dimension 10, 7 tasks; dimension 5, 8 tasks (more tasks than rows)" {
	run gx gexample <<<$'10\n7'
	show
	[ "$status" -eq 0 ]
	diff -u <(gexample_expect 10 7 3.6288e+06) <(printf '%s\n' "$output")
	run gx gexample <<<$'5\n8'
	show
	[ "$status" -eq 0 ]
	diff -u <(gexample_expect 5 8 120) <(printf '%s\n' "$output")
}

# bwtest NAME OPTION: two copies at once; instance 0 is the master.
bwtest() {
	local b=$1 opt=$2
	gx "$b" >"$TESTTMP/$b.1" 2>&1 &
	local p1=$!
	gx "$b" >"$TESTTMP/$b.2" 2>&1 &
	local p2=$!
	local s1=0 s2=0
	wait $p1 || s1=$?
	wait $p2 || s2=$?
	local m=$TESTTMP/$b.1 s=$TESTTMP/$b.2
	grep -q 'myinst is 1' "$m" && { m=$TESTTMP/$b.2; s=$TESTTMP/$b.1; }
	echo "--- master"; cat "$m"; echo "--- slave"; cat "$s"
	[ "$s1" -eq 0 ] && [ "$s2" -eq 0 ]
	local mt st
	mt=$(sed -n 's/^ \(4[0-9a-f]\{4\}\) myinst is 0 $/\1/p' "$m")
	st=$(sed -n 's/^ \(4[0-9a-f]\{4\}\) myinst is 1 $/\1/p' "$s")
	[ -n "$mt" ] && [ -n "$st" ]
	# the slave: exactly these lines (and two empty ones)
	[ "$(cat "$s")" = " $st myinst is 1 
$st -- I am the slave 
t$st: 100000 doubles received correctly" ]
	[ "$(wc -l <"$s")" -eq 5 ]
	# the master: header, validation, 7 sizes
	grep -qx -- "--- Simple PVM Bandwidth Test ----" "$m"
	grep -qx " Using pack option: $opt " "$m"
	grep -qx " Max data size is: 800000 " "$m"
	grep -qx "$mt -- I am the master " "$m"
	grep -qx "t$mt: 100000 doubles received correctly" "$m"
	! grep -q '^error' "$m" || false
	local size
	for size in 0 8 80 800 8000 80000 800000; do
		grep -Eqx "Roundtrip T = [0-9]+ \(us\)  \([-0-9.a-z]+ MB/s\)  Data size: $size" "$m"
	done
	[ "$(grep -c '^Roundtrip' "$m")" -eq 7 ]
}

@test "ibwtest: two copies pair up by instance, PvmDataInPlace round trips 0 to 800000 bytes" {
	bwtest ibwtest PvmDataInPlace
}

@test "rbwtest: two copies, PvmDataRaw" {
	bwtest rbwtest PvmDataRaw
}

@test "dbwtest: two copies, PvmDataDefault" {
	bwtest dbwtest PvmDataDefault
}

@test "pbwtest: two copies, pvm_psend/pvm_precv" {
	bwtest pbwtest Psend/Precv
}
