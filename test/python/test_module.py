"""The module itself, with no pvmd: the library it loads, constants,
exceptions, and the type mapping of Message (buffers need no pvmd)."""

import os
import re

import pytest

import pvm3
from pvm3 import _pvm3

B = os.environ["abs_top_builddir"]
S = os.environ["abs_top_srcdir"]


def test_loads_the_build_trees_libraries():
    # not Debian's libpvm3.so.3 from /usr/lib, which has the same soname
    with open("/proc/self/maps") as f:
        libs = {line.split()[-1] for line in f if "pvm3.so" in line}
    assert os.path.realpath(os.path.join(B, "libpvm", ".libs", "libpvm3.so.3")) \
        in {os.path.realpath(p) for p in libs}
    assert all(os.path.realpath(p).startswith(os.path.realpath(B)) for p in libs), libs


def test_every_constant_of_pvm3_h():
    with open(os.path.join(S, "include", "pvm3.h")) as f:
        defs = re.findall(r"^#define (Pvm\w+|PVM_\w+) (-?\d+)\b", f.read(), re.M)
    assert len(defs) > 100
    for name, value in defs:
        assert getattr(pvm3, name) == int(value), name
    assert pvm3.PvmNoEntry == pvm3.PvmNotFound
    assert pvm3.PVM_VER == "3.4.6"


def test_error_classes():
    e = pvm3.PvmError(-5, "pvm_upkint")
    assert type(e) is pvm3.PvmNoDataError
    assert isinstance(e, pvm3.PvmError)
    assert (e.code, e.name, e.call) == (-5, "PvmNoData", "pvm_upkint")
    assert str(e) == "pvm_upkint: End of buffer (PvmNoData -5)"
    for code, name in _pvm3.errnames.items():
        if code:
            cls = getattr(pvm3, name + "Error")
            assert cls.code == code and issubclass(cls, pvm3.PvmError)
            assert type(pvm3.PvmError(code)) is cls
    assert pvm3.PvmError(-99).name == "PvmError(-99)"
    # every class of pvm3.h's codes
    assert len([c for c in _pvm3.errnames if c < 0]) == 32


def test_message_every_type_without_a_pvmd():
    with pvm3.Message() as m:
        m.pkshort([-3, 4]).pkushort(65535).pkint([1, -2, 3]).pkuint(2**32 - 1)
        m.pklong(-(2**31)).pkulong(2**32 - 1).pkfloat(0.5).pkdouble([1e300, -2.5])
        m.pkcplx(1 - 2j).pkdcplx([3 + 4j, -1j]).pkbyte(b"\x00\xffab").pkstr("héllo")
        m.pack(2.25, 1 + 1j, "s", b"xy")
        # a message one packs is read back by making it the receive
        # buffer: the C calls do that for each unpack
        assert m.upkshort(2) == [-3, 4]
        assert m.upkushort() == 65535
        assert m.upkint(3) == [1, -2, 3]
        assert m.upkuint() == 2**32 - 1
        assert m.upklong() == -(2**31)
        assert m.upkulong() == 2**32 - 1
        assert m.upkfloat() == 0.5
        assert m.upkdouble(2) == [1e300, -2.5]
        assert m.upkcplx() == 1 - 2j
        assert m.upkdcplx(2) == [3 + 4j, -1j]
        assert m.upkbyte(4) == b"\x00\xffab"
        assert m.upkstr() == "héllo"
        assert (m.upkdouble(), m.upkdcplx(), m.upkstr(), m.upkbyte(2)) == \
            (2.25, 1 + 1j, "s", b"xy")
        with pytest.raises(pvm3.PvmNoDataError):
            m.upkint()


def test_ints_need_an_explicit_call():
    with pvm3.Message() as m:
        with pytest.raises(TypeError, match="pkint"):
            m.pack(3)
        with pytest.raises(TypeError):
            m.pack(True)
        with pytest.raises(OverflowError):
            m.pkint(2**31)  # a C int is 32 bits
        with pytest.raises(pvm3.PvmOverflowError):
            m.pklong(2**40)  # XDR longs are 32 bits (docs/compat.md)
    with pvm3.Message(pvm3.PvmDataRaw) as m:
        m.pklong(2**40)
        assert m.upklong() == 2**40


def test_freed_message():
    m = pvm3.Message()
    bufid = m.bufid
    m.free()
    with pytest.raises(ValueError):
        m.pkint(1)
    m.free()  # a second free does nothing
    assert _pvm3.freebuf(bufid) == pvm3.PvmNoSuchBuf
    with pytest.raises(pvm3.PvmNoSuchBufError):
        pvm3.Message._adopt(bufid).upkint()


def test_bad_encoding_and_strings():
    with pytest.raises(pvm3.PvmBadParamError):
        pvm3.Message(99)
    with pvm3.Message() as m:
        with pytest.raises(ValueError):
            m.pkstr("a\0b")  # C strings end at a NUL
        with pytest.raises(TypeError):
            m.pkbyte(7)
