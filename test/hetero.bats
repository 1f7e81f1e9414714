#!/usr/bin/env bats
# A virtual machine of unlike hosts (docs/hetero.md): an x86_64 master on
# h1, an s390x host h2 (big-endian, LP64; its pvmd and tasks are s390x
# binaries run by qemu-user through binfmt_misc) and an i686 host h3
# (little-endian, ILP32; run natively, or by qemu-i386 where the kernel
# runs no 32-bit programs: test/cross/i386.sh), each with the pvmd and test
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
	# natively, or under qemu-i386 where the kernel runs no 32-bit
	# programs (registered with binfmt_misc: the i686 pvmd starts its
	# tasks with exec)
	if ! why=$(sh "$BATS_TEST_DIRNAME/cross/i386.sh"); then
		export HOSTS_SKIP="i686 programs do not run here: $why"
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
	hx_verify
}

# hx_verify: the three hosts are what they claim
hx_verify() {
	# every test first proves each host is what it claims: its pvmd's
	# ELF machine and byte order, and conf's ARCH and DSIG
	hx_pvmd_is 1 62/L
	hx_pvmd_is 2 22/B
	hx_pvmd_is 3 3/L
	local conf
	conf=$(echo conf | on_host 1 timeout -k 2 10 "$CONSOLE" 2>/dev/null)
	printf '%s\n' "$conf" | grep -Eq '^ +h1 +[0-9a-f]+ +LINUX64 +1000 +0x00408c41$'
	printf '%s\n' "$conf" | grep -Eq '^ +h2 +[0-9a-f]+ +LINUXS390 +1000 +0x0658ef59$'
	printf '%s\n' "$conf" | grep -Eq '^ +h3 +[0-9a-f]+ +LINUX +1000 +0x00408841$'
	# and a task on each host: its own byte order, sizeof(long) and the
	# ELF machine of its program (pt_arch, from each host's spawn path)
	local out
	out=$(on_host 1 timeout -k 5 60 "$B/test/progs/pt_arch" h1 h2 h3) || {
		echo "pt_arch h1 h2 h3: $out"
		return 1
	}
	[ "$out" = "h1: $(hx_is h1) there=ok back=ok
h2: $(hx_is h2) there=ok back=ok
h3: $(hx_is h3) there=ok back=ok
mcast to 3: ok" ] || { echo "pt_arch h1 h2 h3: $out"; return 1; }
}

# hx_debian_ep PROG...: directories ep1 (x86_64), ep2 (s390x) and ep3
# (i386) in the test's directory with each architecture's Debian PROGs.
hx_debian_ep() {
	local k p
	for k in 1 2 3; do
		mkdir -p "$BATS_TEST_TMPDIR/ep$k"
	done
	# (and pt_arch, with which every test proves what each host is)
	ln -sf "$B/test/progs/pt_arch" "$BATS_TEST_TMPDIR/ep1/pt_arch"
	ln -sf "$HX_S390X/test/progs/pt_arch" "$BATS_TEST_TMPDIR/ep2/pt_arch"
	ln -sf "$HX_I386/test/progs/pt_arch" "$BATS_TEST_TMPDIR/ep3/pt_arch"
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

# what a copy of pt_arch on host hK reports of itself
hx_is() {
	case $1 in
	h1) echo "little-endian long=8 elf=x86-64" ;;
	h2) echo "big-endian long=8 elf=s390" ;;
	h3) echo "little-endian long=4 elf=i386" ;;
	esac
}

