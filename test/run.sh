#!/usr/bin/env bash
# run.sh - runs the whole test suite: every test/*.bats file (bats --tap) and
# every C unit-test program that prints TAP, then prints one summary line
# "N passed, N failed[, N skipped]" and exits non-zero on any failure.
#
# make check runs it with abs_top_builddir and abs_top_srcdir exported.  By
# hand:  abs_top_builddir=/path/to/build abs_top_srcdir=/path/to/src test/run.sh [file.bats...]
# PVM_TEST_REF=1 runs the bats files against the reference PVM 3.4.6 instead
# (see test/helpers.bash); PVM_TEST_FILTER=regex passes --filter to bats.
# A full run of ours ends with the message suites again with each other
# transport forced (PVM_TRAN=direct, PVM_TRAN=pvmd); PVM_TEST_NOSHM=0
# skips those passes.
set -u
# The whole script is one block, read before any of it runs, so that
# editing it while a run is going on cannot break that run.
{
: "${abs_top_builddir:?abs_top_builddir is not set}"
: "${abs_top_srcdir:?abs_top_srcdir is not set}"
export abs_top_builddir abs_top_srcdir

passed=0 failed=0 skipped=0
log=$(mktemp /tmp/pvmtest-run.XXXXXX)
trap 'rm -f "$log"' EXIT

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

if [ $# -gt 0 ]; then
	files=("$@")
else
	files=("$abs_top_srcdir"/test/*.bats)
fi

filter=()
[ -n "${PVM_TEST_FILTER:-}" ] && filter=(--filter "$PVM_TEST_FILTER")

# C unit tests that print TAP (built by make check when their owners add them);
# they test our library only, so not in a run against the reference.
if [ $# -eq 0 ] && [ -z "${PVM_TEST_REF:-}" ]; then
	for prog in "$abs_top_builddir"/libpvm/pack/pack_test \
		"$abs_top_builddir"/libpvm/pack/xdr_test \
		"$abs_top_builddir"/libpvm/pack/upk_test \
		"$abs_top_builddir"/common/*_test \
		"$abs_top_builddir"/proto/*_test \
		"$abs_top_builddir"/pvmd/*_test \
		"$abs_top_builddir"/pvmd/host/*_test \
		"$abs_top_builddir"/libpvm/tran/*_test \
		"$abs_top_builddir"/libpvm/tran/*/*_test; do
		[ -f "$prog" ] && [ -x "$prog" ] || continue
		echo "# $prog"
		timeout -k 5 300 "$prog" 2>&1 | tee "$log"
		count_tap "$(basename "$prog")" "${PIPESTATUS[0]}"
	done
	# libpvm's layers call only downward (docs/architecture.md)
	echo "# test/layers.py"
	python3 "$abs_top_srcdir/test/layers.py" "$abs_top_builddir" 2>&1 | tee "$log"
	count_tap layers.py "${PIPESTATUS[0]}"
fi

if ! command -v bats >/dev/null; then
	echo "# bats is not installed (apt-get install bats)"
	failed=$((failed + 1))
else
	for f in "${files[@]}"; do
		echo "# $(basename "$f")"
		timeout -k 10 900 bats --tap "${filter[@]}" "$f" 2>&1 | tee "$log"
		count_tap "$(basename "$f")" "${PIPESTATUS[0]}"
	done
fi

# The one-host message suites once more with each transport under the
# shared-memory route forced through PVM_TRAN (docs/architecture.md):
# "direct" (task-to-task sockets whatever PvmRoute says) and "pvmd" (every
# message through the pvmd), so that every way of moving a message stays
# tested.  Each task appends what each transport carried to a report
# (PVM_TRAN_REPORT); the pass then checks that the forced transport
# carried the traffic and shared memory none of it.  Only in a full run
# of ours; PVM_TEST_NOSHM=0 leaves it out.
tran_suites="messaging tasks pack group examples mhf mbox"
# tran_carried FILE NAME: messages that transport NAME carried in FILE.
tran_carried() {
	awk -v t="$2" '{ for (i = 2; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == t) n += kv[2] } } END { print n + 0 }' "$1" 2>/dev/null || echo 0
}
if [ $# -eq 0 ] && [ -z "${PVM_TEST_REF:-}" ] && [ "${PVM_TEST_NOSHM:-1}" != 0 ] &&
	[ -z "${PVM_TRAN:-}" ] && [ "${PVM_SHM:-}" != 0 ] && command -v bats >/dev/null; then
	for tran in direct pvmd; do
		report=$(mktemp /tmp/pvmtest-tran.XXXXXX)
		for s in $tran_suites; do
			f=$abs_top_srcdir/test/$s.bats
			[ -f "$f" ] || continue
			echo "# $s.bats with PVM_TRAN=$tran"
			PVM_TRAN=$tran PVM_TRAN_REPORT=$report \
				timeout -k 10 900 bats --tap "${filter[@]}" "$f" 2>&1 | tee "$log"
			count_tap "$s.bats (PVM_TRAN=$tran)" "${PIPESTATUS[0]}"
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
	done
fi

summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
exit
}
