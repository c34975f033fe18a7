"""JSON encoding of model values: frozen dataclasses, bags, tuples, sets and maps.

Every value a model produces can be turned into plain JSON (for traces, counterexamples and
``--json`` output) and back, given the classes that may appear. A dataclass becomes an
object with a ``type`` key naming its class.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from kspec.model.core.bag import Bag

JSON = Any


def encode(value: Any) -> JSON:
    """Encode a model value as JSON-compatible data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, Bag):
            return {"type": "Bag", "items": [[encode(e), value.count(e)] for e in value.distinct()]}
        out: dict[str, JSON] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, bool | int | str | float) or value is None:
        return value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((encode(v) for v in value), key=repr)
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))}
    raise TypeError(f"cannot encode {type(value).__name__}: {value!r}")


class DecodeError(ValueError):
    """JSON that does not describe a value of the expected classes."""


def decode(data: JSON, classes: Mapping[str, type] | Iterable[type]) -> Any:
    """Decode JSON made by :func:`encode` back into dataclasses.

    Tuples come back for lists inside dataclasses (fields of frozen classes are tuples or
    frozensets; a field annotated ``frozenset`` is rebuilt as one).
    """
    table = classes if isinstance(classes, Mapping) else {c.__name__: c for c in classes}
    return _decode(data, table)


def _decode(data: JSON, table: Mapping[str, type]) -> Any:
    if isinstance(data, list):
        return tuple(_decode(v, table) for v in data)
    if not isinstance(data, dict):
        return data
    kind = data.get("type")
    if kind == "Bag":
        bag: Bag[Any] = Bag()
        for elem, n in data.get("items", []):
            bag = bag.add(_decode(elem, table), int(n))
        return bag
    if kind is None:
        return {k: _decode(v, table) for k, v in data.items()}
    cls = table.get(kind)
    if cls is None:
        raise DecodeError(f"unknown type {kind!r}")
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in data:
            if f.default is not dataclasses.MISSING:
                continue
            if f.default_factory is not dataclasses.MISSING:
                continue
            raise DecodeError(f"{kind} lacks field {f.name!r}")
        value = _decode(data[f.name], table)
        if isinstance(value, tuple) and "frozenset" in str(f.type):
            value = frozenset(value)
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise DecodeError(f"bad {kind}: {err}") from None
