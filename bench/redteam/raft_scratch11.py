"""Session 18's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-853, KIP-996), each a
subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's ``KafkaRaftClient`` / ``LeaderState`` /
``FollowerState`` / ``ProspectiveState`` / ``QuorumState`` and the reference replica only: the
drivers, the mutant catalogue and the model unread, the earlier modules read for their format and
bug names. The bugs lean to the leader-only requests at roles and with fields a run rarely sends
(a resigned leader asked for a snapshot, a snapshot position checked before the epoch, observers
in the described voter table), to the fetch position check's start sentinel, to an observer's
bootstrap fetch answered by a voter that is not the leader, and to KIP-996's corners: a pre-vote
of a higher epoch, a prospective told again of the leader it remembers, and a follower's
"has fetched from the leader" set by an error answer.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch11:Correct
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


class DescribeListsObservers(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: the leader describes its *voters* (KIP-836 puts observers in a
    list of their own, which the model leaves out); this one builds the table from every replica
    it has a fetch position for, so an observer that fetched shows up among the voters.

    The slip: ``CurrentVoters`` filled from ``LeaderState``'s one map of replica states (voters
    and observers alike) instead of ``voterStates()``. Needs an observer, an elected leader, a
    valid fetch of the observer at that leader, then DescribeQuorum at it."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role != "leader":
            super().on_DescribeQuorumRequest(req)
            return
        ids = sorted(set(self.voters) | set(self.end_offsets))
        voters = [[v, self.end_offset if v == self.id else self.end_offsets.get(v, -1)] for v in ids]
        self.send("DescribeQuorumResponse", req["src"], error=NONE, leader=self.id, epoch=self.epoch,
                  high_watermark=self.high_watermark, voters=voters)


class ResignedServesFetchSnapshot(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-LEADER, RAFT-RULE-LEADER-ONLY: a FetchSnapshot of the replica's
    epoch at anything but its leader is ``NOT_LEADER_OR_FOLLOWER``; a resigned leader (it still
    names itself the epoch's leader) answers as the leader would, ``SNAPSHOT_NOT_FOUND``, so a
    fetcher keeps asking it instead of finding the next leader.

    The slip: ``validateLeaderOnlyRequest`` testing ``quorum.leaderIdOrSentinel() == localId``
    instead of ``quorum.isLeader()``. Needs a leader's check-quorum resignation (or a leader's
    crash and restart as resigned), then a FetchSnapshot of its epoch at it."""

    def leader_only_error(self, epoch: int) -> str | None:
        if self.role == "resigned" and epoch == self.epoch:
            return None
        return super().leader_only_error(epoch)


