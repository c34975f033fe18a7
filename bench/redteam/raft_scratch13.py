"""Session 20's blind red-team round for raft (replication and the log): eight bugs planted in
the reference replica (``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-630),
each a subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` /
``LeaderEpochFileCache`` / ``KafkaMetadataLog`` and the reference replica only: the drivers, the
mutant catalogue and the model unread, the earlier modules read for their format and bug names.
The bugs lean to the log past its first divergence: the leader's epoch cache asked for an epoch
it never held (a follower that kept records of a leader nobody followed), a follower whose
largest epoch not above the diverging one is not that epoch, a follower whose log ran past the
snapshot it loads, the snapshot check of a leader that holds two snapshots not yet cleaned; to
the listener after a restart (which snapshot a new listener loads, where it starts reading); to
an observer's fetch; and to DescribeQuorum before the new leader's first commit.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch13:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import NONE, RaftReplica, RaftTarget
from redteam._targets import attribute_target, register


class Correct(RaftTarget):
    """The bug-free reference replica, named after this module's class (``python:MODULE:CLASS``)."""

    replica: type[RaftReplica] = RaftReplica

    def __init__(self) -> None:
        super().__init__(f"python:{type(self).__module__}:{type(self).__name__}", type(self).replica)


class EpochCacheClaimsMissingEpoch(RaftReplica):
    """RAFT-RULE-LEADER-FETCH (KIP-595 "diverging epoch"): asked for the end of an epoch it never
    held, the leader's epoch cache answers the largest epoch below it and that epoch's end (the
    start of the next one); this one answers the asked epoch itself with that offset, so a
    follower whose last fetched epoch is one the leader never held passes validation when its
    fetch offset is not past the next epoch's start, and appends the leader's records after its
    own stale ones.

    The slip: ``LeaderEpochFileCache.endOffsetFor``'s "epoch not found" branch returning
    ``(requestedEpoch, nextEpochStart)`` (Kafka's KAFKA-7415 family). Needs a leader that wrote
    a record in an epoch that no other voter holds (it lost leadership before any follower
    fetched), then a new leader in a later epoch whose log has fewer records of the older epoch,
    then the old leader's fetch."""

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        found, end = super().end_offset_for_epoch(epoch)
        if found != epoch and end < self.end_offset:
            return epoch, end  # the next epoch starts at ``end``
        return found, end


class TruncateMinIgnoresEpoch(RaftReplica):
    """RAFT-RULE-FOLLOWER-FETCH (truncation): told a diverging (epoch, end), a follower truncates
    to ``min(end, its own end of that epoch)`` when it holds that epoch, else to the end of its
    largest epoch below it; this one takes the minimum in both cases, so a follower without the
    diverging epoch truncates records of its own earlier epoch that the leader's next answer would
    have judged (one TruncateLog where the reference writes two, at other offsets).

    The slip: ``truncateToEndOffset`` written as ``min(divergingEnd, localEndForEpoch)`` without
    checking that the local epoch found is the diverging one. Needs a follower whose log holds an
    epoch the leader never held, above the leader's diverging epoch's end, with the leader's epoch
    absent from the follower (three epochs with different leaders before the fetch)."""

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        _, local_end = self.end_offset_for_epoch(div_epoch)
        target = min(local_end, div_end)
        if target < self.end_offset:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})


