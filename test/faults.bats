#!/usr/bin/env bats
# Fault injection (issue 24) on four hosts.bash hosts: test/faults.bash
# drives `pt_chaos` (test/progs/pt_chaos.c) while it kills, stops and cuts
# tasks, pvmds and links at random from a seed; every message between
# survivors must arrive once, in order and intact, every death must be
# notified, no pvmd may crash, and `halt` must leave nothing behind.
# FAULT_SEEDS (default 24) and FAULT_TIME (seconds of faults per seed,
# default 60) choose the job; `make check-faults` runs a long one.  On a
# tree built with --enable-sanitizers (test/run.sh's sanitizer pass) every
# pvmd and task runs instrumented, and a report of AddressSanitizer,
# LeakSanitizer or UBSan fails the test.

load helpers
load hosts
load faults

setup_file() {
	# the sanitizers' reports go where every host can write them
	local lp
	export FAULT_ASAN=
	if grep -q libasan "$PVMD_BIN" 2>/dev/null; then
		FAULT_ASAN=1
		if [[ "${ASAN_OPTIONS:-}" != *log_path=* ]]; then
			mkdir -p "$BATS_FILE_TMPDIR/asan"
			export ASAN_OPTIONS="detect_leaks=1:handle_abort=1:log_path=$BATS_FILE_TMPDIR/asan/asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
			export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}
			export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$abs_top_srcdir/test/lsan.supp:print_suppressions=0}
		fi
		lp=$(printf '%s\n' "$ASAN_OPTIONS" | tr ':' '\n' | sed -n 's/^log_path=//p' | tail -n 1)
		export FAULT_ASAN_LOG=$lp
		export HOSTS_KEEP="${HOSTS_KEEP:-} $(dirname "$lp")"
	fi
	hosts_file_setup "$FAULT_HOSTS"
	[ -n "${HOSTS_SKIP:-}" ] || echo "# hosts_up $FAULT_HOSTS took $HOSTS_UP_SECONDS s" >&3
	export FAULT_BIN=$BATS_FILE_TMPDIR/bin
	hosts_bin "$FAULT_BIN"
	# ssh passes no environment: the pvmds get the sanitizers' options
	# from a wrapper named by the hostfile's dx=
	export FAULT_PVMD=$PVMD_BIN
	if [ -n "$FAULT_ASAN" ]; then
		FAULT_PVMD=$BATS_FILE_TMPDIR/pvmd-san
		{
			echo '#!/bin/sh'
			printf "export ASAN_OPTIONS='%s' UBSAN_OPTIONS='%s' LSAN_OPTIONS='%s'\n" \
				"$ASAN_OPTIONS" "${UBSAN_OPTIONS:-}" "${LSAN_OPTIONS:-}"
			printf "exec '%s' \"\$@\"\n" "$PVMD_BIN"
		} >"$FAULT_PVMD"
		chmod 755 "$FAULT_PVMD"
	fi
	return 0
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "the fault-injection job runs ours only"
	hosts_vm_env fault "$FAULT_BIN"
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	local k p
	for ((k = 1; k <= FAULT_HOSTS; k++)); do host_uncut "$k" 2>/dev/null || true; done
	for p in $(vm_pids "$PVM_VMID"); do kill -CONT "$p" 2>/dev/null || true; done
	hosts_vm_stop "$FAULT_HOSTS"
	return 0
}

# san_reports: the sanitizer reports written since san_mark.
san_mark() {
	SAN_BEFORE=
	[ -z "${FAULT_ASAN_LOG:-}" ] || SAN_BEFORE=$(ls "$FAULT_ASAN_LOG".* "${FAULT_ASAN_LOG%/*}"/ubsan.* 2>/dev/null | sort)
}
san_reports() {
	[ -n "${FAULT_ASAN_LOG:-}" ] || return 0
	comm -13 <(printf '%s\n' "$SAN_BEFORE") \
		<(ls "$FAULT_ASAN_LOG".* "${FAULT_ASAN_LOG%/*}"/ubsan.* 2>/dev/null | sort) | sed '/^$/d'
}

# fault_check_fails DIR FILE SEDCMD WANT: fault_check on a copy of DIR
# whose FILE SEDCMD spoiled fails, saying WANT.
fault_check_fails() {
	rm -rf "$1.broken" && cp -r "$1" "$1.broken" &&
		sed -i "$3" "$1.broken/$2" || return 1
	if fault_check "$1.broken" >"$1.broken/out"; then
		echo "fault_check passed on $2 with '$3'"
		return 1
	fi
	grep -qF "$4" "$1.broken/out" || { cat "$1.broken/out"; return 1; }
}

