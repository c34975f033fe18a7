"""Session 17's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-853, KIP-996), each a
subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``LeaderState`` /
``CandidateState`` / ``QuorumState`` and the reference replica only: the drivers, the mutant
catalogue and the model unread, the earlier modules read for their format and bug names. The
bugs lean to roles an input rarely meets (a resigned leader asked to describe the quorum, a
candidate asked for a vote in its own epoch, a kip-595 candidate backing off asked to resend),
to bookkeeping carried across a role change (acknowledgements kept at resignation, the high
watermark dropped at a new epoch, the listener's last-told leader kept over a restart), to
what counts towards check-quorum, and to the order of an append and the high watermark it caps.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch10:Correct
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


class ResignedDescribesQuorum(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: only the leader describes the quorum; a resigned leader (it
    stays in its epoch, waiting for a successor) answers ``NOT_LEADER_OR_FOLLOWER``. This one
    still answers as the leader: its own id, its epoch, and a table it has already cleared.

    The slip: ``handleDescribeQuorumRequest`` guarded by "the epoch's leader is me"
    (``quorum.leaderIdOrSentinel() == localId``, which a resigned state still says) instead of
    ``quorum.isLeader()``. Needs a leader's check-quorum resignation, then DescribeQuorum at it."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role != "resigned":
            super().on_DescribeQuorumRequest(req)
            return
        voters = [[v, self.end_offset if v == self.id else self.end_offsets.get(v, -1)] for v in self.voters]
        self.send("DescribeQuorumResponse", req["src"], error=NONE, leader=self.id, epoch=self.epoch,
                  high_watermark=self.high_watermark, voters=voters)


class BackingOffCandidateResends(RaftReplica):
    """RAFT-RULE-RESEND, RAFT-RULE-CANDIDATE: a kip-595 candidate backing off (it lost, or its
    election timer expired) sends nothing until its backoff expires; this one keeps resending its
    VoteRequest to the voters that have not answered, so a late grant can still elect it in an
    election it has given up.

    The slip: ``pollCandidate`` written as "resend to the unrecorded voters" without its
    ``isBackingOff()`` branch. Needs kip-595 (no pre-vote), a candidate whose election timer
    expires with a voter's answer outstanding, then a resend to that voter."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        if (self.role == "candidate" and self.backing_off and self.is_voter and to != self.id
                and to in self.voters and to not in self.granted | self.rejected):
            self.send("VoteRequest", to, epoch=self.epoch, last_epoch=self.last_epoch,
                      end_offset=self.end_offset, pre_vote=False)
            return
        super().on_ResendDue(inp)


class RestartListenerKeepsToldLeader(RaftReplica):
    """RAFT-OBS-LISTENER-LEADER, RAFT-RULE-RESTART: a restart registers a new listener, which is
    told the committed records again from offset 0 and then the leader it follows; this one
    resets the read position but keeps the (epoch, leader) it last told the old listener, so the
    new one is never told the leader of an epoch the replica already followed before the crash.

    The slip: the listener's read position kept in the listener context (rebuilt at restart),
    the last leader announced kept in the client (not). Needs a listener, a follower told its
    leader, a crash and restart in the same epoch, then a fetch that commits."""

    def notify_listener(self) -> None:
        told = self.listener_told
        super().notify_listener()
        if self.role == "down":
            self.listener_told = told


class BeginEpochAckResetsCheckQuorum(RaftReplica):
    """RAFT-RULE-CHECK-QUORUM: only a valid fetch from a voter counts towards check-quorum; this
    leader also counts a voter's ``NONE`` BeginQuorumEpochResponse, so a voter that answered the
    new epoch but never fetched keeps it leader.

    The slip: one "this voter is alive" set for the acknowledgements (``addAcknowledgementFrom``)
    and for check-quorum (``updateCheckQuorumForFollowingVoter``). Needs four or five voters (with
    three the set is cleared at once), a BeginQuorumEpoch acknowledged without a fetch, then the
    check-quorum timeout."""

    def on_response(self, resp: dict[str, Any]) -> None:
        super().on_response(resp)
        if (resp["type"] == "BeginQuorumEpochResponse" and self.role == "leader" and resp["epoch"] == self.epoch
                and resp.get("error") == NONE and resp["src"] in self.voters and resp["src"] != self.id):
            self.fetched.add(resp["src"])
            if self.majority(self.fetched | {self.id}):
                self.fetched = set()

    on_BeginQuorumEpochResponse = on_response


