#!/usr/bin/env bats
# Messaging between real tasks: matching, timeouts, psend/precv, mcast, a
# 1 GiB message, ordering under load on both routes, error codes.

load helpers

setup() {
	vm_setup
}

teardown() {
	stop_vm
}

@test "wildcards, earliest match first, nrecv, probe, recvf, bufinfo" {
	prog_ok pt_msg match
}

@test "pvm_trecv honours its timeout" {
	prog_ok pt_msg trecv
}

@test "psend/precv of every datatype, psend->recv, send->precv" {
	prog_ok pt_msg psend
}

@test "pvm_mcast reaches every task once" {
	prog_ok pt_msg mcast
}

@test "a 1 GiB message arrives intact" {
	TMO=180 prog_ok pt_msg big 1024
	if [ -z "$REF" ]; then
		# the pvmd forwards frames: it never holds the whole message
		local hwm
		hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$(pvmd_pid)/status")
		echo "# pvmd peak RSS ${hwm} kB" >&3
		[ "$hwm" -lt 1048576 ]
	fi
}

@test "a sender killed in the middle of a big message: nothing partial arrives, the VM goes on" {
	TMO=120 prog_ok pt_msg partial
}

@test "error codes; a send to an exited task succeeds" {
	prog_ok pt_msg errors
}

@test "receive calls reject bad tags and tids (pvm_recv(tid, -2) is PvmBadParam)" {
	skip_if_ref "the reference hangs in pvm_recv(tid, -2)"
	prog_ok pt_msg recvbad
}

@test "PvmRouteDirect opens a task-to-task connection; the default route does not" {
	skip_if_tran_forced
	without_shm
	prog_ok pt_msg direct
}

@test "order under load, pvmd route: 32 tasks all-to-all, 1000 messages to every peer" {
	skip_unless_tran pvmd
	without_shm
	TMO=300 prog_ok pt_order 32 1000 pvmd
	[[ "$output" == *"32 workers, 992000 messages checked"* ]]
}

@test "order under load, direct route: 32 tasks all-to-all, 1000 messages to every peer" {
	skip_unless_tran direct
	without_shm
	TMO=300 prog_ok pt_order 32 1000 direct
	[[ "$output" == *"32 workers, 992000 messages checked"* ]]
}

@test "order under load, shared memory (whatever PvmRoute says): 32 tasks all-to-all, 1000 messages to every peer" {
	skip_if_ref "the reference has no shared-memory route on this host"
	skip_unless_tran shm
	TMO=300 prog_ok pt_order 32 1000 pvmd
	[[ "$output" == *"32 workers, 992000 messages checked"* ]]
}

@test "a switch from the pvmd route to direct routes mid-stream keeps order" {
	without_shm
	TMO=120 prog_ok pt_order 6 4000 switch
	[[ "$output" == *"6 workers, 120000 messages checked"* ]]
}
