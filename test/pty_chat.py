#!/usr/bin/env python3
"""pty_chat.py OUT STEPS CMD...: runs CMD on a new pseudo-terminal (its
controlling terminal), copies all it prints to OUT, and plays STEPS, a
file of lines:
    expect SECONDS REGEX  wait (at most SECONDS) until REGEX (Python,
                          bytes) matches what came since the last match
    send TEXT             type TEXT (\\r, \\x03 and the like are escapes)
Exits 1 at the first expect that times out (saying which), else 0 once
CMD has closed the terminal (killed after 10 s).  For the console's
terminal behaviour (add-cancel.bats)."""
import os, pty, re, select, signal, sys, time

out_path, steps_path, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    try:
        os.execvp(cmd[0], cmd)
    finally:
        os._exit(127)
out = open(out_path, "wb", buffering=0)
seen = b""


def read_some(timeout):
    """What the terminal gives within timeout; None once it is closed."""
    global seen
    r, _, _ = select.select([fd], [], [], max(timeout, 0))
    if not r:
        return b""
    try:
        data = os.read(fd, 4096)
    except OSError:
        return None
    out.write(data)
    seen += data
    return data


def end(status):
    deadline = time.time() + 10
    while time.time() < deadline and read_some(deadline - time.time()) is not None:
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    sys.exit(status)


for line in open(steps_path):
    line = line.rstrip("\n")
    if line.startswith("send "):
        os.write(fd, line[5:].encode().decode("unicode_escape").encode("latin-1"))
    elif line.startswith("expect "):
        secs, regex = line[7:].split(" ", 1)
        pat = re.compile(regex.encode())
        deadline = time.time() + float(secs)
        while not pat.search(seen):
            if time.time() >= deadline or read_some(deadline - time.time()) is None:
                print("pty_chat: no %r within %s s; the terminal showed %r"
                      % (regex, secs, seen[-300:]))
                end(1)
        seen = seen[pat.search(seen).end():]
end(0)
