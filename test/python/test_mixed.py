"""Python and other languages in one virtual machine: a Python master with
C workers, a C master with Python workers (test/progs/pt_py.c's
protocol, test/python/pyworker.py)."""

import os
import shutil
import subprocess
import tarfile

import numpy as np
import pytest

import pvm3

HERE = os.path.dirname(os.path.abspath(__file__))


def python_worker(vm, name="pyworker"):
    with open(os.path.join(HERE, "pyworker.py")) as f:
        vm.script(name, f.read())
    return name


def drive(tids):
    """The master's side of pt_py's protocol, in Python."""
    n = len(tids)
    pvm3.notify(pvm3.PvmTaskExit, 50, tids)
    for w, t in enumerate(tids):
        longs = [1, 2000000000, -5 - w]
        (pvm3.Message().pkint(3).pklong(longs).pkdouble(1.25 + w)
         .pkstr("worker %d" % w).send(t, 1))
        m = pvm3.trecv(t, -1, 30)
        assert m is not None, "no answer from t%x" % t
        if m.tag == 99:
            pytest.fail("worker t%x: %s" % (t, m.upkstr()))
        assert m.tag == 11
        assert m.upklong() == sum(longs)
        assert m.upkdouble() == 2 * (1.25 + w)
        assert m.upkstr() == "worker %d!" % w
        assert m.upkint() == 3

        dv = np.arange(1000) * 0.5 + w
        pvm3.psend(t, 2, dv)
        back = np.zeros(1000)
        st = pvm3.precv(t, 12, back)
        assert st == (t, 12, 8000)
        assert np.array_equal(back, 2 * dv)

        iv = np.array([-2, -1, 0, 1, 2147483646], dtype=np.int32)
        pvm3.psend(t, 3, iv)
        ib = np.zeros(5, dtype=np.int32)
        pvm3.precv(t, 13, ib)
        assert ib.tolist() == (iv + 1).tolist()

    assert pvm3.joingroup("pt_py") == 0
    count = n + 1
    pvm3.mcast(tids, 4, pvm3.Message().pkstr("pt_py").pkint(count))
    pvm3.barrier("pt_py", count)
    r = np.ones(4, dtype=np.int32)
    pvm3.reduce(pvm3.PvmSum, r, 5, "pt_py", 0)
    assert r.tolist() == [count * (count + 1) // 2] * 4
    pvm3.barrier("pt_py", count)
    pvm3.lvgroup("pt_py")

    pvm3.mcast(tids, 9, pvm3.Message())
    gone = set()
    for _ in tids:
        m = pvm3.trecv(-1, 50, 30)
        assert m is not None, "an exit notify is missing"
        gone.add(m.upkint())
    assert gone == set(tids)


def test_python_master_c_workers(vm):
    with pvm3.enroll():
        tids = pvm3.spawn("pt_py", ["worker"], ntask=3)
        assert len(tids) == 3
        drive(tids)


def test_python_master_python_workers(vm):
    with pvm3.enroll():
        drive(pvm3.spawn(python_worker(vm), ntask=2))


def test_python_master_c_and_python_workers(vm):
    with pvm3.enroll():
        tids = pvm3.spawn("pt_py", ["worker"], ntask=2)
        tids += pvm3.spawn(python_worker(vm), ntask=2)
        drive(tids)


def test_c_master_python_workers(vm):
    r = vm.run("pt_py", "master", python_worker(vm), "3")
    assert r.returncode == 0, r.stdout + r.stderr
    assert " checks passed, 0 failed" in r.stdout, r.stdout
    assert "pt_py master: 0 checks" not in r.stdout


def fortran_worker(vm):
    """Debian's slave1.f (pvm-examples sources), built at test time with
    gfortran against the build tree's fpvm3.h and libfpvm3, on PVM_PATH."""
    from conftest import B, S
    src = "/usr/share/doc/pvm-examples/examples.tar.gz"
    lib = os.path.join(B, "libpvm", "fortran", ".libs")
    if not os.path.exists(src):
        pytest.skip("pvm-examples is not installed (%s)" % src)
    if not shutil.which("gfortran") or not os.path.isdir(lib):
        pytest.skip("no gfortran, so no libfpvm3 in this build")
    with tarfile.open(src) as t:
        f = t.extractfile("examples/slave1.f").read().decode()
    f = f.replace("'../include/fpvm3.h'", "'fpvm3.h'")
    path = os.path.join(vm.tmp, "slave1.f")
    with open(path, "w") as out:
        out.write(f)
    libs = [lib, os.path.join(B, "libpvm", "group", ".libs"),
            os.path.join(B, "libpvm", ".libs")]
    cmd = (["gfortran", "-w", "-fallow-argument-mismatch",
            "-I" + os.path.join(S, "include"), "-o",
            os.path.join(vm.bin, "fslave1"), path]
           + ["-L" + d for d in libs]
           + ["-Wl,-rpath," + d for d in libs]
           + ["-lfpvm3", "-lgpvm3", "-lpvm3"])
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return "fslave1"


def test_python_master_fortran_workers(vm):
    # master1.f's side of the protocol, in Python: each Fortran worker gets
    # the tids and 100 doubles (XDR), passes its partial sum on to its
    # neighbour (tag 77) and answers (me, me*S + (me-1)*S).
    name = fortran_worker(vm)
    with pvm3.enroll():
        nproc = 4
        tids = pvm3.spawn(name, ntask=nproc)
        assert len(tids) == nproc
        data = [float(i + 1) for i in range(100)]
        (pvm3.Message().pkint(nproc).pkint(tids).pkint(len(data))
         .pkdouble(data).mcast(tids, 1))
        total = sum(data)
        got = {}
        for _ in range(nproc):
            m = pvm3.trecv(-1, 2, 30)
            assert m is not None, "a Fortran worker did not answer"
            me = m.upkint()
            got[me] = m.upkdouble()
        assert sorted(got) == list(range(nproc))
        for me, result in got.items():
            assert result == total * (me + (me - 1) % nproc), (me, result)
