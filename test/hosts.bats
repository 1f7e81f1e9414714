#!/usr/bin/env bats
# The multi-host harness itself (test/hosts.bash): four hosts, each with its
# own name, address, /tmp, /dev/shm and sshd; names, ssh, shared directories,
# cutting a link, and a teardown that leaves nothing behind.

load hosts

setup_file() {
	hosts_file_setup 4
	[ -n "${HOSTS_SKIP:-}" ] || echo "# hosts_up 4 took $HOSTS_UP_SECONDS s" >&3
}

setup() {
	hosts_test_setup
}

teardown_file() {
	hosts_down
}

# reach K NAME: host K opens a TCP connection to NAME's sshd within 1 s.
reach() {
	on_host "$1" timeout 1 bash -c 'exec 3<>"/dev/tcp/$0/22"' "$2"
}

# rsh K NAME CMD: host K runs CMD on NAME through $PVM_RSH.
rsh() {
	on_host "$1" timeout -k 2 20 "$PVM_RSH" "$2" "$3"
}

@test "every host has its own host name, the harness's names and addresses" {
	[ "$HOSTS_N" = 4 ]
	[ "${HOSTS_NAMES[3]}" = h3 ] && [ "$(host_name 3)" = h3 ]
	[ "${HOSTS_ADDRS[3]}" = "$(host_addr 3)" ]
	local k
	for k in 1 2 3 4; do
		run on_host "$k" hostname
		show
		[ "$status" -eq 0 ] && [ "$output" = "h$k" ]
		run on_host "$k" ip -4 -o addr show dev eth0
		[[ "$output" == *" $(host_addr "$k")/24 "* ]]
	done
	[ "$(hostname)" != h1 ]
}

@test "each host resolves every host's name, its own too, to its address" {
	local k want
	want=$(printf '%s h%s\n' "$(host_addr 1)" 1 "$(host_addr 2)" 2 \
		"$(host_addr 3)" 3 "$(host_addr 4)" 4)
	for k in 1 2 3 4; do
		run on_host "$k" getent hosts h1 h2 h3 h4
		show
		[ "$status" -eq 0 ]
		[ "$(printf '%s\n' "$output" | awk '{ print $1, $2 }')" = "$want" ]
	done
	# the machine's own /etc/hosts is untouched
	not grep -qw h2 /etc/hosts
}

@test "no route leaves the hosts' network" {
	run on_host 1 ip route
	show
	[[ "$output" != *default* ]]
	run on_host 1 ip route get 8.8.8.8
	[ "$status" -ne 0 ]
	# the machine's own network namespace got no interface of ours
	run ip -o link
	[[ "$output" != *"$HOSTS_ID"* ]]
}

@test "host 1 runs commands on hosts 2 and 3 through \$PVM_RSH (ssh, key login)" {
	run rsh 1 h2 hostname
	show
	[ "$status" -eq 0 ] && [ "$output" = h2 ]
	run on_host 1 timeout 20 "$PVM_RSH" -l root h3 'hostname; id -u'
	show
	[ "$status" -eq 0 ] && [ "$output" = $'h3\n0' ]
	# by address too, and from host 4 to host 1
	run rsh 4 "$(host_addr 1)" hostname
	[ "$status" -eq 0 ] && [ "$output" = h1 ]
	# the remote command's status comes back
	run rsh 1 h2 'exit 3'
	[ "$status" -eq 3 ]
}

@test "SSH_CONNECTION on the remote host shows the client's and the remote host's addresses" {
	run rsh 1 h2 'echo $SSH_CONNECTION'
	show
	[ "$status" -eq 0 ]
	local a=($output)
	[ "${a[0]}" = "$(host_addr 1)" ]
	[ "${a[2]}" = "$(host_addr 2)" ]
	[ "${a[3]}" = 22 ]
}

@test "on_host passes the caller's environment; ssh gives a clean login environment" {
	export PVMT_MARK=here-$$
	run on_host 2 sh -c 'echo "$PVMT_MARK"'
	[ "$output" = "here-$$" ]
	run on_host 2 env PVMT_OTHER=x sh -c 'echo "$PVMT_OTHER $PVMT_MARK"'
	[ "$output" = "x here-$$" ]
	run rsh 1 h2 'echo "${PVMT_MARK-unset} ${PVM_RSH-unset} ${abs_top_builddir-unset} $HOME"'
	show
	[ "$output" = "unset unset unset $(getent passwd root | cut -d: -f6)" ]
}

