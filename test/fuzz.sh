#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer targets (the *_fuzz.c files beside the
# code each one feeds) in $abs_top_builddir/fuzz-build and runs them.
#
#   test/fuzz.sh check  every target replays its corpus (test/fuzz/corpus/
#                       NAME) and fuzzes for FUZZ_CHECK_TIME seconds
#                       (default 12), FUZZ_JOBS at a time (default: one
#                       per core); prints TAP (make check's fuzz pass)
#   test/fuzz.sh run    every target fuzzes for FUZZ_TIME seconds (default
#                       600) on a corpus kept in fuzz-build/corpus/NAME,
#                       FUZZ_JOBS targets at a time (default 1); prints a
#                       table and appends it to fuzz-build/runs.tsv, whose
#                       sums for the binaries built now it prints too
#                       (make fuzz); FUZZ_RUNS=N stops each target after N
#                       runs instead, FUZZ_UPTO=N once runs.tsv holds N
#                       runs of the binary built now (a target that has
#                       them is skipped); a file fuzz-build/stop starts
#                       no further target
#   test/fuzz.sh merge  minimizes the committed corpora with what the runs
#                       found (make fuzz-merge)
#   test/fuzz.sh build  builds the targets only (test/run.sh, ahead of its
#                       fuzz pass)
# FUZZ_TARGETS="ctl_fuzz link_fuzz" limits it to those targets (a target
# named twice runs in two processes at once, on one corpus).  A finding
# stops its target; its input is kept in fuzz-build/findings/ and the
# report in fuzz-build/logs/NAME.log.  Replay one input:
#   fuzz-build/build/pvmd/ctl_fuzz fuzz-build/findings/ctl_fuzz-crash-...
# Needs clang and its libFuzzer runtime (Debian 12: clang, libclang-rt-14-dev).
set -u
{
: "${abs_top_builddir:?abs_top_builddir is not set}"
: "${abs_top_srcdir:?abs_top_srcdir is not set}"
mode=${1:-check}
top=$abs_top_builddir/fuzz-build
build=$top/build
blog=$top/build.log
corpora=$abs_top_srcdir/test/fuzz/corpus
mkdir -p "$top/logs" "$top/findings" "$top/corpus" || exit 1

# ---- the build: an out-of-tree clang build of its own ----

submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make "$@"
}

build_targets() {
	local src=$abs_top_srcdir
	: >"$blog"
	if [ -f "$abs_top_srcdir/config.status" ]; then
		# configured in place: a copy of the sources takes the build
		src=$top/src
		mkdir -p "$src" &&
			tar -C "$abs_top_srcdir" --exclude=./.git --exclude=./fuzz-build \
				--exclude=./asan-build --exclude=./cross-build --exclude=./install-build -cf - . |
			tar -C "$src" -xf - &&
			submake -C "$src" distclean >>"$blog" 2>&1 || return 1
	fi
	if [ ! -f "$build/Makefile" ] || [ "$(cat "$top/srcdir" 2>/dev/null)" != "$src" ]; then
		rm -rf "$build" "$top/srcdir"
		mkdir -p "$build" && (cd "$build" &&
			CC=clang "$src/configure" -q --enable-fuzzing --disable-shared \
				--enable-werror) >>"$blog" 2>&1 || return 1
		echo "$src" >"$top/srcdir"
	fi
	submake -C "$build" -j2 fuzz-targets >>"$blog" 2>&1
}

if ! command -v clang >/dev/null; then
	[ "$mode" = check ] && echo "1..1" && echo "ok 1 - # SKIP the fuzz targets need clang"
	[ "$mode" = check ] || echo "fuzz.sh: the fuzz targets need clang" >&2
	exit 0
fi
t0=$(date +%s)
if ! build_targets; then
	echo "# fuzz: the build failed; the end of $blog:"
	tail -n 30 "$blog" | sed 's/^/#   /'
	[ "$mode" = check ] && echo "1..1" && echo "not ok 1 - the fuzz targets build"
	exit 1
