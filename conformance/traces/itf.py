"""The Informal Trace Format (ITF, as used by Apalache and Quint) for kspec state traces.

Values map as: int -> JSON number (``{"#bigint": "..."}`` beyond 2^53), str/bool -> themselves,
tuple -> ``{"#tup": [...]}`` for a dataclass-free tuple of mixed kinds or JSON list for a
sequence, frozenset -> ``{"#set": [...]}``, dict -> ``{"#map": [[k, v], ...]}``, a dataclass ->
a record with a ``type`` field naming its class, a Bag -> ``{"#map": [[msg, count], ...]}``.
kspec's own fields (protocol, seed, target, failed property) go in ``#meta``.
"""

from __future__ import annotations

import dataclasses
import json
import re
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


# -- reading ITF values (from files kspec did not necessarily write) ------------------------------------------

BIGINT_DIGITS = 60  # a #bigint longer than this is refused (kspec writes none beyond 2^63)


class ItfValueError(ValueError):
    """An ITF value that is malformed; the message names where in the document it is."""


def decode_value(value: Any, where: str = "$") -> Any:
    """An ITF value as plain JSON, checked: ``{"#tup": []}`` is null, other tuples lists, sets
    sorted lists, maps with scalar keys objects (else lists of pairs), ``#bigint`` an int of at
    most ``BIGINT_DIGITS`` digits. Record fields starting with ``#`` (ITF's ``#meta``) are left
    out. A malformed value raises :class:`ItfValueError` naming its place (``where``)."""
    if isinstance(value, list):
        return [decode_value(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if not isinstance(value, dict):
        return value
    if "#tup" in value:
        items = value["#tup"]
        if not isinstance(items, list):
            raise ItfValueError(f"{where}: #tup is not a list")
        decoded = [decode_value(v, f"{where}.#tup[{i}]") for i, v in enumerate(items)]
        return decoded if decoded else None
    if "#bigint" in value:
        digits = value["#bigint"]
        if not isinstance(digits, str) or not _BIGINT_RE.match(digits):
            raise ItfValueError(f"{where}: #bigint {str(digits)[:40]!r} is not a decimal integer of at most "
                                f"{BIGINT_DIGITS} digits")
        return int(digits)
    if "#set" in value:
        items = value["#set"]
        if not isinstance(items, list):
            raise ItfValueError(f"{where}: #set is not a list")
        return sorted((decode_value(v, f"{where}.#set[{i}]") for i, v in enumerate(items)), key=_sort_key)
    if "#map" in value:
        pairs = value["#map"]
        if not isinstance(pairs, list):
            raise ItfValueError(f"{where}: #map is not a list of [key, value] pairs")
        decoded_pairs = []
        for i, pair in enumerate(pairs):
            if not isinstance(pair, list) or len(pair) != 2:
                raise ItfValueError(f"{where}.#map[{i}]: not a [key, value] pair")
            decoded_pairs.append((decode_value(pair[0], f"{where}.#map[{i}][0]"),
                                  decode_value(pair[1], f"{where}.#map[{i}][1]")))
        if all(isinstance(k, str | int | bool) for k, _ in decoded_pairs):
            return {str(k): v for k, v in decoded_pairs}
        return [[k, v] for k, v in decoded_pairs]
    if "#unserializable" in value:
        return str(value["#unserializable"])
    return {k: decode_value(v, f"{where}.{k}") for k, v in value.items() if not k.startswith("#")}


_BIGINT_RE = re.compile(rf"^-?[0-9]{{1,{BIGINT_DIGITS}}}$")


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
