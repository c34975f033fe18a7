"""Session 16's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-853, KIP-996), each a
subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md,
spec/adapter-protocol.md, spec/raft.md, the KIPs, Kafka's Jira history (KAFKA-15345, KAFKA-15510,
KAFKA-16536, KAFKA-10527, KIP-320's epoch sentinel) and the reference replica only: the drivers,
the mutant catalogue and the model unread, the earlier modules read for their format and bug
names. The bugs lean to state that a later input reads (a follower state rebuilt by a repeated
BeginQuorumEpoch, a restarted candidate's tally, a fetch position cached across a truncation),
to sentinels (``-1`` epochs, ``-1`` offsets), and to outputs whose order or content no
observation shows (listener callbacks, preferred successors).

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch9:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import NONE, NOT_LEADER, RaftReplica, RaftTarget
from redteam._targets import attribute_target, register


class Correct(RaftTarget):
    """The bug-free reference replica, named after this module's class (``python:MODULE:CLASS``)."""

    replica: type[RaftReplica] = RaftReplica

    def __init__(self) -> None:
        super().__init__(f"python:{type(self).__module__}:{type(self).__name__}", type(self).replica)


class BeginEpochResetsFollowerState(RaftReplica):
    """RAFT-RULE-BEGIN-EPOCH, RAFT-KIP996-PRE-VOTE-GRANT: a follower of the same epoch and leader
    is unchanged by a BeginQuorumEpoch; this one makes itself that leader's follower again, a new
    follower state, so it forgets that it has fetched from the leader and grants an up-to-date
    pre-vote it must refuse (a follower refuses once it fetched since it became follower).

    The slip: ``maybeTransition`` written as "a BeginQuorumEpoch always makes me the sender's
    follower", harmless under KIP-595 (nothing on the follower state is read back), wrong since
    KIP-996 keeps ``hasFetchedFromLeader`` there; and Kafka 3.9+ sends BeginQuorumEpoch as a
    heartbeat (KAFKA-16536), so such a follower would keep granting pre-votes. Needs pre-vote, a
    follower that fetched, a second BeginQuorumEpoch of its leader's epoch (a resend, a
    duplicate), then a pre-vote whose log is not behind its own."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.role == "follower" and req["epoch"] == self.epoch and req["src"] == self.leader:
            self.become_follower(self.epoch, req["src"])
        super().on_BeginQuorumEpochRequest(req)


class ProspectiveCountsStandardGrant(RaftReplica):
    """RAFT-RULE-PRE-VOTE, RAFT-RULE-RESPONSE: a prospective counts pre-vote responses; a standard
    VoteResponse of its epoch (a late answer to its candidacy of that epoch: under KIP-996 a
    candidate whose election timer expires becomes prospective in the same epoch) changes nothing.
    This one counts any VoteResponse while prospective, so a late grant of its old candidacy
    wins it the pre-vote round.

    The slip: Kafka's ``handleVoteResponse`` compares the response's ``PreVote`` with the state
    (``quorum.isProspective()``); a port that dispatches on the role alone skips it. Needs pre-vote,
    a candidate whose vote answer is held on the wire while its election timer expires, then that
    answer."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role == "prospective":
            self.on_pre_vote_response(resp)
            return
        super().on_vote_response(resp)


