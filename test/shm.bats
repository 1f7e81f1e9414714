#!/usr/bin/env bats
# The shared-memory route (docs/shm.md): every message path over it with
# the data checked, order across a route switch, big and queued messages,
# deaths mid-stream, all-to-all, lost wake-ups, the CPU of a waiting
# receiver, PvmPollType/PvmPollTime, and no segment left in /dev/shm.

load helpers

setup() {
	[ -z "$REF" ] || skip "the reference has no shared-memory route"
	[ -z "${PVM_SHM:-}" ] || [ "$PVM_SHM" != 0 ] ||
		skip "PVM_SHM=0: the shared-memory route is off"
	vm_setup
}

teardown() {
	stop_vm # removes any inbox of this VM that is left, whatever happened
}

# spawn_deaf [ARG]: spawns `pt_shm child-deaf ARG` (a task that never
# receives or leaves) from the console, waits for its inbox and prints its
# pid.
spawn_deaf() {
	echo "spawn -> pt_shm child-deaf ${1:-}" | t "$CONSOLE" >/dev/null 2>&1 || true
	wait_until 10 eval '[ -n "$(inboxes)" ]' || return 0
	vm_pids "$PVM_VMID" | while read -r p; do
		grep -qz child-deaf /proc/$p/cmdline 2>/dev/null && echo "$p"; done | head -n 1
}

@test "psend/precv, Raw, InPlace, Default and mcast over shared memory, data checked" {
	prog_ok pt_shm paths
}

@test "a message's wait id (pvm_setminfo) arrives with it, whole and streamed, with streaming off, and by the pvmd; a received message of every encoding takes more items" {
	prog_ok pt_shm wid
	PVM_SHM_STREAM=0 PVM_EXPORT=PVM_SHM_STREAM prog_ok pt_shm wid
	PVM_SHM=0 PVM_EXPORT=PVM_SHM prog_ok pt_shm wid
}

@test "the same paths with streaming off (the split copy), with the split off too, and with single copies off" {
	PVM_SHM_STREAM=0 PVM_EXPORT=PVM_SHM_STREAM prog_ok pt_shm paths
	PVM_SHM_STREAM=0 PVM_SHM_SPLIT=0 PVM_EXPORT=PVM_SHM_STREAM:PVM_SHM_SPLIT \
		prog_ok pt_shm paths
	PVM_SHM_DIRECT=0 PVM_EXPORT=PVM_SHM_DIRECT prog_ok pt_shm paths
}

@test "psend, Raw and InPlace in up to 5 pieces into a waiting pvm_precv, sizes around the bounce area's chunks, data checked" {
	prog_ok pt_stream paths
	PVM_SHM_STREAM=0 PVM_EXPORT=PVM_SHM_STREAM prog_ok pt_stream paths
}

@test "16 MiB into a pvm_precv that sleeps, both ways: the sender wakes it and it arrives whole" {
	prog_ok pt_stream asleep
}

@test "a receiver stopped in pvm_precv, asleep or spinning: the sender writes 16 MiB alone, whole after SIGCONT; one continued during a 64 MiB send takes the rest" {
	prog_ok pt_stream stopped
}

@test "a sender killed while it streams into our pvm_precv: its exit notify ends the wait, nothing else arrives" {
	prog_ok pt_stream killsend
}

@test "a receiver killed while we stream into its pvm_precv: pvm_psend returns, the exit notify comes" {
	prog_ok pt_stream killrecv
}

@test "a sender stopped for a second while it streams into our pvm_precv: we wait without burning a core, the message is whole" {
	prog_ok pt_stream stall
}

@test "a task under valgrind sees a message copied straight into its pvm_precv buffer as initialised" {
	command -v valgrind >/dev/null || skip "valgrind is not installed"
	grep -q '^#define HAVE_VALGRIND_MEMCHECK_H 1' "$B/config.h" ||
		skip "built without valgrind/memcheck.h"
	run t valgrind -q --error-exitcode=9 "$TESTTMP/bin/pt_shm" uninit
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
}

@test "PVM_SHM=0: the same paths through the pvmd, no inbox mapped" {
	PVM_SHM=0 prog_ok pt_shm paths
}

@test "messages that start on the pvmd route and go on over shared memory stay in order" {
	prog_ok pt_shm switch
}

@test "a 1 GiB message over shared memory" {
	TMO=180 prog_ok pt_shm big 1024
}

