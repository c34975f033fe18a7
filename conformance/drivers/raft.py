"""The KRaft lockstep driver: RaftModel at small bounds, one target instance per replica.

An action with a node event (deliver a message, fire a timer, a client append, crash,
restart) goes to that replica's instance; drop and duplicate touch only the model's network.
The messages a replica sends come from the model side (identical while the target conforms).

Besides the model's enabled actions the driver offers *idle timers*: a timer expiry the
model's replica ignores in its role (an election timeout at a leader, a check-quorum timeout
at a leader that has a fetching majority, a fetch timeout at an observer). With time
abstracted into timer events, a target must ignore them too; this is what shows a
single-voter leader that resigns or an observer that stands for election.

Each run also draws a fault profile (swarm testing over configurations): with ``faults`` off
the driver offers no message loss or duplication, no crash, no check-quorum resignation and no
idle timer, so the run spends its steps on elections, replication and their repair (a log
that diverged under one leader and is truncated under the next takes about eleven steps in one
order, which faults almost always break up); with ``faults`` on it offers everything.

The driver also offers the macros of ``conformance/drivers/macros.py`` (a fetch round trip, a
replication to every follower, a deposition that truncates a leader's uncommitted entries):
short exchanges in one step, fed to the target as their node-level inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise, permutations
from typing import Any

from kspec.conformance.driver import StartProbe
from kspec.conformance.drivers import macros
from kspec.conformance.harness import JSON, Event
from kspec.model.core.codec import encode
from kspec.model.core.protocol import first_violated
from kspec.model.raft import node as node_mod
from kspec.model.raft.listener import ListenerRules
from kspec.model.raft.messages import (
    OWN_PARTITION,
    OWN_TOPIC,
    BackoffExpired,
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    CheckQuorumTimeout,
    CleanLog,
    ClientAppend,
    Crash,
    DescribeQuorumRequest,
    ElectionTimeout,
    EndQuorumEpochRequest,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchTimeout,
    Input,
    LeaderOnlyRequest,
    Request,
    ResendDue,
    Restart,
    TakeSnapshot,
    TopicPartitions,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.properties import raft_properties
from kspec.model.raft.rules import log_up_to_date
from kspec.model.raft.state import (
    Candidate,
    Down,
    Follower,
    Leader,
    Node,
    Prospective,
    Resigned,
    Unattached,
    Voted,
    end_offset_for_epoch,
)
from kspec.model.raft.system import (
    REQUEST_TYPES,
    RESPONSE_TYPES,
    Deliver,
    Drop,
    Duplicate,
    Fire,
    Raft,
    RaftModel,
    Reboot,
    describe_action,
    describe_message,
    exchange_in_flight,
)

# Cluster shapes a run starts from (Hypothesis draws one; shrinking prefers the first).
CONFIGS: list[dict[str, JSON]] = [
    {"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "faults": True},
    {"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "faults": False},
    # RAFT-DRIVE-ID-ZERO: one observer shape per rule set numbers its replicas from 0 (Kafka's
    # usual first node.id), where a port that tests a replica id for truth takes leader 0 for
    # "no leader"; the others from 1.
    {"voters": 3, "observers": 1, "pre_vote": False, "kip853": False, "faults": True, "first_id": 0},
    {"voters": 3, "observers": 0, "pre_vote": True, "kip853": True, "faults": True},
    {"voters": 1, "observers": 0, "pre_vote": False, "kip853": False, "faults": True},
    # The kip-996 rule set (Kafka 4.0+) in the shapes kip-595 has: a kafka:4.x target takes
    # every shape with pre_vote (model_config), the reference every rule set.
    {"voters": 3, "observers": 0, "pre_vote": True, "kip853": True, "faults": False},
    {"voters": 3, "observers": 1, "pre_vote": True, "kip853": True, "faults": True, "first_id": 0},
    # The kip-853 rule set (Kafka 3.8 and 3.9): KIP-595's elections with KIP-853's open vote,
    # which only an observer (or an injected request from one) meets, so an observer even
    # without faults (it is also the fault-free observer shape: a leader's high watermark must
    # not count it).
    {"voters": 3, "observers": 0, "pre_vote": False, "kip853": True, "faults": True},
    {"voters": 3, "observers": 1, "pre_vote": False, "kip853": True, "faults": False},
    {"voters": 3, "observers": 1, "pre_vote": False, "kip853": True, "faults": True, "first_id": 0},
    {"voters": 1, "observers": 0, "pre_vote": False, "kip853": True, "faults": True},
    # Four and five voters, one shape per rule set: a majority of three is the first quorum
    # where a candidate or leader that counts one replica twice (a duplicated vote, a fetch
    # counted per request) is wrong (with three voters the leader and any one other are a
    # majority), and an even voter count is where a majority computed as (n+1)//2 instead of
    # n//2+1 is wrong.
    {"voters": 4, "observers": 0, "pre_vote": False, "kip853": False, "faults": True},
    {"voters": 5, "observers": 0, "pre_vote": False, "kip853": True, "faults": True},
    {"voters": 4, "observers": 0, "pre_vote": True, "kip853": True, "faults": True},
]

# The categories a run without faults never draws (and the check-quorum resignation, which is
# a fault of the network too: the followers' fetches did not arrive in time).
FAULTS = frozenset({"network", "crash", "resign", "idle_timer", "redeliver"})

BOUNDS: dict[str, Any] = {"max_epoch": 3, "max_inflight": 6, "max_appends": 2, "max_crashes": 1,
                          "max_fetches": 8, "max_duplicates": 1, "max_elections": 4, "max_resends": 2}

# RAFT-DRIVE-SNAPSHOT: the snapshots a run may take where the target declares snapshots
# (model_config {"snapshots": true}; KIP-630): the model's bound ``max_snapshots``, 0 for every
# other target, which is then never sent TakeSnapshot, CleanLog or a FetchResponse naming a
# snapshot (BRIEF compatibility: an adapter written before KIP-630 runs as it did).
SNAPSHOT_BOUNDS: dict[str, Any] = {"max_snapshots": 2}

IDLE_TIMERS: tuple[Input, ...] = (ElectionTimeout(), FetchTimeout(), CheckQuorumTimeout(), BackoffExpired())

# A replica id no replica of the cluster has (RAFT-DRIVE-UNKNOWN-ID): a request from it is one
# from a replica the receiver has never heard of.
UNKNOWN_REPLICA = 9
# Kafka's "no replica" sentinel (-1) as a sender id (RAFT-DRIVE-SENTINEL).
NO_REPLICA = -1

# RAFT-DRIVE-PAYLOAD: the client payloads (record bytes) a leader is asked to append. The
# model's ClientAppend carries none; a port that keeps bytes in a signed type (a Java byte[],
# a C char) or in a fixed-size buffer, or drops an empty record, gets these back wrong in its
# AppendLog and the FetchResponses that carry them. The guided runs take one payload per
# append, chosen by how many appends the run has made (the graph keeps one client transition
# per leader), the random runs any of them (category ``payload``).
PAYLOADS: tuple[tuple[int, ...], ...] = ((), (0,), (127,), (128,), (255,), (0, 127, 128, 255), tuple(range(256)))
GUIDED_PAYLOADS: tuple[tuple[int, ...], ...] = ((0, 127, 128, 255), ())


def guided_payload(state: Raft) -> tuple[int, ...]:
    """The payload of a guided run's next client append: the signed-byte edges first, then an
    empty record."""
    return GUIDED_PAYLOADS[state.appends % len(GUIDED_PAYLOADS)]


def with_payloads(state: Raft, found: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``found`` with each client append of the model (a bare ``ClientAppend()``) given the
    guided payload in category ``client`` and every other payload of PAYLOADS in ``payload``."""
    out: list[tuple[str, Any]] = []
    guided = guided_payload(state)
    for category, action in found:
        if category == "client" and isinstance(action, Fire) and isinstance(action.input, ClientAppend):
            out.append(("client", replace(action, input=ClientAppend(guided))))
            out += [("payload", replace(action, input=ClientAppend(p))) for p in PAYLOADS if p != guided]
        else:
            out.append((category, action))
    return out


def injected_requests(state: Raft, node: Node, observers: frozenset[int]) -> list[Request]:
    """The requests no replica of the run has in flight that the driver delivers to ``node``
    (RAFT-DRIVE-INJECT): each request kind at a stale, equal and future epoch, from a voter,
    an observer and a replica id no one knows, whatever ``node``'s role, and a voter's vote
    at that voter's next epoch. What they must do is the model's ``step``, as for any delivery.

    They stay within what a non-Byzantine cluster can send (spec/raft.md, RAFT-DRIVE-INJECT):
    a BeginQuorumEpoch or EndQuorumEpoch names as leader only a replica the run elected in that
    epoch, or carries an epoch below the receiver's (which any former leader may still have in
    flight); a vote request's last epoch is below its epoch (Kafka answers INVALID_REQUEST
    otherwise, a malformed request); a fetch carries its sender's own log position. The sender
    no longer awaits the answer, so it is not put in flight (RAFT-MODEL-IGNORED-RESPONSES).
    """
    out: list[Request] = []
    me = node.id
    voters = sorted(v for v in node.voters if v != me)
    senders = [*voters[:1], *sorted(o for o in observers if o != me)[:1], UNKNOWN_REPLICA]
    epochs = [e for e in (node.epoch - 1, node.epoch, node.epoch + 1) if e >= 0]
    for e in epochs:
        for src in senders:
            vote = _injected_vote(state, node, src, e)
            if vote is not None:
                out.append(vote)
                if node.pre_vote:
                    out.append(replace(vote, pre_vote=True))
            if src == UNKNOWN_REPLICA:
                last_fetched, offset = 0, 0
            else:
                # the sender's log as far as epoch e: a fetch of epoch e it sent, or could have
                # (a last fetched epoch above the fetch's epoch is malformed: INVALID_REQUEST)
                last_fetched, offset = end_offset_for_epoch(state.node(src).log, e)
            out.append(FetchRequest(src, me, e, offset, last_fetched, True))
        if e < node.epoch and voters:
            out.append(BeginQuorumEpochRequest(voters[0], me, e, True))
            out.append(EndQuorumEpochRequest(voters[0], me, e, (), True))
    # the candidacy a voter may start next (its epoch plus one, its own log), wherever the
    # receiver is: a replica that lags far behind (an observer still in epoch 0) gets a
    # well-formed vote too, not only the malformed ones its epoch allows
    for src in voters[:1]:
        e = state.node(src).epoch + 1
        if e not in epochs:
            vote = _injected_vote(state, node, src, e)
            if vote is not None:
                out.append(vote)
                if node.pre_vote:
                    out.append(replace(vote, pre_vote=True))
    # RAFT-DRIVE-OBSERVER-EPOCH: an observer behind a leader's epoch hears of that epoch through
    # a vote of it from replica 9 (kip-853's open votes). A guided path's probe sends it, and a
    # guided run takes only what is offered: without this it stopped there.
    lead_epoch = max((n.epoch for n in state.nodes if isinstance(n.role, Leader)), default=0)
    if not node.is_voter and node.open_votes and node.epoch < lead_epoch and lead_epoch not in epochs:
        vote = _injected_vote(state, node, UNKNOWN_REPLICA, lead_epoch)
        if vote is not None:
            out.append(vote)
    for e, leader in sorted(state.elected):
        if leader != me and e >= node.epoch:
            out.append(BeginQuorumEpochRequest(leader, me, e, True))
            out.append(EndQuorumEpochRequest(leader, me, e, (), True))
    out += well_formed_votes(state, node)
    out += diverging_fetches(node)
    out += malformed_requests(state, node)
    return out


def diverging_fetches(node: Node) -> list[FetchRequest]:
    """RAFT-DRIVE-DIVERGING-FETCH: a well-formed Fetch of ``node``'s epoch from replica id 9
    (RAFT-DRIVE-UNKNOWN-ID, which has no log in the run and so may claim any) that holds one
    record more of an older epoch of ``node``'s log than ``node`` does: the epoch is in the
    log and the offset is within the log end, but past that epoch's end offset, so the
    position is invalid (RAFT-RULE-FETCH step 2: a diverging epoch, nothing recorded). Raft's
    figure 8 follower (an old leader's uncommitted records) fetching from the next leader; a
    leader that bounds the offset by its log end instead of the epoch's end serves it records
    and counts it. None where the log has a single epoch."""
    epochs = sorted({entry.epoch for entry in node.log})
    if len(epochs) < 2:
        return []
    older = epochs[-2]
    _, end = end_offset_for_epoch(node.log, older)
    return [FetchRequest(UNKNOWN_REPLICA, node.id, node.epoch, end + 1, older, True)]


# RAFT-DRIVE-WELL-FORMED: the epochs (against the receiver's) and log positions (against the
# receiver's log) of the well-formed votes and pre-votes the driver injects at every replica.
EPOCH_RELATIONS = ("<", "=", ">")
# "<", "=", ">": the claimed (last epoch, end offset) against the receiver's; "newer-shorter"
# and "older-longer" (RAFT-DRIVE-CROSSED-CLAIMS) are ahead (behind) by the last epoch with the
# end offset the other way: where a log check made field by field, or offset first, answers
# differently from the lexicographic RAFT-RULE-VOTE-LOG-UP-TO-DATE.
LOG_RELATIONS = ("<", "=", ">", "newer-shorter", "older-longer")


def claimed_log(node: Node, epoch: int, pre_vote: bool, relation: str) -> tuple[int, int] | None:
    """The (last epoch, end offset) a well-formed vote (``pre_vote``: pre-vote) of ``epoch``
    claims that is behind (``<``), equal to (``=``) or ahead of (``>``) ``node``'s log, or None
    when no well-formed one is: a vote's last epoch is below its epoch, a pre-vote's at most
    its epoch (RAFT-RULE-INVALID-REQUEST). So a vote of a leader's own epoch is only ever
    behind the leader's log (it holds a record of its epoch: the LeaderChange it began with)."""
    top = epoch if pre_vote else epoch - 1
    last, end = node.last_epoch, node.end_offset
    if top < 0:
        return None
    if relation == "=":
        return (last, end) if last <= top else None
    if relation == ">":
        if last > top:
            return None
        # one record more of the same epoch (an empty log: one record of epoch 1)
        return (last, end + 1) if last else ((1, 1) if top >= 1 else None)
    if relation == "newer-shorter":
        # a newer last epoch on a shorter log (the receiver kept more records of an older epoch,
        # which the newer leader never had): ahead
        return (top, end - 1) if last < top and end >= 2 else None
    if relation == "older-longer":
        # an older last epoch on a longer log (the receiver's newest epoch is missing): behind
        return (last - 1, end + 1) if 2 <= last <= top + 1 else None
    if last > top:
        return (top, end) if top > 0 else (0, 0)  # a log as long whose last record is older
    if end >= 2:
        return (last, end - 1)
    return (0, 0) if end else None


def well_formed_votes(state: Raft, node: Node) -> list[VoteRequest]:
    """RAFT-DRIVE-WELL-FORMED: well-formed votes and pre-votes (kip-996) at ``node`` of every
    epoch relation (its epoch minus one, equal, plus one) and log relation (a claimed log
    behind, equal to, ahead of its own): at its own epoch from each other voter, else from
    one. A candidate or prospective of any epoch may claim any log the receiver cannot check
    (it may hold records the receiver lacks, or lack its newest); its answer is not awaited
    (RAFT-MODEL-IGNORED-RESPONSES), so no election counts it. Whatever the receiver's role, the
    model's step says what it must answer: a leader refuses a pre-vote of its epoch however up
    to date (RAFT-KIP996-PRE-VOTE-GRANT), a resigned leader a vote of its epoch."""
    me = node.id
    voters = sorted(v for v in node.voters if v != me)
    out: list[VoteRequest] = []
    for e in (node.epoch - 1, node.epoch, node.epoch + 1):
        if e < 0:
            continue
        senders = voters if e == node.epoch else voters[-1:]
        for pre_vote in (True, False) if node.pre_vote else (False,):
            for relation in LOG_RELATIONS:
                claim = claimed_log(node, e, pre_vote, relation)
                if claim is None:
                    continue
                out += [VoteRequest(src, me, e, *claim, pre_vote, True) for src in senders]
    return out


def malformed_requests(state: Raft, node: Node) -> list[Request]:
    """Malformed requests (RAFT-RULE-INVALID-REQUEST) at the receiver's epoch and one above:
    a vote whose last epoch is not below its epoch (with pre-vote, a pre-vote whose last epoch
    is above its epoch: RAFT-KIP996-PRE-VOTE-INVALID), a fetch whose last fetched epoch is above
    its epoch, and the voter-only requests from replica id -1 (RAFT-DRIVE-SENTINEL). Kafka
    answers each INVALID_REQUEST and changes nothing. Also a fetch from replica id -1, which is
    not malformed (a consumer's: RAFT-RULE-FETCH-NO-REPLICA). RAFT-DRIVE-MALFORMED-STALE-FETCH:
    the malformed fetch at the receiver's epoch minus one too, where the shape is judged before
    the epoch (INVALID_REQUEST, not FENCED_LEADER_EPOCH: Kafka 3.3-4.4's ``handleFetchRequest``
    checks it before ``tryCompleteFetchRequest`` calls ``validateLeaderOnlyRequest``)."""
    me = node.id
    voters = sorted(v for v in node.voters if v != me)
    out: list[Request] = []
    if voters and node.epoch >= 1:
        src = voters[0]
        # its last fetched epoch (the receiver's own epoch) is above the fetch's stale one
        out.append(FetchRequest(src, me, node.epoch - 1, state.node(src).end_offset, node.epoch, True))
    for e in (node.epoch, node.epoch + 1):
        if voters:
            src = voters[0]
            last, end = state.node(src).last_epoch, state.node(src).end_offset
            out.append(VoteRequest(src, me, e, max(last, e), end, False, True))
            out.append(FetchRequest(src, me, e, end, e + 1, True))
            if node.pre_vote:
                # RAFT-KIP996-PRE-VOTE-INVALID: a pre-vote whose last epoch is above its epoch
                out.append(VoteRequest(src, me, e, e + 1, end, True, True))
        if e >= 1:
            out.append(VoteRequest(NO_REPLICA, me, e, 0, 0, False, True))
        # RAFT-RULE-FETCH-NO-REPLICA: a fetch from replica id -1 (a consumer's) is well-formed:
        # from the start of the log, and at the receiver's own log end
        out.append(FetchRequest(NO_REPLICA, me, e, 0, 0, True))
        if node.end_offset:
            out.append(FetchRequest(NO_REPLICA, me, e, node.end_offset, node.last_epoch, True))
        out.append(BeginQuorumEpochRequest(NO_REPLICA, me, e, True))
        out.append(EndQuorumEpochRequest(NO_REPLICA, me, e, (), True))
    return out


# RAFT-DRIVE-LEADER-ONLY: the topic lists of the FetchSnapshot requests the driver sends, by the
# name the coverage matrix marks them with: the well-formed one, and each shape a port of the
# topic/partition check gets wrong (no topic, two partitions, two topics, both, another topic,
# another partition). Only "one" is well-formed (RAFT-RULE-FETCH-SNAPSHOT-SHAPE).
SNAPSHOT_SHAPES: dict[str, TopicPartitions] = {
    "one": OWN_PARTITION,
    "no-topic": (),
    "two-partitions": ((OWN_TOPIC, (0, 1)),),
    "two-topics": (*OWN_PARTITION, ("other", (0,))),
    "two-topics-two-partitions": ((OWN_TOPIC, (0, 1)), ("other", (0,))),
    "other-topic": (("other", (0,)),),
    "other-partition": ((OWN_TOPIC, (1,)),),
}
_SHAPE_NAMES = {topics: name for name, topics in SNAPSHOT_SHAPES.items()}
# RAFT-DRIVE-SNAPSHOT-POSITION: the byte position of the one FetchSnapshot that carries Kafka's -1
# sentinel; the position is read only once the snapshot is found, which no model replica holds.
SNAPSHOT_SENTINEL_POSITION = -1


def leader_only_requests(state: Raft, node: Node, observers: frozenset[int]) -> list[LeaderOnlyRequest]:
    """RAFT-DRIVE-LEADER-ONLY: the leader-only requests the driver delivers to ``node`` whatever
    its role (RAFT-RULE-LEADER-ONLY): a well-formed FetchSnapshot at the epoch sentinel -1 and
    at the receiver's epoch minus one, equal and plus one, one of each malformed topic list
    (``SNAPSHOT_SHAPES``) at its epoch, one of its epoch at byte position -1
    (RAFT-DRIVE-SNAPSHOT-POSITION), and a DescribeQuorum from an administrator (no replica:
    id -1). A FetchSnapshot comes from a replica that fetches (another voter, else an
    observer) and asks for a snapshot ending at the receiver's log end (offset 1 at least: no
    replica holds any, so which one does not decide the answer). Their answers go to no one
    (RAFT-MODEL-IGNORED-RESPONSES)."""
    me = node.id
    others = [*sorted(v for v in node.voters if v != me), *sorted(o for o in observers if o != me)]
    src = others[0] if others else UNKNOWN_REPLICA
    snapshot = (max(1, node.end_offset), node.last_epoch)
    epochs: list[LeaderOnlyRequest] = [FetchSnapshotRequest(src, me, e, snapshot, 0, OWN_PARTITION, True)
                                       for e in sorted({node.epoch, -1, max(-1, node.epoch - 1), node.epoch + 1},
                                                       key=lambda e: (e != node.epoch, e))]
    shapes: list[LeaderOnlyRequest] = [FetchSnapshotRequest(src, me, node.epoch, snapshot, 0, topics, True)
                                       for name, topics in SNAPSHOT_SHAPES.items() if name != "one"]
    shapes.insert(2, DescribeQuorumRequest(NO_REPLICA, me, True))
    # RAFT-DRIVE-SNAPSHOT-POSITION: a well-formed request of its epoch at byte position -1, next to
    # the one at byte 0 (early in the list, so that the first paths' probes meet it)
    epochs.insert(1, FetchSnapshotRequest(src, me, node.epoch, snapshot, SNAPSHOT_SENTINEL_POSITION,
                                          OWN_PARTITION, True))
    # interleaved, then rotated by the replica's id: a guided path's probes (the k-th of the
    # list at every replica, RAFT-DRIVE-PROBE) meet a malformed shape, an epoch and a
    # DescribeQuorum within a few paths, and different ones at the replicas of one path
    out = [r for pair in zip(shapes, [*epochs, *[None] * len(shapes)], strict=False) for r in pair if r is not None]
    turn = me % len(out)
    return out[turn:] + out[:turn]


