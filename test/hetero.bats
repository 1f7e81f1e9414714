#!/usr/bin/env bats
# A virtual machine of unlike hosts (docs/hetero.md): an x86_64 master on
# h1, an s390x host h2 (big-endian, LP64; its pvmd and tasks are s390x
# binaries run by qemu-user through binfmt_misc) and an i686 host h3
# (little-endian, ILP32; run natively), each with the pvmd and test
# programs of its own build (test/cross/build.sh: the trees the cross
# pass of test/run.sh makes, or made here).  Every test first proves
# that each host is what it claims.  Skipped, with the reason, where the
# cross compilers, qemu-user or the hosts of hosts.bash are missing.

load helpers
load hosts

# hx_tree ARCH: the build tree for ARCH, built if need be; sets HX_TREE
# and HX_SYSROOT, or HX_WHY.
hx_tree() {
	local top=${PVM_CROSS_TOP:-$B/cross-build} out rc src
	HX_TREE=$top/$1
	# the source the tree was configured from (a copy, for an in-place
	# configured one), or this one
	src=$(cat "$HX_TREE/.pvm-srcdir" 2>/dev/null) || src=$S
	if [ "$src" = "$S" ] && [ -f "$S/config.status" ]; then
		HX_WHY="no $1 tree in $top (the whole suite, make check, builds it from a copy of this in-place configured source)"
		return 1
	fi
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		"$S/test/cross/build.sh" "$1" "$HX_TREE" "$src" 2>"$BATS_FILE_TMPDIR/build-$1.log")
	rc=$?
	if [ "$rc" -eq 77 ]; then
		HX_WHY=$(tail -n 1 "$BATS_FILE_TMPDIR/build-$1.log")
		return 1
	fi
	[ "$rc" -eq 0 ] || {
		HX_WHY="the $1 build failed: $(tail -n 3 "$BATS_FILE_TMPDIR/build-$1.log")"
		return 1
	}
	HX_SYSROOT=$(printf '%s\n' "$out" | tail -n 1)
}

# hx_binfmt: s390x programs run when executed (binfmt_misc, qemu-user).
hx_binfmt() {
	local f=/proc/sys/fs/binfmt_misc
	command -v qemu-s390x >/dev/null || return 1
	[ -f "$f/status" ] || mount -t binfmt_misc binfmt_misc "$f" 2>/dev/null || return 1
	[ -f "$f/qemu-s390x" ] || update-binfmts --enable qemu-s390x >/dev/null 2>&1 ||
		update-binfmts --import qemu-s390x >/dev/null 2>&1 || true
	grep -qx enabled "$f/qemu-s390x" 2>/dev/null
}

setup_file() {
	# the hosts' own trees first (built by the cross pass already, or
	# here), then the hosts: nothing runs between hosts_up and the tests
	local why
	if ! why=$(hosts_check); then
		export HOSTS_SKIP=$why
		return 0
	fi
	if ! hx_tree s390x; then
		export HOSTS_SKIP=$HX_WHY
		return 0
	fi
	export HX_S390X=$HX_TREE HX_S390X_ROOT=$HX_SYSROOT
	if ! hx_tree i386; then
		export HOSTS_SKIP=$HX_WHY
		return 0
	fi
	export HX_I386=$HX_TREE HX_I386_ROOT=$HX_SYSROOT
	if ! hx_binfmt; then
		export HOSTS_SKIP="s390x programs do not run here: qemu-user-binfmt is not installed or binfmt_misc cannot be enabled"
		return 0
	fi
	if [ ! -e /lib/ld-linux.so.2 ]; then
		export HOSTS_SKIP="i686 programs do not run here: no /lib/ld-linux.so.2 (apt-get install libc6-i386)"
		return 0
	fi
	# each host's pvmd, through a dx= wrapper that gives it its libraries
	local d=$BATS_FILE_TMPDIR
	# (LD_LIBRARY_PATH: our libraries of that architecture, for the
	# Debian programs its tasks run)
	cat >"$d/dx-s390x" <<EOF
#!/bin/sh
QEMU_LD_PREFIX=$HX_S390X_ROOT
LD_LIBRARY_PATH=$HX_S390X/libpvm/.libs:$HX_S390X/libpvm/group/.libs
export QEMU_LD_PREFIX LD_LIBRARY_PATH
exec $HX_S390X/pvmd/pvmd "\$@"
EOF
	cat >"$d/dx-i386" <<EOF
#!/bin/sh
LD_LIBRARY_PATH=$HX_I386/libpvm/.libs:$HX_I386/libpvm/group/.libs:$HX_I386_ROOT/usr/lib/i386-linux-gnu
export LD_LIBRARY_PATH
exec $HX_I386/pvmd/pvmd "\$@"
EOF
	chmod 755 "$d/dx-s390x" "$d/dx-i386"
	export HX_DIR=$d
	hosts_up 3
	on_host 1 true || {
		echo "hosts_up 3: host 1 is not running; $HOSTS_DIR holds:"
		ls -lR "$HOSTS_DIR" | head -30
		return 1
	}
}

