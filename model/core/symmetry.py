"""Symmetry reduction: the representative of a state's orbit under renamings of replica ids.

A protocol gives the ids that may be renamed, an id-free ``signature`` of a replica and a
``permute(state, renaming)``. Only renamings that sort the renamed replicas by signature are
tried (ties try every order), which is one renaming for most states; with several, the
representative is the candidate with the smallest hash (then repr). Signatures do not change
under renaming, so every state of an orbit yields the same candidates and the same
representative (TLC's SYMMETRY).

Renaming is the explorer's hot loop, and a state shares most of its parts with the state it
was reached from, so the protocols memoise the renaming of a part (``memo_by_identity``,
``memo_by_value``): the renamed part is a pure function of the renaming and the part's value.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Hashable, Mapping
from typing import Any, TypeVar

from kspec.model.core.memo import MEMO_LIMIT, by_identity

T = TypeVar("T")
Perm = Mapping[int, int]
PermKey = tuple[tuple[int, int], ...]
Renamer = Callable[[Perm, PermKey, T], T]


def perm_key(p: Perm) -> PermKey:
    """A hashable key of the renaming ``p`` (the same for equal renamings)."""
    return tuple(sorted(p.items()))


def memo_by_identity(fn: Callable[[Perm, T], T], limit: int = MEMO_LIMIT) -> Renamer[T]:
    """``fn`` memoised on (renaming, the object's identity): for parts whose hash is costly
    (tuples and dataclasses recompute theirs) but which successor states share by reference.
    Each entry holds the object itself, so its id cannot be reused while the entry lives."""
    cache: dict[tuple[PermKey, int], tuple[T, T]] = {}

    def renamed(p: Perm, pk: PermKey, x: T) -> T:
        k = (pk, id(x))
        hit = cache.get(k)
        if hit is not None and hit[0] is x:
            return hit[1]
        if len(cache) >= limit:
            cache.clear()
        out = fn(p, x)
        cache[k] = (x, out)
        return out

    return renamed


def memo_by_value(fn: Callable[[Perm, T], T], limit: int = MEMO_LIMIT) -> Renamer[T]:
    """``fn`` memoised on (renaming, the object's value): for frozensets, which cache their
    hash, and equal values built apart (a network, a voter set)."""
    cache: dict[tuple[PermKey, Hashable], T] = {}

    def renamed(p: Perm, pk: PermKey, x: T) -> T:
        k = (pk, x)
        hit = cache.get(k)
        if hit is not None:
            return hit
        if len(cache) >= limit:
            cache.clear()
        out = fn(p, x)
        cache[k] = out
        return out

    return renamed


def canonical_under_renaming(
    renamed: Collection[int],
    signature: Callable[[Any], Any],
    permute: Callable[[Any, Mapping[int, int]], Any],
) -> Callable[[Any], Any]:
    """A function from a state (with ``.nodes`` having ``.id``) to its orbit's representative."""
    ids = sorted(renamed)
    members = frozenset(renamed)
    # A replica's signature, memoised on its identity (successor states share replicas).
    sig_of = by_identity(signature)

    def canonical(state: Any) -> Any:
        ordered = sorted((sig_of(n), n.id) for n in state.nodes if n.id in members)
        groups: list[list[int]] = []
        last: Any = object()
        for sig, nid in ordered:
            if groups and sig == last:
                groups[-1].append(nid)
            else:
                groups.append([nid])
            last = sig
        if len(groups) == len(ids):
            # No tie: one candidate, the renaming that sorts the replicas by signature.
            if all(nid == target for (_, nid), target in zip(ordered, ids, strict=True)):
                return state
            return permute(state, {nid: target for (_, nid), target in zip(ordered, ids, strict=True)})
        best: Any = None
        best_key = 0
        for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
            order = [x for group in choice for x in group]
            p = dict(zip(order, ids, strict=True))
            other = state if all(k == v for k, v in p.items()) else permute(state, p)
            key = hash(other)
            if best is None or key < best_key or (key == best_key and other != best and repr(other) < repr(best)):
                best, best_key = other, key
        return best

    return canonical
