"""Session 21's blind red-team round for raft (commit, observation and edge inputs): eight bugs
planted in the reference replica (``kspec.conformance.targets.reference.raft.RaftReplica``,
KIP-595, KIP-996, KIP-630), each a subclass that overrides one or two methods where a real KRaft
implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``LeaderState`` /
``ResignedState`` / ``LeaderEpochFileCache`` and the reference replica only: the drivers, the
mutant catalogue and the model unread, the earlier modules read for their format and bug names.
The bugs lean to what earlier rounds planted less: the high watermark over voters that have not
fetched yet, the first offset a multi-record commit batch names, DescribeQuorum's entry for the
leader itself, a leader's position table fed by a snapshot answer, the -1 sentinel of an epoch
the leader's log does not hold, the order of the write and the answer for an EndQuorumEpoch of a
higher epoch, a malformed Fetch of a stale epoch, and a resigned leader's high watermark.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch15:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.majority import majority_offset
from kspec.conformance.targets.reference.raft import FENCED, NONE, RaftReplica, RaftTarget
from redteam._targets import attribute_target, register


class Correct(RaftTarget):
    """The bug-free reference replica, named after this module's class (``python:MODULE:CLASS``)."""

    replica: type[RaftReplica] = RaftReplica

    def __init__(self) -> None:
        super().__init__(f"python:{type(self).__module__}:{type(self).__name__}", type(self).replica)


class HwMajorityOfFetchedVoters(RaftReplica):
    """RAFT-RULE-HW-MAJORITY: the leader's high watermark is the largest offset a majority of ALL
    the voters hold, a voter it has not heard from counting as holding nothing. This one takes
    the majority over the voters in its replica table only (itself and those that fetched), so in
    a five-voter quorum one follower's fetch commits.

    The slip: the median taken over ``voterStates`` filtered on ``endOffset.isPresent()`` (the
    voters with a known offset) instead of over the voter set. Needs four or five voters and a
    leader that commits before a majority of them has fetched (one or two voters down or slow);
    with three voters the two counts agree once one follower has fetched."""

    def majority_offset(self) -> int:
        known = {v: o for v, o in self.end_offsets.items() if v in self.voters}
        known[self.id] = self.end_offset
        return majority_offset(known, sorted(known))


class CommitBatchNamesLastOffset(RaftReplica):
    """RAFT-OBS-LISTENER-COMMIT: ``handleCommit`` hands the listener a batch named by its FIRST
    offset (the listener's next offset), holding the records up to the high watermark. This one
    names the batch by its last offset, so a batch of two or more records claims to start where
    it ends (a state machine replaying it would skip or misplace records).

    The slip: ``Batch.lastOffset()`` where ``Batch.baseOffset()`` was meant (the two sit side by
    side on ``Batch``). Needs a high watermark that moves by two or more records in one step: a
    follower catching up several committed records in one fetch, a leader whose commit waited on
    a slow follower while clients appended, or a restart that replays the committed log."""

    def notify_listener(self) -> None:
        start = len(self.out)
        super().notify_listener()
        for o in self.out[start:]:
            if o["type"] == "HandleCommit" and len(o["entries"]) > 1:
                o["offset"] = o["offset"] + len(o["entries"]) - 1


