#!/usr/bin/env bats
# pvmrun (launcher/pvmrun.1) on real hosts built by hosts.bash: h1, h2 and
# h3, each with its own name, address, /tmp, /dev/shm and sshd.  pvmrun
# runs on h1; its private machine starts the pvmds of the other hosts over
# ssh ($PVM_RSH of the harness).  Shown: tasks spread over the hosts with
# --host and --hostfile, each output line tagged with the host its task
# really ran on (pt_run where prints its host's name), the exit status and
# reason line of a task failing on another host, a --master job whose
# workers run on the other hosts, Ctrl-C reaching tasks on every host,
# hosts that cannot be started failing the run with the remote shell's
# words, and, after every run, nothing of the machine left on any host:
# no process but the host's sshd, nothing new in /tmp, nothing in
# /dev/shm.  pt_run (test/progs/pt_run.c) plays the jobs.

load helpers
load hosts

RH_N=3

setup_file() {
	# no core files: "killed by signal 11 (SIGSEGV)" without "core
	# dumped" (the hosts' sshds, so the remote pvmds and their tasks,
	# inherit this limit)
	ulimit -c 0
	hosts_file_setup "$RH_N"
	[ -n "${HOSTS_SKIP:-}" ] || echo "# hosts_up $RH_N took $HOSTS_UP_SECONDS s" >&3
	export RH_BIN=$BATS_FILE_TMPDIR/bin
	hosts_bin "$RH_BIN"
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "pvmrun is ours only"
	ulimit -c 0
	hosts_vm_env rh "$RH_BIN"
	# pvmrun finds pt_run in PATH, in a directory every host sees
	export PATH=$RH_BIN:$PATH PVM_PVMD=$PVMD_BIN
	RUN=$B/launcher/pvmrun
	OUT=$BATS_TEST_TMPDIR/out ERR=$BATS_TEST_TMPDIR/err
	# the tasks' working directory, visible on every host
	cd "$BATS_TEST_TMPDIR"
	# what each host has in /tmp before the test (the harness's
	# directories): nothing may be added to it
	local k
	for ((k = 1; k <= RH_N; k++)); do
		on_host "$k" ls -A /tmp >"$BATS_TEST_TMPDIR/tmp.h$k"
	done
	RH_BG=
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	[ -n "${PVM_VMID:-}" ] || return 0
	local k
	[ -z "$RH_BG" ] || kill -KILL "$RH_BG" 2>/dev/null || true
	for ((k = 1; k <= RH_N; k++)); do
		host_uncut "$k" 2>/dev/null || true
		on_host 1 ip neigh del "$(host_addr "$k")" dev eth0 2>/dev/null || true
		# a test that stopped a host's sshd and failed: start it again
		kill -0 "$(cat "$HOSTS_DIR/h$k/sshd.pid" 2>/dev/null)" 2>/dev/null ||
			host_sshd_start "$k" || true
	done
	# whatever a failed test left: every process of the hosts but
	# their sshd and namespace holder, the private machines' files
	local pids
	pids=$(rh_procs) || true
	[ -z "$pids" ] || kill -KILL $(printf '%s\n' "$pids" | cut -d' ' -f2) 2>/dev/null || true
	for ((k = 1; k <= RH_N; k++)); do
		on_host "$k" sh -c 'rm -rf /tmp/pvm.*."$1"-pvmrun-* /tmp/pvmrun-hosts.* \
			/dev/shm/pvm.*."$1"-pvmrun-*' _ "$PVM_VMID" 2>/dev/null || true
	done
	return 0
}

