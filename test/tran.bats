#!/usr/bin/env bats
# The transport conformance suite (docs/architecture.md): the same cases
# of test/progs/pt_tran for every transport, each forced with PVM_TRAN
# (tcp: the direct transport with PVM_DIRECT_TCP=1), and each checked in
# the tasks' PVM_TRAN_REPORT: the transport under test carried messages,
# and no transport but it and the pvmd route (the last resort: what goes
# before a route is up, and peers the transport cannot reach) carried any.

load helpers

setup() {
	skip_if_ref "PVM_TRAN selects our transports"
	pvm_test_env
	start_pvmd
}

teardown() {
	stop_vm
}

# carried NAME: messages transport NAME carried, from the report.
carried() {
	sh "$abs_top_srcdir/test/tran-carried.sh" "$PVM_TRAN_REPORT" "$1"
}

# conform TRANSPORT CASE
conform() {
	local t=$1 sel=$1
	if [ "$t" = tcp ]; then
		sel=direct
		export PVM_DIRECT_TCP=1
		make_secret
	fi
	export PVM_TRAN=$sel PVM_TRAN_REPORT=$TESTTMP/tran.report
	TMO=180 prog_ok pt_tran "$2"
	local shm direct pvmd
	shm=$(carried shm) direct=$(carried direct) pvmd=$(carried pvmd)
	echo "# carried: shm $shm, direct $direct, pvmd $pvmd" >&3
	if [ "$2" = order ] && [ "$sel" != pvmd ]; then
		# the master's stream switched routes: both carried some of it
		local master line
		master=$(sed -n 's/^master //p' <<<"$output")
		line=$(grep "^$master " "$PVM_TRAN_REPORT")
		echo "# master: $line" >&3
		[[ "$line" == *" pvmd="[1-9]* ]]
		[[ "$line" == *" $sel="[1-9]* ]]
	fi
	case $sel in
	shm) [ "$shm" -gt 0 ] && [ "$direct" -eq 0 ] ;;
	direct) [ "$direct" -gt 0 ] && [ "$shm" -eq 0 ] ;;
	pvmd) [ "$pvmd" -gt 0 ] && [ "$shm" -eq 0 ] && [ "$direct" -eq 0 ] ;;
	esac
}

@test "shm: exchange of every encoding, 0 B to 1 MiB" { conform shm exchange; }
@test "shm: order across the switch from the pvmd route" { conform shm order; }
@test "shm: 1 MiB and 16 MiB both ways" { conform shm big; }
@test "shm: a sender killed mid-message" { conform shm killed; }
@test "shm: peers it cannot reach, tasks gone" { conform shm refused; }
@test "shm: a peer that exited while we were outside the library" { conform shm gone; }

@test "direct: exchange of every encoding, 0 B to 1 MiB" { conform direct exchange; }
@test "direct: order across the switch from the pvmd route" { conform direct order; }
@test "direct: 1 MiB and 16 MiB both ways" { conform direct big; }
@test "direct: a sender killed mid-message" { conform direct killed; }
@test "direct: peers it cannot reach, tasks gone" { conform direct refused; }
@test "direct: a peer that exited while we were outside the library" { conform direct gone; }

@test "tcp: exchange of every encoding, 0 B to 1 MiB" { conform tcp exchange; }
@test "tcp: order across the switch from the pvmd route" { conform tcp order; }
@test "tcp: 1 MiB and 16 MiB both ways" { conform tcp big; }
@test "tcp: a sender killed mid-message" { conform tcp killed; }
@test "tcp: peers it cannot reach, tasks gone" { conform tcp refused; }
@test "tcp: a peer that exited while we were outside the library" { conform tcp gone; }

@test "pvmd: exchange of every encoding, 0 B to 1 MiB" { conform pvmd exchange; }
@test "pvmd: order (no switch: the pvmd route all along)" { conform pvmd order; }
@test "pvmd: 1 MiB and 16 MiB both ways" { conform pvmd big; }
@test "pvmd: a sender killed mid-message" { conform pvmd killed; }
@test "pvmd: tasks gone" { conform pvmd refused; }
@test "pvmd: a peer that exited while we were outside the library" { conform pvmd gone; }
