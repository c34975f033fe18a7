"""Session 21's blind red-team round for raft (second helper): six bugs planted in the reference
replica (``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-996, KIP-630),
each a subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``QuorumState`` /
``LeaderState`` and the reference replica only: the drivers, the mutant catalogue and the model
unread, the earlier modules read for their format and bug names. The bugs lean to what needs a
longer sequence or an odd input: the listener and DescribeQuorum after a snapshot cleaned the
log (physical versus logical offsets), the check-quorum set across periods, the order of the
leader-only epoch checks at a replica an epoch behind, a restarted leader's resignation, and a
fetch at offset 0 that names an epoch the leader never had.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch16:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import NOT_LEADER, RaftReplica, RaftTarget
from redteam._targets import attribute_target, register


class Correct(RaftTarget):
    """The bug-free reference replica, named after this module's class (``python:MODULE:CLASS``)."""

    replica: type[RaftReplica] = RaftReplica

    def __init__(self) -> None:
        super().__init__(f"python:{type(self).__module__}:{type(self).__name__}", type(self).replica)


class ListenerSlicesFromLogStart(RaftReplica):
    """RAFT-OBS-LISTENER, RAFT-OBS-LISTENER-SNAPSHOT: ``HandleCommit(offset, entries)`` hands the
    listener the committed records from its next offset to the HW, by *log offset*; this one
    keeps, after a CleanLog, the records past the log start as a segment whose first element is
    the log start, and indexes it by the logical offset without subtracting the segment's base:
    once the log was cleaned up to a snapshot, every commit hands the listener the records
    ``log_start`` offsets later than the ones due (fewer of them, or none, near the log end).

    The slip: a segment's physical position used as the logical offset (``readBatches(offset)``
    on a segment without ``offset - baseOffset``). Needs a snapshot taken, a CleanLog past offset
    0, then a commit the listener reads (a new record committed, or a restart whose new listener
    loads the snapshot then reads on)."""

    def notify_listener(self) -> None:
        if self.log_start == 0 or not self.listening or self.role == "down":
            super().notify_listener()
            return
        full = self.log
        self.log = full[self.log_start:]  # the segment left after cleaning, indexed from 0
        try:
            super().notify_listener()
        finally:
            self.log = full


class CheckQuorumKeepsFetchedVoters(RaftReplica):
    """RAFT-RULE-CHECK-QUORUM, RAFT-RULE-CHECK-QUORUM-PERIOD: once the voters heard from (and the
    leader) are a majority, the timer is reset and the set is cleared, so the next period counts
    only the fetches made in it; this one resets the timer but keeps the set, so a leader that
    was fetched from once by a majority never resigns: every later period finds the old fetches.

    The slip: ``updateCheckQuorumForFollowingVoter`` resetting the timer without
    ``fetchedVoters.clear()``. Needs a leader, a majority fetch, then its followers going quiet
    (crashed, or their fetches never delivered) over two CheckQuorumTimeouts: the renewed period
    ends, the next one must resign."""

    def count_for_check_quorum(self, voter: int) -> None:
        self.fetched.add(voter)
        if self.majority(self.fetched | {self.id}):
            self.renewed = self.check_quorum_period


class DescribeLeaderEndFromLogStart(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: the leader reports its own log end offset for itself; this one
    reports the number of records its log holds past its log start (the size of the log left
    after cleaning), which is the end offset only until a CleanLog moves the log start.

    The slip: ``log.endOffset()`` replaced by a count of the records in the active segments.
    Needs a leader that took a snapshot, cleaned its log past offset 0, then a DescribeQuorum."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        super().on_DescribeQuorumRequest(req)
        if self.role != "leader" or self.log_start == 0:
            return
        out = self.out[-1]
        out["voters"] = [[v, self.end_offset - self.log_start if v == self.id else off] for v, off in out["voters"]]


class FutureEpochNotLeaderFirst(RaftReplica):
    """RAFT-RULE-LEADER-ONLY, RAFT-RULE-FETCH: a Fetch or FetchSnapshot is checked against the
    receiver's epoch first (below: FENCED_LEADER_EPOCH; above: UNKNOWN_LEADER_EPOCH), its role
    only at an equal epoch; this one asks "am I the leader?" before the future-epoch test, so a
    replica an epoch behind the requester answers NOT_LEADER_OR_FOLLOWER, which tells the
    requester to look for a leader elsewhere rather than wait for this one to catch up.

    The slip: ``validateLeaderOnlyRequest``'s ``isLeader`` test moved above the
    ``requestEpoch > currentEpoch`` branch. Needs a Fetch or FetchSnapshot of a higher epoch at a
    replica that is not the leader (an observer or replica that learned a later epoch fetching
    from a voter that missed it, or an injected leader-only request)."""

    def leader_only_error(self, epoch: int) -> str | None:
        if epoch > self.epoch and self.role != "leader":
            return NOT_LEADER
        return super().leader_only_error(epoch)

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if (req["fetch_offset"] >= 0 and 0 <= req["last_fetched_epoch"] <= req["epoch"]
                and req["epoch"] > self.epoch and self.role != "leader"):
            self.fetch_error(req, NOT_LEADER)
            return
        super().on_FetchRequest(req)


class RestartedLeaderWaitsToResign(RaftReplica):
    """RAFT-RULE-RESTART: a replica whose quorum-state file names itself leader restarts resigned
    and sends EndQuorumEpoch to every other voter at once; this one restarts resigned but sends
    nothing, leaving the requests to its resend timer (the voters wait out a fetch timeout instead
    of electing at once).

    The slip: ``ResignedState`` created by ``QuorumState.initialize`` with every voter already in
    its unacknowledged set but the first send left to ``pollResigned``'s backoff. Needs a leader
    (its election written), a Crash, then its Restart."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "resigned":
            self.out[:] = [o for o in self.out if o["type"] != "EndQuorumEpochRequest"]


class FetchOffsetZeroSkipsEpochCheck(RaftReplica):
    """RAFT-RULE-LEADER-FETCH (diverging epoch): a fetch is valid at offset 0 only with last epoch
    0 (an empty log); a fetch at offset 0 naming an epoch the leader's log never had must be told
    the end of the largest epoch at or below it (diverging). This one takes every fetch at offset
    0 as the empty-log case and serves the log from the start, recording the fetcher at 0.

    The slip: the empty-log shortcut ``fetchOffset == 0 && lastFetchedEpoch == 0`` written as
    ``fetchOffset == 0`` ("nothing precedes offset 0, so nothing can diverge"). Needs a fetch at
    offset 0 whose last fetched epoch is positive, no higher than the request's epoch, and absent
    from the leader's log (an odd request: a replica whose log was truncated to nothing but that
    kept its last epoch, or an injected one), at a leader with no snapshot."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if (req["fetch_offset"] == 0 and 0 < req["last_fetched_epoch"] <= req["epoch"] == self.epoch
                and self.role == "leader" and self.log_start == 0):
            req = {**req, "last_fetched_epoch": 0}
        super().on_FetchRequest(req)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "listener-slices-from-log-start": ListenerSlicesFromLogStart,
    "check-quorum-keeps-fetched-voters": CheckQuorumKeepsFetchedVoters,
    "describe-leader-end-from-log-start": DescribeLeaderEndFromLogStart,
    "future-epoch-not-leader-first": FutureEpochNotLeaderFirst,
    "restarted-leader-waits-to-resign": RestartedLeaderWaitsToResign,
    "fetch-offset-zero-skips-epoch-check": FetchOffsetZeroSkipsEpochCheck,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
