#!/usr/bin/env python3
"""capture.py - seeds for the fuzz targets from real traffic.

    capture.py OUTDIR TRACE...

Each TRACE is what `strace -xx -e trace=accept4,accept,read,readv,recvmsg,
write,writev,sendmsg,close -e read=all -e write=all` wrote of one pvmd
(test/fuzz/capture.sh runs test suites that way).  For every task
connection the pvmd accepted it cuts the two byte streams into frames and
writes, into OUTDIR/<target>/:
  ctl_fuzz    what the task sent, as the raw-mode input of ctl_fuzz.c
              (mode 3: not enrolled, no second task), the task's tid
              rewritten to 0x40001, the one the fuzz pvmd gives it;
  conn_fuzz   what the pvmd sent, whole (piece byte 0);
  reply_fuzz  the same as records of libpvm/api/fuzz_peer.h (each answer
              a reply record, everything else raw), after a script of
              the calls that asked for those answers (reply_fuzz.c).
Streams are cut at a frame boundary before 16 KiB.
"""
import hashlib
import os
import re
import struct
import sys

HDR = 40
CTRL, REPLY = 0x4, 0x8
CAP = 16 << 10
# TM_* code -> the reply_fuzz.c call that sends it
CALL = {5: 0, 4: 1, 6: 2, 7: 3, 3: 4, 8: 5, 9: 6, 10: 7, 11: 9, 13: 10,
        15: 11, 16: 12, 17: 13, 18: 14, 19: 15, 27: 16, 28: 17, 29: 18,
        14: 22, 20: 25, 23: 26, 21: 27, 22: 25, 30: 29}

call_re = re.compile(r"^(?:\d+ +)?(\w+)\((\d+)(.*)\) += (-?\d+)")
dump_re = re.compile(r"^(?:\d+ +)? \| [0-9a-f]{5}  ((?:[0-9a-f]{2} {1,2}){1,16})")


def streams(path):
    """(to_pvmd, from_pvmd) byte strings of each task connection."""
    live, done = {}, []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            m = dump_re.match(line)
            if m:
                if cur is not None:
                    cur += bytes.fromhex(m.group(1).replace(" ", ""))
                    live[cur_fd][cur_dir] = cur
                continue
            if line.lstrip().startswith("* "):
                continue  # "* N bytes in buffer K" of a vector's dump
            cur = None
            m = call_re.match(line)
            if not m:
                continue
            name, fd, ret = m.group(1), int(m.group(2)), int(m.group(4))
            if name in ("accept4", "accept") and ret >= 0:
                if ret in live:
                    done.append(live.pop(ret))
                live[ret] = [b"", b""]
            elif name == "close" and fd in live:
                done.append(live.pop(fd))
            elif fd in live and ret > 0:
                d = 0 if name in ("read", "readv", "recvmsg") else \
                    1 if name in ("write", "writev", "sendmsg") else None
                if d is not None:
                    cur, cur_fd, cur_dir = live[fd][d], fd, d
    return done + list(live.values())


def frames(b):
    """The whole frames of b: (header fields, header bytes, payload)."""
    out, i = [], 0
    while i + HDR <= len(b):
        ln, fl, enc, dst, src, tag = struct.unpack(">IHHiii", b[i:i + 20])
        wid = struct.unpack(">I", b[i + 28:i + 32])[0]
        if i + HDR + ln > len(b):
            break
        out.append(((ln, fl, dst, src, tag, wid), b[i:i + HDR], b[i + HDR:i + HDR + ln]))
        i += HDR + ln
    return out


def cut(fs):
    n, keep = 0, []
    for f in fs:
        n += HDR + len(f[2])
        if n > CAP:
            break
        keep.append(f)
    return keep


def save(outdir, target, data):
    d = os.path.join(outdir, target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def main():
    outdir, traces = sys.argv[1], sys.argv[2:]
    n = 0
    for t in traces:
        for up, down in streams(t):
            fu = cut(frames(up))
            if not fu or fu[0][0][4] != 1 or not fu[0][0][1] & CTRL:
                continue  # not a task's enrollment (TM_CONNECT)
            tid = next((f[0][3] for f in fu[1:] if f[0][3] > 0), 0)
            seed = bytearray(b"\x03")
            for (_, _, _, src, _, _), h, p in fu:
                h = bytearray(h)
                if tid and src == tid:
                    h[12:16] = struct.pack(">i", 0x40001)
                seed += h + p
            save(outdir, "ctl_fuzz", bytes(seed))
            fd = cut(frames(down))
            raw = b"".join(h + p for _, h, p in fd)
            if raw:
                save(outdir, "conn_fuzz", b"\x00" + raw)
            ops = [CALL[f[0][4]] for f in fu[1:] if f[0][1] & CTRL and f[0][4] in CALL][:15]
            recs = bytearray()
            for (ln, fl, _, _, _, _), h, p in fd:
                if fl & CTRL and fl & REPLY:
                    recs += bytes([0]) + struct.pack("<H", len(p)) + p
                else:
                    recs += bytes([1]) + struct.pack("<H", HDR + len(p)) + h + p
            save(outdir, "reply_fuzz", bytes([len(ops)]) + bytes(ops) + bytes(recs))
            n += 1
    print("%d task connections in %d traces" % (n, len(traces)))


main()
