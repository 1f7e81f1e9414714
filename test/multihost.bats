#!/usr/bin/env bats
# Many hosts (issue 7) on real hosts built by hosts.bash: four hosts h1..h4,
# each with its own name, address, /tmp, /dev/shm and sshd.  Each test
# starts its own virtual machine (a new PVM_VMID): the master pvmd on h1 with
# a hostfile, the others started by it over ssh ($PVM_RSH of the harness);
# teardown halts it and kills whatever is left of it on every host.
# The test programs (test/progs/pt_mh) and the Debian examples are found on
# every host through the hostfile's `ep=` (a directory of links in the
# file's temp dir, which every host sees).

load helpers
load hosts

MH_N=4

setup_file() {
	hosts_file_setup "$MH_N"
	[ -n "${HOSTS_SKIP:-}" ] || echo "# hosts_up $MH_N took $HOSTS_UP_SECONDS s" >&3
	export MH_BIN=$BATS_FILE_TMPDIR/bin
	hosts_bin "$MH_BIN" "$abs_top_srcdir/test/forge_pvmd.py" \
		"$abs_top_srcdir/test/fwd_flood.py"
	local p
	for p in $EXAMPLES $GEXAMPLES; do
		[ -x "/usr/bin/$p" ] && ln -sf "/usr/bin/$p" "$MH_BIN/$p"
	done
	return 0
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "the multi-host suite runs ours only"
	hosts_vm_env mh "$MH_BIN"
	MH_UP=
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	[ -n "${PVM_VMID:-}" ] || return 0
	local k
	for ((k = 1; k <= MH_N; k++)); do
		host_uncut "$k" 2>/dev/null || true
		# a test that stopped a host's sshd and failed: start it again
		kill -0 "$(cat "$HOSTS_DIR/h$k/sshd.pid" 2>/dev/null)" 2>/dev/null ||
			host_sshd_start "$k" || true
	done
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "$MH_UP" ]; then
		echo "--- last lines of h1's pvmd.log"
		on_host 1 tail -n 30 "$VMDIR/pvmd.log" 2>/dev/null || true
		for ((k = 2; k <= MH_N; k++)); do
			echo "--- last lines of h$k's pvmd.log"
			on_host "$k" tail -n 8 "$VMDIR/pvmd.log" 2>/dev/null || true
		done
	fi
	hosts_vm_stop "$MH_N"
	return 0
}

# mh_hostfile FILE HOST...: a hostfile for these hosts, the spawn path set.
mh_hostfile() {
	local f=$1
	shift
	{
		echo "* ep=$MH_BIN"
		printf '%s\n' "$@"
	} >"$f"
}

# mh_conf_n: the number of hosts `conf` on h1 shows.
mh_conf_n() {
	mh_console 1 conf | sed -n 's/^\([0-9][0-9]*\) hosts\{0,1\},.*/\1/p'
}

# mh_start N [ENV=VALUE...]: the master on h1 with h2..hN in its hostfile;
# waits until all N are in the machine.
mh_start() {
	local n=$1 k hosts=()
	shift
	for ((k = 2; k <= n; k++)); do hosts+=("h$k"); done
	mh_hostfile "$BATS_TEST_TMPDIR/hostfile" "${hosts[@]}"
	mh_start_with "$BATS_TEST_TMPDIR/hostfile" "$@" || return 1
	wait_until 60 mh_has_n "$n" || {
		echo "the machine did not get $n hosts:"
		mh_console 1 conf
		return 1
	}
}

mh_has_n() {
	[ "$(mh_conf_n)" = "$1" ]
}

# mh_start_with HOSTFILE [ENV=VALUE...]: starts the master on h1.
mh_start_with() {
	local hf=$1
	shift
	MH_UP=1
	on_host 1 timeout -k 5 30 env "$@" "$PVMD_BIN" "$hf" </dev/null \
		>"$BATS_TEST_TMPDIR/pvmd.out" 2>&1 || {
		echo "the master did not start:"
		cat "$BATS_TEST_TMPDIR/pvmd.out"
		return 1
	}
	wait_until 10 on_host 1 test -S "$VMDIR/pvmd.sock"
}

# mh_console K CMDS: the console on host K with these lines.
mh_console() {
	printf '%s\n' "$2" | on_host "$1" timeout -k 5 "$TMO" "$CONSOLE" 2>&1
}

# mh_prog K PROG ARGS...: runs a test program on host K.
mh_prog() {
	local k=$1
	shift
	on_host "$k" timeout -k 5 "$TMO" "$MH_BIN/$1" "${@:2}"
}

# mh_ok K PROG ARGS...: runs it, expects exit 0 and 0 failed checks.
mh_ok() {
	run mh_prog "$@"
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
}

# mh_log K: host K's pvmd log.
mh_log() {
	on_host "$1" cat "$VMDIR/pvmd.log" 2>/dev/null
}

# ---- the machine ----

@test "a hostfile starts a pvmd on every host; conf and mstat show them all" {
	mh_start 4
	run mh_console 1 conf
	show
	local k
	for k in 1 2 3 4; do
		printf '%s\n' "$output" | grep -Eq "^ +h$k +$(printf '%x' $((k << 18))) +LINUX64 +1000 "
		[ -n "$(host_pvmd_pid "$k")" ]
	done
	run mh_console 1 $'mstat h3\nmstat h4'
	show
	[[ "$output" == *"h3  ok"* || "$output" == *"h3 ok"* ]]
	# the secret is on no command line: the remote pvmds run as `pvmd -s`
	local p
	p=$(host_pvmd_pid 3)
	run cat "/proc/$p/cmdline"
	[[ "$(tr '\0' ' ' <"/proc/$p/cmdline")" == "$PVMD_BIN -s " ]]
	if grep -Eq '[0-9a-f]{64}' "/proc/$p/cmdline"; then false; fi
	# each host's pvmd has its own VM directory in its own /tmp, the
	# secret file mode 0600
	run on_host 4 stat -c %a "$VMDIR/secret"
	[ "$output" = 600 ] || [ "$status" -ne 0 ]
	run on_host 1 stat -c %a "$VMDIR/secret"
	[ "$output" = 600 ]
}

