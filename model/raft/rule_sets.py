"""KRaft's rule sets, named after the KIP that introduced them, and which release runs which.

The model is the protocol as the KIPs define it (spec/raft.md, "Rule sets"). A KIP that changed
the rules in a release is a rule set; a release picks its rule set by its version and by
nothing else. Anything else a release does differently is a divergence
(``conformance/deviations/raft.toml``), never a rule set.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RuleSet:
    """One rule set: its name, the KIP, the first Kafka release that ships it, and the model
    bounds that select it."""

    name: str
    kip: str
    since: tuple[int, int]
    bounds: tuple[tuple[str, object], ...]
    summary: str


RULE_SETS: tuple[RuleSet, ...] = (
    RuleSet("kip-595", "KIP-595", (3, 0), (("pre_vote", False), ("kip853", False)),
            "elections without pre-vote: a timed-out voter becomes a candidate at once; Vote, "
            "BeginQuorumEpoch and EndQuorumEpoch are voter-only requests"),
    RuleSet("kip-853", "KIP-853", (3, 8), (("pre_vote", False), ("kip853", True)),
            "KIP-595's elections, but any replica handles a vote from any replica (the voter set may be "
            "stale) and BeginQuorumEpoch and EndQuorumEpoch reach observers too (spec/raft.md, Rule sets)"),
    RuleSet("kip-996", "KIP-996", (4, 0), (("pre_vote", True), ("kip853", True)),
            "pre-vote always on: only a prospective that won its pre-vote becomes a candidate; "
            "KIP-853's open vote (spec/raft.md, Rule sets)"),
)

BY_NAME: dict[str, RuleSet] = {r.name: r for r in RULE_SETS}


def parse_version(version: str) -> tuple[int, int]:
    """``(major, minor)`` of a release such as ``4.0.2``; ValueError if it is not one."""
    parts = version.split(".")
    if len(parts) < 2 or not all(p.isdigit() for p in parts[:3]):
        raise ValueError(f"not a Kafka release version: {version!r}")
    return int(parts[0]), int(parts[1])


def rule_set_for(version: str) -> RuleSet:
    """The rule set a Kafka release runs: the newest whose KIP shipped at or before it."""
    vt = parse_version(version)
    chosen = RULE_SETS[0]
    for rule_set in RULE_SETS:
        if vt >= rule_set.since:
            chosen = rule_set
    return chosen


def rule_set_of(pre_vote: bool, kip853: bool = False) -> RuleSet:
    """The rule set the model's ``pre_vote`` and ``kip853`` bounds select (pre-vote implies
    KIP-853's vote rules: Kafka shipped KIP-996 after KIP-853)."""
    if pre_vote:
        return BY_NAME["kip-996"]
    return BY_NAME["kip-853" if kip853 else "kip-595"]
