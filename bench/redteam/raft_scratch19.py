"""Session 27's blind red-team round for raft: eight bugs planted in the reference replica
(``kspec.conformance.targets.reference.raft.RaftReplica``, KIP-595, KIP-996, KIP-630), each a
subclass that overrides one or two methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/, spec/adapter-protocol.md, spec/raft.md, the
KIPs, Kafka's ``KafkaRaftClient`` / ``LeaderState`` / ``CandidateState`` / ``ResignedState`` /
``KafkaMetadataLog`` and the reference replica only: the drivers, the mutant catalogue, the
tests and the model unread, the earlier modules read for their format and bug names. The bugs
lean to what needs a longer sequence or an odd input: a snapshot taken between a Fetch answer
and the FetchSnapshot it prompts, a leader holding two snapshots, a check-quorum period that
renewed with a voter already counted towards the next reset, a candidate refused by half of an
even voter set, a resigned leader asked for a pre-vote, a vote answer that names the epoch's
leader, a snapshot download overtaken by a new epoch, and a Fetch from a replica that is ahead
of the receiver's epoch.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch19:Correct

BEFORE (session 27, no kspec change; ``bench/redteam_power.py --modules raft_scratch19``, seeds 0
and 1): three caught at both seeds, in the guided phase (runs to detection: 46
``resigned-refuses-pre-vote``, 136 ``vote-answer-leader-ignored``, 70
``fetch-higher-epoch-transitions``); ``candidate-loss-counts-rejections`` caught at one seed only
(run 266); ``snapshot-served-only-latest``, ``snapshot-answer-names-earliest``,
``check-quorum-period-clears-fetched`` and ``snapshot-answer-higher-epoch-ignored`` escaped at
both.

AFTER (session 27, RAFT-DRIVE-SNAPSHOT-SUPERSEDING and RAFT-DRIVE-SNAPSHOT-PAIR, steps within and
after RAFT-DRIVE-SNAPSHOT's script, no new start path): ``snapshot-served-only-latest`` and
``snapshot-answer-names-earliest`` caught at seeds 0 and 1 (guided run 3); the guided runs the
change lengthens catch none of the other six, whose figures are BEFORE's. Escapes left (see each
docstring): ``check-quorum-period-clears-fetched``, ``snapshot-answer-higher-epoch-ignored`` (not
reached at either seed), ``candidate-loss-counts-rejections`` (reached by one random run only).
Session 27 (raftcq, RAFT-DRIVE-HALF-REFUSED): ``candidate-loss-counts-rejections`` caught at seeds
0 and 1 (guided run 106): 6/8.

AFTER (session 28, raftesc: RAFT-DRIVE-CHECK-QUORUM-CARRY before RAFT-DRIVE-CHECK-QUORUM-ACK's core,
RAFT-DRIVE-HELD-ACROSS-EPOCH at RAFT-DRIVE-SNAPSHOT-TABLE's end, no new start path):
``check-quorum-period-clears-fetched`` caught at seeds 0 and 1 (guided run 106),
``snapshot-answer-higher-epoch-ignored`` at seeds 0 and 1 (guided run 8); the other six keep
their figures: 8/8.
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


class SnapshotServedOnlyLatest(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-DATA, RAFT-RULE-FETCH-SNAPSHOT-LEADER (KIP-630): the leader of the
    request's epoch answers a FetchSnapshot with the snapshot asked for whenever it holds it,
    the latest or an older one it has not deleted yet; this one serves only its latest
    snapshot and answers ``SNAPSHOT_NOT_FOUND`` for an older one it still holds.

    The slip: ``handleFetchSnapshotRequest`` written as "``log.latestSnapshot()``, and if its id
    is not the one asked for, SNAPSHOT_NOT_FOUND" instead of ``log.readSnapshot(snapshotId)``
    ("a follower only ever asks for the id my Fetch answer named, which is the latest"). Needs
    a leader that answered a lagging follower's Fetch with its latest snapshot id, then took a
    newer snapshot (TakeSnapshot, no CleanLog yet) before that follower's FetchSnapshot reached
    it.

    Escaped at seeds 0 and 1 (session 27), not reached: every FetchSnapshot reached a leader
    whose latest snapshot was the one asked for, or one that had deleted it
    (RAFT-DRIVE-SNAPSHOT-SUPERSEDED takes and cleans together). Caught since
    RAFT-DRIVE-SNAPSHOT-SUPERSEDING (guided run 3)."""

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        wanted = tuple(req.get("snapshot_id") or ())
        if self.snapshots and wanted in self.snapshots[:-1]:
            req = {**req, "snapshot_id": [-1, -1]}  # compared with the latest only: "not found"
        super().on_FetchSnapshotRequest(req)


