"""Dynamic groups (libgpvm3) and the message mailbox."""

from collections import namedtuple

from . import _pvm3
from .errors import check
from .message import Message
from .tasks import mytid

__all__ = ["joingroup", "lvgroup", "gsize", "getinst", "gettid", "barrier",
           "freezegroup", "bcast", "reduce", "scatter", "gather", "PvmMax", "PvmMin", "PvmSum",
           "PvmProduct", "ReduceOp", "putinfo", "recvinfo", "delinfo",
           "getmboxinfo", "MboxClass", "MboxEntry"]


class ReduceOp:
    """One of libgpvm3's reduction functions (PvmMax, PvmMin, PvmSum,
    PvmProduct), for ``reduce``."""

    def __init__(self, name, index):
        self.name, self._index = name, index

    def __repr__(self):
        return "pvm3." + self.name


PvmMax = ReduceOp("PvmMax", 0)
PvmMin = ReduceOp("PvmMin", 1)
PvmSum = ReduceOp("PvmSum", 2)
PvmProduct = ReduceOp("PvmProduct", 3)


def joingroup(group):
    """Joins ``group``; returns this task's instance number in it."""
    return check(_pvm3.joingroup(group), "pvm_joingroup")


def lvgroup(group):
    return check(_pvm3.lvgroup(group), "pvm_lvgroup")


def gsize(group):
    return check(_pvm3.gsize(group), "pvm_gsize")


def getinst(group, tid=None):
    """The instance number of ``tid`` (default: this task) in group."""
    return check(_pvm3.getinst(group, mytid() if tid is None else tid),
                 "pvm_getinst")


def gettid(group, inst):
    return check(_pvm3.gettid(group, inst), "pvm_gettid")


def barrier(group, count=-1):
    """Waits until ``count`` members (-1: all) have called it."""
    return check(_pvm3.barrier(group, count), "pvm_barrier")


def freezegroup(group, size=-1):
    return check(_pvm3.freezegroup(group, size), "pvm_freezegroup")


def bcast(group, tag, *items, encoding=_pvm3.PvmDataDefault):
    """Sends a Message, or one of ``items`` (as ``send``), to every
    other member of ``group``."""
    if len(items) == 1 and isinstance(items[0], Message):
        return check(_pvm3.bcast(items[0].bufid, group, tag), "pvm_bcast")
    with Message(encoding).pack(*items) as m:
        return check(_pvm3.bcast(m.bufid, group, tag), "pvm_bcast")


def reduce(op, buf, tag, group, root=0, type=None):
    """``pvm_reduce`` of every item of the writable ``buf`` (a numpy
    array...) with ``op`` (PvmSum, PvmMax, PvmMin, PvmProduct) over the
    members of ``group``: the instance ``root`` gets the result in
    ``buf``, in place; the others' ``buf`` is left undefined."""
    if not isinstance(op, ReduceOp):
        raise TypeError("op is pvm3.PvmSum, PvmMax, PvmMin or PvmProduct")
    t = -1 if type is None else type
    return check(_pvm3.reduce(op._index, buf, t, tag, group, root),
                 "pvm_reduce")


def scatter(result, data, tag, group, root=0, type=None):
    """``pvm_scatter``: the root's ``data`` (gsize x len(result) items;
    None on the other members) is dealt out in instance order, each
    member's part landing in its writable ``result`` in place."""
    t = -1 if type is None else type
    return check(_pvm3.scatter(result, data, t, tag, group, root),
                 "pvm_scatter")


def gather(result, data, tag, group, root=0, type=None):
    """``pvm_gather``: every member's ``data`` lands in the root's
    writable ``result`` (gsize x len(data) items; None on the other
    members), in instance order."""
    t = -1 if type is None else type
    return check(_pvm3.gather(result, data, t, tag, group, root),
                 "pvm_gather")


MboxEntry = namedtuple("MboxEntry", "index owner flags")
MboxClass = namedtuple("MboxClass", "name entries")


def putinfo(name, msg, flags=_pvm3.PvmMboxDefault):
    """Stores the Message ``msg`` in the mailbox under ``name``; returns
    its index."""
    return check(_pvm3.putinfo(name, msg.bufid, flags), "pvm_putinfo")


def recvinfo(name, index=0, flags=_pvm3.PvmMboxDefault):
    """The Message stored under ``name`` and ``index`` (PvmNotFoundError
    when there is none)."""
    return Message._adopt(check(_pvm3.recvinfo(name, index, flags),
                                "pvm_recvinfo"))


def delinfo(name, index=0, flags=0):
    return check(_pvm3.delinfo(name, index, flags), "pvm_delinfo")


def getmboxinfo(pattern="*"):
    """The mailbox's classes whose names match ``pattern``, as
    MboxClass(name, entries) with MboxEntry(index, owner, flags)."""
    r = _pvm3.getmboxinfo(pattern)
    if isinstance(r, int):
        check(r, "pvm_getmboxinfo")
    return [MboxClass(n, [MboxEntry(*e) for e in ents]) for n, ents in r]
