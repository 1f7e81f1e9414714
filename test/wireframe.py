"""wireframe.py - the wire protocol's frames (proto/wire.h,
docs/protocol.md) for the test scripts that speak it by hand
(forge_pvmd.py, ticket_knock.py, tcp_forge.py).  Standard library only."""
import hashlib
import hmac
import struct

FIRST, LAST, CTRL, REPLY = 1, 2, 4, 8
TM_CONNECT, DM_HELLO, DM_AUTH = 1, 64, 65
WIRE_VERSION = 3
# len, flags, enc, dst, src, tag, ctx, seq, wid, total
HDR = ">IHHiiiiIIQ"
HDR_SIZE = struct.calcsize(HDR)


def frame(tag, payload, flags=FIRST | LAST | CTRL, dst=0, src=0, total=None):
    """One frame (a control frame by default) with this payload."""
    if total is None:
        total = len(payload)
    return struct.pack(HDR, len(payload), flags, 0, dst, src, tag, 0, 0, 0,
                       total) + payload


def i32(v):
    return struct.pack(">i", v)


def blob(b):
    """A "str"/bytes field: u32 length, then the bytes."""
    return struct.pack(">I", len(b)) + b


def recv_exact(c, n):
    """n bytes from socket c, or None when it closes first."""
    buf = b""
    while len(buf) < n:
        part = c.recv(n - len(buf))
        if not part:
            return None
        buf += part
    return buf


def recv_frame(c):
    """(header tuple, payload), or None when the connection is closed."""
    h = recv_exact(c, HDR_SIZE)
    if h is None:
        return None
    f = struct.unpack(HDR, h)
    p = recv_exact(c, f[0])
    return None if p is None else (f, p)


def label(base, cid, aid):
    """A MAC's label: base, then the connector's and the acceptor's ids
    (host numbers or tids) in hex."""
    return b"%s %x %x" % (base, cid & 0xffffffff, aid & 0xffffffff)


def mac(key, label, nc, na):
    """The handshake's proof: HMAC-SHA256(key, label | nonce_c | nonce_a)."""
    return hmac.new(key, label + nc + na, hashlib.sha256).digest()
