"""Plain JSON views of trace values: ITF decoding, one-line rendering and state diffs.

Every input format (ITF state traces, ``kspec explore --json`` traces, counterexample files)
is first turned into plain JSON here, so the renderers never see ``#set`` or ``Bag``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from kspec.conformance.traces.itf import decode_value


def plain(value: Any) -> Any:
    """ITF and codec values as plain JSON: sets and bags become sorted lists, maps with
    scalar keys become objects, ``{"#tup": []}`` becomes null. A malformed ITF value raises
    ``ItfValueError`` naming its place."""
    if isinstance(value, dict) and value.get("type") == "Bag" and set(value) == {"type", "items"} \
            and isinstance(value["items"], list) and all(isinstance(p, list) and len(p) == 2 for p in value["items"]):
        return [[plain(k), plain(v)] for k, v in value["items"]]
    if isinstance(value, dict) and not any(k.startswith("#") for k in value):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return decode_value(value)


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def short(value: Any, limit: int = 160) -> str:
    """A value on one line: a typed record as ``Type(field=value, ...)``; cut at ``limit``."""
    text = _short(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short(value: Any) -> str:
    if isinstance(value, dict):
        kind = value.get("type")
        inner = ", ".join(f"{k}={_short(v)}" for k, v in value.items() if k != "type")
        if isinstance(kind, str):
            return f"{kind}({inner})" if inner else kind
        return "{" + inner + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_short(v) for v in value) + "]"
    if value is MISSING:
        return "(missing)"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and (value in AMBIGUOUS or value != value.strip()):
        # "", null and missing must read differently (and a string that looks like one of them).
        return '"' + value.replace('"', '\\"') + '"'
    return str(value)


# Strings shown quoted: they would otherwise read as null, missing, a boolean or nothing.
AMBIGUOUS = frozenset({"", "null", "(missing)", "true", "false", "none", "None"})


@dataclass(frozen=True, slots=True)
class Change:
    """One changed place between two states: a path such as ``nodes[1].role.epoch``."""

    path: str
    before: Any
    after: Any
    # For lists compared as multisets (sets, bags): the elements that came and went.
    added: tuple[Any, ...] = ()
    removed: tuple[Any, ...] = ()

    def text(self, limit: int = 160) -> str:
        """``path: before → after`` (or ``+added -removed`` for collections)."""
        if self.before is MISSING:
            return f"{self.path} = {short(self.after, limit)} (new)"
        if self.after is MISSING:
            return f"{self.path} removed (was {short(self.before, limit)})"
        if self.added or self.removed:
            parts = [f"+{short(a, limit)}" for a in self.added] + [f"-{short(r, limit)}" for r in self.removed]
            return f"{self.path}: " + "  ".join(parts)
        return f"{self.path}: {short(self.before, limit)} → {short(self.after, limit)}"


class _Missing:
    """A key one side of a diff does not have (neither null nor "")."""

    def __repr__(self) -> str:
        return "(missing)"


MISSING: Any = _Missing()


def diff(before: Any, after: Any, path: str = "") -> list[Change]:
    """The changes from ``before`` to ``after``, as deep as the two have the same shape.

    Objects are compared key by key, lists of equal length holding records (replicas) element
    by element, other lists as multisets (sets, bags, in-flight messages): what came, what went.
    Appending to a list of records (a log) shows as the added records.
    """
    if before == after:
        return []
    # An empty ITF map reads as {} even where it holds a bag (a list of [element, count]).
    if before == {} and isinstance(after, list):
        before = []
    if after == {} and isinstance(before, list):
        after = []
    if isinstance(before, dict) and isinstance(after, dict) and before.get("type") == after.get("type"):
        out: list[Change] = []
        for key in list(before) + [k for k in after if k not in before]:
            if key == "type":
                continue
            sub = f"{path}.{key}" if path else str(key)
            out.extend(diff(before.get(key, MISSING), after.get(key, MISSING), sub))
        return out
    if isinstance(before, list) and isinstance(after, list):
        if len(before) == len(after) and before and all(isinstance(v, dict) for v in before + after):
            out = []
            for i, (b, a) in enumerate(zip(before, after, strict=True)):
                out.extend(diff(b, a, f"{path}[{i}]"))
            return out
        added, removed = _multiset_delta(before, after)
        return [Change(path or "(state)", before, after, tuple(added), tuple(removed))]
    return [Change(path or "(state)", before, after)]


def _multiset_delta(before: list[Any], after: list[Any]) -> tuple[list[Any], list[Any]]:
    return _minus(after, before), _minus(before, after)


def _minus(these: list[Any], those: list[Any]) -> list[Any]:
    """The elements of ``these`` left once each of ``those`` has taken away one equal element."""
    left = [_sort_key(v) for v in those]
    out = []
    for value in these:
        key = _sort_key(value)
        if key in left:
            left.remove(key)
        else:
            out.append(value)
    return out
