#!/usr/bin/env bats
# pvmrun, the one-shot launcher (launcher/pvmrun.1): a private machine,
# the job's output tagged by task and host, one line per failed task, the
# exit status of the first failure, signals forwarded, the timeout, and
# nothing left behind.  pt_run (test/progs/pt_run.c) plays the jobs;
# Debian's master1/slave1 run as a master job on our library.

load helpers

setup() {
	pvm_test_env
	RUN=$B/launcher/pvmrun
	HOST=$(hostname)
	ulimit -c 0 # "killed by signal 11 (SIGSEGV)", never "core dumped"
}

teardown() {
	# a failed test may leave a private machine: its name starts with
	# ours (vm.c), so its processes carry that prefix
	local f p
	for f in /proc/[0-9]*/environ; do
		grep -qzE "^PVM_VMID=$PVM_VMID-pvmrun-" "$f" 2>/dev/null || continue
		p=${f#/proc/}
		kill -KILL "${p%/environ}" 2>/dev/null || true
	done
	ls /dev/shm 2>/dev/null | grep -F "pvm.$(id -u).$PVM_VMID-pvmrun-" |
		sed 's|^|/dev/shm/|' | xargs -r rm -f
	stop_vm
}

# pvmrun ARGS...: runs it, stdout in $TESTTMP/out, stderr in
# $TESTTMP/err, status in $status.
pvmrun() {
	status=0
	timeout -k 5 "$TMO" "$RUN" "$@" >"$TESTTMP/out" 2>"$TESTTMP/err" || status=$?
	echo "status: $status"
	echo "--- stdout"
	cat "$TESTTMP/out"
	echo "--- stderr"
	cat "$TESTTMP/err"
}

# nothing_left: no private machine's directory, inbox or process.
nothing_left() {
	local left
	left=$(ls -A "$PVM_TMP")
	[ -z "$left" ] || { echo "left in PVM_TMP: $left"; return 1; }
	left=$(ls /dev/shm | grep -F "pvm.$(id -u).$PVM_VMID-pvmrun-" || true)
	[ -z "$left" ] || { echo "left in /dev/shm: $left"; return 1; }
	left=$(grep -lzE "^PVM_VMID=$PVM_VMID-pvmrun-" /proc/[0-9]*/environ 2>/dev/null || true)
	[ -z "$left" ] || { echo "processes left: $left"; return 1; }
}

@test "pvmrun -n 3: each task's lines tagged [tid@host], status 0, nothing left" {
	skip_if_ref
	pvmrun -n 3 pt_run ok
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$TESTTMP/out")" -eq 3 ]
	local tid
	for tid in 40002 40003 40004; do
		grep -qxF "[t$tid@$HOST] ok from t$tid" "$TESTTMP/out"
	done
	[ ! -s "$TESTTMP/err" ]
	nothing_left
}

