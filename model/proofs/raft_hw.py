"""The leader's high-watermark rule (RAFT-RULE-HW-MAJORITY, RAFT-RULE-HW-LEADER-EPOCH).

``rules.majority_end_offset`` picks the largest offset a majority of voters hold;
``rules.next_high_watermark`` moves the high watermark there only past the epoch start offset
and never backwards (Kafka's ``LeaderState.maybeUpdateHighWatermark``). The obligations prove
that the pick is exactly that offset, that the high watermark never regresses and only moves
under the own-epoch condition, and that it never exceeds what a majority holds while follower
end offsets only grow. Kafka's ``LeaderState.updateReplicaState`` accepts a follower fetch offset
lower than the last one (it only logs "non-monotonic update"); the refuted obligation shows the
last property then fails, so it rests on followers never losing records below the high watermark.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from kspec.model.proofs import encode_raft as enc
from kspec.model.proofs.obligation import Obligation, Query, Replay
from kspec.model.raft import rules

REPLICAS = 9


def _offsets(prefix: str) -> tuple[enc.Expr, ...]:
    return tuple(z3.Int(f"{prefix}_{i}") for i in range(REPLICAS))


def _holding(end_offsets: tuple[enc.Expr, ...], voters: enc.BitSet, offset: enc.Expr) -> enc.Expr:
    """How many voters have replicated up to ``offset``."""
    return enc.card(tuple(z3.And(v, e >= offset) for v, e in zip(voters, end_offsets, strict=True)))


def _held_by_majority(end_offsets: tuple[enc.Expr, ...], voters: enc.BitSet, hw: tuple[enc.Expr, enc.Expr]) -> enc.Expr:
    """A high watermark that is absent, or that a majority of voters have replicated up to."""
    return z3.Or(z3.Not(hw[0]), _holding(end_offsets, voters, hw[1]) >= enc.majority(enc.card(voters)))


def _end_offsets_json(model: Any, voters: enc.BitSet, offsets: tuple[enc.Expr, ...]) -> dict[str, int]:
    members = enc.bitset_value(model, voters)
    return {str(i): enc.int_value(model, offsets[i]) for i in sorted(members)}


def _majority_offset_query() -> Query:
    voters, ends = enc.bitset("voter", REPLICAS), _offsets("end")
    m = enc.majority_end_offset(ends, voters)
    need = enc.majority(enc.card(voters))
    premises = (*[e >= 0 for e in ends], enc.card(voters) >= 1)
    claim = z3.And(_holding(ends, voters, m) >= need, _holding(ends, voters, m + 1) < need)

    def decode(model: Any) -> dict[str, Any]:
        return {"voters": sorted(enc.bitset_value(model, voters)),
                "end_offsets": _end_offsets_json(model, voters, ends)}

    def replay(cex: dict[str, Any]) -> Replay:
        ends_py = {int(k): v for k, v in cex["end_offsets"].items()}
        picked = rules.majority_end_offset(ends_py, cex["voters"])
        need_py = rules.majority(len(cex["voters"]))
        holding = sum(1 for v in cex["voters"] if ends_py.get(v, 0) >= picked)
        above = sum(1 for v in cex["voters"] if ends_py.get(v, 0) > picked)
        return Replay(not (holding >= need_py and above < need_py),
                      {"majority_end_offset": picked, "holding": holding, "holding_above": above})

    return Query(premises, claim, decode, replay)


def _monotone_query() -> Query:
    current = (z3.Bool("hw_present"), z3.Int("hw"))
    m, start = z3.Int("majority_offset"), z3.Int("epoch_start_offset")
    new = enc.next_high_watermark(current, m, start)
    premises = (current[1] >= 0, m >= 0, start >= 0)
    never_regresses = z3.Implies(current[0], z3.And(new[0], new[1] >= current[1]))
    moves_only_past_epoch_start = z3.Implies(
        z3.Or(new[0] != current[0], new[1] != current[1]), z3.And(new[1] == m, m > start))
    claim = z3.And(never_regresses, moves_only_past_epoch_start)

    def decode(model: Any) -> dict[str, Any]:
        return {"current": enc.optional_value(model, current), "majority_offset": enc.int_value(model, m),
                "epoch_start_offset": enc.int_value(model, start)}

    def replay(cex: dict[str, Any]) -> Replay:
        cur = cex["current"]
        got = rules.next_high_watermark(cur, cex["majority_offset"], cex["epoch_start_offset"])
        regressed = cur is not None and (got is None or got < cur)
        moved_wrongly = got != cur and not (got == cex["majority_offset"] > cex["epoch_start_offset"])
        return Replay(regressed or moved_wrongly, {"next_high_watermark": got})

    return Query(premises, claim, decode, replay)


def _step_query(monotone_followers: bool) -> Query:
    """One leader update: end offsets change, the high watermark is recomputed."""
    voters = enc.bitset("voter", REPLICAS)
    before, after = _offsets("end"), _offsets("end_next")
    current = (z3.Bool("hw_present"), z3.Int("hw"))
    start = z3.Int("epoch_start_offset")
    m = enc.majority_end_offset(after, voters)
    new = enc.next_high_watermark(current, m, start)
    growth = [a >= b for a, b in zip(after, before, strict=True)] if monotone_followers else []
    premises = (*[e >= 0 for e in before + after], current[1] >= 0, start >= 0,
                _held_by_majority(before, voters, current), *growth)
    claim = _held_by_majority(after, voters, new)

    def decode(model: Any) -> dict[str, Any]:
        return {"voters": sorted(enc.bitset_value(model, voters)),
                "end_offsets_before": _end_offsets_json(model, voters, before),
                "end_offsets_after": _end_offsets_json(model, voters, after),
                "high_watermark": enc.optional_value(model, current),
                "epoch_start_offset": enc.int_value(model, start)}

    def replay(cex: dict[str, Any]) -> Replay:
        voters_py = cex["voters"]
        need = rules.majority(len(voters_py))

        def holds(ends: dict[str, int], hw: int | None) -> bool:
            return hw is None or sum(1 for v in voters_py if ends.get(str(v), 0) >= hw) >= need

        hw = cex["high_watermark"]
        picked = rules.majority_end_offset({int(k): v for k, v in cex["end_offsets_after"].items()}, voters_py)
        new_hw = rules.next_high_watermark(hw, picked, cex["epoch_start_offset"])
        return Replay(holds(cex["end_offsets_before"], hw) and not holds(cex["end_offsets_after"], new_hw),
                      {"majority_end_offset": picked, "next_high_watermark": new_hw,
                       "held_before": holds(cex["end_offsets_before"], hw),
                       "held_after": holds(cex["end_offsets_after"], new_hw)})

    return Query(premises, claim, decode, replay)


HW_MAJORITY_OFFSET = Obligation(
    id="RAFT-PROOF-HW-MAJORITY-OFFSET",
    name="majority_end_offset_is_largest_majority_offset",
    expected="proved",
    doc="For a non-empty voter set and non-negative end offsets, majority_end_offset is held by a "
        "majority of the voters (at least majority(|voters|) have an end offset >= it) and is the largest "
        "such offset (fewer than a majority have one above it).",
    rules=("RAFT-RULE-HW-MAJORITY",),
    bounds=f"voter sets within {REPLICAS} replicas; offsets unbounded",
    build=_majority_offset_query,
)

HW_MONOTONE = Obligation(
    id="RAFT-PROOF-HW-MONOTONE",
    name="high_watermark_never_regresses",
    expected="proved",
    doc="next_high_watermark never regresses (a present high watermark stays present and does not "
        "decrease) and changes only to the majority offset, only when that offset is past the "
        "leader's epoch start offset (a record of the leader's own epoch is committed).",
    rules=("RAFT-RULE-HW-LEADER-EPOCH",),
    bounds="unbounded (offsets are Ints)",
    build=_monotone_query,
)

HW_HELD_BY_MAJORITY = Obligation(
    id="RAFT-PROOF-HW-HELD-BY-MAJORITY",
    name="high_watermark_never_exceeds_majority",
    expected="proved",
    doc="Inductive step: if a majority of voters hold the high watermark, and follower end offsets "
        "only grow, then after recomputing it with majority_end_offset and next_high_watermark a "
        "majority still holds it. So the high watermark never exceeds what a majority holds.",
    rules=("RAFT-RULE-HW-MAJORITY", "RAFT-RULE-HW-LEADER-EPOCH"),
    bounds=f"voter sets within {REPLICAS} replicas; offsets unbounded; any run length (inductive)",
    build=lambda: _step_query(monotone_followers=True),
)

HW_REGRESSING_FOLLOWER = Obligation(
    id="RAFT-PROOF-HW-REGRESSING-FOLLOWER",
    name="high_watermark_with_regressing_follower",
    expected="refuted",
    doc="Without the premise that follower end offsets only grow (Kafka's LeaderState accepts a lower "
        "fetch offset with a warning), the high watermark can exceed what a majority holds: it never "
        "moves back, but the records under it are no longer on a majority.",
    rules=("RAFT-RULE-HW-MAJORITY", "RAFT-RULE-HW-LEADER-EPOCH"),
    bounds=f"voter sets within {REPLICAS} replicas; offsets unbounded",
    build=lambda: _step_query(monotone_followers=False),
)

OBLIGATIONS = (HW_MAJORITY_OFFSET, HW_MONOTONE, HW_HELD_BY_MAJORITY, HW_REGRESSING_FOLLOWER)