class CandidateGrantsEqualEpochVote(RaftReplica):
    """RAFT-RULE-VOTE, RAFT-RULE-CANDIDATE: a candidate has voted for itself in its epoch and
    refuses every other candidate of that epoch; this one steps aside for a rival of its own epoch
    whose log is at least as up to date (it votes for it), so a split vote ends with two votes
    cast in one epoch by the same replica.

    The slip: ``CandidateState.canGrantVote`` written from the log comparison alone ("a better
    candidate gets my vote"), forgetting that the candidacy is itself the epoch's vote. Needs two
    voters standing in the same epoch and one's VoteRequest reaching the other."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if self.role == "candidate" and self.may_vote(req["src"]) and up_to_date and req["src"] != self.id:
            self.become_voted(req["epoch"], req["src"])
            return True
        return super().grant_vote(req, up_to_date)


class NewEpochForgetsHw(RaftReplica):
    """RAFT-RULE-HW-FOLLOWER, RAFT-STEP-HW-MONOTONIC: the high watermark a replica learned is kept
    when it moves to a higher epoch (Kafka carries it into the next ``FollowerState`` /
    ``UnattachedState``; only a resigned leader has none); this one starts every higher epoch
    with no high watermark, so a follower's committed prefix is "unknown" until the new leader's
    first fetch answer.

    The slip: the high watermark kept in the per-epoch state object and a new state built with
    ``Optional.empty()``. Needs a follower that has learned a high watermark, then a new epoch
    (a BeginQuorumEpoch, a vote, a response of a higher epoch)."""

    def observe_epoch(self, epoch: int, leader: int | None) -> None:
        if epoch > self.epoch and self.role != "leader":
            self.high_watermark = None
        super().observe_epoch(epoch, leader)

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] > self.epoch:
            self.high_watermark = None
        super().on_BeginQuorumEpochRequest(req)


class FollowerHwCappedBeforeAppend(RaftReplica):
    """RAFT-RULE-HW-FOLLOWER: a follower takes ``min(leader HW, its log end)`` after appending the
    answer's records; this one caps by the log end it had before the append (the fetch offset),
    so a lagging follower's high watermark trails one fetch behind the records it holds.

    The slip: ``updateFollowerHighWatermark`` called before ``appendAsFollower`` in
    ``handleFetchResponse``. Needs a leader that has committed past a follower's fetch offset
    (another follower fetched first), then that follower's fetch answer with records."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if (self.role == "follower" and resp["src"] == self.leader and resp["error"] == NONE
                and resp.get("diverging") is None and resp["offset"] == self.end_offset and resp["entries"]):
            self.has_fetched = True
            self.advance_high_watermark(resp.get("high_watermark"))
            self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": resp["entries"]})
            self.log.extend(dict(e) for e in resp["entries"])
            return
        super().on_fetch_response(resp)


class ResignKeepsLeaderAcks(RaftReplica):
    """RAFT-RULE-RESEND, RAFT-RULE-CHECK-QUORUM: a resigned leader resends EndQuorumEpoch to the
    voters that have not answered *it*; this one keeps the acknowledgements of its leadership
    (BeginQuorumEpoch answers, fetches), so a voter that acknowledged the leader is never told
    again that it resigned.

    The slip: ``ResignedState`` built from the leader's voter states (``hasAcknowledgedLeader``)
    instead of a fresh ``unackedVoters``. Needs a leader acknowledged by a voter, its
    check-quorum resignation, then a resend to that voter."""

    def resign(self) -> None:
        acked = set(self.acked)
        super().resign()
        self.acked = acked


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "resigned-describes-quorum": ResignedDescribesQuorum,
    "backing-off-candidate-resends": BackingOffCandidateResends,
    "restart-listener-keeps-told-leader": RestartListenerKeepsToldLeader,
    "begin-epoch-ack-resets-check-quorum": BeginEpochAckResetsCheckQuorum,
    "candidate-grants-equal-epoch-vote": CandidateGrantsEqualEpochVote,
    "new-epoch-forgets-hw": NewEpochForgetsHw,
    "follower-hw-capped-before-append": FollowerHwCappedBeforeAppend,
    "resign-keeps-leader-acks": ResignKeepsLeaderAcks,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
