"""The one-leader proof's grant rule agrees with the KRaft node model's vote handling.

RAFT-PROOF-ONE-LEADER-PER-EPOCH is about ``kspec.model.proofs.election.step``. This test holds
that abstraction to ``kspec.model.raft.node.step``: a voter that is unattached or has voted in
the request's epoch grants a (non-pre-vote) VoteRequest exactly when ``election.step`` enables
``grant(voter, candidate)``, and a grant persists the vote ``election.step`` records. Roles
that know a leader or lead refuse more often than the abstraction, which only makes the proof
cover more behaviour.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.proofs import election
from kspec.model.raft import node as raft_node
from kspec.model.raft.messages import Entry, VoteRequest, VoteResponse
from kspec.model.raft.state import Node, Unattached, Voted, election_of

N = 4


@st.composite
def logs(draw: st.DrawFn, max_epoch: int) -> tuple[Entry, ...]:
    epochs = sorted(draw(st.lists(st.integers(0, max_epoch), max_size=5)))
    return tuple(Entry(e) for e in epochs)


@st.composite
def cases(draw: st.DrawFn) -> tuple[Node, VoteRequest]:
    epoch = draw(st.integers(1, 4))
    voters = draw(st.frozensets(st.integers(0, N - 1), min_size=1))
    me = draw(st.integers(0, N - 1))
    candidate = draw(st.integers(0, N - 1).filter(lambda c: c != me))
    voted_for = draw(st.none() | st.integers(0, N - 1))
    role = Unattached(epoch) if voted_for is None else Voted(epoch, voted_for)
    node = Node(me, voters, draw(logs(epoch)), role)
    # a well-formed request: its last epoch below its epoch (RAFT-RULE-INVALID-REQUEST)
    request_log = draw(logs(epoch - 1))
    request = VoteRequest(candidate, me, epoch, request_log[-1].epoch if request_log else 0, len(request_log))
    return node, request


def abstract_state(node: Node, req: VoteRequest) -> election.ElectionState:
    last_epoch, end_offset = [0] * N, [0] * N
    last_epoch[node.id], end_offset[node.id] = node.last_epoch, node.end_offset
    last_epoch[req.src], end_offset[req.src] = req.last_epoch, req.end_offset
    voted: list[int | None] = [None] * N
    voted[node.id] = election_of(node).voted_for
    return election.ElectionState(node.voters, tuple(last_epoch), tuple(end_offset), tuple(voted),
                                  (frozenset(),) * N, frozenset())


@settings(max_examples=400)
@given(cases())
def test_node_grants_exactly_when_the_abstraction_does(case: tuple[Node, VoteRequest]) -> None:
    node, req = case
    after, outputs = raft_node.step(node, req)
    (response,) = [o for o in outputs if isinstance(o, VoteResponse)]
    abstract = election.step(abstract_state(node, req), election.ElectionAction("grant", node.id, req.src))
    assert response.granted == (abstract is not None)
    if abstract is not None:
        assert election_of(after).voted_for == abstract.voted[node.id] == req.src


def test_both_outcomes_occur() -> None:
    # Unattached voter, equal logs: granted by both. Voted for someone else: refused by both.
    fresh = Node(0, frozenset({0, 1, 2}), (Entry(1),), Unattached(2))
    taken = Node(0, frozenset({0, 1, 2}), (Entry(1),), Voted(2, 2))
    req = VoteRequest(1, 0, 2, 1, 1)
    for node, granted in ((fresh, True), (taken, False)):
        _, outputs = raft_node.step(node, req)
        (response,) = [o for o in outputs if isinstance(o, VoteResponse)]
        assert response.granted is granted
        abstract = election.step(abstract_state(node, req), election.ElectionAction("grant", 0, 1))
        assert (abstract is not None) is granted