teardown_file() {
	hosts_down
}

setup() {
	hosts_test_setup
	hosts_vm_env hx "$B/test/progs"
	export CONSOLE=$B/console/pvm
}

teardown() {
	[ -n "${HOSTS_SKIP:-}" ] && return 0
	host_uncut 2 2>/dev/null || true
	if [ -z "${BATS_TEST_COMPLETED:-}" ]; then
		local k
		for k in 1 2 3; do
			echo "--- last lines of h$k's pvmd.log"
			on_host "$k" tail -n 15 "$VMDIR/pvmd.log" 2>/dev/null || true
		done
	fi
	hosts_vm_stop 3
	return 0
}

hx_hosts() {
	[ "$(echo conf | on_host 1 timeout -k 2 10 "$CONSOLE" 2>/dev/null |
		sed -n 's/^\([0-9][0-9]*\) hosts\{0,1\},.*/\1/p')" = "$1" ] ||
		{ sleep 0.4; return 1; }
}

# hx_start [EP1 EP2 EP3]: the machine of three hosts, each spawning from
# its own tree's test programs (or from the directories given).
hx_start() {
	local hf=$BATS_TEST_TMPDIR/hostfile
	{
		echo "* ep=${1:-$B/test/progs}"
		echo "h2 dx=$HX_DIR/dx-s390x ep=${2:-$HX_S390X/test/progs}"
		echo "h3 dx=$HX_DIR/dx-i386 ep=${3:-$HX_I386/test/progs}"
	} >"$hf"
	on_host 1 timeout -k 5 60 "$B/pvmd/pvmd" "$hf" </dev/null \
		>"$BATS_TEST_TMPDIR/start.out" 2>&1 ||
		{ cat "$BATS_TEST_TMPDIR/start.out"; return 1; }
	wait_until 90 hx_hosts 3 || {
		echo "the machine did not get 3 hosts:"
		cat "$BATS_TEST_TMPDIR/start.out"
		return 1
	}
	# every test first proves each host is what it claims: its pvmd's
	# ELF machine and byte order, and conf's ARCH and DSIG
	hx_pvmd_is 1 62/L
	hx_pvmd_is 2 22/B
	hx_pvmd_is 3 3/L
	local conf
	conf=$(echo conf | on_host 1 timeout -k 2 10 "$CONSOLE" 2>/dev/null)
	printf '%s\n' "$conf" | grep -Eq '^ +h1 +40000 +LINUX64 +1000 +0x00408c41$'
	printf '%s\n' "$conf" | grep -Eq '^ +h2 +80000 +LINUXS390 +1000 +0x0658ef59$'
	printf '%s\n' "$conf" | grep -Eq '^ +h3 +c0000 +LINUX +1000 +0x00408841$'
}

# hx_debian_ep PROG...: directories ep1 (x86_64), ep2 (s390x) and ep3
# (i386) in the test's directory with each architecture's Debian PROGs.
hx_debian_ep() {
	local k p
	for k in 1 2 3; do
		mkdir -p "$BATS_TEST_TMPDIR/ep$k"
	done
	for p in "$@"; do
		ln -sf "/usr/bin/$p" "$BATS_TEST_TMPDIR/ep1/$p"
		ln -sf "$HX_S390X_ROOT/usr/bin/$p" "$BATS_TEST_TMPDIR/ep2/$p"
		ln -sf "$HX_I386_ROOT/usr/bin/$p" "$BATS_TEST_TMPDIR/ep3/$p"
	done
	# the master's own spawn path is its PVM_PATH, and its tasks load
	# our libraries through its environment
	export PVM_PATH=$BATS_TEST_TMPDIR/ep1 LD_LIBRARY_PATH=$OURLIB:$OURGLIB
}

# hx_elf FILE: "machine/order" of an ELF file (3 i386, 22 s390, 62 x86-64).
hx_elf() {
	sh "$S/test/cross/elf.sh" "$1"
}

# hx_pvmd_is K WANT: host K's pvmd is an ELF of WANT ("machine/order"):
# /proc/PID/exe, or under qemu-user (where that is the emulator) the
# program qemu runs, the first word of the command line qemu was given.
hx_pvmd_is() {
	local pid exe
	pid=$(host_pvmd_pid "$1")
	[ -n "$pid" ] || { echo "h$1: no pvmd"; return 1; }
	exe=$(readlink "/proc/$pid/exe")
	case $exe in
	*/qemu-*) exe=$(tr '\0' '\n' <"/proc/$pid/cmdline" | grep -m1 '/pvmd$') ;;
	esac
	echo "h$1: pvmd $pid is $exe: $(hx_elf "$exe")"
	[ "$(hx_elf "$exe")" = "$2" ]
}

