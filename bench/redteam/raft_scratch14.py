"""Session 20's blind red-team round for raft (elections and roles): eight bugs planted in the
reference replica (``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-996),
each a subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``QuorumState`` /
``VotedState`` / ``FollowerState`` / ``ProspectiveState`` and the reference replica only: the
drivers, the mutant catalogue and the model unread, the earlier modules read for their format and
bug names. The bugs lean to the vote path past its first step: which fields of a VoteRequest the
log comparison reads, KIP-996's looser malformed-request test for pre-votes, a voted replica
asked for a pre-vote by another replica, the voted key across an epoch change, a prospective
that knows its epoch's leader, a fetched follower asked for a vote in a higher epoch, a resigned
leader's election under KIP-996, and the leader an EndQuorumEpoch of a higher epoch names.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch14:Correct
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


class VoteComparesRequestEpoch(RaftReplica):
    """RAFT-RULE-VOTE-GRANT (log up to date): a voter compares the requester's last log epoch,
    then its end offset, with its own log; this one reads the request's epoch (the epoch the
    candidate stands in) where it should read the last epoch of the candidate's log, so a
    candidate that missed the records of the epoch before is taken as up to date.

    The slip: ``VoteRequestData``'s ``candidateEpoch`` passed to ``isLogUpToDate`` in place of
    ``lastOffsetEpoch`` (the two sit side by side). Needs a leader whose epoch's records one voter
    fetched and another did not, then the lagging voter standing in a later epoch."""

    _asked_in: int | None = None

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        self._asked_in = req["epoch"]
        try:
            super().on_VoteRequest(req)
        finally:
            self._asked_in = None

    def log_is_up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        return super().log_is_up_to_date(last_epoch if self._asked_in is None else self._asked_in, end_offset)


class PreVoteLogEpochCheckStrict(RaftReplica):
    """RAFT-KIP996-PRE-VOTE (malformed): a standard vote whose last log epoch is not below the
    epoch it stands in is malformed (a candidate bumped its epoch); a pre-vote carries the
    prospective's current epoch, so its log may end in that very epoch. This one applies the
    standard test to pre-votes too and answers INVALID_REQUEST to a prospective whose log ends in
    its current epoch (a follower that fetched its leader's records, then lost it).

    The slip: KIP-996's ``lastEpoch > replicaEpoch`` for pre-votes left as the pre-KIP-996
    ``lastEpoch >= candidateEpoch``. Needs a leader, a follower that fetched a record of the
    leader's epoch, its fetch timeout, then its pre-vote delivered."""

    def refuse_vote(self, req: dict[str, Any], pre_vote: bool) -> bool:
        if pre_vote and req["end_offset"] >= 0 and 0 <= req["last_epoch"] == req["epoch"]:
            self.answer_vote(req, False, pre_vote=True, error="INVALID_REQUEST")
            return True
        return super().refuse_vote(req, pre_vote)


class VotedRefusesOtherPreVote(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT: a voted replica grants a pre-vote to any replica whose log is
    up to date (a pre-vote casts nothing, so the vote it holds does not bind it); this one refuses
    pre-votes from every replica but the one it voted for.

    The slip: ``VotedState.canGrantVote`` checking the voted key before the ``isPreVote`` branch.
    Needs kip-996, a vote cast in an epoch, then another replica's pre-vote in that same epoch
    (the candidate voted for lost, crashed or went quiet)."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        role, epoch, voted = self.role, self.epoch, self.voted_for
        super().on_pre_vote_request(req)
        if role == "voted" and self.epoch == epoch and req["src"] != voted:
            self.out[:] = [{**o, "granted": False} if o["type"] == "VoteResponse" and o["dst"] == req["src"] else o
                           for o in self.out]


class NewEpochKeepsVotedKey(RaftReplica):
    """RAFT-RULE-VOTE-ONCE (per epoch): a vote binds a replica in the epoch it was cast; a move to
    a later epoch forgets it. This one keeps the voted key when a voted replica moves to a higher
    epoch without a leader, so it refuses every candidate of that epoch but its old one (and
    writes the old vote into the new epoch's quorum-state file).

    The slip: Kafka 4.0's ``transitionToUnattached`` keeps the voted key "within the same epoch";
    the same-epoch test dropped. Needs a vote cast, then a request of a higher epoch naming no
    leader (another candidate's vote request, a pre-vote or response of a higher epoch)."""

    def become_unattached(self, epoch: int) -> None:
        role, voted = self.role, self.voted_for
        super().become_unattached(epoch)
        if role == "voted" and voted is not None and voted != self.id:
            self.role, self.voted_for = "voted", voted


class ProspectiveGrantsWithKnownLeader(RaftReplica):
    """RAFT-KIP996-PROSPECTIVE-VOTES: a prospective grants a standard vote in its epoch only when
    its epoch has neither a vote nor a leader (it stands in the state it came from); this one
    forgets the leader test, so a prospective that was a follower votes, in the leader's own
    epoch, for a candidate that lost that epoch's election.

    The slip: ``ProspectiveState.canGrantVote`` testing ``votedKey.isEmpty()`` only (the
    ``leaderId`` check belongs to the unattached state it was copied from). Needs kip-996, two
    candidates in one epoch, a follower of the winner timing out into prospective, then the
    loser's vote request (or its resend) reaching it."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if (self.role == "prospective" and self.pre_vote and self.voted_for is None and self.leader is not None
                and self.leader != req["src"] and self.may_vote(req["src"]) and up_to_date):
            self.voted_for = req["src"]
            assert self.prior is not None
            self.prior = (self.prior[0], req["src"], self.prior[2])
            return True
        return super().grant_vote(req, up_to_date)


class FetchedFollowerRefusesHigherEpochVote(RaftReplica):
    """RAFT-RULE-VOTE-GRANT: a vote request of a higher epoch moves a follower to that epoch
    first (unattached), where it grants an up-to-date candidate; this one decides by the state it
    was in (a follower that has fetched from its leader refuses), so it moves to the new epoch but
    refuses the candidate.

    The slip: ``canGrantVote`` evaluated on the ``FollowerState`` read before ``maybeTransition``
    to the request's epoch. Needs a leader, a follower that fetched from it, then a candidate of a
    later epoch (a standard vote, e.g. another voter's election timeout without pre-vote)."""

    _stale_state = False

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        self._stale_state = (not req.get("pre_vote") and self.role == "follower" and self.has_fetched
                             and req["epoch"] > self.epoch)
        try:
            super().on_VoteRequest(req)
        finally:
            self._stale_state = False

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        return False if self._stale_state else super().grant_vote(req, up_to_date)


class ResignedSkipsPreVote(RaftReplica):
    """RAFT-KIP996-PROSPECTIVE: under KIP-996 every election starts with a pre-vote; a resigned
    leader whose election timer expires moves to the next epoch unattached and becomes
    prospective. This one stands as a candidate at once (the pre-KIP-996 ``pollResigned``), so a
    leader that resigned for lack of a quorum disrupts the epoch even when a majority would refuse
    its pre-vote.

    The slip: ``pollResigned``'s ``transitionToCandidate`` left in place when KIP-996 changed the
    other roles' timeouts. Needs kip-996, a leader, its resignation (check-quorum, or a restart of
    a replica whose file names itself leader), then its election timeout."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and self.pre_vote and self.is_voter:
            self.become_candidate()
            return
        super().on_ElectionTimeout(inp)


class EndEpochHigherEpochUnattached(RaftReplica):
    """RAFT-MSG-END-EPOCH: an EndQuorumEpoch request of a higher epoch tells the receiver the
    epoch and its leader (the sender, resigning); it moves there as the sender's follower (and
    fetches from it until its own election). This one moves to the epoch unattached, leader
    unknown ("the leader is resigning, so there is none").

    The slip: ``maybeTransition(OptionalInt.empty(), requestEpoch)`` in
    ``handleEndQuorumEpochRequest``. Needs a replica an epoch behind (it missed a
    BeginQuorumEpoch) and that epoch's leader resigning (check-quorum, or a restart that finds
    itself leader in its file)."""

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] > self.epoch and req["src"] >= 0 and not (
                self.voter_only and not (self.is_voter and req["src"] in self.voters)):
            self.become_unattached(req["epoch"])
            self.persist()
            self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
            return
        super().on_EndQuorumEpochRequest(req)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "vote-compares-request-epoch": VoteComparesRequestEpoch,
    "pre-vote-log-epoch-check-strict": PreVoteLogEpochCheckStrict,
    "voted-refuses-other-pre-vote": VotedRefusesOtherPreVote,
    "new-epoch-keeps-voted-key": NewEpochKeepsVotedKey,
    "prospective-grants-with-known-leader": ProspectiveGrantsWithKnownLeader,
    "fetched-follower-refuses-higher-epoch-vote": FetchedFollowerRefusesHigherEpochVote,
    "resigned-skips-pre-vote": ResignedSkipsPreVote,
    "end-epoch-higher-epoch-unattached": EndEpochHigherEpochUnattached,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