# hx_arch K ROUTE ENC HOST...: host K's own pt_arch, run there, exchanges
# every type in ENC (pt_arch -e) with a copy on each HOST and mcasts it to
# all of them, on ROUTE (pvmd or direct): every check passes, and the
# messages of the copies went the way asked.
hx_arch() {
	local k=$1 route=$2 e=$3 h want prog report=$BATS_TEST_TMPDIR/carried.$1.$2.$3
	shift 3
	case $k in
	1) prog=$B/test/progs/pt_arch ;;
	2) prog=$HX_S390X/test/progs/pt_arch ;;
	3) prog=$HX_I386/test/progs/pt_arch ;;
	esac
	want=$(for h in "$@"; do echo "$h: $(hx_is "$h") there=ok back=ok"; done
		echo "mcast to $#: ok")
	run on_host "$k" env QEMU_LD_PREFIX="$HX_S390X_ROOT" \
		LD_LIBRARY_PATH="$HX_I386_ROOT/usr/lib/i386-linux-gnu" \
		PVM_TRAN_REPORT="$report" PVM_EXPORT=PVM_TRAN_REPORT \
		timeout -k 5 120 "$prog" $([ "$route" = direct ] && echo -d) -e "$e" "$@"
	echo "# h$k -> $* $route $e: $(tr '\n' ' ' <"$report")"
	show
	[ "$status" -eq 0 ]
	output_is "$want"
	# (the first message to a copy is before it can connect back)
	if [ "$route" = direct ]; then
		[ "$(sh "$S/test/tran-carried.sh" "$report" direct)" -ge $((3 * $#)) ]
	else
		[ "$(sh "$S/test/tran-carried.sh" "$report" direct)" -eq 0 ]
	fi
}

@test "a task on each host reports its own byte order and long, and every type in PvmDataDefault crosses both ways bit for bit" {
	hx_start
	hx_arch 1 pvmd default h1 h2 h3
}

@test "PvmTaskArch places a task on a host of that architecture" {
	hx_start
	run on_host 1 timeout -k 5 120 "$B/test/progs/pt_arch" arch=LINUXS390 arch=LINUX arch=LINUX64
	show
	[ "$status" -eq 0 ]
	output_is "arch=LINUXS390: $(hx_is h2) there=ok back=ok
arch=LINUX: $(hx_is h3) there=ok back=ok
arch=LINUX64: $(hx_is h1) there=ok back=ok
mcast to 3: ok"
}

# Raw, InPlace and psend: the receiver converts byte order and long, and
# Raw and InPlace from a 64-bit task carry a long of 2^40, PvmOverflow on
# i686 (pt_arch).  Each pair of architectures both ways: h1 with h2 and
# h3, then h2 (s390x) with h3.
@test "every encoding (Default, packf, Raw, InPlace, psend) between every pair of architectures both ways, on the pvmd route, and pvm_mcast" {
	hx_start
	local e
	for e in default packf raw inplace psend; do
		hx_arch 1 pvmd "$e" h2 h3
		hx_arch 2 pvmd "$e" h3
	done
}

@test "every encoding (Default, packf, Raw, InPlace, psend) between every pair of architectures both ways, on the direct route, and pvm_mcast" {
	hx_start
	local e
	for e in default packf raw inplace psend; do
		hx_arch 1 direct "$e" h2 h3
		hx_arch 2 direct "$e" h3
	done
}

# hx_prog K NAME: host K's own build of test program NAME
hx_prog() {
	case $1 in
	1) echo "$B/test/progs/$2" ;;
	2) echo "$HX_S390X/test/progs/$2" ;;
	3) echo "$HX_I386/test/progs/$2" ;;
	esac
}

# hx_run K CMD...: CMD on host K with what the programs of any of the
# three architectures need to start there
hx_run() {
	local k=$1
	shift
	on_host "$k" env QEMU_LD_PREFIX="$HX_S390X_ROOT" \
		LD_LIBRARY_PATH="$HX_I386_ROOT/usr/lib/i386-linux-gnu" "$@"
}

# hx_ourlibs K: LD_LIBRARY_PATH for a Debian program of host K's
# architecture to run on our libraries (and the sysroot's)
hx_ourlibs() {
	case $1 in
	1) echo "$OURLIB:$OURGLIB" ;;
	2) echo "$HX_S390X/libpvm/.libs:$HX_S390X/libpvm/group/.libs" ;;
	3) echo "$HX_I386/libpvm/.libs:$HX_I386/libpvm/group/.libs:$HX_I386_ROOT/usr/lib/i386-linux-gnu" ;;
	esac
}

# hx_svc K HOST...: pt_hxsvc of host K, run there, with copies on HOSTs
hx_svc() {
	local k=$1 h t
	shift
	run hx_run "$k" timeout -k 5 120 "$(hx_prog "$k" pt_hxsvc)" "$@"
	show
	[ "$status" -eq 0 ]
	for h in "$@"; do
		printf '%s\n' "$output" | grep -qx "$h: mbox=ok mbox-back=ok mhf=ok mhf-back=ok ctx=ok"
	done
	printf '%s\n' "$output" | grep -qx "notify: ok"
	! printf '%s\n' "$output" | grep -q FAIL || false
	# each copy's stdout came back framed with its tid, from its host:
	# its own byte order and long
	for h in "$@"; do
		t=$(printf '%s\n' "$output" | sed -n "s/^\[t\([0-9a-f]*\)\] $(hx_is "$h" | sed 's/^/hx: /; s/ elf=.*//')\$/\1/p" |
			while read -r t; do [ $((0x$t >> 18)) -eq "${h#h}" ] && echo "$t"; done)
		[ -n "$t" ] || { echo "no output line from $h"; return 1; }
	done
}

