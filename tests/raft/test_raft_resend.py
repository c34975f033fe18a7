"""RAFT-RULE-RESEND and RAFT-MODEL-ONE-RESEND (spec/raft.md): who sends what again, to whom, and
when the system enables it."""

from __future__ import annotations

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft import node as node_mod
from kspec.model.raft.messages import (
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    ElectionTimeout,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    FetchRequest,
    ResendDue,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Candidate, Follower, Leader, Resigned
from kspec.model.raft.system import Deliver, Drop, Fire, RaftModel

VOTERS = frozenset({1, 2, 3})


def _leader() -> node_mod.Node:
    node = replace(node_mod.new_node(1, VOTERS, kip853=False), resends=True)
    node, _ = node_mod.step(node, ElectionTimeout())
    node, _ = node_mod.step(node, VoteResponse(2, 1, 1, True, None))
    assert isinstance(node.role, Leader)
    return node


def test_leader_resends_begin_epoch_only_to_voters_that_have_not_acknowledged() -> None:
    leader = _leader()
    assert node_mod.unanswered(leader) == [2, 3]
    acked, _ = node_mod.step(leader, BeginQuorumEpochResponse(3, 1, 1, 1))  # acknowledged by answer
    fetched, _ = node_mod.step(leader, FetchRequest(2, 1, 1, 0, 0))  # acknowledged by a fetch
    assert node_mod.unanswered(acked) == [2] and node_mod.unanswered(fetched) == [3]
    assert node_mod.step(acked, ResendDue(2))[1] == (BeginQuorumEpochRequest(1, 2, 1),)
    assert node_mod.step(acked, ResendDue(3)) == (acked, ())
    assert ResendDue(3) not in node_mod.enabled_inputs(acked) and ResendDue(2) in node_mod.enabled_inputs(acked)
    # an error answer acknowledges nothing
    refused, _ = node_mod.step(leader, BeginQuorumEpochResponse(3, 1, 1, 1, "INCONSISTENT_VOTER_SET"))
    assert node_mod.unanswered(refused) == [2, 3]


def test_resigned_candidate_resend_their_own_request_and_others_nothing() -> None:
    resigned = replace(_leader(), role=Resigned(1))
    assert node_mod.step(resigned, ResendDue(2))[1] == (EndQuorumEpochRequest(1, 2, 1, ()),)
    done, _ = node_mod.step(resigned, EndQuorumEpochResponse(2, 1, 1, None))
    assert node_mod.unanswered(done) == [3]
    candidate = replace(node_mod.new_node(1, VOTERS, kip853=False), resends=True)
    candidate, _ = node_mod.step(candidate, ElectionTimeout())
    assert isinstance(candidate.role, Candidate)
    assert node_mod.step(candidate, ResendDue(3))[1] == (VoteRequest(1, 3, 1, 0, 0, False),)
    backing = replace(candidate, role=replace(candidate.role, backing_off=True))
    follower = replace(candidate, role=Follower(1, 2))
    for quiet in (backing, follower, replace(_leader(), resends=False)):
        assert node_mod.unanswered(quiet) == [] and node_mod.step(quiet, ResendDue(2)) == (quiet, ())


def test_resend_waits_for_the_first_copy_or_its_answer_to_be_lost() -> None:
    model = RaftModel(max_resends=1, symmetry=False)
    state = model.init_states()[0]
    state = model.next_state(state, Fire(1, ElectionTimeout()))
    vote = next(m for m in state.network.distinct() if m.dst == 2)
    assert Fire(1, ResendDue(2)) not in set(model.actions(state))  # the request is in flight
    state = model.next_state(state, Drop(vote))
    assert Fire(1, ResendDue(2)) in set(model.actions(state))
    resent = model.next_state(state, Fire(1, ResendDue(2)))
    assert resent is not None and resent.resends == 1 and "VoteRequest" in resent.resent
    assert Fire(1, ResendDue(3)) not in set(model.actions(resent))  # the budget is spent
    state = model.next_state(resent, Deliver(vote))
    assert state is not None


def test_acknowledging_answer_is_put_in_flight_only_while_it_can_matter() -> None:
    model = RaftModel(max_resends=1, symmetry=False)
    state = model.init_states()[0]
    state = model.next_state(state, Fire(1, ElectionTimeout()))
    for m in sorted(state.network.distinct(), key=repr):
        if isinstance(m, VoteRequest) and m.dst == 2:
            state = model.next_state(state, Deliver(m))
    answer = next(m for m in state.network.distinct() if isinstance(m, VoteResponse))
    state = model.next_state(state, Deliver(answer))
    begin = next(m for m in state.network.distinct() if isinstance(m, BeginQuorumEpochRequest) and m.dst == 2)
    after = model.next_state(state, Deliver(begin))
    assert any(isinstance(m, BeginQuorumEpochResponse) for m in after.network.distinct())
    without = RaftModel(max_resends=0, symmetry=False)
    s0 = without.init_states()[0]
    assert not any(n.resends for n in s0.nodes)
