#!/usr/bin/env bash
# run.sh - runs the whole test suite: every test/*.bats file (bats --tap),
# the pvm3 Python module's tests (test/python/, pytest) and every C
# unit-test program that prints TAP, then prints one summary line
# "N passed, N failed[, N skipped]" and exits non-zero on any failure.
#
# make check runs it with abs_top_builddir and abs_top_srcdir exported.  By
# hand:  abs_top_builddir=/path/to/build abs_top_srcdir=/path/to/src test/run.sh [file.bats...]
# (a directory or .py file of test/python/ runs under pytest)
# PVM_TEST_REF=1 runs the bats files against the reference PVM 3.4.6 instead
# (see test/helpers.bash); PVM_TEST_FILTER=regex passes --filter to bats.
# In a full run multihost.bats, reliability.bats, taskctl.bats and
# tasks.bats run in a side lane alongside the suites after multihost
# (PVM_TEST_SIDE=0: in turn).  A full run of ours ends with the message
# suites again with each other transport forced (PVM_TRAN=direct,
# PVM_TRAN=pvmd, the two at once); PVM_TEST_NOSHM=0 skips those passes.
# Then the unit tests and the message suites run once more on a build with
# AddressSanitizer and UndefinedBehaviorSanitizer that it makes in
# $abs_top_builddir/asan-build; PVM_TEST_ASAN=0 skips that pass, and
# PVM_TEST_ASAN=only runs the suites given (or the pass's own) in that
# pass alone, nothing else (make check-faults).  Before it the fuzz pass:
# every libFuzzer target replays its corpus and fuzzes briefly
# (test/fuzz.sh); PVM_TEST_FUZZ=0 skips it.  PVM_TEST_SUITE_TIMEOUT
# (seconds, default 900) bounds each suite.
set -u
# The whole script is one block, read before any of it runs, so that
# editing it while a run is going on cannot break that run.
{
: "${abs_top_builddir:?abs_top_builddir is not set}"
: "${abs_top_srcdir:?abs_top_srcdir is not set}"
export abs_top_builddir abs_top_srcdir

passed=0 failed=0 skipped=0
log=$(mktemp /tmp/pvmtest-run.XXXXXX)
trap 'rm -rf "$log" "${lane_dir:-}"' EXIT

# count_tap NAME STATUS: adds the results in $log to the totals.  A program
# that exits non-zero without reporting a failed test, or that reports fewer
# tests than its plan announced, counts as one more failure.
count_tap() {
	local name=$1 status=$2 p f s plan
	p=$(grep -cE '^ok [0-9]+' "$log")
	s=$(grep -cE '^ok [0-9]+.*# *[Ss][Kk][Ii][Pp]' "$log")
	f=$(grep -cE '^not ok [0-9]+' "$log")
	p=$((p - s))
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$log" | head -n 1)
	if [ -n "$plan" ] && [ $((p + s + f)) -lt "$plan" ]; then
		echo "# $name: only $((p + s + f)) of $plan tests reported"
		f=$((f + plan - p - s - f))
	fi
	if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "# $name: exited with status $status"
		f=1
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# PVM_TEST_ASAN=only: the sanitizer pass alone, on the suites given
san_only=
[ "${PVM_TEST_ASAN:-}" = only ] && san_only=1
# a full run of ours: no suite named, not against the reference, not
# the sanitizer pass alone (the passes after the suites ask it)
full_ours=
if [ $# -eq 0 ] && [ -z "${PVM_TEST_REF:-}" ] && [ -z "$san_only" ]; then
	full_ours=1
fi
# the sanitizer pass will run (a full run of ours, or san_only)
san_will=
if { [ $# -eq 0 ] || [ -n "$san_only" ]; } && [ -z "${PVM_TEST_REF:-}" ] &&
	[ "${PVM_TEST_ASAN:-1}" != 0 ] && command -v bats >/dev/null; then
	san_will=1
fi

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=("$abs_top_srcdir"/test/*.bats "$abs_top_srcdir/test/python")
fi

filter=()
[ -n "${PVM_TEST_FILTER:-}" ] && filter=(--filter "$PVM_TEST_FILTER")

# run_units BUILDDIR [NOTE]: the C unit tests of BUILDDIR that print TAP
# (built by make check when their owners add them), each run through the
# command in the array unit_runner if it is set (an emulator).
unit_runner=()
run_units() {
	local prog
	for prog in "$1"/libpvm/pack/pack_test "$1"/libpvm/pack/xdr_test \
		"$1"/libpvm/pack/upk_test "$1"/common/*_test \
		"$1"/proto/*_test "$1"/pvmd/*_test "$1"/pvmd/host/*_test \
		"$1"/libpvm/api/*_test "$1"/libpvm/tran/*_test \
		"$1"/libpvm/tran/*/*_test; do
		[ -f "$prog" ] && [ -x "$prog" ] || continue
		echo "# $prog"
		timeout -k 5 300 "${unit_runner[@]}" "$prog" 2>&1 | tee "$log"
		count_tap "$(basename "$prog")${2:+ ($2)}" "${PIPESTATUS[0]}"
	done
}

# The unit tests test our library only, so not in a run against the reference.
if [ -n "$full_ours" ]; then
	t0=$SECONDS
	run_units "$abs_top_builddir"
	echo "# unit tests: $((SECONDS - t0)) s"
	# every C file in the layout of .clang-format (clang-format 14, as
	# Debian 12 has it; another version formats otherwise: skipped)
	echo "# clang-format --dry-run"
	if clang-format --version 2>/dev/null | grep -q 'version 14\.'; then
		# one clang-format for all of them (a process per file took
		# 30 s); file by file only to name the ones that fail
		bad=$(cd "$abs_top_srcdir" && { git ls-files '*.c' '*.h' 2>/dev/null ||
			find . -name '*.[ch]' -not -name config.h -not -path './*-build/*'; } |
			grep -v '^\(\./\)\?include/' >"$log"
			xargs clang-format --dry-run -Werror <"$log" >/dev/null 2>&1 ||
			while read -r f; do
				clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"
			done <"$log")
		if [ -z "$bad" ]; then
			echo "ok - every C file is formatted (.clang-format)"
			passed=$((passed + 1))
		else
			echo "not ok - not formatted (clang-format -i FILE):" $bad
			failed=$((failed + 1))
		fi
	else
		echo "ok - # SKIP clang-format 14 is not installed"
		skipped=$((skipped + 1))
	fi
	# libpvm's layers call only downward (docs/architecture.md)
	echo "# test/layers.py"
	python3 "$abs_top_srcdir/test/layers.py" "$abs_top_builddir" "$abs_top_srcdir" 2>&1 | tee "$log"
	count_tap layers.py "${PIPESTATUS[0]}"
fi

# submake ARGS...: make of another tree, not a part of the make that runs
# this script (whose jobserver and options are not for it).
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}
# oot_src TOP LOG: a source tree that an out-of-tree build can use,
# printed.  A source tree configured in place (as CI does it) cannot take
# a second, out-of-tree build: configure refuses ("source directory
# already configured"), and make would take the in-tree objects through
# VPATH.  Such a tree is built from a copy in TOP/src (tar keeps the
# files' times, so a second run rebuilds what changed) that make
# distclean, run in the copy, rids of everything the in-tree build made.
# Not make distdir: a file the dist lists forget would be missing.  The
# build trees of this script and fuzz.sh (asan-build, cross-build,
# fuzz-build, install-build) are left out.
# Prints nothing when the copy fails (the reason is in LOG).
oot_src() {
	local top=$1 blog=$2 src=$abs_top_srcdir skip
	if [ -f "$abs_top_srcdir/config.status" ]; then
		src=$top/src
		skip=./$(basename "$top")
		case $top in "$abs_top_srcdir"/*) skip=./${top#"$abs_top_srcdir"/} ;; esac
		{ rm -rf "$src" && mkdir -p "$src" &&
			tar -C "$abs_top_srcdir" --exclude="$skip" --exclude=./.git \
				--exclude=./asan-build --exclude=./cross-build \
				--exclude=./fuzz-build --exclude=./install-build -cf - . |
			tar -C "$src" -xf - &&
			submake -C "$src" distclean; } >>"$blog" 2>&1 || src=
	fi
	echo "$src"
}
# san_build: the sanitizer pass's tree built (or brought up to date) in
# $abs_top_builddir/asan-build/build; its log in build.log there.
san_build() {
	local top=$abs_top_builddir/asan-build src
	local build=$top/build blog=$top/build.log
	mkdir -p "$top" && : >"$blog" || return 1
	src=$(oot_src "$top" "$blog")
	if [ -n "$src" ] && { [ ! -f "$build/Makefile" ] ||
		[ "$(cat "$top/srcdir" 2>/dev/null)" != "$src" ]; }; then
		# not configured yet, or from another source directory
		rm -rf "$build" "$top/srcdir"
		mkdir -p "$build" && (cd "$build" &&
			"$src/configure" -q --enable-sanitizers --enable-werror) >>"$blog" 2>&1 &&
			echo "$src" >"$top/srcdir" || src=
	fi
	[ -n "$src" ] && submake -C "$build" -j2 test-programs >>"$blog" 2>&1
}

# The unit tests once more on builds for other architectures
# (docs/hetero.md): s390x (big-endian, LP64) run under qemu-user, i686
# (little-endian, ILP32) run natively (under qemu-i386 where the kernel
# runs no 32-bit programs: test/cross/i386.sh), each built by test/cross/build.sh
# in $abs_top_builddir/cross-build with Debian's cross compiler and the
# target's libraries.  Where a cross compiler or qemu is missing the pass
# is skipped with the reason (.ci/run installs them).  Just before
# hetero.bats (a machine of unlike hosts), whose hosts run these trees.
# Only in a full run of ours; PVM_TEST_CROSS=0 leaves it out.
cross_build() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		"$abs_top_srcdir/test/cross/build.sh" "$1" "$abs_top_builddir/cross-build/$1" "$2"
}
cross_pass() {
	local top=$abs_top_builddir/cross-build arch build blog src sysroot rc
	local t0=$SECONDS
	local want runner
	prebuilt cross
	mkdir -p "$top" || { failed=$((failed + 1)); return; }
	blog=$top/build.log
	: >"$blog"
	src=$(oot_src "$top" "$blog")
	for arch in s390x i386; do
		build=$top/$arch
		echo "# cross pass: building $arch in $build (log: $blog)"
		sysroot=$(cross_build "$arch" "$src" 2>>"$blog")
		rc=$?
		if [ "$rc" -eq 77 ]; then
			echo "ok - $arch: # SKIP $(tail -n 1 "$blog")"
			skipped=$((skipped + 1))
			continue
		fi
		if [ -z "$src" ] || [ "$rc" -ne 0 ]; then
			echo "not ok - $arch: the build failed; the end of $blog:"
			tail -n 30 "$blog" | sed 's/^/#   /'
			failed=$((failed + 1))
			continue
		fi
		case $arch in
		s390x) want=22/B runner=(qemu-s390x -L "$sysroot") ;;
		i386)
			want=3/L
			runner=(env LD_LIBRARY_PATH="$sysroot/usr/lib/i386-linux-gnu")
			# no i386 loader on this machine (libc6-i386): the
			# sysroot's, called by name
			[ -e /lib/ld-linux.so.2 ] || runner=("$sysroot/usr/lib/ld-linux.so.2"
				--library-path "$sysroot/usr/lib/i386-linux-gnu")
			# a kernel without 32-bit mode: qemu-i386, through
			# binfmt_misc (test/cross/i386.sh) or else by name
			[ -e /lib/ld-linux.so.2 ] &&
				! sh "$abs_top_srcdir/test/cross/i386.sh" >/dev/null &&
				runner=(qemu-i386 -L "$sysroot")
			;;
		esac
		# the tree is what it claims: the pvmd's ELF machine and order
		if [ "$(sh "$abs_top_srcdir/test/cross/elf.sh" "$build/pvmd/pvmd")" = "$want" ]; then
			echo "ok - $arch: pvmd/pvmd is ELF machine $want"
			passed=$((passed + 1))
		else
			echo "not ok - $arch: pvmd/pvmd is ELF $(sh "$abs_top_srcdir/test/cross/elf.sh" "$build/pvmd/pvmd"), not $want"
			failed=$((failed + 1))
			continue
		fi
		if ! command -v "${runner[0]}" >/dev/null; then
			echo "ok - $arch unit tests: # SKIP ${runner[0]} is not installed (apt-get install qemu-user)"
			skipped=$((skipped + 1))
			continue
		fi
		unit_runner=("${runner[@]}")
		run_units "$build" "$arch"
		unit_runner=()
	done
	echo "# cross pass: $((SECONDS - t0)) s in all"
}
cross_will=
if [ -n "$full_ours" ] && [ "${PVM_TEST_CROSS:-1}" != 0 ]; then
	cross_will=1
fi
# install.bats's installation (test/install/build.sh), made ahead in
# the background (below) in $abs_top_builddir/install-build
install_will=
if [ -n "$full_ours" ] && [ -f "$abs_top_srcdir/test/install.bats" ]; then
	install_will=1
	# only an installation made by this run is used
	rm -f "$abs_top_builddir/install-build/installed"
fi
fuzz_will=
if [ -n "$full_ours" ] && [ "${PVM_TEST_FUZZ:-1}" != 0 ]; then
	fuzz_will=1
fi

# The four build trees of the later passes (the cross pass's two, the
# fuzz pass's, the sanitizer pass's) and install.bats's installation
# take about eight minutes of both cores here, while the suites leave a
# core idle most of the time.  So a full run builds them in the
# background from the start, one after another, in the idle scheduling
# class (chrt --idle: a build gets a core only when no test wants it;
# nice 19 where chrt fails); each pass waits for its tree's turn to end,
# then brings the tree up to date itself, which is then quick, and
# reports any failure as before (install.bats makes its installation
# itself when the one made ahead failed).
# PVM_TEST_PREBUILD=0 builds each tree in its pass instead.
prebuild_dir=
prebuild_pid=
prebuild() {
	chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 || renice -n 19 -p "$BASHPID" >/dev/null 2>&1
	local top=$abs_top_builddir/cross-build src arch
	if [ -n "$cross_will" ]; then
		mkdir -p "$top" && src=$(oot_src "$top" "$prebuild_dir/cross.log")
		for arch in s390x i386; do
			[ -z "$src" ] || cross_build "$arch" "$src" >>"$prebuild_dir/cross.log" 2>&1
		done
	fi
	: >"$prebuild_dir/cross.done"
	if [ -n "$install_will" ] && sh "$abs_top_srcdir/test/install/build.sh" \
		"$abs_top_builddir" "$abs_top_builddir/install-build" >"$prebuild_dir/install.log" 2>&1; then
		: >"$abs_top_builddir/install-build/installed"
	fi
	: >"$prebuild_dir/install.done"
	[ -z "$fuzz_will" ] || bash "$abs_top_srcdir/test/fuzz.sh" build >"$prebuild_dir/fuzz.log" 2>&1
	: >"$prebuild_dir/fuzz.done"
	[ -z "$san_will" ] || san_build >/dev/null 2>&1
	: >"$prebuild_dir/asan.done"
}
# prebuilt NAME: waits for the background build of NAME (cross, fuzz,
# asan) to be over, if one runs.
prebuilt() {
	[ -n "$prebuild_pid" ] || return 0
	local t0=$SECONDS
	while [ ! -e "$prebuild_dir/$1.done" ] && kill -0 "$prebuild_pid" 2>/dev/null; do
		sleep 1
	done
	echo "# waited $((SECONDS - t0)) s for the background build ($1)"
}
# kill_tree PID: PID and its descendants.
kill_tree() {
	local c
	for c in $(pgrep -P "$1"); do kill_tree "$c"; done
	kill "$1" 2>/dev/null
}
if [ -n "$cross_will$install_will$fuzz_will$san_will" ] && [ "${PVM_TEST_PREBUILD:-1}" != 0 ]; then
	prebuild_dir=$(mktemp -d /tmp/pvmtest-prebuild.XXXXXX)
	prebuild &
	prebuild_pid=$!
	trap 'kill_tree "$prebuild_pid"; rm -rf "$log" "$prebuild_dir" "${lane_dir:-}"' EXIT
fi

# run_bats FILE [NOTE [VAR=value...]]: one suite with bats --tap, in the
# environment given, counted as "FILE (NOTE)".
run_bats() {
	local f=$1 note=${2:-}
	shift $(($# < 2 ? $# : 2))
	local t0=$SECONDS
	echo "# $(basename "$f")${note:+ with $note}"
	env "$@" timeout -k 10 "${PVM_TEST_SUITE_TIMEOUT:-900}" bats --tap "${filter[@]}" "$f" 2>&1 | tee "$log"
	count_tap "$(basename "$f")${note:+ ($note)}" "${PIPESTATUS[0]}"
	echo "# $(basename "$f")${note:+ ($note)}: $((SECONDS - t0)) s"
}

# Lanes: a part of the run in the background, its output into a file
# and its counts kept apart (it runs in a subshell), printed and added
# by lane_end.  lane_start NAME COMMAND...: starts it, sets lane_pid.
lane_dir=
lane_start() {
	local name=$1
	shift
	[ -n "$lane_dir" ] || lane_dir=$(mktemp -d /tmp/pvmtest-lane.XXXXXX)
	(
		passed=0 failed=0 skipped=0
		log=$lane_dir/$name.log
		"$@"
		echo "$passed $failed $skipped" >"$lane_dir/$name.counts"
	) >"$lane_dir/$name.out" 2>&1 &
	lane_pid=$!
}
# lane_end NAME PID: waits for it, prints its output, adds its counts.
lane_end() {
	local p f k
	wait "$2"
	cat "$lane_dir/$1.out"
	if read -r p f k <"$lane_dir/$1.counts"; then
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + k))
	else
		echo "not ok - the lane $1 ended without its counts"
		failed=$((failed + 1))
	fi
	rm -f "$lane_dir/$1".*
}

# run_pytest PATH: the pvm3 Python module's tests (test/python/, a
# directory or test file of it) with pytest, under the interpreter the
# module was built for, counted per test from the TAP its conftest.py
# writes.  Skipped, with the reason, where configure left the module out.
run_pytest() {
	local py=$abs_top_builddir/python/inplace/python tap status
	echo "# $(basename "$1") (pytest)"
	if [ -n "${PVM_TEST_REF:-}" ]; then
		echo "ok - $(basename "$1") # SKIP the pvm3 module is ours alone"
		skipped=$((skipped + 1))
		return
	fi
	if [ ! -x "$py" ]; then
		echo "ok - $(basename "$1") # SKIP the pvm3 module is not built (configure's warning says why)"
		skipped=$((skipped + 1))
		return
	fi
	if ! "$py" -c 'import pytest' 2>/dev/null; then
		echo "not ok - $(basename "$1"): no pytest for $py (apt-get install python3-pytest)"
		failed=$((failed + 1))
		return
	fi
	tap=$(mktemp /tmp/pvmtest-pytest.XXXXXX)
	# no cache or bytecode written into the source tree
	PYTHONPATH=$abs_top_builddir/python/inplace PYTHONDONTWRITEBYTECODE=1 \
		timeout -k 10 "${PVM_TEST_SUITE_TIMEOUT:-900}" "$py" -m pytest -p no:cacheprovider \
		-q -rfs --tap="$tap" ${PVM_TEST_FILTER:+-k "$PVM_TEST_FILTER"} "$1" 2>&1 | sed 's/^/# /'
	status=${PIPESTATUS[0]}
	cat "$tap" | tee "$log"
	rm -f "$tap"
	# pytest's 5: no test ran
	count_tap "$(basename "$1") (pytest)" "$status"
}

if ! command -v bats >/dev/null; then
	echo "# bats is not installed (apt-get install bats)"
	failed=$((failed + 1))
elif [ -z "$san_only" ]; then
	# The side lane: suites that mostly wait (on other hosts' pvmds, on
	# timers, on senders that do not read; under half of the two cores
	# busy) run one after another in the background from the moment the
	# loop reaches the first of them, while the loop goes on with the
	# others.  multihost and reliability took 387 s in the lane, the
	# suites after them 498 s alongside: taskctl and tasks, short
	# one-host suites, join the lane to even them out.  Only in a full
	# run; PVM_TEST_SIDE=0 runs them in turn.
	side=()
	if [ $# -eq 0 ] && [ "${PVM_TEST_SIDE:-1}" != 0 ]; then
		for f in multihost reliability taskctl tasks; do
			[ -f "$abs_top_srcdir/test/$f.bats" ] && side+=("$abs_top_srcdir/test/$f.bats")
		done
	fi
	side_pid=
	side_lane() {
		local f t0=$SECONDS
		echo "# the side lane: ${side[*]##*/}, alongside the suites that follow them"
		for f in "${side[@]}"; do run_bats "$f"; done
		echo "# the side lane: $((SECONDS - t0)) s in all"
	}
	for f in "${files[@]}"; do
		# the fault-injection job runs in the sanitizer pass, where its
		# pvmds are instrumented, when that pass runs: not twice
		if [ $# -eq 0 ] && [ -n "$san_will" ] && [ "$(basename "$f")" = faults.bats ]; then
			echo "# faults.bats: in the sanitizer pass (below)"
			continue
		fi
		if [ ${#side[@]} -gt 0 ] && [[ " ${side[*]} " == *" $f "* ]]; then
			if [ -z "$side_pid" ]; then
				echo "# $(basename "$f"): in the side lane from here"
				lane_start side side_lane
				side_pid=$lane_pid
			fi
			continue
		fi
		# the cross pass's trees are hetero.bats's hosts
		if [ -n "$cross_will" ] && [ "$(basename "$f")" = hetero.bats ]; then
			cross_pass
			cross_will=
		fi
		case $f in
		*/install.bats)
			prebuilt install
			run_bats "$f" "" PVM_TEST_INSTALL_DIR="$abs_top_builddir/install-build"
			;;
		*.bats) run_bats "$f" ;;
		*) run_pytest "$f" ;;
		esac
	done
	[ -z "$side_pid" ] || lane_end side "$side_pid"
fi

[ -z "$cross_will" ] || cross_pass

# The one-host message suites once more with each transport under the
# shared-memory route forced through PVM_TRAN (docs/architecture.md):
# "direct" (task-to-task sockets whatever PvmRoute says) and "pvmd" (every
# message through the pvmd), so that every way of moving a message stays
# tested.  Each task appends what each transport carried to a report
# (PVM_TRAN_REPORT); the pass then checks that the forced transport
# carried the traffic and shared memory none of it.  Only in a full run
# of ours; PVM_TEST_NOSHM=0 leaves it out.
tran_suites="messaging tasks pack group examples mhf mbox"
tran_carried() { sh "$abs_top_srcdir/test/tran-carried.sh" "$@"; }
# tran_pass TRAN: the suites with TRAN forced, then the check of what
# carried their traffic.
tran_pass() {
	local tran=$1 report s f t0=$SECONDS
	local carried shm direct pvmd other
	report=$(mktemp /tmp/pvmtest-tran.XXXXXX)
	for s in $tran_suites; do
		f=$abs_top_srcdir/test/$s.bats
		[ -f "$f" ] || continue
		run_bats "$f" "PVM_TRAN=$tran" PVM_TRAN="$tran" \
			PVM_TRAN_REPORT="$report"
	done
	carried=$(tran_carried "$report" "$tran")
	shm=$(tran_carried "$report" shm)
	direct=$(tran_carried "$report" direct)
	pvmd=$(tran_carried "$report" pvmd)
	echo "# PVM_TRAN=$tran: messages sent by shm $shm, direct $direct, pvmd $pvmd"
	# direct: most traffic on it (the pvmd route carries only what
	# goes before a connection is up); pvmd: nothing on direct
	other=0
	[ "$tran" = direct ] && [ "$direct" -le "$pvmd" ] && other=1
	[ "$tran" = pvmd ] && other=$direct
	if [ -z "${PVM_TEST_FILTER:-}" ] && { [ "$carried" -lt 1000 ] || [ "$shm" -ne 0 ] || [ "$other" -ne 0 ]; }; then
		echo "# PVM_TRAN=$tran: the forced transport did not carry the traffic"
		failed=$((failed + 1))
	else
		passed=$((passed + 1))
	fi
	rm -f "$report"
	echo "# PVM_TRAN=$tran pass: $((SECONDS - t0)) s"
}
# The two passes run at once, one lane each: these one-host suites
# leave more than half of the two cores idle (they wait on messages and
# processes more than they compute), and each test has its own virtual
# machine.  Each lane's output is printed whole when it is over.
if [ -n "$full_ours" ] && [ "${PVM_TEST_NOSHM:-1}" != 0 ] &&
	[ -z "${PVM_TRAN:-}" ] && [ "${PVM_SHM:-}" != 0 ] && command -v bats >/dev/null; then
	t0=$SECONDS
	echo "# the forced-transport passes, PVM_TRAN=direct and PVM_TRAN=pvmd at once"
	lane_start direct tran_pass direct
	tran_lane=$lane_pid
	tran_pass pvmd
	lane_end direct "$tran_lane"
	echo "# the forced-transport passes: $((SECONDS - t0)) s in all"
fi

# The unit tests and the message suites once more on a second build tree,
# configured with --enable-sanitizers (AddressSanitizer with LeakSanitizer,
# and UndefinedBehaviorSanitizer, which stops the program), in
# $abs_top_builddir/asan-build: every pvmd, task and test program of these
# suites runs instrumented.  The suites' own assertions see a program that a
# sanitizer stopped; a finding in a process whose end no test looks at (the
# pvmd at a halt, a task leaking at its exit) is seen in the reports each
# process writes into a directory of its suite (log_path), and every suite
# that left any counts as one more failure, with the reports printed.  Only
# in a full run of ours; PVM_TEST_ASAN=0 leaves it out.  test/README.md.
# faults: the fault-injection job (issue 24), whose pvmds must write no
# report either.  PVM_TEST_ASAN=only: the suites given, without the units.
san_suites="units messaging pack mhf mbox group tasks faults"
if [ -n "$san_only" ] && [ $# -gt 0 ]; then
	san_suites=$(for f in "$@"; do basename "$f" .bats; done)
fi
san_pass() {
	local top=$abs_top_builddir/asan-build t0 t1 s f n r
	local build=$top/build blog=$top/build.log reports=$top/reports
	t0=$(date +%s)
	prebuilt asan
	echo "# sanitizer pass: building $build (log: $blog)"
	if ! san_build; then
		echo "# sanitizer pass: the build failed; the end of $blog:"
		tail -n 30 "$blog" | sed 's/^/#   /'
		failed=$((failed + 1))
		return
	fi
	t1=$(date +%s)
	echo "# sanitizer pass: built in $((t1 - t0)) s"
	rm -rf "$reports"
	# Options: every report into the suite's directory; LeakSanitizer on
	# (the pvmd frees everything when it halts, our tasks what they
	# allocate), with the leaks of the Debian binaries suppressed
	# (test/lsan.supp); UndefinedBehaviorSanitizer prints its finding on
	# stderr and aborts, and AddressSanitizer catches the SIGABRT
	# (handle_abort) and writes the stack into the directory: with GCC the
	# UBSan runtime does not honour log_path next to ASan's.
	local aopt="detect_leaks=1:handle_abort=1"
	local uopt="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
	for s in $san_suites; do
		mkdir -p "$reports/$s"
		export ASAN_OPTIONS="$aopt:log_path=$reports/$s/asan"
		export UBSAN_OPTIONS="$uopt:log_path=$reports/$s/ubsan"
		export LSAN_OPTIONS="suppressions=$abs_top_srcdir/test/lsan.supp:print_suppressions=0"
		if [ "$s" = units ]; then
			run_units "$build" sanitizers
		else
			f=$abs_top_srcdir/test/$s.bats
			[ -f "$f" ] || continue
			run_bats "$f" sanitizers abs_top_builddir="$build"
		fi
		unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
		n=$(find "$reports/$s" -type f | wc -l)
		[ "$n" -eq 0 ] && continue
		echo "# $s (sanitizers): $n sanitizer reports in $reports/$s; the first:"
		for r in $(find "$reports/$s" -type f | sort | head -n 3); do
			echo "# --- $r"
			head -n 40 "$r" | sed 's/^/#   /'
		done
		failed=$((failed + 1))
	done
	echo "# sanitizer pass: $(($(date +%s) - t0)) s in all"
}
# The libFuzzer targets (test/fuzz.sh): each replays its corpus, the
# regression inputs of every finding fixed included, and fuzzes for
# FUZZ_CHECK_TIME seconds (12), on a clang build of its own in
# $abs_top_builddir/fuzz-build.  Only in a full run of ours;
# PVM_TEST_FUZZ=0 leaves it out.
if [ -n "$fuzz_will" ]; then
	echo "# fuzz pass: test/fuzz.sh check"
	t0=$(date +%s)
	prebuilt fuzz
	timeout -k 10 1200 bash "$abs_top_srcdir/test/fuzz.sh" check 2>&1 | tee "$log"
	count_tap "fuzz pass" "${PIPESTATUS[0]}"
	echo "# fuzz pass: $(($(date +%s) - t0)) s in all"
fi

if [ -n "$san_will" ]; then
	san_pass
fi

echo "# the whole run: $SECONDS s"
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
exit
}