# rh_procs: "hK PID COMMAND" for every process on the hosts but their
# sshd and the process holding their namespaces (zombies aside: they are
# gone, only not yet reaped by whoever inherited them).
rh_procs() {
	local k ino p st keep=" "
	local -A host_of=()
	for ((k = 1; k <= RH_N; k++)); do
		ino=$(stat -L -c %i "/run/netns/${HOSTS_ID}h$k") || return 1
		host_of[$ino]=h$k
		keep+="$(cat "$HOSTS_DIR/h$k/pid" 2>/dev/null) $(cat "$HOSTS_DIR/h$k/sshd.pid" 2>/dev/null) "
	done
	while read -r ino p; do
		[ -n "${host_of[$ino]:-}" ] || continue
		p=${p#/proc/} p=${p%%/*}
		[[ "$keep" != *" $p "* ]] || continue
		st=$(sed 's/^.*) \(.\).*/\1/' "/proc/$p/stat" 2>/dev/null) || continue
		[ "$st" != Z ] || continue
		echo "${host_of[$ino]} $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	done < <(stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null)
}

# nothing_left: after a run, no process on any host but sshd (no pvmd, no
# task, no ssh), each host's /tmp as it was before the test (no VM
# directory, no hostfile copy) and its /dev/shm empty (no inbox).
nothing_left() {
	local left k bad=0
	left=$(rh_procs)
	[ -z "$left" ] || { echo "processes left:"; echo "$left"; bad=1; }
	for ((k = 1; k <= RH_N; k++)); do
		left=$(on_host "$k" ls -A /tmp | diff "$BATS_TEST_TMPDIR/tmp.h$k" - | sed -n 's/^> //p')
		[ -z "$left" ] || { echo "left in h$k's /tmp: $left"; bad=1; }
		left=$(on_host "$k" ls -A /dev/shm)
		[ -z "$left" ] || { echo "left in h$k's /dev/shm: $left"; bad=1; }
	done
	return "$bad"
}

# pvmrun ARGS...: pvmrun on h1, stdout in $OUT, stderr in $ERR, status in
# $status (shown, for a failing test).
pvmrun() {
	status=0
	on_host 1 timeout -k 5 "$TMO" "$RUN" "$@" >"$OUT" 2>"$ERR" || status=$?
	echo "status: $status"
	echo "--- stdout"
	cat "$OUT"
	echo "--- stderr"
	cat "$ERR"
}

# tags_true: every "[tX@HOST] tX on HOST2" line of $OUT (pt_run where) has
# HOST = HOST2 (the tag names the host the task ran on) and HOST = the
# host of tid X (its host part: host k's tids are k << 18 + n); prints
# the hosts, one a line.
tags_true() {
	local line tid host
	while IFS= read -r line; do
		[[ "$line" =~ ^\[t([0-9a-f]+)@([^]]+)\]\ t([0-9a-f]+)\ on\ (.*)$ ]] || continue
		tid=${BASH_REMATCH[1]} host=${BASH_REMATCH[2]}
		if [ "$tid" != "${BASH_REMATCH[3]}" ] || [ "$host" != "${BASH_REMATCH[4]}" ] ||
			[ "$host" != "h$((16#$tid >> 18))" ]; then
			echo "bad line: $line"
			return 1
		fi
		echo "$host"
	done <"$OUT"
}

@test "--host h2,h3 -n 6 on h1: three tasks on each host, each line tagged with its own host" {
	pvmrun --host h2,h3 -n 6 --summary pt_run where
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$OUT")" -eq 6 ]
	run tags_true
	show
	[ "$status" -eq 0 ]
	# task i on the i-th host of the list, going round: none on h1
	[ "$(printf '%s\n' "$output" | sort | uniq -c | awk '{ print $2 ":" $1 }' | tr '\n' ' ')" = "h2:3 h3:3 " ]
	grep -qxF "[t80001@h2] t80001 on h2" "$OUT"
	grep -qxF "[tc0003@h3] tc0003 on h3" "$OUT"
	grep -qxF "pvmrun: adding 2 hosts..." "$ERR"
	grep -qE '^pvmrun: summary: 6 tasks on 3 hosts in [0-9.]+ s: 6 succeeded, 0 failed$' "$ERR"
	grep -qE '^tc0002 +t40001 +pt_run +h3 +[0-9.]+  exited with status 0$' "$ERR"
	nothing_left
}

@test "a task failing on another host: the first failure's status, the reason line names the task and its host" {
	pvmrun --host h2,h3 -n 4 pt_run on h3 exit 4
	[ "$status" -eq 4 ]
	grep -qxF "[t80001@h2] ok from t80001" "$OUT"
	grep -qxF "[t80002@h2] ok from t80002" "$OUT"
	grep -qxF "[tc0001@h3] exiting 4" "$OUT"
	grep -qxF "pvmrun: tc0001 (pt_run on h3) exited with status 4" "$ERR"
	grep -qxF "pvmrun: tc0002 (pt_run on h3) exited with status 4" "$ERR"
	[ "$(grep -c '^pvmrun: t' "$ERR")" -eq 2 ]
	nothing_left

	pvmrun --host h2,h3 -n 2 pt_run on h2 segv
	[ "$status" -eq 139 ]
	grep -qxF "[t80001@h2] crashing" "$OUT"
	grep -qxF "[tc0001@h3] ok from tc0001" "$OUT"
	[ "$(grep '^pvmrun: t' "$ERR")" = "pvmrun: t80001 (pt_run on h2) killed by signal 11 (SIGSEGV)" ]
	nothing_left
}

