"""Session 26's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-996, KIP-630, KIP-853),
each a subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``QuorumState`` /
``FollowerState`` / ``KafkaMetadataLog`` (and KAFKA-9491) and the reference replica only: the
drivers, the mutant catalogue and the model unread, the earlier modules read for their format and
bug names. The bugs lean to what needs a longer sequence or an odd input: a log emptied down to
its snapshot, a snapshot fetch cut short by a role change, a kip-595 candidate whose expired
timer should carry into a higher epoch, a resigned leader's kip-996 election, a fetch answered
by a leader that has resigned, a voter-only request of a higher epoch from outside the voter set
(kip-595), and a listener told of a leaderless later epoch.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch18:Correct

BEFORE (session 26, no kspec change; ``bench/redteam_power.py --modules raft_scratch18``, seeds 0
and 1): seven caught at both seeds, all in the guided phase (runs to detection: 3, 3, 1, 40, 41,
30, 3); ``snapshot-fetch-survives-role-change`` escaped at both (not reached: see its docstring).
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import _LEADERLESS, NONE, NOT_LEADER, RaftReplica, RaftTarget
from redteam._targets import attribute_target, register


class Correct(RaftTarget):
    """The bug-free reference replica, named after this module's class (``python:MODULE:CLASS``)."""

    replica: type[RaftReplica] = RaftReplica

    def __init__(self) -> None:
        super().__init__(f"python:{type(self).__module__}:{type(self).__name__}", type(self).replica)


class LastEpochFromEmptySegment(RaftReplica):
    """RAFT-LOG-EPOCH, RAFT-STATE-SNAPSHOT, RAFT-RULE-FETCH-DUE, RAFT-RULE-VOTE-LOG-UP-TO-DATE: a
    replica's last epoch is the epoch of its last record, and when the log holds no record past
    its log start (everything up to the end is in the latest snapshot) it is the snapshot's
    epoch; this one reads the last epoch from the records past the log start only and answers 0
    (the empty log's value) once the log was emptied down to a snapshot. Such a follower fetches
    at its log end with last fetched epoch 0 (the leader redirects it to the snapshot again, or
    tells it to truncate everything), and its votes and vote checks compare a last epoch of 0.

    The slip: ``lastFetchedEpoch()`` written as "the epoch of the last batch in the segments,
    else 0", without ``KafkaMetadataLog``'s fallback to ``latestSnapshotId().epoch`` for an empty
    log. Needs a replica whose log start reaches its log end: a follower that loaded its
    leader's snapshot (a lagging follower fetching below a leader's cleaned log start), or a
    replica that took a snapshot at its HW = log end and then CleanLog; then a FetchDue, a vote
    it sends, or a vote it judges."""

    @property
    def last_epoch(self) -> int:
        if self.snapshots and self.log_start >= len(self.log):
            return 0  # "no batch in the segments": the snapshot's epoch forgotten
        return int(self.log[-1]["epoch"]) if self.log else 0


