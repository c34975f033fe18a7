"""RAFT-MODEL-IGNORED-RESPONSES and RAFT-TRANS-HW-CARRIED at the system level.

Kafka (3.7-3.9) acts on a response only to the latest request a replica sent that peer, once,
and only until the replica changes state (``RequestManager.resetAll`` on every transition,
``isResponseExpected`` by correlation id). The scenarios are the ones a conformance run of
Kafka's ``KafkaRaftClient`` against the model found (docs/kafka-matrix.md, raft R1 and R2).
"""

from __future__ import annotations

from collections.abc import Callable

from kspec.model.raft.messages import (
    BackoffExpired,
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    CheckQuorumTimeout,
    ClientAppend,
    ElectionTimeout,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchTimeout,
    Message,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.node import step
from kspec.model.raft.state import Candidate, Leader, Resigned, Voted
from kspec.model.raft.system import Action, Deliver, Duplicate, Fire, Raft, RaftModel, Reboot

MODEL = RaftModel(max_duplicates=1, max_epoch=3, max_elections=4, max_fetches=4, max_inflight=10,
                  symmetry=False)


def find(state: Raft, kind: type, src: int, dst: int, orphaned: bool | None = None) -> Message:
    """The one message of ``kind`` from ``src`` to ``dst`` in flight (optionally by its mark)."""
    found = [m for m in state.network.distinct() if isinstance(m, kind) and m.src == src and m.dst == dst
             and (orphaned is None or getattr(m, "orphaned", None) is orphaned)]
    assert len(found) == 1, (kind.__name__, src, dst, found)
    return found[0]


def none_of(state: Raft, pred: Callable[[Message], bool]) -> bool:
    return not any(pred(m) for m in state.network.distinct())


def run(state: Raft, *actions: Action) -> Raft:
    for action in actions:
        nxt = MODEL.next_state(state, action)
        assert nxt is not None, action
        state = nxt
    return state


def elect(state: Raft, leader: int, voter: int) -> Raft:
    """``leader`` times out and wins with ``voter``'s vote."""
    state = run(state, Fire(leader, ElectionTimeout()))
    state = run(state, Deliver(find(state, VoteRequest, leader, voter)))
    return run(state, Deliver(find(state, VoteResponse, voter, leader)))


def test_a_vote_request_duplicated_before_its_sender_won_gets_no_answer() -> None:
    # Kafka 3.7.2's counterexample: 3's VoteRequest to 2 is duplicated, 3 wins epoch 1 with 1's
    # vote, 1 times out and asks 2 in epoch 2; the duplicate then reaches 2. Kafka's leader 3
    # ignores 2's FENCED_LEADER_EPOCH answer (its connections were reset when it won).
    s = run(MODEL.init_states()[0], Fire(3, ElectionTimeout()))
    s = run(s, Duplicate(find(s, VoteRequest, 3, 2)))
    s = run(s, Deliver(find(s, VoteRequest, 3, 1)))
    s = run(s, Deliver(find(s, VoteResponse, 1, 3)))
    assert isinstance(s.node(3).role, Leader) and s.node(3).epoch == 1
    stale = find(s, VoteRequest, 3, 2)
    assert stale.orphaned and s.network.count(stale) == 2  # both copies: 3 changed state since
    s = run(s, Fire(1, ElectionTimeout()))
    s = run(s, Deliver(find(s, VoteRequest, 1, 2)))
    assert s.node(2).role == Voted(2, 1)
    s = run(s, Deliver(stale))
    # 2 handled the request (the answer would be FENCED_LEADER_EPOCH in epoch 2) ...
    _, out = step(s.node(2), stale)
    assert [type(o) for o in out] == [VoteResponse] and out[0].error == "FENCED_LEADER_EPOCH"  # type: ignore[union-attr]
    # ... but the answer is not in flight, so 3 leads epoch 1 until it learns epoch 2 otherwise.
    assert none_of(s, lambda m: isinstance(m, VoteResponse) and m.dst == 3)
    assert isinstance(s.node(3).role, Leader) and s.node(3).epoch == 1


def test_begin_quorum_epoch_answers_to_a_resigned_leader_are_not_sent() -> None:
    s = elect(MODEL.init_states()[0], 1, 2)
    assert find(s, VoteRequest, 1, 3).orphaned  # the unanswered vote request: orphaned on winning
    s = run(s, Fire(1, CheckQuorumTimeout()))
    assert isinstance(s.node(1).role, Resigned)
    begin = find(s, BeginQuorumEpochRequest, 1, 3)
    assert begin.orphaned
    s = run(s, Fire(3, ElectionTimeout()), Fire(3, ElectionTimeout()), Fire(3, BackoffExpired()))
    assert s.node(3).role == Candidate(2, granted=frozenset({3}))
    s = run(s, Deliver(begin))  # 3 would answer FENCED_LEADER_EPOCH in epoch 2
    assert none_of(s, lambda m: isinstance(m, BeginQuorumEpochResponse))
    assert isinstance(s.node(1).role, Resigned) and s.node(1).epoch == 1


def test_requests_of_a_crashed_replica_are_orphaned_and_its_new_ones_answered() -> None:
    s = run(MODEL.init_states()[0], Fire(1, ElectionTimeout()))
    s = run(s, Reboot(1))  # restarts as candidate of epoch 1 and asks again
    old, new = find(s, VoteRequest, 1, 2, orphaned=True), find(s, VoteRequest, 1, 2, orphaned=False)
    s = run(s, Deliver(old))
    assert s.node(2).role == Voted(1, 1)  # the vote is granted (and persisted) ...
    assert none_of(s, lambda m: isinstance(m, VoteResponse))  # ... but the answer is not sent
    s = run(s, Deliver(new))
    assert find(s, VoteResponse, 2, 1).granted  # the restarted candidate's own request is answered


def test_a_response_is_taken_once() -> None:
    # A duplicated fetch is answered twice; Kafka takes the first answer and ignores the copy.
    s = elect(MODEL.init_states()[0], 1, 2)
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 1, 2)))
    s = run(s, Fire(2, FetchDue(1)))
    fetch = find(s, FetchRequest, 2, 1)
    s = run(s, Duplicate(fetch), Deliver(fetch), Deliver(fetch))
    response = find(s, FetchResponse, 1, 2)
    assert s.network.count(response) == 2
    s = run(s, Deliver(response))
    assert s.network.count(response) == 0
    # The other order: one copy answered and taken first, the other is then orphaned.
    s = elect(MODEL.init_states()[0], 1, 2)
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 1, 2)), Fire(2, FetchDue(1)))
    fetch = find(s, FetchRequest, 2, 1)
    s = run(s, Duplicate(fetch), Deliver(fetch))
    s = run(s, Deliver(find(s, FetchResponse, 1, 2)))
    late = find(s, FetchRequest, 2, 1, orphaned=True)
    s = run(s, Deliver(late))
    assert none_of(s, lambda m: isinstance(m, FetchResponse))


