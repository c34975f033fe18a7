"""The share coordinator's state-batch combiner (KIP-932, ``kspec.model.share.combiner``).

Bounds: at most ``MAX_BATCHES`` current and ``MAX_BATCHES`` new batches, every offset in
``0..OFFSETS-1``, a start offset in ``-1..OFFSETS`` (-1 is "not set"), delivery states
``0..4`` (AVAILABLE..ARCHIVED) and delivery counts any non-negative Int. Within these bounds the
proofs cover every input.

The encoding of :func:`~kspec.model.share.combiner.combine` evaluates it symbolically: prune
and clip every batch against the start offset, give each offset the highest-priority
(delivery count, delivery state) of the batches covering it, then walk the offsets in order
doing what ``combine``'s sweep does per elementary segment: extend the last output batch when
it ends just before and has the same state and count, otherwise append a new one. The output is
a symbolic list (``OFFSETS`` slots and a length). ``tests/proofs/test_proofs_share_encoding.py``
holds the encoding to ``combine`` on generated inputs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from kspec.model.proofs import encode_raft as enc
from kspec.model.proofs.obligation import ITE_TACTICS, Obligation, Query, Replay
from kspec.model.share.combiner import combine, combine_new_only
from kspec.model.share.records import ARCHIVED, AVAILABLE, StateBatch

OFFSETS = 8
MAX_BATCHES = 3


@dataclass(frozen=True, slots=True)
class SymBatch:
    """A symbolic input batch; ``present`` says whether the list has this many batches."""

    present: enc.Expr
    first_offset: enc.Expr
    last_offset: enc.Expr
    delivery_state: enc.Expr
    delivery_count: enc.Expr


@dataclass(frozen=True, slots=True)
class SymOutput:
    """A symbolic list of output batches: slots ``0..length-1`` are the list."""

    length: enc.Expr
    first_offset: tuple[enc.Expr, ...]
    last_offset: tuple[enc.Expr, ...]
    delivery_state: tuple[enc.Expr, ...]
    delivery_count: tuple[enc.Expr, ...]


def sym_batches(prefix: str, count: int = MAX_BATCHES) -> tuple[SymBatch, ...]:
    """Fresh variables for a list of at most ``count`` batches."""
    return tuple(SymBatch(z3.Bool(f"{prefix}{i}_present"), z3.Int(f"{prefix}{i}_first"), z3.Int(f"{prefix}{i}_last"),
                          z3.Int(f"{prefix}{i}_state"), z3.Int(f"{prefix}{i}_count")) for i in range(count))


def well_formed(batches: tuple[SymBatch, ...]) -> list[enc.Expr]:
    """Premises: a list is a prefix of its slots; each batch has 0 <= first <= last < OFFSETS,
    a delivery count >= 0 and a delivery state AVAILABLE..ARCHIVED."""
    out = [z3.Implies(later.present, earlier.present) for earlier, later in itertools.pairwise(batches)]
    out += [z3.Implies(b.present, z3.And(b.first_offset >= 0, b.first_offset <= b.last_offset,
                                         b.last_offset < OFFSETS, b.delivery_count >= 0,
                                         b.delivery_state >= AVAILABLE, b.delivery_state <= ARCHIVED))
            for b in batches]
    return out


def _higher(count_a: enc.Expr, state_a: enc.Expr, count_b: enc.Expr, state_b: enc.Expr) -> enc.Expr:
    """``combiner.priority(a) > combiner.priority(b)``: (count, state) lexicographically."""
    return z3.Or(count_a > count_b, z3.And(count_a == count_b, state_a > state_b))


def _covers(b: SymBatch, offset: int) -> enc.Expr:
    return z3.And(b.present, b.first_offset <= offset, offset <= b.last_offset)


def _above_start(start: enc.Expr, offset: int) -> enc.Expr:
    return z3.Or(start == -1, offset >= start)


def cells(start: enc.Expr, batches: tuple[SymBatch, ...]) -> list[tuple[enc.Expr, enc.Expr, enc.Expr]]:
    """Per offset: (covered, count, state) of the highest-priority pruned batch covering it.

    ``combiner.prune`` drops batches that end below the start offset and clips the one it cuts;
    on a single offset both come down to "the offset is at or above the start offset".
    """
    out = []
    for o in range(OFFSETS):
        covered: enc.Expr = z3.BoolVal(False)
        count: enc.Expr = z3.IntVal(0)
        state: enc.Expr = z3.IntVal(0)
        for b in batches:
            higher = _higher(b.delivery_count, b.delivery_state, count, state)
            wins = z3.And(_covers(b, o), z3.Or(z3.Not(covered), higher))
            count = z3.If(wins, b.delivery_count, count)
            state = z3.If(wins, b.delivery_state, state)
            covered = z3.Or(covered, _covers(b, o))
        out.append((z3.And(covered, _above_start(start, o)), count, state))
    return out


def encode_combine(start: enc.Expr, current: tuple[SymBatch, ...], new: tuple[SymBatch, ...]) -> SymOutput:
    """``combiner.combine(start, current, new)`` as a symbolic list (see the module docstring)."""
    length: enc.Expr = z3.IntVal(0)
    first = [z3.IntVal(0)] * OFFSETS
    last = [z3.IntVal(0)] * OFFSETS
    state = [z3.IntVal(0)] * OFFSETS
    count = [z3.IntVal(0)] * OFFSETS
    for o, (covered, c, s) in enumerate(cells(start, (*current, *new))):
        # "if out and out[-1].last_offset == lo - 1 and priority(out[-1]) == best": extend.
        tail_last = enc_pick(length - 1, last)
        tail_count, tail_state = enc_pick(length - 1, count), enc_pick(length - 1, state)
        extend = z3.And(covered, length > 0, tail_last == o - 1, tail_count == c, tail_state == s)
        append = z3.And(covered, z3.Not(extend))
        for j in range(OFFSETS):
            at_tail, at_new = length - 1 == j, length == j
            last[j] = z3.If(z3.Or(z3.And(extend, at_tail), z3.And(append, at_new)), o, last[j])
            first[j] = z3.If(z3.And(append, at_new), o, first[j])
            state[j] = z3.If(z3.And(append, at_new), s, state[j])
            count[j] = z3.If(z3.And(append, at_new), c, count[j])
        length = z3.If(append, length + 1, length)
    return SymOutput(length, tuple(first), tuple(last), tuple(state), tuple(count))


def enc_pick(index: enc.Expr, items: list[enc.Expr]) -> enc.Expr:
    """``items[index]`` for a symbolic index; 0 when out of range (never used there)."""
    out: enc.Expr = z3.IntVal(0)
    for i in reversed(range(len(items))):
        out = z3.If(index == i, items[i], out)
    return out


# --- the properties ------------------------------------------------------------------------------

def shape(start: enc.Expr, out: SymOutput) -> enc.Expr:
    """Sorted, non-overlapping, each batch non-empty and at or above the start offset, and
    neighbours that touch differ in state or count (maximal runs)."""
    parts = []
    for j in range(OFFSETS):
        present = out.length > j
        parts.append(z3.Implies(present, z3.And(out.first_offset[j] <= out.last_offset[j],
                                                z3.Or(start == -1, out.first_offset[j] >= start))))
        if j + 1 < OFFSETS:
            both = out.length > j + 1
            parts.append(z3.Implies(both, out.last_offset[j] < out.first_offset[j + 1]))
            parts.append(z3.Implies(z3.And(both, out.last_offset[j] + 1 == out.first_offset[j + 1]),
                                    z3.Or(out.delivery_state[j] != out.delivery_state[j + 1],
                                          out.delivery_count[j] != out.delivery_count[j + 1])))
    return z3.And(*parts)


def _output_covers(out: SymOutput, offset: int) -> list[tuple[enc.Expr, enc.Expr, enc.Expr]]:
    return [(z3.And(out.length > j, out.first_offset[j] <= offset, offset <= out.last_offset[j]),
             out.delivery_count[j], out.delivery_state[j]) for j in range(OFFSETS)]


def no_count_lost(start: enc.Expr, inputs: tuple[SymBatch, ...], out: SymOutput) -> enc.Expr:
    """Every offset at or above the start offset that an input batch covers is covered by an
    output batch whose (count, state) is at least that batch's; so no delivery count is lost."""
    parts = []
    for o in range(OFFSETS):
        covering = _output_covers(out, o)
        for b in inputs:
            kept = z3.Or(*[z3.And(c, z3.Not(_higher(b.delivery_count, b.delivery_state, cnt, st)))
                           for c, cnt, st in covering])
            parts.append(z3.Implies(z3.And(_covers(b, o), _above_start(start, o)), kept))
    return z3.And(*parts)