def refused_snapshots(node: Node) -> list[IdleTimer]:
    """RAFT-DRIVE-SNAPSHOT: the snapshots ``node`` must refuse (RAFT-RULE-SNAPSHOT-TAKE; the model
    changes nothing): one past its high watermark (uncommitted records; at the log end, or past
    it where the log holds no more), and where its log starts past 0, one below its log start."""
    hw = node.high_watermark or 0
    out = [IdleTimer(node.id, TakeSnapshot(max(hw + 1, node.end_offset)))]
    if node.log_start > 1:
        out.append(IdleTimer(node.id, TakeSnapshot(node.log_start - 1)))
    return out


def refused_cleans(node: Node) -> list[IdleTimer]:
    """RAFT-DRIVE-SNAPSHOT-LAG: a ``CleanLog`` ``node`` must refuse (RAFT-RULE-SNAPSHOT-CLEAN; the
    model changes nothing) though it holds a snapshot past its log start: its high watermark is
    unknown (restarted) or below that snapshot's end."""
    if not node.snapshots or node.snapshots[-1][0] <= node.log_start:
        return []
    hw = node.high_watermark
    return [IdleTimer(node.id, CleanLog())] if hw is None or node.snapshots[-1][0] > hw else []


def idle_fetches(node: Node) -> list[IdleTimer]:
    """RAFT-DRIVE-FETCH-ELSEWHERE: ``FetchDue(v)`` at ``node`` for every voter ``v`` (not itself)
    it must not fetch from (RAFT-RULE-FETCH-DUE): every voter but its leader at a follower, voter
    or observer (a replica that knows its leader fetches from it only, RAFT-RULE-OBSERVER), every
    voter at a leader, resigned leader, candidate or prospective. An observer without a leader
    may ask any voter (its FetchDue is the model's, category ``fetch``): none there. Nor at an
    unattached or voted voter: Kafka 3.9.1+ sends it a Fetch to a bootstrap voter to find the
    leader (KAFKA-17030, ``pollUnattachedCommon``; 3.3-3.9.0 send none), which the rule sets do
    not model (spec/raft.md RAFT-DRIVE-FETCH-ELSEWHERE). The model offers a FetchDue only where
    it sends (``enabled_inputs``), so without these a replica that fetches from the wrong voter
    was never asked to (red team ``observer-keeps-asking-voters``)."""
    if isinstance(node.role, Down | Unattached | Voted):
        return []
    leader = node.role.leader if isinstance(node.role, Follower) else None
    return [IdleTimer(node.id, FetchDue(v)) for v in sorted(node.voters) if v not in (node.id, leader)]


def idle_resends(state: Raft, node: Node) -> list[IdleTimer]:
    """RAFT-DRIVE-RESEND-ACKED: ``ResendDue(v)`` at a leader for every voter ``v`` that has
    acknowledged its epoch (a NONE BeginQuorumEpochResponse or a valid Fetch,
    ``Leader.acknowledged``), with nothing in flight between the two (RAFT-MODEL-ONE-RESEND: the
    timer of a connection that is ready). The model enables ResendDue only towards a voter that
    has not answered (RAFT-RULE-RESEND), so without these a leader that resends to a voter it
    forgot had fetched was never asked to (red team ``resend-ignores-fetch-ack``). Only while
    the replica keeps who answered (``Node.resends``: the budget not spent), since a target has
    no budget and still knows. Also (RAFT-DRIVE-RESEND-BACKOFF, session 17) at a kip-595
    candidate backing off, ``ResendDue(v)`` for every other voter ``v`` that has not answered:
    ``pollCandidate`` sends nothing while it backs off (RAFT-RULE-RESEND), and a candidate that
    resent its vote request then could still be elected by a late grant in an election it gave
    up (red team ``raft_scratch10:backing-off-candidate-resends``)."""
    role = node.role
    if not node.resends:
        return []
    if isinstance(role, Candidate) and role.backing_off:
        return [IdleTimer(node.id, ResendDue(v)) for v in sorted(node.voters)
                if v != node.id and v not in role.granted | role.rejected
                and not exchange_in_flight(state, node.id, v)]
    if not isinstance(role, Leader):
        return []
    return [IdleTimer(node.id, ResendDue(v)) for v in sorted(role.acknowledged)
            if v != node.id and v in node.voters and not exchange_in_flight(state, node.id, v)]


def _injected_vote(state: Raft, node: Node, src: int, epoch: int) -> VoteRequest | None:
    """A vote request of ``epoch`` from ``src`` that ``src`` sent or may yet send: its own log
    position, below the epoch (Kafka answers INVALID_REQUEST otherwise), and ``src`` not past
    ``epoch`` without having stood in it. A replica id no one has (RAFT-DRIVE-UNKNOWN-ID) may
    claim any log: its vote counts at no candidate; the receiver's own is used."""
    if src == UNKNOWN_REPLICA:
        last, end = (node.last_epoch, node.end_offset) if node.last_epoch < epoch else (epoch - 1, 0)
        return VoteRequest(src, node.id, epoch, last, end, False, True) if epoch >= 1 else None
    sender = state.node(src)
    stood = isinstance(sender.role, Candidate | Prospective) and sender.epoch == epoch
    if sender.last_epoch >= epoch or (sender.epoch >= epoch and not stood):
        return None
    return VoteRequest(src, node.id, epoch, sender.last_epoch, sender.end_offset, False, True)


def _ballot(state: Raft, kind: type, src: int, dst: int, epoch: int, granted: bool = False) -> Deliver | None:
    """The delivery of a (standard) VoteRequest, or a VoteResponse refusing (``granted``: granting),
    of ``kind`` from ``src`` to ``dst`` in ``epoch`` on the wire (RAFT-DRIVE-HALF-REFUSED), or None."""
    return next((Deliver(m) for m in sorted(state.network.distinct(), key=repr)
                 if isinstance(m, kind) and isinstance(m, VoteRequest | VoteResponse)
                 and (m.src, m.dst, m.epoch) == (src, dst, epoch) and not m.pre_vote
                 and not (isinstance(m, VoteResponse) and m.granted != granted)), None)


# RAFT-DRIVE-REQUEST-GRID: the request kinds that carry an epoch, a pre-vote as its own kind.
GRID_REQUESTS: tuple[str, ...] = ("VoteRequest", "PreVoteRequest", "BeginQuorumEpochRequest", "EndQuorumEpochRequest",
                                  "FetchRequest", "FetchSnapshotRequest")


def request_cell(node: Node, inp: Input) -> tuple[str, str, str, str] | None:
    """The request-grid cell of ``inp`` at ``node`` (RAFT-DRIVE-REQUEST-GRID): the request kind
    (a pre-vote as ``PreVoteRequest``), the receiver's role (an observer's prefixed
    ``observer``), its epoch against the receiver's (``<``, ``=``, ``>``) and its sender:
    ``replica`` (one of the cluster's), ``unknown`` (RAFT-DRIVE-UNKNOWN-ID) or ``-1``
    (RAFT-DRIVE-SENTINEL); None for any other input, or at a replica that is down."""
    if not isinstance(inp, VoteRequest | BeginQuorumEpochRequest | EndQuorumEpochRequest | FetchRequest
                      | FetchSnapshotRequest) or isinstance(node.role, Down):
        return None
    kind = "PreVoteRequest" if isinstance(inp, VoteRequest) and inp.pre_vote else type(inp).__name__
    role = node.role_name if node.is_voter else f"observer {node.role_name}"
    rel = "<" if inp.epoch < node.epoch else "=" if inp.epoch == node.epoch else ">"
    src = inp.src
    sender = "-1" if src == NO_REPLICA else "unknown" if src == UNKNOWN_REPLICA else "replica"
    return kind, role, rel, sender


def input_cell(node: Node, inp: Input) -> tuple[str, str]:
    """The (role, input kind) cell of the coverage matrix one node-level input falls in
    (RAFT-DRIVE-MATRIX): the receiver's role before the input (``observer`` prefixed for a
    non-voter) and the input's kind, a message's marked ``<``, ``=`` or ``>`` by its epoch
    against the receiver's, a pre-vote as ``PreVote...``, and a vote or fetch by the log
    position it carries against the receiver's log (``log<``, ``log=``, ``log>``) or as
    ``malformed``."""
    role = node.role_name if node.is_voter or isinstance(node.role, Down) else f"observer {node.role_name}"
    kind = type(inp).__name__
    if isinstance(inp, FetchDue) and IdleTimer(node.id, inp) in idle_fetches(node):
        kind = "FetchDue elsewhere"  # RAFT-DRIVE-FETCH-ELSEWHERE: at a voter it must not fetch from
    elif isinstance(inp, VoteRequest) and inp.pre_vote:
        kind = "PreVoteRequest"
    elif kind == "VoteResponse" and getattr(inp, "pre_vote", False):
        kind = "PreVoteResponse"
    if isinstance(inp, Crash) and isinstance(node.role, Leader) and len(node.voters) > 1:
        # RAFT-DRIVE-LEADER-REBOOT: a leader with other voters to tell on its restart, apart from
        # a lone voter's (which restarts and leads again with no one to tell)
        kind = "Crash voters>1"
    if isinstance(inp, TakeSnapshot):
        # RAFT-DRIVE-SNAPSHOT: where the snapshot's end lies against the high watermark
        hw = node.high_watermark
        kind += " hw?" if hw is None else " <hw" if inp.end_offset < hw else " =hw" if inp.end_offset == hw else " >hw"
    epoch = getattr(inp, "epoch", None)
    if isinstance(epoch, int) and not isinstance(node.role, Down):
        kind += "<" if epoch < node.epoch else "=" if epoch == node.epoch else ">"
        if isinstance(inp, FetchSnapshotRequest):
            # RAFT-DRIVE-LEADER-ONLY: the epoch sentinel and the topic list's shape
            kind += (" -1" if epoch == -1 else "") + f" {_SHAPE_NAMES.get(inp.topics, 'topics')}"
            kind += " position-1" if inp.position < 0 else ""
        # RAFT-DRIVE-WELL-FORMED: a request that carries a log position is marked by that
        # position against the receiver's log, a malformed one as such
        claim = (inp.last_epoch, inp.end_offset) if isinstance(inp, VoteRequest) else \
            (inp.last_fetched_epoch, inp.fetch_offset) if isinstance(inp, FetchRequest) else None
        if claim is not None:
            own = (node.last_epoch, node.end_offset)
            malformed = isinstance(inp, VoteRequest | FetchRequest) and node_mod.is_malformed(node, inp)
            kind += " malformed" if malformed else \
                " log<" if claim < own else " log=" if claim == own else " log>"
    return role, kind


# KIP-630's fields of messages older than it (RAFT-RULE-FETCH-SNAPSHOT-ID, -DATA), with their
# "none" value: left off the wire at that value, so a target that does not declare snapshots
# sees and sends its messages as before (BRIEF compatibility: an adapter that builds a
# FetchResponse from every field it is given, or reports one without them, is unchanged).
SNAPSHOT_FIELDS: dict[str, dict[str, JSON]] = {"FetchResponse": {"snapshot_id": None},
                                               "FetchSnapshotResponse": {"snapshot_id": None, "entries": []}}


def without_snapshot_defaults(value: JSON) -> JSON:
    """An encoded message without the KIP-630 fields that are at their "none" value."""
    if not isinstance(value, dict):
        return value
    unset = SNAPSHOT_FIELDS.get(str(value.get("type", "")))
    if not unset:
        return value
    return {k: v for k, v in value.items() if not (k in unset and v == unset[k])}


def wire(value: JSON) -> JSON:
    """Encoded model inputs or outputs as a replica sees them: a request's ``orphaned`` is the
    system model's mark (RAFT-MODEL-IGNORED-RESPONSES), not a field on the wire; KIP-630's
    fields at their "none" value are left off (``SNAPSHOT_FIELDS``)."""
    if isinstance(value, list):
        return [wire(v) for v in value]
    if isinstance(value, dict) and "orphaned" in value and str(value.get("type", "")).endswith("Request"):
        return {k: v for k, v in value.items() if k != "orphaned"}
    return without_snapshot_defaults(value)


@dataclass(frozen=True)
class Inject:
    """A request delivered to its destination that no replica has in flight (see
    :func:`injected_requests`)."""

    message: Request | LeaderOnlyRequest


@dataclass(frozen=True)
class IdleTimer:
    """A timer expiry that the model's replica ignores in its current role."""

    node: int
    input: Input


def by_category(actions: Iterable[Any], of_input: Callable[[Input], str | None]) -> list[tuple[str, Any]]:
    """The system actions by driver category, as the raft and voters drivers sort them: a
    delivery ``deliver``, a drop or duplicate ``network``, a crash, restart or reboot ``crash``,
    and a timer or request fired at a replica what ``of_input`` says of its input (None: left
    out)."""
    out: list[tuple[str, Any]] = []
    for action in actions:
        if isinstance(action, Deliver):
            out.append(("deliver", action))
        elif isinstance(action, Drop | Duplicate):
            out.append(("network", action))
        elif not isinstance(action, Fire) or isinstance(action.input, Crash | Restart):
            out.append(("crash", action))  # crash, restart, reboot
        elif (category := of_input(action.input)) is not None:
            out.append((category, action))
    return out


def _input_category(inp: Input) -> str:
    if isinstance(inp, ClientAppend):
        return "client"
    if isinstance(inp, FetchDue):
        return "fetch"
    if isinstance(inp, ResendDue):
        return "resend"  # RAFT-RULE-RESEND: a request sent again to a voter that has not answered
    if isinstance(inp, CheckQuorumTimeout):
        return "resign"
    if isinstance(inp, TakeSnapshot | CleanLog):
        return "snapshot"  # RAFT-DRIVE-SNAPSHOT (only where the target declares snapshots)
    return "timer"  # the timers that start or back off an election


# The category of the macros only a guided path's probes take (RAFT-DRIVE-PROBE). It is no
# lockstep rule (not in RaftDriver.categories: the random runs never draw it) and the guide's
# graph leaves it out (RaftDriver.unguided); it is offered as a candidate all the same, because
# a run, guided or replayed (the minimiser), takes only what the driver offers in a category.
PROBE = "probe"


def probe_candidates(state: Raft) -> list[tuple[str, Any]]:
    """The macros of category PROBE in ``state``: the three mid-round rounds at every voter
    pair (RAFT-DRIVE-MID-ROUND), a held fetch answer at every follower (macros.HeldFetch,
    RAFT-DRIVE-STALE-ANSWER), a retry (macros.Retry, RAFT-DRIVE-RESEND) for every voter a
    live replica awaits an answer from, and a held standard vote answer to every kip-996
    candidate (macros.HeldGrant, RAFT-DRIVE-HELD-GRANT)."""
    out: list[tuple[str, Any]] = [(PROBE, kind(m.node, m.voter)) for _, m in macros.mid_round_candidates(state)
                                  if isinstance(m, macros.FirstAnswer)
                                  for kind in (macros.FirstAnswer, macros.AbandonRound, macros.LateVote)]
    live = [n for n in state.nodes if not isinstance(n.role, Down)]
    out += [(PROBE, macros.HeldFetch(n.id)) for n in live if isinstance(n.role, Follower)]
    # RAFT-DRIVE-HELD-BEGIN-ANSWER's macro: a voter following its leader, not fetched in its epoch
    out += [(PROBE, macros.HeldBeginAnswer(n.role.leader, n.id)) for n in live
            if isinstance(n.role, Follower) and n.is_voter and not n.role.fetched and n.role.leader is not None]
    out += [(PROBE, macros.Retry(n.id, to)) for n in live for to in node_mod.unanswered(n)]
    # a kip-996 candidate's standard vote answer held until it is prospective (RAFT-DRIVE-HELD-GRANT)
    out += [(PROBE, macros.HeldGrant(m)) for m in sorted(state.network.distinct(), key=repr)
            if isinstance(m, VoteResponse) and not m.pre_vote and state.node(m.dst).pre_vote
            and isinstance(state.node(m.dst).role, Candidate)]
    # a follower's answer to its leader's BeginQuorumEpoch (RAFT-DRIVE-CHECK-QUORUM-ACK), only
    # where the model keeps the check-quorum period (the target declares it)
    out += [(PROBE, macros.BeginEpochAnswer(n.role.leader, n.id)) for n in live
            if isinstance(n.role, Follower) and n.is_voter and n.check_quorum_period]
    return out


def _leading(state: Raft, leader: int) -> Leader | None:
    """Replica ``leader``'s role if it leads, else None."""
    role = state.node(leader).role
    return role if isinstance(role, Leader) else None


def _followers_of(state: Raft, leader: int) -> list[int]:
    """The voters that follow ``leader`` in its epoch."""
    return [n.id for n in state.nodes if n.is_voter and isinstance(n.role, Follower)
            and n.role.leader == leader and n.epoch == state.node(leader).epoch]