@test "--master on h2: its workers run on h1 and h3 too, their output comes through pvmrun" {
	pvmrun --host h2,h3 --master --summary pt_run master where where where where
	[ "$status" -eq 0 ]
	# the master, the first task, on the first host of the list
	grep -qxF "[t80001@h2] master: 4 workers" "$OUT"
	grep -qxF "[t80001@h2] master: all workers ended" "$OUT"
	run tags_true
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | wc -l)" -eq 4 ]
	# workers on the hosts other than the master's (the pvmd places them
	# round the machine), found there by name: the program's directory
	# is on every host's spawn path
	printf '%s\n' "$output" | grep -qx h1
	printf '%s\n' "$output" | grep -qx h3
	grep -qE '^pvmrun: summary: 5 tasks on 3 hosts in [0-9.]+ s: 5 succeeded, 0 failed$' "$ERR"
	nothing_left
}

@test "a task pvmrun does not follow, deaf to SIGTERM on h3: gone from h3 before pvmrun returns" {
	# the master on h2 starts it with its output elsewhere: pvmrun does
	# not wait for it; the halt stops it (SIGKILL after h3's pvmd's
	# grace), and the master pvmd waits for h3's pvmd to be gone
	pvmrun --host h2,h3 pt_run detach h3
	[ "$status" -eq 0 ]
	[ "$(cat "$OUT")" = "detached tc0001 on h3" ]
	nothing_left
}

# start_bg N ARGS...: pvmrun on h1 in the background ($RH_BG), once its
# output has N "waiting" lines (the tasks' output arrives while they run).
start_bg() {
	local n=$1
	shift
	on_host_bg 1 timeout -k 5 "$TMO" "$RUN" "$@" >"$OUT" 2>"$ERR"
	RH_BG=$HOSTS_BG_PID
	wait_until 20 eval '[ "$(grep -c waiting "$OUT")" -ge '"$n"' ]' || {
		cat "$OUT" "$ERR"
		return 1
	}
}