class RestartedCandidateForgetsOwnVote(RaftReplica):
    """RAFT-RULE-RESTART, RAFT-RULE-CANDIDATE: a candidate that restarts is a candidate of its
    persisted epoch with ``granted = {self}``; this one restarts with an empty tally (tallies are
    volatile), so with three voters one grant no longer elects it, and it waits for a second.

    The slip: the restart rebuilds the candidate's role but not the vote for itself that the
    quorum-state file records (KAFKA-10527's family: what a restart rebuilds from the file).
    Needs a candidate's crash and restart, then one of its new vote requests granted."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "candidate":
            self.granted = set()


class LastFetchedEpochKeptAfterTruncation(RaftReplica):
    """RAFT-RULE-TRUNCATE, RAFT-RULE-FETCH-DUE: after a diverging-epoch truncation the follower
    fetches from its new log end with the new log's last epoch; this one keeps the last fetched
    epoch it cached from the records it appended (the epoch of the records it has just truncated
    away) until the next append, so its next Fetch names an epoch its log no longer ends in.

    The slip: ``lastFetchedEpoch`` kept in the fetcher's state and updated from appended
    batches only (KAFKA-15510: a fetch state whose last fetched epoch was not what the log held).
    Needs a follower with an uncommitted suffix of an older epoch, a diverging answer, then its
    next fetch."""

    stale_last_epoch: int | None = None

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        before, last = self.end_offset, self.last_epoch
        super().truncate_to(div_epoch, div_end)
        if self.end_offset < before:
            self.stale_last_epoch = last

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        before = self.end_offset
        super().on_fetch_response(resp)
        if self.end_offset > before:
            self.stale_last_epoch = None

    def become_leader(self) -> None:
        self.stale_last_epoch = None
        super().become_leader()

    def on_Crash(self, inp: dict[str, Any]) -> None:
        self.stale_last_epoch = None
        super().on_Crash(inp)

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        stale = self.stale_last_epoch
        if stale is None or self.role != "follower" or inp["to"] != self.leader:
            super().on_FetchDue(inp)
            return
        self.send("FetchRequest", inp["to"], epoch=self.epoch, fetch_offset=self.end_offset,
                  last_fetched_epoch=stale)


class SnapshotEpochSentinelUnfenced(RaftReplica):
    """RAFT-RULE-LEADER-ONLY, RAFT-RULE-FETCH-SNAPSHOT-LEADER: a FetchSnapshot's epoch is checked
    as a Fetch's (below the receiver's: ``FENCED_LEADER_EPOCH``); this replica reads epoch ``-1``
    as "no epoch given" and skips the fencing, answering it as one of its own epoch
    (``SNAPSHOT_NOT_FOUND`` at a leader, ``NOT_LEADER_OR_FOLLOWER`` elsewhere).

    The slip: KIP-320's ``CurrentLeaderEpoch = -1`` (a consumer that knows no epoch: not
    fenced) carried over from the client Fetch to KRaft's leader-only requests. Needs a
    FetchSnapshot at the sentinel at a replica of epoch 0 or more."""

    def leader_only_error(self, epoch: int) -> str | None:
        if epoch == -1:
            return None if self.role == "leader" else NOT_LEADER
        return super().leader_only_error(epoch)


class DescribeUnfetchedVoterZero(RaftReplica):
    """RAFT-RULE-DESCRIBE-QUORUM: the leader describes a voter that has not fetched in its epoch
    with log end offset ``-1``; this one says 0, the value its high-watermark computation gives a
    voter never heard from (RAFT-RULE-HW-MAJORITY).

    The slip: one lookup with one default for the replica table, shared by the majority offset and
    DescribeQuorum, where the wire's ``-1`` means unknown. Needs DescribeQuorum at a leader some
    voter has not fetched from yet."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role != "leader":
            super().on_DescribeQuorumRequest(req)
            return
        voters = [[v, self.end_offset if v == self.id else self.end_offsets.get(v, 0)] for v in self.voters]
        self.send("DescribeQuorumResponse", req["src"], error=NONE, leader=self.id, epoch=self.epoch,
                  high_watermark=self.high_watermark, voters=voters)


class ListenerToldLeaderBeforeCommit(RaftReplica):
    """RAFT-OBS-LISTENER-COMMIT, RAFT-OBS-LISTENER-LEADER: after a step the listener is told the
    committed records first, then the leader; this replica tells them in the other order when
    both are due in one step (a new leader's first commit, a follower that learns its leader from
    a fetch answer that commits), so the state machine hears it leads before it has read the
    records that make it safe to lead (KAFKA-15345's point).

    The slip: the pending callbacks fired from a queue built leader-change first. The records
    and the epoch told are the same; only their order differs."""

    def notify_listener(self) -> None:
        start = len(self.out)
        super().notify_listener()
        told = self.out[start:]
        if [o["type"] for o in told] == ["HandleCommit", "HandleLeaderChange"]:
            self.out[start:] = [told[1], told[0]]


class PreferredSuccessorsIncludeObservers(RaftReplica):
    """RAFT-MSG-END-EPOCH, RAFT-RULE-CHECK-QUORUM: a resigning leader names the other *voters*,
    most caught up first, as preferred successors; this one sorts every replica in its replica
    table, observers (and any replica id that fetched) included, so an observer that fetched is
    named as a successor although it can never stand.

    The slip: Kafka's ``LeaderState`` keeps voters and observers in two maps; a port with one map
    of replica states sorts them all. Needs an observer that fetched from the leader, then the
    leader's check-quorum resignation."""

    def resign(self) -> None:
        table = {**{v: 0 for v in self.others()},
                 **{r: o for r, o in self.end_offsets.items() if r >= 0 and r != self.id}}
        preferred = sorted(table, key=lambda v: (-table[v], v))
        self._reset_role_state()
        self.role, self.high_watermark = "resigned", None
        for v in self.others():
            self.send("EndQuorumEpochRequest", v, epoch=self.epoch, preferred=preferred)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "begin-epoch-resets-follower-state": BeginEpochResetsFollowerState,
    "prospective-counts-standard-grant": ProspectiveCountsStandardGrant,
    "restarted-candidate-forgets-own-vote": RestartedCandidateForgetsOwnVote,
    "last-fetched-epoch-kept-after-truncation": LastFetchedEpochKeptAfterTruncation,
    "snapshot-epoch-sentinel-unfenced": SnapshotEpochSentinelUnfenced,
    "describe-unfetched-voter-zero": DescribeUnfetchedVoterZero,
    "listener-told-leader-before-commit": ListenerToldLeaderBeforeCommit,
    "preferred-successors-include-observers": PreferredSuccessorsIncludeObservers,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
