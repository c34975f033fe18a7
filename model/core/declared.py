"""Finding what a package declares by name (a protocol's ``PROTOCOL``, a mapping's ``MAPPING``).

The package is imported only when asked for, so a command about one protocol does not import
the others. A package that is not there, or that declares no value of the promised type, is a
one-line error of the caller's kind; an import error inside a package that is there propagates
(it is a bug, not an absent package).
"""

from __future__ import annotations

import importlib
from typing import TypeVar

T = TypeVar("T")


def declared(module_name: str, attribute: str, kind: type[T], error: type[Exception], *, absent: str,
             wrong: str) -> T:
    """``module_name``'s ``attribute``, a ``kind``; ``error(absent)`` when the module is not
    there, ``error(wrong)`` when it declares no ``kind`` under that name."""
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is not None and module_name.startswith(err.name):
            raise error(absent) from None
        raise
    value = getattr(module, attribute, None)  # a declared name, not a capability probe
    if not isinstance(value, kind):
        raise error(wrong)
    return value
