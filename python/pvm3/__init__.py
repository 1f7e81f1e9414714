"""pvm3: PVM 3.4 for Python (openpvm; docs/python.md).

    import numpy as np, pvm3

    with pvm3.enroll() as me:
        [child] = pvm3.spawn("worker", ["4"])
        pvm3.send(child, 1, 2.5, "hello")        # a double and a string
        a = np.empty(4)
        pvm3.precv(child, 2, a)                  # filled in place

Every constant of pvm3.h is here by its own name (PvmDataDefault,
PvmTaskExit, PVM_DOUBLE, PvmNoData...); failures raise PvmError (or its
subclass for the code, e.g. PvmNoDataError) with ``.code`` and ``.name``.
"""

from . import _pvm3
from ._pvm3 import PVM_VER
from .errors import *  # noqa: F401,F403
from .errors import __all__ as _errors_all
from .message import Message
from .tasks import *  # noqa: F401,F403
from .tasks import __all__ as _tasks_all
from .comm import *  # noqa: F401,F403
from .comm import __all__ as _comm_all
from .groups import *  # noqa: F401,F403
from .groups import __all__ as _groups_all

# pvm3.h's constants, by name
_constants = [n for n in dir(_pvm3)
              if n.startswith(("Pvm", "PVM_")) and isinstance(getattr(_pvm3, n), int)]
globals().update({n: getattr(_pvm3, n) for n in _constants})

__all__ = (["Message", "PVM_VER"] + _errors_all + _tasks_all + _comm_all
           + _groups_all + _constants)
