# vms.sh - sourced by the bench drivers (run-pingpong.sh, run-groups.sh):
# starting and stopping the two virtual machines of one run, ours and the
# reference.  Uses the driver's variables work, ours_env, ours_pvmd,
# ref_env, ref_pvm and ref_vmid, and its function fail.

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
		local pidfile
		pidfile=$(ls "$work"/ours-tmp/pvm.*/pvmd.pid 2>/dev/null | head -n 1)
		[ -n "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null
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

start_our_vm() {
	# Our pvmd detaches by itself and exits 0 once it serves.
	"${ours_env[@]}" "$ours_pvmd" </dev/null >"$work/ours-pvmd.out" 2>&1 ||
		{ cat "$work/ours-pvmd.out" >&2; fail "our pvmd did not start ($ours_pvmd)"; }
	ours_started=1
}