class SnapshotAnswerNamesEarliest(RaftReplica):
    """RAFT-RULE-FETCH-SNAPSHOT-ID (KIP-630): a Fetch the leader cannot serve as records (below
    its log start, or an epoch below its earliest snapshot's) is answered with its LATEST
    snapshot id; this one names the EARLIEST snapshot it holds, the one the position check
    compared with, so the follower downloads an older snapshot than it could (and, past a
    CleanLog of the leader, one the leader may have deleted).

    The slip: ``validateOffsetAndEpoch`` reads ``log.earliestSnapshotId()`` for its check and the
    answer reuses that variable (``snapshotId``) instead of ``log.latestSnapshotId()``. Needs a
    leader holding two snapshots or more (TakeSnapshot twice, or once more after a CleanLog)
    and a follower whose Fetch it answers with a snapshot id (a follower that lagged: it was
    down, or its fetches were lost).

    Escaped at seeds 0 and 1 (session 27), not reached: every leader that answered a fetch
    with a snapshot id held one snapshot. Caught since RAFT-DRIVE-SNAPSHOT-PAIR (guided run 3)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        super().on_FetchRequest(req)
        for o in self.out:
            if o["type"] == "FetchResponse" and o.get("snapshot_id") is not None and len(self.snapshots) > 1:
                o["snapshot_id"] = list(self.snapshots[0])


class CheckQuorumPeriodClearsFetched(RaftReplica):
    """RAFT-RULE-CHECK-QUORUM-PERIOD, RAFT-RULE-CHECK-QUORUM: a check-quorum period that was
    renewed (a majority fetched in it) ends with the leader leading on and the voters heard from
    since the last reset KEPT: they count towards the next reset. This one starts every new
    period with an empty set, so with four or five voters a voter that fetched after the reset
    but before the period ended is forgotten, and a leader that hears a second voter in the next
    period (a majority with the first) resigns at the next timeout where it should lead on.

    The slip: the per-period bookkeeping ``fetchedVoters.clear()`` done in the timer-expiry
    branch as well as in the reset branch ("a new period, a new set"), though Kafka's set
    belongs to the timer's last reset, not to the period. Needs four or five voters, a renewed
    period, a voter's fetch after the reset, a CheckQuorumTimeout, a second voter's fetch, then
    another CheckQuorumTimeout.

    Escaped at seeds 0 and 1 (session 27), not reached: the one path that judges the
    check-quorum period with four or more voters (RAFT-DRIVE-CHECK-QUORUM-ACK) starts from a
    leader whose count is empty and whose period is not renewed, and resigns it in that first
    period; no path ends a renewed period while a voter is already counted towards the next
    reset and then completes the majority in the next period. Proposed: before that probe's
    core, every follower fetches (renewed), one follower A fetches again (counted), a
    CheckQuorumTimeout ends the renewed period, a second follower B fetches (A, B and the
    leader: a majority of four or five, renewed) and a second CheckQuorumTimeout, at which the
    model leads on and this bug resigns. Session 28: that is RAFT-DRIVE-CHECK-QUORUM-CARRY
    (``RaftDriver._check_quorum_carry``), caught at seeds 0 and 1 (guided run 106); catalogue
    mutant ``raft-renewed-period-restarts-count``."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        renewed = self.role == "leader" and self.renewed
        super().on_CheckQuorumTimeout(inp)
        if renewed:
            self.fetched = set()