fi
echo "# fuzz: built in $(($(date +%s) - t0)) s ($build)"
[ "$mode" = build ] && exit 0

# every target the Makefile lists, or those FUZZ_TARGETS names, in its
# order (a long run puts the slowest first)
all=$(printf 'print-ft:\n\t@echo $(FUZZ_TARGETS)\n' |
	submake -s -C "$build" -f Makefile -f - print-ft)
targets=()
for want in ${FUZZ_TARGETS:-$all}; do
	for p in $all; do
		[ "$p" = "$want" ] || [ "$(basename "$p")" = "$want" ] && targets+=("$p")
	done
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz.sh: no target named ${FUZZ_TARGETS:-} (there are: $all)" >&2
	exit 2
fi

# fingerprint PATH: names the build of a target.  A count towards 10^7
# runs holds for the code that ran, so runs.tsv sums the runs of each
# fingerprint apart: a change to anything linked into the target (or to
# the compiler or its options) makes a new binary and starts from zero.
fingerprint() {
	sha256sum "$build/$1" | cut -c 1-16
}

# held_runs PATH: the runs runs.tsv holds of the binary built now
held_runs() {
	awk -F'\t' -v t="$(basename "$1")" -v fp="$(fingerprint "$1")" \
		'$2 == t && $7 == fp { r += $3 } END { print r + 0 }' "$top/runs.tsv" 2>/dev/null || echo 0
}

# A finding is an input that crashes, leaks, hangs (-timeout) or
# overruns memory: each stops the target.  An allocation of what a header
# announces may fail, and the code must cope (allocator_may_return_null);
# over 32 MiB it always fails here (max_allocation_size_mb: under ASan a
# reservation costs a write of an eighth of its size to shadow memory,
# though untouched it costs nothing otherwise; at 256 MiB, conn_fuzz made
# 270 runs a second, at 32 MiB 2000; libFuzzer itself needs 20 MiB), and
# below that it is no finding by its size alone (-malloc_limit_mb); the
# resident size is bounded (-rss_limit_mb).
export ASAN_OPTIONS="allocator_may_return_null=1:max_allocation_size_mb=32:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
fopts=(-timeout=10 -rss_limit_mb=3072 -malloc_limit_mb=65536 -print_final_stats=1)

