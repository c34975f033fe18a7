"""The voter-set history's truncations (KIP-853, ``kspec.model.voters.history``).

A KRaft replica keeps the voter sets of the VotersRecords between its snapshot and its log end
(VOTERS-HIST-*, ``spec/voters.md`` section 3). When the log is truncated at ``t`` on a diverging
epoch the history drops its entries at or after ``t`` (VOTERS-HIST-TRUNCATE-NEW); when a snapshot
is taken it drops the entries at or before the snapshot offset but the last of them
(VOTERS-HIST-TRUNCATE-OLD). The obligations prove that the truncated history answers every
lookup as the history rebuilt from the truncated log does, that snapshot trimming changes no
lookup at or after the snapshot offset, and that an off-by-one truncation (the bug class of "the
history is not truncated with the log") is caught.

Bounds: histories built by ``VoterSetHistory.add_at`` from the empty history (every add
accepted: offsets strictly increase from the bootstrap offset -1; any voter set follows any
other, VOTERS-HIST-ADD-OVERLAP) with at most ``MAX_ENTRIES`` entries at offsets
``-1..MAX_OFFSET``, voter sets any non-empty subsets (Kafka's ``VoterSet`` is never empty) and
the static set any subset of the ``len(KEYS)`` replica keys in ``KEYS``; the truncation offset
and the lookup offset are any Int.

The history is a symbolic list: ``MAX_ENTRIES`` (offset, voter set) slots and a length, a voter
set a bit-vector over ``KEYS``. Each function of ``history.py`` has one encoding here that
follows it branch for branch (the floor lookup stops at the first greater offset as the Python
loop breaks; the truncations filter and slice as the Python does), and
``tests/proofs/test_proofs_voters_history.py`` holds every encoding to the Python on generated
histories.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from kspec.model.proofs.obligation import ITE_TACTICS, Obligation, Query, Replay
from kspec.model.voters.history import (
    BOOTSTRAP_OFFSET,
    HistoryError,
    LogHistory,
    ReplicaKey,
    VoterSet,
    VoterSetHistory,
)

Expr = Any

MAX_ENTRIES = 6
MAX_OFFSET = 15
# Five replica keys; replica 0 appears with two directory ids, so a set can swap a replica's
# directory (a key leaves and one joins) as KIP-853's UpdateVoter/remove-then-add does.
KEYS: tuple[ReplicaKey, ...] = ((0, 0), (1, 0), (2, 0), (3, 0), (0, 1))
WIDTH = len(KEYS)


@dataclass(frozen=True, slots=True)
class SymHistory:
    """A symbolic ``VoterSetHistory``: the static set and slots ``0..length-1`` of entries."""

    static: Expr
    length: Expr
    offsets: tuple[Expr, ...]
    voters: tuple[Expr, ...]


# --- voter sets as bit-vectors -------------------------------------------------------------------

def voter_set(name: str) -> Expr:
    """A symbolic voter set over ``KEYS``."""
    return z3.BitVec(name, WIDTH)


def voter_set_of(voters: VoterSet) -> Expr:
    """A concrete voter set (keys from ``KEYS``) as a constant bit-vector."""
    unknown = voters - frozenset(KEYS)
    if unknown:
        raise ValueError(f"voter set has keys outside KEYS: {sorted(unknown)}")
    return z3.BitVecVal(sum(1 << i for i, k in enumerate(KEYS) if k in voters), WIDTH)


def voter_set_value(model: Any, term: Expr) -> VoterSet:
    """The voter set a Z3 model gives a bit-vector."""
    bits = model.eval(term, model_completion=True).as_long()
    return frozenset(k for i, k in enumerate(KEYS) if bits >> i & 1)


def _at_most_one(bits: Expr) -> Expr:
    return bits & (bits - 1) == 0


def has_overlapping_majority(a: Expr, b: Expr) -> Expr:
    """``history.has_overlapping_majority``: at most one key leaves and at most one joins."""
    return z3.And(_at_most_one(a & ~b), _at_most_one(b & ~a))


# --- the history -----------------------------------------------------------------------------------

def _pick(index: Expr, items: tuple[Expr, ...], default: Expr) -> Expr:
    """``items[index]`` for a symbolic index; ``default`` out of range."""
    out = default
    for i in reversed(range(len(items))):
        out = z3.If(index == i, items[i], out)
    return out


def _zero_slots() -> tuple[tuple[Expr, ...], tuple[Expr, ...]]:
    return (z3.IntVal(0),) * MAX_ENTRIES, (z3.BitVecVal(0, WIDTH),) * MAX_ENTRIES


def empty(static: Expr) -> SymHistory:
    """``VoterSetHistory(static)``."""
    offsets, voters = _zero_slots()
    return SymHistory(static, z3.IntVal(0), offsets, voters)


def select(cond: Expr, a: SymHistory, b: SymHistory) -> SymHistory:
    """``a if cond else b``."""
    return SymHistory(z3.If(cond, a.static, b.static), z3.If(cond, a.length, b.length),
                      tuple(z3.If(cond, x, y) for x, y in zip(a.offsets, b.offsets, strict=True)),
                      tuple(z3.If(cond, x, y) for x, y in zip(a.voters, b.voters, strict=True)))


def last_entry(h: SymHistory) -> tuple[Expr, Expr, Expr]:
    """``last_entry()`` as (present, offset, voter set)."""
    return (h.length > 0, _pick(h.length - 1, h.offsets, z3.IntVal(0)),
            _pick(h.length - 1, h.voters, z3.BitVecVal(0, WIDTH)))


def add_at(h: SymHistory, offset: Expr, voters: Expr) -> tuple[Expr, SymHistory]:
    """``VoterSetHistory.add_at``: (accepted, the history after). A refused add (Python raises
    HistoryError) leaves the history as it was. The caller keeps ``length < MAX_ENTRIES``."""
    present, last_offset, _ = last_entry(h)
    # VOTERS-HIST-ADD-ORDER (LogHistory.add_at with min_offset = BOOTSTRAP_OFFSET); any voter
    # set is taken (VOTERS-HIST-ADD-OVERLAP: no overlap check on read, KAFKA-17973).
    accepted = z3.And(offset >= BOOTSTRAP_OFFSET, z3.Not(z3.And(present, offset <= last_offset)))
    at = [z3.And(accepted, h.length == j) for j in range(MAX_ENTRIES)]
    after = SymHistory(h.static, z3.If(accepted, h.length + 1, h.length),
                       tuple(z3.If(a, offset, o) for a, o in zip(at, h.offsets, strict=True)),
                       tuple(z3.If(a, voters, v) for a, v in zip(at, h.voters, strict=True)))
    return accepted, after


def value_at_or_before(h: SymHistory, offset: Expr) -> tuple[Expr, Expr]:
    """``value_at_or_before(offset)`` as (present, voter set): the Python loop, which keeps the
    last entry seen and breaks at the first entry past ``offset``. Never the static set."""
    present: Expr = z3.BoolVal(False)
    found: Expr = z3.BitVecVal(0, WIDTH)
    stopped: Expr = z3.BoolVal(False)
    for i in range(MAX_ENTRIES):
        active = z3.And(h.length > i, z3.Not(stopped))
        past = h.offsets[i] > offset
        take = z3.And(active, z3.Not(past))
        found = z3.If(take, h.voters[i], found)
        present = z3.Or(present, take)
        stopped = z3.Or(stopped, z3.And(active, past))
    return present, found


def last_value(h: SymHistory) -> Expr:
    """``last_value()``: the last entry's voter set, or the static set when there is none."""
    present, _, voters = last_entry(h)
    return z3.If(present, voters, h.static)


