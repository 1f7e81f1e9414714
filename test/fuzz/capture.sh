#!/usr/bin/env bash
# capture.sh [SUITE...] - seeds for the fuzz targets from the traffic of
# the test suites: runs the suites (default: messaging tasks mbox group
# notify taskctl console) with every pvmd they start under strace, then
# test/fuzz/capture.py makes seeds of what each task and its pvmd said,
# written into test/fuzz/corpus/<target>/ (their names are their SHA-1s).
# Run from a build directory with abs_top_builddir and abs_top_srcdir set,
# as make fuzz-capture does; needs strace.  The suites' results do not
# matter here (strace slows the pvmd down): only the traffic does.  The
# pvmds run in the foreground (-f), so that strace follows the daemon
# and nothing else.
set -u
: "${abs_top_builddir:?}" "${abs_top_srcdir:?}"
command -v strace >/dev/null || { echo "capture.sh: needs strace" >&2; exit 1; }
work=$(mktemp -d /tmp/pvmcapture.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/traces"
cat >"$work/wrap" <<WRAP
#!/bin/sh
exec strace -qq -xx -s 0 -o "$work/traces/pvmd.\$\$" \\
	-e trace=accept4,accept,read,readv,recvmsg,write,writev,sendmsg,close \\
	-e read=all -e write=all "\$@" -f
WRAP
chmod +x "$work/wrap"
[ $# -gt 0 ] || set -- messaging tasks mbox group notify taskctl console
for s in "$@"; do
	echo "# capture: $s"
	PVM_TEST_PVMD_WRAP="$work/wrap" PVM_TEST_ASAN=0 \
		bash "$abs_top_srcdir/test/run.sh" "$abs_top_srcdir/test/$s.bats" 2>&1 | tail -n 1
done
python3 "$abs_top_srcdir/test/fuzz/capture.py" "$abs_top_srcdir/test/fuzz/corpus" \
	"$work"/traces/pvmd.*
