"""Message: one PVM message buffer, packed and unpacked with typed calls.

The type mapping (docs/python.md):

=========================  ===================  ===========================
Python                     packed with          unpacked with
=========================  ===================  ===========================
int (one or a sequence)    pkint / pklong /     upkint(n) ... -> int / list
                           pkshort / pkuint...  (the call names the type:
                                                no implicit choice)
float                      pkdouble / pkfloat   upkdouble / upkfloat
complex                    pkdcplx / pkcplx     upkdcplx / upkcplx
bytes, bytearray           pkbyte               upkbyte(n) -> bytes
str                        pkstr (UTF-8)        upkstr() -> str
numpy array, any buffer    pk (by its dtype)    unpack_into(array)
=========================  ===================  ===========================

``pack(*items)`` packs each item by the rows above, except int: an int
raises TypeError, since a PVM int and a PVM long are different messages.
"""

from array import array

from . import _pvm3
from .errors import check

__all__ = ["Message"]

# the array module's typecode of each PVM type that has one
_TYPECODE = {
    _pvm3.PVM_SHORT: "h", _pvm3.PVM_USHORT: "H",
    _pvm3.PVM_INT: "i", _pvm3.PVM_UINT: "I",
    _pvm3.PVM_LONG: "l", _pvm3.PVM_ULONG: "L",
    _pvm3.PVM_FLOAT: "f", _pvm3.PVM_DOUBLE: "d",
    _pvm3.PVM_CPLX: "f", _pvm3.PVM_DCPLX: "d",  # pairs of reals
}
_NAME = {
    _pvm3.PVM_SHORT: "short", _pvm3.PVM_USHORT: "ushort",
    _pvm3.PVM_INT: "int", _pvm3.PVM_UINT: "uint",
    _pvm3.PVM_LONG: "long", _pvm3.PVM_ULONG: "ulong",
    _pvm3.PVM_FLOAT: "float", _pvm3.PVM_DOUBLE: "double",
    _pvm3.PVM_CPLX: "cplx", _pvm3.PVM_DCPLX: "dcplx",
}
_COMPLEX = (_pvm3.PVM_CPLX, _pvm3.PVM_DCPLX)

# pvm_exit frees every buffer, and the ids come again after a new
# enrollment: a Message of an earlier enrollment must not free them.
_epoch = [0]


def _new_epoch():
    _epoch[0] += 1


def _as_array(typecode, values, cplx):
    """values (a number or an iterable of them) as an array.array."""
    if cplx:
        if isinstance(values, (int, float, complex)):
            values = (values,)
        flat = []
        for v in values:
            v = complex(v)
            flat += (v.real, v.imag)
        return array(typecode, flat)
    if isinstance(values, (int, float)):
        return array(typecode, (values,))
    return array(typecode, values)