def _filter(h: SymHistory, keep: Any) -> SymHistory:
    """``tuple(e for e in entries if keep(e[0]))`` as a compacted symbolic list."""
    length: Expr = z3.IntVal(0)
    offsets, voters = map(list, _zero_slots())
    for i in range(MAX_ENTRIES):
        take = z3.And(h.length > i, keep(h.offsets[i]))
        for j in range(MAX_ENTRIES):
            at = z3.And(take, length == j)
            offsets[j] = z3.If(at, h.offsets[i], offsets[j])
            voters[j] = z3.If(at, h.voters[i], voters[j])
        length = z3.If(take, length + 1, length)
    return SymHistory(h.static, length, tuple(offsets), tuple(voters))


def truncate_new_entries(h: SymHistory, end_offset: Expr) -> SymHistory:
    """``truncate_new_entries(end_offset)``: keep the entries with offset < ``end_offset``.
    (Python returns ``self`` when nothing goes: the same value.)"""
    return _filter(h, lambda o: o < end_offset)


def truncate_new_entries_off_by_one(h: SymHistory, end_offset: Expr) -> SymHistory:
    """The broken truncation: keeps the entries with offset < ``end_offset + 1``, so an entry
    *at* the new log end survives (:func:`python_truncate_new_entries_off_by_one`)."""
    return _filter(h, lambda o: o < end_offset + 1)


