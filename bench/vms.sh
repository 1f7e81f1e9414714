# vms.sh - sourced by the bench drivers (run-pingpong.sh, run-groups.sh,
# run-local.sh, run-xdr.sh, run-spawn.sh): starting and stopping the virtual machines of one run, ours
# and the reference, and building a benchmark against the reference.  Uses
# the driver's variables work, ours_env, ours_pvmd, ref_env, ref_pvm,
# ref_vmid and ref_libdir, and its function fail.

ours_started=
ref_started=
vms_cleanup() {
	set +e
	if [ -n "$ref_started" ]; then
		# (halt also kills the console: keep the shell's notice quiet)
		(echo halt | "${ref_env[@]}" timeout 10 "$ref_pvm") >/dev/null 2>&1
		# If halt did not work, stop the reference pvmd of this run by pid:
		# the one whose environment carries our VMID.
		for p in $(pgrep -x pvmd); do
			tr '\0' '\n' 2>/dev/null <"/proc/$p/environ" |
				grep -qx "PVM_VMID=$ref_vmid" && kill "$p"
		done
	fi
	if [ -n "$ours_started" ]; then
		# one pvmd per PVM_TMP: ours-tmp, and those of start_our_vm's LABEL
		local pidfile
		for pidfile in "$work"/ours*-tmp/pvm.*/pvmd.pid; do
			[ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
		done
	fi
	sleep 0.2
	rm -rf "$work"
}

# The reference's pvmd, started by its console.
start_ref_vm() {
	echo quit | "${ref_env[@]}" timeout 20 "$ref_pvm" >"$work/ref-console.out" 2>&1 ||
		{ cat "$work/ref-console.out" >&2; fail "the reference pvmd did not start"; }
	ref_started=1
}

# Ours: start_our_vm [ENVARRAY LABEL] starts a pvmd in the environment of
# the array named ENVARRAY (default ours_env), whose PVM_TMP must be
# $work/LABEL-tmp with LABEL starting with "ours" (so vms_cleanup finds it).
start_our_vm() {
	local envname="${1:-ours_env}[@]" label=${2:-ours}
	# Our pvmd detaches by itself and exits 0 once it serves.
	"${!envname}" "$ours_pvmd" </dev/null >"$work/$label-pvmd.out" 2>&1 ||
		{ cat "$work/$label-pvmd.out" >&2; fail "our pvmd did not start ($ours_pvmd)"; }
	ours_started=1
}

# ref_build OUT SRC LIB...: builds SRC against the reference, with a private
# copy of Debian's header (so a pvm3.h in /usr/local/include cannot be
# picked up) and an rpath to Debian's library (so a libpvm3 in
# /usr/local/lib cannot either).
ref_build() {
	local out=$1 src=$2
	shift 2
	mkdir -p "$work/refinc"
	cp /usr/include/pvm3.h "$work/refinc/"
	"${CC:-gcc}" -std=gnu11 -O2 -I"$work/refinc" -o "$out" "$src" \
		-L"$ref_libdir" -Wl,--disable-new-dtags,-rpath,"$ref_libdir" "$@" ||
		fail "cannot build $src against the reference"
}

# lib_of ENVARRAY BIN LIB: the path of LIB that BIN loads in that environment.
lib_of() {
	local envname="$1[@]"
	"${!envname}" ldd "$2" 2>/dev/null | awk -v lib="$3" '$1 == lib { print $3 }'
}

# check_libpvm3 OURS_BIN REF_BIN: each loads its own libpvm3.so.3 (ours
# the build tree's, the reference Debian's); sets ours_lib and ref_lib.
check_libpvm3() {
	ours_lib=$(lib_of ours_env "$1" libpvm3.so.3)
	ref_lib=$(lib_of ref_env "$2" libpvm3.so.3)
	case "$ours_lib" in "$builddir"/*) ;; *) fail "our $1 loads '$ours_lib', not the build tree's";; esac
	case "$ref_lib" in "$ref_libdir"/*|/lib/x86_64-linux-gnu/*) ;;
		*) fail "the reference $2 loads '$ref_lib', not Debian's";; esac
}

# interleave ROUNDS METHODS: calls the script's `run SYSTEM ROUTE METHOD`
# for both routes (pvmd, direct) and each of the comma-separated METHODS,
# ours and the reference in turn, alternating which goes first so that a
# change in background load hits both alike; ROUNDS times, numbered from
# FIRST (default 1: a caller may run one round at a time).
interleave() {
	local rounds=$1 methods=$2 first=${3:-1} turn start round route method
	start=$(date +%s)
	turn=$(((first - 1) * 2 * $(echo "$methods" | tr ',' ' ' | wc -w)))
	for round in $(seq "$first" $((first + rounds - 1))); do
		for route in pvmd direct; do
			for method in ${methods//,/ }; do
				if [ $((turn % 2)) = 0 ]; then run ours $route $method; run ref $route $method
				else run ref $route $method; run ours $route $method; fi
				turn=$((turn + 1))
			done
		done
		echo "round $round done ($(( $(date +%s) - start )) s)"
	done
}
