"""Enrollment, tasks and hosts: mytid, parent, enroll, exit, spawn, kill,
notify, options, the task and host tables, contexts."""

from collections import namedtuple

from . import _pvm3
from .errors import PvmError, check
from .message import _new_epoch

__all__ = ["mytid", "parent", "exit", "enroll", "halt", "spawn", "kill",
           "sendsig", "pstat", "tidtohost", "getopt", "setopt", "notify",
           "siblings", "tasks", "config", "newcontext", "getcontext",
           "setcontext", "freecontext", "TaskInfo", "HostInfo"]

TaskInfo = namedtuple("TaskInfo", "tid ptid host flag a_out pid")
HostInfo = namedtuple("HostInfo", "tid name arch speed dsig")


def mytid():
    """This task's tid; enrolls it in PVM at the first call."""
    return check(_pvm3.mytid(), "pvm_mytid")


def parent():
    """The tid of the task that spawned this one, or None for a task
    that has none (PvmNoParent) or whose parent hid itself
    (PvmParentNotSet: spawned with PvmNoSpawnParent)."""
    r = _pvm3.parent()
    if r in (_pvm3.PvmNoParent, _pvm3.PvmParentNotSet):
        return None
    return check(r, "pvm_parent")


def exit():
    """Leaves PVM (``pvm_exit``); every Message of this enrollment is
    gone with it.  The process goes on."""
    _new_epoch()
    return check(_pvm3.exit(), "pvm_exit")


class enroll:
    """Enrollment for a ``with`` block: enrolls at the start (the value
    of the block is the tid; PvmError when there is no pvmd) and leaves
    PVM (``pvm_exit``) at its end, whatever ended it::

        with pvm3.enroll() as tid:
            ...
    """

    def __enter__(self):
        self.tid = mytid()
        return self.tid

    def __exit__(self, *exc):
        exit()
        return False


def halt():
    """Stops the whole virtual machine (``pvm_halt``)."""
    return check(_pvm3.halt(), "pvm_halt")


def spawn(task, args=None, flag=_pvm3.PvmTaskDefault, where=None, ntask=1):
    """Starts ``ntask`` copies of the program ``task`` (found on
    PVM_PATH) with the argument list ``args``; returns their tids.

    When a copy could not start, raises the PvmError of the first
    failure (e.g. PvmNoFileError), with ``e.tids`` the tids that did start
    (still running: kill them or use them) and ``e.errors`` every
    failed slot's code."""
    if isinstance(args, str):
        raise TypeError("args is a list of str, not a str")
    r, slots = _pvm3.spawn(task, None if args is None else list(args),
                           flag, where, ntask)
    check(r, "pvm_spawn")
    tids = [t for t in slots if t > 0]
    errors = [t for t in slots if t <= 0]
    if errors:
        e = PvmError(errors[0] if errors[0] < 0 else _pvm3.PvmSysErr,
                     "pvm_spawn")
        e.tids, e.errors = tids, errors
        raise e
    return tids


def kill(tid):
    return check(_pvm3.kill(tid), "pvm_kill")


def sendsig(tid, signum):
    return check(_pvm3.sendsig(tid, signum), "pvm_sendsig")


def pstat(tid):
    """True when the task runs, False when there is no such task."""
    r = _pvm3.pstat(tid)
    if r == _pvm3.PvmNoTask:
        return False
    check(r, "pvm_pstat")
    return True


def tidtohost(tid):
    return check(_pvm3.tidtohost(tid), "pvm_tidtohost")


def getopt(what):
    return check(_pvm3.getopt(what), "pvm_getopt")


def setopt(what, value):
    """Sets a PVM option; returns its previous value."""
    return check(_pvm3.setopt(what, value), "pvm_setopt")


def notify(what, tag, tids=None, count=-1):
    """``pvm_notify``: for PvmTaskExit and PvmHostDelete, a message of
    tag ``tag`` when any of ``tids`` exits or its host goes; for
    PvmHostAdd, one for each of the next ``count`` hosts added (-1: for
    ever).  ``what | PvmNotifyCancel`` cancels."""
    if (what & ~_pvm3.PvmNotifyCancel) == _pvm3.PvmHostAdd:
        return check(_pvm3.notify(what, tag, count, None), "pvm_notify")
    if tids is None:
        raise TypeError("notify of this event needs tids")
    return check(_pvm3.notify(what, tag, 0, list(tids)), "pvm_notify")


def siblings():
    r = _pvm3.siblings()
    if isinstance(r, int):
        check(r, "pvm_siblings")
    return r


def tasks(where=0):
    """The tasks of the machine (0), of one host (its pvmd's tid) or one
    task, as TaskInfo tuples."""
    r = _pvm3.tasks(where)
    if isinstance(r, int):
        check(r, "pvm_tasks")
    return [TaskInfo(*t) for t in r]


def config():
    """The hosts of the machine, as HostInfo tuples."""
    r = _pvm3.config()
    if isinstance(r, int):
        check(r, "pvm_config")
    return [HostInfo(*h) for h in r]


def newcontext():
    return check(_pvm3.newcontext(), "pvm_newcontext")


def getcontext():
    return check(_pvm3.getcontext(), "pvm_getcontext")


def setcontext(ctx):
    """Sets the current context; returns the previous one."""
    return check(_pvm3.setcontext(ctx), "pvm_setcontext")


def freecontext(ctx):
    return check(_pvm3.freecontext(ctx), "pvm_freecontext")
