"""Z3 encodings of the KRaft rules in :mod:`kspec.model.raft.rules`, one per Python function.

Each encoding mirrors its Python function branch for branch, and
``tests/proofs/test_proofs_raft_encodings.py`` holds every one to the function on generated
inputs (substitute concrete values, simplify, compare), so the obligations are about the code
that runs. Two ways to encode a set of replicas are used:

* **bit vectors** — a set is a tuple of Z3 Bools over replicas ``0..n-1`` for a fixed universe
  size ``n``; every voter set of at most ``n`` replicas is one assignment, so a proof covers all
  cluster sizes up to ``n``;
* **Venn regions** — for a handful of named sets, one non-negative Int per region of their Venn
  diagram. Every assignment is realised by finite sets (one fresh replica per unit of each
  region) and the rules depend on sets only through sizes of intersections, so a proof over
  regions covers every cluster size: it is unbounded.

Offsets are non-negative Ints (Kafka offsets never go below 0). An optional high watermark
(``int | None`` in Python) is a pair ``(present: Bool, value: Int)``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

# Z3 terms are untyped to mypy; the alias says which ones are meant.
Expr = Any
BitSet = tuple[Expr, ...]


def majority(voter_count: Expr) -> Expr:
    """``rules.majority``: ``voter_count // 2 + 1`` (Z3's Int division floors for counts >= 0)."""
    return voter_count / 2 + 1


# --- bit-vector sets -------------------------------------------------------------------------

def bitset(name: str, size: int) -> BitSet:
    """A symbolic set of replicas ``0..size-1``: one Bool per replica."""
    return tuple(z3.Bool(f"{name}_{i}") for i in range(size))


def card(members: BitSet) -> Expr:
    """The number of replicas in a bit-vector set."""
    return z3.Sum([z3.If(b, 1, 0) for b in members]) if members else z3.IntVal(0)


def intersect(*sets: BitSet) -> BitSet:
    """Replica-wise intersection of bit-vector sets of the same size."""
    return tuple(z3.And(*bits) for bits in zip(*sets, strict=True))


def is_quorum(members: BitSet, voters: BitSet) -> Expr:
    """``rules.is_quorum`` over bit-vector sets: ``|members & voters| >= majority(|voters|)``."""
    return card(intersect(members, voters)) >= majority(card(voters))


def bitset_value(model: Any, members: BitSet) -> frozenset[int]:
    """The concrete set a Z3 model gives a bit-vector set."""
    return frozenset(i for i, b in enumerate(members) if z3.is_true(model.eval(b, model_completion=True)))


def bitset_of(values: frozenset[int] | set[int], size: int) -> BitSet:
    """A concrete set as a constant bit-vector set (for differential tests)."""
    return tuple(z3.BoolVal(i in values) for i in range(size))


# --- Venn regions ----------------------------------------------------------------------------