@test "console add and delete on a running machine" {
	mh_start 2
	run mh_console 1 'add h3'
	show
	[[ "$output" == *"1 successful"* ]]
	wait_until 10 mh_has_n 3
	[ -n "$(host_pvmd_pid 3)" ]
	run mh_console 1 'add h3'
	show
	[[ "$output" == *"Duplicate host"* || "$output" == *"already"* ]]
	run mh_console 2 'delete h3'
	show
	wait_until 10 mh_has_n 2
	wait_until 10 host_no_pvmd 3
	mh_ok 1 pt_mh pingall nobig
}

@test "pvm_addhosts and pvm_delhosts: new, unknown, duplicate and unreachable hosts" {
	mh_start 2
	host_sshd_stop 4
	run mh_prog 1 pt_mh addhosts h3 nosuchhost=NoHost h2=DupHost h4=CantStart
	show
	host_sshd_start 4
	[ "$status" -eq 0 ]
	[[ "$output" == *" checks passed, 0 failed"* ]]
	mh_log 1 | grep -E 'cannot add host h4: .*refused'
	wait_until 10 host_no_pvmd 3
	# a host cut off the network: PvmCantStart after ssh's time-out, the
	# rest of the machine unaffected meanwhile
	host_cut 4
	mh_prog 1 pt_mh addhosts h4=CantStart >"$BATS_TEST_TMPDIR/add.out" 2>&1 &
	local add=$!
	mh_ok 2 pt_mh pingall nobig
	wait "$add" || { cat "$BATS_TEST_TMPDIR/add.out"; false; }
	cat "$BATS_TEST_TMPDIR/add.out"
	grep -E '^add h4: -29 ' "$BATS_TEST_TMPDIR/add.out"
	grep -E '^add h4: ' "$BATS_TEST_TMPDIR/add.out" | sed 's/^/# cut host: /' >&3
	host_uncut 4
	[ "$(mh_conf_n)" = 2 ]
}

@test "pvm_mstat, pvm_hostsync and pvm_archcode from the master and from a slave" {
	mh_start 4
	mh_ok 1 pt_mh hostinfo
	[ "$(printf '%s\n' "$output" | grep -c '^host h[1-4] mstat ok hostsync')" -eq 4 ]
	mh_ok 3 pt_mh hostinfo
	[ "$(printf '%s\n' "$output" | grep -c '^host h[1-4] mstat ok hostsync delta ')" -eq 4 ]
}

@test "spawn across hosts: default placement, PvmTaskHost, PvmTaskArch, PvmHostCompl, pvm_tasks" {
	mh_start 4
	mh_ok 1 pt_mh spawn 10
	local k
	for k in 1 2 3 4; do
		printf '%s\n' "$output" | grep -Eq "^default host h$k count (2|3)\$"
	done
	# the same from a task on another host than the master's
	mh_ok 3 pt_mh spawn 4
	for k in 1 2 3 4; do
		printf '%s\n' "$output" | grep -Eq "^default host h$k count 1\$"
	done
	# the console sees the tasks of every host
	run mh_console 2 $'spawn -h4 -> pt_mh child wait\nps -a'
	show
	[[ "$output" == *"1 successful"* ]]
	printf '%s\n' "$output" | grep -Eq '^ +h4 +10[0-9a-f]{4} '
}

# ---- messages ----

@test "every route and encoding between hosts, data checked (pingall from h1)" {
	mh_start 4
	mh_ok 1 pt_mh pingall
	local h r e
	for h in h2 h3 h4; do
		for r in pvmd default direct; do
			for e in default raw inplace psend; do
				printf '%s\n' "$output" | grep -qx "ok host $h route $r enc $e size 1048576"
				printf '%s\n' "$output" | grep -qx "ok host $h route $r enc $e size 0"
			done
			printf '%s\n' "$output" | grep -qx "ok host $h route $r enc raw size 16777216"
		done
	done
	[ "$(printf '%s\n' "$output" | grep -c '^ok host ')" -eq 261 ]
}

@test "one copy per received byte from another host with shared memory on: precv from the sender and from any source, recv; 64 KiB to 16 MiB" {
	mh_start 2
	# the child (the sender) runs on h2; a pvm_precv from any source also
	# offers its buffer to senders of h1 by shared memory, and a message
	# over TCP must still go straight into it
	export PT_TCP_WHERE=h2
	TMO=120 mh_ok 1 pt_tcp copies
	printf '%s\n' "$output" | grep 'copies per byte' | sed 's/^/# /' >&3
	[[ "$output" == *"psend/precv from any source 1048576 bytes: 1.000 copies per byte"* ]]
}

@test "pingall between slaves: links between pvmds other than the master's" {
	mh_start 4
	mh_ok 3 pt_mh pingall nobig
	printf '%s\n' "$output" | grep -qx "partners 3"
	printf '%s\n' "$output" | grep -qx "ok host h4 route pvmd enc default size 1048576"
	printf '%s\n' "$output" | grep -qx "ok host h2 route direct enc inplace size 1048576"
}

# ---- groups, mailbox, output ----

@test "a group whose barriers met in shared memory on one host goes on when the machine grows and a member joins on the new host" {
	mh_start 1
	mh_ok 1 pt_mh grow h2
	[[ "$output" == *"barrier of 3 over 2 hosts passed"* ]]
}