class CandidateLossCountsRejections(RaftReplica):
    """RAFT-RULE-CANDIDATE, RAFT-RULE-BACKOFF: a candidate has lost (and backs off) once the
    voters that have not rejected it no longer form a majority; this one waits until the
    rejections themselves are a majority. The two agree for an odd voter set, but with two or
    four voters a candidate refused by half of them (one of two, two of four) can no longer win
    and must back off, while this one keeps waiting: it still resends its VoteRequest and does
    not stand again at BackoffExpired.

    The slip: ``CandidateState.isVoteRejected`` written as ``numRejectedVotes() >= majoritySize()``
    instead of ``numGranted + numUnrecorded < majoritySize`` (Kafka's own code once had
    ``rejected > voters - majority``, which is right). Needs an even voter set (two or four
    voters) and a candidate refused by half the voters (logs ahead of its own, or voters that
    already voted or follow a leader in its epoch).

    Caught at one seed of two (session 27: random run 266), never in the guided phase: no guided
    path has a candidate of an even voter set refused by exactly half the voters and then offers
    its BackoffExpired (or a ResendDue to the voter that has not answered), where the model backs
    off and this bug still waits. Proposed: the four-voter RAFT-DRIVE-MID-ROUND path of
    ``macros.FirstAnswer`` (which was meant to catch the opposite slip,
    ``raft-candidate-loses-at-half``; session 28: no guided run catches that one) delivering a
    second refusal, then the candidate's BackoffExpired. Closed in session 27 (raftcq) by
    RAFT-DRIVE-HALF-REFUSED instead: guided run 106 at seeds 0 and 1."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role != "candidate" or resp["src"] not in self.voters or not self.is_ballot(resp):
            return
        (self.granted if resp["granted"] else self.rejected).add(resp["src"])
        if resp["granted"] and self.majority(self.granted):
            self.become_leader()
        elif self.majority(self.rejected):
            self.backing_off = True


class ResignedRefusesPreVote(RaftReplica):
    """RAFT-KIP996-PRE-VOTE-GRANT, RAFT-RULE-RESIGNED: a resigned leader grants a pre-vote of its
    epoch to a replica whose log is up to date (it leads no more and waits for a successor; a
    pre-vote binds nothing), as unattached, voted, prospective and candidate replicas do; only
    a leader (and a follower that fetched) refuses. This one refuses every pre-vote of its
    epoch, as a leader would, so the successor its EndQuorumEpoch asked to stand cannot count
    it and needs another voter's grant.

    The slip: ``ResignedState.canGrantVote`` copied from ``LeaderState`` ("it is still the leader
    of its epoch, just leaving") instead of answering ``isPreVote && isLogUpToDate``. Needs
    kip-996, a leader that resigned (check-quorum, or a leader's restart) and a voter that times
    out and asks it for a pre-vote in the same epoch with a log as up to date as the resigned
    leader's (a caught-up follower)."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        if self.role == "resigned" and req["epoch"] <= self.epoch:
            if self.refuse_vote(req, pre_vote=True):
                return
            self.answer_vote(req, False, pre_vote=True, error=NONE)
            return
        super().on_pre_vote_request(req)


class VoteAnswerLeaderIgnored(RaftReplica):
    """RAFT-RULE-RESPONSE (3), RAFT-KIP996-LEADER-KNOWN: a VoteResponse of the replica's own epoch
    that names a leader makes a candidate, or a prospective that knows no leader, follow that
    leader (Kafka's ``maybeHandleCommonResponse`` runs before the vote is counted); this one
    counts the answer as a ballot only (a refusal), so the candidate (prospective) carries on
    with an election its epoch has already settled, until BeginQuorumEpoch reaches it or it
    loses.

    The slip: ``handleVoteResponse`` counting ``voteGranted`` first and leaving the leader
    discovery to error answers ("a NONE answer is just a vote"). Needs a vote answer of the
    asker's epoch from a voter that already follows the epoch's leader: two candidates in one
    epoch (a split vote) where the winner's BeginQuorumEpoch reached a voter before the loser's
    VoteRequest; under kip-996 a voter that voted for the winner but missed its BeginQuorumEpoch,
    then timed out and asked a follower of the winner for a pre-vote."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "VoteResponse" and resp["epoch"] == self.epoch
                and self.role in ("candidate", "prospective")):
            if resp.get("pre_vote"):
                if self.role == "prospective":
                    self.on_pre_vote_response(resp)
            else:
                self.on_vote_response(resp)
            return
        super().on_response(resp)

    on_VoteResponse = on_response


class SnapshotAnswerHigherEpochIgnored(RaftReplica):
    """RAFT-RULE-HIGHER-EPOCH, RAFT-RULE-RESPONSE (1), RAFT-RULE-FETCH-SNAPSHOT-LOAD: a
    FetchSnapshot answer of a higher epoch (its leader moved on while the request was in flight:
    ``FENCED_LEADER_EPOCH`` with the new epoch and, when known, its leader) moves the follower to
    that epoch like any response; this one drops every snapshot answer that is not of its own
    epoch, so it keeps following a replica that no longer leads (and keeps asking it for the
    snapshot) until a fetch timeout or another message tells it the new epoch.

    The slip: ``handleFetchSnapshotResponse`` opened with "is this the answer to my download, of
    my epoch?" before ``maybeHandleCommonResponse``, so the higher-epoch branch is never reached.
    Needs a follower told by its leader to fetch a snapshot (it lagged below a cleaned log),
    then its FetchSnapshot delivered after the leader moved to a higher epoch (a vote or a
    BeginQuorumEpoch of a higher epoch reached the leader first, or it resigned and stood
    again).

    Escaped at seeds 0 and 1 (session 27), not reached: no path has a FetchSnapshot in flight
    (or its answer) while its receiver moves to a higher epoch; the snapshot probes deliver each
    FetchSnapshot and its answer within one catch-up, and RAFT-DRIVE-REFETCH's lagging voter
    drops its pending id at the role change before it sends one. Proposed: at the end of
    RAFT-DRIVE-SNAPSHOT-TABLE the lagging voter's FetchDue sends its FetchSnapshot, which is held
    while RAFT-DRIVE-MISSED-ELECTION's tail moves the leader to a higher epoch, then delivered
    (answered ``FENCED_LEADER_EPOCH`` in the new epoch) and its answer delivered. Session 28:
    RAFT-DRIVE-HELD-ACROSS-EPOCH (``RaftDriver._held_across_epoch``, at that probe's end, electing
    another voter itself), caught at seeds 0 and 1 (guided run 8); catalogue mutant
    ``raft-snapshot-answer-error-first``."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        epoch = resp.get("epoch")
        if epoch is not None and epoch > self.epoch:
            return  # "not an answer to this epoch's download"
        super().on_FetchSnapshotResponse(resp)


class FetchHigherEpochTransitions(RaftReplica):
    """RAFT-RULE-HIGHER-EPOCH (the Fetch exception), RAFT-RULE-FETCH (1): a Fetch of an epoch
    above the receiver's is answered ``UNKNOWN_LEADER_EPOCH`` and moves nothing (Fetch is
    validated as a leader-only request; the fetcher may have learned a leader the receiver has
    not, or may be wrong); this one applies the general "a higher epoch moves any role" rule to
    Fetch too: it becomes unattached in the fetcher's epoch (written to the quorum-state file)
    and answers ``NOT_LEADER_OR_FOLLOWER`` in it.

    The slip: ``maybeTransition`` called in a prologue shared by every request, Fetch included,
    as the Raft paper's "if RPC request or response contains term T > currentTerm" reads.
    Needs a Fetch of an epoch the receiver has not reached: an observer (or a follower whose
    leader changed) that learned a higher epoch and fetches from a voter that lags (a bootstrap
    fetch of an unattached observer), or an injected Fetch of a future epoch."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        malformed = (req["fetch_offset"] < 0 or req["last_fetched_epoch"] < 0
                     or req["last_fetched_epoch"] > req["epoch"])
        if not malformed and req["epoch"] > self.epoch and self.role != "down":
            self.observe_epoch(req["epoch"], None)
            self.persist()
        super().on_FetchRequest(req)


CORRECT = "Correct"
# bug name -> the RaftReplica subclass that plants it
BUGS: dict[str, type[RaftReplica]] = {
    "snapshot-served-only-latest": SnapshotServedOnlyLatest,
    "snapshot-answer-names-earliest": SnapshotAnswerNamesEarliest,
    "check-quorum-period-clears-fetched": CheckQuorumPeriodClearsFetched,
    "candidate-loss-counts-rejections": CandidateLossCountsRejections,
    "resigned-refuses-pre-vote": ResignedRefusesPreVote,
    "vote-answer-leader-ignored": VoteAnswerLeaderIgnored,
    "snapshot-answer-higher-epoch-ignored": SnapshotAnswerHigherEpochIgnored,
    "fetch-higher-epoch-transitions": FetchHigherEpochTransitions,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
