#!/usr/bin/env python3
"""frames.py - speaks raw wire-protocol frames (docs/protocol.md) to a pvmd.

Usage:
  frames.py SOCKET bad      send malformed and truncated frames, each on its
                            own connection; expect each connection closed
                            (or answered with an error) and nothing else
  frames.py SOCKET connect  enroll properly; expect a good TM_CONNECT reply;
                            an unknown control code gets PvmNotImpl
  frames.py SOCKET peer     enroll; expect the pvmd to close the connection
                            without a reply (run as another user)
  frames.py SOCKET waits N  enroll; send N pvm_recvinfo requests with
                            PvmMboxWaitForInfo for an entry nobody puts,
                            without waiting for answers; print how many
                            were answered at once, and with which codes
Prints one line per case and "FAIL ..." for each unexpected result; exits 1
if any.  Only the standard library: it must run as user nobody too.
"""
import os
import socket
import struct
import sys

FIRST, LAST, CTRL = 1, 2, 4
TM_CONNECT, TM_TASKS, TM_SPAWN, TM_NOTIFY = 1, 4, 3, 10
PVMD_TID = 0x40000
WIRE_VERSION = 3
fails = 0


def hdr(length, flags, enc=0, dst=PVMD_TID, src=0, tag=0, ctx=0, seq=0, wid=0, total=None):
    if total is None:
        total = length
    return struct.pack(">IHHiiiiIIQ", length, flags, enc, dst, src, tag, ctx, seq, wid, total)


def ctrl(tag, payload, wid=1, src=0):
    return hdr(len(payload), FIRST | LAST | CTRL, tag=tag, wid=wid, src=src) + payload


def i32(v):
    return struct.pack(">i", v)


def s(b):
    if isinstance(b, str):
        b = b.encode()
    return struct.pack(">I", len(b)) + b


def connect_payload(version=WIRE_VERSION):
    return i32(version) + i32(os.getpid()) + i32(0) + s("")


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg, flush=True)


def open_conn(path):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(None)  # blocking: a full listen backlog makes connect wait
    c.connect(path)
    c.settimeout(5)
    return c


def read_exact(c, n):
    buf = b""
    while len(buf) < n:
        d = c.recv(n - len(buf))
        if not d:
            return None
        buf += d
    return buf


def read_frame(c):
    """Returns (header tuple, payload), or None on EOF; raises on timeout."""
    h = read_exact(c, 40)
    if h is None:
        return None
    f = struct.unpack(">IHHiiiiIIQ", h)
    p = read_exact(c, f[0])
    if p is None:
        return None
    return f, p


def outcome(c):
    """After a bad input: 'closed', 'error N' (an error reply, then closed or
    not), or 'open' if the pvmd neither answered nor closed in 5 s."""
    try:
        while True:
            fr = read_frame(c)
            if fr is None:
                return "closed"
            f, p = fr
            if not f[1] & CTRL:
                continue  # a data frame the pvmd forwarded to us: skip it
            st = struct.unpack(">i", p[:4])[0] if len(p) >= 4 else 0
            return "reply %d" % st
    except socket.timeout:
        return "open"
    except (ConnectionResetError, BrokenPipeError):
        return "closed"


def enroll(path):
    c = open_conn(path)
    c.sendall(ctrl(TM_CONNECT, connect_payload(), wid=7))
    fr = read_frame(c)
    if fr is None:
        return None, 0
    f, p = fr
    st, tid = struct.unpack(">ii", p[:8])
    return c, tid