def truncate_old_entries(h: SymHistory, start_offset: Expr) -> SymHistory:
    """``truncate_old_entries(start_offset)``: ``older`` are the entries at or before
    ``start_offset``; with more than one of them, slice from the last of them on."""
    count: Expr = z3.IntVal(0)
    last_older: Expr = z3.IntVal(0)
    for i in range(MAX_ENTRIES):
        older = z3.And(h.length > i, h.offsets[i] <= start_offset)
        count = z3.If(older, count + 1, count)
        last_older = z3.If(older, i, last_older)
    shift = z3.If(count <= 1, 0, last_older)
    zero_offset, zero_voters = z3.IntVal(0), z3.BitVecVal(0, WIDTH)
    return SymHistory(h.static, h.length - shift,
                      tuple(_pick(j + shift, h.offsets, zero_offset) for j in range(MAX_ENTRIES)),
                      tuple(_pick(j + shift, h.voters, zero_voters) for j in range(MAX_ENTRIES)))


def concrete_history(history: VoterSetHistory) -> SymHistory:
    """A Python history as a constant symbolic one (for differential tests)."""
    entries = history.entries
    if len(entries) > MAX_ENTRIES:
        raise ValueError(f"history has {len(entries)} entries, the encoding holds {MAX_ENTRIES}")
    offsets, voters = map(list, _zero_slots())
    for j, (o, v) in enumerate(entries):
        offsets[j], voters[j] = z3.IntVal(o), voter_set_of(v)
    return SymHistory(voter_set_of(history.static), z3.IntVal(len(entries)), tuple(offsets), tuple(voters))


def history_value(model: Any, h: SymHistory) -> VoterSetHistory:
    """The Python history a Z3 model gives a symbolic one."""
    length = model.eval(h.length, model_completion=True).as_long()
    entries = tuple((model.eval(h.offsets[j], model_completion=True).as_long(), voter_set_value(model, h.voters[j]))
                    for j in range(length))
    return VoterSetHistory(voter_set_value(model, h.static), LogHistory(entries, BOOTSTRAP_OFFSET))


# --- the Python side of the broken variant and of the reference ----------------------------------

def python_truncate_new_entries_off_by_one(history: VoterSetHistory, end_offset: int) -> VoterSetHistory:
    """The off-by-one truncation in Python: drops the entries at or after ``end_offset + 1``.

    A pre-release draft of Kafka's ``VoterSetHistory.truncateTo`` (apache/kafka commit
    04fcf4cd) did this with ``votersHistory.tailMap(endOffset, false).clear()``; the released
    ``TreeMapLogHistory.truncateNewEntries`` uses ``tailMap(endOffset, true)``.
    """
    kept = tuple(e for e in history.entries if e[0] < end_offset + 1)
    return VoterSetHistory(history.static, LogHistory(kept, history.history.min_offset))


def rebuild(static: VoterSet, additions: list[tuple[int, VoterSet]], log_end: int | None = None) -> VoterSetHistory:
    """The history built by ``add_at`` from the VotersRecords of a log, truncated at ``log_end``
    (only the records at offsets < ``log_end``) when it is given."""
    h = VoterSetHistory(static)
    for offset, voters in additions:
        if log_end is None or offset < log_end:
            h = h.add_at(offset, voters)
    return h


# --- obligations -----------------------------------------------------------------------------------

Kind = Literal["new", "old", "off_by_one"]


@dataclass(frozen=True, slots=True)
class Additions:
    """The symbolic VotersRecords a history is built from: slots ``0..count-1``."""

    count: Expr
    offsets: tuple[Expr, ...]
    voters: tuple[Expr, ...]


def sym_additions(prefix: str = "add") -> Additions:
    """Fresh variables for at most ``MAX_ENTRIES`` additions."""
    return Additions(z3.Int(f"{prefix}_count"), tuple(z3.Int(f"{prefix}{i}_offset") for i in range(MAX_ENTRIES)),
                     tuple(voter_set(f"{prefix}{i}_voters") for i in range(MAX_ENTRIES)))