class Venn:
    """The Venn diagram of a few named sets of replicas, one Int count per region.

    A region is a tuple of Bools (membership in each named set, in ``names`` order); the
    region outside every set is left out, it plays no part in any rule.
    """

    def __init__(self, prefix: str, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.regions: dict[tuple[bool, ...], Expr] = {
            inside: z3.Int(prefix + "_" + "".join(n if b else "_" for n, b in zip(self.names, inside, strict=True)))
            for inside in itertools.product((False, True), repeat=len(self.names))
            if any(inside)
        }

    def domain(self) -> list[Expr]:
        """Premises: every region holds a non-negative number of replicas."""
        return [r >= 0 for r in self.regions.values()]

    def count(self, where: Callable[[Mapping[str, bool]], bool]) -> Expr:
        """The number of replicas whose membership satisfies ``where``."""
        parts = [r for inside, r in self.regions.items() if where(dict(zip(self.names, inside, strict=True)))]
        return z3.Sum(parts) if parts else z3.IntVal(0)

    def size(self, *names: str) -> Expr:
        """The size of the intersection of the named sets."""
        return self.count(lambda m: all(m[n] for n in names))

    def is_quorum(self, members: str, voters: str) -> Expr:
        """``rules.is_quorum(members, voters)`` over region counts."""
        return self.size(members, voters) >= majority(self.size(voters))

    def substitution(self, sets: Mapping[str, frozenset[int]]) -> list[tuple[Expr, Expr]]:
        """Region counts of concrete sets, as a Z3 substitution (for differential tests)."""
        universe = frozenset().union(*sets.values())
        counts = {inside: 0 for inside in self.regions}
        for replica in universe:
            inside = tuple(replica in sets[n] for n in self.names)
            counts[inside] += 1
        return [(self.regions[inside], z3.IntVal(n)) for inside, n in counts.items()]

    def concrete(self, model: Any, limit: int = 1000) -> dict[str, frozenset[int]]:
        """Concrete sets realising a model's region counts: fresh replica ids, region by region."""
        members: dict[str, set[int]] = {n: set() for n in self.names}
        next_id = 0
        for inside, region in self.regions.items():
            n = model.eval(region, model_completion=True).as_long()
            if n > limit:
                raise ValueError(f"region {region} holds {n} replicas, more than {limit}")
            for _ in range(n):
                for name, present in zip(self.names, inside, strict=True):
                    if present:
                        members[name].add(next_id)
                next_id += 1
        return {n: frozenset(s) for n, s in members.items()}


# --- log comparison and high watermark -----------------------------------------------------

def log_up_to_date(candidate_last_epoch: Expr, candidate_end_offset: Expr,
                   own_last_epoch: Expr, own_end_offset: Expr) -> Expr:
    """``rules.log_up_to_date``: lexicographic (last epoch, end offset) comparison."""
    return z3.If(candidate_last_epoch != own_last_epoch,
                 candidate_last_epoch > own_last_epoch,
                 candidate_end_offset >= own_end_offset)


def _sorted_descending(values: Sequence[Expr]) -> list[Expr]:
    """A sorting network (odd-even transposition) over symbolic Ints, largest first."""
    out = list(values)
    for rnd in range(len(out)):
        for i in range(rnd % 2, len(out) - 1, 2):
            a, b = out[i], out[i + 1]
            out[i], out[i + 1] = z3.If(a >= b, a, b), z3.If(a >= b, b, a)
    return out


def majority_end_offset(end_offsets: Sequence[Expr], voters: BitSet) -> Expr:
    """``rules.majority_end_offset`` over replicas ``0..n-1``.

    ``end_offsets[i]`` is replica i's end offset (0 when Python's mapping has no entry), and
    must be >= 0: non-voters are sorted below every voter as -1, so the element at index
    ``majority(|voters|) - 1`` of the descending order is the one Python picks.
    """
    values = [z3.If(member, offset, -1) for member, offset in zip(voters, end_offsets, strict=True)]
    ordered = _sorted_descending(values)
    count = card(voters)
    index = majority(count) - 1
    picked: Expr = z3.IntVal(0)
    for i in reversed(range(len(ordered))):
        picked = z3.If(index == i, ordered[i], picked)
    return z3.If(count == 0, 0, picked)


def next_high_watermark(current: tuple[Expr, Expr], majority_offset: Expr,
                        epoch_start_offset: Expr) -> tuple[Expr, Expr]:
    """``rules.next_high_watermark``; ``current`` and the result are ``(present, value)``."""
    present, value = current
    keep = z3.Or(majority_offset <= epoch_start_offset, z3.And(present, majority_offset <= value))
    return z3.If(keep, present, True), z3.If(keep, value, majority_offset)


def optional_value(model: Any, pair: tuple[Expr, Expr]) -> int | None:
    """The ``int | None`` a Z3 model gives an optional pair."""
    present = z3.is_true(model.eval(pair[0], model_completion=True))
    return model.eval(pair[1], model_completion=True).as_long() if present else None


def int_value(model: Any, term: Expr) -> int:
    """The Python int a Z3 model gives an Int term."""
    return int(model.eval(term, model_completion=True).as_long())
