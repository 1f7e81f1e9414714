# faults.bash - the fault-injection driver (issue 24), loaded by
# test/faults.bats after helpers.bash and hosts.bash.
#
# fault_run SEED SECS DIR runs one job on the four hosts.bash hosts: a
# machine with its master on h1 (h2..h4 from its hostfile,
# PVM_HOST_TIMEOUT=$FAULT_HT ms), the task job `pt_chaos master` on h1
# (test/progs/pt_chaos.c: FAULT_PERHOST workers per host streaming checked
# messages to each other every FAULT_INTERVAL ms on average), and for
# SECS seconds faults drawn from SEED (bash's RANDOM, so the same seed
# draws the same kinds, hosts, durations and pauses; which task is hit
# depends on the tasks alive then), one at a time, 0.15..0.8 x the host
# timeout apart:
#   killtask            SIGKILL of a worker
#   stoptask-short/long SIGSTOP of a worker for 0.2..0.4 x or 1.3..2 x the
#                       host timeout (nothing may be lost either way)
#   killpvmd            SIGKILL of a slave pvmd (the host ends)
#   stoppvmd-short      SIGSTOP of any pvmd (h1's too) for 0.1..0.35 x the
#                       timeout: nothing may be lost
#   stoppvmd-long       SIGSTOP of a slave pvmd for 1.4..2 x: the host ends
#   cut-short           host_cut of any host for 0.1..0.3 x: nothing lost
#   cut-long            host_cut of a slave for 1.4..2 x: the host ends
# A host that ended is added again (console `add`) once its pvmd is gone
# (which it must be, by itself, within 2 x FAULT_HT + 10 s) and the master
# gives it new workers.  Every fault is a line of DIR/faults.log with its
# time from the start; the master's lines are DIR/master.out.  At the end
# the master does the accounting, the machine is halted, and fault_check
# DIR checks the files: the verdict, a PvmTaskExit for every task killed
# and every task of an ended host, a PvmHostDelete for every host ended
# and none for another (a pvmd that crashed), no task exit unexplained,
# the notifies in time (PvmTaskExit 5 s after a SIGKILL, PvmHostDelete
# the host timeout and 5 s after the fault), the pvmds alive that should
# be, an exit in the logs of every pvmd not SIGKILLed (else it crashed or
# hung); then nothing of the machine is left on any host: no pvmd, no
# task, no inbox in /dev/shm, nothing in the VM directory but the log
# and the lock file (pvmd.8: the log is kept).
# DIR/summary has the counts.  Returns 0 if all is well.
#
# FAULT_LANE=1 adds a second lane of task faults at the same time
# (_f_lane).  FAULT_HT (ms, default 3000), FAULT_PERHOST (2),
# FAULT_INTERVAL (10), FAULT_BIN (the spawn path, a directory of links to the test programs),
# FAULT_PVMD (the pvmd every host runs: PVMD_BIN, or a wrapper of it that
# sets the sanitizers' options, which ssh does not pass).
# DIR also gets each host's pvmd.log (pvmd.hK.log; with the workers'
# output) and, for a job that failed, the stacks of the tasks left.

FAULT_HT=${FAULT_HT:-3000}
FAULT_PERHOST=${FAULT_PERHOST:-2}
FAULT_INTERVAL=${FAULT_INTERVAL:-10}
FAULT_HOSTS=4

# _f_now: seconds since the job started, in ms.
_f_now() {
	awk -v a="$_F_T0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", b - a }'
}

# _f_log WORDS...: one line of faults.log (and of the test's output).
_f_log() {
	local l
	l="$(_f_now) $*"
	echo "$l" >>"$_F_DIR/faults.log"
	echo "# $l"
}

_f_problem() {
	echo "driver problem: $*" | tee -a "$_F_DIR/problems"
}