@test "ordering under load over the three architectures: 6 workers, Default, Raw and InPlace in turn, the route switched to direct mid-way" {
	hx_start
	local k
	run on_host 1 timeout -k 5 200 "$B/test/progs/pt_order" 6 2000 switch
	show
	[ "$status" -eq 0 ]
	! grep -q FAIL <<<"$output" || false
	# the workers were spread over the hosts, each from its own tree
	for k in 2 3; do
		run on_host "$k" grep -c "spawned .*cross-build/.*/pt_order " "$VMDIR/pvmd.log"
		show
		[ "$output" -ge 1 ]
	done
}

@test "unlike hosts added by console add (a '&' hostfile line) and pvm_addhosts with options; each finds its own binaries in \$HOME/pvm3/bin/\$PVM_ARCH" {
	local home=$BATS_TEST_TMPDIR/home k a hf=$BATS_TEST_TMPDIR/hostfile
	# one layout for every host, as in the reference: the programs of
	# each architecture under its name; each pvmd's HOME is $home
	for k in 1 2 3; do
		a=$(case $k in 1) echo LINUX64 ;; 2) echo LINUXS390 ;; 3) echo LINUX ;; esac)
		mkdir -p "$home/pvm3/bin/$a"
		ln -s "$(hx_prog "$k" pt_arch)" "$home/pvm3/bin/$a/pt_arch"
		printf '#!/bin/sh\nHOME=%s exec %s "$@"\n' "$home" \
			"$HX_DIR/dx-$(case $k in 2) echo s390x ;; *) echo i386 ;; esac)" \
			>"$BATS_TEST_TMPDIR/dx$k"
		chmod 755 "$BATS_TEST_TMPDIR/dx$k"
	done
	echo "&h3 dx=$BATS_TEST_TMPDIR/dx3" >"$hf"
	on_host 1 env HOME="$home" timeout -k 5 60 "$B/pvmd/pvmd" "$hf" </dev/null \
		>"$BATS_TEST_TMPDIR/start.out" 2>&1 || { cat "$BATS_TEST_TMPDIR/start.out"; return 1; }
	wait_until 30 hx_hosts 1
	# the console adds the i686 host by its '&' line's options
	run on_host 1 timeout -k 5 60 "$CONSOLE" <<<"add h3"
	show
	printf '%s\n' "$output" | grep -Eq '^1 successful$'
	# a task adds the s390x one, its options in the name
	run on_host 1 timeout -k 5 60 "$B/test/progs/pt_notify" addhost "h2 dx=$BATS_TEST_TMPDIR/dx2"
	show
	output_is "addhost h2 dx=$BATS_TEST_TMPDIR/dx2 = 1 (0)"
	wait_until 30 hx_hosts 3
	hx_verify
	# no ep= anywhere: each host spawns from $HOME/pvm3/bin/$PVM_ARCH
	run on_host 1 env HOME="$home" timeout -k 5 120 "$home/pvm3/bin/LINUX64/pt_arch" h1 h2 h3
	show
	[ "$status" -eq 0 ]
	output_is "h1: $(hx_is h1) there=ok back=ok
h2: $(hx_is h2) there=ok back=ok
h3: $(hx_is h3) there=ok back=ok
mcast to 3: ok"
	on_host 2 grep -q "spawned .*/pvm3/bin/LINUXS390/pt_arch" "$VMDIR/pvmd.log"
	on_host 3 grep -q "spawned .*/pvm3/bin/LINUX/pt_arch" "$VMDIR/pvmd.log"
}

@test "mailbox, message handlers, contexts, output collection, kill and exit notifies between unlike hosts" {
	hx_start
	# an x86_64 first task with copies on s390x and i686, then an i686
	# one (its entries and messages in ILP32 order) with copies on both
	# others
	hx_svc 1 h2 h3
	hx_svc 3 h2 h1
}

@test "two s390x tasks on the emulated host: shared memory and large messages into a waiting pvm_precv, where qemu-user lacks process_vm_readv" {
	hx_start
	local e report=$BATS_TEST_TMPDIR/stream
	for e in default raw inplace psend; do
		hx_arch 2 pvmd "$e" h2
	done
	# the ways a large message reaches a waiting pvm_precv on one host,
	# every byte checked, both tasks s390x under qemu
	run hx_run 2 env PVM_TRAN_REPORT="$report" PVM_EXPORT=PVM_TRAN_REPORT \
		timeout -k 5 120 "$(hx_prog 2 pt_stream)" paths
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"paths: "*" checks passed, 0 failed"* ]]
	sed "s/^/# carried: /" "$report" >&3
	[ "$(sh "$S/test/tran-carried.sh" "$report" shm)" -ge 60 ]
}