class Message:
    """A PVM message buffer (``pvm_mkbuf``), freed when the object goes
    (or by ``free()``, or at the end of a ``with`` block).

    The pk* methods return the message, so calls chain:
    ``Message().pkint([1, 2]).pkstr("x").send(tid, 1)``.
    """

    __slots__ = ("_bufid", "_epoch", "_keep", "__weakref__")

    def __init__(self, encoding=_pvm3.PvmDataDefault):
        self._bufid = None
        self._epoch = _epoch[0]
        self._keep = []
        self._bufid = check(_pvm3.mkbuf(encoding), "pvm_mkbuf")

    @classmethod
    def _adopt(cls, bufid):
        """A Message owning the buffer bufid (received, recvinfo)."""
        m = cls.__new__(cls)
        m._bufid = bufid
        m._epoch = _epoch[0]
        m._keep = []
        return m

    @property
    def bufid(self):
        """The PVM buffer id (for calls of the C API)."""
        if self._bufid is None:
            raise ValueError("the message was freed")
        return self._bufid

    def free(self):
        """Frees the buffer now (``pvm_freebuf``)."""
        bufid, self._bufid = self._bufid, None
        self._keep = []
        if bufid is not None and self._epoch == _epoch[0]:
            check(_pvm3.freebuf(bufid), "pvm_freebuf")

    def __del__(self):
        try:
            if self._bufid is not None and self._epoch == _epoch[0]:
                _pvm3.freebuf(self._bufid)
        except Exception:  # at interpreter exit the module may be gone
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.free()

    def __repr__(self):
        if self._bufid is None:
            return "<pvm3.Message freed>"
        n, tag, src = self.info()
        return "<pvm3.Message %d: %d bytes, tag %d, src t%x>" % (
            self._bufid, n, tag, src)

    # --- what the buffer holds --------------------------------------
    def info(self):
        """(bytes, tag, src) of the buffer (``pvm_bufinfo``)."""
        r, n, tag, src = _pvm3.bufinfo(self.bufid)
        check(r, "pvm_bufinfo")
        return n, tag, src

    @property
    def nbytes(self):
        return self.info()[0]

    @property
    def tag(self):
        return self.info()[1]

    @property
    def src(self):
        return self.info()[2]

    # --- packing ----------------------------------------------------
    def pk(self, buf, type=None, nitem=-1, stride=1):
        """Packs the items of a buffer (numpy array, array.array,
        memoryview...) as the PVM type its format names, or as ``type``
        (a PVM_* constant, which must agree with the format; PVM_BYTE
        takes any buffer as bytes).  With PvmDataInPlace the message
        keeps a reference to ``buf``, whose memory is read at send time.
        """
        t = -1 if type is None else type
        check(_pvm3.pk(self.bufid, t, buf, nitem, stride), "pvm_pk")
        self._keep.append(buf)
        return self

    def _pk(self, ptype, values, stride):
        a = _as_array(_TYPECODE[ptype], values, ptype in _COMPLEX)
        check(_pvm3.pk(self.bufid, ptype, a, -1, stride), "pvm_pk" + _NAME[ptype])
        self._keep.append(a)
        return self

    def pkbyte(self, data, stride=1):
        """bytes, bytearray, or any buffer as its bytes."""
        if isinstance(data, int):
            raise TypeError("pkbyte takes bytes, not int")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            try:
                memoryview(data)
            except TypeError:
                data = bytes(data)  # an iterable of ints 0-255
        return self.pk(data, _pvm3.PVM_BYTE, -1, stride)

    def pkshort(self, values, stride=1):
        return self._pk(_pvm3.PVM_SHORT, values, stride)

    def pkushort(self, values, stride=1):
        return self._pk(_pvm3.PVM_USHORT, values, stride)

    def pkint(self, values, stride=1):
        """An int, or a sequence of them, as C ints (32 bits;
        OverflowError beyond)."""
        return self._pk(_pvm3.PVM_INT, values, stride)

    def pkuint(self, values, stride=1):
        return self._pk(_pvm3.PVM_UINT, values, stride)

    def pklong(self, values, stride=1):
        """An int, or a sequence of them, as C longs (64 bits here; a
        PvmOverflow error when one does not fit the 32 bits of XDR)."""
        return self._pk(_pvm3.PVM_LONG, values, stride)

    def pkulong(self, values, stride=1):
        return self._pk(_pvm3.PVM_ULONG, values, stride)

    def pkfloat(self, values, stride=1):
        return self._pk(_pvm3.PVM_FLOAT, values, stride)

    def pkdouble(self, values, stride=1):
        return self._pk(_pvm3.PVM_DOUBLE, values, stride)

    def pkcplx(self, values, stride=1):
        return self._pk(_pvm3.PVM_CPLX, values, stride)

    def pkdcplx(self, values, stride=1):
        return self._pk(_pvm3.PVM_DCPLX, values, stride)

    def pkstr(self, s):
        """A str (as UTF-8) or bytes, with no NUL in it."""
        if isinstance(s, str):
            s = s.encode("utf-8")
        check(_pvm3.pkstr(self.bufid, s), "pvm_pkstr")
        return self

    def pack(self, *items):
        """Packs each item by its Python type: float as double, complex
        as dcplx, str with pkstr, bytes/bytearray with pkbyte, a buffer
        with a format (numpy array...) by its type.  An int is refused:
        say pkint or pklong."""
        for x in items:
            if isinstance(x, (bool, int)):
                raise TypeError("an int is packed by pkint() or pklong(), "
                                "not pack(): %r" % (x,))
            if isinstance(x, float):
                self.pkdouble(x)
            elif isinstance(x, complex):
                self.pkdcplx(x)
            elif isinstance(x, str):
                self.pkstr(x)
            elif isinstance(x, (bytes, bytearray)):
                self.pkbyte(x)
            else:
                self.pk(x)
        return self

    # --- unpacking --------------------------------------------------
    def unpack_into(self, buf, type=None, nitem=-1, stride=1):
        """Unpacks into a writable buffer, in place, as the type its
        format names (or ``type``); returns ``buf``."""
        t = -1 if type is None else type
        check(_pvm3.upk(self.bufid, t, buf, nitem, stride), "pvm_upk")
        return buf

    def _upk(self, ptype, n):
        cnt = 1 if n is None else n
        if cnt < 0:
            raise ValueError("count %d" % cnt)
        if cnt == 0:
            return []
        cplx = ptype in _COMPLEX
        a = array(_TYPECODE[ptype], bytes(
            array(_TYPECODE[ptype]).itemsize * cnt * (2 if cplx else 1)))
        check(_pvm3.upk(self.bufid, ptype, a, cnt, 1), "pvm_upk" + _NAME[ptype])
        vals = a.tolist()
        if cplx:
            vals = [complex(vals[i], vals[i + 1])
                    for i in range(0, len(vals), 2)]
        return vals[0] if n is None else vals

    def upkbyte(self, n):
        """n bytes, as bytes."""
        b = bytearray(n)
        if n:
            check(_pvm3.upk(self.bufid, _pvm3.PVM_BYTE, b, n, 1), "pvm_upkbyte")
        return bytes(b)

    def upkshort(self, n=None):
        """One value (n None) or a list of n: so for each upk*."""
        return self._upk(_pvm3.PVM_SHORT, n)

    def upkushort(self, n=None):
        return self._upk(_pvm3.PVM_USHORT, n)

    def upkint(self, n=None):
        return self._upk(_pvm3.PVM_INT, n)

    def upkuint(self, n=None):
        return self._upk(_pvm3.PVM_UINT, n)

    def upklong(self, n=None):
        return self._upk(_pvm3.PVM_LONG, n)

    def upkulong(self, n=None):
        return self._upk(_pvm3.PVM_ULONG, n)

    def upkfloat(self, n=None):
        return self._upk(_pvm3.PVM_FLOAT, n)

    def upkdouble(self, n=None):
        return self._upk(_pvm3.PVM_DOUBLE, n)

    def upkcplx(self, n=None):
        return self._upk(_pvm3.PVM_CPLX, n)

    def upkdcplx(self, n=None):
        return self._upk(_pvm3.PVM_DCPLX, n)

    def upkstr(self, encoding="utf-8"):
        """The next string, decoded (``encoding=None``: as bytes)."""
        s = _pvm3.upkstr(self.bufid)
        if isinstance(s, int):
            check(s, "pvm_upkstr")
        return s if encoding is None else s.decode(encoding)

    # --- sending ----------------------------------------------------
    def send(self, tid, tag):
        """``pvm_send`` of this message; returns it."""
        check(_pvm3.send(self.bufid, tid, tag), "pvm_send")
        return self

    def mcast(self, tids, tag):
        """``pvm_mcast`` of this message to every tid of ``tids``."""
        check(_pvm3.mcast(self.bufid, list(tids), tag), "pvm_mcast")
        return self