# _f_secs LO HI: sets _F_SECS to a duration between LO and HI
# thousandths of the host timeout, in seconds.  Every draw from RANDOM
# is made in this shell, never in a $(...): a subshell reseeds RANDOM,
# and the seed would no longer replay the run.
_f_secs() {
	local ms=$((FAULT_HT * ($1 + RANDOM % ($2 - $1 + 1)) / 1000))
	printf -v _F_SECS '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

# _f_workers: "tid pid host" of the workers alive (said hello, no exit
# notify, the process there).
_f_workers() {
	local tid host pid
	awk '$1 == "worker" { w[$2] = $6 " " $4 } $1 == "notify" && $2 == "taskexit" { delete w[$3] }
		END { for (t in w) print t, w[t] }' "$_F_DIR/master.out" | sort |
		while read -r tid pid host; do
			kill -0 "$pid" 2>/dev/null && echo "$tid $pid $host"
		done
}

# _f_htid K: host K's tid as the master last saw it come up.
_f_htid() {
	awk -v h="h$1" '$1 == "host" && $2 == h && $4 == "up" { t = $3 } END { print t }' \
		"$_F_DIR/master.out"
}

# _f_pick_host FROM: sets _F_HOST to a host in the machine, from FROM
# (1: any, 2: a slave); returns 1 if there is none.
_f_pick_host() {
	local k c=()
	_F_HOST=
	for ((k = $1; k <= FAULT_HOSTS; k++)); do
		[ "${_F_STATE[k]}" = in ] && c+=("$k")
	done
	[ ${#c[@]} -gt 0 ] || return 1
	_F_HOST=${c[RANDOM % ${#c[@]}]}
}

_f_sleep_cont() {
	sleep "$2"
	kill -CONT "$1" 2>/dev/null || true
}

# _f_fault KIND: injects one fault (foreground: returns once it is over).
_f_fault() {
	local kind=$1 k pid d w tid host
	case $kind in
	killtask | stoptask-*)
		mapfile -t w < <(_f_workers)
		[ ${#w[@]} -gt 0 ] || return 1
		read -r tid pid host <<<"${w[RANDOM % ${#w[@]}]}"
		case $kind in
		killtask)
			_f_log "$kind $tid pid $pid host $host"
			kill -KILL "$pid" 2>/dev/null || true
			;;
		stoptask-short) _f_secs 200 400 ;;
		stoptask-long) _f_secs 1300 2000 ;;
		esac
		if [ "$kind" != killtask ]; then
			d=$_F_SECS
			_f_log "$kind $tid pid $pid host $host for $d s"
			kill -STOP "$pid" 2>/dev/null || true
			_f_sleep_cont "$pid" "$d"
		fi
		;;
	killpvmd | stoppvmd-long | cut-long)
		_f_pick_host 2 || return 1
		k=$_F_HOST
		pid=${_F_PVMD[k]}
		case $kind in
		killpvmd)
			_f_log "$kind h$k pid $pid"
			kill -KILL "$pid"
			;;
		stoppvmd-long)
			_f_secs 1400 2000
			d=$_F_SECS
			_f_log "$kind h$k pid $pid for $d s"
			kill -STOP "$pid"
			;;
		cut-long)
			_f_secs 1400 2000
			d=$_F_SECS
			_f_log "$kind h$k for $d s"
			host_cut "$k"
			;;
		esac
		_f_log "endhost h$k $(_f_htid "$k")"
		_F_STATE[k]=ended
		_F_ENDED[k]=$EPOCHREALTIME
		if [ "$kind" != killpvmd ]; then
			sleep "$d"
			[ "$kind" = cut-long ] && host_uncut "$k"
			[ "$kind" = stoppvmd-long ] && kill -CONT "$pid"
		fi
		;;
	stoppvmd-short | cut-short)
		_f_pick_host 1 || return 1
		k=$_F_HOST
		pid=${_F_PVMD[k]}
		if [ "$kind" = cut-short ]; then
			_f_secs 100 300
			d=$_F_SECS
			_f_log "$kind h$k for $d s"
			host_cut "$k"
			sleep "$d"
			host_uncut "$k"
		else
			_f_secs 100 350
			d=$_F_SECS
			_f_log "$kind h$k pid $pid for $d s"
			kill -STOP "$pid"
			_f_sleep_cont "$pid" "$d"
		fi
		;;
	esac
	return 0
}