class RaftDriver(macros.MacroSteps[RaftModel]):
    """Lockstep driver for ``raft`` (see the module docstring)."""

    protocol = "raft"
    # config["model_variant"]: a variant of model.raft.variants the model runs instead (what
    # --accept NAME of a catalogued deviation, or --model-variant, asks for); one at a time.
    takes_model_variant = True

    # RaftDriver._fed's last answer: (state before, action, [(receiver before, input)])
    _fed_memo: tuple[Raft, Any, list[tuple[Node, Input]]] | None = None

    def __init__(self, config: dict[str, JSON], bounds: dict[str, int] | None = None) -> None:
        from kspec.model.raft.variants import CATALOGUE, DEVIATIONS, compose

        variants = {**CATALOGUE, **DEVIATIONS}

        self.config = {**CONFIGS[0], **config}
        self.variant = str(self.config.get("model_variant") or "")
        # The model predicts the state machine's callbacks too (RAFT-OBS-LISTENER) unless the
        # target declines them: a target is held to the listener contract by default, and one
        # without a listener says so (model_config {"listener": false}; an exec: target in its
        # hello answer). A target that could forget to opt in would have every listener bug
        # conform. "listener": "data" is Kafka 3.3-3.5's listener API (handleCommit carries data
        # records only: ListenerRules.data_only), chosen by the target's release.
        self.listening = bool(self.config.get("listener", True))
        data_only = self.config.get("listener") == "data"
        extra: dict[str, Any] = {"listener": ListenerRules(data_only=data_only) if self.listening else None}
        if self.variant:
            # Several deviations at once ("a+b", as --accept of several asks) compose when at
            # most one of them changes the replica's step; the listener rules of each apply.
            names = self.variant.split("+")
            unknown = [n for n in names if n not in variants]
            # (a variant that changes only some inputs' steps composes: variants.compose)
            changing = [variants[n] for n in names if n in variants and variants[n].step is not node_mod.step]
            try:
                composed = compose(changing)
            except ValueError:
                unknown = unknown or ["+"]
            if unknown:
                raise ValueError(f"raft: unknown model variant {self.variant!r} (one of {', '.join(sorted(variants))};"
                                 " several only when at most one changes the step on each input)")
            if changing:
                extra["step"] = composed
            rules = [r for n in names if (r := variants[n].listener) is not None]
            if self.listening:
                extra["listener"] = ListenerRules(
                    resigned_told=any(r.resigned_told for r in rules),
                    told_at_transition=any(r.told_at_transition for r in rules),
                    leader_told_at_epoch_start=any(r.leader_told_at_epoch_start for r in rules),
                    data_only=data_only)
        # RAFT-DRIVE-SNAPSHOT: KIP-630's snapshots only for a target that declares them
        # (model_config {"snapshots": true}; "below-start" is Kafka 3.3-3.5's listener, which loads
        # a snapshot only below the log start: ListenerRules.snapshot_below_start_only).
        self.snapshots = bool(self.config.get("snapshots", False))
        if self.snapshots:
            self.categories = (*type(self).categories, "snapshot")
            if self.config.get("snapshots") == "below-start" and isinstance(extra["listener"], ListenerRules):
                extra["listener"] = replace(extra["listener"], snapshot_below_start_only=True)
        # RAFT-RULE-CHECK-QUORUM-PERIOD only for a target that declares it (model_config
        # {"check_quorum_period": true}): for any other the model runs without it
        # (Node.check_quorum_period), so no leader is ever renewed and every CheckQuorumTimeout
        # the target is sent is one the model resigns at (or ignores, where a majority fetched
        # since the last reset), as before session 19; RAFT-DRIVE-CHECK-QUORUM-ACK is not run.
        self.check_quorum_period = bool(self.config.get("check_quorum_period", False))
        told = extra["listener"]
        self.leader_told_at_epoch_start = isinstance(told, ListenerRules) and told.leader_told_at_epoch_start
        replicas = int(self.config["voters"]) + int(self.config["observers"])
        # RAFT-DRIVE-FETCH-BUDGET: five fetches a replica in the shapes with four or five
        # replicas, so two replications to every follower and a macro after them (a late
        # answer, a catch-up) fit (eight, the three-replica budget, ran out after one
        # replication to three followers and a catch-up).
        fetches = {"max_fetches": int(BOUNDS["max_fetches"]) if replicas <= 3 else 5 * replicas}
        self.model = RaftModel(voters=int(self.config["voters"]), observers=int(self.config["observers"]),
                               pre_vote=bool(self.config["pre_vote"]), kip853=bool(self.config.get("kip853")),
                               first_id=int(self.config.get("first_id", 1)),
                               check_quorum_period=self.check_quorum_period,
                               **{**BOUNDS, **fetches, **(SNAPSHOT_BOUNDS if self.snapshots else {}), **(bounds or {})},
                               **extra)
        props = raft_properties()
        self._always = [p for p in props if p.kind == "always"]
        self._always_step = [p for p in props if p.kind == "always_step"]

    def nodes(self) -> list[int]:
        return list(self.model.replica_ids)

    def node_config(self, node: int) -> dict[str, JSON]:
        # "listener": the target registers a listener on each replica and reports its callbacks
        # as outputs (RAFT-OBS-LISTENER).
        config: dict[str, JSON] = {"voters": sorted(self.model.voter_ids), "pre_vote": self.model.pre_vote,
                                   "kip853": self.model.kip853, "listener": self.listening}
        if self.snapshots:
            config["snapshots"] = True  # RAFT-DRIVE-SNAPSHOT (absent for a target without them)
        if self.check_quorum_period:
            config["check_quorum_period"] = True  # RAFT-RULE-CHECK-QUORUM-PERIOD (absent where undeclared)
        return config

    def init_state(self) -> Raft:
        return self.model.init_states()[0]

    # (not "idle": that is the lockstep machine's own rule for a state where nothing is enabled)
    categories: tuple[str, ...] = ("deliver", "fetch", "resend", "timer", "client", "payload", "resign", "network",
                                  "crash",
                  "idle_timer", "idle_fetch", "inject", "leader_only", *macros.CATEGORIES, *macros.RAFT_CATEGORIES)
    # Deliveries and fetches carry the protocol; most random walks that reach deep states
    # deliver and fetch a lot. Several rules per category also make it rare that swarm testing
    # switches a whole category off (each rule is off with the run's probability p).
    # The macros (conformance/drivers/macros.py) take a replication, an election or a lost
    # uncommitted suffix in one step.
    # Injected requests (about 20 a replica a state) are left to the random runs: in the guided
    # graph they would fill every level's beam with states one request away from the last.
    # A guided path ends with a few of them instead (``probes``, RAFT-DRIVE-PROBE).
    # The payloads other than a run's guided one (RAFT-DRIVE-PAYLOAD) too: six more client
    # transitions per leader state would crowd the beam the same way.
    # Category ``probe`` (PROBE) is not a lockstep rule at all: see probe_candidates.
    # The fetches due at a voter other than the replica's leader (RAFT-DRIVE-FETCH-ELSEWHERE, up to
    # four a replica a state, each a self-loop) likewise: a guided path ends with one at every
    # replica instead.
    unguided = ("inject", "leader_only", "payload", "idle_fetch", PROBE)
    # RAFT-DRIVE-LEADER-ONLY's RPCs are KIP-595's and drawn for every target; a replica written
    # without them declares the category unsupported (the error line on their first input says so).
    declinable = {"leader_only": "FetchSnapshotRequest and DescribeQuorumRequest (RAFT-DRIVE-LEADER-ONLY)",
                  "idle_fetch": "FetchDue at a voter the replica must not fetch from (RAFT-DRIVE-FETCH-ELSEWHERE)"}
    # A response delivered twice (macros.DeliverTwice) is its own category, not one network
    # fault among the drops and copies of every message: a run with faults meets it often.
    weights = {"inject": 2, "deliver": 5, "fetch": 3, "resend": 2, "timer": 2, "client": 2, "resign": 2, "replicate": 2,
               "depose": 2, "redeliver": 2}

    def candidates(self, state: Raft) -> list[tuple[str, Any]]:
        """The model's actions by category (cheap: :meth:`resolve` checks them), then the
        idle timers of the live replicas; without ``faults``, none of the FAULTS categories."""
        out = with_payloads(state, by_category(self.model.actions(state), _input_category))
        observers = frozenset(self.model.replica_ids) - self.model.voter_ids
        for n in state.nodes:
            if not isinstance(n.role, Down):
                out += [("idle_timer", IdleTimer(n.id, timer)) for timer in IDLE_TIMERS]
                # RAFT-DRIVE-IDLE: a client append at a replica that does not lead changes nothing.
                out.append(("idle_timer", IdleTimer(n.id, ClientAppend())))
                out += [("idle_fetch", idle) for idle in idle_fetches(n)]
                out += [("idle_timer", idle) for idle in idle_resends(state, n)]
                out += [("inject", Inject(m)) for m in injected_requests(state, n, observers)]
                out += [("leader_only", Inject(m)) for m in leader_only_requests(state, n, observers)]
                if self.snapshots:
                    out += [("snapshot", idle) for idle in refused_snapshots(n)]
                    out += [("snapshot", idle) for idle in refused_cleans(n)]
        out += macros.candidates(state)
        out += macros.raft_candidates(state)
        out += probe_candidates(state)
        if max(n.epoch for n in state.nodes) >= int(self.model.bounds["max_epoch"]):
            # RAFT-DRIVE-DIVERGENT-EPOCHS: at the epoch bound, a deposition past it and the old
            # leader's catch-up (category PROBE: only that start probe takes it)
            out += [(PROBE, macros.PastBound((macros.ElectWithout(m.successor, m.leader), macros.CatchUp(m.leader))))
                    for _, m in macros.candidates(state) if isinstance(m, macros.Depose)]
        if not self.config["faults"]:
            out = [(category, action) for category, action in out if category not in FAULTS]
        return out

    def probes(self, state: Raft, k: int) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-PROBE: a guided path ends with injected requests (RAFT-DRIVE-INJECT) at
        every live replica in the role the path left it in (an observer that follows no one
        first catches up with the leader, if one leads; with ``faults``, every timer an
        observer's role ignores and the ``k``-th at a voter, RAFT-DRIVE-IDLE): a well-formed pre-vote (kip-996) and
        vote of the replica's own epoch (RAFT-DRIVE-WELL-FORMED: where its role alone decides
        the answer), then one vote or pre-vote of any kind and one other request, each the
        ``k``-th of its pool (rotating over the configuration's paths), so a receiver-side rule
        (a leader refusing an up-to-date pre-vote, an observer refusing a KIP-595 vote, a
        resigned leader refusing a fetch) is judged in guided runs too, at every role a path
        ends in; last the ``k``-th leader-only request (RAFT-DRIVE-LEADER-ONLY)."""
        observers = frozenset(self.model.replica_ids) - self.model.voter_ids
        out: list[tuple[str, Any]] = []
        if self.config["pre_vote"] and self.config["faults"] and k % 4 == 2:
            # RAFT-DRIVE-NEW-LEADER-PRE-VOTE first, on one path in four: it needs the leader the
            # path ends with, which the probes below (check quorum, timer chains) depose
            out, state = self._new_leader_pre_vote_probe(state)
        # First a canvass where one is enabled (the k-th, rotating): the state after it lies
        # past the guide's beam, and the lost pre-vote it ends with is where a prospective
        # must keep its vote (RAFT-KIP996-LOSS), which no path reached before.
        canvasses = [(c, m) for c, m in macros.raft_candidates(state) if isinstance(m, macros.Canvass)]
        for j in range(len(canvasses)):
            category, macro = canvasses[(k + j) % len(canvasses)]
            after = self.resolve(state, macro)
            if after is not None:
                out.append((category, macro))
                state = after
                break
        else:
            # RAFT-DRIVE-MID-ROUND, on every other path: a voter stands and one answer arrives,
            # so the requests below meet a tally neither empty nor decided
            out_mid, state = self._mid_round_probe(state, k)
            out += out_mid
        # An observer that follows no one while a replica leads catches up first (a fetch
        # round trip makes it the leader's follower), so its follower role is probed too: no
        # guided path ended there, and random runs reach it rarely.
        # (Only while one leads: CatchUp is offered only then, and a guided run takes only what
        # is offered. An observer that a resigned leader's followers point at caught up here,
        # and the run stopped at it.)
        leading = any(isinstance(n.role, Leader) for n in state.nodes)
        lead_epoch = max((n.epoch for n in state.nodes if isinstance(n.role, Leader)), default=0)
        for n in state.nodes:
            if leading and not n.is_voter and not isinstance(n.role, Down | Follower):
                # RAFT-DRIVE-OBSERVER-EPOCH (kip-853, kip-996): an observer behind the leader's
                # epoch first learns that epoch without its leader (a vote of it from replica
                # 9, RAFT-KIP853-OPEN-VOTE), as one that fetched a voter mid-election does, so
                # its catch-up meets the answer of its own epoch that names the leader
                vote = _injected_vote(state, n, UNKNOWN_REPLICA, lead_epoch)
                if n.open_votes and n.epoch < lead_epoch and vote is not None:
                    voted = self.resolve(state, Inject(vote))
                    if voted is not None:
                        out.append(("inject", Inject(vote)))
                        state = voted
                catch_up = macros.CatchUp(n.id)
                after = self.resolve(state, catch_up)
                if after is not None and isinstance(after.node(n.id).role, Follower):
                    out.append(("catch_up", catch_up))
                    state = after
        if self.config["faults"]:
            late, state = self._late_copy_probe(state, k)
            out += late
        # RAFT-DRIVE-LEADER-TABLE: every leader describes its quorum here, after the late copy
        # (a replication, or a resignation and re-election), before the probes below can move
        # it: DescribeQuorum is the one window on the leader's replica table (each voter's
        # fetch offset in its epoch, -1 before the voter fetched in it), which the
        # observation leaves out; the k-th leader-only probe below rarely picks it at a leader.
        # A resigned leader is asked too: it still names itself leader of its epoch, and must
        # answer NOT_LEADER_OR_FOLLOWER (RAFT-RULE-DESCRIBE-QUORUM), which the rotation below
        # reaches only where a path ends resigned and the k-th request is the describe.
        for n in state.nodes:
            if isinstance(n.role, Leader | Resigned):
                describe = Inject(DescribeQuorumRequest(NO_REPLICA, n.id, True))
                if self.resolve(state, describe) is not None:
                    out.append(("leader_only", describe))
        for replica in self.model.replica_ids:
            node = state.node(replica)
            if self.config["faults"] and not isinstance(node.role, Down):
                # RAFT-DRIVE-IDLE at the path's end: every timer the role ignores at an observer,
                # the k-th at a voter (they change nothing: the role after is the same)
                timers = [*IDLE_TIMERS, ClientAppend()]
                chosen = timers if not node.is_voter else [timers[k % len(timers)]]
                for timer in chosen:
                    idle = IdleTimer(replica, timer)
                    if self.resolve(state, idle) is not None:
                        out.append(("idle_timer", idle))
            if not isinstance(node.role, Down):
                # RAFT-DRIVE-FETCH-ELSEWHERE at the path's end, with or without faults: the
                # (k // 2)-th voter (rotating) other than the one the replica may fetch from (k // 2:
                # the odd paths' mid-round probe often leaves no leader to follow)
                elsewhere = idle_fetches(node)
                for j in range(len(elsewhere)):
                    idle = elsewhere[(k // 2 + j) % len(elsewhere)]
                    if self.resolve(state, idle) is not None:
                        out.append(("idle_fetch", idle))
                        break
            for category, pool in _PROBE_POOLS:
                node = state.node(replica)
                if isinstance(node.role, Down):
                    break
                found = pool(state, node, observers)
                for j in range(len(found)):
                    action = Inject(found[(k + j) % len(found)])
                    after = self.resolve(state, action)
                    if after is not None:
                        out.append((category, action))
                        state = after
                        break
        heartbeat, state = self._heartbeat_probe(state)
        out += heartbeat
        if self.config["pre_vote"]:
            truncated, state = self._truncated_pre_vote_probe(state)
            out += truncated
        if self.config["faults"]:
            acked, state = self._acked_resend_probe(state, k)
            resend, state = self._resend_probe(state, k)
            out += acked + resend
        chain, state = self._timer_chain_probe(state, k)
        duplicate, state = self._duplicate_vote_probe(state, k)
        long_payload, state = self._long_payload_probe(state, k)
        restarted, state = self._restarted_candidate_probe(state, k)
        ahead, state = self._notice_ahead_probe(state, k)
        return out + chain + duplicate + long_payload + restarted + ahead

    # RAFT-DRIVE-MISSED-ELECTION: (the role a voter holds while it misses the next epoch's
    # election, the request of that epoch it then meets), tried in this order at a start path's
    # end (:meth:`_missed_election_tail`): request-grid cells no run filled at seed 0 before it
    MISSED_PAIRS: tuple[tuple[type, str], ...] = (
        (Resigned, "end"), (Follower, "end"), (Follower, "begin"), (Candidate, "fetch"), (Prospective, "begin"),
        (Prospective, "end"), (Leader, "fetch"), (Candidate, "begin"), (Candidate, "end"))

    def _missed_pairs(self, config: Mapping[str, Any]) -> list[tuple[type, str]]:
        """The MISSED_PAIRS a configuration can reach: a prospective only with pre-vote, a
        resigned leader only with faults (its check-quorum timer), a fetch only from an observer."""
        return [(role, kind) for role, kind in self.MISSED_PAIRS
                if (role is not Prospective or config["pre_vote"]) and (role is not Resigned or config["faults"])
                and (kind != "fetch" or (config["observers"] and config.get("kip853")))]

    def _with_missed_election(self, probe: StartProbe) -> StartProbe:
        """``probe`` with RAFT-DRIVE-MISSED-ELECTION's steps after its script, where they fit
        (:meth:`_missed_election_tail`; same id: the start path is the probe's, one longer)."""
        def script(state: Raft) -> list[tuple[str, Any]]:
            steps = probe.script(state)
            if not steps:
                return steps
            # the state the probe's steps leave, replayed once (None where they do not replay:
            # then neither tail adds anything); the chained tail's from there past the missed
            # election's steps
            end = self._replay(state, steps)
            missed = self._missed_election_tail(end) if end is not None else []
            moved = self._replay(end, missed) if end is not None else None
            chained = self._chained_probe_tail(moved) if moved is not None else []
            last = self._replay(moved, chained) if moved is not None else None
            refetch = (self._refetch_tail(end, moved, last)
                       if end is not None and moved is not None and last is not None else [])
            # RAFT-DRIVE-HALF-REFUSED (session 27), last: from where the refetch leaves the run
            final = self._replay(last, refetch) if last is not None and refetch else last
            half = self._half_refused_tail(final) if final is not None else []
            return [*steps, *missed, *chained, *refetch, *half]
        return StartProbe(probe.id, script)

    def _half_refused_tail(self, end: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-HALF-REFUSED (session 27), last on the paths :meth:`_with_missed_election`
        builds; kip-595 (no pre-vote) with faults and an even voter set (two or four voters):
        the messages on the wire are lost; a voter A stands (:meth:`_stand`), its VoteRequests
        reach the voters B (half the voters less A), which grant it, its other requests are lost
        and the grants reach A (which stands on); a voter C stands in A's epoch, its VoteRequests
        reach A and the B, and their refusals reach C: refused by exactly half the voters, C can
        no longer win and backs off (RAFT-RULE-CANDIDATE: lost once the voters that have not
        refused are no majority; RAFT-RULE-BACKOFF). Its request to the last voter D is lost
        and its resend timer towards D fires (``idle_resends``): a candidate backing off sends
        nothing (RAFT-RULE-RESEND). No guided path had an even voter set refuse a candidate by
        exactly half (red team ``raft_scratch19:candidate-loss-counts-rejections``, a loss
        counted only once the refusals are a majority: random run 266 at one seed of two). All
        or nothing; each step only where the driver offers it; the first (A, C) pair that fits."""
        voters = sorted(self.model.voter_ids)
        if self.config["pre_vote"] or not self.config["faults"] or len(voters) % 2:
            return []
        half = len(voters) // 2
        clear = _Script(self, [], end)
        for m in sorted(end.network.distinct(), key=repr):
            while m in clear.s.network.distinct():
                if not clear.take("network", Drop(m)):
                    return []
        for a in voters:
            stood = self._stand(clear.s, a)
            if stood is None:
                continue
            epoch = stood[1].node(a).epoch
            for c in (v for v in voters if v != a):
                others = [v for v in voters if v not in (a, c)][:half - 1]
                run = _Script(self, [*clear.script, *stood[0]], stood[1])

                def ballot(kind: type, src: int, dst: int, granted: bool = False, run: _Script = run,
                           epoch: int = epoch) -> bool:
                    d = _ballot(run.s, kind, src, dst, epoch, granted)
                    return d is not None and run.take("deliver", d)

                def lose(src: int, dst: int, run: _Script = run, epoch: int = epoch) -> bool:
                    d = _ballot(run.s, VoteRequest, src, dst, epoch)
                    return d is not None and run.take("network", Drop(d.message))

                if not (all(ballot(VoteRequest, a, b) for b in others)
                        and all(lose(a, v) for v in voters if v not in (a, *others))
                        and all(ballot(VoteResponse, b, a, True) for b in others)):
                    continue
                ran = self._stand(run.s, c)
                if ran is None or ran[1].node(c).epoch != epoch:
                    continue
                run.script += ran[0]
                run.s = ran[1]
                refusers = [a, *others]
                if not (all(ballot(VoteRequest, c, r) for r in refusers)
                        and all(ballot(VoteResponse, r, c) for r in refusers)):
                    continue
                role = run.s.node(c).role
                if not (isinstance(role, Candidate) and role.epoch == epoch and role.backing_off
                        and not role.timed_out):
                    continue
                rest = [v for v in voters if v not in (c, *refusers)]
                if rest and lose(c, rest[0]) and run.take("idle_timer", IdleTimer(c, ResendDue(rest[0]))):
                    return run.script
        return []

    def _refetch_tail(self, before: Raft, moved: Raft, last: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-REFETCH (session 26), last on the paths :meth:`_with_missed_election`
        builds: each voter the missed-election tail moved (its role or epoch differs between
        ``before`` and ``moved``, where those steps start and end) and that is a follower in
        ``last``, where the chained tail leaves the run, fetches once from its leader
        (macros.RoundTrip, where the driver offers it). Every tail ended before a moved replica's
        next fetch, and the first fetch after a role change is what shows follower state wrongly
        carried across the transition (red team ``raft_scratch18:snapshot-fetch-survives-role-
        change``: a pending snapshot id kept past a role change escaped seeds 0 and 1)."""
        out: list[tuple[str, Any]] = []
        s = last
        for f in sorted(self.model.voter_ids):
            was, now = before.node(f), moved.node(f)
            role = s.node(f).role
            if ((type(was.role), was.epoch) == (type(now.role), now.epoch)
                    or not isinstance(role, Follower) or role.leader is None):
                continue
            trip = macros.RoundTrip(f)
            after = self._offered(s, "round_trip", trip)
            if after is not None:
                out.append(("round_trip", trip))
                s = after
        return out

    def _replay(self, state: Raft, steps: list[tuple[str, Any]]) -> Raft | None:
        """The state ``steps`` leave from ``state`` (each step through :meth:`resolve`), or None
        where one of them is not enabled."""
        s: Raft | None = state
        for _, action in steps:
            s = None if s is None else self.resolve(s, action)
        return s

    def _chained_probe_tail(self, end: Raft) -> list[tuple[str, Any]]:
        """Session 25: RAFT-DRIVE-HELD-BEGIN-ANSWER, RAFT-DRIVE-CHECK-QUORUM-OBSERVER and
        RAFT-DRIVE-PRE-VOTE-UNCOMMITTED have no start path of their own (session 24's, last in
        :meth:`start_probes`, cut the last planned paths out of the guided budget, and three
        catalogue catches with them): from ``end``, where a start probe's steps (with
        RAFT-DRIVE-MISSED-ELECTION's after them) leave the run (:meth:`_with_missed_election`
        replays them once for both tails), the first of them, in that order, whose script fits
        there (each takes the leader it finds, or elects the first voter); nothing where none
        fits."""
        few = len(self.model.voter_ids) in (3, 4)
        tails = [self._held_begin_answer_probe] if few else []
        if self.config["faults"] and self.config["observers"] and len(self.model.voter_ids) >= 3:
            tails.append(self._check_quorum_observer_probe)
        if self.config["pre_vote"] and few:
            tails.append(self._pre_vote_uncommitted_probe)
        if self.config["faults"] and len(self.model.voter_ids) >= 5:
            tails.append(self._split_vote_probe)
        if self.config["pre_vote"] and self.config["faults"]:
            tails.append(self._held_fetch_probe)
        for tail in tails:
            found = tail(end)
            if found:
                return found
        return []

    def _missed_election_tail(self, end: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-MISSED-ELECTION (session 24: chained onto the start paths, so that no planned
        path loses its place in the guided budget, where session 23's own start paths cut the last
        nine): from ``end``, where a start probe's steps leave the run, the first pair of
        :meth:`_missed_pairs` that fits (:meth:`_missed_election_probe`); nothing with fewer than
        three voters or where no pair fits (the election and epoch budgets spent)."""
        if len(self.model.voter_ids) < 3:
            return []
        for role, kind in self._missed_pairs(self.config):
            found = self._missed_election_probe(end, role=role, kind=kind)
            if found:
                return found
        return []

    def _missed_election_probe(self, state: Raft, role: type, kind: str) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-MISSED-ELECTION (session 23; since session 24 after a start probe's steps,
        :meth:`_missed_election_tail`; three voters or more): a voter F
        in ``role`` misses the next epoch's election, which another voter C wins without it
        (:meth:`_elect` without F), and then meets a request of that epoch from the cluster, of
        ``kind``: C's vote request, left on the wire (a late copy); C's BeginQuorumEpoch, left on
        the wire; C's EndQuorumEpoch (with faults C resigns at its check-quorum timer and the
        request is delivered, else C's notice injected, RAFT-DRIVE-INJECT); an observer's Fetch
        (kip-853: the observer hears of C's epoch without its leader, RAFT-DRIVE-OBSERVER-EPOCH's
        vote from replica 9, and asks F, a voter it may ask: RAFT-RULE-OBSERVER). Random runs and
        the guided paths reached a higher epoch's EndQuorumEpoch, BeginQuorumEpoch or Fetch at
        these roles seldom or never (RAFT-DRIVE-REQUEST-GRID: at seed 0 no EndQuorumEpoch ahead
        at a follower, candidate, prospective or resigned leader), and at a guided path's end the election and epoch
        budgets are mostly spent. Each step only where the driver offers it; nothing where F is
        not in ``role`` or no voter can win without it."""
        voters = sorted(self.model.voter_ids)
        for f in voters:
            node = state.node(f)
            if type(node.role) is not role:
                continue
            for c in (v for v in voters if v != f):
                elected = self._elect(state, c, without=f)
                if elected is None:
                    continue
                after = elected[1].node(f)
                if type(after.role) is not role or after.epoch >= elected[1].node(c).epoch:
                    continue
                found = self._missed_request(elected[1], c, f, kind)
                if found is not None:
                    return [*elected[0], *found[0]]
        return []

    def _missed_request(self, s: Raft, c: int, f: int, kind: str) -> tuple[list[tuple[str, Any]], Raft] | None:
        """:meth:`_missed_election_probe`'s last steps: a request of leader ``c``'s epoch, of
        ``kind``, delivered to ``f`` (still in an older epoch); the steps and the state after, or None."""
        offered = self._offered
        epoch = s.node(c).epoch
        script: list[tuple[str, Any]] = []

        def sent(state: Raft, kind_: type, src: int) -> Deliver | None:
            return next((Deliver(m) for m in sorted(state.network.distinct(), key=repr)
                         if isinstance(m, kind_) and (m.src, m.dst) == (src, f)
                         and (m.epoch or 0) > state.node(f).epoch
                         and not getattr(m, "pre_vote", False)), None)

        if kind == "vote":
            step: tuple[str, Any] | None = ("deliver", d) if (d := sent(s, VoteRequest, c)) else None
        elif kind == "begin":
            step = ("deliver", d) if (d := sent(s, BeginQuorumEpochRequest, c)) else None
        elif kind == "end":
            resigned = self._resign(s, c) if self.config["faults"] else None
            if resigned is not None:
                script, s = list(resigned[0]), resigned[1]
                step = ("deliver", d) if (d := sent(s, EndQuorumEpochRequest, c)) else None
            else:
                step = ("inject", Inject(EndQuorumEpochRequest(c, f, epoch, (), True)))
        else:
            observer = next((o for o in sorted(set(self.model.replica_ids) - self.model.voter_ids)
                             if not isinstance(s.node(o).role, Down)), None)
            vote = None if observer is None else _injected_vote(s, s.node(observer), UNKNOWN_REPLICA, epoch)
            if observer is None or vote is None or not s.node(observer).open_votes:
                return None
            # RAFT-DRIVE-OBSERVER-EPOCH's way: the observer hears of C's epoch without its leader
            # (a vote of it from replica 9, kip-853's open votes), then asks F
            for category, action in (("inject", Inject(vote)), ("fetch", Fire(observer, FetchDue(f)))):
                after = offered(s, category, action)
                if after is None:
                    return None
                script.append((category, action))
                s = after
            step = ("deliver", d) if (d := sent(s, FetchRequest, observer)) else None
        if step is None:
            return None
        after = offered(s, *step)
        return None if after is None else ([*script, step], after)

    def _notice_ahead_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-NOTICE-AHEAD, last on a guided path (nothing after it sees its state): each
        live replica still behind the latest epoch the run elected a leader in is sent that
        leader's notice of it, injected (RAFT-DRIVE-INJECT: it names the replica elected in that
        epoch), an EndQuorumEpoch on even paths and a BeginQuorumEpoch on odd ones
        (RAFT-DRIVE-REQUEST-GRID: a notice of an epoch ahead at the role the path left the
        replica in; elsewhere only RAFT-DRIVE-END-EPOCH-AHEAD's unattached voters and observers
        got an EndQuorumEpoch of an epoch ahead from a replica of the cluster)."""
        if not state.elected:
            return [], state
        epoch, leader = max(state.elected)
        out: list[tuple[str, Any]] = []
        for n in state.nodes:
            if n.id == leader or isinstance(n.role, Down) or n.epoch >= epoch:
                continue
            notice = Inject(EndQuorumEpochRequest(leader, n.id, epoch, (), True) if k % 2 == 0
                            else BeginQuorumEpochRequest(leader, n.id, epoch, True))
            after = self._offered(state, "inject", notice)
            if after is not None:
                out.append(("inject", notice))
                state = after
        return out, state

    def _check_quorum_ack_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-CHECK-QUORUM-ACK (a start probe, four or more voters, with faults): a voter
        stands (:meth:`_stand`) and its vote requests and the answers are delivered until it
        leads, its BeginQuorumEpoch requests reach the voters (they follow it), then (session 28)
        :meth:`_check_quorum_carry` where it fits and :meth:`_check_quorum_ack`. A leader that
        counts an acknowledgement as a fetch leads on where the protocol resigns (red team
        ``raft_scratch10:begin-epoch-ack-resets-check-quorum`` escaped seeds 0 and 1 while a
        CheckQuorumTimeout resigned whatever was counted, before RAFT-RULE-CHECK-QUORUM-PERIOD).
        All or nothing; each step only where the driver offers it."""
        offered = self._offered
        for c, script, s in self._each_elected(state, standing=True):
            epoch = s.node(c).epoch
            for kind in (VoteRequest, VoteResponse, VoteResponse, BeginQuorumEpochRequest):
                # requests, answers (an answer can arrive only once its request did), then the
                # winner's announcements
                for m in sorted(s.network.distinct(), key=repr):
                    if not (isinstance(m, kind) and c in (m.src, m.dst) and m.epoch == epoch
                            and not getattr(m, "pre_vote", False) and not getattr(m, "orphaned", False)):
                        continue
                    after = offered(s, "deliver", Deliver(m))
                    if after is not None:
                        script.append(("deliver", Deliver(m)))
                        s = after
            if _leading(s, c) is None:
                continue
            carry, carried = self._check_quorum_carry(s, c)
            ack = self._check_quorum_ack(carried, c)
            if ack:
                return [*script, *carry, *ack]
        return []

    def _check_quorum_carry(self, state: Raft, leader: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-CHECK-QUORUM-CARRY (session 28; before RAFT-DRIVE-CHECK-QUORUM-ACK's core,
        four or more voters): ``leader``'s followers fetch once each (macros.RoundTrip) until a
        majority fetched (the period renewed, the count cleared); one follower A fetches again
        (counted towards the next reset); the leader's CheckQuorumTimeout ends the renewed period
        (it leads on, A still counted: RAFT-RULE-CHECK-QUORUM-PERIOD); another follower B fetches:
        A, B and the leader are a majority of four or five, so the new period is renewed too; a
        second CheckQuorumTimeout: the leader leads on. Elsewhere the one path that judged a
        period of four or more voters started from an empty, unrenewed count, so a leader that
        forgets the voters counted before a renewed period's end resigns here where the model
        leads on (red team ``raft_scratch19:check-quorum-period-clears-fetched``, escaped seeds 0
        and 1). The steps and the state after (the count empty, the period not renewed: the core
        fits there), or none and ``state`` where they do not fit (all or nothing)."""
        run = _Script(self, [], state)
        timeout = Fire(leader, CheckQuorumTimeout())
        followers = _followers_of(state, leader)
        for f in followers:
            role = _leading(run.s, leader)
            if role is None or role.renewed or not run.take("round_trip", macros.RoundTrip(f)):
                break
        role = _leading(run.s, leader)
        if role is None or not role.renewed or role.fetched:
            return [], state
        for a, b in ((a, b) for a in followers for b in followers if a != b):
            trial = _Script(self, run.script, run.s)
            if not (trial.take("round_trip", macros.RoundTrip(a)) and trial.take("resign", timeout)):
                continue
            kept = _leading(trial.s, leader)
            if kept is None or kept.renewed or kept.fetched != {a}:
                continue
            if not (trial.take("round_trip", macros.RoundTrip(b)) and trial.take("resign", timeout)):
                continue
            end = _leading(trial.s, leader)
            if end is not None and not end.renewed and not end.fetched:
                return trial.script, trial.s
        return [], state

    def _check_quorum_ack(self, state: Raft, leader: int) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-CHECK-QUORUM-ACK's core at ``leader``, whose check-quorum count is empty and
        whose period is not renewed: one follower B's BeginQuorumEpoch answer arrives
        (macros.BeginEpochAnswer), another follower A fetches once (macros.RoundTrip), then the
        leader's CheckQuorumTimeout: the leader and A alone are no majority of four or more
        voters, so it resigns (RAFT-RULE-CHECK-QUORUM-PERIOD)."""
        offered = self._offered
        role = _leading(state, leader)
        if role is None or role.fetched or role.renewed:
            return []
        timeout = Fire(leader, CheckQuorumTimeout())
        followers = _followers_of(state, leader)
        for a, b in ((a, b) for a in followers for b in followers if a != b):
            ack = macros.BeginEpochAnswer(leader, b)
            acked = offered(state, PROBE, ack)
            trip = macros.RoundTrip(a)
            fetched = None if acked is None else offered(acked, "round_trip", trip)
            counted = None if fetched is None else _leading(fetched, leader)
            if fetched is None or counted is None or counted.fetched != {a} or counted.renewed:
                continue
            resigned = offered(fetched, "resign", timeout)
            if resigned is not None and _leading(resigned, leader) is None:
                return [(PROBE, ack), ("round_trip", trip), ("resign", timeout)]
        return []

    def _long_payload_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-LONG-PAYLOAD, last on every fourth guided path (``k % 4 == 3``): where a
        leader's client append is offered, the longest payload (RAFT-DRIVE-PAYLOAD's 256 bytes,
        category ``payload``, which the guided graph leaves to the random runs), so a record
        whose length a port keeps in one byte is seen by a guided run, not by a random draw of
        that category. Nothing where no leader may append (the append budget spent)."""
        if k % 4 != 3:
            return [], state
        longest = max(PAYLOADS, key=len)
        for category, action in self.candidates(state):
            if category == "payload" and isinstance(action, Fire) and action.input == ClientAppend(longest):
                after = self.resolve(state, action)
                if after is not None:
                    return [(category, action)], after
        return [], state

    def _duplicate_vote_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-DUPLICATE-VOTE, last on a guided path (four or more voters, with faults):
        a voter (the ``k``-th that can, rotating) stands (its timer; with pre-vote, the pre-vote
        requests and answers delivered one at a time until it is a candidate), one VoteRequest
        is delivered to a voter that grants it, and that VoteResponse arrives twice
        (macros.DeliverTwice, category ``redeliver``). A candidate's votes are a set (Raft's
        ``votesGranted``; Kafka's ``CandidateState`` records a voter's grant once): with a
        majority of three, itself, one grant and its copy are no majority, and a candidate that
        counts answers wins there. Random runs seldom deliver a copy of the one answer that
        separates two and three counted votes (red team ``raft:duplicate-vote-counted``: caught
        by random runs ~208-253 at seed 0 in session 10, escaped it since). Each step only where
        the driver offers it; nothing where the model enables no such round."""
        voters = sorted(self.model.voter_ids)
        if len(voters) < 4 or not self.config["faults"]:
            return [], state
        for j in range(len(voters)):
            found = self._stand_with_one_copy(state, voters[(k + j) % len(voters)])
            if found is not None:
                return found
        return [], state

    def _offered(self, s: Raft, category: str, action: Any) -> Raft | None:
        """The state after ``action`` where the driver offers it in ``category`` (a guided run
        takes only what is offered), else None."""
        return self.resolve(s, action) if (category, action) in self.candidates(s) else None

    def _restarted_candidate_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-RESTARTED-CANDIDATE (with faults), last on a guided path: a voter (the
        ``k``-th that can, rotating) stands until it is a candidate (:meth:`_stand`), reboots
        (RAFT-MODEL-REBOOT: a candidate of its persisted epoch, its vote for itself counted,
        RAFT-RULE-RESTART), and one of its new VoteRequests is delivered and answered: with three
        voters that one grant elects it. A reboot is one random draw among many and the guide's
        graph rarely keeps a candidate's (red team
        ``raft_scratch9:restarted-candidate-forgets-own-vote``: a restart that rebuilt the
        role but not the tally escaped at seeds 0 and 1). Nothing where the crash budget is spent
        or no voter can stand."""
        if not self.config["faults"]:
            return [], state
        for c, script, s in self._each_elected(state, standing=True, first=k):
            rebooted = self._offered(s, "crash", Reboot(c))
            if rebooted is None:
                continue
            for request in sorted((m for m in rebooted.network.distinct()
                                   if isinstance(m, VoteRequest) and m.src == c), key=repr):
                asked = self._offered(rebooted, "deliver", Deliver(request))
                answer = None if asked is None else next(
                    (m for m in asked.network.distinct() if isinstance(m, VoteResponse) and m.dst == c), None)
                answered = None if answer is None or asked is None else self._offered(asked, "deliver", Deliver(answer))
                if answered is not None and answer is not None:
                    return [*script, ("crash", Reboot(c)), ("deliver", Deliver(request)),
                            ("deliver", Deliver(answer))], answered
        return [], state

    def _each_elected(self, state: Raft, *, standing: bool = False,
                      first: int = 0) -> Iterator[tuple[int, list[tuple[str, Any]], Raft]]:
        """Each voter ``c``, in id order from the ``first``-th (rotating), that :meth:`_elect`
        elects from ``state`` (with ``standing``, that :meth:`_stand` makes a candidate): ``c``,
        the steps and the state after. Lazily, so a probe that takes the first that fits tries no
        other."""
        voters = sorted(self.model.voter_ids)
        for j in range(len(voters)):
            c = voters[(first + j) % len(voters)]
            found = self._stand(state, c) if standing else self._elect(state, c)
            if found is not None:
                yield c, found[0], found[1]

    def _stand_with_one_copy(self, state: Raft, c: int) -> tuple[list[tuple[str, Any]], Raft] | None:
        """Voter ``c`` stands, one voter grants its vote, the answer arrives twice (see
        :meth:`_duplicate_vote_probe`); the steps and the state after, or None."""
        offered = self._offered
        stood = self._stand(state, c)
        if stood is None:
            return None
        script, s = stood
        requests = sorted((m for m in s.network.distinct() if isinstance(m, VoteRequest) and not m.pre_vote
                           and m.src == c and m.epoch == s.node(c).epoch), key=repr)
        for request in requests:
            asked = offered(s, "deliver", Deliver(request))
            if asked is None:
                continue
            answer = next((m for m in asked.network.distinct() if isinstance(m, VoteResponse) and not m.pre_vote
                           and m.src == request.dst and m.dst == c and m.granted), None)
            if answer is None:
                continue
            twice = offered(asked, "redeliver", macros.DeliverTwice(answer))
            if twice is not None and isinstance(twice.node(c).role, Candidate):
                return [*script, ("deliver", Deliver(request)), ("redeliver", macros.DeliverTwice(answer))], twice
        return None

    def _stand(self, state: Raft, c: int) -> tuple[list[tuple[str, Any]], Raft] | None:
        """Voter ``c``'s fetch or election timer makes it stand and, with pre-vote, its pre-vote
        requests and answers are delivered one at a time until it is a candidate: the steps and
        the state where it is a candidate with its vote requests on the wire, or None."""
        offered = self._offered

        def standing(s: Raft) -> bool:
            return isinstance(s.node(c).role, Candidate | Prospective)

        if isinstance(state.node(c).role, Down | Leader | Candidate | Prospective):
            return None
        script: list[tuple[str, Any]] = []
        s = state
        for timer in (FetchTimeout(), ElectionTimeout()):
            after = offered(s, "timer", Fire(c, timer))
            if after is not None and standing(after):
                script.append(("timer", Fire(c, timer)))
                s = after
                break
        else:
            return None
        epoch = s.node(c).epoch
        # with pre-vote: the round's requests, then their answers, one at a time until it stands
        for _ in range(4 * len(self.model.voter_ids)):
            if not isinstance(s.node(c).role, Prospective):
                break
            pending = sorted((m for m in s.network.distinct() if isinstance(m, VoteRequest | VoteResponse)
                              and m.pre_vote and (m.src == c or m.dst == c)), key=repr)
            step = next(((d, a) for m in pending if (a := offered(s, "deliver", d := Deliver(m))) is not None), None)
            if step is None:
                return None
            script.append(("deliver", step[0]))
            s = step[1]
        if not isinstance(s.node(c).role, Candidate) or s.node(c).epoch < epoch:
            return None
        return script, s

    def _elect(self, state: Raft, c: int, without: int | None = None) -> tuple[list[tuple[str, Any]], Raft] | None:
        """Voter ``c`` stands (:meth:`_stand`) and its vote requests and their answers are
        delivered one at a time until it leads: the steps and the state where it leads with
        its BeginQuorumEpoch requests on the wire, or None. With ``without``, that voter's
        ballots are never delivered: ``c`` wins without it, and its request to ``without``
        stays on the wire (so that voter stays in its older epoch)."""
        stood = self._stand(state, c)
        if stood is None:
            return None
        script, s = list(stood[0]), stood[1]
        for _ in range(4 * len(self.model.voter_ids)):
            if isinstance(s.node(c).role, Leader):
                return script, s
            ballots = sorted((m for m in s.network.distinct() if isinstance(m, VoteRequest | VoteResponse)
                              and c in (m.src, m.dst) and without not in (m.src, m.dst)), key=repr)
            step = next(((d, a) for m in ballots if (a := self._offered(s, "deliver", d := Deliver(m))) is not None),
                        None)
            if step is None:
                return None
            script.append(("deliver", step[0]))
            s = step[1]
        return (script, s) if isinstance(s.node(c).role, Leader) else None

    def _heartbeat_probe(self, state: Raft) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-HEARTBEAT, after the per-replica probes: a voter follower (one that has
        fetched from its leader first, kip-996) is sent its leader's BeginQuorumEpoch of its
        epoch again (RAFT-DRIVE-INJECT; Kafka 3.9+ sends it every fetch timeout / 2, KAFKA-16536,
        and a resend or a late copy does the same), which changes nothing (RAFT-RULE-BEGIN-EPOCH:
        a follower of that epoch and leader is unchanged); then, with pre-vote, a well-formed
        pre-vote of its epoch whose log is not behind its own, which the role alone decides
        (RAFT-KIP996-PRE-VOTE-GRANT: refused once it fetched). The probes before send the
        pre-vote first and the other requests after it, so a follower that rebuilds its state on
        the repeated announcement (and forgets it fetched) was never asked after it (red team
        ``raft_scratch9:begin-epoch-resets-follower-state``). Nothing where no voter follows a
        leader of its epoch."""
        followers = sorted(((n, n.role) for n in state.nodes if n.is_voter and isinstance(n.role, Follower)),
                           key=lambda f: (not f[1].fetched, f[0].id))
        for n, role in followers:
            leader = state.node(role.leader)
            if not (isinstance(leader.role, Leader) and leader.epoch == n.epoch):
                continue
            beat = Inject(BeginQuorumEpochRequest(role.leader, n.id, n.epoch, True))
            after = self.resolve(state, beat)
            if after is None:
                continue
            vote, after = self._up_to_date_vote(after, n.id, pre_vote=True) if self.config["pre_vote"] else ([], after)
            return [("inject", beat), *vote], after
        return [], state

    def _truncated_pre_vote_probe(self, state: Raft) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-TRUNCATED-PRE-VOTE (kip-996), after the other probes: a deposition
        (macros.Depose: a follower lacking the leader's newest record wins, the old leader
        fetches from it) taken step by step up to the answer the old leader truncates on, then
        a well-formed pre-vote of its epoch whose log is not behind its own. A truncating
        answer is a fetch from the leader (RAFT-KIP996-PRE-VOTE-GRANT), so it refuses; the
        macro's next round trip appends, which hides a follower that counts only appending
        answers (red team `raft_scratch7:truncating-fetch-not-counted`). The leader first
        appends a record where no follower lacks one. Nothing where no deposition truncates."""
        starts: list[tuple[list[tuple[str, Any]], Raft]] = [([], state)]
        leaders = [n for n in state.nodes if isinstance(n.role, Leader)]
        if leaders:
            append = Fire(leaders[0].id, ClientAppend(guided_payload(state)))
            appended = self.resolve(state, append)
            if appended is not None:
                starts.append(([("client", append)], appended))
        for prefix, start in starts:
            for _category, macro in macros.candidates(start):
                if not isinstance(macro, macros.Depose):
                    continue
                steps, s = list(prefix), start
                for action, after in self.sub_steps(start, macro):
                    found = next((c for c, a in by_category(self.model.actions(s), _input_category)
                                  if a == action), None)
                    if found is None:
                        break
                    steps.append((found, action))
                    truncated = len(after.node(macro.leader).log) < len(s.node(macro.leader).log)
                    s = after
                    if truncated:
                        vote, s = self._up_to_date_vote(s, macro.leader, pre_vote=True)
                        if vote:
                            return steps + vote, s
                        break
        return [], state

    def _new_leader_pre_vote_probe(self, state: Raft) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-NEW-LEADER-PRE-VOTE (kip-996, with faults), first on every fourth guided
        path (``k % 4 == 2``): a voter
        that follows its leader and has fetched from it (after a catch-up if it has not) is
        moved straight to the next epoch's follower by an election it does not hear
        (macros.ElectWithout; the leader resigns first, check quorum, since neither a leader nor
        a follower that fetched grants the winner's pre-vote), then asked a well-formed pre-vote
        of that epoch whose log is not behind its own, before it fetches from the new leader. It
        grants (RAFT-KIP996-PRE-VOTE-GRANT: it has not fetched since it became follower, Kafka's
        new ``FollowerState``); a replica that keeps the fetched flag across its followings
        refuses (red team ``raft_scratch8:pre-vote-fetched-flag-survives-new-epoch``). Random
        runs and the probes before this one meet such a follower only after its first fetch,
        or with a claim the log check refuses. Nothing where no such election is enabled."""
        leaders = [n for n in state.nodes if isinstance(n.role, Leader)]
        if not leaders:
            return [], state
        # every voter follower catches up first (where it lags): the winner's pre-vote must be
        # granted by the resigned leader's log check, the absent voter must have fetched and
        # know a high watermark (ElectWithout is offered only for such a voter)
        prefix: list[tuple[str, Any]] = []
        start = state
        for n in state.nodes:
            lags = n.is_voter and isinstance(n.role, Follower) and not (
                n.role.fetched and n.high_watermark and len(n.log) == len(leaders[0].log))
            caught = self.resolve(start, macros.CatchUp(n.id)) if lags else None
            if caught is not None:
                prefix.append(("catch_up", macros.CatchUp(n.id)))
                start = caught
        resigning = self._resign(start, leaders[0].id)
        if resigning is None:
            return [], state
        prefix += resigning[0]
        resigned = resigning[1]
        # its EndQuorumEpoch notices are lost (they would fill the in-flight bound the election
        # needs, and change nothing at followers that know their leader)
        for message in sorted(resigned.network.distinct(), key=repr):
            if isinstance(message, EndQuorumEpochRequest) and message not in start.network.distinct():
                lost = self.resolve(resigned, Drop(message))
                if lost is not None:
                    prefix.append(("network", Drop(message)))
                    resigned = lost
        for category, macro in macros.raft_candidates(resigned):
            if not isinstance(macro, macros.ElectWithout):
                continue
            absent = resigned.node(macro.absent).role
            if not (isinstance(absent, Follower) and absent.fetched):
                continue
            after = self.resolve(resigned, macro)
            role = None if after is None else after.node(macro.absent).role
            if after is None or not (isinstance(role, Follower) and not role.fetched and role.epoch > absent.epoch):
                continue
            vote, after = self._up_to_date_vote(after, macro.absent, pre_vote=True)
            if vote:
                return [*prefix, (category, macro), *vote], after
        return [], state

    def start_probes(self) -> Sequence[StartProbe]:
        """RAFT-DRIVE-EXPIRED-STEP-DOWN (kip-595 elections, three or more voters): it takes
        three election timers and the last epoch the bounds allow, which no path's end has
        left, so it runs on a path of its own from where the budgets are whole. With pre-vote
        (and faults) RAFT-DRIVE-HELD-GRANT instead; with four or more voters (and faults) also
        RAFT-DRIVE-CHECK-QUORUM-ACK where the target declares the check-quorum period; then
        RAFT-DRIVE-SNAPSHOT where the target declares snapshots, the kip-996 ones
        (:meth:`_kip996_start_probes`, :meth:`_refollow_probes`), with faults and three voters or
        more RAFT-DRIVE-LEADER-REBOOT and, with faults, three voters and no observer,
        RAFT-DRIVE-PREFERRED-ORDER and RAFT-DRIVE-DIVERGENT-EPOCHS (four elections,
        the budget: only from the initial state). Each start path goes on with
        RAFT-DRIVE-MISSED-ELECTION's steps (:meth:`_missed_election_tail`) and then one of
        RAFT-DRIVE-HELD-BEGIN-ANSWER, -CHECK-QUORUM-OBSERVER, -PRE-VOTE-UNCOMMITTED
        (:meth:`_chained_probe_tail`) where they fit: no start path of their own."""
        probes: list[StartProbe] = []
        if self.config["pre_vote"]:
            if self.config["faults"]:
                probes.append(StartProbe("RAFT-DRIVE-HELD-GRANT", self._held_grant_probe))
        elif len(self.model.voter_ids) >= 3:
            probes.append(StartProbe("RAFT-DRIVE-EXPIRED-STEP-DOWN", self._expired_step_down_probe))
            if self.config["faults"]:
                probes.append(StartProbe("RAFT-DRIVE-RESEND-BACKOFF", self._backoff_resend_probe))
        if self.check_quorum_period and self.config["faults"] and len(self.model.voter_ids) >= 4:
            probes.append(StartProbe("RAFT-DRIVE-CHECK-QUORUM-ACK", self._check_quorum_ack_probe))
        # last, so that the start paths before them keep their places (RAFT-DRIVE-PREFERRED-ORDER,
        # -DIVERGENT-EPOCHS: three voters and no observer, one shape per rule set; neither needs more)
        ordered = ((StartProbe("RAFT-DRIVE-PREFERRED-ORDER", self._preferred_order_probe),
                    StartProbe("RAFT-DRIVE-DIVERGENT-EPOCHS", self._divergent_epochs_probe))
                   if self.config["faults"] and len(self.model.voter_ids) == 3 and not self.config["observers"]
                   else ())
        # RAFT-DRIVE-END-EPOCH-AHEAD: three or more voters, every rule set, with or without faults
        ahead = (StartProbe("RAFT-DRIVE-END-EPOCH-AHEAD", self._end_epoch_ahead_probe),) \
            if len(self.model.voter_ids) >= 3 else ()
        # RAFT-DRIVE-LEADER-REBOOT: a leader with other voters crashed and restarted (with faults)
        reboot = ((StartProbe("RAFT-DRIVE-LEADER-REBOOT", self._leader_reboot_probe),)
                  if self.config["faults"] and len(self.model.voter_ids) >= 3 else ())
        return tuple(self._with_missed_election(p) for p in (
            *probes, *self._snapshot_probes(), *self._kip996_start_probes(), *self._refollow_probes(), *ahead,
            *reboot, *ordered))

    def _held_begin_answer_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-HELD-BEGIN-ANSWER (after a start path, :meth:`_chained_probe_tail`; three or
        four voters): the first voter L is elected (where it does not lead yet) and its
        BeginQuorumEpoch notices delivered; then macros.HeldBeginAnswer for
        the last voter V (RAFT-DRIVE-STALE-ANSWER): V's answer is held while L resigns and wins
        the next epoch, whose notice V follows without fetching; the old answer arrives, the new
        one is lost and L's resend timer for V fires. L has not heard from V in its epoch and
        sends BeginQuorumEpoch again (RAFT-RULE-STALE-EPOCH, RAFT-RULE-RESEND). The macro at a
        path's end (the late-copy rotation) was reached by no guided run, so a leader counting
        the older epoch's answer (red team ``raft_scratch17:stale-begin-epoch-ack-counted``)
        escaped seeds 0 and 1. All or nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        return run.script if run.take(PROBE, macros.HeldBeginAnswer(voters[0], voters[-1])) else []

    def _split_vote_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SPLIT-VOTE (after a start path, :meth:`_chained_probe_tail`; five voters or
        more, with faults): a split vote. Two voters X and Y of the same epoch time out into the
        next one, e; X's VoteRequest reaches only voter V, which grants it (V has voted for X
        in e); Y's reach the two others A and B, which grant, and Y wins e without V; then Y's
        BeginQuorumEpoch reaches V, which must follow Y (RAFT-RULE-BEGIN-EPOCH: a voter that
        voted for another candidate of the epoch still knows no leader in it). With pre-vote
        the prospective rounds come first, each at the epoch before e: X's pre-votes reach V and
        A, Y's A and B, then X's answers arrive (X stands), then Y's. Every other request of
        the rounds is lost (category ``network``: the wire holds at most ``max_inflight``
        messages, five voters' requests twice over do not fit), and so is what the path left
        in flight. With three or four voters no candidate wins without a voter that voted for
        another (a majority of four is three), so the split needs five (with more, Y and the
        two others are no majority: no shape has more than five). Elsewhere no run put a
        voter that voted for one candidate in front of another's BeginQuorumEpoch of the same
        epoch, so a voter that follows only the candidate it voted for (red team
        ``raft_scratch17:voted-follows-only-its-candidate``) escaped seeds 0 and 1. The first
        (X, Y, V) in id order that fits; all or nothing, each step only where the driver
        offers it."""
        voters = sorted(self.model.voter_ids)
        if len(voters) < 5 or not self.config["faults"]:
            return []
        for x, y, v in permutations(voters, 3):
            a, b = [o for o in voters if o not in (x, y, v)][:2]
            found = self._split_vote(state, x, y, v, a, b)
            if found:
                return found
        return []

    def _split_vote(self, state: Raft, x: int, y: int, v: int, a: int, b: int) -> list[tuple[str, Any]]:
        """:meth:`_split_vote_probe` with these roles: the steps, or [] where one is not offered
        or the run does not end with V following Y in the epoch it voted for X."""
        nodes = {n: state.node(n) for n in (x, y, v, a, b)}
        if any(isinstance(n.role, Down) for n in nodes.values()) \
                or any(isinstance(nodes[n].role, Leader | Candidate | Prospective) for n in (x, y)) \
                or nodes[x].epoch != nodes[y].epoch or nodes[v].epoch > nodes[x].epoch \
                or not log_up_to_date(nodes[x].last_epoch, nodes[x].end_offset,
                                      nodes[v].last_epoch, nodes[v].end_offset) \
                or not all(log_up_to_date(nodes[y].last_epoch, nodes[y].end_offset,
                                          nodes[o].last_epoch, nodes[o].end_offset) for o in (a, b)):
            return []
        run = _Script(self, [], state)
        pre_vote = self.config["pre_vote"]

        def lose(keep: Callable[[Any], bool]) -> bool:
            # every copy of each message in flight that ``keep`` does not keep is lost
            for m in sorted(run.s.network.distinct(), key=repr):
                if not keep(m):
                    for _ in range(run.s.network.count(m)):
                        if not run.take("network", Drop(m)):
                            return False
            return True

        def deliver(kind: type, src: int, dst: int, pre: bool = False) -> bool:
            m = next((m for m in sorted(run.s.network.distinct(), key=repr)
                      if isinstance(m, kind) and (m.src, m.dst) == (src, dst)
                      and getattr(m, "pre_vote", False) == pre), None)
            return m is not None and run.take("deliver", Deliver(m))

        def stand(c: int) -> bool:
            for timer in (FetchTimeout(), ElectionTimeout()):
                after = self._offered(run.s, "timer", Fire(c, timer))
                if after is not None and isinstance(after.node(c).role, Prospective if pre_vote else Candidate):
                    run.script.append(("timer", Fire(c, timer)))
                    run.s = after
                    return True
            return False

        def round_to(c: int, to: tuple[int, ...], pre: bool) -> bool:
            # ``c``'s (pre-)vote requests to ``to`` delivered, the others lost
            return (lose(lambda m: not (isinstance(m, VoteRequest) and m.src == c and m.pre_vote == pre
                                        and m.dst not in to))
                    and all(deliver(VoteRequest, c, t, pre) for t in to))

        def answers(c: int, frm: tuple[int, ...], pre: bool) -> bool:
            return all(deliver(VoteResponse, f, c, pre) for f in frm)

        if not (lose(lambda m: False) and stand(x)):
            return []
        if pre_vote:
            if not (round_to(x, (v, a), True) and stand(y) and round_to(y, (a, b), True)
                    and answers(x, (v, a), True)):
                return []
        if not (isinstance(run.s.node(x).role, Candidate) and round_to(x, (v,), False) and answers(x, (v,), False)):
            return []
        epoch = run.s.node(x).epoch
        if pre_vote:
            if not answers(y, (a, b), True):
                return []
        elif not stand(y):
            return []
        voted = run.s.node(v).role
        if not (isinstance(voted, Voted) and voted.voted_for == x and run.s.node(y).epoch == epoch
                and isinstance(run.s.node(y).role, Candidate)):
            return []
        if not (round_to(y, (a, b), False) and answers(y, (a, b), False)
                and isinstance(run.s.node(y).role, Leader) and deliver(BeginQuorumEpochRequest, y, v)):
            return []
        follows = run.s.node(v).role
        return run.script if isinstance(follows, Follower) and follows.leader == y and follows.epoch == epoch else []

    def _held_fetch_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-HELD-FETCH (after a start path, :meth:`_chained_probe_tail`; kip-996, with
        faults): the first voter L is elected where no voter leads and its BeginQuorumEpoch
        notices delivered; then macros.HeldFetch for the last voter F (RAFT-DRIVE-STALE-ANSWER):
        F's fetch answer is held while L resigns and wins the next epoch, whose BeginQuorumEpoch
        F follows, and then arrives (an older epoch's answer: it changes nothing,
        RAFT-RULE-STALE-EPOCH); last another voter asks F for a well-formed pre-vote of F's
        epoch whose claimed log is up to date (RAFT-DRIVE-WELL-FORMED, category ``inject``). F
        has not fetched from L in its epoch, so it grants (RAFT-KIP996-PRE-VOTE-GRANT). The
        macro in the late-copy rotation (RAFT-DRIVE-LATE-COPY) was reached by no guided run
        since session 22, so a follower that marks itself fetched on the older answer
        (catalogue ``raft-stale-answer-marks-fetched``) escaped the default budget. All or
        nothing; each step only where the driver offers it."""
        if not (self.config["pre_vote"] and self.config["faults"]):
            return []
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        f = max(self.model.voter_ids)
        if not run.take(PROBE, macros.HeldFetch(f)):
            return []
        node = run.s.node(f)
        if not (isinstance(node.role, Follower) and not node.role.fetched):
            return []
        for vote in well_formed_votes(run.s, node):
            if vote.pre_vote and vote.epoch == node.epoch and vote.src != node.role.leader \
                    and log_up_to_date(vote.last_epoch, vote.end_offset, node.last_epoch, node.end_offset) \
                    and run.take("inject", Inject(vote)):
                return run.script
        return []

    def _check_quorum_observer_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-CHECK-QUORUM-OBSERVER (after a start path, :meth:`_chained_probe_tail`;
        observers, with faults): the first voter L is elected (where it does not lead yet) and
        its BeginQuorumEpoch notices delivered; every observer catches up
        with L (it follows L), then fetches once more, while no voter fetches; then L's
        CheckQuorumTimeout, again after each observer's next fetch, until L resigns: only voters
        count towards check quorum (RAFT-RULE-CHECK-QUORUM), so no observer's fetch renews the
        period (RAFT-RULE-CHECK-QUORUM-PERIOD). Elsewhere a leader's observers were quiet over its
        check-quorum timeouts, so a leader that counts an observer's fetch (red team
        ``raft_scratch17:check-quorum-counts-observers``) escaped seeds 0 and 1. All or nothing;
        each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        leader = min(self.model.voter_ids)
        observers = sorted(set(self.model.replica_ids) - set(self.model.voter_ids))
        if not observers or not all(run.take("catch_up", macros.CatchUp(o)) for o in observers):
            return []
        for _ in range(2):
            if not (all(run.take("round_trip", macros.RoundTrip(o)) for o in observers)
                    and run.take("resign", Fire(leader, CheckQuorumTimeout()))):
                return []
            if _leading(run.s, leader) is None:
                return run.script
        return []

    def _pre_vote_uncommitted_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-PRE-VOTE-UNCOMMITTED (after a start path, :meth:`_chained_probe_tail`;
        kip-996, three or four voters): a pre-vote whose claimed log ends between its receiver's
        high watermark and its log end.
        The first voter L is elected and commits (the others fetch to its high watermark); L
        appends a record and the last voter F fetches it, so F's log ends one record past its
        high watermark (L learns of F's copy only from F's next fetch); F's fetch timer makes it
        prospective, which may grant a pre-vote; then another voter, whose log ends at the
        high watermark, asks F for a well-formed pre-vote of F's epoch claiming exactly that log
        (RAFT-DRIVE-WELL-FORMED, category ``inject``). F refuses: the claimed log is behind F's
        whole log, committed or not (RAFT-RULE-VOTE-LOG-UP-TO-DATE, RAFT-KIP996-PRE-VOTE-GRANT).
        Elsewhere a receiver that may grant a pre-vote had no uncommitted suffix, so a receiver
        that compares the claim with its committed prefix (red team
        ``raft_scratch17:pre-vote-compares-committed-log``) escaped seeds 0 and 1. All or
        nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        leader, f = voters[0], voters[-1]
        if not (run.commit(voters[1:]) and run.take("client", Fire(leader, ClientAppend(guided_payload(run.s))))
                and run.take("round_trip", macros.RoundTrip(f))):
            return []
        hw = run.s.node(f).high_watermark
        if hw is None or run.s.node(f).end_offset <= hw:
            return []
        if not (run.take("timer", Fire(f, FetchTimeout())) and isinstance(run.s.node(f).role, Prospective)):
            return []
        node = run.s.node(f)
        for vote in sorted(well_formed_votes(run.s, node), key=lambda v: v.src == leader):
            if vote.pre_vote and vote.epoch == node.epoch and vote.end_offset == hw \
                    and (vote.last_epoch, vote.end_offset) < (node.last_epoch, node.end_offset) \
                    and run.take("inject", Inject(vote)):
                return run.script
        return []

    def _end_epoch_ahead_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-END-EPOCH-AHEAD (a start probe, three or more voters, every rule set): an
        EndQuorumEpoch of an epoch ahead of its receiver's. A voter C is elected without a voter
        F (:meth:`_elect` without F: its vote request to F stays on the wire, F is still in the older
        epoch); with faults C's check-quorum timer makes it resign (no voter fetched) and its
        EndQuorumEpoch reaches F; without faults, or where the resignation's notices would pass
        the in-flight bound (four or five voters), C's notice of its epoch is delivered to F as
        an injected request (RAFT-DRIVE-INJECT: it names the replica elected in that epoch). F
        moves to C's epoch as C's follower (RAFT-RULE-HIGHER-EPOCH), and its new quorum state is
        durable before its answer leaves (RAFT-OBS-PERSIST, ordering.PERSIST_BEFORE_SEND). Then
        each observer, still in the older epoch, is sent C's notice too, and last, where it
        fits, C is deposed and told so (:meth:`_deposed_notice`). Random runs deliver an
        EndQuorumEpoch only from the replica that leads its epoch, and seldom to a replica that
        missed that epoch's election: at seeds 0 and 1 no run did (red team
        ``raft_scratch15:end-epoch-answered-before-persist`` escaped both). All or nothing for
        F; each step only where the driver offers it."""
        offered = self._offered
        voters = sorted(self.model.voter_ids)
        for c in voters:
            for f in (v for v in voters if v != c):
                elected = self._elect(state, c, without=f)
                if elected is None:
                    continue
                script, s = elected
                epoch = s.node(c).epoch
                if s.node(f).epoch >= epoch:
                    continue
                resigned = self._resign(s, c) if self.config["faults"] else None
                notice: Any = Inject(EndQuorumEpochRequest(c, f, epoch, (), True))
                category = "inject"
                if resigned is not None:
                    script, s = [*script, *resigned[0]], resigned[1]
                    notice = next((Deliver(m) for m in sorted(s.network.distinct(), key=repr)
                                   if isinstance(m, EndQuorumEpochRequest) and (m.src, m.dst) == (c, f)), None)
                    category = "deliver"
                after = None if notice is None else offered(s, category, notice)
                if after is None:
                    continue
                script, s = [*script, (category, notice)], after
                for o in sorted(set(self.model.replica_ids) - self.model.voter_ids):
                    told = Inject(EndQuorumEpochRequest(c, o, epoch, (), True))
                    if s.node(o).epoch < epoch and (after := offered(s, "inject", told)) is not None:
                        script, s = [*script, ("inject", told)], after
                return script + self._deposed_notice(s, c)
        return []

    def _deposed_notice(self, state: Raft, c: int) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-END-EPOCH-AHEAD's second part: another voter C2 is elected without C
        (:meth:`_elect` without F), and C2's notice of its epoch, injected, reaches C, still the
        leader (without faults) or the resigned leader (with faults) of the older epoch: the
        role's move to C2's epoch is written before its answer. Nothing where C2 cannot win
        without C (an in-flight bound, a log behind)."""
        for c2 in sorted(self.model.voter_ids - {c}):
            elected = self._elect(state, c2, without=c)
            if elected is None or elected[1].node(c).epoch >= elected[1].node(c2).epoch:
                continue
            script, s = elected
            notice = Inject(EndQuorumEpochRequest(c2, c, s.node(c2).epoch, (), True))
            if self._offered(s, "inject", notice) is not None:
                return [*script, ("inject", notice)]
        return []

    def _leader_reboot_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-LEADER-REBOOT (a start probe, three voters or more, with faults): a leader
        with other voters crashes and restarts from its quorum-state file and log. The first
        voter L is elected and its BeginQuorumEpoch notices delivered; a quorum commits its
        LeaderChange record (the second voter F among them); L appends a record no one fetches
        (uncommitted); L reboots: it restarts resigned in its epoch and sends EndQuorumEpoch to
        every other voter at once (RAFT-RULE-RESTART); its request to F is lost, the others
        delivered; its resend timer for F fires (RAFT-RULE-RESEND: a restarted resignation has
        no acknowledgement yet, whoever acknowledged the leadership) and the copy reaches F; F
        stands and is elected in the next epoch (L, whose uncommitted record makes its log
        longer, refuses), its BeginQuorumEpoch reaches L, which follows it and fetches until it
        truncated the uncommitted record. Elsewhere (seed 0, the default budget) every leader
        that rebooted was a lone voter's, which has no one to tell (red team
        ``raft_scratch16:restarted-leader-waits-to-resign``, escaped at seeds 0 and 1). All or
        nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        leader, f = voters[0], voters[1]
        quorum = voters[1:len(voters) // 2 + 1]
        if not (run.commit(quorum) and run.take("client", Fire(leader, ClientAppend(guided_payload(run.s))))
                and run.take("crash", Reboot(leader)) and isinstance(run.s.node(leader).role, Resigned)):
            return []
        ends = sorted((m for m in run.s.network.distinct() if isinstance(m, EndQuorumEpochRequest)
                       and m.src == leader), key=lambda m: m.dst != f)
        if not ends or ends[0].dst != f or not run.take("network", Drop(ends[0])):
            return []
        for m in ends[1:]:
            if not run.take("deliver", Deliver(m)):
                return []
        if not run.take("resend", Fire(leader, ResendDue(f))):
            return []
        resent = [m for m in run.s.network.distinct() if isinstance(m, EndQuorumEpochRequest) and m.dst == f]
        if len(resent) != 1 or not run.take("deliver", Deliver(resent[0])):
            return []
        won = self._elect(run.s, f)
        if won is None:
            return []
        run.script += won[0]
        run.s = won[1]
        begin = next((m for m in run.s.network.distinct() if isinstance(m, BeginQuorumEpochRequest)
                      and m.src == f and m.dst == leader), None)
        if begin is None or not run.take("deliver", Deliver(begin)):
            return []
        for _ in range(3):
            if run.s.node(leader).log == run.s.node(f).log or not run.take("round_trip", macros.RoundTrip(leader)):
                break
        return run.script if run.s.node(leader).log == run.s.node(f).log else []

    def _divergent_epochs_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-DIVERGENT-EPOCHS (a start probe, three voters, no observer, with faults, one
        shape per rule set): a follower whose log diverges from its new leader's over several
        epochs. The first voter A is elected (epoch 1) and its BeginQuorumEpoch notices
        delivered; the second, B, fetches A's LeaderChange record once; A appends two records no
        one fetches. B is elected without A (``macros.ElectWithout``: the third voter C, which
        never fetched, grants; then B's BeginQuorumEpoch makes A its follower) and writes its
        LeaderChange (epoch 2); A is elected back without B the same way (epoch 3: C grants, its
        log behind A's), each campaign's requests to the replica left out lost (the in-flight
        bound). A holds epochs {1, 3} (three records of epoch 1), B {1, 2}. Then B is elected
        without A one epoch past the bound (``macros.PastBound``: epoch 4, ``max_epoch`` is 3) and
        A catches up: its fetch (last epoch 3) is answered the diverging epoch (2, 2), an epoch A
        never held, so A truncates to the end of its own largest epoch below it (epoch 1, offset
        3: RAFT-RULE-TRUNCATE), not to min(3, 2); then (1, 1), then B's records. Four epochs are
        the fewest such a truncation needs (the follower's epoch below the diverging one, the
        diverging one, the follower's last, the leader's), one more than the bounds let any other
        path reach (red team ``raft_scratch13:truncate-min-ignores-epoch``, escaped at seeds 0 and
        1). All or nothing; each step only where the driver offers it. Four elections, the budget."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        a, b, _ = sorted(self.model.voter_ids)
        if not run.take("round_trip", macros.RoundTrip(b)) or len(run.s.node(b).log) != 1:
            return []
        for _ in range(2):
            if not run.take("client", Fire(a, ClientAppend(guided_payload(run.s)))):
                return []
        for node, absent in ((b, a), (a, b)):
            if not run.take("stray", macros.ElectWithout(node, absent)):
                return []
            for m in run.s.network.distinct():
                if m.src == node and m.dst == absent and isinstance(m, VoteRequest):
                    for _ in range(run.s.network.count(m)):
                        run.take("network", Drop(m))
        past = macros.PastBound((macros.ElectWithout(b, a), macros.CatchUp(a)))
        if not run.take(PROBE, past) or run.s.node(a).log != run.s.node(b).log:
            return []
        return run.script

    def _preferred_order_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-PREFERRED-ORDER (a start probe, three voters, no observer, with faults): the
        first voter L is elected and its BeginQuorumEpoch notices delivered; the third voter A
        fetches twice (the LeaderChange record, then at L's log end) and the second voter B once,
        so L records A ahead of B (the order by offset is not the order by id); then L's
        CheckQuorumTimeout until it resigns (a period renewed by those fetches ends first,
        RAFT-RULE-CHECK-QUORUM-PERIOD). L's EndQuorumEpoch requests must name A before B
        (RAFT-RULE-PREFERRED-ORDER). Elsewhere the followers of a resigning leader had fetched to
        the same offset or not at all, so a list sorted the wrong way round was never told apart
        (red team ``raft_scratch12:preferred-successors-ascending``, escaped at seeds 0 and 1).
        All or nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        # A, the one ahead, is the last voter, so that the order by offset is not the order by id
        leader, b, a = sorted(self.model.voter_ids)[:3]
        if not all(run.take("round_trip", macros.RoundTrip(f)) for f in (a, a, b)):
            return []
        role = _leading(run.s, leader)
        if role is None or dict(role.end_offsets).get(a, 0) <= dict(role.end_offsets).get(b, -1):
            return []
        for _ in range(2):
            if not run.take("resign", Fire(leader, CheckQuorumTimeout())):
                return []
            if _leading(run.s, leader) is None:
                return run.script
        return []

    def _refollow_probes(self) -> tuple[StartProbe, ...]:
        """RAFT-DRIVE-REFOLLOW-PRE-VOTE (kip-996, three voters or more)."""
        if not self.config["pre_vote"] or len(self.model.voter_ids) < 3:
            return ()
        return (StartProbe("RAFT-DRIVE-REFOLLOW-PRE-VOTE", self._refollow_pre_vote_probe),)

    def _refollow_pre_vote_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-REFOLLOW-PRE-VOTE (a start probe, kip-996): a follower whose first fetch
        since it follows again brings no records. The first voter is elected; the last voter
        fetches until it knows the high watermark (caught up); its fetch timer makes it
        prospective and its election timer sends it back to following its leader
        (RAFT-KIP996-LOSS: a new follower state, not fetched); it fetches once, an answer with no
        records (nothing new), and is asked a well-formed pre-vote of its epoch whose log is not
        behind its own, which it refuses (RAFT-KIP996-PRE-VOTE-GRANT: a successful fetch counts,
        records or none). Elsewhere every follower's first fetch brings the LeaderChange record
        of its leader's epoch (red team ``raft_scratch12:empty-fetch-not-counted``, escaped at
        seeds 0 and 1). All or nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        leader, f = voters[0], voters[-1]
        for _ in range(3):
            if run.s.node(f).high_watermark == run.s.node(leader).end_offset:
                break
            if not run.take("round_trip", macros.RoundTrip(f)):
                return []
        if not (run.take("timer", Fire(f, FetchTimeout())) and isinstance(run.s.node(f).role, Prospective)
                and run.take("timer", Fire(f, ElectionTimeout())) and isinstance(run.s.node(f).role, Follower)
                and run.take("round_trip", macros.RoundTrip(f))):
            return []
        vote, _ = self._up_to_date_vote(run.s, f, pre_vote=True)
        return [*run.script, *vote] if vote else []

    def _snapshot_probes(self) -> tuple[StartProbe, ...]:
        """RAFT-DRIVE-SNAPSHOT, in every shape with two replicas or more, where the target
        declares snapshots: it takes about eight fetches, which a path's end has spent."""
        if not self.snapshots or len(self.model.replica_ids) < 2:
            return ()
        return (StartProbe("RAFT-DRIVE-SNAPSHOT", self._snapshot_probe), *self._snapshot_lag_probes())

    def _snapshot_lag_probes(self) -> tuple[StartProbe, ...]:
        """RAFT-DRIVE-SNAPSHOT-LAG and RAFT-DRIVE-SNAPSHOT-SUPERSEDED (three voters or more: the
        lagging voter is not needed for a commit)."""
        if len(self.model.voter_ids) < 3:
            return ()
        probes = [StartProbe("RAFT-DRIVE-SNAPSHOT-LAG", self._snapshot_lag_probe),
                  StartProbe("RAFT-DRIVE-SNAPSHOT-SUPERSEDED", self._snapshot_superseded_probe)]
        if len(self.model.voter_ids) == 3:
            # RAFT-DRIVE-SNAPSHOT-DEPOSED takes eight fetches with three voters (a quorum of two)
            probes.append(StartProbe("RAFT-DRIVE-SNAPSHOT-DEPOSED", self._snapshot_deposed_probe))
        if self.config["faults"]:
            probes.append(StartProbe("RAFT-DRIVE-SNAPSHOT-REBOOT", self._snapshot_reboot_probe))
        probes.append(StartProbe("RAFT-DRIVE-SNAPSHOT-TABLE", self._snapshot_table_probe))
        return tuple(probes)

    def _snapshot_table_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-TABLE (a start probe, KIP-630): the leader's replica table right
        after a fetch it answered with a snapshot id. The first voter is elected, the followers
        but the last voter (the lagging one, which has not fetched in the epoch) commit its
        LeaderChange record, the leader snapshots at its HW and cleans its log; the lagging
        voter fetches once, below the log start, and is sent the snapshot id; then the leader
        describes its quorum: the lagging voter is still at -1 (RAFT-RULE-FETCH-SNAPSHOT-ID: a
        snapshot answer, as a diverging one, records no position; Kafka's
        ``tryCompleteFetchRequest`` calls ``updateReplicaState`` for a VALID position only).
        Elsewhere the fetcher loads the snapshot and fetches again before anything reads the
        table, and the recorded offset (below the log start, so at most the HW) never moves the
        HW, so a leader that records a snapshot-answered fetch was never told apart (red team
        ``raft_scratch15:snapshot-answer-counts-position``, escaped at seeds 0 and 1). All or
        nothing; each step only where the driver offers it. Then (session 28) the lagging voter's
        FetchSnapshot held across the leader's next epoch, where it fits
        (:meth:`_held_across_epoch`, RAFT-DRIVE-HELD-ACROSS-EPOCH)."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        voters = sorted(self.model.voter_ids)
        leader, lagging, others = voters[0], voters[-1], voters[1:-1]
        run = _Script(self, *elected)
        if not run.commit(others):
            return []
        hw = run.s.node(leader).high_watermark or 0
        if not (run.take("snapshot", Fire(leader, TakeSnapshot(hw)))
                and run.take("snapshot", Fire(leader, CleanLog()))):
            return []
        start = run.s.node(leader).log_start
        if not (start > 0 and run.s.node(lagging).end_offset < start
                and run.take("round_trip", macros.RoundTrip(lagging))):
            return []
        if not run.take("leader_only", Inject(DescribeQuorumRequest(NO_REPLICA, leader, True))):
            return []
        # RAFT-DRIVE-HELD-ACROSS-EPOCH (session 28): the lagging voter's FetchSnapshot, held
        # while the leader moves to a higher epoch, then delivered and answered
        held = _Script(self, run.script, run.s)
        if held.take("fetch", Fire(lagging, FetchDue(leader))) and self._held_across_epoch(held, lagging, leader):
            return held.script
        self._snapshot_fetched_pre_vote(run, lagging)
        return run.script

    def _snapshot_fetched_pre_vote(self, run: _Script, lagging: int) -> bool:
        """RAFT-DRIVE-SNAPSHOT-FETCHED (session 29; RAFT-DRIVE-SNAPSHOT-TABLE's last step where
        RAFT-DRIVE-HELD-ACROSS-EPOCH does not fit: kip-996): ``lagging``, a follower whose fetch
        its leader answered with a snapshot id (it has not downloaded it yet), is asked a
        well-formed pre-vote of its epoch whose claimed log is not behind its own (category
        ``inject``, RAFT-DRIVE-WELL-FORMED). It refuses: a Fetch answer naming the snapshot is a
        successful fetch from the leader (RAFT-KIP996-PRE-VOTE-GRANT; Kafka 4.x
        ``handleFetchResponse`` calls ``resetFetchTimeoutForSuccessfulFetch`` after the
        diverging, snapshot and records branches alike). Elsewhere every pre-vote met a follower
        after its records answer, so a follower that counts only records and truncations (red
        team ``raft_scratch20:snapshot-id-answer-not-fetched``, escaped seeds 0 and 1) was never
        told apart. True with the step taken (``run`` moved on)."""
        node = run.s.node(lagging)
        if not isinstance(node.role, Follower):
            return False
        for vote in sorted(well_formed_votes(run.s, node), key=repr):
            if vote.pre_vote and vote.epoch == node.epoch and vote.src != lagging \
                    and (vote.last_epoch, vote.end_offset) >= (node.last_epoch, node.end_offset) \
                    and run.take("inject", Inject(vote)):
                return True
        return False

    def _held_across_epoch(self, run: _Script, src: int, dst: int) -> bool:
        """RAFT-DRIVE-HELD-ACROSS-EPOCH (session 28): ``src``'s request to ``dst``, on the wire in
        ``run``, is held while another voter C is elected without ``src`` (:meth:`_elect`, its
        ballots to ``src`` never delivered), which moves ``dst`` to C's epoch; then the request
        reaches ``dst`` and ``dst``'s answer, of that higher epoch, reaches ``src``, still in
        the older one: any answer of a higher epoch moves its receiver to that epoch
        (RAFT-RULE-HIGHER-EPOCH, RAFT-RULE-RESPONSE (1)), whatever the request was; then C's
        BeginQuorumEpoch reaches ``src`` and it fetches once from C (where offered: the first
        fetch after its role changed, as RAFT-DRIVE-REFETCH's). Any request
        kind; the first C that fits; True with the steps taken (``run`` moved on), False with
        ``run`` unchanged where they do not fit (the answers on the wire are delivered first).
        Elsewhere each probe delivered a request and
        its answer within one epoch of the requester, so a replica that drops a higher epoch's
        answer to a request it no longer needs was never told apart (red team
        ``raft_scratch19:snapshot-answer-higher-epoch-ignored``, escaped seeds 0 and 1)."""
        def on_wire(s: Raft, src_: int, dst_: int, kinds: tuple[type, ...]) -> Any:
            return next((m for m in sorted(s.network.distinct(), key=repr)
                         if isinstance(m, kinds) and (m.src, m.dst) == (src_, dst_)), None)

        request = on_wire(run.s, src, dst, REQUEST_TYPES)
        if request is None:
            return False
        # the answers on the wire first (where offered), so that the election fits the
        # in-flight budget
        cleared = _Script(self, run.script, run.s)
        for m in sorted(run.s.network.distinct(), key=repr):
            if isinstance(m, RESPONSE_TYPES):
                cleared.take("deliver", Deliver(m))
        for c in (v for v in sorted(self.model.voter_ids) if v != src):
            elected = self._elect(cleared.s, c, without=src)
            if elected is None or elected[1].node(dst).epoch <= elected[1].node(src).epoch:
                continue
            trial = _Script(self, [*cleared.script, *elected[0]], elected[1])
            if request not in trial.s.network.distinct() or not trial.take("deliver", Deliver(request)):
                continue
            answer = on_wire(trial.s, dst, src, RESPONSE_TYPES)
            if (answer is None or (getattr(answer, "epoch", None) or 0) <= trial.s.node(src).epoch
                    or not trial.take("deliver", Deliver(answer))):
                continue
            # then C's BeginQuorumEpoch, held since the election, reaches ``src``, which fetches
            # once from C (where offered): its first fetch after the role changes
            begin = on_wire(trial.s, c, src, (BeginQuorumEpochRequest,))
            if begin is not None and trial.take("deliver", Deliver(begin)):
                trial.take("round_trip", macros.RoundTrip(src))
            run.script, run.s = trial.script, trial.s
            return True
        return False

    def _lagging_script(self, state: Raft) -> _Script | None:
        """The common start of the snapshot-lag probes: the first voter is elected and the last
        voter (the lagging one) fetches until it knows a high watermark (its listener has read
        the LeaderChange record), the other followers fetching in between only where it needs
        them for a majority."""
        elected = self._elect_first(state)
        if elected is None:
            return None
        voters = sorted(self.model.voter_ids)
        run = _Script(self, *elected)
        lagging, others = voters[-1], voters[1:-1]
        for f in [lagging, lagging, *others, *others, lagging]:
            if run.s.node(lagging).high_watermark is not None:
                break
            if not run.take("round_trip", macros.RoundTrip(f)):
                return None
        return run if run.s.node(lagging).high_watermark is not None else None

    def _snapshot_lag_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-LAG (a start probe, KIP-630): a replica that holds a snapshot of
        its own when it loads its leader's. The lagging voter (:meth:`_lagging_script`) snapshots
        at its high watermark; with faults it reboots (its HW unknown) and is asked to clean its
        log, which it must not (RAFT-RULE-SNAPSHOT-CLEAN: no HW, no clean); the leader appends a
        record, the other followers commit it, the leader snapshots at its HW and cleans, and the
        lagging voter catches up: sent the snapshot id, it loads the leader's snapshot, which
        replaces its own (RAFT-RULE-FETCH-SNAPSHOT-LOAD: it holds that snapshot alone). The
        RAFT-DRIVE-SNAPSHOT probe's lagging replica holds no snapshot and never knew a HW (red
        team ``raft_scratch12:snapshot-load-keeps-older``, ``clean-log-without-hw``, escaped at
        seeds 0 and 1). All or nothing but the reboot; each step only where the driver offers it."""
        run = self._lagging_script(state)
        if run is None:
            return []
        voters = sorted(self.model.voter_ids)
        leader, lagging, others = voters[0], voters[-1], voters[1:-1]
        if not run.take("snapshot", Fire(lagging, TakeSnapshot(run.s.node(lagging).high_watermark or 0))):
            return []
        if self.config["faults"] and run.take("crash", Reboot(lagging)):
            for idle in refused_cleans(run.s.node(lagging)):
                run.take("snapshot", idle)
        if not (run.take("client", Fire(leader, ClientAppend(guided_payload(run.s)))) and run.commit(others)):
            return []
        hw = run.s.node(leader).high_watermark or 0
        if not (run.take("snapshot", Fire(leader, TakeSnapshot(hw)))
                and run.take("snapshot", Fire(leader, CleanLog()))):
            return []
        if not run.take("catch_up", macros.CatchUp(lagging)) or run.s.node(lagging).log_start == 0:
            return []
        return run.script

    def _snapshot_superseded_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-SUPERSEDED (a start probe, KIP-630): a snapshot deleted between the
        fetch that named it and the FetchSnapshot that asks for it. The first voter is elected;
        it appends a record the followers but the last voter (the lagging one) commit, snapshots
        at its HW and cleans; the lagging voter's fetch is sent that snapshot's id; the leader
        appends and commits another record, snapshots at its HW and cleans again (deleting the one
        named); the lagging voter's FetchSnapshot is answered SNAPSHOT_NOT_FOUND, so it fetches
        records again (RAFT-RULE-FETCH-SNAPSHOT-LOAD), is sent the new id and loads that snapshot.
        Eight fetches: the three-replica budget (RAFT-DRIVE-FETCH-BUDGET). Red team
        ``raft_scratch12:snapshot-not-found-keeps-asking`` (escaped at seeds 0 and 1). All or
        nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        leader, lagging, others = voters[0], voters[-1], voters[1:-1]
        for _ in range(2):
            if not (run.take("client", Fire(leader, ClientAppend(guided_payload(run.s)))) and run.commit(others)):
                return []
            hw = run.s.node(leader).high_watermark or 0
            if not (run.take("snapshot", Fire(leader, TakeSnapshot(hw)))
                    and run.take("snapshot", Fire(leader, CleanLog()))
                    and run.take("round_trip", macros.RoundTrip(lagging))):
                return []
        if not run.take("catch_up", macros.CatchUp(lagging)) or run.s.node(lagging).log_start != hw:
            return []
        return run.script

    def _snapshot_deposed_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-DEPOSED (a start probe, KIP-630, three voters): a leader holding two
        snapshots of different epochs, and a deposed leader whose log runs past the snapshot it
        loads. The first voter A is elected and the second, B, commits its LeaderChange record
        and snapshots at its HW (epoch 1); A appends two records no one fetches; B is elected
        without A's vote or records (the third voter grants), its follower commits B's
        LeaderChange and B snapshots again (epoch 2), holding both: a fetch claiming one record
        more of epoch 1 than B holds (RAFT-DRIVE-DIVERGING-FETCH's, from replica 9) is checked
        against the log, its last epoch not below the EARLIEST snapshot's (Kafka's
        ``validateOffsetAndEpoch``), and answered a diverging epoch, not a snapshot id. B cleans
        its log; A hears of B's epoch and catches up: its last fetched epoch (1) is below the
        snapshot's, so it is sent the snapshot id, and the snapshot it loads replaces its whole
        log, the two stale records past the snapshot's end included
        (RAFT-RULE-FETCH-SNAPSHOT-LOAD, Kafka's ``truncateToLatestSnapshot``). Elsewhere a
        replica that loads a snapshot holds no records past it and a leader cleans after each
        snapshot (red team ``raft_scratch13:snapshot-needed-uses-latest``,
        ``snapshot-load-keeps-suffix``: escaped at seeds 0 and 1). All or nothing; each step
        only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        a, b, c = sorted(self.model.voter_ids)
        if not (run.commit([b]) and run.take("snapshot", Fire(b, TakeSnapshot(run.s.node(b).high_watermark or 0)))):
            return []
        for _ in range(2):
            if not run.take("client", Fire(a, ClientAppend(guided_payload(run.s)))):
                return []
        won = self._elect(run.s, b)
        if won is None:
            return []
        run.script += won[0]
        run.s = won[1]
        begin = sorted((m for m in run.s.network.distinct() if isinstance(m, BeginQuorumEpochRequest)
                        and m.src == b), key=lambda m: (m.dst != c, repr(m)))
        if not begin or begin[0].dst != c or not run.take("deliver", Deliver(begin[0])):
            return []
        for _ in range(2):  # (``run.commit`` would judge A, which may still lead epoch 1)
            run.take("round_trip", macros.RoundTrip(c))
        hw = run.s.node(b).high_watermark
        if hw != run.s.node(b).end_offset or not run.take("snapshot", Fire(b, TakeSnapshot(hw or 0))):
            return []
        for fetch in diverging_fetches(run.s.node(b)):
            run.take("inject", Inject(fetch))
        if not run.take("snapshot", Fire(b, CleanLog())):
            return []
        for m in begin[1:]:
            if m.dst == a:
                run.take("deliver", Deliver(m))
        if not run.take("catch_up", macros.CatchUp(a)) or run.s.node(a).log_start == 0:
            return []
        return run.script

    def _snapshot_reboot_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-REBOOT (a start probe, KIP-630, with faults): a replica that holds
        two snapshots, not cleaned, reboots and learns a high watermark. The first voter is
        elected; the second commits its LeaderChange record and snapshots at its HW; the leader
        appends a record the second commits, which snapshots again at its HW; it reboots (its
        listener is a new one, RAFT-OBS-LISTENER) and fetches until it knows a HW: its listener
        is handed the LATEST snapshot, then the commits past it (RAFT-OBS-LISTENER-SNAPSHOT).
        Elsewhere a replica holds two snapshots only between a take and its clean, and a
        rebooted one one snapshot at most (red team ``raft_scratch13:listener-loads-earliest-snapshot``:
        escaped at seeds 0 and 1). All or nothing; each step only where the driver offers it."""
        elected = self._elect_first(state)
        if elected is None:
            return []
        run = _Script(self, *elected)
        voters = sorted(self.model.voter_ids)
        leader, f = voters[0], voters[1]
        quorum = voters[1:len(voters) // 2 + 1]
        if not (run.commit(quorum) and run.take("snapshot", Fire(f, TakeSnapshot(run.s.node(f).high_watermark or 0)))
                and run.take("client", Fire(leader, ClientAppend(guided_payload(run.s)))) and run.commit(quorum)
                and run.take("snapshot", Fire(f, TakeSnapshot(run.s.node(f).high_watermark or 0)))
                and len(run.s.node(f).snapshots) == 2 and run.take("crash", Reboot(f))):
            return []
        for _ in range(2):
            if run.s.node(f).high_watermark is not None or not run.take("round_trip", macros.RoundTrip(f)):
                break
        return run.script if run.s.node(f).high_watermark is not None else []

    def _snapshot_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT (a start probe, KIP-630): the first voter is elected (the others'
        BeginQuorumEpoch delivered) and the followers but one lagging replica (an observer if
        there is one, else the last voter) commit its LeaderChange record; the leader snapshots
        its log at the high watermark and cleans it (RAFT-RULE-SNAPSHOT-TAKE, -CLEAN), appends a
        record the same followers commit, and then the lagging replica catches up: its fetch is
        below the leader's log start, so it is sent the snapshot id, fetches the snapshot,
        truncates to it, and its listener is told HandleLoadSnapshot and then the commit of the
        record after it (RAFT-RULE-FETCH-SNAPSHOT-ID, -DATA, -LOAD, RAFT-OBS-LISTENER-SNAPSHOT).
        Random runs seldom clean a log while a replica lags. Each step only where the driver
        offers it; all or nothing."""
        voters = sorted(self.model.voter_ids)
        observers = sorted(set(self.model.replica_ids) - self.model.voter_ids)
        leader = voters[0]
        lagging = observers[0] if observers else voters[-1]
        if lagging == leader:
            return []
        elected = self._elect_first(state)
        if elected is None:
            return []
        script, s = elected

        def take(category: str, action: Any) -> bool:
            nonlocal s
            after = self._offered(s, category, action)
            if after is None:
                return False
            script.append((category, action))
            s = after
            return True

        def commit() -> bool:
            followers = [n.id for n in s.nodes if isinstance(n.role, Follower) and n.role.leader == leader
                         and n.id != lagging]
            for f in followers:
                for _ in range(2):
                    take("round_trip", macros.RoundTrip(f))
            node = s.node(leader)
            return node.high_watermark is not None and node.high_watermark == node.end_offset

        # an append, and the snapshot of it the leader must refuse before it commits
        if not take("client", Fire(leader, ClientAppend(guided_payload(s)))):
            return []
        for idle in refused_snapshots(s.node(leader))[:1]:
            take("snapshot", idle)
        if not commit():
            return []
        hw = s.node(leader).high_watermark
        if not (take("snapshot", Fire(leader, TakeSnapshot(hw or 0))) and take("snapshot", Fire(leader, CleanLog()))):
            return []
        if not take("client", Fire(leader, ClientAppend(guided_payload(s)))) or not commit():
            return []
        superseding, s = self._snapshot_superseding(s, leader, lagging)
        script += superseding
        if not take("catch_up", macros.CatchUp(lagging)) or s.node(lagging).log_start == 0:
            return []
        return [*script, *self._snapshot_pair_tail(s, leader)]

    def _snapshot_superseding(self, state: Raft, leader: int, lagging: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-SNAPSHOT-SUPERSEDING (session 27; within RAFT-DRIVE-SNAPSHOT, before its
        catch-up): the lagging replica fetches once and is named the leader's snapshot, then the
        leader, which committed a record past it, snapshots again at its HW without cleaning, so
        the FetchSnapshot the lagging replica sends next asks for a snapshot the leader still
        holds that is no longer its latest: it is served (RAFT-RULE-FETCH-SNAPSHOT-DATA).
        Elsewhere a FetchSnapshot reached a leader whose latest snapshot was the one asked for,
        or one that had deleted it (RAFT-DRIVE-SNAPSHOT-SUPERSEDED cleans with the new snapshot),
        so a leader that serves its latest snapshot only was never told apart (red team
        ``raft_scratch19:snapshot-served-only-latest``, escaped at seeds 0 and 1). The steps and
        the state after; each step only where the driver offers it."""
        run = _Script(self, [], state)
        if not run.take("round_trip", macros.RoundTrip(lagging)):
            return run.script, run.s
        role, node = run.s.node(lagging).role, run.s.node(leader)
        hw = node.high_watermark
        if (isinstance(role, Follower) and role.fetching_snapshot is not None and hw is not None
                and node.snapshots and hw > node.snapshots[-1][0]):
            run.take("snapshot", Fire(leader, TakeSnapshot(hw)))
        return run.script, run.s

    def _snapshot_pair_tail(self, state: Raft, leader: int) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-SNAPSHOT-PAIR (session 27; RAFT-DRIVE-SNAPSHOT's last steps): the leader,
        which cleaned its log to its first snapshot and committed a record past it, holds two
        snapshots (it snapshots again at its HW without cleaning, where
        RAFT-DRIVE-SNAPSHOT-SUPERSEDING has not already), and a fetch from below its
        log start (replica 9's, RAFT-DRIVE-INJECT: offset 0, last fetched epoch 0) is answered
        with the LATEST snapshot's id (RAFT-RULE-FETCH-SNAPSHOT-ID). Elsewhere a leader that
        answered a fetch with a snapshot id held one snapshot (each start probe cleans after each
        snapshot, RAFT-DRIVE-SNAPSHOT-DEPOSED cleans before the fetch), so a leader naming the
        earliest one it holds was never told apart (red team
        ``raft_scratch19:snapshot-answer-names-earliest``, escaped at seeds 0 and 1). Each step
        only where the driver offers it."""
        run = _Script(self, [], state)
        node = state.node(leader)
        hw = node.high_watermark
        if hw is not None and len(node.snapshots) == 1 and hw > node.snapshots[-1][0]:
            run.take("snapshot", Fire(leader, TakeSnapshot(hw)))
        if len(run.s.node(leader).snapshots) < 2 or run.s.node(leader).log_start == 0:
            return []
        run.take("inject", Inject(FetchRequest(UNKNOWN_REPLICA, leader, run.s.node(leader).epoch, 0, 0, True)))
        return run.script

    def _elect_first(self, state: Raft) -> tuple[list[tuple[str, Any]], Raft] | None:
        """The first voter is elected (:meth:`_elect`, where it does not lead yet), then its
        BeginQuorumEpoch notices are delivered: the steps and the state after, or None."""
        leader = min(self.model.voter_ids)
        script: list[tuple[str, Any]] = []
        s = state
        if not isinstance(s.node(leader).role, Leader):
            elected = self._elect(s, leader)
            if elected is None:
                return None
            script, s = list(elected[0]), elected[1]
        for m in sorted(s.network.distinct(), key=repr):
            if isinstance(m, BeginQuorumEpochRequest) and m.src == leader \
                    and (after := self._offered(s, "deliver", Deliver(m))) is not None:
                script.append(("deliver", Deliver(m)))
                s = after
        return script, s

    def _held_grant_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-HELD-GRANT (a start probe, kip-996, with faults): a voter C stands until it
        is a candidate (:meth:`_stand`), its VoteRequest reaches a voter V, which grants; the
        grant is held while C's election timer expires (a kip-996 candidate is then prospective
        in the same epoch) and then arrives (macros.HeldGrant): a standard grant that must not
        count as a pre-vote (with three voters it would win the pre-vote round). The model takes
        such an answer off the wire (RAFT-MODEL-IGNORED-RESPONSES), so no run delivered it (red
        team ``raft_scratch9:prospective-counts-standard-grant`` escaped seeds 0 and 1). All or
        nothing; each step only where the driver offers it."""
        offered = self._offered
        for c, script, s in self._each_elected(state, standing=True):
            for request in sorted((m for m in s.network.distinct() if isinstance(m, VoteRequest) and not m.pre_vote
                                   and m.src == c and m.epoch == s.node(c).epoch), key=repr):
                asked = offered(s, "deliver", Deliver(request))
                answer = None if asked is None else next(
                    (m for m in sorted(asked.network.distinct(), key=repr) if isinstance(m, VoteResponse)
                     and not m.pre_vote and m.granted and (m.src, m.dst) == (request.dst, c)), None)
                if asked is None or answer is None:
                    continue
                held = macros.HeldGrant(answer)
                if offered(asked, PROBE, held) is not None:
                    return [*script, ("deliver", Deliver(request)), (PROBE, held)]
        return []

    def _backoff_resend_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-RESEND-BACKOFF (a start probe, kip-595, with faults): a candidate backing
        off sends nothing (RAFT-RULE-RESEND: ``pollCandidate`` resends only while it is not
        backing off). A voter C stands (:meth:`_stand`), its election timer expires (it backs
        off), its VoteRequest to another voter V is lost, and then C's resend timer towards V
        fires (``idle_resends``: the model sends nothing). Random runs seldom lose the request
        and fire that timer before C's backoff ends (red team
        ``raft_scratch10:backing-off-candidate-resends``: random run 278 at seed 1, escaped seed
        0). All or nothing; each step only where the driver offers it."""
        offered = self._offered
        for c, script, s in self._each_elected(state, standing=True):
            expired = offered(s, "timer", Fire(c, ElectionTimeout()))
            if expired is None or not isinstance(expired.node(c).role, Candidate):
                continue
            for m in sorted(expired.network.distinct(), key=repr):
                if not (isinstance(m, VoteRequest) and m.src == c and m.epoch == expired.node(c).epoch):
                    continue
                lost = offered(expired, "network", Drop(m))
                idle = IdleTimer(c, ResendDue(m.dst))
                if lost is not None and offered(lost, "idle_timer", idle) is not None:
                    return [*script, ("timer", Fire(c, ElectionTimeout())), ("network", Drop(m)), ("idle_timer", idle)]
        return []

    def _expired_step_down_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-EXPIRED-STEP-DOWN (a start probe, ``start_probes``): RAFT-RULE-TIMER-KEPT,
        a candidate whose election timer expired (it backs off) and that a higher epoch makes
        unattached keeps the expired timer, so it stands again in the same step. A voter C
        stands (:meth:`_stand`) and its election timer expires (it backs off); its VoteRequest
        reaches a voter V, which then stands in the next epoch; V's VoteRequest reaches a third
        voter W, then C's old VoteRequest reaches W, whose refusal (W's epoch, no leader) reaches
        C: C is a candidate of the epoch after V's. Random runs seldom keep C's request to W in
        flight across V's election, and a path's end has spent the election budget (three
        timers) or the epoch bound (mutant ``raft-step-down-resets-timer``: random run 3460 at
        seed 0). Each step only where the driver offers it; all or nothing."""
        offered = self._offered
        voters = sorted(self.model.voter_ids)
        for c, script, s in self._each_elected(state, standing=True):
            expired = offered(s, "timer", Fire(c, ElectionTimeout()))
            if expired is None:
                continue
            script, s = [*script, ("timer", Fire(c, ElectionTimeout()))], expired
            epoch = s.node(c).epoch

            def request(s: Raft, src: int, dst: int, epoch: int) -> Deliver | None:
                return next((Deliver(m) for m in sorted(s.network.distinct(), key=repr) if isinstance(m, VoteRequest)
                             and (m.src, m.dst, m.epoch) == (src, dst, epoch)), None)

            for v, w in ((v, w) for v in voters for w in voters if len({c, v, w}) == 3):
                route, now = list(script), s
                asked = request(now, c, v, epoch)
                if asked is None or (after := offered(now, "deliver", asked)) is None:
                    continue
                route, now = [*route, ("deliver", asked)], after
                stood_v = self._stand(now, v)
                if stood_v is None:
                    continue
                route, now = [*route, *stood_v[0]], stood_v[1]
                higher = now.node(v).epoch
                steps = [request(now, v, w, higher)]
                after = None if steps[0] is None else offered(now, "deliver", steps[0])
                late = None if after is None else request(after, c, w, epoch)
                answered = None if late is None or after is None else offered(after, "deliver", late)
                answer = None if answered is None else next(
                    (Deliver(m) for m in answered.network.distinct() if isinstance(m, VoteResponse)
                     and (m.src, m.dst) == (w, c) and m.epoch == higher), None)
                final = None if answer is None or answered is None else offered(answered, "deliver", answer)
                role = None if final is None else final.node(c).role
                if isinstance(role, Candidate) and role.epoch > higher:
                    return [*route, ("deliver", steps[0]), ("deliver", late), ("deliver", answer)]
        return []

    def _timer_chain_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-TIMER-CHAIN, last on a guided path: two timers of one voter back to back,
        the second at the role the first left it in, before anything else changes that role.
        In turn (``k // 2``): a follower's fetch timeout, then its election timeout (a kip-996
        prospective that knew its leader follows it again, RAFT-KIP996-LOSS); a
        leader's check-quorum timeout (with faults), then the resigned leader's election
        timeout (it moves to the next epoch before it stands, RAFT-KIP996-RESIGNED). Random runs seldom fire the
        second timer before a message moves the replica on. Nothing where the first is not
        enabled; the chain stops at a timer the model does not enable."""
        first: Input = FetchTimeout() if (k // 2) % 2 == 0 else CheckQuorumTimeout()
        role: type = Follower if isinstance(first, FetchTimeout) else Leader
        for n in state.nodes:
            if not (n.is_voter and isinstance(n.role, role)):
                continue
            out: list[tuple[str, Any]] = []
            s = state
            # (a leader whose check-quorum period was renewed leads on at the first timeout and
            # resigns at the next: RAFT-RULE-CHECK-QUORUM-PERIOD)
            timers = (first, first, ElectionTimeout()) if isinstance(first, CheckQuorumTimeout) \
                else (first, ElectionTimeout())
            for timer in timers:
                if isinstance(timer, CheckQuorumTimeout) and not isinstance(s.node(n.id).role, Leader):
                    continue
                found = next(((c, a) for c, a in by_category(self.model.actions(s), _input_category)
                              if isinstance(a, Fire) and a.node == n.id and a.input == timer
                              and (self.config["faults"] or c not in FAULTS)), None)
                after = None if found is None else self.resolve(s, found[1])
                if found is None or after is None:
                    break
                out.append(found)
                s = after
            if out:
                return out, s
        return [], state

    def _resign(self, state: Raft, leader: int) -> tuple[list[tuple[str, Any]], Raft] | None:
        """Leader ``leader``'s CheckQuorumTimeout until it resigns: where a majority fetched in
        its current period the first ends the period and it leads on (RAFT-RULE-CHECK-QUORUM-
        PERIOD). The steps and the state after, or None where it does not resign."""
        steps: list[tuple[str, Any]] = []
        s = state
        for _ in range(2):
            fire = Fire(leader, CheckQuorumTimeout())
            after = self.resolve(s, fire)
            if after is None:
                return None
            steps.append(("resign", fire))
            s = after
            if _leading(s, leader) is None:
                return steps, s
        return None

    def _resend_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-RESEND at a guided path's end (with faults): a request lost and sent again
        (macros.Retry), last, so the probes before it meet the roles as the path left them. On
        every other path a leader resigns first (check quorum), so the request lost is its
        EndQuorumEpoch: the resigned leader's resend, which the random runs reach only by
        chance (the resignation, then that request's loss, then the timer). Elsewhere the
        ``k // 2``-th retry enabled, whatever the role (a leader, candidate or prospective with
        a voter that has not answered). Nothing when no retry is enabled (the resend budget is
        spent)."""
        out: list[tuple[str, Any]] = []
        start = state
        if k % 2 == 0:
            for leader in (n for n in state.nodes if isinstance(n.role, Leader)):
                resigned = self._resign(state, leader.id)
                if resigned is not None:
                    out, state = resigned
                    break
        retries = [m for _, m in probe_candidates(state) if isinstance(m, macros.Retry)]
        for j in range(len(retries)):
            retry = retries[(k // 2 + j) % len(retries)]
            after = self.resolve(state, retry)
            if after is not None:
                return [*out, (PROBE, retry)], after
        return [], start

    def _acked_resend_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-RESEND-ACKED on the odd guided paths (with faults), before the resend
        probe: at a leader, a voter (the ``k // 2``-th, rotating) acknowledges the epoch by a
        fetch alone and the leader's resend timer for it fires (``idle_resends``): the
        leader's BeginQuorumEpoch to it first (resent by macros.Retry where it has not
        answered, then delivered), its answer lost, then a fetch round trip (macros.RoundTrip);
        the model sends nothing at that ResendDue. A leader that counts only the answer as the
        acknowledgement (not Kafka's ``hasAcknowledgedLeader``, which a fetch sets) resends
        there. Nothing where no voter can be taken that way."""
        if k % 2 == 0:
            return [], state
        leader = next((n for n in state.nodes if isinstance(n.role, Leader)), None)
        if leader is None:
            return [], state
        others = [v for v in sorted(leader.voters) if v != leader.id]
        for j in range(len(others)):
            voter = others[(k // 2 + j) % len(others)]
            steps: list[tuple[str, Any]] = []
            current: Raft | None = state
            if voter in node_mod.unanswered(leader):
                retry = macros.Retry(leader.id, voter)
                current = self.resolve(state, retry)
                sent = [m for m in current.network.distinct() if isinstance(m, BeginQuorumEpochRequest)
                        and m.src == leader.id and m.dst == voter] if current is not None else []
                steps.append((PROBE, retry))
                if current is not None and sent:
                    steps.append(("deliver", Deliver(sent[0])))
                    current = self.resolve(current, Deliver(sent[0]))
            for message in [] if current is None else sorted(
                    (m for m in current.network.distinct() if isinstance(m, BeginQuorumEpochResponse)
                     and m.src == voter and m.dst == leader.id), key=repr):
                while current is not None and message in current.network:
                    steps.append(("network", Drop(message)))
                    current = self.resolve(current, Drop(message))
            if current is not None and voter not in getattr(current.node(leader.id).role, "acknowledged", {voter}):
                steps.append(("round_trip", macros.RoundTrip(voter)))
                current = self.resolve(current, macros.RoundTrip(voter))
            if current is None:
                continue
            idle = IdleTimer(leader.id, ResendDue(voter))
            if idle in idle_resends(current, current.node(leader.id)) and self.resolve(current, idle) is not None:
                return [*steps, ("idle_timer", idle)], current
        return [], state

    def _mid_round_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-MID-ROUND at an odd path's end: the ``k // 6``-th enabled first answer
        (rotating; macros.FirstAnswer), in turn as it is (on every other such path from an
        epoch the replica was moved to without a vote or leader, ``_unattached_bump``, and
        then asked for a standard vote it may grant, ``_up_to_date_vote``),
        followed by the next round (macros.AbandonRound: after a grant and after a refusal in
        turn), or with the answer held until the replica stood again (macros.LateVote); or
        nothing."""
        if k % 2 == 0:
            return [], state
        kinds = (macros.FirstAnswer, macros.AbandonRound, macros.LateVote)
        kind = kinds[(k // 2) % len(kinds)]
        firsts = [m for _, m in macros.mid_round_candidates(state) if isinstance(m, macros.FirstAnswer)]
        # The passes over the voter pairs: a bumped first answer on every other such path, then
        # any; a next round after a grant on every other such path, else after a refusal (what
        # a round counted must not count in the next: a grant carried over wins a round one
        # vote short, Raft's votesGranted being per term; a refusal carried over loses it),
        # then any.
        if kind is macros.FirstAnswer and (k // 6) % 2:
            passes: tuple[str, ...] = ("bumped", "any")
        elif kind is macros.AbandonRound:
            passes = ("granted" if (k // 6) % 2 == 0 else "refused", "any")
        else:
            passes = ("any",)
        for mode in passes:
            for j in range(len(firsts)):
                first = firsts[(k // 6 + j) % len(firsts)]
                macro = kind(first.node, first.voter)
                if mode != "bumped":
                    after = self.resolve(state, macro)
                    if after is not None and (mode == "any"
                                              or self._first_answer_grants(state, macro) == (mode == "granted")):
                        return [(PROBE, macro)], after
                    continue
                bump, start = self._unattached_bump(state, first.node)
                if not bump:
                    continue
                # it stands: mid-round where an answer leaves it so, else just stood (with three
                # voters a lagging follower's grant decides the round)
                stand: list[tuple[str, Any]] = [(PROBE, macro)]
                after = self.resolve(start, macro)
                if after is None:
                    stand = [("timer", Fire(first.node, ElectionTimeout()))]
                    after = self.resolve(start, stand[0][1])
                if after is None or not isinstance(after.node(first.node).role, Prospective | Candidate):
                    continue
                grant, after = self._up_to_date_vote(after, first.node)
                return [*bump, *stand, *grant], after
        return [], state

    def _up_to_date_vote(self, state: Raft, replica: int, pre_vote: bool = False,
                         avoid: int | None = None) -> tuple[list[tuple[str, Any]], Raft]:
        """A well-formed standard vote (``pre_vote``: pre-vote) of ``replica``'s epoch from
        another voter whose log is not behind its own (RAFT-DRIVE-WELL-FORMED, category
        ``inject``): what a prospective with neither a vote nor a leader in its epoch grants
        (RAFT-KIP996-PROSPECTIVE-VOTES). The step and the state after it; none where the model
        enables none. A sender other than ``avoid`` where there is one (a resigned leader does
        not stand in its own epoch)."""
        node = state.node(replica)
        for vote in sorted(well_formed_votes(state, node), key=lambda v: v.src == avoid):
            if vote.pre_vote == pre_vote and vote.epoch == node.epoch \
                    and (vote.last_epoch, vote.end_offset) >= (node.last_epoch, node.end_offset):
                after = self.resolve(state, Inject(vote))
                if after is not None:
                    return [("inject", Inject(vote))], after
        return [], state

    def _first_answer_grants(self, state: Raft, macro: Any) -> bool:
        """Whether the first answer ``macro`` delivers (its first VoteResponse) grants."""
        return next((a.message.granted for a, _ in self.sub_steps(state, macro)
                     if isinstance(a, Deliver) and isinstance(a.message, VoteResponse)), False)

    def _unattached_bump(self, state: Raft, replica: int) -> tuple[list[tuple[str, Any]], Raft]:
        """Replica ``replica`` moved to the next epoch with neither a vote nor a leader: a
        well-formed pre-vote of that epoch (which moves a replica to its epoch, granted or
        not), or a vote whose log is behind its own, which it refuses (RAFT-DRIVE-WELL-FORMED,
        category ``inject``). A voter that stands from there stands
        with nothing of its epoch behind it, where KIP-996's prospective may still grant a
        standard vote of its epoch and start its round again (RAFT-KIP996-PROSPECTIVE-VOTES):
        the paths end with voters that follow or voted, whose prospective refuses it. The step
        and the state after it; none where no such vote is enabled."""
        node = state.node(replica)
        for vote in well_formed_votes(state, node):
            if vote.epoch != node.epoch + 1:
                continue
            action = Inject(vote)
            after = self.resolve(state, action)
            if after is not None and after.node(replica).role == Unattached(node.epoch + 1):
                return [("inject", action)], after
        return [], state

    def _late_copy_probe(self, state: Raft, k: int) -> tuple[list[tuple[str, Any]], Raft]:
        """RAFT-DRIVE-LATE-COPY at a guided path's end: a leader appends a record, then the
        ``k``-th late copy (rotating) that is enabled: a replica catches up alone, the leader
        replicates, and the first answer's copy arrives after the high watermark moved (in
        the shapes with an observer or four or more voters: with three, the answer at the log
        end already carries the newest high watermark), or a follower's duplicated fetch
        reaches the leader after the follower caught up (macros.LateFetch), or a follower's
        answer held while its leader resigned and won the next epoch (macros.HeldFetch). The
        steps and the state after them; none when no late copy is enabled."""
        leaders = [n for n in state.nodes if isinstance(n.role, Leader)]
        if not leaders:
            return [], state
        append = Fire(leaders[0].id, ClientAppend(guided_payload(state)))
        appended = self.resolve(state, append)
        if appended is None:
            return [], state
        late: list[macros.Macro] = [m for _, m in macros.raft_candidates(appended)
                                    if isinstance(m, macros.DeliverLate | macros.LateFetch)]
        # RAFT-DRIVE-STALE-ANSWER: a follower's answer held across its leader's resignation and
        # re-election (macros.HeldFetch), which the random runs' Stale reaches only by chance
        late += [macros.HeldFetch(n.id) for n in appended.nodes if isinstance(n.role, Follower)]
        for j in range(len(late)):
            macro = late[(k + j) % len(late)]
            after = self.resolve(appended, macro)
            if after is not None:
                category = PROBE if isinstance(macro, macros.HeldFetch) else "redeliver"
                return [("client", append), (category, macro)], after
        return [], state

    def _kip996_start_probes(self) -> tuple[StartProbe, ...]:
        """The start probes of a KIP-996 follower whose leader never heard from it (kip-996,
        three or more voters, with faults: each loses a message or resigns a leader):
        RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH and RAFT-DRIVE-ERROR-FETCH-PRE-VOTE. Each elects a
        leader, which a path's end has seldom the election budget left for."""
        if not (self.config["pre_vote"] and self.config["faults"]) or len(self.model.voter_ids) < 3:
            return ()
        return (StartProbe("RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH", self._prospective_begin_epoch_probe),
                StartProbe("RAFT-DRIVE-ERROR-FETCH-PRE-VOTE", self._error_fetch_pre_vote_probe),
                StartProbe("RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE", self._prospective_leader_vote_probe))

    def _announced(self, state: Raft) -> list[tuple[list[tuple[str, Any]], Raft, int, int]]:
        """Each voter ``c`` elected (:meth:`_elect`), then its BeginQuorumEpoch delivered to
        another voter ``f`` (which follows it, not yet fetched): the steps, the state after,
        ``c`` and ``f``, for every such pair where each step is offered."""
        out = []
        voters = sorted(self.model.voter_ids)
        for c, script, s in self._each_elected(state):
            for f in voters:
                begin = next((Deliver(m) for m in sorted(s.network.distinct(), key=repr)
                              if isinstance(m, BeginQuorumEpochRequest) and (m.src, m.dst) == (c, f)), None)
                after = None if begin is None else self._offered(s, "deliver", begin)
                role = None if after is None else after.node(f).role
                if after is not None and isinstance(role, Follower) and role.leader == c and not role.fetched:
                    out.append(([*script, ("deliver", begin)], after, c, f))
        return out

    def _prospective_begin_epoch_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH (a start probe, kip-996, with faults): a voter F
        follows the new leader L after L's BeginQuorumEpoch, its answer is lost (L has not
        heard from it: RAFT-RULE-RESEND), F's fetch timer expires (it is prospective and
        remembers L, RAFT-KIP996-PRE-VOTE-EPOCH), then L's resend timer for F fires and that
        BeginQuorumEpoch reaches F. A prospective that knows its epoch's leader is unchanged by
        it (RAFT-KIP996-LEADER-KNOWN: Kafka's ``maybeTransition`` moves only a replica with no
        leader) and answers with its epoch and L; one that takes the notice as "the leader is
        alive" and follows L again diverges (red team
        ``raft_scratch11:prospective-rejoins-on-begin-epoch``, escaped seeds 0 and 1: random
        runs seldom lose that one answer and fire both timers in this order). All or nothing;
        each step only where the driver offers it."""
        offered = self._offered
        for script, s, leader, f in self._announced(state):
            answer = next((m for m in s.network.distinct() if isinstance(m, BeginQuorumEpochResponse)
                           and (m.src, m.dst) == (f, leader)), None)
            lost = None if answer is None else offered(s, "network", Drop(answer))
            timed_out = None if lost is None else offered(lost, "timer", Fire(f, FetchTimeout()))
            if timed_out is None or not isinstance(timed_out.node(f).role, Prospective):
                continue
            resend = Fire(leader, ResendDue(f))
            resent = offered(timed_out, "resend", resend)
            again = None if resent is None else next(
                (Deliver(m) for m in resent.network.distinct() if isinstance(m, BeginQuorumEpochRequest)
                 and (m.src, m.dst) == (leader, f)), None)
            if answer is None or again is None or resent is None or offered(resent, "deliver", again) is None:
                continue
            return [*script, ("network", Drop(answer)), ("timer", Fire(f, FetchTimeout())), ("resend", resend),
                    ("deliver", again)]
        return []

    def _prospective_leader_vote_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE (a start probe, kip-996, with faults): a voter F
        follows the new leader L after L's BeginQuorumEpoch, has not fetched, and its fetch timer
        makes it prospective (it keeps L, RAFT-KIP996-PRE-VOTE-EPOCH; F did not vote in L's
        election, else its vote alone refuses); then another voter asks it
        for a well-formed standard vote of its epoch whose log is not behind F's
        (:meth:`_up_to_date_vote`: a candidate that lost L's election, its request late or
        resent). F refuses: a prospective grants a standard vote only with neither a vote nor a
        leader in its epoch (RAFT-KIP996-PROSPECTIVE-VOTES, Kafka's ``ProspectiveState`` keeps
        the leader it came from). The path-end votes meet prospectives that never knew a
        leader, and a follower's vote of its own epoch claims a log behind the LeaderChange it
        fetched, so one that tests the vote only (red team
        ``raft_scratch14:prospective-grants-with-known-leader``) escaped seeds 0 and 1. All or
        nothing; each step only where the driver offers it."""
        for script, s, leader, f in self._announced(state):
            timeout = Fire(f, FetchTimeout())
            timed_out = self._offered(s, "timer", timeout)
            role = None if timed_out is None else timed_out.node(f).role
            if timed_out is None or not isinstance(role, Prospective) or role.prior.voted_for is not None:
                continue  # a voter that voted in the epoch refuses every other candidate anyway
            vote, _ = self._up_to_date_vote(timed_out, f, avoid=leader)
            if vote and vote[0][1].message.src != leader:
                return [*script, ("timer", timeout), *vote]
        return []

    def _error_fetch_pre_vote_probe(self, state: Raft) -> list[tuple[str, Any]]:
        """RAFT-DRIVE-ERROR-FETCH-PRE-VOTE (a start probe, kip-996, with faults): a voter F
        follows the new leader L after L's BeginQuorumEpoch and has not fetched; L resigns
        (check quorum; its EndQuorumEpoch notices are lost, which would change nothing at F);
        F fetches from L, which answers NOT_LEADER_OR_FOLLOWER naming itself (a resigned leader
        still names itself the epoch's leader); then another voter asks F for a well-formed
        pre-vote of its epoch whose log is not behind F's (:meth:`_up_to_date_vote`). F grants:
        only a successful fetch from its leader makes a follower refuse pre-votes
        (RAFT-KIP996-PRE-VOTE-GRANT, Kafka's ``FollowerState.hasFetchedFromLeader``, set on the
        success path of ``handleFetchResponse``); one that counts an error answer refuses the
        pre-vote that would replace a leader that is gone (red team
        ``raft_scratch11:follower-error-fetch-counted``, escaped seeds 0 and 1). All or nothing;
        each step only where the driver offers it."""
        offered = self._offered
        for script, s, leader, f in self._announced(state):
            resign = Fire(leader, CheckQuorumTimeout())
            now = offered(s, "resign", resign)
            if now is None:
                continue
            steps = [*script, ("resign", resign)]
            for notice in sorted(now.network.distinct(), key=repr):
                if isinstance(notice, EndQuorumEpochRequest) and notice.src == leader:
                    lost = offered(now, "network", Drop(notice))
                    if lost is not None:
                        steps.append(("network", Drop(notice)))
                        now = lost
            due = Fire(f, FetchDue(leader))
            asked = offered(now, "fetch", due)
            fetch = None if asked is None else next(
                (Deliver(m) for m in asked.network.distinct() if isinstance(m, FetchRequest)
                 and (m.src, m.dst) == (f, leader)), None)
            refused = None if fetch is None or asked is None else offered(asked, "deliver", fetch)
            error = None if refused is None else next(
                (Deliver(m) for m in refused.network.distinct() if isinstance(m, FetchResponse)
                 and (m.src, m.dst) == (leader, f) and m.error == "NOT_LEADER_OR_FOLLOWER"), None)
            answered = None if error is None or refused is None else offered(refused, "deliver", error)
            if answered is None:
                continue
            vote, _ = self._up_to_date_vote(answered, f, pre_vote=True, avoid=leader)
            granted = vote and any(isinstance(o, VoteResponse) and o.granted
                                   for o in self.model._step(answered.node(f), vote[0][1].message)[1])
            if granted:
                return [*steps, ("fetch", due), ("deliver", fetch), ("deliver", error), *vote]
        return []

    def resolve(self, state: Raft, action: Any) -> Raft | None:
        """The state after ``action``, or None when the model does not enable it within bounds."""
        return self._resolve(state, action, 0)

    def _past_bound(self, state: Raft, action: Any) -> Raft | None:
        """:meth:`resolve` one epoch past ``max_epoch`` (RAFT-DRIVE-DIVERGENT-EPOCHS: the steps of
        a ``macros.PastBound``, and only those)."""
        return self._resolve(state, action, 1)

    def expand(self, state: Any, macro: macros.Macro) -> macros.Expansion | None:
        """As the base class, but a ``macros.PastBound`` expands with :meth:`_past_bound`."""
        if not isinstance(macro, macros.PastBound):
            return super().expand(state, macro)
        return macros.expand(macro, state, self.model.actions, self._past_bound)

    def _resolve(self, state: Raft, action: Any, past_epochs: int) -> Raft | None:
        if isinstance(action, IdleTimer | macros.Redeliver):
            # a timer that is not due, or a copy of a response already taken: enabled only
            # where the replica's step changes nothing (it is ignored)
            replica, inp = node_inputs(action)[0]
            node = state.node(replica)
            if isinstance(node.role, Down):
                return None
            after_node, outputs = self.model._step(node, inp)
            return state if after_node == node and not outputs else None
        if isinstance(action, macros.MACRO_TYPES):
            return self.resolve_macro(state, action)
        if isinstance(action, Inject):
            if isinstance(state.node(action.message.dst).role, Down):
                return None
            injected = self.model._apply(state, action.message.dst, action.message)
            return injected if injected is not None and self.model.within_bounds(injected, past_epochs) else None
        after = self.model.next_state(state, action)
        if after is None and self.variant and isinstance(action, Fire):
            # An input the correct model acts on and a deviation's variant ignores (3.8's voted
            # observer sends no fetch): a step that changes nothing, so a run the correct model
            # took replays under the variant (runner.explained_by) instead of stopping there.
            node = state.node(action.node)
            if self.model._step(node, action.input) == (node, ()):
                return state
        if after is None and type(action).__name__ == "Reboot":
            after = self._quiet_reboot(state, action.node)
        if after is None or not self.model.within_bounds(after, past_epochs):
            return None
        return after

    def _quiet_reboot(self, state: Raft, replica: int) -> Raft | None:
        """A reboot that loses nothing. The explorer skips it (no new state), but a target must
        show it changes nothing too (a vote not read back on restart shows exactly here)."""
        if state.crashes >= int(self.model.bounds["max_crashes"]) or isinstance(state.node(replica).role, Down):
            return None
        down = self.model._apply(state, replica, Crash())
        up = None if down is None else self.model._apply(down, replica, Restart())
        return None if up is None else replace(up, crashes=state.crashes + 1)

    def events(self, before: Raft, action: Any, after: Raft) -> list[Event]:
        """The node-level inputs of ``action`` with the model's outputs and observation after
        each: one for a delivery or a fired input, Crash then Restart for a reboot, none for a
        drop or a duplication."""
        if isinstance(action, macros.MACRO_TYPES):
            return self.macro_events(before, action)
        pairs = node_inputs(action)
        nodes = {n.id: n for n in before.nodes}
        out = []
        for replica, inp in pairs:
            node = nodes[replica]
            nodes[replica], outputs = self.model._step(node, inp)
            others = tuple(wire(encode(o)) for o in node_mod.other_answers(node, inp, outputs))
            out.append(Event(replica, wire(encode(inp)), _with_successor_offsets(node, wire(encode(outputs))),
                             node_mod.observe(nodes[replica]), alternatives=others))
        return out

    def comparable_at(self, model_outputs: JSON) -> Callable[[JSON], JSON]:
        """:meth:`comparable`, and at a leader's resignation (the model's EndQuorumEpoch requests
        carry ``successor_offsets``, :func:`_with_successor_offsets`) the order of a target's
        preferred successors too (RAFT-RULE-PREFERRED-ORDER): a list that names the voters the
        leader heard from out of non-increasing fetch-offset order is kept as sent, so it differs
        from the model's."""
        offsets = next((o["successor_offsets"] for o in model_outputs or [] if isinstance(o, dict)
                        and o.get("type") == "EndQuorumEpochRequest" and "successor_offsets" in o), None)
        if offsets is None:
            return self.comparable
        seen = {int(v): int(off) for v, off in offsets}

        def relevant(output: JSON) -> JSON:
            if isinstance(output, dict) and output.get("type") == "EndQuorumEpochRequest" \
                    and "successor_offsets" not in output:
                preferred = output.get("preferred")
                if isinstance(preferred, list) and not in_progress_order(preferred, seen):
                    return {**comparable_output(output), "preferred": {"not by fetch offset": preferred,
                                                                       "offsets": sorted(seen.items())}}
            return self.comparable(output)
        return relevant

    def comparable(self, output: JSON) -> JSON:
        """The part of an output that must equal the model's (:func:`comparable_output`), and
        an EndQuorumEpoch's preferred successors judged as a set of candidates
        (RAFT-RULE-PREFERRED-SUCCESSORS): any order, but only other voters, each once. A list
        that names an observer, an unknown replica, the sender or a voter twice is kept as it
        is, so it differs from the model's (which names none)."""
        if isinstance(output, dict) and output.get("type") == "EndQuorumEpochRequest":
            preferred = output.get("preferred")
            others = self.model.voter_ids - {output.get("src")}
            named = preferred if isinstance(preferred, list) else None
            if named is not None and len(set(named)) == len(named) and all(p in others for p in named):
                return {**comparable_output(output), "preferred": "other voters"}
            return {**comparable_output(output), "preferred": preferred}
        return comparable_output(output)

    def input_cells(self, before: Raft, action: Any) -> list[tuple[str, str]]:
        """The coverage-matrix cells of ``action``'s node-level inputs (RAFT-DRIVE-MATRIX)."""
        return [input_cell(node, inp) for node, inp in self._fed(before, action)]

    def request_grid(self) -> frozenset[tuple[str, str, str]]:
        """RAFT-DRIVE-REQUEST-GRID: every request kind that carries an epoch (a pre-vote where
        the configuration has them) at every role a replica of the configuration may be in
        (an observer's prefixed ``observer``: it never stands; with kip-853's open votes it may
        vote), each with a stale, equal and future epoch."""
        roles = ["unattached", "voted", "candidate", "follower", "leader", "resigned"]
        if self.config["pre_vote"]:
            roles.append("prospective")
        if self.config["observers"]:
            roles += ["observer unattached", "observer follower"]
            if self.config["kip853"]:
                roles.append("observer voted")
        kinds = [k for k in GRID_REQUESTS if k != "PreVoteRequest" or self.config["pre_vote"]]
        return frozenset((k, r, rel) for k in kinds for r in roles for rel in ("<", "=", ">"))

    def request_cells(self, before: Raft, action: Any) -> list[tuple[str, str, str, str]]:
        """The request-grid cells of ``action``'s requests, each with its sender's class
        (RAFT-DRIVE-REQUEST-GRID)."""
        return [cell for node, inp in self._fed(before, action) if (cell := request_cell(node, inp)) is not None]

    def _fed(self, before: Raft, action: Any) -> list[tuple[Node, Input]]:
        """``action``'s node-level inputs, each with its receiver as it was just before it (the
        last answer kept: the coverage asks twice for one step)."""
        memo = self._fed_memo
        if memo is not None and memo[0] is before and memo[1] is action:
            return memo[2]
        found: list[tuple[Node, Input]] = []
        if isinstance(action, macros.MACRO_TYPES):
            state = before
            for sub, after in self.sub_steps(before, action):
                found += self._fed(state, sub)
                state = after
        else:
            nodes = {n.id: n for n in before.nodes}
            for replica, inp in node_inputs(action):
                found.append((nodes[replica], inp))
                nodes[replica], _ = self.model._step(nodes[replica], inp)
        self._fed_memo = (before, action, found)
        return found

    def describe(self, action: Any) -> str:
        if isinstance(action, IdleTimer):
            to = f"(to={action.input.to})" if isinstance(action.input, FetchDue) else ""
            return f"replica {action.node}: {type(action.input).__name__}{to} (nothing due)"
        if isinstance(action, Inject):
            message = describe_message(action.message)
            if isinstance(action.message, FetchSnapshotRequest):
                # the topic list by its RAFT-DRIVE-LEADER-ONLY name (an empty one is not shown otherwise)
                message += f" [topics: {_SHAPE_NAMES.get(action.message.topics, action.message.topics)}]"
            return f"inject {message}"
        if isinstance(action, macros.Redeliver):
            return f"deliver a copy of {describe_message(action.message)} again"
        if isinstance(action, macros.MACRO_TYPES):
            return macros.describe(action)
        if isinstance(action, Fire) and isinstance(action.input, ClientAppend) and action.input.payload:
            payload: list[int] | str = list(action.input.payload) if len(action.input.payload) <= 8 \
                else f"{len(action.input.payload)} bytes {action.input.payload[0]}..{action.input.payload[-1]}"
            return f"{describe_action(action)}(payload={payload})"
        return describe_action(action)

    def model_violation(self, before: Raft, action: Any, after: Raft) -> str | None:
        if isinstance(action, IdleTimer | macros.Redeliver):
            return None
        if isinstance(action, macros.MACRO_TYPES):
            return self.violated_within(before, action, self._always + self._always_step)
        return first_violated(self._always + self._always_step, before, action, after)

    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """Safety checks on the target's observations alone."""
        leaders: dict[int, Any] = memory.setdefault("leaders", {})
        obs = observations[node]
        if obs.get("role") == "leader":
            epoch = obs.get("epoch")
            other = leaders.setdefault(epoch, node)
            if other != node:
                return f"RAFT-INV-ELECTION-SAFETY: replicas {other} and {node} both lead epoch {epoch}"
        hw, log = obs.get("high_watermark"), _log_from_zero(obs)
        if isinstance(hw, int) and hw > len(log):
            return f"RAFT-INV-HW-MAJORITY: replica {node} has high watermark {hw} past its log end {len(log)}"
        if isinstance(hw, int):
            for other, o in observations.items():
                ohw, olog = o.get("high_watermark"), _log_from_zero(o)
                if other == node or not isinstance(ohw, int):
                    continue
                upto = min(hw, ohw)
                # (below a log start a record is gone, None: a snapshot's records are compared
                # where both replicas still hold them)
                if any(a != b and a is not None and b is not None for a, b in zip(log[:upto], olog[:upto],
                                                                                  strict=False)):
                    return (f"RAFT-INV-COMMITTED-UNIQUE: replicas {node} and {other} disagree below their "
                            f"high watermarks ({hw}, {ohw})")
        return None


def _log_from_zero(obs: Any) -> list[Any]:
    """An observation's log indexed by offset: the records below its ``log_start`` (RAFT-OBS-
    SNAPSHOT, KIP-630: gone from the log) as None, then ``log``."""
    log = obs.get("log") or []
    start = obs.get("log_start")
    return [None] * start + list(log) if isinstance(start, int) and start > 0 else list(log)


def _own_epoch_votes(pre_vote: bool) -> Callable[[Raft, Node, frozenset[int]], list[Request]]:
    def pool(state: Raft, node: Node, observers: frozenset[int]) -> list[Request]:
        return [m for m in well_formed_votes(state, node) if m.pre_vote == pre_vote and m.epoch == node.epoch]
    return pool


def _injected(votes: bool) -> Callable[[Raft, Node, frozenset[int]], list[Request]]:
    def pool(state: Raft, node: Node, observers: frozenset[int]) -> list[Request]:
        return [m for m in injected_requests(state, node, observers) if isinstance(m, VoteRequest) == votes]
    return pool


# RAFT-DRIVE-PROBE: the pools a guided path's probes at one replica take one request each from,
# in this order (a pre-vote changes no state, so it goes first).
# Last a leader-only request (RAFT-DRIVE-LEADER-ONLY), which changes no state unless the target
# throws.
_PROBE_POOLS: tuple[tuple[str, Callable[[Raft, Node, frozenset[int]], list[Any]]], ...] = (
    ("inject", _own_epoch_votes(True)), ("inject", _own_epoch_votes(False)), ("inject", _injected(True)),
    ("inject", _injected(False)), ("leader_only", leader_only_requests))


def _with_successor_offsets(before: Node, outputs: JSON) -> JSON:
    """RAFT-RULE-PREFERRED-ORDER: at a step where a leader resigns (check-quorum), its
    EndQuorumEpoch requests as the model sends them, each with ``successor_offsets``: the last
    fetch offset the leader recorded for each other voter it heard from in its epoch, which
    the comparison of the target's preferred successors reads (``RaftDriver.comparable_at``)."""
    role = before.role
    if not isinstance(role, Leader) or not isinstance(outputs, list):
        return outputs
    heard = [[v, off] for v, off in role.end_offsets if v in before.voters and v != before.id]
    return [{**o, "successor_offsets": heard} if isinstance(o, dict) and o.get("type") == "EndQuorumEpochRequest"
            else o for o in outputs]


def in_progress_order(preferred: Sequence[Any], offsets: Mapping[int, int]) -> bool:
    """RAFT-RULE-PREFERRED-ORDER: the voters of ``preferred`` whose fetch offset the leader
    recorded (``offsets``) come in non-increasing offset order; ties, and voters it never heard
    from, may stand anywhere."""
    known = [offsets[p] for p in preferred if isinstance(p, int) and p in offsets]
    return all(a >= b for a, b in pairwise(known))


def comparable_output(output: JSON) -> JSON:
    """The part of an output that must equal the model's whatever the voter set: an
    EndQuorumEpoch's preferred successors only shorten the successors' timers, which are
    abstract here, so their order is free and the model names none (D-CHECK-QUORUM-SUCCESSORS;
    the raft driver judges whom they name, RAFT-RULE-PREFERRED-SUCCESSORS); a Halt's message is
    free text (RAFT-OBS-EXCEPTION: the class is compared)."""
    if isinstance(output, dict) and output.get("type") == "EndQuorumEpochRequest":
        return {k: v for k, v in output.items() if k not in ("preferred", "successor_offsets")}
    if isinstance(output, dict) and output.get("type") == "Halt":
        return {k: v for k, v in output.items() if k != "message"}
    return without_snapshot_defaults(output)


def node_inputs(action: Any) -> list[tuple[int, Input]]:
    """The (replica, node-level input) pairs a non-macro action applies: one for a delivery, an
    injected request or a fired input, Crash then Restart for a reboot, none otherwise."""
    if isinstance(action, IdleTimer | Fire):
        return [(action.node, action.input)]
    if isinstance(action, Inject | Deliver | macros.Redeliver):
        return [(action.message.dst, action.message)]
    if type(action).__name__ == "Reboot":
        return [(action.node, Crash()), (action.node, Restart())]
    return []


class _Script:
    """A start probe's steps as it takes them (RAFT-DRIVE-SNAPSHOT-LAG, -SUPERSEDED): each only
    where the driver offers it (:meth:`RaftDriver._offered`)."""

    def __init__(self, driver: RaftDriver, script: list[tuple[str, Any]], s: Raft) -> None:
        self.driver, self.script, self.s = driver, list(script), s

    def take(self, category: str, action: Any) -> bool:
        after = self.driver._offered(self.s, category, action)
        if after is None:
            return False
        self.script.append((category, action))
        self.s = after
        return True

    def commit(self, followers: Sequence[int]) -> bool:
        """``followers`` fetch twice each (the records, then the high watermark that commits
        them); True when the leader's high watermark is its log end."""
        for f in followers:
            for _ in range(2):
                self.take("round_trip", macros.RoundTrip(f))
        leader = next((n for n in self.s.nodes if isinstance(n.role, Leader)), None)
        return leader is not None and leader.high_watermark == leader.end_offset
