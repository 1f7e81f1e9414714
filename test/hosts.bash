# hosts.bash - real hosts on one machine, for the multi-host bats suites.
#
# hosts_up N builds a network of N hosts out of Linux namespaces (needs root
# and iproute2's `ip netns`, and openssh-server):
#   - host k: a network namespace <id>h<k> with one interface eth0, address
#     $HOSTS_NET.k/24, lo up, no default route (nothing leaves the network);
#     its own UTS namespace (hostname h<k>) and mount namespace with a private
#     tmpfs on /tmp and on /dev/shm, and an /etc/hosts that names every host;
#     its own sshd on port 22 of its address, root login with a generated key.
#   - the wire: every host's eth0 is a veth pair whose other end is port p<k>
#     of bridge br0 in a switch namespace <id>sw, so nothing is added to the
#     machine's own network namespace (nor seen by its firewall).
#   - <id> is pvmt<pid of the shell that called hosts_up>, so concurrent runs
#     never share a name; a leftover of a run whose shell is dead is removed
#     by the next hosts_up (hosts_clean_stale).
# Inside a host, /tmp is private but these directories stay visible at the
# same path (bind-mounted back after the tmpfs): $abs_top_builddir,
# $abs_top_srcdir, $HOSTS_DIR (and $HOSTS_SHARED in it), $BATS_RUN_TMPDIR
# (so BATS_FILE_TMPDIR and BATS_TEST_TMPDIR too) and the words of $HOSTS_KEEP.
# A directory made later in the real /tmp is shared with hosts_share DIR.
#
# Functions (K is a host number 1..N):
#   hosts_check          prints why hosts cannot be built here, returns 1; else 0
#   hosts_file_setup N   hosts_up N in setup_file, or HOSTS_SKIP=the reason
#   hosts_test_setup     in setup: skips the test if HOSTS_SKIP is set
#   hosts_up N           builds N hosts (tears down this shell's earlier ones)
#   hosts_down           stops every process in the hosts' namespaces (sshd,
#                        pvmds, tasks), removes namespaces, links, /etc/netns
#                        entries and $HOSTS_DIR; safe to call twice or after a
#                        partial hosts_up
#   on_host K CMD...     runs CMD in host K's namespaces (net, uts, mount) with
#                        the caller's environment and working directory (/ if
#                        that is not visible there); its status is CMD's
#   on_host_bg K CMD...  the same in the background; HOSTS_BG_PID = CMD's pid
#   host_name K          h<K>
#   host_addr K          host K's address
#   host_cut K           takes host K's bridge port down: host K vanishes from
#                        the network (its processes keep running)
#   host_uncut K         brings it back
#   host_sshd_stop K     stops host K's sshd;  host_sshd_start K  starts it
#   hosts_enable_password K PASSWORD
#                        host K's sshd also lets root log in with PASSWORD
#                        (password authentication; key login still works):
#                        a copy of /etc/shadow with root's hash set is bound
#                        over /etc/shadow in host K's mount namespace only
#   hosts_share DIR      makes DIR (created in the real /tmp after hosts_up)
#                        visible at the same path on every host
#   hosts_clean_stale    removes what dead runs left (hosts_up calls it)
# Variables (exported): HOSTS_N, HOSTS_ID, HOSTS_DIR, HOSTS_NET (a.b.c),
# HOSTS_SHARED (a directory visible on every host), PVM_RSH (a script:
# `$PVM_RSH [-l user] host 'cmd'` = ssh with the generated key and config),
# HOSTS_SSH_CONFIG; arrays HOSTS_NAMES[1..N] and HOSTS_ADDRS[1..N] (rebuilt
# each time this file is loaded, since bats tests are separate processes).
#
# Settings read by hosts_up: HOSTS_KEEP (more directories to keep visible),
# HOSTS_SSHD (default /usr/sbin/sshd), HOSTS_ROOT_BASHRC=keep (by default
# root's ~/.bashrc reads as empty in the hosts, as on a fresh host).
#
# A command that ssh runs gets sshd's clean login environment (HOME=/root,
# PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin for root,
# SSH_CONNECTION="<client ip> <port> <server ip> 22"): nothing of the
# caller's environment passes.
# /root, /etc and the rest of the file system are the machine's, shared by
# all hosts; only /tmp and /dev/shm are each host's own.  So a pvmd started
# on a host with its default PVM_TMP (/tmp) has a VM directory of its own;
# do not hand a PVM_TMP in a shared directory to pvmds of several hosts.
#
# Usage:
#   setup_file() { hosts_file_setup 3; }   # hosts_up 3, or note why not
#   setup() { hosts_test_setup; }          # skips with that reason
#   teardown_file() { hosts_down; }
#   @test "x" { run on_host 1 $PVM_RSH h2 hostname; [ "$output" = h2 ]; }