# _f_lane SECS: the second lane (FAULT_LANE=1), in the background: faults
# of tasks only (kills and stops), at the same time as the first lane's,
# drawn from the seed + 1000 (a subshell has its RANDOM of its own).
# Whatever a host is going through, a task killed must be notified and a
# task stopped must lose nothing, so the checks stay the same.
_f_lane() {
	local kinds=(killtask stoptask-short stoptask-long stoptask-short) kind
	RANDOM=$((_F_SEED + 1000))
	while awk -v a="$_F_T0" -v b="$EPOCHREALTIME" -v s="$1" 'BEGIN { exit !(b - a < s) }'; do
		_f_secs 300 1500
		sleep "$_F_SECS"
		kind=${kinds[RANDOM % ${#kinds[@]}]}
		_f_fault "$kind" || _f_log "skip $kind (no target)"
	done
}

# _f_tend: ended hosts whose pvmd is gone are added again.
_f_tend() {
	local k htid
	for ((k = 2; k <= FAULT_HOSTS; k++)); do
		[ "${_F_STATE[k]}" = ended ] || continue
		if [ -n "$(host_pvmd_pid "$k")" ]; then
			# it must leave by itself once it has lost the master
			if awk -v a="${_F_ENDED[k]}" -v b="$EPOCHREALTIME" -v t="$FAULT_HT" \
				'BEGIN { exit !(b - a > t / 1000 * 2 + 10) }'; then
				_f_problem "the pvmd of h$k (pid ${_F_PVMD[k]}) is still there $(_f_now) s after its host ended"
				kill -KILL "$(host_pvmd_pid "$k")" 2>/dev/null || true
			fi
			continue
		fi
		htid=$(_f_htid "$k")
		# its hostdelete first (the master must have it by now)
		wait_until 10 grep -q "^notify hostdelete $htid host h$k " "$_F_DIR/master.out" ||
			_f_problem "no PvmHostDelete for h$k ($htid) $(_f_now) s"
		_F_STATE[k]=adding
		_f_log "readd h$k"
		printf 'add h%s\n' "$k" | on_host 1 timeout -k 5 60 "$CONSOLE" >>"$_F_DIR/console.out" 2>&1
		if wait_until 30 eval "grep -q '^notify hostadd .* host h$k ' '$_F_DIR/master.out' &&
			[ \"\$(_f_htid $k)\" != '$htid' ] && [ -n \"\$(host_pvmd_pid $k)\" ]"; then
			_F_STATE[k]=in
			_F_PVMD[k]=$(host_pvmd_pid "$k")
			_f_san "${_F_PVMD[k]}"
			_f_log "added h$k $(_f_htid "$k") pvmd ${_F_PVMD[k]}"
		else
			_f_problem "h$k could not be added again"
			_F_STATE[k]=lost
		fi
	done
}

# _f_san PID: on an instrumented tree (FAULT_ASAN), the pvmd PID runs
# with the sanitizers' runtime and options (the wrapper did its job).
_f_san() {
	[ -n "${FAULT_ASAN:-}" ] || return 0
	grep -q libasan "/proc/$1/maps" 2>/dev/null &&
		tr '\0' '\n' <"/proc/$1/environ" | grep -q '^ASAN_OPTIONS=.*log_path=' ||
		_f_problem "pvmd $1 runs without the sanitizers' runtime or log_path"
}

# fault_vm_start: the machine on the hosts, every pvmd $FAULT_PVMD.
fault_vm_start() {
	local hf=$_F_DIR/hostfile k
	{
		echo "* ep=$FAULT_BIN dx=$FAULT_PVMD"
		for ((k = 2; k <= FAULT_HOSTS; k++)); do echo "h$k"; done
	} >"$hf"
	on_host 1 timeout -k 5 30 env PVM_HOST_TIMEOUT="$FAULT_HT" "$FAULT_PVMD" "$hf" \
		</dev/null >"$_F_DIR/pvmd.out" 2>&1 || {
		cat "$_F_DIR/pvmd.out"
		return 1
	}
	for ((k = 1; k <= FAULT_HOSTS; k++)); do
		wait_until 60 eval "[ -n \"\$(host_pvmd_pid $k)\" ]" || {
			echo "h$k's pvmd did not start"
			return 1
		}
		_F_PVMD[k]=$(host_pvmd_pid "$k")
		_F_STATE[k]=in
		_f_san "${_F_PVMD[k]}"
	done
	# the table has every host when the master lists them
	wait_until 30 eval '[ "$(printf "conf\n" | on_host 1 timeout 10 "$CONSOLE" 2>/dev/null |
		grep -c " LINUX")" -ge $FAULT_HOSTS ]'
}

# fault_run SEED SECS DIR
fault_run() {
	local seed=$1 secs=$2
	_F_DIR=$3
	mkdir -p "$_F_DIR"
	: >"$_F_DIR/faults.log"
	: >"$_F_DIR/problems"
	_F_STATE=() _F_PVMD=() _F_ENDED=()
	_F_SEED=$seed
	_F_T0=$EPOCHREALTIME
	RANDOM=$seed
	echo "# seed $seed: $secs s of faults, host timeout $FAULT_HT ms, $FAULT_PERHOST workers per host every ${FAULT_INTERVAL} ms"
	_f_log "seed $seed secs $secs ht $FAULT_HT perhost $FAULT_PERHOST interval $FAULT_INTERVAL lane ${FAULT_LANE:-0} t0 $_F_T0"
	fault_vm_start || { _f_problem "the machine did not start"; return 1; }
	on_host_bg 1 timeout -k 5 $((secs + 300)) "$FAULT_BIN/pt_chaos" master \
		"$FAULT_PERHOST" "$FAULT_INTERVAL" "$_F_DIR/stop" $((secs + 120)) \
		>"$_F_DIR/master.out" 2>&1
	local mpid=$HOSTS_BG_PID
	wait_until 60 grep -q '^running ' "$_F_DIR/master.out" || {
		cat "$_F_DIR/master.out"
		_f_problem "the job did not start"
		return 1
	}
	_f_log "running"
	# kinds by weight: the first draw of each round picks one
	local kinds=(killtask killtask killtask stoptask-short stoptask-short
		stoptask-long killpvmd stoppvmd-short stoppvmd-short stoppvmd-long
		cut-short cut-short cut-long)
	local kind lane=
	if [ "${FAULT_LANE:-0}" = 1 ]; then
		_f_lane "$secs" &
		lane=$!
	fi
	while awk -v a="$_F_T0" -v b="$EPOCHREALTIME" -v s="$secs" 'BEGIN { exit !(b - a < s) }'; do
		_f_secs 150 800
		sleep "$_F_SECS"
		kind=${kinds[RANDOM % ${#kinds[@]}]}
		_f_fault "$kind" || _f_log "skip $kind (no target)"
		_f_tend
	done
	[ -z "$lane" ] || wait "$lane"
	# the end: every ended host gone or added back, then the accounting
	local n=0
	while [ -n "$(for k in 2 3 4; do [ "${_F_STATE[k]}" = ended ] && echo x; done)" ] &&
		((n++ < 60)); do
		sleep 1
		_f_tend
	done
	sleep $((FAULT_HT / 1000 + 1))
	_f_log "stop"
	touch "$_F_DIR/stop"
	local st=0
	wait "$mpid" || st=$?
	_f_log "the job ended with status $st"
	echo "$st" >"$_F_DIR/master.status"
	# a job that failed: where each task still running is (the pvmd logs,
	# kept by the halt, have the rest)
	if [ "$st" -ne 0 ] && command -v gdb >/dev/null; then
		local p
		for p in $(vm_pids "$PVM_VMID"); do
			echo "--- pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
			timeout 20 gdb -q -batch -p "$p" -ex 'bt 25' 2>&1 | grep '^#'
		done >"$_F_DIR/stacks" 2>&1
	fi
	# the pvmds that should be there are, with the pid they started with
	local k
	for ((k = 1; k <= FAULT_HOSTS; k++)); do
		[ "${_F_STATE[k]}" = in ] || continue
		[ "$(host_pvmd_pid "$k")" = "${_F_PVMD[k]}" ] ||
			_f_problem "h$k's pvmd ${_F_PVMD[k]} is gone (now: '$(host_pvmd_pid "$k")')"
	done
	fault_halt
	for ((k = 1; k <= FAULT_HOSTS; k++)); do
		on_host "$k" cat "$VMDIR/pvmd.log" >"$_F_DIR/pvmd.h$k.log" 2>/dev/null
	done
	awk '$2 ~ /^(killtask|stoptask-|killpvmd|stoppvmd-|cut-)/ { n[$2]++ }
		END { for (k in n) print k, n[k] }' "$_F_DIR/faults.log" | sort >"$_F_DIR/counts"
	fault_check "$_F_DIR"
}

# fault_halt: halt from h1; then nothing of the machine may be left.
fault_halt() {
	local k left
	_f_log "halt"
	printf 'halt\n' | on_host 1 timeout -k 5 30 "$CONSOLE" >>"$_F_DIR/console.out" 2>&1 || true
	for ((k = 1; k <= FAULT_HOSTS; k++)); do
		wait_until 15 host_no_pvmd "$k" ||
			_f_problem "h$k's pvmd is still there after halt"
	done
	wait_until 10 eval '[ -z "$(vm_pids "$PVM_VMID")" ]' ||
		_f_problem "processes of the machine left after halt: $(vm_pids "$PVM_VMID" | tr '\n' ' ')"
	for ((k = 1; k <= FAULT_HOSTS; k++)); do
		left=$(on_host "$k" ls /dev/shm 2>/dev/null | grep -F "pvm.$(id -u).$PVM_VMID." | head -n 5 | tr '\n' ' ')
		[ -z "$left" ] || _f_problem "h$k: inboxes left in /dev/shm: $left"
		# the log is kept (pvmd.8), and the lock file no one holds
		left=$(on_host "$k" sh -c "ls -A '$VMDIR' 2>/dev/null" |
			grep -vxE 'pvmd\.log(\.1)?|pvmd\.lock' | tr '\n' ' ')
		[ -z "$left" ] || _f_problem "h$k: left in the VM directory $VMDIR: $left"
	done
	_f_log "halted"
}

# fault_check DIR: the checks on the files of a job (see the top).
fault_check() {
	local d=$1 p=0 tid host htid t w
	local mo=$d/master.out fl=$d/faults.log
	[ -f "$mo" ] && [ -f "$fl" ] || { echo "fault_check: no $mo or $fl"; return 1; }
	_fc() { echo "check failed: $*"; p=$((p + 1)); }
	grep -qx 'verdict OK' "$mo" || _fc "the job's verdict is not OK: $(grep '^verdict' "$mo")"
	[ "$(cat "$d/master.status" 2>/dev/null)" = 0 ] || _fc "the job exited with status $(cat "$d/master.status" 2>/dev/null)"
	# every task killed was notified
	while read -r tid; do
		grep -q "^notify taskexit $tid " "$mo" || _fc "no PvmTaskExit for the killed $tid"
	done < <(awk '$2 == "killtask" { print $3 }' "$fl")
	# every host ended: a PvmHostDelete, and one for each of its tasks
	while read -r host htid; do
		grep -q "^notify hostdelete $htid host $host " "$mo" ||
			_fc "no PvmHostDelete for $host ($htid), which was ended"
	done < <(awk '$2 == "endhost" { print $3, $4 }' "$fl")
	# every PvmHostDelete: a host the driver ended (else a pvmd died)
	while read -r htid host; do
		grep -q " endhost $host $htid\$" "$fl" || _fc "$host ($htid) was deleted, but no fault ended it"
	done < <(awk '$1 == "notify" && $2 == "hostdelete" { print $3, $5 }' "$mo")
	# every task exit: a task killed, or one of an ended host
	local ended=" $(awk '$2 == "endhost" { printf "%s ", $4 }' "$fl")"
	while read -r tid; do
		grep -q " killtask $tid " "$fl" && continue
		t=$(printf '%x' $(((0x${tid#t} >> 18) << 18)))
		[[ "$ended" == *" t$t "* ]] && continue
		_fc "$tid exited, but no fault killed it nor ended its host"
	done < <(awk '$1 == "notify" && $2 == "taskexit" { print $3 }' "$mo" | sort -u)
	# no pvmd crashed: each one that started (the logs of a host's
	# pvmds follow each other in its pvmd.log) logged its exit, unless
	# the driver SIGKILLed it
	local f pid
	for f in "$d"/pvmd.h*.log; do
		[ -f "$f" ] || continue
		while read -r pid; do
			grep -q " killpvmd h[0-9]* pid $pid\$" "$fl" ||
				_fc "the pvmd $pid (${f##*/}) never logged its exit: it crashed or hung"
		done < <(awk '/ pvmd started: pid / { p = $3; gsub(/[][]/, "", p); s[p] = 1 }
			/ pvmd exiting$/ { p = $3; gsub(/[][]/, "", p); delete s[p] }
			END { for (p in s) print p }' "$f")
	done
	# how soon: a killed task's PvmTaskExit within 5 s, an ended host's
	# PvmHostDelete within the host timeout and 5 s
	local delays
	delays=$(awk '
		FNR == NR && $2 == "seed" { for (i = 2; i < NF; i++) { if ($i == "t0") t0 = $(i + 1); if ($i == "ht") ht = $(i + 1) } }
		FNR == NR && $2 == "killtask" { kill[$3] = t0 + $1 }
		FNR == NR && $2 == "endhost" { end[$4] = t0 + $1 }
		FNR != NR && $1 == "notify" && ($3 in kill) && $2 == "taskexit" {
			d = $NF - kill[$3] * 1000; nk++; if (d > mk) mk = d
			if (d > 5000) printf "late: PvmTaskExit of %s %d ms after its kill\n", $3, d }
		FNR != NR && $1 == "notify" && ($3 in end) && $2 == "hostdelete" {
			d = $NF - end[$3] * 1000; ne++; if (d > me) me = d
			if (d > ht + 5000) printf "late: PvmHostDelete of %s %d ms after its end\n", $3, d }
		END { printf "notify delays: PvmTaskExit after SIGKILL max %d ms (%d), PvmHostDelete after the fault max %d ms (%d)\n", mk, nk, me, ne }' \
		"$fl" "$mo")
	while read -r w; do
		case $w in late:*) _fc "$w" ;; esac
	done <<<"$delays"
	grep '^problem: ' "$mo" | sed 's/^/# /'
	if [ -s "$d/problems" ]; then
		while read -r w; do _fc "$w"; done <"$d/problems"
	fi
	# the accounting for the record
	{
		echo "seed $(awk '$2 == "seed" { print $3 }' "$fl") faults: $(tr '\n' ' ' <"$d/counts" 2>/dev/null)"
		grep '^accounting: ' "$mo" | sed 's/^accounting: //'
		echo "notifies: $(grep -c '^notify taskexit' "$mo") taskexit, $(grep -c '^notify hostdelete' "$mo") hostdelete, $(grep -c '^notify hostadd' "$mo") hostadd; $(grep -c ' killtask ' "$fl") tasks killed, $(grep -c ' endhost ' "$fl") hosts ended, $(grep -c ' added ' "$fl") added again"
		printf '%s\n' "$delays" | grep '^notify delays'
		grep '^verdict' "$mo"
		echo "driver: $p problems"
	} >"$d/summary"
	[ "$p" -eq 0 ]
}
