"""How a step's two sides are compared: the first place two JSON values differ, and whether the
target broke an order the spec imposes on a step's outputs."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any

from kspec.conformance.adapters.base import JSON


def _key(value: JSON) -> str:
    return json.dumps(value, sort_keys=True)


def first_difference(expected: JSON, actual: JSON, path: str = "") -> str | None:
    """The path of the first place two JSON values differ (``""`` for the roots), or None."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for k in sorted(set(expected) | set(actual)):
            if k not in expected or k not in actual:
                return f"{path}.{k}" if path else str(k)
            sub = first_difference(expected[k], actual[k], f"{path}.{k}" if path else str(k))
            if sub is not None:
                return sub
        return None
    if expected != actual:
        return path
    return None


def _short(value: JSON, limit: int = 160) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _get(doc: JSON, path: str) -> JSON:
    for part in path.split(".") if path else []:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(part)
    return doc


def order_violation(rules: Any, model: list[JSON], target: list[JSON],
                    key: Callable[[JSON], str],
                    kind: Callable[[JSON], Any] = lambda o: o.get("type")) -> tuple[str, str] | None:
    """``(field, detail)`` when ``target`` (the same multiset as ``model``) puts two outputs in
    an order a rule forbids: the model emits ``a`` (kind in a rule's ``before``) ahead of ``b``
    (kind in its ``after``) and the target emits ``b`` first. An output's kind is its type unless
    the driver names it otherwise (``Driver.output_kind``). Equal outputs are matched in the
    order each side emits them."""
    if not rules or len(model) < 2:
        return None
    where: dict[str, list[int]] = {}
    for j, out in enumerate(target):
        where.setdefault(key(out), []).append(j)
    used: Counter[str] = Counter()
    pos: list[int] = []
    for out in model:
        k = key(out)
        pos.append(where[k][used[k]])
        used[k] += 1
    for before, after, spec_id in rules:
        for i, a in enumerate(model):
            if kind(a) not in before:
                continue
            for j in range(i + 1, len(model)):
                b = model[j]
                if kind(b) in after and pos[i] > pos[j]:
                    return (f"order.{a['type']}<{b['type']}",
                            f"{spec_id}: the model emits {_short(a, 80)} before {_short(b, 80)}; "
                            f"the target emitted them the other way round")
    return None