@test "large send buffers queued for a receiver not reading yet, then grown, freed and reused: every message arrives as sent" {
	prog_ok pt_shm lend
}

@test "a fast sender and a slow receiver: nothing lost, the sender queues a copy" {
	prog_ok pt_shm slow 2000 64
}

@test "two tasks send 128 MiB to each other before either receives: no deadlock" {
	TMO=120 prog_ok pt_shm mutual 128
}

@test "a sender killed mid-stream: the receiver gets its exit notify and goes on" {
	prog_ok pt_shm killsend
	# every task of it has gone, the killed one too: no inbox stays
	wait_until 5 eval '[ -z "$(inboxes)" ]' || { inboxes; false; }
}

@test "a sender that stops pushing a stream (busy outside PVM): the receiver pulls the rest at once, for Raw, Default and psend" {
	prog_ok pt_pull stalled
}

@test "streams pushed and pulled in turn: 300 messages with random pauses on both sides arrive in order, every byte checked" {
	TMO=120 prog_ok pt_pull churn
}

@test "a sender killed while it streams or while we pull from it: only whole messages, the exit notify, the VM goes on" {
	prog_ok pt_pull killsend
	wait_until 5 eval '[ -z "$(inboxes)" ]' || { inboxes; false; }
}

@test "senders that call pvm_exit right after a 3 MiB send, while we receive or sleep: each message arrives once, whole" {
	prog_ok pt_pull exit
}

@test "a receiver killed mid-stream: the sender gets its exit notify, sends still succeed" {
	prog_ok pt_shm killrecv
}

@test "pvm_exit with 200 MiB queued for a task that never reads returns" {
	prog_ok pt_shm exitdeaf
}

@test "16 tasks all-to-all, 500 messages to every peer, order and data checked" {
	TMO=300 prog_ok pt_order 16 500 pvmd
	[[ "$output" == *"16 workers, 120000 messages checked"* ]]
}

@test "random pauses on both sides never lose a wake-up" {
	TMO=120 prog_ok pt_shm stress 5000
}

@test "messages from a sender that exits right after sending end the wait (no sleep on a full queue)" {
	# the receiver naps between its last look at the rings and the look
	# before sleeping, where it finds the sender dead and drains its ring
	PVM_SHM_TEST_NAP=150000 prog_ok pt_shm exitsend 5
}

@test "a receiver blocked in pvm_recv does not burn a core" {
	prog_ok pt_shm cpu
}

@test "two tasks on one CPU: the waiting side sleeps instead of spinning" {
	# both pinned to one CPU, the child computing 200 us a message; the
	# receiver's CPU time while it waits stays under a tenth of the wait
	prog_ok pt_shm oversub 2000
	printf '%s\n' "$output" | grep '^waiting' | sed 's/^/# /' >&3
}

@test "a task that ignores SIGTERM is SIGKILLed at halt, and no inbox stays" {
	local pid
	pid=$(spawn_deaf noterm)
	[ -n "$pid" ]
	# SIGTERM (15) is bit 14 of the mask of ignored signals
	local ign
	ign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$pid/status")
	(( (0x$ign >> 14) & 1 ))
	echo halt | t "$CONSOLE" >/dev/null 2>&1 || true
	wait_until 10 eval '! pvmd_alive'
	grep -q "still running after .*SIGKILL" "$VMDIR/pvmd.log"
	# the pvmd removed the inboxes after the task was gone
	if kill -0 "$pid" 2>/dev/null; then
		echo "task $pid still there"
		false
	fi
	[ -z "$(inboxes)" ] || { inboxes; false; }
}

@test "PvmPollType and PvmPollTime through pvm_setopt / pvm_getopt" {
	prog_ok pt_shm opts
}

@test "no inbox is left in /dev/shm after a SIGKILLed task and after halt" {
	run t "$TESTTMP/bin/pt_shm" paths
	[ "$status" -eq 0 ]
	# a task that never leaves; then kill -9
	local pid
	pid=$(spawn_deaf)
	[ -n "$pid" ]
	kill -KILL "$pid"
	# the pvmd sees it die and removes its inbox
	wait_until 10 eval '[ -z "$(inboxes)" ]' || { inboxes; false; }
	# a crashed task's name (left on purpose) goes at halt
	touch "/dev/shm/$(inbox_prefix)4abcd"
	echo halt | t "$CONSOLE" >/dev/null 2>&1 || true
	wait_until 5 eval '! pvmd_alive'
	[ -z "$(inboxes)" ] || { inboxes; false; }
}
