#!/usr/bin/env bats
# so=pw (man 1 pvmd3): the foreground master asks a host's password on its
# terminal and ssh logs in with it (docs/hosts.md, "so=pw").  Three hosts
# of test/hosts.bash: the master on h1, h2 takes a password for root
# (hosts_enable_password; its key login still works, so a start that joins
# with a wrong password would mean the key won), h3 key login only.  The
# master runs on a pseudo-terminal (test/pw_pty.py), which types the
# password from a file when the prompt shows.

load helpers
load hosts

setup_file() {
	hosts_file_setup 3
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	echo "# hosts_up 3 took $HOSTS_UP_SECONDS s" >&3
	command -v openssl python3 >/dev/null || {
		export HOSTS_SKIP="needs openssl and python3"
		return 0
	}
	export PW_SHADOW_SUM=$(sha256sum /etc/shadow)
	export PW_GOOD=$BATS_FILE_TMPDIR/pw.good PW_BAD=$BATS_FILE_TMPDIR/pw.bad
	(umask 077 && printf 'pvm-pw-%s-%s\n' "$RANDOM$RANDOM" "$$" >"$PW_GOOD" &&
		printf 'wrong-%s\n' "$RANDOM$RANDOM" >"$PW_BAD")
	hosts_enable_password 2 "$(cat "$PW_GOOD")"
	export MH_BIN=$BATS_FILE_TMPDIR/bin
	mkdir -p "$MH_BIN"
	ln -sf /bin/hostname "$MH_BIN/hostname"
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	skip_if_ref "so=pw: ours only"
	hosts_vm_env pw "$MH_BIN"
	PW_DRIVER=
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		echo "--- h1's pvmd.log"
		on_host 1 tail -n 30 "$VMDIR/pvmd.log" 2>/dev/null || true
		echo "--- the master's terminal"
		cat "$BATS_TEST_TMPDIR/tty" 2>/dev/null || true
	fi
	[ -z "$PW_DRIVER" ] || kill -KILL "$PW_DRIVER" 2>/dev/null || true
	hosts_vm_stop 3
	return 0
}

pw_console() {
	printf '%s\n' "$1" | on_host 1 timeout -k 5 "$TMO" "$CONSOLE" 2>&1
}

pw_conf_n() {
	pw_console conf | sed -n 's/^\([0-9][0-9]*\) hosts\{0,1\},.*/\1/p'
}

pw_has_n() {
	[ "$(pw_conf_n)" = "$1" ]
}

# pw_joined NAME: h1's log says host NAME is in the machine.
pw_joined() {
	on_host 1 grep -q "host $1 added as " "$VMDIR/pvmd.log" 2>/dev/null
}

# pw_master HOSTFILE PWFILE [GOFILE]: `pvmd -f HOSTFILE` on h1 on a
# pseudo-terminal whose output goes to $BATS_TEST_TMPDIR/tty; the prompt is
# answered with PWFILE's content (once GOFILE exists, if given).
pw_master() {
	: >"$BATS_TEST_TMPDIR/tty"
	on_host_bg 1 env PW_PTY_GO="${3:-}" PVM_RSH="${PW_RSH:-$PVM_RSH}" python3 "$abs_top_srcdir/test/pw_pty.py" \
		"$BATS_TEST_TMPDIR/tty" "$2" "$PVMD_BIN" -f "$1"
	PW_DRIVER=$HOSTS_BG_PID
}

# no_password_anywhere: the good password is on no process's command line
# or in any environment, in no file of the VM directory on h1, not in the
# log, not echoed on the terminal.
no_password_anywhere() {
	if ps -eo args | grep -F -f "$PW_GOOD"; then false; fi
	if grep -l -F -f "$PW_GOOD" /proc/[0-9]*/environ 2>/dev/null; then false; fi
	if on_host 1 grep -r -l -F -f "$PW_GOOD" "$VMDIR"; then false; fi
	! grep -F -f "$PW_GOOD" "$BATS_TEST_TMPDIR/tty"
}