@test "one task: its output unchanged; exit status 3 and the failure line" {
	skip_if_ref
	pvmrun pt_run exit 3
	[ "$status" -eq 3 ]
	[ "$(cat "$TESTTMP/out")" = "exiting 3" ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: t40002 (pt_run on $HOST) exited with status 3" ]
	nothing_left
}

@test "a task killed by SIGSEGV: status 139 and the signal's name" {
	skip_if_ref
	pvmrun pt_run segv
	[ "$status" -eq 139 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: t40002 (pt_run on $HOST) killed by signal 11 (SIGSEGV)" ]
	nothing_left
}

@test "--tag-output with one task, --no-tag-output with two" {
	skip_if_ref
	pvmrun --tag-output pt_run ok
	[ "$status" -eq 0 ]
	[ "$(cat "$TESTTMP/out")" = "[t40002@$HOST] ok from t40002" ]
	pvmrun --no-tag-output -n 2 pt_run ok
	[ "$status" -eq 0 ]
	[ "$(sort "$TESTTMP/out")" = "$(printf 'ok from t40002\nok from t40003')" ]
}

@test "a task that calls pvm_exit and then exits 4: its process's status counts" {
	skip_if_ref
	pvmrun pt_run leave 4
	[ "$status" -eq 4 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: t40002 (pt_run on $HOST) exited with status 4" ]
}

@test "--master: Debian's master1 and its slave1 workers, their output, status 0" {
	skip_if_ref
	[ -x /usr/bin/master1 ] || skip "pvm-examples is not installed"
	LD_LIBRARY_PATH=$OURLIB pvmrun --master --summary master1
	[ "$status" -eq 0 ]
	grep -qxF "[t40002@$HOST] Spawning 3 worker tasks ... SUCCESSFUL" "$TESTTMP/out"
	local i
	for i in 100 200 300; do
		grep -qE "^\[t40002@$HOST\] I got $i\.000000 from [0-2]; \(expecting $i\.000000\)\$" "$TESTTMP/out"
	done
	[ "$(wc -l <"$TESTTMP/out")" -eq 4 ]
	grep -qxF "pvmrun: summary: 4 tasks on 1 host in $(sed -n 's/.* in \([0-9.]*\) s:.*/\1/p' "$TESTTMP/err") s: 4 succeeded, 0 failed" "$TESTTMP/err"
	[ "$(grep -c ' t40002 *slave1 .* exited with status 0$' "$TESTTMP/err")" -eq 3 ]
	nothing_left
}

@test "--master whose workers crash or exit non-zero: each failure reported and counted" {
	skip_if_ref
	pvmrun --master --summary pt_run master ok "exit 3" segv "leave 5"
	# the first failure's status: which worker ends first is not fixed
	[ "$status" -eq 3 ] || [ "$status" -eq 139 ]
	grep -qxF "[t40002@$HOST] master: 4 workers" "$TESTTMP/out"
	grep -qxF "[t40002@$HOST] master: all workers ended" "$TESTTMP/out"
	grep -qxF "[t40003@$HOST] ok from t40003" "$TESTTMP/out"
	grep -qxF "[t40005@$HOST] crashing" "$TESTTMP/out"
	grep -qxF "pvmrun: t40004 (pt_run on $HOST) exited with status 3" "$TESTTMP/err"
	grep -qxF "pvmrun: t40005 (pt_run on $HOST) killed by signal 11 (SIGSEGV)" "$TESTTMP/err"
	grep -qxF "pvmrun: t40006 (pt_run on $HOST) exited with status 5" "$TESTTMP/err"
	grep -qE "^pvmrun: summary: 5 tasks on 1 host in [0-9.]+ s: 2 succeeded, 3 failed\$" "$TESTTMP/err"
	grep -qxF "TID       PARENT    PROGRAM          HOST              SECONDS  END" "$TESTTMP/err"
	grep -qE "^t40005 +t40002 +pt_run +$HOST +[0-9.]+  killed by signal 11 \(SIGSEGV\)\$" "$TESTTMP/err"
	nothing_left
}

# start_bg ARGS...: pvmrun in the background ($BG), once its tasks all
# said "waiting" (N of them, $1).
start_bg() {
	local n=$1
	shift
	"$RUN" "$@" >"$TESTTMP/out" 2>"$TESTTMP/err" &
	BG=$!
	wait_until 20 eval '[ "$(grep -c waiting "$TESTTMP/out")" -ge '"$n"' ]'
}

@test "Ctrl-C (SIGINT) is forwarded to every task: status 130, nothing left" {
	skip_if_ref
	start_bg 2 -n 2 pt_run wait
	kill -INT "$BG"
	local st=0
	wait "$BG" || st=$?
	cat "$TESTTMP/out" "$TESTTMP/err"
	[ "$st" -eq 130 ]
	grep -qxF "pvmrun: got SIGINT: stopping the job" "$TESTTMP/err"
	grep -qxF "pvmrun: t40002 (pt_run on $HOST) killed by signal 2 (SIGINT)" "$TESTTMP/err"
	grep -qxF "pvmrun: t40003 (pt_run on $HOST) killed by signal 2 (SIGINT)" "$TESTTMP/err"
	nothing_left
}

@test "SIGTERM is forwarded: tasks that catch it end cleanly, their status counts" {
	skip_if_ref
	start_bg 2 -n 2 pt_run trap
	kill -TERM "$BG"
	local st=0
	wait "$BG" || st=$?
	cat "$TESTTMP/out" "$TESTTMP/err"
	[ "$st" -eq 7 ]
	grep -qxF "pvmrun: got SIGTERM: stopping the job" "$TESTTMP/err"
	[ "$(grep -c '^\[t4000[23]@.*\] caught SIGTERM$' "$TESTTMP/out")" -eq 2 ]
	grep -qxF "pvmrun: t40002 (pt_run on $HOST) exited with status 7" "$TESTTMP/err"
	nothing_left
}

@test "--timeout: the job is stopped, status 124" {
	skip_if_ref
	pvmrun --timeout 0.5 pt_run wait
	[ "$status" -eq 124 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: timeout: the job ran for 0.5 s; stopping it" ]
	[ "$(sed -n 2p "$TESTTMP/err")" = "pvmrun: t40002 (pt_run on $HOST) killed by signal 15 (SIGTERM)" ]
	nothing_left
}

@test "a program found nowhere: status 127, the pvmd's spawn path named" {
	skip_if_ref
	pvmrun nosuchprog
	[ "$status" -eq 127 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: cannot start nosuchprog: not found in the pvmd's PVM_PATH ($PVM_PATH) nor in PATH" ]
	pvmrun ./nosuch
	[ "$status" -eq 127 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: cannot start ./nosuch: No such file or directory" ]
	nothing_left
}

@test "bad command lines: status 2 and the reason" {
	pvmrun -n 0 pt_run ok
	[ "$status" -eq 2 ]
	[ "$(cat "$TESTTMP/err")" = "$(printf '%s\n' "pvmrun: -n needs a count from 1" "Try 'pvmrun --help'.")" ]
	pvmrun --master -n 2 pt_run ok
	[ "$status" -eq 2 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: --master starts one task: not with -n" ]
	pvmrun --bogus pt_run
	[ "$status" -eq 2 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: unknown option --bogus" ]
	pvmrun -n 2
	[ "$status" -eq 2 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: no program to run" ]
	# a host name the pvmd would read as a hostfile line with more
	pvmrun --host "node2 lo=x,node3" pt_run ok
	[ "$status" -eq 2 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: bad host name 'node2 lo=x'" ]
	pvmrun --host node2,-oProxyCommand=x pt_run ok
	[ "$status" -eq 2 ]
	[ "$(sed -n 1p "$TESTTMP/err")" = "pvmrun: bad host name '-oProxyCommand=x'" ]
}

@test "--join runs in the machine of PVM_VMID and leaves it running" {
	skip_if_ref
	pvmrun --join pt_run ok
	[ "$status" -eq 1 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: --join: no virtual machine runs (PVM_VMID=$PVM_VMID)" ]
	start_pvmd
	pvmrun --join -n 2 pt_run ok
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$TESTTMP/out")" -eq 2 ]
	pvmd_alive
}

@test "--host: the local host by name; a host that cannot be added fails the run" {
	skip_if_ref
	pvmrun --host "localhost,$HOST" -n 2 pt_run ok
	[ "$status" -eq 0 ]
	grep -qxF "[t40002@$HOST] ok from t40002" "$TESTTMP/out"
	grep -qxF "[t40003@$HOST] ok from t40003" "$TESTTMP/out"
	# the reason: the pvmd's, with the remote shell's words if any
	PVM_RSH=false pvmrun --host 127.0.0.2 pt_run ok
	[ "$status" -eq 1 ]
	grep -qxF "pvmrun: cannot add host 127.0.0.2: Can't start pvmd: the remote command ended without starting a pvmd" "$TESTTMP/err"
	[ ! -s "$TESTTMP/out" ]
	nothing_left
}

@test "--hostfile (a relative path): its hosts, '&' ones left out; one that cannot be added fails the run" {
	skip_if_ref
	cd "$TESTTMP"
	# the copy pvmrun gives its pvmd goes where TMPDIR says: checked
	# for below
	export TMPDIR=$PVM_TMP
	printf '%s\n' "# this host only" "$HOST sp=2000" "& nosuchhost.invalid" >hf
	pvmrun --hostfile hf -n 2 pt_run ok
	[ "$status" -eq 0 ]
	grep -qxF "[t40002@$HOST] ok from t40002" "$TESTTMP/out"
	grep -qxF "[t40003@$HOST] ok from t40003" "$TESTTMP/out"
	[ ! -s "$TESTTMP/err" ]
	nothing_left
	printf '%s\n' "127.0.0.2" >hf
	PVM_RSH=false pvmrun --hostfile hf -n 2 pt_run ok
	[ "$status" -eq 1 ]
	[ ! -s "$TESTTMP/out" ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: adding 1 host...
pvmrun: cannot add host 127.0.0.2: Can't start pvmd: the remote command ended without starting a pvmd" ]
	nothing_left
}

@test "--hostfile that cannot be read or has a bad line: status 1, the file and line named, nothing started" {
	skip_if_ref
	cd "$TESTTMP"
	pvmrun --hostfile nosuch -n 2 pt_run ok
	[ "$status" -eq 1 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: nosuch: No such file or directory" ]
	printf '%s\n' "$HOST" "node2 bogus=1" >hf
	pvmrun --hostfile hf -n 2 pt_run ok
	[ "$status" -eq 1 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: hf:2: unknown option 'bogus=1'" ]
	printf '%s\n' "node2" "node2" >hf
	pvmrun --hostfile hf -n 2 pt_run ok
	[ "$status" -eq 1 ]
	[ "$(cat "$TESTTMP/err")" = "pvmrun: hf:2: host node2 is listed twice" ]
	[ ! -s "$TESTTMP/out" ]
	nothing_left
}

@test "a pvmd that fails after making its directory: status 1, the directory removed" {
	skip_if_ref
	# a pvmd that cannot read the hostfile it is given fails once its
	# directory, lock file and log are made
	printf '#!/bin/sh\nexec %s %s/nosuch-hostfile\n' "$PVMD_BIN" "$TESTTMP" >"$TESTTMP/badpvmd"
	chmod +x "$TESTTMP/badpvmd"
	PVM_PVMD=$TESTTMP/badpvmd pvmrun pt_run ok
	[ "$status" -eq 1 ]
	[ "$(cat "$TESTTMP/err")" = "pvmd: $TESTTMP/nosuch-hostfile: No such file or directory
pvmrun: cannot start a pvmd: Can't start pvmd" ]
	nothing_left
}