@test "a group over every host: barrier, reduce, bcast, gather, scatter" {
	mh_start 4
	mh_ok 1 pt_mh group 2
	printf '%s\n' "$output" | grep -qx "barrier 9 members on 4 hosts"
	printf '%s\n' "$output" | grep -qx "members ok 8 of 8"
	# from a slave too (the group table is on the master)
	mh_ok 4 pt_mh group 1
}

@test "the mailbox across hosts: lookup, WaitForInfo, a persistent entry" {
	mh_start 4
	mh_ok 1 pt_mh mbox h3
	# both ends away from the master, which keeps the mailbox
	mh_ok 2 pt_mh mbox h4
}

@test "output of a remote task reaches the parent's pvm_catchout as [tX] lines" {
	mh_start 3
	mh_ok 1 pt_mh output h3
	local c
	c=$(printf '%s\n' "$output" | sed -n 's/^child t\([0-9a-f]*\)$/\1/p')
	[ "$((0x$c >> 18))" -eq 3 ]
	local k
	for k in 1 2 3; do
		printf '%s\n' "$output" | grep -qx "\[t$c\] line $k of t$c"
	done
	# and from a slave's task to a child on the master's host
	mh_ok 2 pt_mh output h1
	c=$(printf '%s\n' "$output" | sed -n 's/^child t\([0-9a-f]*\)$/\1/p')
	[ "$((0x$c >> 18))" -eq 1 ]
	printf '%s\n' "$output" | grep -qx "\[t$c\] line 3 of t$c"
}

# ---- failures ----

# mh_notify_bg K HOST SECS: pt_mh notify on host K in the background, its
# output in $BATS_TEST_TMPDIR/notify.out; waits for its "ready" line.
mh_notify_bg() {
	NOTIFY_OUT=$BATS_TEST_TMPDIR/notify.out
	on_host_bg "$1" timeout -k 5 "$TMO" "$MH_BIN/pt_mh" notify "$2" "$3" \
		>"$NOTIFY_OUT" 2>&1
	NOTIFY_PID=$HOSTS_BG_PID
	wait_until 30 grep -q '^ready ' "$NOTIFY_OUT" || {
		cat "$NOTIFY_OUT"
		return 1
	}
}

# mh_notify_wait EVENT_MS: waits for pt_mh notify; prints how long after
# EVENT_MS (epoch ms) each notify came; sets TX_MS and HD_MS.
mh_notify_wait() {
	local st=0
	wait "$NOTIFY_PID" || st=$?
	cat "$NOTIFY_OUT"
	[ "$st" -eq 0 ] || return 1
	local tx hd
	tx=$(sed -n 's/^taskexit .* at \([0-9]*\)$/\1/p' "$NOTIFY_OUT")
	hd=$(sed -n 's/^hostdelete .* at \([0-9]*\)$/\1/p' "$NOTIFY_OUT")
	[ -n "$tx" ] && [ -n "$hd" ] || return 1
	TX_MS=$((tx - $1)) HD_MS=$((hd - $1))
	echo "# taskexit after $TX_MS ms, hostdelete after $HD_MS ms" >&3
}

epoch_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# mh_task_on K: true if a task of this VM runs on host K (its pvmd's pid
# file gives the host; tasks are found by PVM_VMID, in the same pid space).
mh_tasks_on() {
	local p ns want
	want=$(on_host "$1" readlink /proc/self/ns/uts)
	for p in $(vm_pids "$PVM_VMID"); do
		ns=$(readlink "/proc/$p/ns/uts" 2>/dev/null) || continue
		[ "$ns" = "$want" ] && [ "$(readlink "/proc/$p/exe")" != "$PVMD_BIN" ] && return 0
	done
	return 1
}

# mh_stream_bg K HOST SECS NAME: pt_mh stream in the background, its
# output in $BATS_TEST_TMPDIR/NAME.out, its pid in STREAM_PIDS.
mh_stream_bg() {
	on_host_bg "$1" timeout -k 5 "$TMO" "$MH_BIN/pt_mh" stream "$2" "$3" \
		>"$BATS_TEST_TMPDIR/$4.out" 2>&1
	STREAM_PIDS+=("$HOSTS_BG_PID")
	wait_until 30 grep -q '^stream started' "$BATS_TEST_TMPDIR/$4.out"
}

# mh_stream_wait NAME...: waits for the streams; each must pass.
mh_stream_wait() {
	local p st=0 n
	for p in "${STREAM_PIDS[@]}"; do wait "$p" || st=1; done
	for n in "$@"; do
		cat "$BATS_TEST_TMPDIR/$n.out"
		grep -q ' checks passed, 0 failed' "$BATS_TEST_TMPDIR/$n.out" || st=1
		grep -E '^stream host ' "$BATS_TEST_TMPDIR/$n.out" | sed 's/^/# /' >&3
	done
	return $st
}

@test "SIGKILL of a remote pvmd: notified at once, survivors unaffected" {
	mh_start 4
	mh_notify_bg 1 h3 30
	# messages flow between the survivors meanwhile, none may be lost:
	# master-slave and slave-slave
	STREAM_PIDS=()
	mh_stream_bg 1 h2 6 s12
	mh_stream_bg 4 h2 6 s42
	sleep 1
	local t0
	t0=$(epoch_ms)
	kill -KILL "$(host_pvmd_pid 3)"
	mh_notify_wait "$t0"
	mh_stream_wait s12 s42
	# a broken connection is noticed at once; generous slack
	[ "$TX_MS" -lt 8000 ] && [ "$HD_MS" -lt 8000 ]
	# the orphaned task on h3 goes away
	wait_until 10 eval '! mh_tasks_on 3'
	[ "$(mh_conf_n)" = 3 ]
	mh_ok 1 pt_mh pingall nobig
	printf '%s\n' "$output" | grep -qx "partners 2"
	mh_ok 4 pt_mh group 1
}