# fuzz_one PATH SECONDS WORKDIR [K I]: replays the committed corpus (and
# WORKDIR's), fuzzes, writes new inputs to WORKDIR; the I-th of K
# processes of the target (K 1 unless it is named K times).  Sets r_*
# from the log.
fuzz_one() {
	local p=$1 secs=$2 work=$3 k=${4:-1} i=${5:-1} n dict=() seeds=() log rc
	n=$(basename "$p")
	log=$top/logs/$n.log
	[ "$i" -gt 1 ] && log=$top/logs/$n.$i.log
	mkdir -p "$work"
	[ -d "$corpora/$n" ] && seeds=("$corpora/$n")
	# a dictionary of its own, or the protocol's for those that read frames
	if [ -f "$abs_top_srcdir/test/fuzz/$n.dict" ]; then
		dict=(-dict="$abs_top_srcdir/test/fuzz/$n.dict")
	else
		case $n in wire_fuzz | handshake_fuzz | ctl_fuzz | link_fuzz | conn_fuzz | reply_fuzz)
			dict=(-dict="$abs_top_srcdir/test/fuzz/protocol.dict") ;;
		esac
	fi
	# make check's pass draws from a fixed seed (FUZZ_SEED, 1), so that
	# a run explores what the one before it did and a red pass repeats
	local mopts=() # (the mode's options)
	[ "$mode" = run ] && [ -n "${FUZZ_RUNS:-}" ] && mopts=(-runs="$FUZZ_RUNS")
	# (K processes share what is left)
	[ "$mode" = run ] && [ -n "${FUZZ_UPTO:-}" ] &&
		mopts=(-runs="$(((FUZZ_UPTO - ${held[$p]} + k - 1) / k))")
	[ "$mode" = check ] && mopts=(-seed="${FUZZ_SEED:-1}")
	# a long run keeps what the code writes to stderr out of its log
	# (libFuzzer's own lines and the sanitizers' reports stay): the
	# library's error lines made cmd_fuzz's 1.3 MB a second, 10 GB in
	# 10^7 runs
	[ "$mode" = run ] && mopts+=(-close_fd_mask=2)
	local t0=$SECONDS
	(cd "$top" && timeout -k 10 $((secs + 300)) "$build/$p" "${fopts[@]}" "${dict[@]}" \
		"${mopts[@]}" -max_total_time="$secs" -artifact_prefix="$top/findings/$n-" \
		"$work" "${seeds[@]}") >"$log" 2>&1
	rc=$?
	r_seeds=0
	[ ${#seeds[@]} -gt 0 ] && r_seeds=$(find "${seeds[@]}" -type f | wc -l)
	r_runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	r_secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -n 1)
	# (an interrupted run prints no "Done": its time is the wall clock's)
	[ -n "$r_secs" ] || r_secs=$((SECONDS - t0))
	r_cov=$(grep -aoE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
	r_corp=$(find "$work" -type f | wc -l)
	r_rc=$rc
}

# new_since BEFORE PATTERN...: the paths matching PATTERN that were not
# in BEFORE (a list made by the same call with no BEFORE: new_since "")
new_since() {
	local before=$1
	shift
	comm -13 <(printf '%s\n' "$before") <(ls -d "$@" 2>/dev/null | sort)
}

case $mode in
check)
	# FUZZ_JOBS targets at a time (default: one per core), each for its
	# full time; the lines in the targets' order
	jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
	echo "1..$((${#targets[@]} + 1))"
	# the targets that play a task's library make a VM directory of
	# their own under /dev/shm (libpvm/api/fuzz_peer.c): gone at exit
	left_before=$(new_since "" /dev/shm/pvmfuzzl.*)
	i=0
	for p in "${targets[@]}"; do
		i=$((i + 1))
		(
			n=$(basename "$p")
			work=$(mktemp -d "$top/corpus/check.XXXXXX")
			fuzz_one "$p" "${FUZZ_CHECK_TIME:-12}" "$work"
			rm -rf "$work"
			what="$n: replayed $r_seeds inputs, then ${r_runs:-0} runs in ${r_secs:-?} s (${r_cov:-no coverage})"
			if [ "$r_rc" -eq 0 ]; then
				echo "ok $i - $what"
			else
				echo "not ok $i - $what: exit status $r_rc; $top/logs/$n.log:"
				grep -a -m 1 -A 30 -E '==[0-9]+==|ERROR|SUMMARY|fuzz:' "$top/logs/$n.log" | head -n 40 | sed 's/^/#   /'
			fi
		) >"$top/logs/check.$i.tap" &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	done
	wait
	for ((j = 1; j <= i; j++)); do
		cat "$top/logs/check.$j.tap"
		rm -f "$top/logs/check.$j.tap"
	done
	left=$(new_since "$left_before" /dev/shm/pvmfuzzl.*)
	if [ -z "$left" ]; then
		echo "ok $((i + 1)) - the targets left nothing in /dev/shm"
	else
		echo "not ok $((i + 1)) - the targets left in /dev/shm:" $left
	fi
	;;
