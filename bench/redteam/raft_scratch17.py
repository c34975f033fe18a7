"""Session 23's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-996), each a subclass
that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``QuorumState`` /
``LeaderState`` / ``ResignedState`` and the reference replica only: the drivers, the mutant
catalogue and the model unread, the earlier modules read for their format and bug names. The bugs
lean to what needs a longer sequence or an odd input: observers fetching while the voters are
quiet, a pre-vote from a replica whose log ends between the receiver's HW and log end, a
candidate or voted replica told of another leader of its own epoch, a delayed answer from a
leader's earlier term, a resigned leader fetched from, a pre-vote of a future epoch, and a
restart whose log ends in the epoch of its quorum-state file.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch17:Correct
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


class CheckQuorumCountsObservers(RaftReplica):
    """RAFT-RULE-CHECK-QUORUM: the leader stays only while a majority of the *voters* fetched in
    the period; this one keeps its set of replicas heard from keyed by any fetching replica id
    and tests its size against the voters' majority, so an observer's fetches stand in for a
    voter's: a leader cut off from its followers but fetched from by an observer never resigns.

    The slip: ``updateCheckQuorumForFollowingVoter`` called from the fetch path for every replica
    (not only ``isVoter``), and the majority test written as ``fetched.size() + 1 >= majority``.
    Needs an observer fetching from the leader while the leader's voters are quiet (crashed, or
    their fetches never delivered) over a CheckQuorumTimeout."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        super().on_valid_fetch(replica, offset)
        if replica not in self.voters and self.role == "leader":
            self.count_for_check_quorum(replica)

    def count_for_check_quorum(self, voter: int) -> None:
        self.fetched.add(voter)
        if len(self.fetched | {self.id}) >= len(self.voters) // 2 + 1:
            self.fetched, self.renewed = set(), self.check_quorum_period


class PreVoteComparesCommittedLog(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT, RAFT-RULE-VOTE-LOG-UP-TO-DATE: a pre-vote is granted only to a
    replica whose log is at least as up to date as the receiver's *whole* log (the same test as a
    standard vote); this one compares the prospective's log with its committed prefix (up to its
    high watermark), so a prospective whose log lacks the receiver's uncommitted records still
    wins the pre-vote.

    The slip: "a pre-vote only asks whether the prospective could be elected without losing
    committed data", so ``canGrantPreVote`` written against ``highWatermark`` rather than
    ``endOffset``. Needs a receiver whose log ends past its HW (records appended, not yet
    committed), a pre-vote from a replica whose log ends between the two (behind, but holding the
    committed records), and a receiver that may grant (not a follower that has fetched)."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        hw = self.high_watermark
        if hw is None or hw >= self.end_offset:
            super().on_pre_vote_request(req)
            return
        self._committed_view = hw
        try:
            super().on_pre_vote_request(req)
        finally:
            del self._committed_view

    def log_is_up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        hw: int | None = getattr(self, "_committed_view", None)
        if hw is None:
            return super().log_is_up_to_date(last_epoch, end_offset)
        committed_last = int(self.log[hw - 1]["epoch"]) if hw > 0 else 0
        if last_epoch != committed_last:
            return last_epoch > committed_last
        return end_offset >= hw


class CandidateIgnoresOwnEpochBeginEpoch(RaftReplica):
    """RAFT-RULE-BEGIN-EPOCH, RAFT-RULE-CANDIDATE: a candidate told by BeginQuorumEpoch that
    another voter won the candidate's own epoch follows that leader; this one only moves on a
    *higher* epoch from the candidate state, answers the equal-epoch request and keeps standing
    (it keeps asking for votes in an epoch that has a leader, and stands again when it times out).

    The slip: ``CandidateState`` treated like the leader's "an equal epoch is mine" (the check
    ``epoch > quorum.epoch()`` where ``maybeTransition`` should take ``epoch == quorum.epoch() &&
    !hasLeader``). Needs two candidates in one epoch (a split vote, or a candidate restarting
    while another stands) and the other winning: its BeginQuorumEpoch reaches this candidate."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.role == "candidate" and req["epoch"] == self.epoch and req["src"] != self.id:
            if self.refuse_epoch_request(req):
                return
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
            return
        super().on_BeginQuorumEpochRequest(req)


class VotedFollowsOnlyItsCandidate(RaftReplica):
    """RAFT-RULE-BEGIN-EPOCH: a voted replica told by BeginQuorumEpoch of its epoch who the
    leader is follows it, whoever it voted for; this one follows only the candidate it voted for
    ("I voted for X in this epoch, so a BeginQuorumEpoch naming Y must be stale") and answers
    the others without moving, staying voted until its election timer fires.

    The slip: ``VotedState`` → ``FollowerState`` guarded by ``leaderId == votedId`` (an assertion
    turned into a condition). Needs a voter that voted for one candidate while another won the
    same epoch without its vote (four or five voters, a split vote, or a vote answer lost), then
    the winner's BeginQuorumEpoch delivered to it."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "voted" and req["epoch"] == self.epoch and self.voted_for is not None
                and req["src"] not in (self.id, self.voted_for) and self.leader is None):
            if self.refuse_epoch_request(req):
                return
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
            return
        super().on_BeginQuorumEpochRequest(req)


