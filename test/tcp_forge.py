#!/usr/bin/env python3
"""tcp_forge.py - forged connections to a task's TCP direct-route listener
(docs/protocol.md "Direct routes", docs/hosts.md "Authentication").

Usage: tcp_forge.py PORT TID SECRETFILE

Each case on its own connection to 127.0.0.1:PORT, where task TID
listens; the task must close every forged connection:
  garbage   random bytes
  bigframe  a control frame header announcing 1 MiB
  data      an ordinary data frame instead of DM_HELLO
  wrongtask a DM_HELLO addressed to another tid
  badmac    a proper DM_HELLO (the task's answer is checked with the real
            secret), then DM_AUTH with a wrong MAC: no reply, closed
  badhello  the whole exchange with the right secret (DM_AUTH answered 0),
            then a TM_CONNECT hello naming another tid than DM_HELLO did
Prints one line per case and "FAIL ..." for each unexpected result; exits 1
if any.
"""
import hashlib
import hmac
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from wireframe import (CTRL, DM_AUTH, DM_HELLO, FIRST, LAST, REPLY,
                       TM_CONNECT, WIRE_VERSION, blob, i32, label, recv_exact)

fails = 0


def hdr(length, flags, dst, src, tag, total=None):
    if total is None:
        total = length
    return struct.pack(">IHHiiiiIIQ", length, flags, 0, dst, src, tag, 0, 0, 0, total)


def ctrl(tag, payload, dst, src):
    return hdr(len(payload), FIRST | LAST | CTRL, dst, src, tag) + payload


def fail(msg):
    global fails
    fails += 1
    print("FAIL " + msg)


def read_frame(s):
    h = recv_exact(s, 40)
    if h is None:
        return None
    length, flags, _, dst, src, tag = struct.unpack(">IHHiii", h[:20])
    p = recv_exact(s, length)
    if p is None:
        return None
    return flags, dst, src, tag, p


def closed(s):
    """True when the peer closes (EOF or reset) within 5 s, nothing sent."""
    s.settimeout(5)
    try:
        got = s.recv(4096)
        if got:
            print("   (the task sent %d bytes)" % len(got))
            return False
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def conn(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s


def hello(s, tid, me, secret):
    """DM_HELLO; returns (nc, na) after checking the task's MAC."""
    nc = os.urandom(32)
    s.sendall(ctrl(DM_HELLO, i32(WIRE_VERSION) + i32(me) + blob(nc), tid, me))
    f = read_frame(s)
    if f is None:
        fail("no DM_HELLO reply")
        return None
    flags, dst, src, tag, p = f
    status, atid = struct.unpack(">ii", p[:8])
    if tag != DM_HELLO or not flags & REPLY or status != 0 or atid != tid or src != tid or dst != me:
        fail("bad DM_HELLO reply: tag %d flags %x status %d tid %x" % (tag, flags, status, atid))
        return None
    (ln,) = struct.unpack(">I", p[8:12])
    na = p[12:12 + ln]
    (lm,) = struct.unpack(">I", p[12 + ln:16 + ln])
    mac = p[16 + ln:16 + ln + lm]
    want = hmac.new(secret, label(b"task-acceptor", me, tid) + nc + na, hashlib.sha256).digest()
    if len(na) != 32 or not hmac.compare_digest(mac, want):
        fail("the task's DM_HELLO MAC does not check with the secret")
        return None
    return nc, na


def main():
    port, tid = int(sys.argv[1]), int(sys.argv[2], 16)
    with open(sys.argv[3]) as f:
        secret = bytes.fromhex(f.read().strip())
    # a tid of another host (host 2), as a connecting task would have
    me = (2 << 18) | 7

    s = conn(port)
    s.sendall(os.urandom(64))
    ok = closed(s)
    print("garbage: " + ("closed" if ok else "open"))
    if not ok:
        fail("garbage: connection left open")
    s.close()

    s = conn(port)
    s.sendall(hdr(1 << 20, FIRST | LAST | CTRL, tid, me, DM_HELLO))
    ok = closed(s)
    print("bigframe: " + ("closed" if ok else "open"))
    if not ok:
        fail("bigframe: connection left open")
    s.close()

    s = conn(port)
    s.sendall(hdr(4, FIRST | LAST, tid, me, 5) + b"abcd")
    ok = closed(s)
    print("data: " + ("closed" if ok else "open"))
    if not ok:
        fail("data frame before the handshake: connection left open")
    s.close()

    s = conn(port)
    s.sendall(ctrl(DM_HELLO, i32(WIRE_VERSION) + i32(me) + blob(os.urandom(32)), tid + 1, me))
    ok = closed(s)
    print("wrongtask: " + ("closed" if ok else "open or answered"))
    if not ok:
        fail("DM_HELLO for another task: not closed at once")
    s.close()

    s = conn(port)
    r = hello(s, tid, me, secret)
    if r:
        s.sendall(ctrl(DM_AUTH, blob(os.urandom(32)), tid, me))
        ok = closed(s)
        print("badmac: " + ("closed" if ok else "open or answered"))
        if not ok:
            fail("wrong MAC: connection not closed")
    s.close()

    s = conn(port)
    r = hello(s, tid, me, secret)
    if r:
        nc, na = r
        mac = hmac.new(secret, label(b"task-connector", me, tid) + nc + na, hashlib.sha256).digest()
        s.sendall(ctrl(DM_AUTH, blob(mac), tid, me))
        f = read_frame(s)
        if f is None or f[3] != DM_AUTH or struct.unpack(">i", f[4][:4])[0] != 0:
            fail("right MAC: no DM_AUTH reply 0")
        else:
            other = me + 1
            s.sendall(ctrl(TM_CONNECT, i32(WIRE_VERSION) + i32(other), tid, other))
            ok = closed(s)
            print("badhello: authenticated, then " + ("closed" if ok else "open"))
            if not ok:
                fail("hello with another tid: connection left open")
    s.close()
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