@test "a host cut off the network: declared dead within the timeout, its pvmd stops its tasks" {
	mh_start 4
	mh_notify_bg 1 h4 30
	STREAM_PIDS=()
	mh_stream_bg 2 h3 8 s23
	sleep 1
	local t0
	t0=$(epoch_ms)
	host_cut 4
	# the console and pvm_tasks stay responsive meanwhile
	local c0 c1
	c0=$(epoch_ms)
	run mh_console 1 'ps -a'
	c1=$(epoch_ms)
	echo "# ps -a during the cut took $((c1 - c0)) ms" >&3
	[ "$status" -eq 0 ]
	[ $((c1 - c0)) -lt 10000 ]
	mh_notify_wait "$t0"
	# default host timeout 4 s: within 8 s; not at once (the last frame
	# before the cut may be up to a heartbeat or two old on a busy machine)
	[ "$HD_MS" -lt 8000 ] && [ "$TX_MS" -lt 8000 ]
	[ "$HD_MS" -ge 2000 ]
	mh_stream_wait s23
	# h4's pvmd lost its master: it kills its tasks and exits
	wait_until 15 host_no_pvmd 4
	wait_until 5 eval '! mh_tasks_on 4'
	host_uncut 4
	[ "$(mh_conf_n)" = 3 ]
	mh_ok 1 pt_mh pingall nobig
	printf '%s\n' "$output" | grep -qx "partners 2"
	mh_ok 2 pt_mh mbox h3
}

@test "SIGKILL of the master: every other pvmd stops its tasks and exits" {
	mh_start 4
	run mh_console 1 $'spawn -8 -> pt_mh child wait'
	show
	[[ "$output" == *"8 successful"* ]]
	local k
	for k in 2 3 4; do mh_tasks_on "$k"; done
	kill -KILL "$(host_pvmd_pid 1)"
	for k in 2 3 4; do
		wait_until 15 host_no_pvmd "$k"
	done
	for k in 2 3 4; do
		wait_until 5 eval "! mh_tasks_on $k"
	done
}

@test "sends to a task of a host cut off return at once once it is gone, on both routes" {
	mh_start 3
	on_host_bg 1 timeout -k 5 "$TMO" "$MH_BIN/pt_mh" lost h3 30 \
		>"$BATS_TEST_TMPDIR/lost.out" 2>&1
	local p=$HOSTS_BG_PID st=0
	wait_until 30 grep -q '^ready' "$BATS_TEST_TMPDIR/lost.out"
	host_cut 3
	wait "$p" || st=$?
	cat "$BATS_TEST_TMPDIR/lost.out"
	[ "$st" -eq 0 ]
	grep -q ' checks passed, 0 failed' "$BATS_TEST_TMPDIR/lost.out"
	mh_ok 2 pt_mh pingall nobig
}

@test "a call another host answers returns when that host is lost before it answers: pstat, tasks, kill, the first direct send" {
	mh_start 3 PVM_HOST_TIMEOUT=2000
	local op pids=() st=0 go=$BATS_TEST_TMPDIR/go p
	for op in pstat tasks kill route; do
		on_host_bg 1 timeout -k 5 60 "$MH_BIN/pt_mh" hang h3 "$op" "$go" 7000 \
			>"$BATS_TEST_TMPDIR/hang.$op" 2>&1
		pids+=("$HOSTS_BG_PID")
	done
	for op in pstat tasks kill route; do
		wait_until 30 grep -q '^ready' "$BATS_TEST_TMPDIR/hang.$op"
	done
	# h3's pvmd gets the requests but cannot answer: it is declared
	# dead after 2 s; the callers must not wait for ever
	p=$(host_pvmd_pid 3)
	kill -STOP "$p"
	touch "$go"
	for p in "${pids[@]}"; do wait "$p" || st=1; done
	kill -CONT "$(host_pvmd_pid 3)" 2>/dev/null || true
	for op in pstat tasks kill route; do
		cat "$BATS_TEST_TMPDIR/hang.$op"
		grep -E '^[a-z]+ returned ' "$BATS_TEST_TMPDIR/hang.$op" | sed 's/^/# /' >&3
		grep -q ' checks passed, 0 failed' "$BATS_TEST_TMPDIR/hang.$op" || st=1
	done
	[ "$st" -eq 0 ]
	mh_log 1 | grep -q 'went to the lost host 3: answered here'
	wait_until 15 host_no_pvmd 3
	mh_ok 1 pt_mh pingall nobig
}

@test "a task with 64 requests waiting on another host is refused more with PvmOutOfRes; the 64 are answered once that host goes on" {
	# h3 stays stopped for fwd_flood.py's 3 s and however long it takes
	# to start: on a loaded machine that passed the default 4 s after
	# which the master gives a silent host up, and then it answered the
	# requests itself.  Giving up is not what this test is about.
	mh_start 3 PVM_HOST_TIMEOUT=30000
	local go=$BATS_TEST_TMPDIR/go out=$BATS_TEST_TMPDIR/flood p
	p=$(host_pvmd_pid 3)
	kill -STOP "$p"
	on_host_bg 1 timeout -k 5 60 python3 "$MH_BIN/fwd_flood.py" "$VMDIR/pvmd.sock" \
		$(((3 << 18) | 1)) 100 "$go" >"$out" 2>&1
	local fp=$HOSTS_BG_PID
	wait_until 20 grep -q '^others' "$out"
	kill -CONT "$p"
	touch "$go"
	wait "$fp" || true
	cat "$out"
	grep -qx 'refused 36' "$out"
	grep -qx 'others 0' "$out"
	grep -qx 'answered 64' "$out"
	mh_log 1 | grep -q 'requests to other hosts unanswered: refused'
	mh_ok 1 pt_mh pingall nobig
}

