"""RAFT-RULE-LONE-VOTER: Kafka's ``KafkaRaftClient.initialize`` (3.7-3.9) makes a lone voter
leader at the first start and at every restart, without a timer."""

from __future__ import annotations

from dataclasses import replace

from kspec.model.raft.messages import AppendLog, Entry, PersistElection, Restart
from kspec.model.raft.node import initialize, new_node, step
from kspec.model.raft.state import Down, Election, Leader, Unattached
from kspec.model.raft.system import RaftModel, Reboot


def test_the_lone_voter_leads_epoch_one_from_the_start() -> None:
    s = RaftModel(voters=1, observers=1, symmetry=False).init_states()[0]
    lone, observer = s.node(1), s.node(2)
    assert lone.role == Leader(1, epoch_start=0) and lone.log == (Entry(1, "leader_change"),)
    assert lone.high_watermark == 1
    assert observer.role == Unattached(0)  # an observer never stands
    assert s.elected == {(1, 1)}
    assert s.committed == {(0, Entry(1, "leader_change"), 1)}


def test_a_restarted_lone_leader_leads_the_next_epoch() -> None:
    model = RaftModel(voters=1, symmetry=False)
    s = model.next_state(model.init_states()[0], Reboot(1))
    assert s is not None
    # Kafka: resigned(1) from the quorum-state file, then transitionToCandidate -> leader(2).
    assert s.node(1).role == Leader(2, epoch_start=1) and s.node(1).epoch == 2
    assert [e.epoch for e in s.node(1).log] == [1, 2]


def test_a_restarted_lone_candidate_wins_its_own_vote() -> None:
    down = replace(new_node(1, frozenset({1})), role=Down(Election(3, voted_for=1)))
    after, out = step(down, Restart())
    assert after.role == Leader(3, epoch_start=0)  # the same epoch: onBecomeCandidate wins at once
    assert out == (PersistElection(3, None, 1), AppendLog(0, (Entry(3, "leader_change"),)))


def test_initialize_leaves_other_replicas_alone() -> None:
    for voters in (frozenset({1, 2}), frozenset({1, 2, 3})):
        node = new_node(1, voters)
        assert initialize(node) == (node, ())
    observer = new_node(2, frozenset({1}))
    assert initialize(observer) == (observer, ())