def build(static: Expr, additions: Additions, include: Any = None) -> tuple[list[Expr], SymHistory]:
    """``add_at`` folded over the additions (those whose offset ``include`` accepts, when given)
    from ``VoterSetHistory(static)``: the acceptance of each add, and the history."""
    h = empty(static)
    accepted = []
    for i in range(MAX_ENTRIES):
        used = additions.count > i
        if include is not None:
            used = z3.And(used, include(additions.offsets[i]))
        ok, after = add_at(h, additions.offsets[i], additions.voters[i])
        accepted.append(z3.Implies(used, ok))
        h = select(used, after, h)
    return accepted, h


def _bounds(additions: Additions) -> list[Expr]:
    out = [additions.count >= 0, additions.count <= MAX_ENTRIES]
    out += [z3.And(o >= BOOTSTRAP_OFFSET, o <= MAX_OFFSET) for o in additions.offsets]
    # Kafka's VoterSet constructor refuses an empty voter set, so no VotersRecord carries one.
    out += [v != 0 for v in additions.voters]
    return out


def _same_lookup(a: tuple[Expr, Expr], b: tuple[Expr, Expr]) -> Expr:
    return z3.And(a[0] == b[0], z3.Implies(a[0], a[1] == b[1]))


def _voters_json(voters: VoterSet | None) -> list[list[int]] | None:
    return None if voters is None else [list(k) for k in sorted(voters)]


def _voters_of_json(doc: list[list[int]]) -> VoterSet:
    return frozenset((r, d) for r, d in doc)


def _query(kind: Kind) -> Query:
    static = voter_set("static")
    additions = sym_additions()
    cut, lookup = z3.Int("truncate_at"), z3.Int("lookup_offset")
    accepted, h = build(static, additions)
    premises = (*_bounds(additions), *accepted)

    if kind == "old":
        trimmed = truncate_old_entries(h, cut)
        claim = z3.And(
            z3.Implies(lookup >= cut, _same_lookup(value_at_or_before(trimmed, lookup), value_at_or_before(h, lookup))),
            last_value(trimmed) == last_value(h),
            (trimmed.length > 0) == (h.length > 0))
        reference = h
    else:
        truncate = truncate_new_entries if kind == "new" else truncate_new_entries_off_by_one
        trimmed = truncate(h, cut)
        rebuilt_ok, reference = build(static, additions, include=lambda o: o < cut)
        claim = z3.And(
            *rebuilt_ok,
            _same_lookup(value_at_or_before(trimmed, lookup), value_at_or_before(reference, lookup)),
            last_value(trimmed) == last_value(reference),
            # Below the cut the truncation changes nothing.
            z3.Implies(lookup < cut, _same_lookup(value_at_or_before(trimmed, lookup), value_at_or_before(h, lookup))))

    def decode(model: Any) -> dict[str, Any]:
        count = model.eval(additions.count, model_completion=True).as_long()
        got = value_at_or_before(trimmed, lookup)
        present = z3.is_true(model.eval(got[0], model_completion=True))
        return {
            "static": _voters_json(voter_set_value(model, static)),
            "additions": [[model.eval(additions.offsets[i], model_completion=True).as_long(),
                           _voters_json(voter_set_value(model, additions.voters[i]))] for i in range(count)],
            "truncate_at": model.eval(cut, model_completion=True).as_long(),
            "lookup_offset": model.eval(lookup, model_completion=True).as_long(),
            "encoded_truncated": [[o, _voters_json(v)] for o, v in history_value(model, trimmed).entries],
            "encoded_truncated_lookup": _voters_json(voter_set_value(model, got[1]) if present else None),
            "encoded_reference": [[o, _voters_json(v)] for o, v in history_value(model, reference).entries],
        }

    return Query(premises, claim, decode, lambda cex: replay(kind, cex))


