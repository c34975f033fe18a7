"""The Informal Trace Format (ITF, as used by Apalache and Quint) for kspec state traces.

Values map as: int -> JSON number (``{"#bigint": "..."}`` beyond 2^53), str/bool -> themselves,
tuple -> ``{"#tup": [...]}`` for a dataclass-free tuple of mixed kinds or JSON list for a
sequence, frozenset -> ``{"#set": [...]}``, dict -> ``{"#map": [[k, v], ...]}``, a dataclass ->
a record with a ``type`` field naming its class, a Bag -> ``{"#map": [[msg, count], ...]}``.
kspec's own fields (protocol, seed, target, failed property) go in ``#meta``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from kspec.model.core.bag import Bag

SAFE = 2**53 - 1


def to_itf(value: Any) -> Any:
    """Encode one model value as an ITF value."""
    if isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if -SAFE <= value <= SAFE else {"#bigint": str(value)}
    if value is None:
        return {"#tup": []}
    if isinstance(value, Bag):
        return {"#map": [[to_itf(e), value.count(e)] for e in value.distinct()]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        rec: dict[str, Any] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            rec[f.name] = to_itf(getattr(value, f.name))
        return rec
    if isinstance(value, frozenset | set):
        return {"#set": sorted((to_itf(v) for v in value), key=repr)}
    if isinstance(value, Mapping):
        return {"#map": [[to_itf(k), to_itf(v)] for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))]}
    if isinstance(value, tuple | list):
        return [to_itf(v) for v in value]
    raise TypeError(f"cannot encode {type(value).__name__} as ITF")


def itf_document(states: Sequence[Any], meta: Mapping[str, Any], actions: Sequence[Any] | None = None
                 ) -> dict[str, Any]:
    """An ITF document: each state is a record of the state's fields plus ``#meta.index``.

    ``actions[i]`` (the action that led to state i, None for the first) is stored as the
    ``action`` variable so a reader can replay the trace.
    """
    rows = []
    names: list[str] = []
    for i, state in enumerate(states):
        rec = to_itf(state)
        if not isinstance(rec, dict):
            rec = {"state": rec}
        if actions is not None:
            rec["action"] = to_itf(actions[i]) if actions[i] is not None else {"type": "Init"}
        rec["#meta"] = {"index": i}
        rows.append(rec)
        if not names:
            names = [k for k in rec if not k.startswith("#")]
    return {"#meta": {"format": "ITF", "format-description": "https://apalache-mc.org/docs/adr/015adr-trace.html",
                      "source": "kspec", **meta},
            "vars": names, "states": rows}
