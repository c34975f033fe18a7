"""Quorum intersection across voter-set changes (RAFT-RULE-MAJORITY, KIP-853).

KIP-853 changes the voter set one voter at a time because majorities of two voter sets that
differ by one voter always share a voter: an old-set leader and a new-set leader cannot both be
elected, and a record committed under one set is held by someone the other set must ask. The
obligations prove that for every cluster size and show it fails for a two-voter change.
"""

from __future__ import annotations

from typing import Any

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from kspec.model.proofs import encode_raft as enc
from kspec.model.proofs.obligation import Obligation, Query, Replay
from kspec.model.raft import rules

SETS = ("V1", "V2", "Q1", "Q2")
BOUNDED_REPLICAS = 8


def _symmetric_difference(venn: enc.Venn) -> Any:
    return venn.count(lambda m: m["V1"] != m["V2"])


def _replay_disjoint_quorums(cex: dict[str, Any]) -> Replay:
    """Run the two quorums through ``rules.is_quorum`` and intersect them in Python."""
    v1, v2 = frozenset(cex["old_voters"]), frozenset(cex["new_voters"])
    q1, q2 = frozenset(cex["old_quorum"]), frozenset(cex["new_quorum"])
    old_ok, new_ok = rules.is_quorum(q1, v1), rules.is_quorum(q2, v2)
    shared = sorted(q1 & q2)
    changed = len(v1 ^ v2)
    return Replay(
        confirmed=old_ok and new_ok and not shared and changed == cex["voters_changed"],
        detail={"is_quorum(old_quorum, old_voters)": old_ok, "is_quorum(new_quorum, new_voters)": new_ok,
                "shared_members": shared, "voters_changed": changed},
    )


def _venn_query(max_changed: int) -> Query:
    venn = enc.Venn("n", SETS)
    changed = _symmetric_difference(venn)
    premises = (
        *venn.domain(),
        changed <= max_changed,
        venn.is_quorum("Q1", "V1"),
        venn.is_quorum("Q2", "V2"),
    )
    # Proved form: a shared member that is a voter of both sets. A counterexample to the weaker
    # "the quorums share any member" is the stronger one, so the refuted form asks that.
    claim = venn.size("Q1", "Q2", "V1", "V2") >= 1 if max_changed <= 1 else venn.size("Q1", "Q2") >= 1

    def decode(model: Any) -> dict[str, Any]:
        sets = venn.concrete(model)
        return {"old_voters": sorted(sets["V1"]), "new_voters": sorted(sets["V2"]),
                "old_quorum": sorted(sets["Q1"]), "new_quorum": sorted(sets["Q2"]),
                "voters_changed": enc.int_value(model, changed)}

    return Query(premises, claim, decode, _replay_disjoint_quorums)


def _bitset_query() -> Query:
    n = BOUNDED_REPLICAS
    v1, v2, q1, q2 = (enc.bitset(name, n) for name in SETS)
    changed = enc.card(tuple(z3.Xor(a, b) for a, b in zip(v1, v2, strict=True)))
    premises = (changed <= 1, enc.is_quorum(q1, v1), enc.is_quorum(q2, v2))
    claim = enc.card(enc.intersect(q1, q2, v1, v2)) >= 1

    def decode(model: Any) -> dict[str, Any]:
        return {"old_voters": sorted(enc.bitset_value(model, v1)), "new_voters": sorted(enc.bitset_value(model, v2)),
                "old_quorum": sorted(enc.bitset_value(model, q1)), "new_quorum": sorted(enc.bitset_value(model, q2)),
                "voters_changed": enc.int_value(model, changed)}

    return Query(premises, claim, decode, _replay_disjoint_quorums)


QUORUM_ONE_CHANGE = Obligation(
    id="RAFT-PROOF-QUORUM-ONE-CHANGE",
    name="quorum_intersection_one_voter_change",
    expected="proved",
    doc="For any voter sets V1, V2 whose symmetric difference has at most one voter (this includes "
        "V1 = V2), any Q1 with is_quorum(Q1, V1) and any Q2 with is_quorum(Q2, V2) share a replica "
        "that is a voter of both sets. Encoded over Venn-region counts, so it holds for every "
        "cluster size.",
    rules=("RAFT-RULE-MAJORITY",),
    bounds="unbounded (Venn-region cardinalities)",
    build=lambda: _venn_query(1),
)

QUORUM_ONE_CHANGE_BOUNDED = Obligation(
    id="RAFT-PROOF-QUORUM-ONE-CHANGE-BITSET",
    name="quorum_intersection_one_voter_change_bitset",
    expected="proved",
    doc="The same claim as RAFT-PROOF-QUORUM-ONE-CHANGE over a second, independent encoding: voter "
        f"sets and quorums as Bool vectors over replicas 0..{BOUNDED_REPLICAS - 1}, so every voter set "
        f"of at most {BOUNDED_REPLICAS} replicas.",
    rules=("RAFT-RULE-MAJORITY",),
    bounds=f"voter sets within {BOUNDED_REPLICAS} replicas",
    build=_bitset_query,
)

QUORUM_TWO_CHANGE = Obligation(
    id="RAFT-PROOF-QUORUM-TWO-CHANGE",
    name="quorum_intersection_two_voter_change",
    expected="refuted",
    doc="Changing two voters at once (symmetric difference of two) breaks intersection: there are "
        "voter sets V1, V2 and quorums Q1 of V1 and Q2 of V2 with no replica in common, so two leaders "
        "could be elected in one epoch. This is why KIP-853 adds or removes one voter at a time.",
    rules=("RAFT-RULE-MAJORITY",),
    bounds="unbounded (Venn-region cardinalities)",
    build=lambda: _venn_query(2),
)

OBLIGATIONS = (QUORUM_ONE_CHANGE, QUORUM_ONE_CHANGE_BOUNDED, QUORUM_TWO_CHANGE)