@test "so=pw: the password typed at the foreground master's prompt logs h2 in; it is in no file, command line or echo" {
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' "* ep=$MH_BIN" "h2 so=pw" "h3" >"$d/hostfile"
	# a PVM_RSH that notes how ssh is run, and the password file then
	cat >"$d/rsh" <<-EOF
		#!/bin/sh
		{ echo "args: \$*"
		  echo "env: \${SSH_ASKPASS:-} \${SSH_ASKPASS_REQUIRE:-} \${PVMD_ASKPASS_FILE:-}"
		  [ -z "\${PVMD_ASKPASS_FILE:-}" ] || stat -c 'file: %a %U %s' "\$PVMD_ASKPASS_FILE"
		} >>"$d/rsh.log" 2>&1
		exec "$PVM_RSH" "\$@"
	EOF
	chmod +x "$d/rsh"
	PW_RSH=$d/rsh pw_master "$d/hostfile" "$PW_GOOD" "$d/go"
	wait_until 20 grep -q 'Password (h2:root): ' "$d/tty"
	# while the prompt waits, h3 (ssh key) joins
	wait_until 20 pw_joined h3
	no_password_anywhere
	touch "$d/go"
	wait_until 30 pw_joined h2
	run pw_console conf
	show
	printf '%s\n' "$output" | grep -Eq '^ +h2 +[0-9a-f]+ +LINUX64'
	# a task spawned there runs there
	run on_host 1 timeout -k 5 "$TMO" bash -c \
		"(printf 'spawn -h2 -> hostname\n'; sleep 2; printf 'quit\n') | '$CONSOLE' 2>&1"
	show
	[[ "$output" == *"1 successful"* ]]
	printf '%s\n' "$output" | grep -Eq '^(pvm> )?\[[0-9]+:t[0-9a-f]+\] h2$'
	on_host 1 grep -q 'starting a pvmd on h2 (host 2) with a password' "$VMDIR/pvmd.log"
	# ssh ran with password options only, pvmd as its askpass program,
	# the password in a 0600 file of the VM directory, of its length
	cat "$d/rsh.log"
	grep -q "^args: -o PreferredAuthentications=keyboard-interactive,password -o NumberOfPasswordPrompts=1 -o BatchMode=no h2 " "$d/rsh.log"
	grep -qx "env: $PVMD_BIN force $VMDIR/askpass.2" "$d/rsh.log"
	grep -qx "file: 600 root $(($(wc -c <"$PW_GOOD") - 1))" "$d/rsh.log"
	# h3 (no so=pw) is started as always
	grep -q "^args: h3 " "$d/rsh.log"
	grep -qx "env:   " "$d/rsh.log"
	# the password file is gone once ssh logged in
	run on_host 1 ls "$VMDIR"
	show
	[[ "$output" != *askpass* ]]
	no_password_anywhere
}

@test "so=pw with no terminal: the password is read from stdin (a pipe), one line per host; end of input fails the next" {
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' "* ep=$MH_BIN" "h2 so=pw" "h3 so=pw lo=root" >"$d/hostfile"
	on_host_bg 1 setsid bash -c "cat '$PW_GOOD' | exec '$PVMD_BIN' -f '$d/hostfile' >'$d/tty' 2>&1"
	wait_until 20 pw_joined h2
	wait_until 20 on_host 1 grep -q 'cannot add host h3' "$VMDIR/pvmd.log"
	on_host 1 grep -q 'cannot add host h3: no password (end of input)' "$VMDIR/pvmd.log"
	# the prompts went to stdout, one per host, in the hostfile's order
	[ "$(grep -o 'Password ([a-z0-9]*:root): ' "$d/tty" | tr -d '\n')" = \
		'Password (h2:root): Password (h3:root): ' ]
	[ "$(pw_conf_n)" = 2 ]
	no_password_anywhere
}

@test "so=pw: a wrong password fails that host only (PvmCantStart, ssh's reason in the log), the key does not log in instead" {
	local d=$BATS_TEST_TMPDIR
	printf '%s\n' "* ep=$MH_BIN" "h2 so=pw" "h3" >"$d/hostfile"
	# h2's key login works: only the password options keep it out
	on_host 1 timeout 20 "$PVM_RSH" h2 true
	pw_master "$d/hostfile" "$PW_BAD"
	wait_until 20 pw_joined h3
	wait_until 20 on_host 1 grep -q 'cannot add host h2' "$VMDIR/pvmd.log"
	run on_host 1 grep 'cannot add host h2' "$VMDIR/pvmd.log"
	show
	[[ "$output" == *"Permission denied"* ]]
	# the foreground master printed it on its terminal too, and runs on
	grep -q 'cannot add host h2' "$d/tty"
	[ -n "$(host_pvmd_pid 1)" ]
	run pw_console conf
	show
	printf '%s\n' "$output" | grep -Eq '^ +h3 +[0-9a-f]+ +LINUX64'
	if printf '%s\n' "$output" | grep -Eq '^ +h2 '; then false; fi
	[ "$(pw_conf_n)" = 2 ]
	# console add of h2 (the hostfile's so=pw): asked again, fails again
	run pw_console 'add h2'
	show
	printf '%s\n' "$output" | grep -Eq "^ +h2 Can't start pvmd$"
	run on_host 1 ls "$VMDIR"
	[[ "$output" != *askpass* ]]
	if on_host 1 grep -F -f "$PW_BAD" "$VMDIR/pvmd.log"; then false; fi
	! grep -F -f "$PW_BAD" "$d/tty"
}

