"""Deliberately broken variants of the KRaft model, one per property.

Each wraps the correct ``node.step`` with one known bug class, so the explorer must find a
short trace to the property it breaks (or show a witness is never reached). A property no
variant can break would be toothless; ``tests/raft/test_raft_variants.py`` holds each to it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft import node as node_mod
from kspec.model.raft.listener import ListenerRules
from kspec.model.raft.messages import (
    OWN_TOPIC,
    BeginQuorumEpochRequest,
    CheckQuorumTimeout,
    ElectionTimeout,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    Halt,
    Input,
    Output,
    ResendDue,
    Restart,
    TakeSnapshot,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.rules import majority_end_offset
from kspec.model.raft.state import Down, Election, Leader, Node, Unattached, Voted, election_of
from kspec.model.raft.system import RaftModel

StepFn = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


def vote_twice(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A voter that already voted in an epoch grants another candidate too."""
    if isinstance(inp, VoteRequest) and not inp.pre_vote and isinstance(node.role, Voted) \
            and inp.epoch == node.epoch and node.role.voted_for != inp.src:
        node = replace(node, role=Unattached(node.epoch))
    return node_mod.step(node, inp)


def restart_forgets_vote(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The vote is not persisted: a restarted voter may vote again in the same epoch."""
    if isinstance(inp, Restart) and isinstance(node.role, Down) and node.role.election.voted_for not in (None,
                                                                                                        node.id):
        node = replace(node, role=Down(Election(node.role.election.epoch)))
    return node_mod.step(node, inp)


def quorum_state_lost(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The quorum-state file is not read on restart: the epoch comes from the log alone."""
    if isinstance(inp, Restart) and isinstance(node.role, Down):
        return replace(node, role=Unattached(node.last_epoch), high_watermark=None), ()
    return node_mod.step(node, inp)


def vote_ignores_log(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """Votes are granted without checking that the candidate's log is up to date."""
    if isinstance(inp, VoteRequest) and inp.epoch > 0:
        # the longest log a well-formed request can claim (its last epoch below its epoch,
        # RAFT-RULE-INVALID-REQUEST): every voter's log is at most that
        inp = replace(inp, last_epoch=inp.epoch - 1, end_offset=10**6)
    return node_mod.step(node, inp)


def snapshot_above_hw(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A replica snapshots records that are not committed yet: ``createNewSnapshot`` without
    its high-watermark check (RAFT-RULE-SNAPSHOT-TAKE)."""
    if isinstance(inp, TakeSnapshot) and not isinstance(node.role, Down):
        end, latest = inp.end_offset, node.latest_snapshot
        if max(1, node.log_start) <= end <= node.end_offset and (latest is None or end > latest[0]):
            return replace(node, snapshots=(*node.snapshots, (end, node.log[end - 1].epoch))), ()
    return node_mod.step(node, inp)


def leader_commits_alone(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The leader's high watermark is its own log end: no majority needed."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(after.role, Leader):
        after = replace(after, high_watermark=after.end_offset)
    return after, outputs


def candidate_counts_rejections(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A candidate that counts every vote response as a grant."""
    if isinstance(inp, VoteResponse) and not inp.granted and not inp.pre_vote:
        inp = replace(inp, granted=True)
    return node_mod.step(node, inp)


def hw_without_epoch_guard(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A new leader keeps the high watermark it had and recomputes it from the offsets it has
    seen, without waiting for its epoch's LeaderChange record to commit."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(after.role, Leader):
        offsets = dict(after.role.end_offsets)
        offsets[after.id] = after.end_offset
        hw = majority_end_offset(offsets, after.voters)
        if not isinstance(node.role, Leader) and node.high_watermark is not None:
            hw = min(hw, node.high_watermark) if hw < node.high_watermark else hw
        after = replace(after, high_watermark=hw)
    return after, outputs


def never_resigns(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A leader that never resigns when a majority stops fetching (no check-quorum)."""
    if isinstance(inp, CheckQuorumTimeout):
        return node, ()
    return node_mod.step(node, inp)


def check_quorum_counts_observers(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A leader that records an observer's fetch in its check-quorum set (a port of Kafka's
    ``updateFetchedVoters`` without its voter check): the set is no longer the voters heard
    from, and a port whose majority test counts the set's size (as Kafka's does) lets observers
    reset the timer while the voters are gone."""
    after, outputs = node_mod.step(node, inp)
    role = after.role
    if (isinstance(inp, FetchRequest) and inp.src >= 0 and inp.src not in node.voters and isinstance(role, Leader)
            and isinstance(node.role, Leader) and role.end_offset_of(inp.src) == inp.fetch_offset):
        after = replace(after, role=node_mod.count_fetched(role, inp.src, node))
    return after, outputs


def ignores_diverging_epoch(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A follower that ignores the diverging epoch in a fetch response and never truncates."""
    if isinstance(inp, FetchResponse) and inp.diverging is not None:
        return node, ()
    return node_mod.step(node, inp)


def kafka_observer_voted_stands(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """Kafka 3.8 (KAFKA-17067, fixed in 3.9.0): an observer that voted (KIP-853 lets it) is in
    ``VotedState``, which behaves as a voter's: it sends no fetch, and when its election timer
    expires ``pollVoted`` calls ``transitionToCandidate``, which throws IllegalStateException
    for an observer, and the replica stops (RAFT-OBS-EXCEPTION). The protocol keeps an observer
    an observer (RAFT-KIP853-OPEN-VOTE)."""
    if not node.is_voter and isinstance(node.role, Voted):
        if isinstance(inp, FetchDue):
            return node, ()
        if isinstance(inp, ElectionTimeout):
            return replace(node, role=Down(election_of(node)), high_watermark=None), (
                Halt("java.lang.IllegalStateException"),)
    return node_mod.step(node, inp)


def kafka_fetch_snapshot_shape_unchecked(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """Kafka 3.3-4.2.1, 4.3.0, 4.3.1 (fixed in 4.2.2 and 4.4.0, apache/kafka#23185):
    ``handleFetchSnapshotRequest`` tests the topic/partition shape with ``&&`` for ``||``
    (``topics().size() != 1 && topics().get(0).partitions().size() != 1``). So a request
    with no topic throws IndexOutOfBoundsException out of the handler, which stops the replica
    (RAFT-OBS-EXCEPTION); only one whose topics are not one AND whose first topic's partitions
    are not one is INVALID_REQUEST; any other (one topic of two partitions, two topics whose
    first has one) is looked up (``FetchSnapshotRequest.forTopicPartition``: the first partition
    0 of a topic named as the replica's, in any topic) and answered as a well-formed one, or
    UNKNOWN_TOPIC_OR_PARTITION if none is there. The protocol answers every request that does
    not name exactly one partition INVALID_REQUEST (RAFT-RULE-FETCH-SNAPSHOT-SHAPE)."""
    if not isinstance(inp, FetchSnapshotRequest) or isinstance(node.role, Down):
        return node_mod.step(node, inp)
    topics = inp.topics
    if not topics:
        return replace(node, role=Down(election_of(node)), high_watermark=None), (
            Halt("java.lang.IndexOutOfBoundsException"),)
    if len(topics) != 1 and len(topics[0][1]) != 1:
        return node, (FetchSnapshotResponse(node.id, inp.src, None, None, "INVALID_REQUEST"),)
    if not any(name == OWN_TOPIC and 0 in parts for name, parts in topics):
        return node, (FetchSnapshotResponse(node.id, inp.src, None, None, "UNKNOWN_TOPIC_OR_PARTITION"),)
    return node, (node_mod.snapshot_answer(node, inp),)


def resends_to_acknowledged(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A leader whose resend goes to every other voter, acknowledged or not (Kafka 3.9+'s
    heartbeat, which KIP-595's rule set does not allow: RAFT-RULE-RESEND)."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(inp, ResendDue) and isinstance(node.role, Leader) and outputs:
        outputs = tuple(BeginQuorumEpochRequest(node.id, v, node.epoch) for v in sorted(node.voters - {node.id}))
    return after, outputs


def never_resends(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A leader that sends BeginQuorumEpoch once, at election, and never again: a voter whose
    copy was lost learns the leader only by timing out."""
    if isinstance(inp, ResendDue) and isinstance(node.role, Leader):
        return node, ()
    return node_mod.step(node, inp)


@dataclass(frozen=True, slots=True)
class Variant:
    """A broken variant: its step function, the property it breaks, the bounds that show it,
    and whether the explorer must keep going past earlier violations to reach that one."""

    step: StepFn
    breaks: str
    bounds: dict[str, Any] = field(default_factory=dict)
    keep_going: bool = False
    # The listener layer's rules under this variant (RAFT-OBS-LISTENER), for a deviation of
    # what a release tells its state machine; None: the protocol's.
    listener: ListenerRules | None = None
    # The input types on which alone ``step`` differs from the protocol's (empty: any): such a
    # variant composes with one other step variant (``compose``), as --accept of several asks.
    inputs: tuple[type, ...] = ()


def compose(variants: list[Variant]) -> StepFn:
    """One step function that is each of ``variants`` (at most one of them without ``inputs``)
    on its inputs and the protocol's ``node.step`` elsewhere; ValueError when two could change
    the step on the same input."""
    wide = [v for v in variants if not v.inputs]
    narrow = [v for v in variants if v.inputs]
    claimed = [t for v in narrow for t in v.inputs]
    if len(wide) > 1 or len(set(claimed)) != len(claimed):
        raise ValueError("several variants change the step on the same inputs")
    base = wide[0].step if wide else node_mod.step
    if not narrow:
        return base

    def step(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
        for v in narrow:
            if isinstance(inp, v.inputs):
                return v.step(node, inp)
        return base(node, inp)

    return step


CATALOGUE: dict[str, Variant] = {
    "vote-twice": Variant(vote_twice, "VoteOnce"),
    "candidate-counts-rejections": Variant(candidate_counts_rejections, "ElectionSafety"),
    "restart-forgets-vote": Variant(restart_forgets_vote, "VoteOnce"),
    "quorum-state-lost": Variant(quorum_state_lost, "EpochMonotonic"),
    "vote-ignores-log": Variant(vote_ignores_log, "LeaderCompleteness"),
    "leader-commits-alone": Variant(leader_commits_alone, "HighWatermarkDurable"),
    "leader-commits-without-majority": Variant(leader_commits_alone, "CommittedLogsAgree", keep_going=True),
    "hw-without-epoch-guard": Variant(hw_without_epoch_guard, "HighWatermarkMonotonic"),
    "never-resigns": Variant(never_resigns, "LeaderResignsCheckQuorum",
                             {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}),
    "check-quorum-counts-observers": Variant(check_quorum_counts_observers, "CheckQuorumCounted",
                                             {"observers": 1, "max_epoch": 1, "max_crashes": 0, "max_appends": 0,
                                              "max_elections": 1}),
    "ignores-diverging-epoch": Variant(ignores_diverging_epoch, "FollowerTruncates", {"max_crashes": 0}),
    "resends-to-acknowledged": Variant(resends_to_acknowledged, "ResendOnlyUnanswered",
                                       {"max_epoch": 1, "max_crashes": 0, "max_appends": 0, "max_resends": 1}),
    "never-resends": Variant(never_resends, "BeginQuorumEpochResent",
                             {"max_epoch": 1, "max_crashes": 0, "max_appends": 0, "max_resends": 1}),
    "snapshot-above-hw": Variant(snapshot_above_hw, "SnapshotCommitted",
                                 {"max_epoch": 1, "max_crashes": 0, "max_appends": 0, "max_snapshots": 1},
                                 inputs=(TakeSnapshot,)),
}


# Kafka releases' catalogued deviations (conformance/deviations/raft.toml): variants that allow
# what a release does, so that ``kspec conform --accept NAME`` holds it to the rest of the
# protocol. They break no property; they are not in CATALOGUE's property tests.
DEVIATIONS: dict[str, Variant] = {
    "kafka-observer-voted-stands": Variant(kafka_observer_voted_stands, ""),
    # Kafka 3.3-3.6 (KAFKA-15489, fixed in 3.7.0): the leader has no check-quorum timer, so it
    # never resigns when a majority stops fetching; KIP-595's leader progress timeout says it must.
    "kafka-no-check-quorum": Variant(never_resigns, ""),
    # Kafka 3.7 and 3.8 (KAFKA-17333, fixed in 3.9.0): a resigned replica's listener is told
    # that the replica leads its epoch (after a restart of a former leader, or a leader that
    # resigned before its listener caught up); the protocol's steps are unchanged.
    "kafka-resigned-told-leader": Variant(node_mod.step, "", listener=ListenerRules(resigned_told=True)),
    # Kafka 3.3-3.7.0 (KAFKA-16286, fixed in 3.7.1 and 3.8.0): a listener is told the leader and
    # epoch only at a state transition or while leading, never when it registers, so a restarted
    # non-leader's new listener is told nothing until the replica's next transition.
    "kafka-new-listener-untold": Variant(node_mod.step, "", listener=ListenerRules(told_at_transition=True)),
    # Kafka 3.3-3.5 (KAFKA-15345, fixed in 3.6.0): a leader's listener is told it leads once it
    # has read to the epoch start offset, before the epoch's LeaderChange record is committed
    # (at once for a leader of an empty log); the protocol's steps are unchanged.
    "kafka-leader-told-at-epoch-start": Variant(node_mod.step, "",
                                                listener=ListenerRules(leader_told_at_epoch_start=True)),
    # Kafka 3.3-4.2.1, 4.3.0, 4.3.1 (apache/kafka#23185, fixed in 4.2.2 and 4.4.0): the
    # FetchSnapshot topic/partition check is `&&` for `||`; it changes only FetchSnapshot steps.
    "kafka-fetch-snapshot-shape-unchecked": Variant(kafka_fetch_snapshot_shape_unchecked, "",
                                                    inputs=(FetchSnapshotRequest,)),
}


def _factory(step: StepFn) -> Callable[..., RaftModel]:
    def make(**bounds: Any) -> RaftModel:
        return RaftModel(step=step, **bounds)

    return make


VARIANTS: dict[str, Callable[..., RaftModel]] = {
    name: _factory(v.step) for name, v in {**CATALOGUE, **DEVIATIONS}.items()
}

# The liveness variants (spec/raft.md §Liveness) live in their own module.
VARIANTS.update(__import__("kspec.model.raft.liveness_variants", fromlist=["VARIANTS"]).VARIANTS)