# mh_flood ROUTE ARGS...: pt_flood on h1 with PVM_TRAN=ROUTE (exported to
# its tasks) in the background; output in $BATS_TEST_TMPDIR/flood.ROUTE.
mh_flood() {
	local route=$1
	shift
	on_host_bg 1 env PVM_TRAN="$route" PVM_EXPORT=PVM_TRAN:PVM_TRAN_REPORT \
		PVM_TRAN_REPORT="$BATS_TEST_TMPDIR/carried.$route" \
		timeout -k 5 240 "$MH_BIN/pt_flood" "$@" \
		>"$BATS_TEST_TMPDIR/flood.$route" 2>&1
	MH_FLOOD_PIDS+=("$HOSTS_BG_PID")
}

# mh_peaks: the peak resident size in kB of the pvmds on h1 and h2.
mh_peaks() {
	local k
	for k in 1 2; do
		awk '$1 == "VmHWM:" {print $2}' "/proc/$(host_pvmd_pid "$k")/status"
	done
}

# mh_flood_check ROUTE BEFORE...: delivered, carried by ROUTE, and neither
# pvmd grew by 40 MiB over its peak BEFORE.
mh_flood_check() {
	local f=$BATS_TEST_TMPDIR/flood.$1 b1=$2 b2=$3 p
	p=($(mh_peaks))
	echo "# $1: $(tr '\n' ' ' <"$f") carried: $(tr '\n' ' ' <"$BATS_TEST_TMPDIR/carried.$1"); pvmd peaks ${p[*]} kB (before $b1 $b2)" >&3
	grep -Eqx 'delivered ([0-9]+) of \1, 0 bad' "$f"
	[ "$(sh "$abs_top_srcdir/test/tran-carried.sh" "$BATS_TEST_TMPDIR/carried.$1" "$1")" -ge 100 ]
	[ $((p[0] - b1)) -lt $((40 * 1024)) ] && [ $((p[1] - b2)) -lt $((40 * 1024)) ]
}

@test "200 x 1 MiB to a receiver on another host that does not read yet, through the pvmds and direct at once: neither pvmd grows past its window" {
	mh_start 2
	local before route pid
	before=($(mh_peaks))
	MH_FLOOD_PIDS=()
	for route in pvmd direct; do
		mh_flood "$route" -n 200 -z 1048576 -s 600 -g "$BATS_TEST_TMPDIR/go" -w h2
	done
	for route in pvmd direct; do
		wait_until 60 grep -q '^sent ' "$BATS_TEST_TMPDIR/flood.$route" ||
			{ cat "$BATS_TEST_TMPDIR/flood.$route"; return 1; }
	done
	echo "# pvmd peaks $(mh_peaks | tr '\n' ' ')kB with 400 MiB sent and not read" >&3
	touch "$BATS_TEST_TMPDIR/go"
	for pid in "${MH_FLOOD_PIDS[@]}"; do wait "$pid"; done
	for route in pvmd direct; do mh_flood_check "$route" "${before[@]}"; done
}

@test "1 GiB to a task on another host that does not read: the pvmds stay within the window until it reads, then all arrives" {
	mh_start 2
	local before route
	before=($(mh_peaks))
	for route in pvmd direct; do
		MH_FLOOD_PIDS=()
		mh_flood "$route" -n 1024 -z 1048576 -s 600 -g "$BATS_TEST_TMPDIR/go.$route" -w h2
		wait_until 120 grep -q '^sent ' "$BATS_TEST_TMPDIR/flood.$route" ||
			{ cat "$BATS_TEST_TMPDIR/flood.$route"; return 1; }
		echo "# $route: pvmd peaks $(mh_peaks | tr '\n' ' ')kB with 1 GiB sent and not read" >&3
		touch "$BATS_TEST_TMPDIR/go.$route"
		wait "${MH_FLOOD_PIDS[0]}"
		mh_flood_check "$route" "${before[@]}"
	done
}

@test "the pvmds and their tasks listen on the address of their host in the table, not on every address" {
	mh_start 2
	MH_FLOOD_PIDS=()
	mh_flood direct -n 1 -z 64 -s 600 -g "$BATS_TEST_TMPDIR/go" -w h2
	wait_until 30 grep -q '^sent ' "$BATS_TEST_TMPDIR/flood.direct"
	local k l p
	for k in 1 2; do
		# this VM's pvmd and tasks on host k
		l=$(on_host "$k" ss -ltnpH | while read -r line; do
			for p in $(host_pvmd_pid "$k") $(vm_pids "$PVM_VMID"); do
				case $line in *"pid=$p,"*) echo "$line" | awk '{print $4}' ;; esac
			done
		done | sort -u)
		echo "# h$k: listeners:" $l >&3
		# its pvmd and one task at least, each on the host's address
		[ "$(printf '%s\n' "$l" | wc -l)" -ge 2 ]
		[ -z "$(printf '%s\n' "$l" | grep -v "^$(host_addr "$k"):[0-9]*\$")" ]
	done
	touch "$BATS_TEST_TMPDIR/go"
	wait "${MH_FLOOD_PIDS[0]}"
	grep -qx 'delivered 1 of 1, 0 bad' "$BATS_TEST_TMPDIR/flood.direct"
}