@test "on_host keeps the working directory when the host sees it, and the exit status" {
	cd "$abs_top_builddir"
	run on_host 3 pwd
	[ "$output" = "$abs_top_builddir" ]
	cd "$BATS_TEST_TMPDIR"
	run on_host 3 pwd
	[ "$output" = "$BATS_TEST_TMPDIR" ]
	run on_host 3 sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run on_host 5 true
	[ "$status" -ne 0 ]
	[[ "$output" == *"no host '5'"* ]]
}

@test "/tmp and /dev/shm are private to each host" {
	local f=pvmt-private-$$-$RANDOM
	on_host 1 sh -c "echo one >/tmp/$f && echo one >/dev/shm/$f"
	run on_host 1 cat "/tmp/$f" "/dev/shm/$f"
	[ "$output" = $'one\none' ]
	run on_host 2 ls "/tmp/$f"
	[ "$status" -ne 0 ]
	run on_host 2 ls "/dev/shm/$f"
	[ "$status" -ne 0 ]
	[ ! -e "/tmp/$f" ] && [ ! -e "/dev/shm/$f" ]
	# a file of the machine's /tmp is not seen either, and a session of
	# that host's sshd sees the host's /tmp
	echo real >"/tmp/$f"
	run on_host 2 ls "/tmp/$f"
	rm -f "/tmp/$f"
	[ "$status" -ne 0 ]
	run rsh 2 h1 "cat /tmp/$f"
	[ "$output" = one ]
}

@test "the build tree, the source tree and the test's temp dirs are the same everywhere" {
	local k
	echo "from the test" >"$BATS_TEST_TMPDIR/note"
	echo "shared" >"$HOSTS_SHARED/note"
	for k in 1 2 3 4; do
		on_host "$k" test -x "$abs_top_builddir/pvmd/pvmd"
		on_host "$k" test -f "$abs_top_srcdir/test/hosts.bash"
		run on_host "$k" cat "$BATS_TEST_TMPDIR/note" "$HOSTS_SHARED/note"
		[ "$output" = $'from the test\nshared' ]
	done
	# written on a host, seen by the machine and through ssh on another
	on_host 3 sh -c "echo h3 wrote >'$BATS_FILE_TMPDIR/back'"
	[ "$(cat "$BATS_FILE_TMPDIR/back")" = "h3 wrote" ]
	run rsh 1 h4 "cat '$BATS_FILE_TMPDIR/back'"
	[ "$output" = "h3 wrote" ]
}

@test "hosts_share shares a directory made in /tmp after hosts_up" {
	local d
	d=$(mktemp -d /tmp/pvmt-share.XXXXXX)
	echo late >"$d/f"
	run on_host 2 cat "$d/f"
	[ "$status" -ne 0 ]
	hosts_share "$d"
	run on_host 2 cat "$d/f"
	[ "$output" = late ]
	on_host 4 sh -c "echo from-h4 >'$d/g'"
	run cat "$d/g"
	rm -rf "$d"
	[ "$output" = from-h4 ]
}

@test "host_cut makes a host vanish from the network, host_uncut brings it back" {
	reach 1 h2
	reach 3 h2
	host_cut 2
	run reach 1 h2
	[ "$status" -ne 0 ]
	run reach 2 h3
	[ "$status" -ne 0 ]
	run on_host 1 timeout 10 "$PVM_RSH" -o ConnectTimeout=1 h2 true
	[ "$status" -ne 0 ]
	# the others still reach each other, and host 2 still runs things
	reach 1 h3
	run on_host 2 hostname
	[ "$output" = h2 ]
	host_uncut 2
	# back within 5 s (the neighbour entry of h2 may have failed during
	# the cut: the first connect then waits for ARP; seen under load)
	local n=0
	until reach 1 h2; do
		n=$((n + 1))
		[ "$n" -lt 5 ] || false
	done
	run rsh 1 h2 hostname
	[ "$output" = h2 ]
}

@test "host_sshd_stop refuses ssh to a host that is still on the network" {
	host_sshd_stop 3
	run rsh 1 h3 true
	show
	[ "$status" -ne 0 ]
	[[ "$output" == *refused* ]]
	host_sshd_start 3
	run rsh 1 h3 hostname
	[ "$output" = h3 ]
}