@test "Debian's master1 of each architecture gets correct results from Debian's slave1 of all three on our libraries" {
	local k who
	[ -x /usr/bin/master1 ] || skip "pvm-examples is not installed (/usr/bin/master1)"
	hx_debian_ep slave1 master1
	# they are Debian's, of each architecture
	[ "$(hx_elf "$BATS_TEST_TMPDIR/ep2/slave1")" = 22/B ]
	[ "$(hx_elf "$BATS_TEST_TMPDIR/ep3/slave1")" = 3/L ]
	hx_start "$BATS_TEST_TMPDIR/ep1" "$BATS_TEST_TMPDIR/ep2" "$BATS_TEST_TMPDIR/ep3"
	# Debian's x86_64 master1 on h1, its s390x one on h2 and its i386 one
	# on h3, each on our library of its architecture, with slaves of all
	# three
	for k in 1 2 3; do
		run hx_run "$k" LD_LIBRARY_PATH="$(hx_ourlibs "$k")" timeout -k 5 120 \
			"$BATS_TEST_TMPDIR/ep$k/master1"
		show
		[ "$status" -eq 0 ]
		# master1 starts 3 slaves per host (pvm_config)
		[ "${lines[0]}" = "Spawning 9 worker tasks ... SUCCESSFUL" ]
		for who in 0 1 2 3 4 5 6 7 8; do
			printf '%s\n' "$output" | grep -Eq "^I got ([0-9.]+) from $who; \(expecting \1\)\$"
		done
		[ "$(printf '%s\n' "$output" | grep -c '^I got ')" -eq 9 ]
	done
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
		output_is "h1: $(hx_is h1) there=ok back=ok
mcast to 1: ok"
	done
	sed "s/^/# carried: /" "$report" >&3
	[ "$(sh "$S/test/tran-carried.sh" "$report" shm)" -ge 20 ]
}

# hx_gone: no pvmd or task of this machine on any host, and of its
# files only the log (and the lock file beside it) and no inbox in the
# host's /dev/shm
hx_gone() {
	local k left
	for k in 1 2 3; do
		host_no_pvmd "$k" || return 1
		left=$(on_host "$k" sh -c "ls -A '$VMDIR'; ls /dev/shm | grep -F '$(inbox_prefix)'" |
			grep -vx 'pvmd.log\|pvmd.lock')
		[ -z "$left" ] || { echo "h$k: $left"; return 1; }
	done
	[ -z "$(vm_pids "$PVM_VMID")" ]
}

@test "halt from the console stops the pvmds and tasks of every architecture and leaves nothing behind" {
	hx_start
	run on_host 1 timeout -k 5 30 "$CONSOLE" <<<"spawn -h2 pt_hxsvc -sleep
spawn -h3 pt_hxsvc -sleep"
	show
	[ "$(printf '%s\n' "$output" | grep -c '^1 successful$')" -eq 2 ]
	# a sleeper of each architecture runs (s390x under qemu)
	pgrep -f "$HX_S390X/test/progs/pt_hxsvc -sleep"
	pgrep -f "$HX_I386/test/progs/pt_hxsvc -sleep"
	run on_host 1 timeout -k 5 30 "$CONSOLE" <<<halt
	show
	wait_until 20 hx_gone
	! pgrep -f "test/progs/pt_hxsvc -sleep" || false
}

@test "an s390x host cut off the network: an i686 task gets the notifies of its task and of the host, in order, and the host leaves the machine" {
	export PVM_HOST_TIMEOUT=1500
	hx_start
	local out=$BATS_TEST_TMPDIR/out t0 t1 pid
	# h3's own pt_notify, its partner "a" the s390x one on h2
	on_host_bg 3 env LD_LIBRARY_PATH="$HX_I386_ROOT/usr/lib/i386-linux-gnu" \
		timeout -k 5 60 "$(hx_prog 3 pt_notify)" spawnon a h2 \
		notify HD 90 a notify TE 91 a notify HD 92 d2 notify HD 93 me \
		mark armed recv 30 3 recv 1 0 >"$out" 2>&1 </dev/null
	pid=$HOSTS_BG_PID
	wait_until 30 grep -qx armed "$out"
	t0=$(date +%s%N)
	host_cut 2
	wait "$pid" || true
	t1=$(date +%s%N)
	echo "# h2 cut off, its notifies on h3 after $(((t1 - t0) / 1000000)) ms" >&3
	output=$(cat "$out")
	output_is "spawn a ready
notify HD 90 a = 0
notify TE 91 a = 0
notify HD 92 d2 = 0
notify HD 93 me = 0
armed
got tag 90 src d0 body a
got tag 91 src d0 body a
got tag 92 src d0 body d2
recv: 3
recv: 0"
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