@test "output of a task on another host for a stopped reader waits in the writer: the reader's pvmd holds a few MiB, and all arrives after SIGCONT" {
	mh_start 2
	local out=$BATS_TEST_TMPDIR/outflood reader rss0 rss1 pid bg
	pid=$(host_pvmd_pid 1)
	rss0=$(awk '$1 == "VmRSS:" {print $2}' "/proc/$pid/status")
	# the child on h2 writes 256 MiB to stdout; its parent on h1 takes
	# them as output messages
	on_host_bg 1 timeout -k 5 240 "$MH_BIN/pt_out" outflood 256 h2 >"$out" 2>&1
	bg=$HOSTS_BG_PID
	wait_until 30 grep -qx ready "$out"
	reader=$(pgrep -f "^$MH_BIN/pt_out outflood 256 h2")
	kill -STOP "$reader"
	sleep 3
	rss1=$(awk '$1 == "VmRSS:" {print $2}' "/proc/$pid/status")
	echo "# h1's pvmd: VmRSS $rss0 KiB at the start, $rss1 KiB with the reader stopped 3 s" >&3
	mh_log 1 | grep 'asked its pvmd to hold it' | head -n 1 | sed 's/^/# /' >&3
	kill -CONT "$reader"
	wait "$bg"
	cat "$out"
	grep -qx 'got 268435456 bytes' "$out"
	mh_log 1 | grep -q 'asked its pvmd to hold it'
	# (AddressSanitizer's quarantine keeps freed memory resident)
	if ! ldd "$PVMD_BIN" | grep -q libasan; then
		[ $((rss1 - rss0)) -lt 24576 ]
	fi
}

@test "a task that enrolled while its machine had one host listens once a host is added: the new host's tasks reach it directly" {
	mh_start 1
	# the first task enrolls alone, and waits for the add before it
	# spawns its receiver on h2
	MH_FLOOD_PIDS=()
	mh_flood direct -n 1 -z 64 -s 0 -w h2 -b "$BATS_TEST_TMPDIR/added"
	wait_until 20 eval 'mh_log 1 | grep -q "t40001 enrolled"'
	[ -z "$(on_host 1 ss -ltnpH | grep "pid=$(host_pvmd_pid 1),")" ]
	run mh_console 1 'add h2'
	show
	[[ "$output" == *"1 successful"* ]]
	touch "$BATS_TEST_TMPDIR/added"
	wait "${MH_FLOOD_PIDS[0]}"
	echo "# $(tr '\n' ' ' <"$BATS_TEST_TMPDIR/flood.direct") carried: $(tr '\n' ' ' <"$BATS_TEST_TMPDIR/carried.direct")" >&3
	grep -qx 'delivered 1 of 1, 0 bad' "$BATS_TEST_TMPDIR/flood.direct"
	# the receiver on h2 (t8xxxx) sent its three messages to the first
	# task directly
	grep -Eq '^t8[0-9a-f]{4} direct=3 ' "$BATS_TEST_TMPDIR/carried.direct"
}

@test "halt while a host is cut off: the others stop at once, the cut one by itself" {
	mh_start 4
	run mh_console 1 $'spawn -4 -> pt_mh child wait'
	[[ "$output" == *"4 successful"* ]]
	host_cut 4
	local t0 t1 k
	t0=$(epoch_ms)
	run mh_console 1 halt
	show
	for k in 1 2 3; do wait_until 10 host_no_pvmd "$k"; done
	t1=$(epoch_ms)
	echo "# halt with h4 cut off: h1-h3 gone after $((t1 - t0)) ms" >&3
	# h4 loses its master: it stops its task and exits by itself
	wait_until 15 host_no_pvmd 4
	wait_until 5 eval '! mh_tasks_on 4'
	t1=$(epoch_ms)
	echo "# h4 gone after $((t1 - t0)) ms" >&3
}

@test "PVM_HOST_TIMEOUT sets the detection time" {
	mh_start 3 PVM_HOST_TIMEOUT=1500
	mh_notify_bg 1 h2 30
	local t0
	t0=$(epoch_ms)
	host_cut 2
	mh_notify_wait "$t0"
	# 1.5 s and a heartbeat; the default (4 s) would take 3.5 s or more
	[ "$HD_MS" -ge 500 ] && [ "$HD_MS" -lt 3300 ]
	wait_until 15 host_no_pvmd 2
	mh_ok 1 pt_mh pingall nobig
}

@test "hosts that cannot be added: clear errors, the rest of the machine unaffected" {
	host_sshd_stop 4
	mh_hostfile "$BATS_TEST_TMPDIR/hostfile" h2 h4 nosuchhost h3
	mh_start_with "$BATS_TEST_TMPDIR/hostfile"
	wait_until 60 mh_has_n 3
	local log
	wait_until 40 eval 'mh_log 1 | grep -q "cannot add host h4"'
	log=$(mh_log 1)
	printf '%s\n' "$log" | grep -E 'cannot add host (h4|nosuchhost)'
	printf '%s\n' "$log" | grep -Eq 'cannot add host nosuchhost: no such host'
	printf '%s\n' "$log" | grep -Eq 'cannot add host h4: .*(refused|ssh)'
	host_sshd_start 4
	run mh_console 1 conf
	show
	[[ "$output" != *" h4 "* ]]
	mh_ok 1 pt_mh pingall nobig
	printf '%s\n' "$output" | grep -qx "partners 2"
	# through the console too, once libpvm has pvm_addhosts
	run mh_console 1 'add nosuchhost'
	show
	[[ "$output" == *"0 successful"* ]]
	printf '%s\n' "$output" | grep -Eq '^ +nosuchhost +'
	[ "$(mh_conf_n)" = 3 ]
}

@test "hostfile: '&' hosts wait for a request, dx= names the pvmd, a wrong dx= is a clear error" {
	printf '%s\n' "* ep=$MH_BIN" "h2 dx=$PVMD_BIN" "&h3" "h4 dx=/nonexistent/pvmd" \
		>"$BATS_TEST_TMPDIR/hostfile"
	mh_start_with "$BATS_TEST_TMPDIR/hostfile"
	wait_until 60 mh_has_n 2
	wait_until 30 eval 'mh_log 1 | grep -q "cannot add host h4"'
	mh_log 1 | grep 'cannot add host h4'
	host_no_pvmd 3
	host_no_pvmd 4
	run mh_console 1 conf
	show
	printf '%s\n' "$output" | grep -Eq '^ +h2 +80000 '
	[[ "$output" != *" h3 "* && "$output" != *" h4 "* ]]
	mh_ok 1 pt_mh pingall nobig
	printf '%s\n' "$output" | grep -qx "partners 1"
}

