"""Kafka's two voter-set deviations as broken variants of the model (spec/voters.md, Kafka
deviations K1 and K2; docs/findings.md).

- ``testdata/kafka_deviations.txt`` (datadriven): log scripts through the control functions under
  the reference rules and under each Kafka variant. The variants' answers are the ones Kafka
  3.8.1-4.3.1 gives to the same scripts (``tests/kafka/test_kafka_voters.py`` asserts them on
  Kafka's own ``KRaftControlRecordStateMachine``).
- The explorer catches each variant (``test_voters_model.py``: the shortest violation at the
  defaults is VOTERS-INV-REBUILD, 13 steps for K1, 9 for K2). The consequences a user sees are
  VOTERS-INV-CURRENT-SET violations, found by the explorer at small bounds and stored as traces
  (``testdata/kafka_k*.trace``): under K1 a replica ends with an EMPTY voter set, under K2 a
  removed replica still counts itself a voter. The reference model takes the same actions and
  keeps every invariant.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from datadriven import Case, run_file

from kspec.model.raft.messages import Entry
from kspec.model.voters import control, make
from kspec.model.voters.history import voter_ids
from kspec.model.voters.node import Rules
from kspec.model.voters.properties import voters_from_log_end
from kspec.model.voters.variants import CATALOGUE, VARIANTS, rules_for

DATA = Path(__file__).parent / "testdata"
K1, K2 = "kafka-trim-at-snapshot-end", "kafka-truncate-keeps-next-offset"


def _voters(text: str) -> frozenset[tuple[int, int]]:
    return frozenset((int(r), int(r)) for r in text.split(",") if r)


def _show(v: frozenset[tuple[int, int]] | None) -> str:
    return "none" if v is None else "{" + ",".join(str(r) for r, _ in sorted(v)) + "}"


def _record(text: str, epoch: int) -> Entry:
    """``LC`` (LeaderChange), ``D`` (data), ``KV1`` (KRaftVersionRecord 1), ``V:1,2,3`` (VotersRecord)."""
    if text.startswith("V:"):
        return control.voters_entry(epoch, _voters(text[2:]))
    if text.startswith("KV"):
        return control.kraft_version_entry(epoch, int(text[2:]))
    return Entry(epoch, "leader_change" if text == "LC" else "data")


class Replica:
    """One replica's log, latest snapshot and control state, changed as KafkaRaftClient changes
    them (append, diverging-epoch truncation, createSnapshot, restart) under ``rules``."""

    def __init__(self, case: Case) -> None:
        self.rules = rules_for("+".join({"k1": K1, "k2": K2, "k1+k2": f"{K1}+{K2}"}.get(r, r)
                                        for r in [case.arg("rules", "")] if r != "reference"))
        boot = case.arg("bootstrap", "")
        self.static = _voters(case.arg("static", ""))
        self.snapshot = control.Snapshot(0, 1, _voters(boot)) if boot else None
        self.log: list[Entry] = []
        self.state = control.rebuild(self.static, self.snapshot, ())

    def run(self, case: Case) -> str:
        r, c = self.rules, case.command
        if c == "append":
            offset, epoch = int(case.arg("offset")), int(case.arg("epoch", "1"))
            entries = tuple(_record(t, epoch) for t in case.arg("records").split("/"))
            self.log[offset:] = entries
            read = control.handle_records if r.truncate_moves_next_offset else control.read_log
            self.state = read(self.state, offset, entries)
        elif c == "truncate":
            offset = int(case.arg("offset"))
            del self.log[offset:]
            self.state = control.truncate_to(self.state, offset, keep_next_offset=not r.truncate_moves_next_offset)
        elif c == "snapshot":
            self.snapshot = control.take_snapshot(self.state, int(case.arg("end")))
            self.state = control.trim_to(self.state, self.snapshot, at_end_offset=not r.trim_before_snapshot_end)
        elif c == "restart":
            self.state = control.rebuild(self.static, self.snapshot, tuple(self.log))
        else:
            raise ValueError(f"{case.path}:{case.line}: unknown command {c!r}")
        s = self.state
        hist = " ".join(f"{o}:{_show(v)}" for o, v in s.voters.entries)
        return (f"voters={_show(s.last_voter_set())} kraft.version={s.last_kraft_version()} history=[{hist}] "
                f"next={s.next_offset} log-end={len(self.log)}")


def test_kafka_deviation_scripts(rewrite: bool) -> None:
    replica: dict[str, Replica] = {}

    def handler(case: Case) -> str:
        if case.command == "replica":
            replica["r"] = Replica(case)
            return f"ok: {'reference rules' if replica['r'].rules == Rules() else 'variant ' + case.arg('rules')}"
        return replica["r"].run(case)

    run_file(DATA / "kafka_deviations.txt", handler, rewrite)


def test_rules_for_combines_and_names_unknown_variants() -> None:
    both = rules_for(f"{K1}+{K2}")
    assert not both.trim_before_snapshot_end and not both.truncate_moves_next_offset
    assert both == Rules(trim_before_snapshot_end=False, truncate_moves_next_offset=False)
    assert rules_for(None) == rules_for("") == Rules()
    assert rules_for(K1) == CATALOGUE[K1][0]
    with pytest.raises(ValueError, match=r"^unknown voters model variant 'K3' \(known: .*kafka-trim-at-snapshot-end"):
        rules_for(f"{K1}+K3")


def _replay(model: Any, path: Path) -> list[Any]:
    """The states of a stored trace (one action ``repr`` a line, as ``explore`` found it) taken
    by ``model`` from its initial state; an AssertionError at an action it does not enable."""
    states = [model.init_states()[0]]
    for line in path.read_text().splitlines():
        text = line.split("  # ")[0].strip()
        if not text or text.startswith("#"):
            continue
        enabled = {repr(a): a for a in model.actions(states[-1])}
        assert text in enabled, f"{path.name}: {text} is not enabled"
        nxt = model.next_state(states[-1], enabled[text])
        assert nxt is not None, f"{path.name}: {text} is refused"
        states.append(nxt)
    return states


def _header(path: Path) -> dict[str, str]:
    words = path.read_text().splitlines()[0].lstrip("# ").replace("bounds=", "").split()
    return dict(w.split("=", 1) for w in words)


@pytest.mark.parametrize("name", ["kafka_k1_empty_voter_set.trace", "kafka_k2_removed_voter_kept.trace"])
def test_consequence_trace_breaks_only_the_variant(name: str) -> None:
    """Each trace is the explorer's shortest path to VOTERS-INV-CURRENT-SET under its variant
    (``kspec explore voters BOUNDS --variant NAME --keep-going``; the header names both). Under
    the variant the property holds until the last step; the reference model takes the same
    actions and keeps every invariant."""
    path = DATA / name
    head = _header(path)
    bounds = {k: int(v) for k, v in head.items() if k not in ("variant", "property")}
    broken = _replay(VARIANTS[head["variant"]](**bounds), path)
    assert [voters_from_log_end.check(s) for s in broken].index(False) == len(broken) - 1
    reference = make(**bounds)
    invariants = [p for p in reference.properties() if p.kind == "always"]
    for state in _replay(reference, path):
        assert [p.name for p in invariants if not p.check(state)] == []
    last = broken[-1]
    wrong = [n for n in last.nodes if n.voters != _log_end_ids(n, last)]
    assert len(wrong) == 1, wrong
    if head["variant"] == K1:
        # K1: replica 1 (leader of epoch 1, then follower of 2) snapshots at N = 4, its high
        # watermark, while its own uncommitted RemoveVoter record sits at 4; the new leader's
        # diverging epoch truncates it to 4: its voter set is EMPTY, its log says {1,2,3}
        # (offsets 0-2: the first leader's LeaderChange, KRaftVersionRecord and copy of the
        # bootstrap set, VOTERS-RULE-FIRST-LEADER; 3: the added voter).
        (n,) = wrong
        assert n.voters == frozenset() and n.snapshot.end_offset == len(n.log) == 4
        assert [e.kind for e in n.log] == ["leader_change", "kraft_version", "voters", "voters"]
    else:
        # K2: replica 1, removed by the new leader's VotersRecord at 4, read neither that record
        # nor the LeaderChange at 3 (both below its stale nextOffset 5): it still counts itself
        # a voter of {1,2,3}. (Offsets 0-2: the first leader's records, VOTERS-RULE-FIRST-LEADER.)
        (n,) = wrong
        assert n.id == 1 and n.voters == frozenset({1, 2, 3}) and _log_end_ids(n, last) == frozenset({2, 3})
        assert n.control.next_offset == 5 == len(n.log)


def _log_end_ids(n: Any, state: Any) -> frozenset[int]:
    records = [e for e in n.log if e.kind == control.VOTERS]
    return voter_ids(control.voters_of(records[-1])) if records else state.initial_voters


def test_k3_leader_outside_a_one_voter_set_never_fails_check_quorum() -> None:
    """VOTERS-KAFKA-K3: leader 1 of {1,2} removes itself; its set is {2} and it is not in it. No
    fetch from 2 since the check-quorum timer was reset: the protocol's leader resigns
    (RAFT-RULE-CHECK-QUORUM over the set in force), Kafka's (``timeUntilCheckQuorumExpires``:
    never with one voter) stays leader."""
    from kspec.model.raft.messages import CheckQuorumTimeout
    from kspec.model.raft.state import Leader, Resigned
    from kspec.model.voters.node import RemoveVoter, make_step, step

    started = make(hosts=3, voters=2, symmetry=False).init_states()[0]
    leader, _ = step(started.node(1), RemoveVoter(1, 1))
    assert leader.voters == frozenset({2}) and isinstance(leader.role, Leader)
    # no fetch in the current check-quorum period (RAFT-RULE-CHECK-QUORUM-PERIOD: not renewed)
    leader = replace(leader, role=replace(leader.role, fetched=frozenset(), renewed=False))
    resigned, outputs = step(leader, CheckQuorumTimeout())
    assert isinstance(resigned.role, Resigned) and outputs
    kafka = make_step(rules=rules_for("kafka-no-check-quorum-with-one-voter"))
    assert kafka(leader, CheckQuorumTimeout()) == (leader, ())