HOSTS_SSHD=${HOSTS_SSHD:-/usr/sbin/sshd}

# hosts_check: 0 if hosts can be built here, else prints the reason.
hosts_check() {
	if [ "$EUID" != 0 ]; then
		echo "multi-host tests need root (network namespaces)"
		return 1
	fi
	local c
	for c in ip unshare nsenter ssh ssh-keygen; do
		command -v "$c" >/dev/null || {
			echo "multi-host tests need $c (iproute2, util-linux, openssh-client)"
			return 1
		}
	done
	[ -x "$HOSTS_SSHD" ] || {
		echo "multi-host tests need sshd ($HOSTS_SSHD: apt-get install openssh-server)"
		return 1
	}
	[ "${1:-}" != noprobe ] || return 0
	local probe=pvmtprobe$$
	if ! ip netns add "$probe" 2>/dev/null; then
		echo "multi-host tests need network namespaces (ip netns add failed)"
		return 1
	fi
	ip netns del "$probe" 2>/dev/null || true
	return 0
}

# _hosts_vars: the per-host arrays, from the exported scalars.
_hosts_vars() {
	HOSTS_NAMES=() HOSTS_ADDRS=()
	[ -n "${HOSTS_N:-}" ] || return 0
	local k
	for ((k = 1; k <= HOSTS_N; k++)); do
		HOSTS_NAMES[k]=h$k
		HOSTS_ADDRS[k]=$HOSTS_NET.$k
	done
}

host_name() { echo "h$1"; }
host_addr() { echo "$HOSTS_NET.$1"; }

_hosts_k() {
	[[ "${1:-}" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le "${HOSTS_N:-0}" ] || {
		echo "hosts: no host '${1:-}' (hosts 1..${HOSTS_N:-0} are up)" >&2
		return 1
	}
}

# _hosts_holder K: sets _hosts_pid to the pid of the process holding host
# K's namespaces.
_hosts_holder() {
	_hosts_pid=
	read -r _hosts_pid <"$HOSTS_DIR/h$1/pid" 2>/dev/null
	[ -n "$_hosts_pid" ] && kill -0 "$_hosts_pid" 2>/dev/null || {
		echo "hosts: host $1 is not running" >&2
		return 1
	}
}

on_host() {
	_hosts_k "${1:-}" || return 1
	_hosts_holder "$1" || return 1
	shift
	nsenter -t "$_hosts_pid" -n -u -m -- /bin/sh -c \
		'cd "$0" 2>/dev/null || cd /; exec "$@"' "$PWD" "$@"
}

# on_host_bg K CMD...: on_host in the background; HOSTS_BG_PID is CMD's own
# pid (nsenter and sh exec it), so it can be waited for or killed.  Its
# fd 3 (bats's) is closed, so that bats does not wait for it.
on_host_bg() {
	_hosts_k "${1:-}" || return 1
	_hosts_holder "$1" || return 1
	shift
	nsenter -t "$_hosts_pid" -n -u -m -- /bin/sh -c \
		'cd "$0" 2>/dev/null || cd /; exec "$@"' "$PWD" "$@" 3>&- &
	HOSTS_BG_PID=$!
}

host_cut() {
	_hosts_k "${1:-}" && ip -n "${HOSTS_ID}sw" link set "p$1" down
}

host_uncut() {
	_hosts_k "${1:-}" && ip -n "${HOSTS_ID}sw" link set "p$1" up
}

host_sshd_start() {
	_hosts_k "${1:-}" || return 1
	_hosts_sshd_launch "$1" && _hosts_sshd_wait "$1"
}

_hosts_sshd_launch() {
	local d=$HOSTS_DIR/h$1 st=0
	rm -f "$d/sshd.pid" "$d/sshd.failed"
	on_host "$1" "$HOSTS_SSHD" -f "$d/sshd_config" -E "$d/sshd.log" \
		</dev/null >/dev/null 2>&1 3>&- || st=$?
	[ "$st" -eq 0 ] || echo "$st" >"$d/sshd.failed"
}

_hosts_sshd_wait() {
	local d=$HOSTS_DIR/h$1 n=0
	# sshd writes its pid file once it listens
	while ! [ -s "$d/sshd.pid" ]; do
		if [ -e "$d/sshd.failed" ] || ((n++ > 1000)); then
			echo "hosts: sshd of host $1 did not start$([ ! -e "$d/sshd.failed" ] ||
				echo " (status $(<"$d/sshd.failed"))"):" >&2
			[ ! -f "$d/sshd.log" ] || tail -n 5 "$d/sshd.log" >&2
			return 1
		fi
		sleep 0.01
	done
}

