"""Memoisation of pure functions of the models' frozen values, for the explorer's hot loop.

A successor state shares most of its parts (replicas, logs) with the state it came from, by
reference, while their hashes are recomputed on every use (tuples and dataclasses do not cache
them). So a function of one part is best memoised on the part's identity: ``by_identity``
keeps each argument alive in its entry, so its id cannot be reused while the entry lives, and
clears itself when full (which costs recomputation, never a wrong answer).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")
U = TypeVar("U")
R = TypeVar("R")

# Entries a memo holds before it starts afresh: what recent states share.
MEMO_LIMIT = 1 << 17


def by_identity(fn: Callable[[T], R], limit: int = MEMO_LIMIT) -> Callable[[T], R]:
    """``fn`` (pure) memoised on its argument's identity."""
    cache: dict[int, tuple[T, R]] = {}

    def memoised(x: T) -> R:
        hit = cache.get(id(x))
        if hit is not None and hit[0] is x:
            return hit[1]
        if len(cache) >= limit:
            cache.clear()
        out = fn(x)
        cache[id(x)] = (x, out)
        return out

    memoised.__doc__ = fn.__doc__
    memoised.__name__ = getattr(fn, "__name__", "memoised")
    return memoised


def by_identity_and_value(fn: Callable[[T, U], R], limit: int = MEMO_LIMIT) -> Callable[[T, U], R]:
    """``fn(x, y)`` (pure) memoised on ``x``'s identity and ``y``'s value: a node step, whose
    node successor states share by reference while its input (a message, a timer) is rebuilt
    or taken from another state's network. Each entry keeps ``x`` alive, as ``by_identity``."""
    cache: dict[tuple[int, U], tuple[T, R]] = {}

    def memoised(x: T, y: U) -> R:
        key = (id(x), y)
        hit = cache.get(key)
        if hit is not None and hit[0] is x:
            return hit[1]
        if len(cache) >= limit:
            cache.clear()
        out = fn(x, y)
        cache[key] = (x, out)
        return out

    memoised.__doc__ = fn.__doc__
    memoised.__name__ = getattr(fn, "__name__", "memoised")
    return memoised


def by_value(fn: Callable[[T], R], limit: int = MEMO_LIMIT) -> Callable[[T], R]:
    """``fn`` (pure) memoised on its (hashable) argument's value: for a value whose hash is
    cheap (a frozenset caches its own) and that many states hold equal copies of."""
    cache: dict[T, R] = {}

    def memoised(x: T) -> R:
        hit = cache.get(x, _MISSING)
        if hit is not _MISSING:
            return hit  # type: ignore[return-value]
        if len(cache) >= limit:
            cache.clear()
        out = cache[x] = fn(x)
        return out

    memoised.__doc__ = fn.__doc__
    memoised.__name__ = getattr(fn, "__name__", "memoised")
    return memoised


_MISSING = object()


class HashKept:
    """A base for a frozen slotted dataclass whose instances are hashed many times each (a
    replica, shared by reference by every successor state that did not change it): the slot
    ``_hash`` (not a field: equality, ``repr``, pickling and ``evolve`` ignore it) keeps the
    hash once :func:`keeps_hash` has wrapped the class's own."""

    __slots__ = ("_hash",)
    _hash: int


H = TypeVar("H", bound=HashKept)


def keeps_hash(cls: type[H]) -> type[H]:
    """Make ``cls`` (a frozen dataclass over :class:`HashKept`) keep its dataclass hash in its
    instance's ``_hash`` slot after the first call. A copy made by ``evolve`` or
    ``dataclasses.replace``, or unpickled in another process, starts without it."""
    plain = cls.__hash__

    def __hash__(self: H) -> int:
        try:
            return self._hash
        except AttributeError:
            h = plain(self)
            object.__setattr__(self, "_hash", h)  # a frozen instance's cache, not a field
            return h

    cls.__hash__ = __hash__  # type: ignore[method-assign,assignment]
    return cls
