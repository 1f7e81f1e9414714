"""pytest set-up of the pvm3 module's tests (test/README.md, "Python").

As test/helpers.bash does for the bats suites, every test gets a virtual
machine of its own: a unique PVM_VMID, a private PVM_TMP and HOME in a
temporary directory, PVM_PATH on a directory of links to the test
programs, and a pvmd of the build tree; teardown halts it, kills every
process left with that PVM_VMID in its environment and removes the
directory, whatever the test did.

Each test's body runs in a child process forked for it (pvm_exit does
not make a process new: a second enrollment in one process would carry
the first one's state into the next test), under a time limit.  The
fixtures run in pytest's own process, which never enrolls.

``--tap=FILE`` writes one TAP line per test to FILE, which test/run.sh
counts like the bats suites' output.
"""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

import pytest

B = os.environ.get("abs_top_builddir")
S = os.environ.get("abs_top_srcdir")
if not B or not S:
    raise RuntimeError("run the tests through make check or test/run.sh "
                       "(abs_top_builddir and abs_top_srcdir)")
PVMD = os.path.join(B, "pvmd", "pvmd")
CONSOLE = os.path.join(B, "console", "pvm")
PROGS = os.path.join(B, "test", "progs")
HERE = os.path.dirname(os.path.abspath(__file__))
TMO = int(os.environ.get("PVM_TEST_TIMEOUT", "60"))


def wait_until(seconds, cond):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def vm_pids(vmid):
    """Processes whose environment holds PVM_VMID=vmid (not ours)."""
    want = ("PVM_VMID=" + vmid).encode()
    pids = []
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open("/proc/%s/environ" % p, "rb") as f:
                if want in f.read().split(b"\0"):
                    pids.append(int(p))
        except OSError:
            pass
    return pids


class VM:
    """One test's virtual machine and its directories."""

    def __init__(self, tmp, vmid):
        self.tmp = tmp
        self.vmid = vmid
        self.bin = os.path.join(tmp, "bin")
        self.vmdir = os.path.join(tmp, "tmp", "pvm.%d.%s" % (os.getuid(), vmid))

    def script(self, name, source):
        """A Python program `name` on PVM_PATH, run by this interpreter
        (its shebang: not the first python3 on PATH)."""
        path = os.path.join(self.bin, name)
        with open(path, "w") as f:
            f.write("#!%s\n" % sys.executable)
            f.write(source)
        os.chmod(path, 0o755)
        return path

    def run(self, *argv, timeout=TMO):
        """Runs a program of the test (a name in bin, or a path) to its
        end; its CompletedProcess, output as text."""
        prog = argv[0] if "/" in argv[0] else os.path.join(self.bin, argv[0])
        return subprocess.run([prog] + list(argv[1:]), capture_output=True,
                              text=True, timeout=timeout)


def _start_pvmd(vm):
    out = open(os.path.join(vm.tmp, "pvmd.out"), "w")
    subprocess.Popen([PVMD], stdin=subprocess.DEVNULL, stdout=out,
                     stderr=subprocess.STDOUT, start_new_session=True)
    out.close()
    sock = os.path.join(vm.vmdir, "pvmd.sock")
    if not wait_until(30, lambda: os.path.exists(sock)):
        with open(os.path.join(vm.tmp, "pvmd.out")) as f:
            raise RuntimeError("the pvmd made no %s; it said: %s" % (sock, f.read()))
    wait_until(5, lambda: os.path.exists(os.path.join(vm.vmdir, "pvmd.pid")))


def _stop_vm(vm):
    """Nothing here may raise: teardown always cleans up."""
    try:
        subprocess.run([CONSOLE], input="halt\n", capture_output=True,
                       text=True, timeout=10)
    except Exception:
        pass
    wait_until(3, lambda: not vm_pids(vm.vmid))
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = vm_pids(vm.vmid)
        for p in pids:
            try:
                os.kill(p, sig)
            except OSError:
                pass
        if pids:
            time.sleep(0.2)
    shutil.rmtree(vm.tmp, ignore_errors=True)
    # shared-memory inboxes a killed pvmd left: this VM's names only
    prefix = "pvm.%d.%s." % (os.getuid(), vm.vmid)
    try:
        for n in os.listdir("/dev/shm"):
            if n.startswith(prefix):
                os.unlink(os.path.join("/dev/shm", n))
    except OSError:
        pass


_ENV = ("PVM_TMP", "HOME", "PVM_VMID", "PVM_ROOT", "PVM_ALLOW_ROOT",
        "PVM_PVMD", "PVM_PATH", "PATH", "PYTHONPATH", "PVM_EXPORT",
        "PVM_DEBUG", "PVM_ARCH", "PVM_SPAWN_TID", "LD_LIBRARY_PATH")


