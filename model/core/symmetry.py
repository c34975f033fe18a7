"""Symmetry reduction: the representative of a state's orbit under renamings of replica ids.

A protocol gives the ids that may be renamed, an id-free ``signature`` of a replica and a
``permute(state, renaming)``. Only renamings that sort the renamed replicas by signature are
tried (ties try every order), which is one renaming for most states; the representative is the
candidate with the smallest hash (then repr). Signatures do not change under renaming, so every
state of an orbit yields the same candidates and the same representative (TLC's SYMMETRY).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Collection, Mapping
from typing import Any


def canonical_under_renaming(
    renamed: Collection[int],
    signature: Callable[[Any], Any],
    permute: Callable[[Any, Mapping[int, int]], Any],
) -> Callable[[Any], Any]:
    """A function from a state (with ``.nodes`` having ``.id``) to its orbit's representative."""
    ids = sorted(renamed)
    members = frozenset(renamed)

    def canonical(state: Any) -> Any:
        ordered = sorted((n for n in state.nodes if n.id in members), key=lambda n: (signature(n), n.id))
        groups: list[list[int]] = []
        last: Any = object()
        for n in ordered:
            sig = signature(n)
            if groups and sig == last:
                groups[-1].append(n.id)
            else:
                groups.append([n.id])
            last = sig
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