def replay(kind: Kind, cex: dict[str, Any]) -> Replay:
    """Run a counterexample through ``kspec.model.voters.history`` (and, for the off-by-one
    variant, through :func:`python_truncate_new_entries_off_by_one`): confirmed when the Python
    code shows the lookup difference the encoding found."""
    static = _voters_of_json(cex["static"])
    additions = [(o, _voters_of_json(v)) for o, v in cex["additions"]]
    cut, at = cex["truncate_at"], cex["lookup_offset"]
    try:
        h = rebuild(static, additions)
    except HistoryError as err:
        return Replay(False, {"error": f"the additions are not a history add_at builds: {err}"})

    def show(x: VoterSetHistory) -> dict[str, Any]:
        return {"entries": [[o, _voters_json(v)] for o, v in x.entries],
                "value_at_or_before": _voters_json(x.value_at_or_before(at)),
                "last_value": _voters_json(x.last_value())}

    if kind == "old":
        trimmed = h.truncate_old_entries(cut)
        t, o = show(trimmed), show(h)
        differs = at >= cut and t["value_at_or_before"] != o["value_at_or_before"]
        differs = differs or t["last_value"] != o["last_value"] or bool(trimmed.entries) != bool(h.entries)
        return Replay(differs, {"truncate_old_entries": t, "original": o})

    try:
        reference = rebuild(static, additions, cut)
    except HistoryError as err:
        return Replay(True, {"error": f"the truncated log does not rebuild: {err}"})
    real = h.truncate_new_entries(cut)
    ref, got_real, orig = show(reference), show(real), show(h)

    def wrong(x: dict[str, Any]) -> bool:
        below: bool = at < cut and x["value_at_or_before"] != orig["value_at_or_before"]
        return bool(x["value_at_or_before"] != ref["value_at_or_before"] or x["last_value"] != ref["last_value"]
                    or below)

    detail: dict[str, Any] = {"rebuilt_from_truncated_log": ref, "truncate_new_entries": got_real}
    if kind == "new":
        return Replay(wrong(got_real), detail)
    broken = show(python_truncate_new_entries_off_by_one(h, cut))
    detail["truncate_new_entries_off_by_one"] = broken
    # The broken function shows the difference and the real one does not.
    return Replay(wrong(broken) and not wrong(got_real), detail)


_BOUNDS = (f"histories built by add_at with up to {MAX_ENTRIES} entries at offsets {BOOTSTRAP_OFFSET}..{MAX_OFFSET}, "
           f"non-empty voter sets and any static set over {WIDTH} replica keys; truncation and lookup offsets any Int")

HISTORY_TRUNCATE = Obligation(
    id="VOTERS-PROOF-HISTORY-TRUNCATE",
    name="history_truncation_matches_truncated_log",
    expected="proved",
    doc="For every history built by add_at and every truncation offset t, truncate_new_entries(t) answers "
        "value_at_or_before(o) for every o, and last_value() (the static set when no entry is left), as the "
        "history rebuilt by add_at from the log truncated at t (the VotersRecords at offsets < t) does; "
        "that rebuild is accepted; and lookups below t are unchanged.",
    rules=("VOTERS-HIST-TRUNCATE-NEW", "VOTERS-HIST-AT", "VOTERS-HIST-LAST", "VOTERS-CTRL-TRUNCATE"),
    bounds=_BOUNDS,
    build=lambda: _query("new"),
    tactics=ITE_TACTICS,
)

HISTORY_TRIM = Obligation(
    id="VOTERS-PROOF-HISTORY-TRIM",
    name="snapshot_trim_keeps_lookups_from_snapshot_offset",
    expected="proved",
    doc="For every history built by add_at and every snapshot offset s, truncate_old_entries(s) answers "
        "value_at_or_before(o) for every o >= s as the untrimmed history does, keeps last_value(), and "
        "keeps at least one entry when there was one.",
    rules=("VOTERS-HIST-TRUNCATE-OLD", "VOTERS-HIST-AT", "VOTERS-HIST-LAST", "VOTERS-CTRL-TRIM"),
    bounds=_BOUNDS,
    build=lambda: _query("old"),
    tactics=ITE_TACTICS,
)

HISTORY_TRUNCATE_OFF_BY_ONE = Obligation(
    id="VOTERS-PROOF-HISTORY-TRUNCATE-OFF-BY-ONE",
    name="off_by_one_truncation_keeps_a_truncated_voter_set",
    expected="refuted",
    doc="A truncation that drops the entries at offset >= t+1 instead of >= t (an exclusive tailMap, as in "
        "a pre-release draft of Kafka's VoterSetHistory.truncateTo) keeps the VotersRecord at the new log "
        "end t: the voter set at t is one the truncated log no longer has. Replayed through a Python "
        "version of the broken function and the real truncate_new_entries.",
    rules=("VOTERS-HIST-TRUNCATE-NEW", "VOTERS-CTRL-TRUNCATE"),
    bounds=_BOUNDS,
    build=lambda: _query("off_by_one"),
    tactics=ITE_TACTICS,
)

OBLIGATIONS = (HISTORY_TRUNCATE, HISTORY_TRIM, HISTORY_TRUNCATE_OFF_BY_ONE)