def nothing_invented(start: enc.Expr, inputs: tuple[SymBatch, ...], out: SymOutput) -> enc.Expr:
    """Every offset an output batch covers is at or above the start offset and covered by an
    input batch with exactly that state and count."""
    parts = []
    for o in range(OFFSETS):
        for c, cnt, st in _output_covers(out, o):
            source = z3.Or(*[z3.And(_covers(b, o), b.delivery_count == cnt, b.delivery_state == st) for b in inputs])
            parts.append(z3.Implies(c, z3.And(_above_start(start, o), source)))
    return z3.And(*parts)


# --- decoding and replay -------------------------------------------------------------------------

def concrete_batches(model: Any, batches: tuple[SymBatch, ...]) -> list[StateBatch]:
    """The Python batches a Z3 model gives a symbolic list."""
    out = []
    for b in batches:
        if not z3.is_true(model.eval(b.present, model_completion=True)):
            break
        out.append(StateBatch(enc.int_value(model, b.first_offset), enc.int_value(model, b.last_offset),
                              enc.int_value(model, b.delivery_state), enc.int_value(model, b.delivery_count)))
    return out


def concrete_output(model: Any, out: SymOutput) -> list[StateBatch]:
    """The Python batches a Z3 model gives a symbolic output list."""
    return [StateBatch(enc.int_value(model, out.first_offset[j]), enc.int_value(model, out.last_offset[j]),
                       enc.int_value(model, out.delivery_state[j]), enc.int_value(model, out.delivery_count[j]))
            for j in range(enc.int_value(model, out.length))]


