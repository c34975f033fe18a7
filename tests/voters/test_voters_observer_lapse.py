"""VOTERS-RULE-OBSERVER-FETCH-TIMEOUT at the node level: an observer follower whose fetch timer
lapsed asks a bootstrap server, and goes back to its leader once an answer names it; K7
(KAFKA-19354, Kafka 3.9.0-4.1.2) keeps asking bootstrap servers until the leader itself answers.
"""

from __future__ import annotations

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft.messages import FetchDue, FetchRequest, FetchResponse, FetchTimeout, VoteRequest
from kspec.model.raft.state import Follower
from kspec.model.voters.node import VoterNode, make_step, new_voter_node, step
from kspec.model.voters.variants import rules_for

V3 = frozenset({(1, 1), (2, 2), (3, 3)})
K7 = make_step(rules=rules_for("kafka-observer-stuck-on-bootstrap"))


def _observer_following(leader: int = 1) -> VoterNode:
    """Replica 4, an observer of {1, 2, 3} (its bootstrap servers), following ``leader`` in epoch 1."""
    return replace(new_voter_node(4, V3, bootstrap=True), role=Follower(1, leader))


def _fetches(outputs: tuple[object, ...]) -> list[int]:
    return [o.dst for o in outputs if isinstance(o, FetchRequest)]


def test_lapse_asks_a_bootstrap_server_and_an_answer_naming_the_leader_ends_it() -> None:
    node = _observer_following()
    assert _fetches(step(node, FetchDue(2))[1]) == []  # a follower fetches from its leader only
    lapsed, out = step(node, FetchTimeout())
    assert lapsed.fetch_lapsed and out == () and lapsed.role == node.role  # no election at an observer
    assert _fetches(step(lapsed, FetchDue(2))[1]) == [2]
    assert _fetches(step(lapsed, FetchDue(1))[1]) == [1]  # the leader is a bootstrap server too
    # replica 2 (a follower of 1) answers NOT_LEADER_OR_FOLLOWER naming leader 1 in epoch 1
    hint = FetchResponse(2, 4, 1, 1, "NOT_LEADER_OR_FOLLOWER", 0)
    back, _ = step(lapsed, hint)
    assert not back.fetch_lapsed and back.role == node.role
    assert _fetches(step(back, FetchDue(2))[1]) == [] and _fetches(step(back, FetchDue(1))[1]) == [1]
    # K7: the hint does not end the lapse; the leader's own successful answer does
    stuck, _ = K7(lapsed, hint)
    assert stuck.fetch_lapsed and _fetches(K7(stuck, FetchDue(2))[1]) == [2]
    ok = FetchResponse(1, 4, 1, 1, "NONE", 0, (), None)
    assert not K7(stuck, ok)[0].fetch_lapsed and not step(lapsed, ok)[0].fetch_lapsed


def test_lapse_to_a_leader_outside_the_bootstrap_servers() -> None:
    """A leader added by AddVoter is not a bootstrap server: a lapsed observer does not fetch
    from it until an answer names it (Kafka 3.9-4.1 never do, KAFKA-19354)."""
    lapsed = step(_observer_following(leader=5), FetchTimeout())[0]
    assert _fetches(step(lapsed, FetchDue(5))[1]) == [] and _fetches(step(lapsed, FetchDue(3))[1]) == [3]
    back = step(lapsed, FetchResponse(3, 4, 1, 5, "NOT_LEADER_OR_FOLLOWER", 0))[0]
    assert _fetches(step(back, FetchDue(5))[1]) == [5]
    assert _fetches(K7(K7(lapsed, FetchResponse(3, 4, 1, 5, "NOT_LEADER_OR_FOLLOWER", 0))[0], FetchDue(5))[1]) == []


def test_lapse_ends_with_the_role_and_a_voter_has_none() -> None:
    lapsed = step(_observer_following(), FetchTimeout())[0]
    moved = step(lapsed, VoteRequest(2, 4, 2, 0, 0, False))[0]
    assert moved.epoch == 2 and not moved.fetch_lapsed
    voter = replace(new_voter_node(2, V3, bootstrap=True), role=Follower(1, 1))
    assert not step(voter, FetchTimeout())[0].fetch_lapsed  # a voter follower stands for election