host_sshd_stop() {
	_hosts_k "${1:-}" || return 1
	local p n=0
	p=$(cat "$HOSTS_DIR/h$1/sshd.pid" 2>/dev/null) || return 0
	kill "$p" 2>/dev/null || return 0
	while kill -0 "$p" 2>/dev/null && ((n++ < 200)); do sleep 0.01; done
	rm -f "$HOSTS_DIR/h$1/sshd.pid"
}

# hosts_enable_password K PASSWORD: see the list above.  The host's mount
# namespace was made with private propagation (unshare --propagation
# private), so the bind mount is seen by host K's processes only; it goes
# with the namespace in hosts_down.  The password is passed on no command
# line.
hosts_enable_password() {
	_hosts_k "${1:-}" || return 1
	local k=$1 d=$HOSTS_DIR/h$1 hash
	[ -n "${2:-}" ] || { echo "hosts_enable_password: no password" >&2; return 1; }
	hash=$(openssl passwd -6 -stdin <<<"$2") || return 1
	(umask 077 && awk -F: -v OFS=: -v h="$hash" \
		'$1 == "root" { $2 = h; n++ } { print } END { exit !n }' \
		/etc/shadow >"$d/shadow") || return 1
	on_host "$k" mount --bind "$d/shadow" /etc/shadow || return 1
	sed -i -e 's/^PermitRootLogin .*/PermitRootLogin yes/' \
		-e 's/^PasswordAuthentication .*/PasswordAuthentication yes/' \
		"$d/sshd_config" || return 1
	host_sshd_stop "$k" && host_sshd_start "$k"
}