class DescribeLeaderReportsHw(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: the leader's answer lists each voter's log end offset, its own
    log end for itself. This one reports its high watermark as its own offset (the leader's row
    built from the quorum's committed offset rather than its log), so a leader with uncommitted
    records, or with none committed yet (-1), misreports itself.

    The slip: ``ReplicaState.endOffset`` for the local replica filled from
    ``highWatermark()`` in ``LeaderState.describeQuorum``. Needs a DescribeQuorum to a leader whose
    log end is past its high watermark: a new leader before its first commit, or appends not yet
    fetched by a majority."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_DescribeQuorumRequest(req)
        if self.role != "leader":
            return
        hw = -1 if self.high_watermark is None else self.high_watermark
        for o in self.out[start:]:
            if o["type"] == "DescribeQuorumResponse":
                o["voters"] = [[v, hw if v == self.id else off] for v, off in o["voters"]]


class SnapshotAnswerCountsPosition(RaftReplica):
    """RAFT-RULE-FETCH, RAFT-RULE-HW-MAJORITY (KIP-630): a Fetch the leader answers with a snapshot
    id is no valid position (the fetcher's log below or at the log start may diverge from the
    leader's); it records nothing. This one records the fetch offset of such a request in its
    replica table, as if the fetcher held it, so a fetcher whose log at the log start ends in
    another epoch counts toward the high watermark (and acknowledges the leader).

    The slip: ``updateReplicaState`` called before the ``validateOffsetAndEpoch`` switch instead
    of in its VALID branch only. Needs snapshots: a leader that took a snapshot and cleaned its
    log, then a fetch below its log start or at it with another last epoch (a follower back from
    a crash, or one that followed a deposed leader)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_FetchRequest(req)
        for o in self.out[start:]:
            if (o["type"] == "FetchResponse" and o.get("snapshot_id") is not None and o["error"] == NONE
                    and req["src"] >= 0 and self.role == "leader"):
                self.end_offsets[req["src"]] = req["fetch_offset"]
                self.update_high_watermark()


class DivergingUnknownEpochSentinel(RaftReplica):
    """RAFT-RULE-LEADER-FETCH (diverging epoch): when the leader's log holds no epoch at or below
    the fetcher's last fetched epoch, it answers the diverging epoch (0, 0) (truncate everything).
    This one answers Kafka's ``LeaderEpochFileCache`` sentinels, epoch -1 at offset -1 (an
    "undefined" end offset passed straight into ``DivergingEpoch``).

    The slip: ``endOffsetForEpoch`` returning ``(UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET)`` for an
    epoch below the first one cached, not mapped to (0, 0). Needs a fetcher whose last epoch
    predates every epoch in the leader's log: records of an epoch the new leader never got (a
    leader that appended its LeaderChange record and lost its leadership before any fetch)."""

    _local = False

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        found, end = super().end_offset_for_epoch(epoch)
        if not self._local and found == 0 and end == 0 and self.log and self.log[0]["epoch"] > epoch > 0:
            return -1, -1
        return found, end

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        self._local = True  # the follower reads -1 as "nothing in common" (truncate all)
        try:
            super().truncate_to(max(div_epoch, 0), max(div_end, 0))
        finally:
            self._local = False


class EndEpochAnsweredBeforePersist(RaftReplica):
    """RAFT-OBS-PERSIST, RAFT-MSG-END-EPOCH: an EndQuorumEpoch of a higher epoch moves the receiver
    to that epoch, and the new quorum state must be on disk before the response leaves (a crash
    after the answer must not restart in the older epoch). This one answers first and writes
    after.

    The slip: ``handleEndQuorumEpochRequest`` building its response before ``maybeTransition``
    has flushed the quorum-state file (the transition done by a later ``poll``). Needs a replica
    an epoch behind (it missed a BeginQuorumEpoch) and that epoch's leader resigning
    (check-quorum, or a restart that finds itself leader in its file)."""

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] <= self.epoch:
            super().on_EndQuorumEpochRequest(req)
            return
        start = len(self.out)
        super().on_EndQuorumEpochRequest(req)
        mine = self.out[start:]
        answers = [o for o in mine if o["type"] == "EndQuorumEpochResponse"]
        rest = [o for o in mine if o["type"] != "EndQuorumEpochResponse"]
        self.out[start:] = answers + rest


class FetchMalformedAfterEpochCheck(RaftReplica):
    """RAFT-RULE-FETCH (malformed first): a Fetch whose last fetched epoch is above the epoch it is
    sent in (or with a negative offset or epoch) is INVALID_REQUEST whatever its epoch. This one
    checks the request's epoch first, so a malformed Fetch of a stale epoch is answered
    FENCED_LEADER_EPOCH.

    The slip: the ``lastFetchedEpoch > currentLeaderEpoch`` validation moved below
    ``validateLeaderOnlyRequest`` in ``handleFetchRequest``. Needs an odd input: a Fetch below the
    receiver's epoch whose last fetched epoch exceeds its own epoch, or a negative offset."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] < self.epoch:
            self.fetch_error(req, FENCED)
            return
        super().on_FetchRequest(req)


class ResignedKeepsHw(RaftReplica):
    """RAFT-RULE-CHECK-QUORUM, RAFT-OBS-LISTENER-COMMIT: a resigned leader has no high watermark
    (Kafka's ``ResignedState`` keeps none), so it commits and delivers nothing more. This one keeps
    the high watermark it had as leader when check-quorum makes it resign.

    The slip: ``resign()`` copying the leader's fields into the resigned state, the high
    watermark with them. Needs a leader that committed, then its check-quorum timer expiring
    with no majority fetching (the followers crashed or cut off)."""

    def resign(self) -> None:
        hw = self.high_watermark
        super().resign()
        self.high_watermark = hw


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "hw-majority-of-fetched-voters": HwMajorityOfFetchedVoters,
    "commit-batch-names-last-offset": CommitBatchNamesLastOffset,
    "describe-leader-reports-hw": DescribeLeaderReportsHw,
    "snapshot-answer-counts-position": SnapshotAnswerCountsPosition,
    "diverging-unknown-epoch-sentinel": DivergingUnknownEpochSentinel,
    "end-epoch-answered-before-persist": EndEpochAnsweredBeforePersist,
    "fetch-malformed-after-epoch-check": FetchMalformedAfterEpochCheck,
    "resigned-keeps-hw": ResignedKeepsHw,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