def bad(path):
    cases = [
        ("1000 bytes of 0xff", b"\xff" * 1000),
        ("unknown header flag", hdr(4, FIRST | LAST | 0x80) + b"abcd"),
        ("frame longer than 16 MiB", hdr(17 << 20, FIRST | LAST) + b"x" * 64),
        ("control frame without FIRST|LAST", hdr(4, CTRL | FIRST, tag=TM_CONNECT) + b"abcd"),
        ("total smaller than len", hdr(100, FIRST | LAST, total=50) + b"y" * 100),
        ("truncated header", hdr(4, FIRST | LAST)[:20]),
        ("truncated payload", hdr(1000, FIRST | LAST | CTRL, tag=TM_CONNECT, wid=1) + b"z" * 10),
        ("TM_CONNECT with an absurd string length",
         ctrl(TM_CONNECT, i32(WIRE_VERSION) + i32(1) + i32(0) + struct.pack(">I", 0x7fffffff) + b"ab")),
        ("TM_CONNECT payload cut short", ctrl(TM_CONNECT, i32(WIRE_VERSION))),
        ("TM_CONNECT with an empty payload", ctrl(TM_CONNECT, b"")),
        ("a control request before TM_CONNECT", ctrl(TM_TASKS, i32(0))),
        ("a message before TM_CONNECT", hdr(4, FIRST | LAST, dst=PVMD_TID + 1, tag=5) + b"abcd"),
        ("control code out of range before enrolling", ctrl(9999, b"", wid=3)),
    ]
    for name, data in cases:
        c = open_conn(path)
        try:
            c.sendall(data)
            if name.startswith("truncated"):
                c.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        r = outcome(c)
        c.close()
        print("%s: %s" % (name, r), flush=True)
        if r == "open" or r == "reply 0":
            fail("%s: connection %s" % (name, r))

    # Wrong protocol version: PvmBadVersion (-26), then closed.
    c = open_conn(path)
    c.sendall(ctrl(TM_CONNECT, connect_payload(version=999)))
    r = outcome(c)
    print("TM_CONNECT version 999: %s" % r, flush=True)
    if r not in ("reply -26", "closed"):
        fail("wrong version: %s" % r)
    c.close()

    # Enrolled connections that then misbehave.
    post = [
        ("continuation frame with no message in progress",
         lambda tid: hdr(8, LAST, dst=tid, src=tid, tag=5, total=0) + b"12345678"),
        ("more bytes than total announced",
         lambda tid: hdr(8, FIRST, dst=tid, src=tid, tag=5, total=10) + b"12345678" +
         hdr(8, LAST, dst=tid, src=tid, tag=5, total=0) + b"12345678"),
        ("TM_SPAWN with a count of 2^31-1 strings",
         lambda tid: ctrl(TM_SPAWN, s("pt_task") + i32(0) + s("") + i32(1) + i32(0) +
                          i32(0x7fffffff) + s("a"), src=tid)),
        ("TM_NOTIFY with cnt 2^31-1 and two tids",
         lambda tid: ctrl(TM_NOTIFY, i32(1) + i32(5) + i32(0) + i32(0x7fffffff) + i32(tid) + i32(tid),
                          src=tid)),
        ("TM_NOTIFY with a negative count",
         lambda tid: ctrl(TM_NOTIFY, i32(1) + i32(5) + i32(0) + i32(-5), src=tid)),
        ("a second TM_CONNECT", lambda tid: ctrl(TM_CONNECT, connect_payload(), src=tid)),
        ("half a header, then close", lambda tid: hdr(8, FIRST | LAST, dst=tid, src=tid)[:13]),
    ]
    for name, mk in post:
        c, tid = enroll(path)
        if not c or tid <= 0:
            fail("%s: could not enroll (tid %d)" % (name, tid))
            continue
        try:
            c.sendall(mk(tid))
            if name.startswith("half"):
                c.shutdown(socket.SHUT_WR)
        except (BrokenPipeError, ConnectionResetError):
            pass
        r = outcome(c)
        c.close()
        print("enrolled, %s: %s" % (name, r), flush=True)
        if r == "open" or r == "reply 0":
            fail("%s: connection %s" % (name, r))

    # Many connections opened and dropped at once.
    conns = []
    for _ in range(4):
        conns += [open_conn(path) for _ in range(50)]
    for i, c in enumerate(conns):
        if i % 2:
            try:
                c.sendall(hdr(40, FIRST | LAST | CTRL, tag=TM_CONNECT)[: i % 40])
            except OSError:
                pass
        c.close()
    print("200 connections dropped", flush=True)


def connect(path):
    c, tid = enroll(path)
    if not c:
        fail("no reply to TM_CONNECT")
        return
    print("enrolled as t%x" % tid, flush=True)
    if tid <= 0 or (tid & 0x3ffc0000) != PVMD_TID:
        fail("bad tid %x" % tid)
    # An unknown control code with a wid is answered PvmNotImpl (-24).
    c.sendall(ctrl(77, b"", wid=42, src=tid))
    try:
        fr = read_frame(c)
    except socket.timeout:
        fr = None
    if fr is None:
        fail("no reply to control code 77")
    else:
        f, p = fr
        st = struct.unpack(">i", p[:4])[0]
        print("code 77: tag %d wid %d status %d" % (f[5], f[8], st), flush=True)
        if f[5] != 77 or f[8] != 42 or st != -24:
            fail("code 77 reply: tag %d wid %d status %d" % (f[5], f[8], st))
    c.close()


def waits(path, n):
    c, tid = enroll(path)
    if not c:
        fail("no reply to TM_CONNECT")
        return
    TM_MBOX_GET, WAIT_FOR_INFO = 17, 32
    req = s(b"hx.never") + i32(0) + i32(WAIT_FOR_INFO)
    c.sendall(b"".join(ctrl(TM_MBOX_GET, req, wid=100 + k, src=tid)
                       for k in range(n)))
    codes = {}
    c.settimeout(2)
    while True:
        try:
            fr = read_frame(c)
        except socket.timeout:
            break
        if fr is None:
            break
        st = struct.unpack(">i", fr[1][:4])[0]
        codes[st] = codes.get(st, 0) + 1
    print("answered %d: %s" % (sum(codes.values()),
                               " ".join("%d x%d" % kv for kv in sorted(codes.items()))),
          flush=True)
    c.close()


def peer(path):
    try:
        c = open_conn(path)
    except OSError as e:
        fail("cannot connect: %s" % e)
        return
    try:
        c.sendall(ctrl(TM_CONNECT, connect_payload(), wid=9))
    except (BrokenPipeError, ConnectionResetError):
        pass
    r = outcome(c)
    print("peer of another uid: %s" % r, flush=True)
    if r != "closed":
        fail("a peer of another uid was not dropped: %s" % r)


def main():
    if len(sys.argv) == 4 and sys.argv[2] == "waits":
        waits(sys.argv[1], int(sys.argv[3]))
    elif len(sys.argv) != 3:
        print(__doc__)
        return 2
    else:
        {"bad": bad, "connect": connect, "peer": peer}[sys.argv[2]](sys.argv[1])
    print("%d failed" % fails, flush=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
