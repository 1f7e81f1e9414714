"""numpy and the buffer protocol: psend and precv straight from and into
the caller's memory, the dtype mapping, in-place unpack and reduce."""

import array
import tracemalloc

import numpy as np
import pytest

import pvm3

# every numpy dtype with a PVM type, and that type (docs/python.md)
DTYPES = [
    (np.int8, pvm3.PVM_BYTE), (np.uint8, pvm3.PVM_BYTE),
    (np.bool_, pvm3.PVM_BYTE),
    (np.int16, pvm3.PVM_SHORT), (np.uint16, pvm3.PVM_USHORT),
    (np.int32, pvm3.PVM_INT), (np.uint32, pvm3.PVM_UINT),
    (np.int64, pvm3.PVM_LONG), (np.uint64, pvm3.PVM_ULONG),
    (np.float32, pvm3.PVM_FLOAT), (np.float64, pvm3.PVM_DOUBLE),
    (np.complex64, pvm3.PVM_CPLX), (np.complex128, pvm3.PVM_DCPLX),
]


def sample(dtype, n=37):
    # within 32 bits: XDR carries longs in 32 (docs/compat.md)
    low = 0 if np.issubdtype(dtype, np.unsignedinteger) else -100
    a = (np.arange(n) * 7 + low).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        a += 1j * np.arange(n)
    return a


def address(a):
    return a.__array_interface__["data"][0]


def test_precv_fills_the_callers_array_in_place(vm):
    with pvm3.enroll() as me:
        src = np.linspace(0, 1, 4096)
        dst = np.zeros(4096)
        where, base = address(dst), dst.base
        pvm3.psend(me, 1, src)
        st = pvm3.precv(-1, 1, dst)
        # the same array, at the same address, holding the data
        assert address(dst) == where and dst.base is base
        assert st == pvm3.Status(me, 1, 4096 * 8)
        assert np.array_equal(dst, src)
        # a view: the data lands in its base, in place
        big = np.zeros(100)
        pvm3.psend(me, 2, np.ones(10))
        pvm3.precv(me, 2, big[50:60])
        assert big[50:60].sum() == 10 and big.sum() == 10


@pytest.mark.parametrize("dtype,ptype", DTYPES,
                         ids=[np.dtype(d).name for d, _ in DTYPES])
def test_every_dtype_both_ways(vm, dtype, ptype):
    with pvm3.enroll() as me:
        a = sample(dtype)
        pvm3.psend(me, 3, a)
        b = np.zeros_like(a)
        assert pvm3.precv(me, 3, b).nbytes == a.nbytes
        assert np.array_equal(a, b)
        # the type the dtype maps to: stated, it is accepted, and it is
        # the one a C worker would receive
        pvm3.psend(me, 4, a, type=ptype)
        c = np.zeros_like(a)
        pvm3.precv(me, 4, c, type=ptype)
        assert np.array_equal(a, c)
        # and by Message: pk by dtype, unpack_into in place
        for enc in (pvm3.PvmDataDefault, pvm3.PvmDataRaw, pvm3.PvmDataInPlace):
            with pvm3.Message(enc) as m:
                m.pk(a).send(me, 5)
            r = pvm3.recv(me, 5)
            d = np.zeros_like(a)
            assert r.unpack_into(d) is d
            assert np.array_equal(a, d), enc


def test_other_buffers(vm):
    with pvm3.enroll() as me:
        pvm3.psend(me, 1, b"bytes too")
        ba = bytearray(9)
        pvm3.precv(me, 1, ba)
        assert ba == b"bytes too"
        pvm3.psend(me, 2, array.array("i", [5, -6]))
        ia = array.array("i", [0, 0])
        pvm3.precv(me, 2, memoryview(ia))
        assert ia.tolist() == [5, -6]


def test_no_copy_of_large_arrays(vm):
    # tracemalloc sees every allocation of the interpreter: a copy of
    # 16 MiB in the binding would show
    with pvm3.enroll() as me:
        a = np.random.default_rng(1).random(2 * 1024 * 1024)
        b = np.empty_like(a)
        tracemalloc.start()
        pvm3.psend(me, 1, a)
        pvm3.precv(me, 1, b)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 1024 * 1024, peak
        assert np.array_equal(a, b)


def test_buffers_refused(vm):
    with pvm3.enroll() as me:
        with pytest.raises((TypeError, ValueError, BufferError)):  # not C-contiguous
            pvm3.psend(me, 1, np.zeros((4, 4))[:, 1])
        ro = np.zeros(4)
        ro.flags.writeable = False
        with pytest.raises((TypeError, BufferError, ValueError)):
            pvm3.precv(me, 1, ro)
        with pytest.raises(ValueError, match="byte order"):
            pvm3.psend(me, 1, np.zeros(3, dtype=">f8"))
        with pytest.raises(TypeError, match="PVM_INT"):
            pvm3.psend(me, 1, np.zeros(3), type=pvm3.PVM_INT)
        with pytest.raises(TypeError):
            pvm3.psend(me, 1, np.zeros(3, dtype=np.float16))
        with pvm3.Message() as m:
            with pytest.raises(ValueError):
                m.pk(np.zeros(4), stride=0)
            with pytest.raises(ValueError):
                m.pk(np.zeros(4), nitem=3, stride=2)  # reads past the end
        # nothing was sent by the refused calls
        assert pvm3.nrecv() is None


def test_precv_short_buffer_reports_the_full_length(vm):
    with pvm3.enroll() as me:
        pvm3.psend(me, 1, np.arange(10.0))
        b = np.zeros(4)
        assert pvm3.precv(me, 1, b).nbytes == 80
        assert b.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_strides(vm):
    with pvm3.enroll() as me:
        with pvm3.Message() as m:
            m.pk(np.arange(10, dtype=np.int32), stride=3).send(me, 1)
        r = pvm3.recv(me, 1)
        out = np.full(7, -1, dtype=np.int32)
        r.unpack_into(out, nitem=4, stride=2)
        assert out.tolist() == [0, -1, 3, -1, 6, -1, 9]
