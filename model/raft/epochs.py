"""Renumbering the epochs of a KRaft state: the one walk that the liveness suffix
(``shift_epochs``) and the conformance liveness check (``epoch_ranks``) both use."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import fields, is_dataclass
from typing import Any

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace


def map_epochs(value: Any, f: Callable[[int], int], names: Collection[str]) -> Any:
    """``value`` with ``f`` applied to every non-zero epoch: the int fields called one of
    ``names`` (a log entry's ``epoch`` too, when named) and a fetch answer's diverging epoch,
    through tuples, frozensets, bags and dataclasses. 0 means "no epoch" and stays; parts
    that do not change are kept as they are."""
    if isinstance(value, tuple):
        return tuple(map_epochs(v, f, names) for v in value)
    if isinstance(value, frozenset):
        return frozenset(map_epochs(v, f, names) for v in value)
    if isinstance(value, Bag):
        return Bag(frozenset((map_epochs(m, f, names), c) for m, c in value.items))
    if not is_dataclass(value) or isinstance(value, type):
        return value
    changes: dict[str, Any] = {}
    for fd in fields(value):
        v = getattr(value, fd.name)
        new: Any
        if fd.name in names and isinstance(v, int):
            new = f(v) if v else v
        elif fd.name == "diverging" and v is not None:
            new = (f(v[0]) if v[0] else v[0], v[1])
        else:
            new = map_epochs(v, f, names)
        if new is not v and new != v:
            changes[fd.name] = new
    return replace(value, **changes) if changes else value
