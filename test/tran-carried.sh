#!/bin/sh
# tran-carried.sh REPORT NAME: how many messages transport NAME carried,
# summed over the lines of a PVM_TRAN_REPORT file ("t40001 shm=12
# direct=0 pvmd=3", docs/architecture.md); 0 when the file is missing.
[ -f "$1" ] || { echo 0; exit 0; }
exec awk -v t="$2" '{ for (i = 2; i <= NF; i++) { split($i, kv, "=");
	if (kv[1] == t) n += kv[2] } } END { print n + 0 }' "$1"