@test "a process started on a host stays in its namespaces" {
	on_host_bg 2 sleep 30
	local p=$HOSTS_BG_PID n=0
	# nsenter and sh exec the command: the pid is the sleep's
	while [ "$(readlink /proc/$p/exe 2>/dev/null)" != "$(readlink -f "$(command -v sleep)")" ]; do
		((n++ < 100))
		sleep 0.02
	done
	[ "$(readlink /proc/$p/ns/net)" = "$(readlink /proc/"$(cat "$HOSTS_DIR/h2/pid")"/ns/net)" ]
	[ "$(readlink /proc/$p/ns/mnt)" = "$(cat "$HOSTS_DIR/h2/mntns")" ]
	[ "$(readlink /proc/$p/ns/uts)" != "$(readlink /proc/$$/ns/uts)" ]
	kill "$p"
	wait "$p" || true
}

@test "hosts_down stops every process of the hosts and leaves nothing behind" {
	# a second network, next to the file's, in a subshell of its own
	(
		hosts_up 2
		id=$HOSTS_ID dir=$HOSTS_DIR
		echo "$id" >"$BATS_TEST_TMPDIR/id"
		# (durations of this test only, to find these processes)
		on_host_bg 1 sleep "3001.$$" </dev/null >/dev/null 2>&1
		# a detached process started through ssh, as a pvmd would be
		on_host 2 timeout 20 "$PVM_RSH" h1 "setsid sleep 3002.$$ </dev/null >/dev/null 2>&1 &"
		sleep 0.2
		pgrep -xf "sleep 300[12]\\.$$" >"$BATS_TEST_TMPDIR/sleeps"
		[ "$(wc -l <"$BATS_TEST_TMPDIR/sleeps")" -eq 2 ]
		cat "$HOSTS_DIR"/h*/sshd.pid "$HOSTS_DIR"/h*/pid >"$BATS_TEST_TMPDIR/pids"
		local t0=$EPOCHREALTIME
		hosts_down
		echo "# hosts_down of 2 hosts (with 2 processes) took $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') s" >&3
		[ -z "${HOSTS_ID:-}" ]
		# safe twice
		HOSTS_ID=$id hosts_down
		[ ! -e "$dir" ]
	)
	local id p
	id=$(cat "$BATS_TEST_TMPDIR/id")
	[ -n "$id" ] && [ "$id" != "$HOSTS_ID" ]
	for p in $(cat "$BATS_TEST_TMPDIR/sleeps" "$BATS_TEST_TMPDIR/pids"); do
		gone "$p"
	done
	run ip netns list
	[[ "$output" != *"$id"* ]]
	not ls -d /etc/netns/"$id"* 2>/dev/null
	[ ! -e "/tmp/$id.hosts" ]
	# the file's network is unaffected
	run rsh 1 h2 hostname
	[ "$output" = h2 ]
}

@test "hosts_up fails clearly and leaves nothing when a host's sshd cannot start" {
	local id
	run bash -c 'source "$abs_top_srcdir/test/hosts.bash" && echo "id pvmt$$" &&
		HOSTS_SSHD=/bin/false hosts_up 2 3>&-'
	show
	[ "$status" -ne 0 ]
	[[ "$output" == *"sshd of host 1 did not start (status 1)"* ]]
	id=$(printf '%s\n' "$output" | sed -n 's/^id //p')
	[ -n "$id" ]
	run ip netns list
	[[ "$output" != *"$id"* ]]
	[ ! -e "/tmp/$id.hosts" ]
	not ls -d /etc/netns/"$id"* 2>/dev/null
}

@test "a network left by a dead run is removed by the next one" {
	# a shell builds 2 hosts and exits without hosts_down
	local id
	id=$(bash -c 'source "$abs_top_srcdir/test/hosts.bash" && hosts_up 2 >/dev/null 2>&1 3>&- && echo "$HOSTS_ID"')
	[ -n "$id" ]
	ip netns list | grep -q "^${id}h1"
	local holder
	holder=$(cat "/tmp/$id.hosts/h1/pid")
	kill -0 "$holder"
	hosts_clean_stale
	run ip netns list
	[[ "$output" != *"$id"* ]]
	gone "$holder"
	not ls -d /etc/netns/"$id"* 2>/dev/null
	[ ! -e "/tmp/$id.hosts" ]
	# ours is alive (its shell is)
	run rsh 2 h3 hostname
	[ "$output" = h3 ]
}

# gone PID: no such process, or a zombie (when pid 1 does not reap orphans).
gone() {
	local st
	st=$(ps -o stat= -p "$1") || return 0
	echo "process $1: $st $(ps -o args= -p "$1")"
	[[ "$st" == Z* ]]
}

# not CMD...: CMD must fail (a bare `! CMD` never fails a bats test).
not() {
	! "$@"
}

show() {
	echo "status: $status"
	printf '%s\n' "$output"
}
