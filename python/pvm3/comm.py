"""Point to point: send, mcast, recv, nrecv, trecv, probe, and psend /
precv straight from and into buffers."""

from collections import namedtuple

from . import _pvm3
from .errors import check
from .message import Message

__all__ = ["send", "mcast", "recv", "nrecv", "trecv", "probe", "psend",
           "precv", "Status"]

Status = namedtuple("Status", "src tag nbytes")
Status.__doc__ = """What arrived: its sender's tid, tag and size in bytes."""


def _message(items, encoding):
    if len(items) == 1 and isinstance(items[0], Message):
        return items[0], False
    return Message(encoding).pack(*items), True


def send(tid, tag, *items, encoding=_pvm3.PvmDataDefault):
    """Sends a Message, or a new one of ``items`` packed by
    ``Message.pack`` (float, complex, str, bytes, numpy arrays)."""
    m, own = _message(items, encoding)
    try:
        m.send(tid, tag)
    finally:
        if own:
            m.free()


def mcast(tids, tag, *items, encoding=_pvm3.PvmDataDefault):
    """As send, to every tid of ``tids`` (never to the caller)."""
    m, own = _message(items, encoding)
    try:
        m.mcast(tids, tag)
    finally:
        if own:
            m.free()


def recv(tid=-1, tag=-1):
    """Waits for a message from ``tid`` with ``tag`` (-1: any) and
    returns it as a Message."""
    return Message._adopt(check(_pvm3.recv(tid, tag), "pvm_recv"))


def nrecv(tid=-1, tag=-1):
    """As recv, but None at once when no such message is there."""
    r = check(_pvm3.nrecv(tid, tag), "pvm_nrecv")
    return Message._adopt(r) if r > 0 else None


def trecv(tid=-1, tag=-1, timeout=None):
    """As recv, waiting at most ``timeout`` seconds (None: for ever);
    None when the time ran out."""
    secs = -1.0 if timeout is None else float(timeout)
    if secs < 0 and timeout is not None:
        raise ValueError("timeout %r" % (timeout,))
    r = check(_pvm3.trecv(tid, tag, secs), "pvm_trecv")
    return Message._adopt(r) if r > 0 else None


def probe(tid=-1, tag=-1):
    """The Status of a matching message that has arrived, else None;
    the message stays to be received."""
    r, n, mtag, src = _pvm3.probe(tid, tag)
    check(r, "pvm_probe")
    return Status(src, mtag, n) if r > 0 else None


def psend(tid, tag, buf, type=None):
    """Sends the items of ``buf`` (a numpy array, array.array, bytes,
    memoryview: anything C-contiguous with the buffer protocol) straight
    from its memory, as the PVM type of its format or ``type``."""
    check(_pvm3.psend(tid, tag, buf, -1 if type is None else type),
          "pvm_psend")


def precv(tid, tag, buf, type=None):
    """Receives a message of psend straight into the writable ``buf``,
    in place (no copy and no new object); returns its Status.  A
    message longer than ``buf`` fills it and reports its full size."""
    r, src, mtag, n = _pvm3.precv(tid, tag, buf, -1 if type is None else type)
    check(r, "pvm_precv")
    return Status(src, mtag, n)
