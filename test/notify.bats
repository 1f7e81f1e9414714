#!/usr/bin/env bats
# pvm_notify on one host, as the reference PVM 3.4.6 answers it (issue 20):
# every kind with task tids, pvmd tids, tids of hosts that are not in the
# machine, tasks that have exited, several tids in one call, cancels and
# contexts.  Each test runs test/progs/pt_notify with a script and compares
# its whole transcript (every call's result, and every message that came:
# tag, source and body) with the reference's, which PVM_TEST_REF=1 (make
# check-tests-ref) checks against the reference itself.  Names in the
# transcripts: "me" is pt_notify, a..c its partners, dK the pvmd of host K,
# tK.N task N of host K (pt_notify.c says more).  Waits of 0.5 s see
# nothing arrive where nothing may: a message that came later would show
# in the next step's receive, and the last one waits a whole second.

load helpers

setup() {
	vm_setup
}

teardown() {
	stop_vm
}

# notify_script STEP... <<EOF transcript EOF: runs pt_notify with the
# steps and expects exactly that transcript.
notify_script() {
	local want
	want=$(cat)
	run t "$TESTTMP/bin/pt_notify" "$@" </dev/null
	echo "status: $status"
	output_is "$want"
	[ "$status" -eq 0 ]
}

@test "PvmHostDelete on the caller's own tid: nothing comes while its host is up" {
	# the issue's program: a master watching the host of a task
	notify_script notify HD 77 me recv 1 0 <<'EOF'
notify HD 77 me = 0
recv: 0
EOF
}

@test "PvmHostDelete on this host's pvmd, a task of it that never was, one that exited: nothing comes" {
	notify_script spawn a exit a notify HD 78 d1 notify HD 79 t1.77 \
		notify HD 80 a notify HD 81 0x40000 recv 1 0 <<'EOF'
spawn a ready
exit a = 0
notify HD 78 d1 = 0
notify HD 79 t1.77 = 0
notify HD 80 a = 0
notify HD 81 0x40000 = 0
recv: 0
EOF
}

@test "PvmHostDelete on a host not in the machine: the notify comes at once with the tid named" {
	notify_script notify HD 80 d3 recv 0.5 0 notify HD 81 t3.1 recv 0.5 0 \
		notify HD 82 0x80000000 recv 0.5 0 notify HD 83 0 recv 0.5 0 \
		notify HD 84 d3,t1.5,t5.2 recv 1 0 <<'EOF'
notify HD 80 d3 = 0
got tag 80 src d0 body d3
recv: 1
notify HD 81 t3.1 = 0
got tag 81 src d0 body t3.1
recv: 1
notify HD 82 0x80000000 = 0
got tag 82 src d0 body d0
recv: 1
notify HD 83 0 = 0
got tag 83 src d0 body 0x0
recv: 1
notify HD 84 d3,t1.5,t5.2 = 0
got tag 84 src d0 body d3
got tag 84 src d0 body t5.2
recv: 2
EOF
}

@test "PvmHostDelete: one registration per tid; a cancel takes the oldest of that host, whichever of its tids it names" {
	notify_script notify HD 77 me,d1,me recv 0.5 0 \
		notify '~HD' 77 d1 recv 0.5 0 \
		notify '~HD' 77 me recv 0.5 0 notify '~HD' 77 me recv 0.5 0 \
		notify '~HD' 77 me recv 0.5 0 notify '~HD' 78 me recv 0.5 0 \
		notify '~HD' 77 d3 recv 0.5 0 \
		notify HD 53 t1.1000,d2,t2.5,me,0x40000 recv 0.5 0 \
		notify '~HD' 53 0x40005,d2,t2.5 recv 0.5 0 \
		notify '~HD' 53 me,me,me recv 1 0 <<'EOF'
notify HD 77 me,d1,me = 0
recv: 0
notify ~HD 77 d1 = 0
got tag 77 src d0 body me
recv: 1
notify ~HD 77 me = 0
got tag 77 src d0 body d1
recv: 1
notify ~HD 77 me = 0
got tag 77 src d0 body me
recv: 1
notify ~HD 77 me = 0
recv: 0
notify ~HD 78 me = 0
recv: 0
notify ~HD 77 d3 = 0
recv: 0
notify HD 53 t1.1000,d2,t2.5,me,0x40000 = 0
got tag 53 src d0 body d2
got tag 53 src d0 body t2.5
recv: 2
notify ~HD 53 0x40005,d2,t2.5 = 0
got tag 53 src d0 body t1.1000
recv: 1
notify ~HD 53 me,me,me = 0
got tag 53 src d0 body me
got tag 53 src d0 body 0x40000
recv: 2
EOF
}