run)
	jobs=${FUZZ_JOBS:-1}
	# an interrupted target (^C: libFuzzer's status 72) leaves its VM
	# directory under /dev/shm (libFuzzer ends without exit handlers):
	# what appeared during this run is removed at its end
	shm_before=$(new_since "" /dev/shm/pvmfuzz.* /dev/shm/pvmfuzzl.*)
	printf '%-16s %12s %8s %9s %-22s %7s %s\n' target runs seconds "runs/s" coverage corpus result
	# a file fuzz-build/stop ends the run after the targets under way:
	# no further target starts (interrupt those with SIGINT to end them
	# now; their counts are kept)
	rm -f "$top/stop"
	# what FUZZ_UPTO asks of each is known before any starts
	declare -A held=() named=() started=()
	for p in "${targets[@]}"; do
		held[$p]=$(held_runs "$p")
		named[$p]=$((${named[$p]:-0} + 1))
	done
	for p in "${targets[@]}"; do
		[ -e "$top/stop" ] && break
		started[$p]=$((${started[$p]:-0} + 1))
		if [ -n "${FUZZ_UPTO:-}" ] && [ "${held[$p]}" -ge "$FUZZ_UPTO" ]; then
			[ "${started[$p]}" -eq 1 ] &&
				printf '%-16s %12s (has %s runs of this build)\n' "$(basename "$p")" - "${held[$p]}"
			continue
		fi
		(
			n=$(basename "$p")
			fp=$(fingerprint "$p") # of the binary that runs
			fuzz_one "$p" "${FUZZ_TIME:-600}" "$top/corpus/$n" "${named[$p]}" "${started[$p]}"
			res=ok
			if [ "$r_rc" -eq 72 ]; then
				res="stopped (interrupted)"
			elif [ "$r_rc" -ne 0 ]; then
				res="FINDING (status $r_rc): logs/$n.log"
			fi
			s=${r_secs:-0}
			printf '%-16s %12s %8s %9s %-22s %7s %s\n' "$n" "${r_runs:-0}" "$s" \
				$(( ${r_runs:-0} / (s > 0 ? s : 1) )) "${r_cov:-?}" "$r_corp" "$res"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$n" "${r_runs:-0}" "$s" \
				"${r_cov:-?}" "$res" "$fp" >>"$top/runs.tsv"
		) &
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	done
	wait
	new_since "$shm_before" /dev/shm/pvmfuzz.* /dev/shm/pvmfuzzl.* | xargs -r rm -rf
	# the sums: of the runs of the binaries built now, and of every run
	echo "# the runs of this build of each target, and of every build ($top/runs.tsv):"
	printf '#   %-16s %-16s %12s %8s %8s %12s\n' target fingerprint runs seconds findings "every build"
	for p in $(printf '%s\n' "${targets[@]}" | awk '!seen[$0]++'); do
		awk -F'\t' -v t="$(basename "$p")" -v fp="$(fingerprint "$p")" '
			$2 == t { all += $3; if ($7 == fp) { r += $3; s += $4; if ($6 ~ /^FINDING/) f++ } }
			END { printf "#   %-16s %-16s %12d %8d %8d %12d\n", t, fp, r, s, f, all }' \
			"$top/runs.tsv"
	done
	;;
merge)
	for p in "${targets[@]}"; do
		n=$(basename "$p")
		[ -d "$top/corpus/$n" ] || continue
		rm -rf "$corpora/$n.new" && mkdir -p "$corpora/$n.new"
		mkdir -p "$corpora/$n"
		"$build/$p" -merge=1 "$corpora/$n.new" "$corpora/$n" "$top/corpus/$n" \
			>"$top/logs/$n.merge.log" 2>&1 || { echo "fuzz.sh: merge of $n failed" >&2; exit 1; }
		# regression inputs of fixed findings stay whatever the merge says
		cp -p "$corpora/$n"/regress-* "$corpora/$n.new/" 2>/dev/null
		rm -rf "$corpora/$n" && mv "$corpora/$n.new" "$corpora/$n"
		echo "$n: $(find "$corpora/$n" -type f | wc -l) inputs"
	done
	;;
*)
	echo "usage: fuzz.sh check|run|merge|build" >&2
	exit 2
	;;
esac
exit
}