# hosts_share DIR: binds DIR (as the real machine sees it) at the same path
# in every host.  Each host sees the real /tmp at $HOSTS_DIR/h<k>/realtmp.
hosts_share() {
	local dir k src
	dir=$(readlink -f "$1") || return 1
	[ -d "$dir" ] || { echo "hosts_share: no directory $1" >&2; return 1; }
	for ((k = 1; k <= HOSTS_N; k++)); do
		case $dir in
		/tmp/*) src=$HOSTS_DIR/h$k/realtmp/${dir#/tmp/} ;;
		*) continue ;;	# only /tmp is private
		esac
		on_host "$k" /bin/sh -c 'mkdir -p "$2" && mount --bind "$1" "$2"' _ "$src" "$dir" ||
			return 1
	done
}

# _hosts_keep: the directories to bind back into each host's private /tmp,
# as paths relative to /tmp, outermost only.
_hosts_keep() {
	local c r k dirs=() list=() out=()
	for c in "${abs_top_builddir:-}" "${abs_top_srcdir:-}" "$HOSTS_DIR" \
		"${BATS_RUN_TMPDIR:-}" ${HOSTS_KEEP:-}; do
		[ -n "$c" ] && [ -d "$c" ] && dirs+=("$c")
	done
	# each as given and with its symbolic links resolved
	mapfile -t -O ${#dirs[@]} dirs < <(realpath -e -- "${dirs[@]}" 2>/dev/null)
	for r in "${dirs[@]}"; do
		r=${r%/}
		case $r in /tmp/?*) list+=("${r#/tmp/}") ;; esac
	done
	# outermost only, each once
	for r in "${list[@]}"; do
		for k in "${list[@]}" "${out[@]}"; do
			[ "$k" != "$r" ] && [[ "$r/" == "$k/"* ]] && continue 2
		done
		for k in "${out[@]}"; do
			[ "$k" != "$r" ] || continue 2
		done
		out+=("$r")
	done
	[ ${#out[@]} -eq 0 ] || printf '%s\n' "${out[@]}"
}

# The script that sets up one host's namespaces, starts its sshd, then holds
# the namespaces (run by `ip netns exec <ns> unshare --uts --mount
# --propagation private`).  Arguments: name, address, the host's directory,
# then the directories to keep (relative to /tmp).
_hosts_init_script='
set -e
name=$1 addr=$2 hd=$3
shift 3
case $hd in /?*) ;; *) echo "init: bad host directory" >&2; exit 1 ;; esac
# never mount anything in the machine'"'"'s own namespaces
if [ /proc/$$/ns/mnt -ef /proc/1/ns/mnt ] || [ /proc/$$/ns/net -ef /proc/1/ns/net ]; then
	echo "init: not in namespaces of its own" >&2
	exit 1
fi
echo $$ >"$hd/pid"
readlink /proc/$$/ns/mnt >"$hd/mntns"
hostname "$name"
printf "addr add %s/24 dev eth0\nlink set eth0 up\nlink set lo up\n" "$addr" |
	ip -batch -
# The new /tmp is built on the side, the kept directories bound into it
# while the real /tmp is still there, then it is moved over /tmp.
new=$hd/newtmp
mount -t tmpfs -o mode=1777 pvmhost-tmp "$new"
[ $# -eq 0 ] || (cd "$new" && mkdir -p "$@")
for rel in "$@"; do
	mount --bind "/tmp/$rel" "$new/$rel"
done
case $hd in
/tmp/*) real=$new/${hd#/tmp/}/realtmp ;;
*) real=$hd/realtmp ;;
esac
mount --bind /tmp "$real"
mount --move "$new" /tmp
mount -t tmpfs -o mode=1777 pvmhost-shm /dev/shm
# root as on a fresh host: no shell start-up file of this machine
if [ -n "$HOSTS_BASHRC" ] && [ -f "$HOSTS_BASHRC" ]; then
	mount --bind "$hd/../bashrc" "$HOSTS_BASHRC"
fi
: >"$hd/ready"
set +e
"$HOSTS_SSHD" -f "$hd/sshd_config" -E "$hd/sshd.log" </dev/null >/dev/null 2>&1 ||
	echo $? >"$hd/sshd.failed"
exec sleep infinity
'

# hosts_up N
# hosts_file_setup N: for setup_file: hosts_up N, or, where hosts cannot be
# built (not root, no netns, no sshd), exports HOSTS_SKIP with the reason
# (bats 1.8 cannot skip from setup_file).  hosts_test_setup, called from
# setup, then skips each test with that reason.
hosts_file_setup() {
	local why
	if why=$(hosts_check); then
		hosts_up "$@"
	else
		export HOSTS_SKIP=$why
	fi
}

hosts_test_setup() {
	[ -z "${HOSTS_SKIP:-}" ] || skip "$HOSTS_SKIP"
}

hosts_up() {
	local rc=0
	_hosts_up "$@" || rc=$?
	if [ "$rc" -ne 0 ] && [ -n "${HOSTS_ID:-}" ]; then
		echo "hosts_up: failed; removing what was built" >&2
		hosts_down
	fi
	return "$rc"
}

_hosts_up() {
	local n=${1:-}
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 250 ] || {
		echo "hosts_up: bad host count '$n'" >&2
		return 1
	}
	local why
	why=$(hosts_check noprobe) || { echo "hosts_up: $why" >&2; return 1; }
	local t0=$EPOCHREALTIME
	hosts_clean_stale
	# a second hosts_up in the same shell replaces the first network
	_hosts_clean_id "pvmt$$"

	export HOSTS_ID=pvmt$$
	export HOSTS_N=$n
	export HOSTS_NET=10.231.$(($$ % 250 + 1))
	export HOSTS_DIR=/tmp/$HOSTS_ID.hosts
	export HOSTS_SHARED=$HOSTS_DIR/shared
	export HOSTS_SSH_CONFIG=$HOSTS_DIR/ssh_config
	export PVM_RSH=$HOSTS_DIR/rsh
	_hosts_vars
	local d=$HOSTS_DIR sw=${HOSTS_ID}sw k
	mkdir -p "$d/shared" && chmod 755 "$d" || return 1

	# keys (one host key for all hosts) and the ssh configuration
	ssh-keygen -q -t ed25519 -N '' -C pvm-test-client -f "$d/client_key" &&
		ssh-keygen -q -t ed25519 -N '' -C pvm-test-host -f "$d/host_key" || return 1
	cp "$d/client_key.pub" "$d/authorized_keys"
	printf '%s\n' "Host *" "  User root" "  IdentityFile $d/client_key" \
		"  IdentitiesOnly yes" "  StrictHostKeyChecking no" \
		"  UserKnownHostsFile /dev/null" "  GlobalKnownHostsFile /dev/null" \
		"  LogLevel ERROR" "  BatchMode yes" "  ConnectTimeout 5" >"$d/ssh_config"
	printf '#!/bin/sh\nexec ssh -F %s "$@"\n' "$d/ssh_config" >"$d/rsh"
	chmod 755 "$d/rsh"
	local hosts=$'127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n'
	for ((k = 1; k <= n; k++)); do hosts+="$HOSTS_NET.$k h$k"$'\n'; done
	printf '%s' "$hosts" >"$d/hosts"
	[ -d /run/sshd ] || mkdir -m 755 /run/sshd
	local dirs=()
	for ((k = 1; k <= n; k++)); do
		dirs+=("$d/h$k/newtmp" "$d/h$k/realtmp" "/etc/netns/${HOSTS_ID}h$k")
	done
	mkdir -p "${dirs[@]}" || return 1
	for ((k = 1; k <= n; k++)); do
		# `ip netns exec` binds this over /etc/hosts
		printf '%s' "$hosts" >"/etc/netns/${HOSTS_ID}h$k/hosts" || return 1
		printf '%s\n' "ListenAddress $HOSTS_NET.$k" "Port 22" \
			"HostKey $d/host_key" "PidFile $d/h$k/sshd.pid" \
			"AuthorizedKeysFile $d/authorized_keys" \
			"PermitRootLogin prohibit-password" "PubkeyAuthentication yes" \
			"PasswordAuthentication no" "KbdInteractiveAuthentication no" \
			"StrictModes no" "UsePAM no" "UseDNS no" "PrintMotd no" \
			"PrintLastLog no" "X11Forwarding no" "MaxStartups 100" \
			"MaxSessions 100" "Subsystem sftp internal-sftp" \
			>"$d/h$k/sshd_config"
	done

	# the namespaces, the switch and the wires (a veth pair per host)
	{
		echo "netns add $sw"
		for ((k = 1; k <= n; k++)); do echo "netns add ${HOSTS_ID}h$k"; done
	} | ip -batch - || return 1
	{
		echo "link add br0 type bridge forward_delay 0"
		echo "link set br0 up"
		for ((k = 1; k <= n; k++)); do
			echo "link add p$k type veth peer name eth0 netns ${HOSTS_ID}h$k"
			echo "link set p$k master br0 up"
		done
	} | ip -n "$sw" -batch - || return 1

	local keep bashrc=
	mapfile -t keep < <(_hosts_keep)
	# root's ~/.bashrc, which bash reads for commands run by sshd, is
	# replaced in the hosts by an empty one (HOSTS_ROOT_BASHRC=keep keeps it)
	if [ "${HOSTS_ROOT_BASHRC:-}" != keep ]; then
		bashrc=~root/.bashrc
		: >"$d/bashrc"
	fi
	# the holders: each sets up its host's namespaces and starts its sshd
	local launched=()
	for ((k = 1; k <= n; k++)); do
		HOSTS_BASHRC=$bashrc HOSTS_SSHD=$HOSTS_SSHD \
			ip netns exec "${HOSTS_ID}h$k" \
			unshare --uts --mount --propagation private \
			/bin/sh -c "$_hosts_init_script" init "h$k" "$HOSTS_NET.$k" "$d/h$k" "${keep[@]}" \
			</dev/null >"$d/h$k/init.log" 2>&1 3>&- &
		launched[k]=$!
	done
	local w
	for ((k = 1; k <= n; k++)); do
		w=0
		while ! [ -e "$d/h$k/ready" ]; do
			if ! kill -0 "${launched[k]}" 2>/dev/null || ((w++ > 1000)); then
				echo "hosts_up: host $k did not come up:" >&2
				cat "$d/h$k/init.log" >&2
				return 1
			fi
			sleep 0.01
		done
	done
	for ((k = 1; k <= n; k++)); do
		_hosts_sshd_wait "$k" || return 1
	done
	HOSTS_UP_SECONDS=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
	export HOSTS_UP_SECONDS
}

# _hosts_kill_ns INODE...: kills every process in one of these namespaces
# (net or mnt inode numbers), TERM first, then KILL.
_hosts_kill_ns() {
	[ $# -gt 0 ] || return 0
	local want=" $* " pids t0=$EPOCHREALTIME sig=TERM
	while :; do
		# one pass over every process's namespaces (thousands of tasks may run)
		pids=$(stat -L -c '%i %n' /proc/[0-9]*/ns/net /proc/[0-9]*/ns/mnt 2>/dev/null |
			awk -v want="$want" -v self=$$ '
				index(want, " " $1 " ") { split($2, a, "/"); if (a[3] != self && !seen[a[3]]++) print a[3] }')
		[ -n "$pids" ] || return 0
		# TERM first; what is left after a second gets KILL; give up after 3
		kill -"$sig" $pids 2>/dev/null || true
		case $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { d = b - a; print (d > 3) ? "out" : (d > 1) ? "kill" : "" }') in
		out) echo "hosts: processes left: $pids" >&2; return 1 ;;
		kill) sig=KILL ;;
		esac
		sleep 0.05
	done
}

