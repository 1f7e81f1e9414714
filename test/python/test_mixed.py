"""Python and other languages in one virtual machine: a Python master with
C workers, a C master with Python workers (test/progs/pt_py.c's
protocol, test/python/pyworker.py)."""

import os

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


def test_python_master_fortran_workers(vm):
    # Issue 26's Fortran half (libfpvm3, fpvm3.h, pvmfc) is not in this
    # tree yet: with it, a Fortran worker of this protocol goes here.
    pytest.skip("no Fortran library yet (libfpvm3 and pvmfc, issue 26): "
                "no Fortran worker to spawn")
