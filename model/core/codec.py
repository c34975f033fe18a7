"""JSON encoding of model values: frozen dataclasses, bags, tuples, sets and maps.

Every value a model produces can be turned into plain JSON (for traces, counterexamples and
``--json`` output) and back, given the classes that may appear. A dataclass becomes an
object with a ``type`` key naming its class.

A set (and a bag's elements, a map's keys) is written in the canonical order of :func:`order`:
natural within a kind (numbers by value, so 9 before 10; lists element by element, so
``[4, 4]`` before ``[32768, 32768]``), the order a target sorts the same set in. (It was the
order of ``repr``, which put 10 before 9: a target writing a set sorted by number would have
differed from the model's encoding of the same set.)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from kspec.model.core.bag import Bag

JSON = Any


def order(value: JSON) -> tuple[Any, ...]:
    """The canonical order of encoded values (a sort key): null, then booleans, numbers (by
    value), strings (by code point), lists (element by element, a prefix first), objects (by
    their items in key order); natural within each kind, total across kinds."""
    if value is None:
        return (0,)
    if isinstance(value, bool):
        return (1, value)
    if isinstance(value, int | float):
        return (2, value)
    if isinstance(value, str):
        return (3, value)
    if isinstance(value, list):
        return (4, tuple(order(v) for v in value))
    if isinstance(value, dict):
        return (5, tuple((k, order(v)) for k, v in sorted(value.items())))
    raise TypeError(f"not an encoded value: {type(value).__name__}")


def encode(value: Any) -> JSON:
    """Encode a model value as JSON-compatible data."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if isinstance(value, Bag):
            items = sorted(([encode(e), value.count(e)] for e in value.distinct()), key=lambda item: order(item[0]))
            return {"type": "Bag", "items": items}
        out: dict[str, JSON] = {"type": type(value).__name__}
        for f in dataclasses.fields(value):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, bool | int | str | float) or value is None:
        return value
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted((encode(v) for v in value), key=order)
    if isinstance(value, Mapping):
        return {str(k): encode(v) for k, v in sorted(value.items(), key=lambda kv: order(encode(kv[0])))}
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