class SnapshotNeededUsesLatest(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT (KIP-630 validateOffsetAndEpoch): a fetch whose last epoch is below
    the epoch of the leader's EARLIEST snapshot cannot be checked against the log and is answered
    with a snapshot id; this one compares with the LATEST snapshot's epoch, so a leader holding
    two snapshots not yet cleaned (the later one in a newer epoch) sends a snapshot id to a
    follower it could serve records (or a diverging epoch) to.

    The slip: ``log.latestSnapshotId()`` where ``log.earliestSnapshotId()`` was meant (the two
    are one snapshot after every clean, so the tests that clean pass). Needs snapshots, one taken
    in an epoch, a new leader, a second snapshot in the newer epoch without a CleanLog, then a
    fetch whose last epoch is the older one."""

    def snapshot_needed(self, offset: int, last_epoch: int) -> bool:
        if not self.snapshots or (self.log_start == 0 and offset == 0):
            return False
        latest = self.snapshots[-1][1]
        return offset < self.log_start or (offset == self.log_start and last_epoch != latest) or last_epoch < latest


class ListenerLoadsEarliestSnapshot(RaftReplica):
    """RAFT-OBS-LISTENER-SNAPSHOT: a new listener (a restarted replica's, reading from offset 0) of
    a replica that holds snapshots is handed the LATEST snapshot first; this one hands the
    earliest it holds (the first found on disk), then the commits from there.

    The slip: the snapshot reader opened on ``snapshots.firstKey()`` (the listing is sorted
    ascending). Needs snapshots, two taken without a CleanLog between, then a crash and a restart
    and a high watermark learned (a fetch, or an election and a commit)."""

    def notify_listener(self) -> None:
        hw = self.high_watermark
        if (self.listening and self.role != "down" and hw is not None and len(self.snapshots) > 1
                and self.listener_next == 0 and self.snapshots[0][0] <= hw):
            self.listener_next = self.snapshots[0][0]
            self.out.append({"type": "HandleLoadSnapshot", "offset": self.listener_next})
        super().notify_listener()


class RestartListenerKeepsOffset(RaftReplica):
    """RAFT-OBS-LISTENER: a restarted replica registers a new listener, which reads the committed
    log again from the start (its state machine is rebuilt); this one keeps the offset the old
    listener had read to, so after a restart the records committed before the crash are never
    handed again.

    The slip: the listener's next offset kept in the client object that survives the
    restart (``ListenerContext.nextOffset`` not reset with the state machine). Needs a listener
    that read some commits, a crash and a restart, then a high watermark learned again."""

    def notify_listener(self) -> None:
        if self.listening and self.role == "down":
            kept = self.listener_next
            super().notify_listener()
            self.listener_next = kept
            return
        super().notify_listener()


class SnapshotLoadKeepsSuffix(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-LOAD: a follower that loads its leader's snapshot holds the
    snapshot's records and nothing past them (``truncateToLatestSnapshot`` truncates fully); this
    one keeps its own records past the snapshot's end when it has any, as if only a log SHORTER
    than the snapshot had to be replaced.

    The slip: ``truncateToLatestSnapshot``'s condition read as "the snapshot is past the log
    end", so a log that runs past the snapshot keeps its tail. Needs snapshots, a follower whose
    log runs past the leader's snapshot with records of an older epoch than the snapshot's (a
    stale suffix of a leader nobody followed), then its fetch, the snapshot id, the FetchSnapshot
    and its answer."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        before, wanted = list(self.log), self.fetching_snapshot
        super().on_FetchSnapshotResponse(resp)
        if wanted is not None and self.fetching_snapshot is None and self.snapshots == [wanted] \
                and len(before) > wanted[0] and self.log_start == wanted[0]:
            self.log = self.log + [dict(e) for e in before[wanted[0]:]]


class ObserverFetchReadCommitted(RaftReplica):
    """RAFT-RULE-LEADER-FETCH: the leader answers every replica's fetch with its log from the
    fetch offset to its end (``Isolation.UNCOMMITTED``); this one serves a replica that is not a
    voter (an observer) only up to the high watermark, as it would a consumer, so an observer
    lags the voters by the uncommitted suffix.

    The slip: the isolation chosen by "is this a voter" (``READ_COMMITTED`` for the others).
    Needs an observer fetching from a leader that holds records past its high watermark (a
    client append not yet fetched by a majority)."""

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        if (kind == "FetchResponse" and self.role == "leader" and fields.get("error") == NONE
                and dst >= 0 and dst not in self.voters and fields.get("entries")):
            hw = self.high_watermark or 0
            offset = fields["offset"]
            fields = {**fields, "entries": fields["entries"][:max(0, hw - offset)]}
        super().send(kind, dst, **fields)


class DescribeHwSentinel(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: a leader that has not committed a record of its epoch yet knows
    no high watermark and says so (none); this one answers Kafka's wire sentinel -1, the
    ``DescribeQuorumResponse.PartitionData.highWatermark`` default.

    The slip: ``leaderState.highWatermark().map(LogOffsetMetadata::offset).orElse(-1L)`` carried
    into the adapter's answer. Needs a new leader (not a lone voter) asked DescribeQuorum before
    a majority fetched its leader-change record."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        super().on_DescribeQuorumRequest(req)
        if self.role == "leader" and self.high_watermark is None:
            self.out[-1] = {**self.out[-1], "high_watermark": -1}


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "epoch-cache-claims-missing-epoch": EpochCacheClaimsMissingEpoch,
    "truncate-min-ignores-epoch": TruncateMinIgnoresEpoch,
    "snapshot-needed-uses-latest": SnapshotNeededUsesLatest,
    "listener-loads-earliest-snapshot": ListenerLoadsEarliestSnapshot,
    "restart-listener-keeps-offset": RestartListenerKeepsOffset,
    "snapshot-load-keeps-suffix": SnapshotLoadKeepsSuffix,
    "observer-fetch-read-committed": ObserverFetchReadCommitted,
    "describe-hw-sentinel": DescribeHwSentinel,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