@test "PvmTaskExit: kill, pvm_exit, already gone, a host not in the machine; pvmd tids and 0 refused" {
	notify_script spawn a spawn b notify TE 70 d1 notify TE 71 0 \
		notify TE 72 t3.1 recv 0.5 0 notify TE 73 t1.77 recv 0.5 0 \
		notify TE 74 a recv 0.5 0 kill a recv 0.5 0 \
		notify TE 75 b recv 0.5 0 exit b recv 0.5 0 \
		notify TE 76 a,b recv 1 0 <<'EOF'
spawn a ready
spawn b ready
notify TE 70 d1 = -2
notify TE 71 0 = -2
notify TE 72 t3.1 = 0
got tag 72 src d0 body t3.1
recv: 1
notify TE 73 t1.77 = 0
got tag 73 src d0 body t1.77
recv: 1
notify TE 74 a = 0
recv: 0
kill a = 0
got tag 74 src d0 body a
recv: 1
notify TE 75 b = 0
recv: 0
exit b = 0
got tag 75 src d0 body b
recv: 1
notify TE 76 a,b = 0
got tag 76 src d0 body a
got tag 76 src d0 body b
recv: 2
EOF
}

@test "PvmTaskExit: several tids and one tid twice, one notify per registration; a cancel delivers the oldest one" {
	notify_script spawn a spawn b spawn c notify TE 74 a,b,a recv 0.5 0 \
		notify '~TE' 74 a recv 0.5 0 kill a recv 0.5 0 \
		notify '~TE' 74 b,b recv 0.5 0 exit b recv 0.5 0 \
		notify TE 75 c,me,b recv 0.5 0 notify HD 76 c recv 0.5 0 \
		notify '~TE' 75 me recv 1 0 <<'EOF'
spawn a ready
spawn b ready
spawn c ready
notify TE 74 a,b,a = 0
recv: 0
notify ~TE 74 a = 0
got tag 74 src d0 body a
recv: 1
kill a = 0
got tag 74 src d0 body a
recv: 1
notify ~TE 74 b,b = 0
got tag 74 src d0 body b
recv: 1
exit b = 0
recv: 0
notify TE 75 c,me,b = 0
got tag 75 src d0 body b
recv: 1
notify HD 76 c = 0
recv: 0
notify ~TE 75 me = 0
got tag 75 src d0 body me
recv: 1
EOF
}

@test "a notify comes in the context of its pvm_notify call; a cancel from another context matches nothing" {
	notify_script spawn a ctx new notify TE 60 a notify HD 61 me ctx base \
		notify '~TE' 60 a notify '~HD' 61 me recv 0.5 0 \
		notify TE 60 a notify HD 61 me ctx new recv 0.5 0 \
		notify '~TE' 60 a notify '~HD' 61 d1 recv 0.5 0 ctx base \
		recv 0.5 0 kill a recv 0.5 0 ctx new recv 1 0 <<'EOF'
spawn a ready
ctx new ok
notify TE 60 a = 0
notify HD 61 me = 0
ctx base
notify ~TE 60 a = 0
notify ~HD 61 me = 0
recv: 0
notify TE 60 a = 0
notify HD 61 me = 0
ctx new ok
recv: 0
notify ~TE 60 a = 0
notify ~HD 61 d1 = 0
got tag 60 src d0 body a
got tag 61 src d0 body me
recv: 2
ctx base
recv: 0
kill a = 0
got tag 60 src d0 body a
recv: 1
ctx new ok
recv: 0
EOF
}

@test "PvmHostAdd on one host: registering, a count of 0 and a cancel send nothing" {
	notify_script notify HA 50 -1 notify HA 51 2 notify HA 51 0 \
		notify '~HA' 50 0 notify HA 52 -5 recv 1 0 <<'EOF'
notify HA 50 -1 = 0
notify HA 51 2 = 0
notify HA 51 0 = 0
notify ~HA 50 0 = 0
notify HA 52 -5 = 0
recv: 0
EOF
}

@test "a halt sends no PvmHostDelete notify, even to a task that outlives its SIGTERM" {
	local out=$BATS_TEST_TMPDIR/out
	t "$TESTTMP/bin/pt_notify" nosigterm notify HD 77 me,d1 notify TE 78 me \
		mark armed recv 5 0 >"$out" 2>&1 </dev/null &
	local pid=$!
	wait_until 20 grep -qx armed "$out"
	# the reference's halt SIGTERMs the console too
	console halt >/dev/null || true
	wait "$pid" || true
	cat "$out"
	grep -qx armed "$out"
	! grep -q '^got ' "$out"
}
