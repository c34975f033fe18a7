"""``evolve``: a fast ``dataclasses.replace`` for the frozen, slotted classes of the models.

``dataclasses.replace`` re-runs ``__init__`` and checks every field, which dominates the
explorer's profile; the models' classes have no ``__post_init__``, so copying the slots and
overwriting the changed ones gives the same value. ``tests/test_core_evolve.py`` holds it to
``dataclasses.replace`` on the model's classes.
"""

from __future__ import annotations

from typing import Any, TypeVar

T = TypeVar("T")

_SLOTS: dict[type, tuple[str, ...]] = {}


def _slots(cls: type) -> tuple[str, ...]:
    names = _SLOTS.get(cls)
    if names is None:
        names = tuple(cls.__dataclass_fields__)  # type: ignore[attr-defined]
        _SLOTS[cls] = names
    return names


def evolve(obj: T, **changes: Any) -> T:
    """A copy of the frozen dataclass ``obj`` with ``changes`` applied (as ``replace``)."""
    cls = type(obj)
    names = _slots(cls)
    for key in changes:
        if key not in names:
            raise TypeError(f"{cls.__name__} has no field {key!r}")
    new = object.__new__(cls)
    setattr_ = object.__setattr__
    for name in names:
        setattr_(new, name, changes[name] if name in changes else getattr(obj, name))
    return new
