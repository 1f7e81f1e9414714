#!/usr/bin/env python3
"""fwd_flood.py SOCKET TID COUNT GOFILE - a task that does not wait.

Enrolls on the pvmd socket SOCKET by hand, then sends COUNT TM_PSTAT
requests for TID (a task of another host, whose pvmd the caller has
stopped) without waiting for their answers.  Prints "refused N": the
answers PvmOutOfRes that came within 3 s (the pvmd keeps at most 64 of a
task's forwarded requests waiting).  Then waits for GOFILE (the caller
has let the host go on) and prints "answered M": the other answers that
came within 20 s.  Multihost.bats, docs/limits.md."""
import os
import socket
import struct
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from wireframe import (CTRL, FIRST, HDR, LAST, TM_CONNECT, WIRE_VERSION, blob,
                       i32, recv_frame)

TM_PSTAT, TM_EXIT = 7, 2
PVM_OUT_OF_RES = -27


def ctrl(tag, payload, src, wid):
    return struct.pack(HDR, len(payload), FIRST | LAST | CTRL, 0, 0x40000, src,
                       tag, 0, 0, wid, len(payload)) + payload


def answers(c, until):
    """Status of each TM_PSTAT answer until the time `until`."""
    got = []
    while time.time() < until:
        c.settimeout(max(0.05, until - time.time()))
        try:
            r = recv_frame(c)
        except socket.timeout:
            break
        if r is None:
            break
        f, p = r
        if f[5] == TM_PSTAT and len(p) >= 4:
            got.append(struct.unpack(">i", p[:4])[0])
    return got


def main():
    path, tid, count, go = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3]), sys.argv[4]
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.connect(path)
    c.sendall(ctrl(TM_CONNECT, i32(WIRE_VERSION) + i32(os.getpid()) + i32(0)
                   + blob(b"") + i32(0), 0, 1))
    f, p = recv_frame(c)
    status, me = struct.unpack(">ii", p[:8])
    if status != 0:
        print("enroll failed: %d" % status)
        return 1
    for k in range(count):
        c.sendall(ctrl(TM_PSTAT, i32(tid), me, 2 + k))
    first = answers(c, time.time() + 3)
    print("refused %d" % first.count(PVM_OUT_OF_RES), flush=True)
    print("others %d" % (len(first) - first.count(PVM_OUT_OF_RES)), flush=True)
    while not os.path.exists(go):
        time.sleep(0.05)
    later = answers(c, time.time() + 20)
    print("answered %d" % len(later), flush=True)
    c.sendall(ctrl(TM_EXIT, b"", me, 9999))
    return 0


sys.exit(main())
