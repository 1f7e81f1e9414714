#!/usr/bin/env bats
# Direct routes over TCP (docs/protocol.md "Direct routes"): what tasks of
# different hosts use with PvmRouteDirect, tested on one host with the
# test option PVM_DIRECT_TCP=1 (TCP instead of the Unix socket) and the
# shared-memory route off.  The VM secret is written by the test, as the
# master pvmd writes it.

load helpers

setup() {
	skip_if_ref "the reference has no TCP direct routes between tasks of one host"
	pvm_test_env
	export PVM_DIRECT_TCP=1 PVM_SHM=0
	start_pvmd PVM_SHM=0
	make_secret
}

teardown() {
	stop_vm
}

# serve: starts `pt_tcp serve` in the background; sets SERVE_PID, SERVE_TID
# and SERVE_PORT (its TCP listener, from ss; empty if it has none).
serve() {
	timeout -k 5 "$TMO" "$TESTTMP/bin/pt_tcp" serve >"$TESTTMP/serve.out" 2>&1 &
	SERVE_PID=$!
	wait_until 10 grep -q '^serving t' "$TESTTMP/serve.out" || {
		cat "$TESTTMP/serve.out"
		return 1
	}
	SERVE_TID=$(sed -n 's/^serving t//p' "$TESTTMP/serve.out")
	# the pt_tcp process itself (timeout is its parent)
	local p
	p=$(pgrep -P "$SERVE_PID" -f 'pt_tcp serve' || echo "$SERVE_PID")
	SERVE_PORT=$(ss -tlnpH | grep "pid=$p," | awk '{print $4}' | sed 's/.*://' | head -n 1)
}

serve_ok() {
	wait "$SERVE_PID"
	local st=$?
	cat "$TESTTMP/serve.out"
	[ "$st" -eq 0 ]
	grep -q "serve: .* checks passed, 0 failed" "$TESTTMP/serve.out"
}

@test "every encoding and size (0 B to 16 MiB) over a TCP direct route, data checked" {
	TMO=120 prog_ok pt_tcp paths
	# one TCP connection carries both ways (counted in /proc/net/tcp)
	[[ "$output" == *"TCP connections: ours 1, the child's 1"* ]]
}

@test "one copy per received byte over TCP: 64 KiB, 1 MiB, 16 MiB by precv and recv" {
	TMO=120 prog_ok pt_tcp copies
	printf '%s\n' "$output" | grep 'copies per byte' | sed 's/^/# /' >&3
}

@test "order kept when the route switches from the pvmd to TCP mid-stream" {
	TMO=60 prog_ok pt_tcp switch 2000
	[[ "$output" == *"child counted 2000, first disorder at -1"* ]]
}

@test "order under load over TCP: 6 tasks all-to-all, switching routes mid-stream" {
	TMO=120 prog_ok pt_order 6 4000 switch
	[[ "$output" == *"6 workers, 120000 messages checked"* ]]
}

@test "forged connections (garbage, huge frame, wrong MAC, wrong hello) are refused; the task goes on" {
	serve
	[ -n "$SERVE_PORT" ]
	run timeout -k 5 60 python3 "$S/test/tcp_forge.py" "$SERVE_PORT" "$SERVE_TID" "$VMDIR/secret"
	show
	[ "$status" -eq 0 ]
	[[ "$output" == *"badmac: closed"* ]]
	# and the task still works, over TCP
	prog_ok pt_tcp client "$SERVE_TID" tcp
	serve_ok
}

@test "a task without the secret file uses the pvmd route; messages arrive" {
	serve
	[ -n "$SERVE_PORT" ]
	rm "$VMDIR/secret"
	prog_ok pt_tcp client "$SERVE_TID" pvmd
	serve_ok
}

@test "a task that has no TCP listener (no secret when it enrolled) is reached through the pvmd" {
	rm "$VMDIR/secret"
	serve
	[ -z "$SERVE_PORT" ]
	make_secret
	prog_ok pt_tcp client "$SERVE_TID" pvmd
	serve_ok
}