@test "Ctrl-C (SIGINT) reaches the tasks on the other hosts; nothing left anywhere" {
	start_bg 4 --host h2,h3 -n 4 pt_run trap
	kill -INT "$RH_BG"
	local st=0
	wait "$RH_BG" || st=$?
	RH_BG=
	cat "$OUT" "$ERR"
	# each task caught the SIGINT pvmrun forwarded, said so, exited 7
	[ "$st" -eq 7 ]
	grep -qxF "pvmrun: got SIGINT: stopping the job" "$ERR"
	local tid h
	for tid in 80001:h2 80002:h2 c0001:h3 c0002:h3; do
		h=${tid#*:} tid=${tid%:*}
		grep -qxF "[t$tid@$h] caught SIGINT" "$OUT"
		grep -qxF "pvmrun: t$tid (pt_run on $h) exited with status 7" "$ERR"
	done
	nothing_left
}

@test "Ctrl-C in a --master job: the workers the master started on other hosts get it too" {
	start_bg 3 --host h2,h3 --master pt_run master wait wait wait
	kill -INT "$RH_BG"
	local st=0
	wait "$RH_BG" || st=$?
	RH_BG=
	cat "$OUT" "$ERR"
	[ "$st" -eq 130 ]
	# the master and every worker, wherever it ran, killed by SIGINT
	[ "$(grep -c '^pvmrun: t[0-9a-f]* (pt_run on h[123]) killed by signal 2 (SIGINT)$' "$ERR")" -eq 4 ]
	grep -qxF "pvmrun: t80001 (pt_run on h2) killed by signal 2 (SIGINT)" "$ERR"
	grep -qE '^pvmrun: t4[0-9a-f]{4} \(pt_run on h1\) killed by signal 2' "$ERR"
	grep -qE '^pvmrun: tc[0-9a-f]{4} \(pt_run on h3\) killed by signal 2' "$ERR"
	nothing_left
}

@test "Ctrl-C while the hosts are starting: the slow one cancelled at once, no task started, status 130" {
	# h3 cut off, its address still resolved on h1 (a permanent
	# neighbour entry: no "No route to host" after the ARP probes), so
	# that ssh waits its whole ConnectTimeout of 20 s; h2 comes at once
	on_host 1 ip neigh replace "$(host_addr 3)" dev eth0 nud permanent \
		lladdr "$(on_host 3 cat /sys/class/net/eth0/address)"
	host_cut 3
	PVM_RSH="$PVM_RSH -o ConnectTimeout=20" on_host_bg 1 timeout -k 5 "$TMO" "$RUN" --host h2,h3 -n 2 pt_run wait >"$OUT" 2>"$ERR"
	RH_BG=$HOSTS_BG_PID
	wait_until 10 grep -q adding "$ERR"
	sleep 0.5
	local t0=$SECONDS st=0
	kill -INT "$RH_BG"
	wait "$RH_BG" || st=$?
	RH_BG=
	cat "$OUT" "$ERR"
	echo "pvmrun ended $((SECONDS - t0)) s after the SIGINT"
	[ "$((SECONDS - t0))" -lt 8 ]
	[ "$st" -eq 130 ]
	[ "$(cat "$ERR")" = "pvmrun: adding 2 hosts...
pvmrun: got SIGINT: stopping the job" ]
	[ ! -s "$OUT" ]
	nothing_left
	on_host 1 ip neigh del "$(host_addr 3)" dev eth0
}

@test "--hostfile (a relative path): the job on its hosts, not on its '&' ones, workers found on each" {
	printf '%s\n' "# the job's hosts" "h2 sp=2000" "" "& h3" >hf
	pvmrun --hostfile hf -n 4 pt_run where
	[ "$status" -eq 0 ]
	run tags_true
	show
	[ "$status" -eq 0 ]
	# the pvmd places the copies round the machine: h1 and h2, never h3
	[ "$(printf '%s\n' "$output" | sort -u | tr '\n' ' ')" = "h1 h2 " ]
	nothing_left

	printf '%s\n' "h2" "h3" >hf
	pvmrun --hostfile hf --master pt_run master where where where
	[ "$status" -eq 0 ]
	run tags_true
	show
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -qx h2
	printf '%s\n' "$output" | grep -qx h3
	nothing_left
}

@test "--hostfile with a host whose sshd is stopped: the run fails at once naming it, in ssh's words" {
	printf '%s\n' "h2" "h3" >hf
	host_sshd_stop 3
	pvmrun --hostfile hf -n 4 pt_run ok
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	[ "$(cat "$ERR")" = "pvmrun: adding 2 hosts...
pvmrun: cannot add host h3: Can't start pvmd: the remote command ended without starting a pvmd: ssh: connect to host h3 port 22: Connection refused" ]
	# h2's pvmd, started, is gone with the machine
	nothing_left

	# the same with --host
	pvmrun --host h3,h2 -n 4 pt_run ok
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	grep -qxF "pvmrun: cannot add host h3: Can't start pvmd: the remote command ended without starting a pvmd: ssh: connect to host h3 port 22: Connection refused" "$ERR"
	[ "$(grep -c 'cannot add' "$ERR")" -eq 1 ]
	nothing_left
}

@test "--hostfile: a remote shell that fails, an address nobody answers: each host named with the reason" {
	printf '%s\n' "h2" "h3" >hf
	PVM_RSH=false pvmrun --hostfile hf pt_run ok
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	grep -qxF "pvmrun: cannot add host h2: Can't start pvmd: the remote command ended without starting a pvmd" "$ERR"
	grep -qxF "pvmrun: cannot add host h3: Can't start pvmd: the remote command ended without starting a pvmd" "$ERR"
	nothing_left

	# an address of the hosts' network where no host is (ssh gives up
	# after a second)
	printf '%s\n' "h2" "$HOSTS_NET.99" >hf
	PVM_RSH="$PVM_RSH -o ConnectTimeout=1" pvmrun --hostfile hf pt_run ok
	[ "$status" -eq 1 ]
	[ ! -s "$OUT" ]
	grep -qE "^pvmrun: cannot add host $HOSTS_NET\\.99: Can't start pvmd: .*ssh: connect to host $HOSTS_NET\\.99 port 22: (Connection timed out|No route to host)\$" "$ERR"
	[ "$(grep -c 'cannot add' "$ERR")" -eq 1 ]
	nothing_left
}