def _batch_json(b: StateBatch) -> list[int]:
    return [b.first_offset, b.last_offset, b.delivery_state, b.delivery_count]


def _batch_of_json(doc: list[int]) -> StateBatch:
    return StateBatch(*doc)


def lost_counts(start: int, inputs: list[StateBatch], output: tuple[StateBatch, ...]) -> list[dict[str, int]]:
    """Offsets where the output keeps a lower (count, state) than some input batch: the Python
    check of ``no_count_lost``."""
    lost = []
    for b in inputs:
        for o in range(b.first_offset, b.last_offset + 1):
            if start != -1 and o < start:
                continue
            kept = [x for x in output if x.first_offset <= o <= x.last_offset
                    and (x.delivery_count, x.delivery_state) >= (b.delivery_count, b.delivery_state)]
            if not kept:
                lost.append({"offset": o, "delivery_count": b.delivery_count, "delivery_state": b.delivery_state})
    return lost


def invented(start: int, inputs: list[StateBatch], output: tuple[StateBatch, ...]) -> list[str]:
    """The Python check of ``nothing_invented``."""
    problems = []
    for x in output:
        for o in range(x.first_offset, x.last_offset + 1):
            if start != -1 and o < start:
                problems.append(f"offset {o} of {x} is below start offset {start}")
            elif not any(b.first_offset <= o <= b.last_offset and (b.delivery_state, b.delivery_count) == (
                    x.delivery_state, x.delivery_count) for b in inputs):
                problems.append(f"offset {o} of {x} has a state and count no input batch gives it")
    return problems


def shape_violations(start: int, output: tuple[StateBatch, ...]) -> list[str]:
    """The Python check of ``shape``."""
    problems = [f"{b} below start offset {start}" for b in output if start != -1 and b.first_offset < start]
    for a, b in itertools.pairwise(output):
        if a.last_offset >= b.first_offset:
            problems.append(f"{a} and {b} overlap or are unsorted")
        elif a.last_offset + 1 == b.first_offset and (a.delivery_state, a.delivery_count) == (
                b.delivery_state, b.delivery_count):
            problems.append(f"{a} and {b} should be one batch")
    return problems


# --- obligations ---------------------------------------------------------------------------------