@test "so=pw without a foreground master (detached pvmd, console add): refused with the reason, the rest starts" {
	local d=$BATS_TEST_TMPDIR
	# so=pw from the '*' line; h3 sets it back
	printf '%s\n' "* ep=$MH_BIN so=pw" "h2" "h3 so=" >"$d/hostfile"
	on_host 1 timeout -k 5 30 "$PVMD_BIN" "$d/hostfile" </dev/null >"$d/out" 2>&1
	wait_until 20 pw_joined h3
	run on_host 1 cat "$VMDIR/pvmd.log"
	[[ "$output" == *"host h2: so=pw needs the master pvmd in the foreground (pvmd -f): the password is asked on its terminal"* ]]
	[ "$(pw_conf_n)" = 2 ]
	# the reason on the stderr of whoever started the master, too
	grep -qxF "pvmd: host h2 not added: Can't start pvmd: so=pw needs the master pvmd in the foreground (pvmd -f)" "$d/out"
	# a host added later gets so=pw from the '*' line: refused too, the
	# console saying why
	run pw_console 'add h2'
	show
	printf '%s\n' "$output" | grep -Eq "^ +h2 Can't start pvmd$"
	printf '%s\n' "$output" | grep -Eq '^ +so=pw needs the master pvmd in the foreground \(pvmd -f\)$'
	[ "$(on_host 1 grep -c 'host h2: so=pw needs the master pvmd in the foreground' "$VMDIR/pvmd.log")" = 2 ]
	# no prompt anywhere
	! grep -q 'Password (' "$d/out"
}

@test "pvmd's askpass mode prints only a private password file of this VM's directory" {
	local t=$BATS_TEST_TMPDIR/ap
	mkdir -p "$t"
	export PVM_TMP=$t PVM_VMID=apvm
	local dir=$t/pvm.$(id -u).apvm
	mkdir -m 700 "$dir"
	(umask 077 && printf 'p4ss' >"$dir/askpass.2")
	run env PVMD_ASKPASS_FILE="$dir/askpass.2" "$PVMD_BIN" "root@h2's password: "
	[ "$status" -eq 0 ] && [ "$output" = p4ss ]
	# a host key question is not answered with it
	run env PVMD_ASKPASS_FILE="$dir/askpass.2" "$PVMD_BIN" "Are you sure you want to continue connecting (yes/no/[fingerprint])? "
	[ "$status" -eq 1 ] && [[ "$output" != *p4ss* ]]
	# not in the VM directory, not named askpass.<n>, a link, a path
	# that climbs out, group/other bits, another VM's directory
	ln -s /etc/hostname "$dir/askpass.3"
	printf x >"$dir/other" && chmod 600 "$dir/other"
	local f
	for f in /etc/hostname "$dir/other" "$dir/askpass.3" "$dir/askpass.2/../other" \
		"$dir/../pvm.$(id -u).apvm/askpass.2"; do
		run env PVMD_ASKPASS_FILE="$f" "$PVMD_BIN" "Password: "
		echo "$f: $status $output"
		[ "$status" -eq 1 ] && [[ "$output" == "pvmd (askpass): "* ]]
		[[ "$output" != *p4ss* ]]
	done
	chmod 640 "$dir/askpass.2"
	run env PVMD_ASKPASS_FILE="$dir/askpass.2" "$PVMD_BIN" "Password: "
	[ "$status" -eq 1 ] && [[ "$output" == *"not private"* ]]
	chmod 600 "$dir/askpass.2"
	run env PVM_VMID=other PVMD_ASKPASS_FILE="$dir/askpass.2" "$PVMD_BIN" "Password: "
	[ "$status" -eq 1 ] && [[ "$output" != *p4ss* ]]
	# a VM directory open to others is not trusted
	chmod 755 "$dir"
	run env PVMD_ASKPASS_FILE="$dir/askpass.2" "$PVMD_BIN" "Password: "
	[ "$status" -eq 1 ] && [[ "$output" != *p4ss* ]]
}

@test "the machine's /etc/shadow is untouched (h2's copy is bound in its own mount namespace only)" {
	[ "$(sha256sum /etc/shadow)" = "$PW_SHADOW_SUM" ]
	if findmnt -n /etc/shadow; then false; fi
	on_host 2 findmnt -n /etc/shadow
	! on_host 3 findmnt -n /etc/shadow
}