# _hosts_clean_id ID: removes everything of the run ID (from what exists,
# not from variables, so that it works for stale runs and partial set-ups).
_hosts_clean_id() {
	local id=$1 hd=/tmp/$1.hosts ns inos=() f
	local nss=
	# the namespaces `ip netns add` made (files in /run/netns)
	for f in /run/netns/"$id"*; do
		[[ "${f##*/}" =~ ^$id(h[0-9]+|sw)$ ]] && nss+=" ${f##*/}"
	done
	[ -z "$nss" ] || mapfile -t inos < <(cd /run/netns && stat -L -c %i $nss 2>/dev/null)
	for f in "$hd"/h*/mntns; do
		[ -f "$f" ] || continue
		read -r f <"$f" || continue
		f=${f#mnt:[} f=${f%]}
		inos+=("$f")
	done
	_hosts_kill_ns "${inos[@]}" || true
	[ -z "$nss" ] || printf 'netns del %s\n' $nss | ip -force -batch - 2>/dev/null || true
	rm -rf /etc/netns/"$id"h[0-9]* "$hd" || true
	return 0
}

# hosts_clean_stale: removes the networks of runs whose shell is gone.
hosts_clean_stale() {
	local f id done=" $$ "
	for f in /run/netns/pvmt* /etc/netns/pvmt* /tmp/pvmt*.hosts; do
		[[ "${f##*/}" =~ ^pvmt([0-9]+)(h[0-9]+|sw|\.hosts)$ ]] || continue
		id=${BASH_REMATCH[1]}
		[[ "$done" != *" $id "* ]] || continue
		done+="$id "
		kill -0 "$id" 2>/dev/null && continue
		_hosts_clean_id "pvmt$id"
	done
	return 0
}

hosts_down() {
	local id=${HOSTS_ID:-pvmt$$}
	_hosts_clean_id "$id"
	# leave nothing behind in this shell either
	if [ "${HOSTS_ID:-}" = "$id" ]; then
		unset HOSTS_ID HOSTS_N HOSTS_NET HOSTS_DIR HOSTS_SHARED HOSTS_SSH_CONFIG
		unset PVM_RSH HOSTS_UP_SECONDS
		HOSTS_NAMES=() HOSTS_ADDRS=()
	fi
	return 0
}

# ---- a virtual machine on the hosts (needs VMDIR, CONSOLE: helpers.bash) ----

# host_pvmd_pid K: the pid of this VM's pvmd on host K (empty if none).
host_pvmd_pid() {
	local p
	p=$(on_host "$1" cat "$VMDIR/pvmd.pid" 2>/dev/null) || return 0
	[ -n "$p" ] && kill -0 "$p" 2>/dev/null && echo "$p"
	return 0
}

# host_no_pvmd K: true if host K runs no pvmd of this VM.
host_no_pvmd() {
	[ -z "$(host_pvmd_pid "$1")" ]
}

# hosts_vm_stop N: halts the VM from h1 and kills what is left of it on
# hosts 1..N (pvmds, their VM directories, tasks).
hosts_vm_stop() {
	local k p pids
	if [ -n "$(host_pvmd_pid 1)" ]; then
		echo halt | on_host 1 timeout -k 2 10 "$CONSOLE" >/dev/null 2>&1 || true
		wait_until 5 host_no_pvmd 1 || true
	fi
	for ((k = 1; k <= $1; k++)); do
		p=$(host_pvmd_pid "$k")
		[ -z "$p" ] || kill -KILL "$p" 2>/dev/null || true
		on_host "$k" rm -rf "$VMDIR" 2>/dev/null || true
	done
	# tasks carry PVM_VMID in their environment, on every host
	pids=$(vm_pids "$PVM_VMID") || true
	[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
	return 0
}

# hosts_bin DIR [FILE...]: DIR gets links to the test programs (pt_*)
# and the FILEs: the spawn path (PVM_PATH) of the VMs on the hosts.
hosts_bin() {
	local d=$1 p
	shift
	mkdir -p "$d"
	for p in "$PROGS"/pt_* "$@"; do
		[ -x "$p" ] && [ -f "$p" ] && ln -sf "$p" "$d/${p##*/}"
	done
	return 0
}

# hosts_vm_env PREFIX BINDIR: the environment of one test's VM on the
# hosts: a fresh PVM_VMID starting with PREFIX, PVM_PATH=BINDIR, a HOME of
# its own, no setting left from the caller; VMDIR is its VM directory
# (each host has its own /tmp: the same path on every host).
hosts_vm_env() {
	export PVM_VMID="$1${BATS_ROOT_PID:-$$}x${BATS_TEST_NUMBER}x$RANDOM"
	export PVM_ROOT=/usr/lib/pvm3 PVM_ALLOW_ROOT=1 PVM_PATH=$2
	export HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	unset PVM_TMP PVM_EXPORT PVM_DEBUG PVM_ARCH PVM_SPAWN_TID LD_LIBRARY_PATH
	unset PVM_HOST_TIMEOUT PVM_HOST_START_TIMEOUT
	VMDIR=/tmp/pvm.$(id -u).$PVM_VMID
}

_hosts_vars
