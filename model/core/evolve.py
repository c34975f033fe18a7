"""``evolve``: a fast ``dataclasses.replace`` for the frozen, slotted classes of the models.

``dataclasses.replace`` re-runs ``__init__`` and checks every field, which dominates the
explorer's profile; the models' classes have no ``__post_init__``, so copying the slots and
overwriting the changed ones gives the same value. The copy is a function compiled once per
class (straight-line code, one line per field), which is what makes it cheap.
``tests/test_core_evolve.py`` holds it to ``dataclasses.replace`` on the model's classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_COPIERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}


def _copier(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    """Compile ``copy(obj, changes)`` for ``cls``: a new instance with every field from
    ``changes`` when named there, else from ``obj``."""
    names = tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]
    known = frozenset(names)
    lines = ["def copy(obj, changes):",
             "    if not known.issuperset(changes):",
             "        bad = next(k for k in changes if k not in known)",
             "        raise TypeError(f'{cls.__name__} has no field {bad!r}')",
             "    new = new_(cls)"]
    for name in names:
        # getattr for a name Python would mangle inside the generated function.
        read = f"getattr(obj, {name!r})" if name.startswith("__") else f"obj.{name}"
        lines.append(f"    set_(new, {name!r}, changes[{name!r}] if {name!r} in changes else {read})")
    lines.append("    return new")
    scope: dict[str, Any] = {"cls": cls, "known": known, "new_": object.__new__,
                             "set_": object.__setattr__}
    exec("\n".join(lines), scope)  # generated from the class's own field names
    copy: Callable[[Any, dict[str, Any]], Any] = scope["copy"]
    _COPIERS[cls] = copy
    return copy


def evolve(obj: T, **changes: Any) -> T:
    """A copy of the frozen dataclass ``obj`` with ``changes`` applied (as ``replace``)."""
    copy = _COPIERS.get(type(obj)) or _copier(type(obj))
    result: T = copy(obj, changes)
    return result
