#!/usr/bin/env bats
# Reliability (docs/security.md, docs/limits.md): what a careless or
# hostile request cannot do to the pvmd, and what a task keeps when its
# pvmd dies.  One host; each test has its own VM.

load helpers

setup() {
	pvm_test_env
}

teardown() {
	stop_vm
}

# orphan TRAN: pt_orphan on route TRAN (PVM_TRAN), the pvmd killed once
# both tasks have exchanged a message: the spawned copy, whose stdout and
# stderr were pipes to the pvmd, gets PvmSysErr (-14) and lives on.
orphan() {
	local file=$TESTTMP/orphan.$1 out=$TESTTMP/first.$1 pid
	start_pvmd
	PVM_TRAN=$1 PVM_EXPORT=PVM_TRAN:PVM_TRAN_REPORT PVM_TRAN_REPORT=$TESTTMP/carried.$1 \
		t "$TESTTMP/bin/pt_orphan" "$file" >"$out" 2>&1 &
	pid=$!
	wait_until 20 grep -qx ready "$out"
	kill -KILL "$(pvmd_pid)"
	wait "$pid" || true
	wait_until 10 test -s "$file" || { echo "the copy wrote nothing (killed?)"; cat "$out"; return 1; }
	echo "# $1: copy: $(cat "$file"); first task: $(tail -n 1 "$out"); carried: $(tr '\n' ' ' <"$TESTTMP/carried.$1")" >&3
	grep -Eqx 'recv -14 send -14 exit -?[0-9]+' "$file"
	grep -Eqx 'recv -14 send -14 exit -?[0-9]+' "$out"
	# the route asked for carried the exchange
	[ "$(sh "$abs_top_srcdir/test/tran-carried.sh" "$TESTTMP/carried.$1" "$1")" -ge 1 ]
}

@test "a spawned task whose pvmd dies gets PvmSysErr, not SIGPIPE from the library's message: shared memory" {
	orphan shm
}

@test "a spawned task whose pvmd dies gets PvmSysErr, not SIGPIPE from the library's message: direct route" {
	orphan direct
}

@test "a spawned task whose pvmd dies gets PvmSysErr, not SIGPIPE from the library's message: pvmd route" {
	orphan pvmd
}

@test "under umask 000 every file and socket of the VM, and every inbox, is its owner's alone" {
	local out=$TESTTMP/first bad
	# the pvmd, its tasks and the tasks' direct-route listeners
	(umask 000 && start_pvmd)
	(umask 000 && \
		exec timeout -k 5 60 "$TESTTMP/bin/pt_orphan" "$TESTTMP/orphan" >"$out" 2>&1) &
	wait_until 20 grep -qx ready "$out"
	ls -la "$VMDIR" "/dev/shm" >&3
	[ "$(stat -c %a "$VMDIR")" = 700 ]
	# two tasks' listeners at least
	[ "$(find "$VMDIR" -name 't*.sock' | wc -l)" -ge 2 ]
	bad=$(find "$VMDIR" -mindepth 1 ! -perm 600 -printf '%m %p\n'
		find /dev/shm -maxdepth 1 -name "$(inbox_prefix)*" ! -perm 600 -printf '%m %p\n')
	[ -z "$bad" ] || { echo "not 0600: $bad"; return 1; }
}

@test "one pvm_spawn of 4096 tasks does not stop the pvmd serving others: a probe is answered while it runs" {
	local out=$TESTTMP/spawner pid
	start_pvmd
	ln -s /bin/true "$TESTTMP/bin/quick"
	# 4096 forks and execs take seconds; the spawner waits for its answer
	printf 'spawn -4096 quick\n' | TMO=120 t "$CONSOLE" >"$out" 2>&1 &
	pid=$!
	wait_until 20 grep -q 'spawned t' "$VMDIR/pvmd.log"
	TMO=10 run "$TESTTMP/bin/pt_mbox" list
	show
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "getmboxinfo 0 n 0" ]
	# answered before the spawn ended
	! grep -q successful "$out" || { cat "$out"; false; }
	local spawned
	spawned=$(grep -c 'spawned t' "$VMDIR/pvmd.log")
	echo "# probe answered with $spawned of 4096 spawned" >&3
	[ "$spawned" -lt 4096 ]
	wait "$pid"
	cat "$out"
	grep -q '^4096 successful$' "$out"
}
