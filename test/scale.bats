#!/usr/bin/env bats
# Scale: thousands of tasks enrolled on one host at once, and a pvmd that
# runs out of descriptors or processes, which must refuse spawns with
# PvmOutOfRes (man 3 pvm_spawn) and keep serving, never crash or strand
# the tasks it started.  The program is test/progs/pt_scale.

load helpers

setup() {
	pvm_test_env
}

teardown() {
	# a VM of another user: our console cannot halt it (not its uid)
	[ -z "${OTHER_USER_VM:-}" ] || kill "$(pvmd_pid)" 2>/dev/null || true
	stop_vm
}

# scale_run SECS MODE N [BATCH]: pt_scale against this test's pvmd, its
# measurements into the TAP stream as comments.
scale_run() {
	local secs=$1
	shift
	run timeout -k 5 "$secs" env PT_SCALE_PVMD_PID="$(pvmd_pid)" \
		"$PROGS/pt_scale" "$@"
	show
	printf '%s\n' "$output" | grep -E 'enrolled|VmRSS|started|gone' |
		sed 's/^/# /' >&3 || true
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
}

@test "4096 tasks enrolled at once: all listed by pvm_tasks, released, gone; the pvmd stays small" {
	skip_if_ref "the reference's pvmd dies at 506 tasks (docs/compat.md)"
	start_pvmd
	scale_run 300 all 4096 512
	pvmd_alive
	# the pvmd's memory with all of them enrolled, per task (docs/limits.md)
	local per
	per=$(printf '%s\n' "$output" | sed -n 's/.*: \([0-9.]*\) KiB per task$/\1/p')
	[ -n "$per" ]
	awk -v p="$per" 'BEGIN { exit !(p < 64) }'
	console conf | grep -q "1 host"
}

@test "a pvmd short of descriptors (ulimit -n 256) refuses the spawns that do not fit with PvmOutOfRes and keeps serving" {
	skip_if_ref "the reference's pvmd is not under test here"
	(ulimit -n 256 && start_pvmd) || false
	grep -q "^Max open files *256 *256" "/proc/$(pvmd_pid)/limits"
	# in one call, and in several
	scale_run 120 exhaust 300 300
	scale_run 120 exhaust 300 64
	pvmd_alive
	grep -qE "out of (descriptors|resources)" "$VMDIR/pvmd.log"
	console conf | grep -q "1 host"
}

@test "a pvmd short of processes (ulimit -u) refuses the spawns that do not fit with PvmOutOfRes and keeps serving" {
	skip_if_ref "the reference's pvmd is not under test here"
	# RLIMIT_NPROC does not bind root: run the VM as nobody
	[ "$(id -u)" = 0 ] || skip "needs root to run the pvmd as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	local nobody=65534 as=(setpriv --reuid 65534 --regid 65534 --clear-groups)
	"${as[@]}" test -x "$PROGS/pt_scale" -a -x "$PVMD_BIN" ||
		skip "the build tree is not readable by uid $nobody"
	[ "$(ps -u "$nobody" -o pid= | wc -l)" -lt 10 ] ||
		skip "uid $nobody runs processes already"
	chmod 755 "$TESTTMP"
	chown "$nobody:$nobody" "$PVM_TMP" "$HOME"
	VMDIR=$PVM_TMP/pvm.$nobody.$PVM_VMID
	OTHER_USER_VM=1
	local script=$TESTTMP/nproc.sh
	cat >"$script" <<-EOF
	ulimit -u 60 || exit 3
	"$PVMD_BIN" </dev/null >"$PVM_TMP/pvmd.out" 2>&1 || exit 4
	pid=\$(cat "$VMDIR/pvmd.pid")
	PT_SCALE_PVMD_PID=\$pid timeout -k 5 120 "$PROGS/pt_scale" exhaust 100 100
	EOF
	run timeout -k 5 150 "${as[@]}" bash "$script"
	show
	printf '%s\n' "$output" | grep -E 'enrolled|started' | sed 's/^/# /' >&3 || true
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
	pvmd_alive
	grep -q "out of resources" "$VMDIR/pvmd.log"
}