@test "so=ms: a manual start through the foreground master's terminal; so=ms and so=pw without -f refused" {
	# without -f the master has no terminal for the dialogue: a clear error
	printf '%s\n' "* ep=$MH_BIN" "h2 so=ms" "h3 so=pw" >"$BATS_TEST_TMPDIR/hostfile"
	mh_start_with "$BATS_TEST_TMPDIR/hostfile"
	mh_log 1 | grep 'host h2: manual startup (so=ms) needs the master pvmd in the foreground'
	mh_log 1 | grep 'host h3: so=pw needs the master pvmd in the foreground'
	[ "$(mh_conf_n)" = 1 ]
	hosts_vm_stop "$MH_N"
	# in the foreground: the master prints what to type on h2 and reads
	# the answer on its stdin, as the reference's pvmd does
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' "* ep=$MH_BIN" "h2 so=ms" "h3" >"$d/hostfile"
	mkfifo "$d/in"
	exec 4<>"$d/in"
	MH_UP=1
	on_host_bg 1 bash -c "exec '$PVMD_BIN' -f '$d/hostfile' <'$d/in' >'$d/out' 2>'$d/err'"
	wait_until 20 grep -q 'Type response: ' "$d/out"
	cat "$d/out"
	grep -qx '\*\*\* Manual startup \*\*\*' "$d/out"
	grep -qx 'Login to "h2" and type:' "$d/out"
	# the secret is in the lines the user gives the new pvmd's stdin, on
	# no command line
	local cmd
	cmd=$(sed -n '/^Login to "h2" and type:$/{n;p}' "$d/out")
	[[ "$cmd" == *'" -s' ]]
	[[ "$cmd" != *secret* ]]
	sed -n '/on its standard input:$/,/^end$/p' "$d/out" | sed 1d >"$d/lines"
	grep -q '^secret [0-9a-f]\{64\}$' "$d/lines"
	# h3, started by ssh meanwhile, is already in
	wait_until 30 mh_has_n 2
	local answer
	answer=$(on_host 2 bash -c "$cmd <'$d/lines'")
	echo "h2 answered: $answer"
	[[ "$answer" == "ok "* ]]
	echo "$answer" >&4
	wait_until 30 mh_has_n 3
	run mh_console 1 conf
	show
	printf '%s\n' "$output" | grep -Eq '^ +h2 +[0-9a-f]+ +LINUX64'
	mh_ok 1 pt_mh pingall nobig
	exec 4>&-
}

@test "halt from a slave's console stops every host" {
	mh_start 4
	run mh_console 3 $'spawn -4 -> pt_mh child wait'
	show
	[[ "$output" == *"4 successful"* ]]
	local k
	for k in 1 2 3 4; do mh_tasks_on "$k"; done
	run mh_console 3 halt
	show
	for k in 1 2 3 4; do
		wait_until 10 host_no_pvmd "$k"
	done
	wait_until 5 eval '[ -z "$(vm_pids "$PVM_VMID")" ]'
}

# mh_port K: the TCP port host K's pvmd listens on.
mh_port() {
	on_host "$1" ss -ltnpH | awk -v p="$(host_pvmd_pid "$1")" \
		'$0 ~ "pid=" p "," { n = split($4, a, ":"); print a[n]; exit }'
}

@test "a forged pvmd without the secret is refused, a flood of silent connections is capped, the machine keeps working" {
	command -v python3 >/dev/null || skip "no python3"
	mh_start 3
	local port
	port=$(mh_port 1)
	[ -n "$port" ]
	run on_host 2 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h1 "$port" 2
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c '^ok ')" -eq 3 ]
	mh_log 1 | grep 'refused'
	# a claim of a number no host has: refused too
	run on_host 3 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h1 "$port" 9
	show
	[ "$status" -eq 0 ]
	# a slave's port (where other slaves open their links) as well
	port=$(mh_port 2)
	[ -n "$port" ]
	run on_host 1 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h2 "$port" 3
	show
	[ "$status" -eq 0 ]
	mh_log 2 | grep 'refused'
	# one that knows the secret cannot speak as the host it talks to:
	# the master's number to the master, a slave's own to that slave
	on_host 2 cat "$VMDIR/secret" >"$BATS_TEST_TMPDIR/secret"
	port=$(mh_port 1)
	run on_host 2 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h1 "$port" 1 "$BATS_TEST_TMPDIR/secret"
	show
	[ "$status" -eq 0 ]
	mh_log 1 | grep "claiming host 1, this host's own number"
	port=$(mh_port 3)
	run on_host 1 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h3 "$port" 3 "$BATS_TEST_TMPDIR/secret"
	show
	[ "$status" -eq 0 ]
	# nor as another host of the table (from an address that is not
	# that host's), nor as one the table does not have, to the master
	# or to a slave
	port=$(mh_port 1)
	run on_host 3 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h1 "$port" 2 "$BATS_TEST_TMPDIR/secret" 1
	show
	[ "$status" -eq 0 ]
	mh_log 1 | grep "claiming host 2, whose address is $(host_addr 2):"
	port=$(mh_port 2)
	run on_host 3 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h2 "$port" 1 "$BATS_TEST_TMPDIR/secret" 2
	show
	[ "$status" -eq 0 ]
	mh_log 2 | grep "claiming host 1, whose address is $(host_addr 1):"
	run on_host 1 timeout 60 python3 "$MH_BIN/forge_pvmd.py" h2 "$port" 7 "$BATS_TEST_TMPDIR/secret" 2
	show
	[ "$status" -eq 0 ]
	mh_log 2 | grep "claiming host 7, which is not in the table"
	[ "$(mh_conf_n)" = 3 ]
	mh_ok 1 pt_mh pingall nobig
	mh_ok 3 pt_mh pingall nobig
	# 200 connections to the master's port that never say a word: it
	# keeps at most a few dozen of them, and goes on
	port=$(mh_port 1)
	local pid fds0 fds
	pid=$(host_pvmd_pid 1)
	fds0=$(ls /proc/"$pid"/fd | wc -l)
	on_host_bg 3 python3 -c '