@test "an s390x and an i686 pvmd join an x86_64 master: each host's own ELF, ARCH and DSIG" {
	# hx_start checks each pvmd's ELF and each host's line of conf
	hx_start
	run on_host 1 timeout -k 2 10 "$CONSOLE" <<<conf
	show
	[[ "$output" == *"3 hosts, 3 data formats"* ]]
}

@test "a task on each host reports its own byte order and long, and every type in PvmDataDefault crosses both ways bit for bit" {
	hx_start
	run on_host 1 timeout -k 5 120 "$B/test/progs/pt_arch" h1 h2 h3
	show
	[ "$status" -eq 0 ]
	output_is "h1: little-endian long=8 elf=x86-64 there=ok back=ok
h2: big-endian long=8 elf=s390 there=ok back=ok
h3: little-endian long=4 elf=i386 there=ok back=ok"
}

@test "PvmTaskArch places a task on a host of that architecture; the direct route between unlike hosts carries every type too" {
	hx_start
	run on_host 1 timeout -k 5 120 "$B/test/progs/pt_arch" arch=LINUXS390 arch=LINUX arch=LINUX64
	show
	[ "$status" -eq 0 ]
	output_is "arch=LINUXS390: big-endian long=8 elf=s390 there=ok back=ok
arch=LINUX: little-endian long=4 elf=i386 there=ok back=ok
arch=LINUX64: little-endian long=8 elf=x86-64 there=ok back=ok"
	# every task appends what each transport carried to one report (its
	# directory is seen by every host), exported to the spawned copies
	local report=$BATS_TEST_TMPDIR/carried
	run on_host 1 env PVM_TRAN_REPORT="$report" PVM_EXPORT=PVM_TRAN_REPORT \
		timeout -k 5 120 "$B/test/progs/pt_arch" -d h2 h3
	show
	[ "$status" -eq 0 ]
	output_is "h2: big-endian long=8 elf=s390 there=ok back=ok
h3: little-endian long=4 elf=i386 there=ok back=ok"
	sed "s/^/# carried: /" "$report" >&3
	# 1 message to each copy, 2 from each: all but the first went direct
	[ "$(sh "$S/test/tran-carried.sh" "$report" direct)" -ge 4 ]
}

@test "Raw, InPlace and psend between unlike hosts: the receiver converts byte order and long, and a long past 32 bits gives PvmOverflow on i686" {
	hx_start
	local e
	for e in raw inplace psend; do
		run on_host 1 timeout -k 5 120 "$B/test/progs/pt_arch" -e "$e" h2 h3
		show
		[ "$status" -eq 0 ]
		output_is "h2: big-endian long=8 elf=s390 there=ok back=ok
h3: little-endian long=4 elf=i386 there=ok back=ok"
	done
	# on the direct route, and between the two unlike slaves
	run on_host 1 timeout -k 5 120 "$B/test/progs/pt_arch" -d -e raw h2 h3
	show
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$output" | grep -c 'there=ok back=ok$')" -eq 2 ]
	run on_host 2 env QEMU_LD_PREFIX="$HX_S390X_ROOT" timeout -k 5 180 \
		"$HX_S390X/test/progs/pt_arch" -e raw h3
	show
	[ "$status" -eq 0 ]
	output_is "h3: little-endian long=4 elf=i386 there=ok back=ok"
}

@test "Debian's x86_64 master1 gets correct results from Debian's s390x and i386 slave1 on our libraries" {
	local k who
	[ -x /usr/bin/master1 ] || skip "pvm-examples is not installed (/usr/bin/master1)"
	hx_debian_ep slave1
	# they are Debian's, of each architecture
	[ "$(hx_elf "$BATS_TEST_TMPDIR/ep2/slave1")" = 22/B ]
	[ "$(hx_elf "$BATS_TEST_TMPDIR/ep3/slave1")" = 3/L ]
	hx_start "$BATS_TEST_TMPDIR/ep1" "$BATS_TEST_TMPDIR/ep2" "$BATS_TEST_TMPDIR/ep3"
	run on_host 1 timeout -k 5 120 /usr/bin/master1
	show
	[ "$status" -eq 0 ]
	# master1 starts 3 slaves per host (pvm_config)
	[ "${lines[0]}" = "Spawning 9 worker tasks ... SUCCESSFUL" ]
	for who in 0 1 2 3 4 5 6 7 8; do
		printf '%s\n' "$output" | grep -Eq "^I got ([0-9.]+) from $who; \(expecting \1\)\$"
	done
	[ "$(printf '%s\n' "$output" | grep -c '^I got ')" -eq 9 ]
	# each slave host ran Debian's slave1 of its architecture
	for k in 2 3; do
		on_host "$k" grep -q "spawned .*/ep$k/slave1" "$VMDIR/pvmd.log"
	done
}