class SnapshotPositionCheckedFirst(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT: after the shape and the partition, a FetchSnapshot gets the
    leader-only epoch check (and at the leader ``SNAPSHOT_NOT_FOUND``); the position is only
    looked at once a snapshot is found. This one rejects a negative position as
    ``POSITION_OUT_OF_RANGE`` before the epoch and role checks, at every replica.

    The slip: Kafka's ``position < 0 || position >= snapshotSize`` test moved up with the other
    request validation, ahead of ``validateLeaderOnlyRequest`` and ``readSnapshot``. Needs a
    FetchSnapshot of the replica's own partition with a negative (``-1``) position."""

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        topics = req["topics"]
        well_formed = len(topics) == 1 and len(topics[0][1]) == 1 and topics[0][0] == "raft" and topics[0][1][0] == 0
        position = req.get("position")
        if well_formed and isinstance(position, int) and position < 0:
            self.send("FetchSnapshotResponse", req["src"], epoch=self.epoch, leader=self.leader,
                      error="POSITION_OUT_OF_RANGE")
            return
        super().on_FetchSnapshotRequest(req)


class FetchStartCheckEither(RaftReplica):
    """RAFT-RULE-FETCH (2): a fetch position is valid at the log start only when *both* the
    offset and the last fetched epoch are 0 (an empty log); this leader takes either one as the
    start, so a fetch at offset 0 with a last epoch it never wrote, or one with last epoch 0 past
    offset 0, is served (records from that offset, its position recorded) instead of told where
    it diverges.

    The slip: ``fetchOffset == 0 && lastFetchedEpoch == 0`` written with ``||``. Needs an
    elected leader and a fetch at it whose offset and last epoch disagree about the log start
    (a well-formed one: last epoch not above the request epoch)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        odd_start = (req["fetch_offset"] == 0) != (req["last_fetched_epoch"] == 0)
        if (not odd_start or self.role != "leader" or req["epoch"] != self.epoch or req["fetch_offset"] < 0
                or req["last_fetched_epoch"] < 0 or req["last_fetched_epoch"] > req["epoch"]):
            super().on_FetchRequest(req)
            return
        offset = req["fetch_offset"]
        if req["src"] >= 0:
            self.on_valid_fetch(req["src"], offset)
        self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                  entries=[dict(e) for e in self.log[offset:]], high_watermark=self.high_watermark, diverging=None)


class ObserverFollowsResponder(RaftReplica):
    """RAFT-RULE-OBSERVER, RAFT-RULE-RESPONSE (3): an observer's bootstrap fetch at a voter that
    is not the leader is answered ``NOT_LEADER_OR_FOLLOWER`` naming the epoch's leader, and the
    observer follows *that* leader; this one follows the voter that answered, so it fetches from a
    follower forever (every answer an error) and reports the wrong leader.

    The slip: the discovered leader taken from the response's source (``remoteNodeId``, right
    whenever the bootstrap voter happens to be the leader) instead of its ``CurrentLeader``
    field. Needs an observer, an elected leader, a voter that knows it, then the observer's
    FetchDue to that voter (not to the leader)."""

    def on_response(self, resp: dict[str, Any]) -> None:
        leader = resp.get("leader")
        if (not self.is_voter and resp["type"] == "FetchResponse" and resp["epoch"] >= self.epoch
                and leader is not None and leader != self.id and resp["src"] in self.voters
                and self.role in ("unattached", "voted") and (self.leader is None or resp["epoch"] > self.epoch)):
            resp = {**resp, "leader": resp["src"]}
        super().on_response(resp)

    on_FetchResponse = on_response


class ProspectiveRejoinsOnBeginEpoch(RaftReplica):
    """RAFT-KIP996-LEADER-KNOWN, RAFT-RULE-BEGIN-EPOCH: a prospective that came from following
    leader L (its fetch timer expired) keeps its pre-vote running when L's BeginQuorumEpoch of
    the same epoch arrives (``maybeTransition`` moves only a replica that knows no leader); this
    one takes the notice as "the leader is alive" and follows L again, abandoning the round.

    The slip: ``handleBeginQuorumEpochRequest`` given its own "prospective and the sender is the
    leader we knew: back to follower" branch (the pre-vote is there to avoid disrupting a live
    leader, so it looks right). Needs kip-996, a follower whose leader has not seen it
    acknowledge (or a late copy of the BeginQuorumEpoch), its fetch timeout, then the leader's
    BeginQuorumEpoch (a resend) at the prospective."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "prospective" and req["epoch"] == self.epoch and req["src"] == self.leader
                and req["src"] != self.id):
            self.become_follower(req["epoch"], req["src"])
            self.persist()
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
            return
        super().on_BeginQuorumEpochRequest(req)


class PreVoteHigherEpochNotObserved(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT, RAFT-RULE-HIGHER-EPOCH: a pre-vote of a higher epoch moves the
    receiver to that epoch (unattached, persisted) before it decides; this one reads KIP-996's
    "a pre-vote does not bump epochs" as applying to the receiver too: it answers from its old
    epoch and role (the answer is stale to the prospective) and stays behind.

    The slip: the ``if (candidateEpoch > quorum.epoch()) transitionToUnattached`` of
    ``handleVoteRequest`` guarded by ``!preVote``. Needs kip-996 and a voter an epoch behind (it
    missed an election) asked for a pre-vote by a voter of the newer epoch."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        if req["epoch"] <= self.epoch:
            super().on_pre_vote_request(req)
            return
        if self.refuse_vote(req, pre_vote=True):
            return
        up_to_date = self.log_is_up_to_date(req["last_epoch"], req["end_offset"])
        if self.role == "follower":
            allowed = not self.has_fetched
        else:
            allowed = self.role in ("unattached", "voted", "prospective", "candidate", "resigned")
        self.answer_vote(req, self.may_vote(req["src"]) and up_to_date and allowed, pre_vote=True, error=NONE)


class FollowerErrorFetchCounted(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT: a follower refuses pre-votes once it has fetched
    *successfully* from its leader; this one marks "has fetched" on any answer from its leader,
    an error too (``NOT_LEADER_OR_FOLLOWER`` from a leader that has resigned), so a follower
    whose leader is gone refuses the pre-votes that would replace it.

    The slip: ``FollowerState``'s fetched flag set at the top of ``handleFetchResponse``, before
    the error branch. Needs kip-996, a follower that has not fetched since it followed, its
    leader's resignation (check quorum, or a crash and restart as resigned), the follower's fetch
    at it, then another voter's pre-vote at the follower."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if self.role == "follower" and resp["src"] == self.leader and resp["error"] != NONE:
            self.has_fetched = True
        super().on_fetch_response(resp)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "describe-lists-observers": DescribeListsObservers,
    "resigned-serves-fetch-snapshot": ResignedServesFetchSnapshot,
    "snapshot-position-checked-first": SnapshotPositionCheckedFirst,
    "fetch-start-check-either": FetchStartCheckEither,
    "observer-follows-responder": ObserverFollowsResponder,
    "prospective-rejoins-on-begin-epoch": ProspectiveRejoinsOnBeginEpoch,
    "pre-vote-higher-epoch-not-observed": PreVoteHigherEpochNotObserved,
    "follower-error-fetch-counted": FollowerErrorFetchCounted,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
