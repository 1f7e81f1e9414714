#!/usr/bin/env python3
"""forge_pvmd.py - a pvmd that does not know the secret (docs/hosts.md,
"Authentication") knocks at a pvmd's TCP port.

Usage: forge_pvmd.py HOST PORT HOSTNO
       forge_pvmd.py HOST PORT HOSTNO SECRETFILE [TARGETNO]


Cases, each on its own connection:
  wrongmac   DM_HELLO as host HOSTNO, then DM_AUTH with a mac made from a
             wrong secret: the pvmd answers the hello, then must close the
             connection without a DM_AUTH reply
  early      a data frame before any handshake: closed, nothing answered
  garbage    a header with an absurd length: closed
With SECRETFILE (the machine's secret, as the pvmd writes it), one case:
  claim      a peer that knows the secret claims host HOSTNO, a number it
             was not given: the number of the pvmd it talks to, or with
             TARGETNO (that pvmd's number) another host's, or one that is
             in no table: the handshake succeeds as far as the MACs go,
             and the pvmd must close the connection without a DM_AUTH
             reply
Prints "ok CASE" or "FAIL CASE: why"; exits 1 on any failure.
"""
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from wireframe import (CTRL, DM_AUTH, DM_HELLO, FIRST, HDR, LAST, REPLY,
                       WIRE_VERSION, blob, frame, i32, label, mac, recv_frame)

fails = 0


def closed_without_reply(c):
    """True if the peer closes without sending another frame."""
    try:
        return recv_frame(c) is None
    except (ConnectionResetError, socket.timeout):
        return False


def result(case, ok, why=""):
    global fails
    if ok:
        print("ok " + case, flush=True)
    else:
        fails += 1
        print("FAIL %s: %s" % (case, why), flush=True)


def connect(host, port):
    c = socket.create_connection((host, port), timeout=10)
    c.settimeout(15)  # the pvmd drops silent connections after 10 s
    return c


def hello(case, host, port, hostno, dst):
    """A DM_HELLO as host hostno: (connection, nonce_c, nonce_a) once the
    pvmd has answered it with status 0, else None (the case failed)."""
    c = connect(host, port)
    nonce_c = os.urandom(32)
    c.sendall(frame(DM_HELLO, i32(WIRE_VERSION) + i32(hostno) + blob(nonce_c),
                    dst=dst, src=hostno << 18))
    r = recv_frame(c)
    if r is None:
        result(case, False, "no DM_HELLO reply")
        return None
    f, p = r
    if f[5] != DM_HELLO or not f[1] & REPLY or len(p) < 12:
        result(case, False, "unexpected answer code %d flags %d" % (f[5], f[1]))
        return None
    status = struct.unpack(">i", p[:4])[0]
    if status != 0:
        result(case, False, "hello refused with status %d" % status)
        return None
    n = struct.unpack(">I", p[8:12])[0]
    aid = struct.unpack(">i", p[4:8])[0]
    return c, nonce_c, p[12:12 + n], aid


def auth_refused(case, h, secret, dst, hostno, why):
    """DM_AUTH with a mac made from `secret`: the pvmd must close the
    connection without answering it."""
    c, nonce_c, nonce_a, aid = h
    c.sendall(frame(DM_AUTH, blob(mac(secret, label(b"pvmd-connector", hostno, aid),
                                      nonce_c, nonce_a)),
                    dst=dst, src=hostno << 18))
    result(case, closed_without_reply(c), why)
    c.close()


def wrongmac(host, port, hostno):
    h = hello("wrongmac", host, port, hostno, 0x40000)
    if h:  # a secret that is not the machine's
        auth_refused("wrongmac", h, os.urandom(32), 0x40000, hostno,
                     "got an answer to a wrong mac")


def claim(host, port, hostno, secret, target):
    h = hello("claim", host, port, hostno, target << 18)
    if h:
        auth_refused("claim", h, secret, target << 18, hostno,
                     "a claim of host %d was answered" % hostno)


def early(host, port):
    c = connect(host, port)
    c.sendall(frame(1, b"\0" * 16, flags=FIRST | LAST, dst=0x40001, src=0x80001))
    result("early", closed_without_reply(c), "a frame before the handshake was answered")
    c.close()


def garbage(host, port):
    c = connect(host, port)
    c.sendall(struct.pack(HDR, 0x7FFFFFF0, FIRST | LAST | CTRL, 0, 0, 0,
                          DM_HELLO, 0, 0, 0, 0x7FFFFFF0))
    result("garbage", closed_without_reply(c), "an absurd frame was answered")
    c.close()


def main():
    if len(sys.argv) not in (4, 5, 6):
        print(__doc__)
        return 2
    host, port, hostno = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if len(sys.argv) >= 5:
        with open(sys.argv[4]) as f:
            secret = bytes.fromhex(f.read().strip())
        target = int(sys.argv[5]) if len(sys.argv) == 6 else hostno
        try:
            claim(host, port, hostno, secret, target)
        except OSError as e:
            result("connection", False, str(e))
        return 1 if fails else 0
    for case in (lambda: wrongmac(host, port, hostno), lambda: early(host, port),
                 lambda: garbage(host, port)):
        try:
            case()
        except OSError as e:
            result("connection", False, str(e))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