def test_an_orphaned_fetch_does_not_hold_back_the_next_one() -> None:
    # RAFT-MODEL-ONE-FETCH counts the fetch Kafka still expects an answer to: none after a
    # state change.
    s = elect(MODEL.init_states()[0], 1, 2)
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 1, 2)), Fire(2, FetchDue(1)))
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 1, 3)), Fire(3, FetchTimeout()))
    s = run(s, Deliver(find(s, VoteRequest, 3, 2)))  # 2 votes in epoch 2: its fetch is orphaned
    assert find(s, FetchRequest, 2, 1).orphaned
    s = run(s, Deliver(find(s, VoteResponse, 2, 3)))
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 3, 2)))
    assert s.node(2).role_name == "follower" and s.node(2).epoch == 2
    assert Fire(2, FetchDue(3)) in list(MODEL.actions(s))


def test_a_resigned_leader_and_the_candidate_it_becomes_have_no_high_watermark() -> None:
    # Kafka's ResignedState has no high watermark, and transitionToCandidate passes on the
    # resigned state's (empty) one (RAFT-TRANS-HW-CARRIED).
    s = elect(MODEL.init_states()[0], 1, 2)
    s = run(s, Deliver(find(s, BeginQuorumEpochRequest, 1, 2)), Fire(1, ClientAppend()))
    for _ in range(2):  # the first fetch brings the records, the second tells the leader so
        s = run(s, Fire(2, FetchDue(1)))
        s = run(s, Deliver(find(s, FetchRequest, 2, 1)))
        s = run(s, Deliver(find(s, FetchResponse, 1, 2)))
    assert s.node(1).high_watermark == 2 and s.node(2).high_watermark == 2
    # the period in which 2 fetched ends with 1 leading on, the next resigns it
    # (RAFT-RULE-CHECK-QUORUM-PERIOD)
    s = run(s, Fire(1, CheckQuorumTimeout()))
    assert isinstance(s.node(1).role, Leader) and not s.node(1).role.renewed
    s = run(s, Fire(1, CheckQuorumTimeout()))
    assert s.node(1).role == Resigned(1) and s.node(1).high_watermark is None
    s = run(s, Fire(1, ElectionTimeout()))
    assert s.node(1).role == Candidate(2, granted=frozenset({1})) and s.node(1).high_watermark is None
    # A follower that moves to a higher epoch keeps its high watermark (Kafka passes it on).
    moved, _ = step(s.node(2), VoteRequest(3, 2, 5, 1, 2))
    assert moved.role == Voted(5, 3) and moved.high_watermark == 2