class SnapshotLoadSkipsHw(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-LOAD, RAFT-RULE-HW-FOLLOWER: a follower that loads its leader's
    snapshot holds committed records up to the snapshot's end, so its HW becomes at least that
    end; this one replaces its log by the snapshot but leaves the HW where it was (none, or
    below its new log start) until the next FetchResponse brings the leader's HW.

    The slip: the follower's HW is only ever moved by ``updateFollowerHighWatermark`` from a
    FetchResponse, and the snapshot path (``truncateToLatestSnapshot``) forgets it (Kafka's own
    KAFKA-9491, "Increment high watermark after full log truncation", for the replica log). Needs
    a leader that took a snapshot and cleaned its log, a follower that lags below the log start
    (it was down or its fetches were lost), its Fetch answered with the snapshot id, then its
    FetchSnapshot answered and delivered."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        hw, pending = self.high_watermark, self.fetching_snapshot
        super().on_FetchSnapshotResponse(resp)
        if (pending is not None and self.fetching_snapshot is None and resp.get("error") == NONE
                and self.role == "follower" and self.snapshots == [pending]):
            self.high_watermark = hw


class SnapshotFetchSurvivesRoleChange(RaftReplica):
    """RAFT-RULE-FETCH-DUE, RAFT-RULE-FETCH-SNAPSHOT-ID: a follower told by its leader to fetch a
    snapshot keeps that id in its follower state only; any transition (a fetch timeout, a higher
    epoch, a new leader) starts a new state that fetches records again, asking its (possibly
    new) leader which snapshot, if any, it needs. This one keeps the id across role changes
    (until the snapshot is loaded or refused), so a replica that follows again sends
    FetchSnapshot for the old id, to whichever leader it now follows, instead of a Fetch.

    The slip: ``fetchingSnapshot`` kept as a field of the client (the download in progress)
    rather than of ``FollowerState``, cleared only when the download completes or gets
    ``SNAPSHOT_NOT_FOUND``. Needs a follower answered with a snapshot id (lagging below a cleaned
    leader log), then a role change before that snapshot is loaded (its FetchTimeout, a
    BeginQuorumEpoch or vote of a higher epoch), then following a leader again and a FetchDue.

    Escaped at seeds 0 and 1 (session 26): RAFT-DRIVE-SNAPSHOT-TABLE leaves the lagging voter
    holding the id, and RAFT-DRIVE-MISSED-ELECTION's tail then makes it follow the next epoch's
    (resigned) leader by EndQuorumEpoch, but the path ends there: no FetchDue of the moved
    replica follows (guided runs 8, 19, 29, 79, 90, 100, 111). One FetchDue (or RoundTrip) of
    that replica appended to run 8 diverges at once (FetchSnapshotRequest where the model sends a
    FetchRequest)."""

    def _reset_role_state(self) -> None:
        pending = getattr(self, "fetching_snapshot", None)
        super()._reset_role_state()
        self.fetching_snapshot = pending

    def on_Crash(self, inp: dict[str, Any]) -> None:
        super().on_Crash(inp)
        self.fetching_snapshot = None  # the client's memory goes with the process


class ExpiredTimerNotInherited(RaftReplica):
    """RAFT-RULE-TIMER-KEPT, RAFT-RULE-BACKOFF (kip-595): a candidate whose election timer expired
    (it backs off) and that a message of a higher epoch naming no leader makes unattached, without
    granting a vote, keeps its expired timer and stands again at once; this one gives the
    unattached state a fresh election timer, so it waits a whole election timeout more (the Raft
    paper resets the timer only on a granted vote or a leader's message; Kafka's
    ``transitionToUnattached`` passes on the remaining time).

    The slip: ``new UnattachedState(..., randomElectionTimeoutMs(), ...)`` in every transition to
    unattached, the candidate's ``remainingElectionTimeMs`` forgotten. Needs kip-595 (no
    pre-vote), a candidate that saw its ElectionTimeout (backing off, before BackoffExpired), then
    a message of a higher epoch that names no leader and wins no vote from it: a VoteRequest of
    a candidate whose log is behind, a VoteResponse or a fetch answer of a higher epoch without a
    leader."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp.get("type") != "ElectionTimeout" and self.role == "candidate":
            self.timed_out = False  # the unattached state it may move to starts a new timer
        return super().step(inp)


class ResignedPreVotesBeforePersist(RaftReplica):
    """RAFT-STATE-PERSIST-BEFORE-SEND, RAFT-KIP996-RESIGNED, RAFT-OBS-PERSIST: a resigned leader
    whose election timer expires (kip-996) moves to unattached in epoch + 1, a durable
    transition, and its pre-vote round of that epoch starts after the write; this one sends the
    pre-votes of epoch + 1 first and writes the epoch after them (a crash in between restarts it
    resigned in the old epoch, though the voters it asked moved to the new one).

    The slip: ``pollResigned`` moving to unattached with ``memoryTransitionTo`` ("the prospective
    state that follows is memory-only anyway") and the quorum-state file written at the end of
    the poll. Needs kip-996, a leader that resigned (check-quorum, or a restarted leader), then
    its ElectionTimeout while still resigned."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and self.pre_vote and self.is_voter:
            self.become_unattached(self.epoch + 1)
            self.start_election()  # the step writes the file after the handler: after the pre-votes
            return
        super().on_ElectionTimeout(inp)


class NotLeaderAnswerStartsElection(RaftReplica):
    """RAFT-RULE-RESPONSE, RAFT-RULE-FOLLOWER-FETCH, RAFT-RULE-FETCH-TIMEOUT, RAFT-RULE-ELECTION: a
    follower whose Fetch its leader answers ``NOT_LEADER_OR_FOLLOWER`` in the same epoch (the
    leader resigned) changes nothing: it keeps following until its fetch timer expires (or an
    EndQuorumEpoch's successor stands). This one takes the answer as the end of the leader and
    starts an election at once (a candidacy under kip-595, a pre-vote under kip-996).

    The slip: ``handleFetchResponse`` treating ``NOT_LEADER_OR_FOLLOWER`` from the leader of its
    epoch like an expired fetch timeout ("the leader says it is no leader: why wait?"). Needs a
    leader that resigned (check-quorum, or a restart of a leader) and a voter still following it
    whose Fetch reaches it and whose answer is delivered."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if (self.role == "follower" and self.is_voter and resp["src"] == self.leader
                and resp.get("error") == NOT_LEADER and resp.get("epoch") == self.epoch):
            self.start_election()
            return
        super().on_fetch_response(resp)


class VoterOnlyRefusedAfterEpochBump(RaftReplica):
    """RAFT-RULE-VOTER-ONLY, RAFT-RULE-HIGHER-EPOCH (kip-595): a Vote, BeginQuorumEpoch or
    EndQuorumEpoch from a replica outside the voter set, or at a replica outside it, is refused
    ``INCONSISTENT_VOTER_SET`` and changes nothing, not even the epoch; this one moves to the
    request's higher epoch first (unattached, or following the Begin/EndQuorumEpoch's sender)
    and then refuses, so a replica outside the quorum can push the voters' epoch.

    The slip: the higher-epoch transition done in a prologue shared by every request
    (``maybeTransition`` before the handler), ahead of ``validateVoterOnlyRequest``. Needs
    kip-595 (``kip853`` false) and a voter-only request of an epoch above the receiver's from an
    observer or an unknown id, or sent to an observer."""

    def refuse_non_voter(self, req: dict[str, Any]) -> bool:
        if (req["src"] >= 0 and self.voter_only and not (self.is_voter and req["src"] in self.voters)
                and req["epoch"] > self.epoch):
            leader = None if req["type"] == "VoteRequest" else req["src"]
            self.observe_epoch(req["epoch"], leader)
            self.persist()
        return super().refuse_non_voter(req)


class ListenerKeepsLastKnownLeader(RaftReplica):
    """RAFT-OBS-LISTENER-LEADER: at a later epoch with no leader known yet (a vote of a higher
    epoch, an election) the listener is told ``(epoch, none)``, and then the epoch's leader once
    it is known; this one tells the later epoch with the last leader the replica knew (of an
    earlier epoch), so the state machine believes that replica leads the new epoch, and when
    the epoch's real leader is learned nothing more is told (the epoch was already told with a
    leader).

    The slip: the listener's ``LeaderAndEpoch`` built from a ``lastKnownLeader`` field set at
    every transition that knows a leader and never cleared by the transitions that do not (to
    unattached, voted, candidate). Needs a replica that followed (or led) in one epoch, then
    moved to a higher epoch without a leader: a VoteRequest of a higher epoch, its own
    election, an answer of a higher epoch that names no leader."""

    def notify_listener(self) -> None:
        if self.role == "down":
            self._last_leader: int | None = None
            super().notify_listener()
            return
        if self.leader is not None:
            self._last_leader = self.leader
        last = getattr(self, "_last_leader", None)
        if self.leader is not None or last is None or self.role not in _LEADERLESS:
            super().notify_listener()
            return
        self.leader = last
        try:
            super().notify_listener()
        finally:
            self.leader = None


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "last-epoch-from-empty-segment": LastEpochFromEmptySegment,
    "snapshot-load-skips-hw": SnapshotLoadSkipsHw,
    "snapshot-fetch-survives-role-change": SnapshotFetchSurvivesRoleChange,
    "expired-timer-not-inherited": ExpiredTimerNotInherited,
    "resigned-pre-votes-before-persist": ResignedPreVotesBeforePersist,
    "not-leader-answer-starts-election": NotLeaderAnswerStartsElection,
    "voter-only-refused-after-epoch-bump": VoterOnlyRefusedAfterEpochBump,
    "listener-keeps-last-known-leader": ListenerKeepsLastKnownLeader,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
