"""The voter-set system model: exhaustive exploration at the defaults, broken variants caught
with short traces, and node-level reconfiguration checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kspec.model.core.explorer import explore, simulate
from kspec.model.raft.messages import ElectionTimeout, FetchResponse, TruncateLog
from kspec.model.raft.state import Follower, Leader
from kspec.model.voters import PROTOCOL
from kspec.model.voters.control import handle_records, voters_entry
from kspec.model.voters.node import (
    AddVoter,
    ReconfigRejected,
    RemoveVoter,
    Rules,
    make_step,
    new_voter_node,
    observe,
    step,
)
from kspec.model.voters.properties import control_state_rebuilds
from kspec.model.voters.system import Voters
from kspec.model.voters.variants import CATALOGUE

V3 = frozenset({(1, 1), (2, 2), (3, 3)})


@pytest.fixture(scope="module")
def default_run():  # type: ignore[no-untyped-def]
    return explore(PROTOCOL.make(), keep_witness_traces=False)


def test_defaults_hold_every_property(default_run) -> None:  # type: ignore[no-untyped-def]
    assert default_run.complete
    assert default_run.violations == []
    assert default_run.distinct_states > 1000


REACHED_AT_DEFAULTS = ["LeaderElected", "VoterAdded", "AddedVoterVotes", "VoterRemoved", "RemovedLeaderResigns",
                       "SnapshotTaken"]


@pytest.mark.parametrize("name", REACHED_AT_DEFAULTS)
def test_defaults_reach_witness(default_run, name: str) -> None:  # type: ignore[no-untyped-def]
    assert default_run.witnesses[name], name


@pytest.mark.xfail(strict=True, reason="needs a second epoch and three voters: not reached at the defaults yet")
def test_defaults_reach_truncation_witness(default_run) -> None:  # type: ignore[no-untyped-def]
    assert default_run.witnesses["UncommittedChangeTruncated"]


@pytest.mark.parametrize("variant", ["two-changes-in-flight", "effect-on-commit", "snapshot-without-voters"])
def test_variant_caught_with_short_trace(variant: str) -> None:
    _, prop, _, bounds = CATALOGUE[variant]
    result = explore(PROTOCOL.variants[variant](**bounds))
    names = [v.name for v in result.violations]
    assert names == [prop]
    assert len(result.violations[0].trace) - 1 <= 25


def _follower_with_uncommitted_change(rules: Rules):  # type: ignore[no-untyped-def]
    """Replica 2 follows 1 in epoch 1 and holds an uncommitted VotersRecord at offset 1."""
    n = new_voter_node(2, V3, bootstrap=True)
    from kspec.model.raft.messages import Entry

    log = (Entry(1, "leader_change"), voters_entry(1, V3 - {(3, 3)}))
    control = handle_records(n.control, 0, log)
    n = replace(n, log=log, control=control, role=Follower(2, 3), voters=frozenset({1, 2}))
    return n


def test_history_not_truncated_is_caught_at_node_level() -> None:
    """The new leader (3, epoch 2) answers with a diverging epoch: the follower truncates the
    VotersRecord away. Kafka's rules drop it from the history; the broken variant keeps it,
    which ControlStateRebuilds catches."""
    resp = FetchResponse(3, 2, 2, 3, "NONE", 2, (), None, (1, 1))
    for rules, ok in ((Rules(), True), (Rules(truncate_history=False), False)):
        n = _follower_with_uncommitted_change(rules)
        after, outputs = make_step(rules=rules)(n, resp)
        assert TruncateLog(1) in outputs
        assert after.voters == (frozenset({1, 2, 3}) if ok else frozenset({1, 2}))
        state = Voters((after,), initial_voters=frozenset({1, 2, 3}))
        assert control_state_rebuilds.holds(state) is ok


def test_reconfiguration_refused_where_kafka_refuses() -> None:
    n = new_voter_node(1, V3, bootstrap=True)
    _, out = step(n, AddVoter(4, 4))
    assert out == (ReconfigRejected("add_voter", 4, "NOT_LEADER_OR_FOLLOWER"),)
    leader = replace(n, role=Leader(1, 0), log=(), high_watermark=None)
    _, out = step(leader, AddVoter(4, 4))
    assert out == (ReconfigRejected("add_voter", 4, "REQUEST_TIMED_OUT"),)
    static = new_voter_node(1, V3, bootstrap=False)
    _, out = step(replace(static, role=Leader(1, 0), high_watermark=1), RemoveVoter(3, 3))
    assert out == (ReconfigRejected("remove_voter", 3, "UNSUPPORTED_VERSION"),)
    committed = replace(leader, high_watermark=1)
    _, out = step(committed, AddVoter(2, 2))
    assert out == (ReconfigRejected("add_voter", 2, "DUPLICATE_VOTER"),)
    _, out = step(committed, RemoveVoter(4, 4))
    assert out == (ReconfigRejected("remove_voter", 4, "VOTER_NOT_FOUND"),)
    after, out = step(committed, RemoveVoter(3, 3))
    assert after.voters == frozenset({1, 2}) and out[0].entries[0].kind == "voters"  # type: ignore[union-attr]
    # A second change while the first is uncommitted is refused.
    _, out = step(after, AddVoter(3, 3))
    assert out == (ReconfigRejected("add_voter", 3, "REQUEST_TIMED_OUT"),)


def test_observe_adds_voters_and_history() -> None:
    n, _ = step(new_voter_node(1, V3, bootstrap=True), ElectionTimeout())
    obs = observe(n)
    assert obs["voters"] == [1, 2, 3]
    assert obs["history"] == [[-1, [1, 2, 3]]]
    assert obs["role"] == "candidate"


def test_simulate_is_deterministic() -> None:
    a = simulate(PROTOCOL.make(), seed=7, steps=60, traces=3)
    b = simulate(PROTOCOL.make(), seed=7, steps=60, traces=3)
    assert a.violations == [] and a.steps == b.steps and a.traces == b.traces
