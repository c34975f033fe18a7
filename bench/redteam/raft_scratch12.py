"""Session 19's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-630, KIP-996), each a
subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``LeaderState`` /
``FollowerState`` / ``KafkaMetadataLog`` and the reference replica only: the drivers, the mutant
catalogue and the model unread, the earlier modules read for their format and bug names. The
bugs lean to KIP-630's snapshots past their first step (a follower that already holds one, a
snapshot the leader deleted before it was fetched, a listener that had read records before the
snapshot replaced them, a snapshot or a log clean at a replica whose high watermark is not yet
known or lags its log end), to the follower's high watermark taken from a fetch answer that
appends nothing (a diverging or a snapshot answer), to KIP-996's "has fetched" flag after an
answer with no new records, and to the order of a resigning leader's preferred successors.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch12:Correct
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


class PreferredSuccessorsAscending(RaftReplica):
    """RAFT-MSG-END-EPOCH, RAFT-RULE-CHECK-QUORUM: a resigning leader names the other voters as
    preferred successors, the most caught up (largest fetch offset) first; this one sorts them
    the other way round, so the voter furthest behind (one that could never win) is asked first.

    The slip: ``nonLeaderVotersByDescendingFetchOffset``'s comparator written ascending (the
    natural order of ``Comparator.comparing``). Needs three voters or more, followers whose fetch
    offsets at the leader differ (one fetched the leader's records, one did not), then the
    leader's check-quorum resignation."""

    def resign(self) -> None:
        ascending = sorted(self.others(), key=lambda v: (self.end_offsets.get(v, 0), v))
        super().resign()
        self.out[:] = [{**o, "preferred": list(ascending)} if o["type"] == "EndQuorumEpochRequest" else o
                       for o in self.out]


class FollowerHwFromDivergingAnswer(RaftReplica):
    """RAFT-RULE-FOLLOWER-FETCH, RAFT-RULE-HW-FOLLOWER: a follower takes the leader's high
    watermark only with records it appends; a diverging answer (or one naming a snapshot)
    carries the leader's HW too, and this one takes it there as well (capped at its log end after
    the truncation), one fetch early, before it has the leader's records at those offsets.

    The slip: ``updateFollowerHighWatermark`` hoisted out of the append branch of
    ``handleFetchResponse`` to run after every successful answer. Needs a follower holding an
    uncommitted suffix of an older epoch, whose HW lags the new leader's, fetching at that
    leader (a diverging answer whose truncation point is above the follower's HW)."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        super().on_fetch_response(resp)
        if (self.role == "follower" and resp["src"] == self.leader and resp["error"] == NONE
                and (resp.get("diverging") is not None or resp.get("snapshot_id") is not None)):
            self.advance_high_watermark(resp.get("high_watermark"))


class EmptyFetchNotCounted(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT: a follower refuses pre-votes once it has fetched successfully
    from its leader, whether or not the answer held records (a caught-up follower is the
    strongest sign the leader is alive); this one marks "has fetched" only when records came, so a
    follower that was already caught up when it started following grants pre-votes against a
    live leader.

    The slip: ``FollowerState``'s fetched flag set in the append path (after
    ``appendAsFollower`` returns records). Needs kip-996, a follower whose first fetch since it
    (re)started following brings no records (a restart of a caught-up follower, or a prospective
    back to following after a lost pre-vote), then another voter's pre-vote at it."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        before = self.has_fetched
        super().on_fetch_response(resp)
        if (not before and self.role == "follower" and resp["src"] == self.leader and resp["error"] == NONE
                and resp.get("diverging") is None and resp.get("snapshot_id") is None and not resp["entries"]):
            self.has_fetched = False


class SnapshotLoadKeepsOlder(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-LOAD, RAFT-STATE-SNAPSHOT: a follower that loads its leader's
    snapshot holds that snapshot alone (``truncateToLatestSnapshot`` deletes the older ones with
    the log below it); this one keeps the snapshots it had taken itself, older than the loaded
    one, as if the log cleaner would remove them later.

    The slip: the loaded snapshot added to the follower's snapshot set (``snapshots.put``) with
    the cleanup left to ``deleteBeforeSnapshot``. Needs snapshots, a follower that took a snapshot
    of its own, then fell behind a leader that took a later one and cleaned its log past the
    follower's end, then the follower's fetch, FetchSnapshot and its answer."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        before, wanted = list(self.snapshots), self.fetching_snapshot
        super().on_FetchSnapshotResponse(resp)
        if wanted is not None and self.fetching_snapshot is None and self.snapshots == [wanted]:
            self.snapshots = [s for s in before if s[0] < wanted[0]] + [wanted]


class SnapshotNotFoundKeepsAsking(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-LOAD: a follower told ``SNAPSHOT_NOT_FOUND`` by its leader for the
    snapshot it was fetching goes back to fetching records (its next Fetch gets the leader's
    current snapshot id); this one treats the error like any other partition error, ignored, and
    asks its leader for the deleted snapshot again and again.

    The slip: ``handleFetchSnapshotResponse``'s ``SNAPSHOT_NOT_FOUND`` branch
    (``state.setFetchingSnapshot(Optional.empty())``) folded into the generic error handling.
    Needs snapshots, a follower told a snapshot id, then its leader taking a later snapshot and
    cleaning its log (which deletes the one named) before the follower's FetchSnapshot."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        if (resp.get("error") == "SNAPSHOT_NOT_FOUND" and self.role == "follower"
                and self.fetching_snapshot is not None and resp["src"] == self.leader
                and resp.get("epoch") == self.epoch):
            return
        super().on_FetchSnapshotResponse(resp)


class CleanLogWithoutHw(RaftReplica):
    """RAFT-RULE-SNAPSHOT-CLEAN: the log is cleaned up to the latest snapshot only when that
    snapshot is at or below the high watermark; a replica that does not know its HW (restarted,
    or a new leader before its first commit) cleans nothing. This one reads an unknown HW as "no
    bound" and cleans.

    The slip: the HW bound written ``hw.isPresent() && offset > hw`` (refuse only above a known
    HW) instead of requiring one. Needs snapshots, a snapshot taken past the log start, then a
    crash and restart (the HW forgotten), then CleanLog before the replica learns a HW."""

    def on_CleanLog(self, inp: dict[str, Any]) -> None:
        if self.high_watermark is None and self.role != "down" and self.snapshots:
            end = self.snapshots[-1][0]
            if self.log_start < end:
                self.snapshots = [self.snapshots[-1]]
                self.log_start = end
            return
        super().on_CleanLog(inp)


class ListenerCommitsPastSnapshot(RaftReplica):
    """RAFT-OBS-LISTENER-SNAPSHOT: a listener whose next offset is below the replica's log start
    (the records it has not read were replaced by a snapshot) is handed the latest snapshot; this
    one hands a snapshot only to a listener that has read nothing yet, so a listener that had read
    some commits before its follower loaded a snapshot gets the records below the log start as
    commits.

    The slip: the snapshot load of ``updateListenersProgress`` tested as "a new listener"
    (``nextExpectedOffset == 0``, KAFKA-15076's case) alone. Needs snapshots, a follower whose
    listener read some commits, then fell behind a leader that snapshotted and cleaned past it,
    then the follower's FetchSnapshot and its answer."""

    def notify_listener(self) -> None:
        hw, n = self.high_watermark, self.listener_next
        if (self.listening and self.role != "down" and hw is not None and self.snapshots
                and 0 < n < self.log_start and n < hw):
            entries = [[e["epoch"], e["kind"]] for e in self.log[n:hw]]
            self.out.append({"type": "HandleCommit", "offset": n, "entries": entries})
            self.listener_next = hw
        super().notify_listener()


class SnapshotPastHw(RaftReplica):
    """RAFT-RULE-SNAPSHOT-TAKE: a snapshot covers committed records only (``end <= HW``); this one
    bounds the snapshot by the log end, so a replica whose log runs ahead of its HW (a leader
    before its followers fetched, a follower told an older HW) snapshots uncommitted records that a
    new leader may truncate.

    The slip: ``createNewSnapshot``'s bound taken from ``log.endOffset()`` rather than
    ``highWatermark()`` (both "the end of what we have"). Needs snapshots, a replica with a known
    HW and records past it, then a TakeSnapshot whose end lies between the two."""

    def on_TakeSnapshot(self, inp: dict[str, Any]) -> None:
        end, hw = inp["end_offset"], self.high_watermark
        if (self.role != "down" and hw is not None and hw < end <= self.end_offset
                and max(1, self.log_start) <= end and (not self.snapshots or end > self.snapshots[-1][0])):
            self.snapshots.append((end, self.log[end - 1]["epoch"]))
            return
        super().on_TakeSnapshot(inp)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "preferred-successors-ascending": PreferredSuccessorsAscending,
    "follower-hw-from-diverging-answer": FollowerHwFromDivergingAnswer,
    "empty-fetch-not-counted": EmptyFetchNotCounted,
    "snapshot-load-keeps-older": SnapshotLoadKeepsOlder,
    "snapshot-not-found-keeps-asking": SnapshotNotFoundKeepsAsking,
    "clean-log-without-hw": CleanLogWithoutHw,
    "listener-commits-past-snapshot": ListenerCommitsPastSnapshot,
    "snapshot-past-hw": SnapshotPastHw,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