def _query(kind: str) -> Query:
    start = z3.Int("start_offset")
    current, new = sym_batches("current"), sym_batches("new")
    new_only = kind == "new_only"
    out = encode_combine(start, () if new_only else current, new)
    premises = (*well_formed(current), *well_formed(new), start >= -1, start <= OFFSETS)
    inputs = (*current, *new)
    if kind == "shape":
        claim = shape(start, out)
    elif kind == "invented":
        claim = nothing_invented(start, inputs, out)
    else:
        claim = no_count_lost(start, inputs, out)

    def decode(model: Any) -> dict[str, Any]:
        return {"start_offset": enc.int_value(model, start),
                "current": [_batch_json(b) for b in concrete_batches(model, current)],
                "new": [_batch_json(b) for b in concrete_batches(model, new)],
                "encoded_output": [_batch_json(b) for b in concrete_output(model, out)]}

    def replay(cex: dict[str, Any]) -> Replay:
        s = cex["start_offset"]
        cur = [_batch_of_json(b) for b in cex["current"]]
        nw = [_batch_of_json(b) for b in cex["new"]]
        got = combine_new_only(s, nw) if new_only else combine(s, cur, nw)
        detail: dict[str, Any] = {"function": "combine_new_only" if new_only else "combine",
                                  "output": [_batch_json(b) for b in got]}
        if kind == "shape":
            detail["violations"] = shape_violations(s, got)
        elif kind == "invented":
            detail["violations"] = invented(s, [*cur, *nw], got)
        else:
            detail["lost"] = lost_counts(s, [*cur, *nw], got)
        return Replay(bool(detail.get("violations") or detail.get("lost")), detail)

    return Query(premises, claim, decode, replay)


_BOUNDS = (f"up to {MAX_BATCHES} current and {MAX_BATCHES} new batches, offsets 0..{OFFSETS - 1}, "
           f"start offset -1..{OFFSETS}, states 0..4, counts any Int >= 0")

COMBINE_SHAPE = Obligation(
    id="SHARE-PROOF-COMBINE-SHAPE",
    name="combine_output_sorted_non_overlapping",
    expected="proved",
    doc="combine(start, current, new) returns batches that are sorted by offset, non-overlapping, "
        "non-empty, at or above the start offset (when it is set), and maximal: two touching "
        "batches differ in delivery state or count.",
    rules=("SHARE-RULE-COMBINE-PRUNE", "SHARE-RULE-COMBINE-CLIP", "SHARE-RULE-COMBINE-MERGE"),
    bounds=_BOUNDS,
    build=lambda: _query("shape"),
    tactics=ITE_TACTICS,
)

COMBINE_COUNTS = Obligation(
    id="SHARE-PROOF-COMBINE-NO-COUNT-LOST",
    name="combine_loses_no_delivery_count",
    expected="proved",
    doc="combine(start, current, new) loses no delivery count: every offset at or above the start "
        "offset that a current or new batch covers is covered by an output batch whose (count, "
        "state) is at least that batch's.",
    rules=("SHARE-RULE-COMBINE-PRIORITY", "SHARE-RULE-COMBINE-PRUNE"),
    bounds=_BOUNDS,
    build=lambda: _query("counts"),
    tactics=ITE_TACTICS,
)

COMBINE_NOTHING_INVENTED = Obligation(
    id="SHARE-PROOF-COMBINE-NOTHING-INVENTED",
    name="combine_invents_nothing",
    expected="proved",
    doc="combine(start, current, new) invents nothing: every offset an output batch covers is at or "
        "above the start offset and carries the state and count of a current or new batch covering it.",
    rules=("SHARE-RULE-COMBINE-PRIORITY", "SHARE-RULE-COMBINE-PRUNE", "SHARE-RULE-COMBINE-CLIP"),
    bounds=_BOUNDS,
    build=lambda: _query("invented"),
    tactics=ITE_TACTICS,
)

COMBINE_NEW_ONLY = Obligation(
    id="SHARE-PROOF-COMBINE-NEW-ONLY-LOSES-COUNT",
    name="new_batches_alone_lose_delivery_counts",
    expected="refuted",
    doc="Writing a snapshot from the new batches alone (combine_new_only, the bug in the KIP-932 seed: "
        "'the delivery count for batch 2 is lost') loses the delivery count of a current batch "
        "the write did not mention.",
    rules=("SHARE-RULE-COMBINE-PRIORITY",),
    bounds=_BOUNDS,
    build=lambda: _query("new_only"),
    tactics=ITE_TACTICS,
)

OBLIGATIONS = (COMBINE_SHAPE, COMBINE_COUNTS, COMBINE_NOTHING_INVENTED, COMBINE_NEW_ONLY)
