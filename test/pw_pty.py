#!/usr/bin/env python3
"""pw_pty.py OUT PWFILE CMD...: runs CMD on a new pseudo-terminal (its
controlling terminal), copies what it prints to OUT, and answers each
"Password (...): " prompt with the content of PWFILE (read only then, so
the password is on no command line).  With PW_PTY_GO=FILE in the
environment, each answer waits until FILE exists.  Ends when CMD closes the terminal;
exits with CMD's status (hosts-pw.bats)."""
import os, pty, re, select, sys

out_path, pw_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
# the prompt may be followed at once by the pvmd's log lines (stderr is
# the same terminal): every occurrence counts, not only a trailing one
prompt = re.compile(rb"Password \([^)\n]*\): ")
go = os.environ.get("PW_PTY_GO")
seen = b""
pending = 0
with open(out_path, "ab", buffering=0) as out:
    while True:
        if pending and (not go or os.path.exists(go)):
            pending -= 1
            with open(pw_path, "rb") as f:
                os.write(fd, f.read().strip(b"\n") + b"\n")
        try:
            r, _, _ = select.select([fd], [], [], 0.1 if pending else 120)
        except InterruptedError:
            continue
        if not r:
            continue
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        out.write(data)
        seen += data
        while True:
            m = prompt.search(seen)
            if not m:
                break
            seen = seen[m.end():]
            pending += 1
        seen = seen[-512:]
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st) & 0xFF)