import socket, sys, time
s = [socket.create_connection(("h1", int(sys.argv[1]))) for _ in range(200)]
time.sleep(8)' "$port"
	local flood=$HOSTS_BG_PID
	wait_until 10 eval 'mh_log 1 | grep -q "dropped, the oldest of [0-9]* link connections not authenticated"'
	fds=$(ls /proc/"$pid"/fd | wc -l)
	echo "# master's descriptors: $fds0 before, $fds during the flood" >&3
	[ "$fds" -lt $((fds0 + 40)) ]
	# some 170 drops, logged as that address's other lines are: a burst,
	# then a few a second and a count
	local drops
	drops=$(mh_log 1 | grep -c "dropped, the oldest of")
	echo "# $drops lines about the drops" >&3
	[ "$drops" -le 40 ]
	[ "$(mh_conf_n)" = 3 ]
	mh_ok 1 pt_mh pingall nobig
	kill "$flood" 2>/dev/null || true
}

# ---- unchanged Debian programs ----

# mh_examples_start N: the machine for the Debian programs: our libraries
# on LD_LIBRARY_PATH for the master and, through PVM_EXPORT, for every
# task spawned anywhere.
mh_examples_start() {
	local p
	for p in master1 slave1 spmd timing timing_slave gexample; do
		[ -x "/usr/bin/$p" ] || skip "pvm-examples is not installed (/usr/bin/$p)"
	done
	export LD_LIBRARY_PATH=$OURLIB:$OURGLIB PVM_EXPORT=LD_LIBRARY_PATH
	mh_start "$1"
}

# mh_spawned_on K PROG: PROG ran on host K (its pvmd logged the spawn).
mh_spawned_on() {
	mh_log "$1" | grep -q "$2"
}

@test "Debian master1 with its slave1 tasks spread over the hosts" {
	mh_examples_start 4
	run on_host 1 timeout -k 5 "$TMO" /usr/bin/master1
	show
	[ "$status" -eq 0 ]
	# master1 starts 3 slaves per host (pvm_config)
	[ "${lines[0]}" = "Spawning 12 worker tasks ... SUCCESSFUL" ]
	local who
	for who in 0 1 2 3 4 5 6 7 8 9 10 11; do
		printf '%s\n' "$output" | grep -Eq "^I got ([0-9.]+) from $who; \(expecting \1\)\$"
	done
	[ "$(printf '%s\n' "$output" | grep -c '^I got ')" -eq 12 ]
	local k n=0
	for k in 2 3 4; do
		mh_spawned_on "$k" slave1 && n=$((n + 1))
	done
	echo "slave1 on $n remote hosts"
	[ "$n" -eq 3 ]
}

@test "Debian spmd: a token ring over four hosts" {
	mh_examples_start 4
	run on_host 1 timeout -k 5 "$TMO" bash -c \
		"(printf 'spawn -4 -> spmd\n'; sleep 5; printf 'quit\n') | '$CONSOLE' 2>&1"
	show
	printf '%s\n' "$output" | grep -Eq '^4 successful$'
	local tids hosts
	tids=$(printf '%s\n' "$output" | sed -n 's/^t\([0-9a-f]\{5,\}\)$/\1/p')
	[ "$(echo "$tids" | wc -w)" -eq 4 ]
	hosts=$(for t in $tids; do echo $((0x$t >> 18)); done | sort -u | wc -l)
	[ "$hosts" -ge 3 ]
	printf '%s\n' "$output" | grep -Fq "token ring done"
}

@test "Debian timing with timing_slave on another host" {
	mh_examples_start 2
	# default placement goes round the hosts from where the last spawn
	# stopped: one task on h1 first, then timing's slave goes to h2
	run mh_console 1 'spawn pt_mh child print'
	show
	printf '%s\n' "$output" | grep -Eq '^ *t4[0-9a-f]{4}$'
	run on_host 1 timeout -k 5 "$TMO" /usr/bin/timing
	show
	[ "$status" -eq 1 ]
	printf '%s\n' "$output" | grep -Eq '^RTT Avg uSec [0-9]+$'
	[ "$(printf '%s\n' "$output" | grep -c '^Avg Byte/uSec')" -eq 5 ]
	[ "$(printf '%s\n' "$output" | grep -c "can't send")" -eq 0 ]
	local s
	s=$(printf '%s\n' "$output" | sed -n 's/^slave is task t\([0-9a-f]*\)$/\1/p')
	echo "timing_slave t$s"
	[ "$((0x$s >> 18))" -eq 2 ]
}

@test "Debian gexample: group reduce with its tasks over four hosts" {
	mh_examples_start 4
	run on_host 1 timeout -k 5 "$TMO" /usr/bin/gexample <<<$'100\n8'
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"The 1-Norm is 5050"* ]]
	[[ "$output" == *"The product of column 1 is 9.33262e+157"* ]]
	local k n=0
	for k in 2 3 4; do
		mh_spawned_on "$k" gexample && n=$((n + 1))
	done
	[ "$n" -ge 2 ]
}
