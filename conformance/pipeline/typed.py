"""Checking decoded inputs against their classes' annotations, so that a badly typed record
(an epoch as a string, a node id as a list) is damage to quarantine rather than a value that
makes the model raise mid-replay. One checker per class, built once from its type hints."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

Check = Callable[[Any], str | None]  # None when the value fits, else what is wrong

_CHECKERS: dict[type, Check] = {}


def check_value(value: Any) -> str | None:
    """What is badly typed in a decoded dataclass value (recursively), or None."""
    cls = type(value)
    checker = _CHECKERS.get(cls)
    if checker is None:
        if not dataclasses.is_dataclass(cls):
            return None
        checker = _CHECKERS[cls] = _class_checker(cls)
    return checker(value)


def _class_checker(cls: type) -> Check:
    _CHECKERS[cls] = lambda v: None  # a recursive class is checked one level deep meanwhile
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # an annotation that cannot be resolved here: nothing to hold the value to
        return lambda v: None
    fields = [(f.name, _checker(hints.get(f.name, Any))) for f in dataclasses.fields(cls)]

    def check(value: Any) -> str | None:
        for name, field_check in fields:
            bad = field_check(getattr(value, name))
            if bad is not None:
                return f"{cls.__name__}.{name} {bad}"
        return None

    return check


def _checker(hint: Any) -> Check:
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if hint is int:
        return lambda v: None if type(v) is int else f"is not an integer: {v!r}"
    if hint is bool:
        return lambda v: None if type(v) is bool else f"is not a boolean: {v!r}"
    if hint is str:
        return lambda v: None if type(v) is str else f"is not a string: {v!r}"
    if hint is float:
        return lambda v: None if type(v) in (int, float) else f"is not a number: {v!r}"
    if hint is type(None) or hint is None:
        return lambda v: None if v is None else f"is not null: {v!r}"
    if origin is Literal:
        allowed = set(args)
        names = sorted(map(repr, allowed))
        return lambda v: None if (type(v) in (str, int) and v in allowed) else f"is not one of {names}: {v!r}"
    if origin in (Union, types.UnionType):
        options = [_checker(a) for a in args]

        members = [a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)]
        shown = " | ".join(getattr(a, "__name__", repr(a)) for a in args)

        def union(v: Any) -> str | None:
            for option in options:
                if option(v) is None:
                    return None
            if type(v) in members:  # the right class, a badly typed field inside it
                return check_value(v)
            return f"is not one of {shown}: {v!r}"

        return union
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            elem = _checker(args[0])

            def seq(v: Any) -> str | None:
                if type(v) is not tuple:
                    return f"is not a list: {v!r}"
                for e in v:
                    bad = elem(e)
                    if bad is not None:
                        return f"holds an element that {bad}"
                return None

            return seq
        return lambda v: None if type(v) is tuple else f"is not a list: {v!r}"
    if origin in (frozenset, set):
        return lambda v: None if isinstance(v, frozenset | set) else f"is not a set: {v!r}"
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        def nested(v: Any) -> str | None:
            if not isinstance(v, hint):
                return f"is not a {hint.__name__}: {v!r}"
            return check_value(v)

        return nested
    return lambda v: check_value(v) if dataclasses.is_dataclass(v) else None
