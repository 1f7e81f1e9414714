"""PVM errors as Python exceptions.

Every PVM call that fails raises a PvmError (or one of its subclasses,
one per error code of pvm3.h, named after it: PvmNoData ->
PvmNoDataError).
The exception carries the code (``e.code``, e.g. -5), its symbolic name
(``e.name``, 'PvmNoData'), the call that failed (``e.call``) and the
reference's text for the code as its message.
"""

from . import _pvm3

__all__ = ["PvmError", "check"]


class PvmError(Exception):
    """A PVM call failed: ``code`` is the PVM error code (< 0), ``name``
    its name in pvm3.h, ``call`` the PVM function.

    ``PvmError(code)`` gives the subclass of that code.
    """

    code = None
    name = None

    def __new__(cls, code=None, call=None):
        if cls is PvmError and code in _by_code:
            cls = _by_code[code]
        return super().__new__(cls)

    def __init__(self, code=None, call=None):
        if code is None:
            code = type(self).code
        self.code = code
        self.name = _pvm3.errnames.get(code, "PvmError(%d)" % code)
        self.call = call
        text = "%s (%s %d)" % (_pvm3.errtext(code), self.name, code)
        super().__init__("%s: %s" % (call, text) if call else text)

    def __reduce__(self):
        return (PvmError, (self.code, self.call))


_by_code = {}
for _code, _name in sorted(_pvm3.errnames.items(), reverse=True):
    if _code == 0:
        continue
    _cls_name = _name + "Error"  # PvmNoData -> PvmNoDataError
    _cls = type(_cls_name, (PvmError,), {
        "code": _code,
        "__doc__": "%s (%d): %s" % (_name, _code, _pvm3.errtext(_code)),
        "__module__": __name__,
    })
    _by_code[_code] = _cls
    globals()[_cls_name] = _cls
    __all__.append(_cls_name)
del _code, _name, _cls_name, _cls


def check(result, call):
    """``result`` of the PVM function ``call``: returned when >= 0,
    raised as its PvmError when < 0."""
    if result < 0:
        raise PvmError(result, call)
    return result