@pytest.fixture
def vm():
    """A fresh one-host virtual machine, torn down after the test."""
    saved = {k: os.environ.get(k) for k in _ENV}
    tmp = tempfile.mkdtemp(prefix="pvmt.py.")
    vm = VM(tmp, "py%dx%d" % (os.getpid(), int(time.monotonic() * 1e6) % 10**9))
    try:
        for d in ("tmp", "home", "bin"):
            os.mkdir(os.path.join(tmp, d))
        os.environ.update({
            "PVM_TMP": os.path.join(tmp, "tmp"),
            "HOME": os.path.join(tmp, "home"),
            "PVM_VMID": vm.vmid,
            "PVM_ROOT": "/usr/lib/pvm3",
            "PVM_ALLOW_ROOT": "1",
            "PVM_PVMD": PVMD,
            "PVM_PATH": vm.bin,
            "PATH": vm.bin + ":" + (saved["PATH"] or "/usr/bin:/bin"),
            # the pvmd passes it on: spawned Python tasks import the
            # module of the build tree
            "PYTHONPATH": os.path.join(B, "python", "inplace"),
        })
        for k in ("PVM_EXPORT", "PVM_DEBUG", "PVM_ARCH", "PVM_SPAWN_TID",
                  "LD_LIBRARY_PATH"):
            os.environ.pop(k, None)
        for n in os.listdir(PROGS):
            p = os.path.join(PROGS, n)
            if n.startswith("pt_") and os.path.isfile(p) and os.access(p, os.X_OK):
                os.symlink(p, os.path.join(vm.bin, n))
        _start_pvmd(vm)
        yield vm
    finally:
        _stop_vm(vm)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# --- each test body in a child process of its own --------------------
@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    args = {a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames}
    sys.stdout.flush()
    sys.stderr.flush()
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        code, msg = 0, ""
        try:
            signal.alarm(TMO)
            pyfuncitem.obj(**args)
        except pytest.skip.Exception as e:
            code, msg = 2, str(e)
        except BaseException:
            code, msg = 1, traceback.format_exc()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            os.write(wfd, msg.encode("utf-8", "replace"))
        finally:
            os._exit(code)
    os.close(wfd)
    chunks = []
    with os.fdopen(rfd, "rb") as f:
        for chunk in iter(lambda: f.read(65536), b""):
            chunks.append(chunk)
    _, status = os.waitpid(pid, 0)
    msg = b"".join(chunks).decode("utf-8", "replace")
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        why = " (the time limit, %d s)" % TMO if sig == signal.SIGALRM else ""
        pytest.fail("the test's process died of signal %d%s" % (sig, why),
                    pytrace=False)
    code = os.WEXITSTATUS(status)
    if code == 2:
        pytest.skip(msg)
    if code != 0:
        pytest.fail(msg, pytrace=False)
    return True


# --- TAP for test/run.sh -----------------------------------------------
def pytest_addoption(parser):
    parser.addoption("--tap", metavar="FILE",
                     help="write one TAP line per test to FILE")


class _Tap:
    def __init__(self, path):
        self.f = open(path, "w", buffering=1)
        self.n = 0
        self.outcome = {}

    def line(self, ok, name, directive=""):
        self.n += 1
        self.f.write("%s %d - %s%s\n" % ("ok" if ok else "not ok", self.n,
                                         name.replace("#", "_"), directive))


def pytest_configure(config):
    path = config.getoption("--tap")
    config._pvm_tap = _Tap(path) if path else None


def pytest_collectreport(report):
    tap = getattr(pytest_collectreport, "tap", None)
    if tap and report.failed:
        tap.line(False, "collecting " + report.nodeid)


def pytest_sessionstart(session):
    pytest_collectreport.tap = session.config._pvm_tap


def pytest_runtest_logreport(report):
    tap = pytest_collectreport.tap
    if not tap:
        return
    # the worst of setup, call and teardown
    rank = {"passed": 0, "skipped": 1, "failed": 2}
    old = tap.outcome.get(report.nodeid, ("passed", ""))
    new = (report.outcome, "")
    if report.skipped and isinstance(report.longrepr, tuple):
        new = ("skipped", report.longrepr[2])
    if rank[new[0]] > rank[old[0]]:
        tap.outcome[report.nodeid] = new


def pytest_runtest_logfinish(nodeid, location):
    tap = pytest_collectreport.tap
    if not tap:
        return
    outcome, why = tap.outcome.pop(nodeid, ("passed", ""))
    name = nodeid.split("::", 1)[-1] if "::" in nodeid else nodeid
    name = os.path.basename(nodeid.split("::")[0]) + " " + name
    if outcome == "skipped":
        tap.line(True, name, " # SKIP " + " ".join(why.split()))
    else:
        tap.line(outcome == "passed", name)


def pytest_sessionfinish(session):
    tap = pytest_collectreport.tap
    if tap:
        tap.f.write("1..%d\n" % tap.n)
        tap.f.close()