@test "Debian's spmd token ring over the three architectures; Debian's s390x and i386 hello.pvm" {
	local out tids hosts t
	[ -x /usr/bin/spmd ] || skip "pvm-examples is not installed (/usr/bin/spmd)"
	hx_debian_ep spmd hello_other
	hx_start "$BATS_TEST_TMPDIR/ep1" "$BATS_TEST_TMPDIR/ep2" "$BATS_TEST_TMPDIR/ep3"
	# spmd joins a group, so each task needs our libgpvm3 too
	run on_host 1 timeout -k 5 60 bash -c \
		"(printf 'spawn -3 -> spmd\n'; sleep 8; printf 'quit\n') | '$CONSOLE' 2>&1"
	show
	printf '%s\n' "$output" | grep -Eq '^3 successful$'
	tids=$(printf '%s\n' "$output" | sed -n 's/^t\([0-9a-f]\{5,\}\)$/\1/p')
	[ "$(echo "$tids" | wc -w)" -eq 3 ]
	hosts=$(for t in $tids; do echo $((0x$t >> 18)); done | sort -u | wc -l)
	[ "$hosts" -eq 3 ]
	printf '%s\n' "$output" | grep -Fq "token ring done"
	# Debian's s390x hello.pvm started on h2, its i386 one on h3: each
	# spawns hello_other wherever the machine puts it and prints its
	# greeting
	run on_host 2 env QEMU_LD_PREFIX="$HX_S390X_ROOT" \
		LD_LIBRARY_PATH="$HX_S390X/libpvm/.libs" \
		timeout -k 5 60 "$HX_S390X_ROOT/usr/bin/hello.pvm"
	show
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -Eq '^from t[0-9a-f]+: hello, world from h[123]$'
	run on_host 3 env LD_LIBRARY_PATH="$HX_I386/libpvm/.libs:$HX_I386_ROOT/usr/lib/i386-linux-gnu" \
		timeout -k 5 60 "$HX_I386_ROOT/usr/bin/hello.pvm"
	show
	[ "$status" -eq 0 ]
	printf '%s\n' "$output" | grep -Eq '^from t[0-9a-f]+: hello, world from h[123]$'
}

@test "a 32-bit program with our i686 library on the 64-bit host: every encoding with a 64-bit task there, over shared memory" {
	hx_start
	local e report=$BATS_TEST_TMPDIR/carried
	for e in default raw inplace psend; do
		run on_host 1 env LD_LIBRARY_PATH="$HX_I386_ROOT/usr/lib/i386-linux-gnu" \
			PVM_TRAN_REPORT="$report" PVM_EXPORT=PVM_TRAN_REPORT \
			timeout -k 5 120 "$HX_I386/test/progs/pt_arch" -e "$e" h1
		show
		[ "$status" -eq 0 ]
		output_is "h1: little-endian long=8 elf=x86-64 there=ok back=ok"
	done
	sed "s/^/# carried: /" "$report" >&3
	[ "$(sh "$S/test/tran-carried.sh" "$report" shm)" -ge 20 ]
}

@test "an s390x host cut off the network is noticed and leaves the machine" {
	export PVM_HOST_TIMEOUT=1500
	hx_start
	host_cut 2
	wait_until 30 hx_hosts 2
	run on_host 1 timeout -k 2 10 "$CONSOLE" <<<conf
	show
	[[ "$output" != *LINUXS390* ]]
	printf '%s\n' "$output" | grep -Eq '^ +h3 +c0000 +LINUX +1000 +0x00408841$'
}

@test "groups across unlike hosts: reduce of every type and operation, scatter, gather, bcast, members on all three" {
	hx_start
	local m k
	for m in reduce reduceu scatgath bcast; do
		# longs within 32 bits: the i686 members have such longs
		run on_host 1 env PT_GROUP_LONG32=1 PVM_EXPORT=PT_GROUP_LONG32 \
			timeout -k 5 300 "$B/test/progs/pt_group" spmd "$m" 6
		show
		[ "$status" -eq 0 ]
		[[ "$output" == *" checks passed, 0 failed"* ]]
		! grep -q FAIL <<<"$output" || false
	done
	# the members were spread over the hosts: each of the slaves ran
	# some, from its own tree
	for k in 2 3; do
		run on_host "$k" grep -c "spawned .*cross-build/.*/pt_group " "$VMDIR/pvmd.log"
		show
		[ "$output" -ge 4 ]
	done
}
