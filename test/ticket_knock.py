#!/usr/bin/env python3
"""ticket_knock.py - knocks at a pvmd's TCP port as the master (host 1)
with a start ticket (docs/hosts.md, "Registered hoster"), as someone who
read the ticket off a command line would.

Usage: ticket_knock.py HOST PORT TICKETHEX

Prints one line:
  refused-hello   the pvmd refused at DM_HELLO
  refused-key     the pvmd's DM_HELLO proof is not keyed with this ticket
                  (it has the secret and no longer takes the ticket)
  refused-auth    it closed the connection after our DM_AUTH
  accepted        it took the ticket (DM_AUTH reply status 0)
"""
import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from wireframe import DM_AUTH, DM_HELLO, WIRE_VERSION, blob, frame, label, mac, recv_frame


def main():
    host, port, ticket = sys.argv[1], int(sys.argv[2]), bytes.fromhex(sys.argv[3])
    c = socket.create_connection((host, port), timeout=10)
    nc = os.urandom(32)
    c.sendall(frame(DM_HELLO, struct.pack(">ii", WIRE_VERSION, 1) + blob(nc), src=1 << 18))
    r = recv_frame(c)
    if r is None:
        print("refused-hello")
        return
    p = r[1]
    st, no = struct.unpack(">ii", p[:8])
    if st != 0:
        print("refused-hello")
        return
    n = struct.unpack(">I", p[8:12])[0]
    na = p[12:12 + n]
    m = p[12 + n + 4:]
    if m != mac(ticket, label(b"pvmd-ticket-acceptor", 1, no), nc, na):
        print("refused-key")
        return
    wrapped = os.urandom(32)
    c.sendall(frame(DM_AUTH, blob(mac(ticket, label(b"pvmd-ticket-connector", 1, no), nc, na))
                    + blob(wrapped), dst=no << 18, src=1 << 18))
    try:
        r = recv_frame(c)
    except OSError:
        r = None
    if r is None or struct.unpack(">i", r[1][:4])[0] != 0:
        print("refused-auth")
    else:
        print("accepted")


main()