@test "the accounting sees one message dropped, duplicated or damaged on purpose" {
	local d=$BATS_TEST_TMPDIR mode k
	{
		echo "* ep=$FAULT_BIN dx=$FAULT_PVMD"
		for ((k = 2; k <= FAULT_HOSTS; k++)); do echo "h$k"; done
	} >"$d/hostfile"
	on_host 1 timeout -k 5 30 "$FAULT_PVMD" "$d/hostfile" </dev/null >/dev/null 2>&1
	wait_until 60 eval '[ "$(printf "conf\n" | on_host 1 timeout 10 "$CONSOLE" 2>/dev/null | grep -c " LINUX")" -ge 4 ]'
	for mode in drop dup corrupt; do
		rm -f "$d/stop"
		(sleep 5 && touch "$d/stop") &
		run on_host 1 timeout -k 5 120 "$FAULT_BIN/pt_chaos" master 1 10 "$d/stop" 60 "$mode"
		printf '%s\n' "$output" | grep -E '^(problem|verdict|accounting: [0-9])'
		[ "$status" -eq 1 ]
		printf '%s\n' "$output" | grep -Eq '^verdict FAIL \([0-9]+ problems\)$'
		# one spoiled message on each of the first worker's 3 streams
		case $mode in
		drop) [ "$(printf '%s\n' "$output" | grep -Ec '^problem: stream .*gaps 1 dups 0 bad 0$')" -eq 3 ] ;;
		dup) [ "$(printf '%s\n' "$output" | grep -Ec '^problem: stream .*gaps 0 dups 1 bad 0$')" -eq 3 ] ;;
		corrupt) [ "$(printf '%s\n' "$output" | grep -Ec '^problem: stream .*gaps 0 dups 0 bad 1$')" -eq 3 ] ;;
		esac
	done
	# and with nothing spoiled, nothing is seen
	rm -f "$d/stop"
	(sleep 5 && touch "$d/stop") &
	run on_host 1 timeout -k 5 120 "$FAULT_BIN/pt_chaos" master 1 10 "$d/stop" 60
	printf '%s\n' "$output" | grep -E '^(problem|verdict|accounting: [0-9])'
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -qx 'verdict OK'
}

@test "fault injection: tasks and pvmds killed and stopped, links cut, at random from a seed" {
	local seed fail=0 d
	san_mark
	for seed in ${FAULT_SEEDS:-24}; do
		hosts_vm_env fault "$FAULT_BIN"
		d=$BATS_TEST_TMPDIR/seed.$seed
		if ! fault_run "$seed" "${FAULT_TIME:-60}" "$d"; then
			fail=1
			echo "--- seed $seed failed; its master's problems and faults:"
			grep -E '^(problem|verdict)' "$d/master.out" || true
			cat "$d/faults.log"
		fi
		# the faults as they came, the accounting and the counts
		sed "s/^/# /" "$d/faults.log" "$d/summary" >&3
		# FAULT_KEEP: a directory to keep each seed's files in
		if [ -n "${FAULT_KEEP:-}" ]; then
			mkdir -p "$FAULT_KEEP" && rm -rf "$FAULT_KEEP/seed.$seed" &&
				cp -r "$d" "$FAULT_KEEP/seed.$seed" || true
		fi
		# the checks can fail: the same files without the verdict,
		# without the PvmTaskExit of a task killed, without the exit of
		# h1's pvmd in its log
		[ ! -s "$d/summary" ] || fault_check_fails "$d" master.out '/^verdict OK$/d' \
			"the job's verdict is not OK" || fail=1
		local t
		t=$(awk '$2 == "killtask" { print $3; exit }' "$d/faults.log")
		[ -z "$t" ] || fault_check_fails "$d" master.out "/^notify taskexit $t /d" \
			"no PvmTaskExit for the killed $t" || fail=1
		[ ! -s "$d/pvmd.h1.log" ] || fault_check_fails "$d" pvmd.h1.log '/ pvmd exiting$/d' \
			"never logged its exit" || fail=1
		hosts_vm_stop "$FAULT_HOSTS"
	done
	local r
	r=$(san_reports)
	if [ -n "$r" ]; then
		echo "sanitizer reports:"
		for f in $r; do echo "--- $f"; head -n 40 "$f"; done
		fail=1
	fi
	[ -z "$FAULT_ASAN" ] || echo "# sanitizers: $(printf '%s' "$r" | grep -c .) reports" >&3
	[ "$fail" -eq 0 ]
}
