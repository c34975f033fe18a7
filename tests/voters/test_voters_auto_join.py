"""VOTERS-RULE-AUTO-JOIN (KIP-853 auto-join, Kafka 4.2+) at the node level and in a small
exploration: an observer follower with auto-join on asks its leader to remove a voter with its
id under another directory, else to add itself; the leader judges the request as a client's.
"""

from __future__ import annotations

from kspec.model.core.evolve import evolve as replace
from kspec.model.core.explorer import explore
from kspec.model.raft.messages import AppendLog
from kspec.model.raft.state import Follower, Leader, Unattached
from kspec.model.voters.control import load_snapshot
from kspec.model.voters.node import (
    AddVoter,
    AddVoterRequest,
    ReconfigRejected,
    RemoveVoterRequest,
    Snapshot,
    UpdateVoterSetDue,
    VoterNode,
    new_voter_node,
    step,
)
from kspec.model.voters.system import VotersModel

V3 = frozenset({(1, 1), (2, 2), (3, 3)})


def _following(node_id: int = 4, voters: frozenset[tuple[int, int]] = V3, **kw: object) -> VoterNode:
    """Replica ``node_id`` formatted with ``voters`` (kraft.version 1), following leader 1 in epoch 1."""
    return replace(new_voter_node(node_id, voters, bootstrap=True, **kw), role=Follower(1, 1))  # type: ignore[arg-type]


def test_an_observer_follower_asks_its_leader_to_add_it() -> None:
    node = _following(auto_join=True)
    after, out = step(node, UpdateVoterSetDue())
    assert out == (AddVoterRequest(4, 1, 4, 4),) and after == node  # the timer changes nothing else


def test_its_id_under_another_directory_is_removed_first() -> None:
    # replica 4's disk was replaced: the set holds (4, 104), its directory now is 4
    old = frozenset({(1, 1), (2, 2), (4, 104)})
    node = _following(voters=old, auto_join=True)
    node = replace(node, control=load_snapshot(frozenset(), Snapshot(0, 1, old)))
    assert step(node, UpdateVoterSetDue())[1] == (RemoveVoterRequest(4, 1, 4, 104),)


def test_nothing_is_sent_without_auto_join_a_leader_kraft_version_1_or_outside_the_set() -> None:
    assert step(_following(), UpdateVoterSetDue())[1] == ()  # auto-join off (Kafka's default)
    assert step(_following(node_id=2, auto_join=True), UpdateVoterSetDue())[1] == ()  # a voter
    leaderless = replace(_following(auto_join=True), role=Unattached(1))
    assert step(leaderless, UpdateVoterSetDue())[1] == ()
    static = replace(new_voter_node(4, V3, bootstrap=False, auto_join=True), role=Follower(1, 1))
    assert static.kraft_version == 0 and step(static, UpdateVoterSetDue())[1] == ()


def test_the_leader_judges_it_as_a_clients_add_voter() -> None:
    model = VotersModel(hosts=2, voters=1, auto_join=True, symmetry=False)
    started = model.init_states()[0]
    leader = started.node(1)
    assert isinstance(leader.role, Leader)
    request = AddVoterRequest(2, 1, 2, 2)
    assert step(leader, request) == step(leader, AddVoter(2, 2))  # type: ignore[arg-type]
    after, out = step(leader, request)  # type: ignore[arg-type]
    assert any(isinstance(o, AppendLog) for o in out) and 2 in after.voters
    # at a follower: NOT_LEADER_OR_FOLLOWER, as a client's request
    assert step(started.node(2), request)[1] == (  # type: ignore[arg-type]
        ReconfigRejected("add_voter", 2, "NOT_LEADER_OR_FOLLOWER"),)


def test_exploration_reaches_the_witness_only_with_auto_join() -> None:
    on = explore(VotersModel(hosts=2, voters=1, auto_join=True, max_fetches=2))
    off = explore(VotersModel(hosts=2, voters=1, max_fetches=2))
    assert on.violations == [] and on.witnesses.get("ObserverAutoJoins") is True
    assert "ObserverAutoJoins" not in off.witnesses and on.distinct_states > off.distinct_states