class StaleBeginEpochAckCounted(RaftReplica):
    """RAFT-RULE-RESEND, RAFT-RULE-RESPONSE: a leader stops resending BeginQuorumEpoch to a voter
    once it acknowledged the leader's epoch; this one records the acknowledgement from the
    response's sender before it looks at the response's epoch, so a delayed answer to the same
    replica's BeginQuorumEpoch of an *earlier* term (it led before) counts for the current one,
    and the voter that never heard of the new term is not asked again.

    The slip: ``handleBeginQuorumEpochResponse`` calling ``addAcknowledgementFrom(remoteId)``
    ahead of ``maybeHandleCommonResponse``'s epoch check. Needs a replica that led, lost the
    lead, led again in a later epoch, then a BeginQuorumEpochResponse of its first term delivered
    late, and a ResendDue to that voter."""

    def on_BeginQuorumEpochResponse(self, resp: dict[str, Any]) -> None:
        if (self.role == "leader" and resp.get("error") == NONE and resp["src"] in self.voters
                and resp["epoch"] < self.epoch):
            self.acked.add(resp["src"])
        super().on_response(resp)


class ResignedServesFetch(RaftReplica):
    """RAFT-RULE-LEADER-ONLY, RAFT-RULE-RESIGNED: a resigned leader is no leader: a Fetch of its
    epoch is answered NOT_LEADER_OR_FOLLOWER; this one still serves it (it holds the log of the
    epoch), with its records and no high watermark, though nothing it does changes (no replica
    position, no check-quorum).

    The slip: ``validateLeaderOnlyRequest`` written as ``quorum.isLeader() ||
    quorum.isResigned()`` ("the resigned leader still has the data; let followers keep up while
    the election runs"). Needs a leader that resigned (check-quorum, or a restart of a leader)
    and then a Fetch of its epoch (a follower that has not seen EndQuorumEpoch yet)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if (self.role != "resigned" or req["epoch"] != self.epoch or req["fetch_offset"] < 0
                or req["last_fetched_epoch"] < 0 or req["last_fetched_epoch"] > req["epoch"]):
            super().on_FetchRequest(req)
            return
        saved = (self.acked, self.end_offsets, self.fetched, self.renewed, self.high_watermark, self.leader,
                 self.epoch_start)
        self.acked, self.end_offsets, self.fetched = set(self.acked), dict(self.end_offsets), set(self.fetched)
        self.role, self.leader, self.epoch_start = "leader", self.id, self.end_offset
        try:
            super().on_FetchRequest(req)
        finally:
            self.role = "resigned"
            (self.acked, self.end_offsets, self.fetched, self.renewed, self.high_watermark, self.leader,
             self.epoch_start) = saved


class PreVoteAnsweredBeforePersist(RaftReplica):
    """RAFT-OBS-PERSIST, RAFT-STATE-PERSIST-BEFORE-SEND, RAFT-KIP996-PRE-VOTE-EPOCH: a pre-vote of
    a higher epoch moves the receiver to that epoch (unattached), which is written before the
    answer leaves; this one answers first and writes the new epoch after (a crash between the
    two restarts it in the old epoch though a replica was told the new one).

    The slip: the pre-vote path treated as side-effect free ("a pre-vote changes nothing"), so its
    ``transitionToUnattached`` is left to the end of the poll while the response is queued at
    once. Needs a pre-vote of an epoch above the receiver's (a replica that missed an epoch, a
    restarted one, an observer), well-formed and not fenced."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        if req["epoch"] <= self.epoch:
            super().on_pre_vote_request(req)
            return
        self.persist = lambda: None  # type: ignore[method-assign]
        try:
            super().on_pre_vote_request(req)
        finally:
            del self.persist  # the step writes the file after the handler: after the answer


class RestartEpochBehindLogInclusive(RaftReplica):
    """RAFT-RULE-RESTART, RAFT-STATE-PERSISTED: a replica restarting with a quorum-state epoch
    *below* its log's last epoch (the file lost a write) starts unattached in the log's epoch;
    with an equal epoch the file is good and its leader or vote is kept. This one takes the equal
    epoch for the lost-write case too, and restarts unattached with neither leader nor vote in
    its own epoch (a resigned leader that sends no EndQuorumEpoch, a follower that forgets its
    leader, a voted replica free to vote again).

    The slip: ``QuorumState.initialize``'s ``election.epoch() < logEndOffsetAndEpoch.epoch()``
    written ``<=``. Needs a Crash and Restart of a replica whose log ends with a record of its
    current epoch (a leader that appended its leader-change record, a follower that fetched in
    its epoch)."""

    def on_restart(self) -> None:
        if self.epoch > 0 and self.epoch == self.last_epoch:
            self.high_watermark = None
            self.become_unattached(self.epoch)
            self._written = self.election()
            self.initialize()
            return
        super().on_restart()


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "check-quorum-counts-observers": CheckQuorumCountsObservers,
    "pre-vote-compares-committed-log": PreVoteComparesCommittedLog,
    "candidate-ignores-own-epoch-begin-epoch": CandidateIgnoresOwnEpochBeginEpoch,
    "voted-follows-only-its-candidate": VotedFollowsOnlyItsCandidate,
    "stale-begin-epoch-ack-counted": StaleBeginEpochAckCounted,
    "resigned-serves-fetch": ResignedServesFetch,
    "pre-vote-answered-before-persist": PreVoteAnsweredBeforePersist,
    "restart-epoch-behind-log-inclusive": RestartEpochBehindLogInclusive,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
