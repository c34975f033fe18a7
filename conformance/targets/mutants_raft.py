"""Raft mutants for the kip-996 and kip-853 rule sets, the timer rule and the driver's injected
and idle inputs (issue #17), one bug each.

Each subclasses the reference replica (``conformance/targets/reference/raft.py``) and is
registered in the catalogue by ``conformance/targets/mutants.py`` (``RAFT_MUTANTS``). Each is
caught only by what it was written for: the kip-996 ones by the pre-vote configurations (a
kip-595 run never reaches them), the timer one by RAFT-RULE-TIMER-KEPT.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import NONE, RaftReplica


class FollowerPreVotesAfterFetch(RaftReplica):
    """A follower keeps granting pre-votes after it has fetched from its leader (Kafka's
    ``FollowerState.canGrantVote`` without ``hasFetchedFromLeader``): a partitioned voter's
    pre-vote can then unseat a working leader, which KIP-996 exists to prevent."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        self.has_fetched = False
        super().on_pre_vote_request(req)


class ProspectiveTimeoutWaits(RaftReplica):
    """A prospective whose election timer expires goes back to unattached and waits for a
    fresh timer, instead of starting the next pre-vote at once (it resets the inherited,
    expired timer: RAFT-KIP996-TIMEOUT)."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "prospective" and self.is_voter:
            assert self.prior is not None
            self.go_back(self.prior)
            return
        super().on_ElectionTimeout(inp)


class StepDownResetsTimer(RaftReplica):
    """A candidate that timed out and learns a higher epoch resets its election timer
    (RAFT-RULE-TIMER-KEPT: the timer is kept, so Kafka and Raft stand again at once)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self.timed_out = False
        return super().step(inp)


class ProspectiveRefusesVotes(RaftReplica):
    """A prospective refuses every standard vote of its epoch (KIP-996 lets one without a vote
    or a leader grant it: RAFT-KIP996-PROSPECTIVE-VOTES)."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if self.role == "prospective":
            return False
        return super().grant_vote(req, up_to_date)


class VotesForNonVoter(RaftReplica):
    """A KIP-595 replica that handles a vote from a replica outside its voter set as any vote
    (no ``validateVoterOnlyRequest``): it moves to the request's epoch before refusing.
    RAFT-RULE-VOTER-ONLY; only injected requests (RAFT-DRIVE-INJECT) come from non-voters."""

    def refuse_non_voter(self, req: dict[str, Any]) -> bool:
        if req["type"] == "VoteRequest":
            return False
        return super().refuse_non_voter(req)


class ObserverIgnoresBeginEpoch(RaftReplica):
    """An observer (KIP-853) that answers BeginQuorumEpoch but does not follow the leader it
    names: it only learns leaders from fetch responses. RAFT-KIP853-OPEN-VOTE; only injected
    requests reach observers with BeginQuorumEpoch."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.open_votes and not self.is_voter and req["epoch"] >= self.epoch:
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error="NONE")
            return
        super().on_BeginQuorumEpochRequest(req)


class FollowerTakesClientAppend(RaftReplica):
    """A follower appends a client's record to its own log instead of refusing it (Kafka
    throws NotLeaderException). RAFT-DRIVE-IDLE; the model fires ClientAppend only at leaders."""

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        if self.role == "follower":
            record = {"type": "Entry", "epoch": self.epoch, "kind": "data", "payload": list(inp.get("payload") or [])}
            self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": [record]})
            self.log.append(record)
            return
        super().on_ClientAppend(inp)


class ResignedToldLeader(RaftReplica):
    """The listener of a resigned replica is told that the replica leads its epoch (Kafka 3.7
    and 3.8, KAFKA-17333: a former leader restarts as resigned and its state machine acts as
    the active controller). RAFT-OBS-LISTENER-LEADER; only a listener observation sees it."""

    def notify_listener(self) -> None:
        super().notify_listener()
        if self.listening and self.role == "resigned" and self.listener_told != (self.epoch, self.id):
            self.out.append({"type": "HandleLeaderChange", "epoch": self.epoch, "leader": self.id})
            self.listener_told = (self.epoch, self.id)


class LeaderToldBeforeCatchUp(RaftReplica):
    """A new leader's listener is told it leads at once, before it has read the committed log
    up to the epoch start (Kafka before KAFKA-15345, with an empty log): the state machine
    writes before it has seen the committed state. RAFT-OBS-LISTENER-LEADER."""

    def notify_listener(self) -> None:
        if self.listening and self.role == "leader" and self.listener_told != (self.epoch, self.id):
            self.out.append({"type": "HandleLeaderChange", "epoch": self.epoch, "leader": self.id})
            self.listener_told = (self.epoch, self.id)
        super().notify_listener()


class CommitsPastHighWatermark(RaftReplica):
    """A follower hands its listener every record it appends, committed or not (reads with
    uncommitted isolation): a record a later leader truncates has been applied.
    RAFT-OBS-LISTENER-COMMIT."""

    def notify_listener(self) -> None:
        if self.listening and self.role == "follower" and self.end_offset > self.listener_next:
            entries = [[e["epoch"], e["kind"]] for e in self.log[self.listener_next:]]
            self.out.append({"type": "HandleCommit", "offset": self.listener_next, "entries": entries})
            self.listener_next = self.end_offset
        super().notify_listener()


class RestartNotToldLeader(RaftReplica):
    """The listener is told a leader only when the replica changes state: a replica that
    restarts into the follower of a leader it had persisted never tells its new listener who
    leads (KAFKA-16286's shape: a listener registered after the transition is never told).
    RAFT-OBS-LISTENER-LEADER."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "follower":
            self.listener_told = (self.epoch, self.leader)


class MalformedVoteCounted(RaftReplica):
    """A vote request is not validated: one whose last epoch is not below its epoch (a
    malformed or forged one) is handled as a well-formed vote of that epoch and may be granted
    (Kafka answers INVALID_REQUEST). RAFT-RULE-INVALID-REQUEST; only the driver's malformed
    requests (RAFT-DRIVE-INJECT) carry one."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        if not req.get("pre_vote") and req["last_epoch"] >= req["epoch"] >= 1:
            req = {**req, "last_epoch": req["epoch"] - 1}
        super().on_VoteRequest(req)


class MalformedPreVoteGranted(RaftReplica):
    """A pre-vote is not validated: one whose last epoch is above its epoch (a malformed or
    forged one) is handled as a well-formed pre-vote and may be granted (Kafka 4.0+ answers
    INVALID_REQUEST). RAFT-KIP996-PRE-VOTE-INVALID; only the driver's malformed requests
    (RAFT-DRIVE-INJECT) carry one."""

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        if req["last_epoch"] > req["epoch"] >= 0:
            req = {**req, "last_epoch": req["epoch"]}
        super().on_pre_vote_request(req)


class SentinelFetchRefused(RaftReplica):
    """A fetch from replica id -1 is refused as malformed (INVALID_REQUEST), as the voter-only
    requests from -1 are; Kafka's leader serves it (a consumer's fetch) and records no replica
    position. RAFT-RULE-FETCH-NO-REPLICA, RAFT-DRIVE-SENTINEL."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if req["src"] < 0:
            self.fetch_error(req, "INVALID_REQUEST")
            return
        super().on_FetchRequest(req)


class SentinelLeaderFollowed(RaftReplica):
    """A BeginQuorumEpoch from replica id -1 is taken as a leader's announcement: the replica
    follows "-1" (Kafka answers INVALID_REQUEST). RAFT-RULE-INVALID-REQUEST, RAFT-DRIVE-SENTINEL."""

    def refuse_non_voter(self, req: dict[str, Any]) -> bool:
        if req["src"] < 0 and req["type"] == "BeginQuorumEpochRequest":
            return False
        return super().refuse_non_voter(req)


class ObserverTakesVotes(RaftReplica):
    """A KIP-595 observer handles a voter's vote request as a voter would (it checks the
    sender, not itself: ``validateVoterOnlyRequest`` without the receiver half): it moves to
    the request's epoch and may grant. RAFT-RULE-VOTER-ONLY at the receiver; only injected
    requests reach an observer with a vote, and the guided runs send them only as probes
    (RAFT-DRIVE-PROBE)."""

    def refuse_non_voter(self, req: dict[str, Any]) -> bool:
        if req["type"] == "VoteRequest" and not self.is_voter and req["src"] in self.voters:
            return False
        return super().refuse_non_voter(req)


class PayloadSignedBytes(RaftReplica):
    """A leader keeps a client record's bytes in a signed type (a Java ``byte[]`` port): bytes
    above 127 come back negative in its AppendLog and in the fetch responses that carry them.
    RAFT-RULE-CLIENT-APPEND; only the driver's payloads (RAFT-DRIVE-PAYLOAD) hold such bytes."""

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        payload = [b - 256 if b > 127 else b for b in inp.get("payload") or []]
        super().on_ClientAppend({**inp, "payload": payload})


class PayloadLengthByte(RaftReplica):
    """A leader writes a client record's length in one byte: a record of 256 bytes or more is
    cut to its length modulo 256 (here: empty). RAFT-RULE-CLIENT-APPEND; only the driver's
    long payload (RAFT-DRIVE-PAYLOAD, random runs) is that long."""

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        payload = list(inp.get("payload") or [])
        super().on_ClientAppend({**inp, "payload": payload[:len(payload) % 256]})


# (name, class, bug class, caught at the default budget, note): mutants.py makes Mutants of them.
class NeverResendsBeginEpoch(RaftReplica):
    """A leader sends BeginQuorumEpoch once, at election, and never again: a voter whose copy
    was lost learns the leader only when its election timer expires (RAFT-RULE-RESEND)."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        if self.role != "leader":
            super().on_ResendDue(inp)


class ResendsToAcknowledged(RaftReplica):
    """A leader's resend goes to every other voter, including those that already acknowledged
    it (a heartbeat, as Kafka 3.9+ sends: KIP-595's rule set resends only to the voters that
    have not acknowledged, RAFT-RULE-RESEND)."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and inp["to"] not in self.acked:
            for v in self.others():
                self.send("BeginQuorumEpochRequest", v, epoch=self.epoch)
            return
        super().on_ResendDue(inp)


class ResendsAfterResigning(RaftReplica):
    """A resigned leader keeps announcing its epoch: its resend is a BeginQuorumEpoch, not the
    EndQuorumEpoch a resigned leader sends again (RAFT-RULE-RESEND)."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and inp["to"] not in self.acked and inp["to"] in self.others():
            self.send("BeginQuorumEpochRequest", inp["to"], epoch=self.epoch)
            return
        super().on_ResendDue(inp)


class FetchSnapshotShapeAnd(RaftReplica):
    """A port of Kafka 3.3-4.3.1's FetchSnapshot shape check, `and` for `or` (a request is
    refused only when it has not one topic AND its first topic has not one partition), with
    Python's guard against the empty list: a request with no topic, one topic of two
    partitions, or two topics whose first has one partition is looked up instead of refused
    INVALID_REQUEST. RAFT-RULE-FETCH-SNAPSHOT-SHAPE, RAFT-DRIVE-LEADER-ONLY."""

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        topics = req["topics"]
        if topics and len(topics) != 1 and len(topics[0][1]) != 1:
            self.send("FetchSnapshotResponse", req["src"], epoch=None, leader=None, error="INVALID_REQUEST")
        elif not any(name == "raft" and 0 in parts for name, parts in topics):
            self.send("FetchSnapshotResponse", req["src"], epoch=None, leader=None, error="UNKNOWN_TOPIC_OR_PARTITION")
        else:
            super().on_FetchSnapshotRequest({**req, "topics": [["raft", [0]]]})


class SnapshotPositionFirst(RaftReplica):
    """A FetchSnapshot's byte position validated with the request's other fields, before the
    leader-only epoch check and the snapshot lookup: a negative position is answered
    POSITION_OUT_OF_RANGE at every role (Kafka reads the position only against the snapshot it
    found, ``position < 0 || position >= snapshotSize``). RAFT-RULE-FETCH-SNAPSHOT-LEADER,
    RAFT-DRIVE-SNAPSHOT-POSITION."""

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        topics = req["topics"]
        own = len(topics) == 1 and len(topics[0][1]) == 1 and topics[0][0] == "raft" and topics[0][1][0] == 0
        if own and req.get("position", 0) < 0:
            self.send("FetchSnapshotResponse", req["src"], epoch=self.epoch, leader=self.leader,
                      error="POSITION_OUT_OF_RANGE")
            return
        super().on_FetchSnapshotRequest(req)


class DescribeQuorumAnyRole(RaftReplica):
    """A replica that is not the leader answers DescribeQuorum INVALID_REQUEST, as Kafka did
    before KAFKA-13940 (apache/kafka#12517), an error the admin client and the forwarding
    manager treat as fatal; the protocol's is the retriable NOT_LEADER_OR_FOLLOWER.
    RAFT-RULE-DESCRIBE-QUORUM, RAFT-DRIVE-LEADER-ONLY."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role != "leader":
            self.send("DescribeQuorumResponse", req["src"], error="INVALID_REQUEST", leader=None, epoch=None,
                      high_watermark=None, voters=[])
            return
        super().on_DescribeQuorumRequest(req)


RAFT_MUTANTS: tuple[tuple[str, type, str, bool, str], ...] = (
    ("raft-follower-pre-votes-after-fetch", FollowerPreVotesAfterFetch,
     "KIP-996 grant rule missing a state flag", False,
     "needs a follower that fetched and then a pre-vote of its epoch from a prospective that knew "
     "the same leader (about 12 chosen steps): not reached at seed 0 with the default budget"),
    ("raft-prospective-timeout-waits", ProspectiveTimeoutWaits, "an inherited expired timer reset (KIP-996)",
     True, ""),
    ("raft-step-down-resets-timer", StepDownResetsTimer, "an election timer reset on a step-down", True,
     "RAFT-DRIVE-EXPIRED-STEP-DOWN's (a start probe): guided run 1 at seeds 0 and 1; before it, random run "
     "3460 at seed 0"),
    ("raft-prospective-refuses-votes", ProspectiveRefusesVotes, "a role that may vote never does (KIP-996)",
     False, "caught at seed 0 with the default budget after 1695 runs (138 s): kept out of the CI run"),
    ("raft-votes-for-non-voter", VotesForNonVoter, "missing sender check on a voter-only request (KIP-595)",
     True, ""),
    ("raft-observer-ignores-begin-epoch", ObserverIgnoresBeginEpoch,
     "a request handled by voters only (KIP-853 reaches observers)", False,
     "caught at seed 0 with the default budget after 302 runs (469 s at load ~15): kept out of the CI run"),
    ("raft-follower-takes-client-append", FollowerTakesClientAppend, "a leader-only input accepted elsewhere",
     True, ""),
    ("raft-listener-resigned-told-leader", ResignedToldLeader, "state machine told a role it does not hold "
     "(KAFKA-17333)", True, ""),
    ("raft-listener-leader-before-catch-up", LeaderToldBeforeCatchUp, "state machine told of leadership "
     "before it read the committed log (KAFKA-15345)", True, ""),
    ("raft-listener-commits-past-hw", CommitsPastHighWatermark, "uncommitted records applied", True, ""),
    ("raft-listener-restart-not-told-leader", RestartNotToldLeader, "notification only on a transition "
     "(KAFKA-16286)", True, ""),
    ("raft-malformed-vote-counted", MalformedVoteCounted, "request validation missing", False,
     "caught at seed 0 with the default budget at the first random run (153 runs, 157 s at load ~15; "
     "injected requests are left to the random runs): kept out of the CI run"),
    ("raft-malformed-pre-vote-granted", MalformedPreVoteGranted, "request validation missing (KIP-996)", False,
     "only the pre-vote shapes' injected requests (random runs) carry one: kept out of the CI run"),
    ("raft-sentinel-fetch-refused", SentinelFetchRefused, "-1 sentinel refused where it is allowed", False,
     "only the driver's injected requests (random runs) carry one: kept out of the CI run"),
    ("raft-observer-takes-votes", ObserverTakesVotes, "missing receiver check on a voter-only request (KIP-595)",
     True, ""),
    ("raft-payload-signed-bytes", PayloadSignedBytes, "record bytes in a signed type (a Java byte[] port)",
     True, ""),
    ("raft-payload-length-byte", PayloadLengthByte, "a record length that overflows one byte", False,
     "only the random runs' long payload (category payload) reaches it: kept out of the CI run"),
    ("raft-sentinel-leader-followed", SentinelLeaderFollowed, "-1 sentinel taken as an id", False,
     "caught at seed 0 with the default budget after 162 runs (135 s at load ~15): kept out of the CI run"),
    ("raft-never-resends-begin-epoch", NeverResendsBeginEpoch, "a request sent once, never retried", True, ""),
    ("raft-resends-to-acknowledged", ResendsToAcknowledged, "a resend to a voter that already answered", True, ""),
    ("raft-resends-after-resigning", ResendsAfterResigning, "a resend of the wrong role's request", True,
     "caught at the first guided run at seeds 0 and 1 (session 13): the resend probe (RAFT-DRIVE-RESEND, "
     "macros.Retry) resigns a leader and fires its resend after its EndQuorumEpoch is lost; before it, "
     "random runs only (not caught at seed 0 in 345 runs since session 12, seed 1 at run 228)"),
    ("raft-fetch-snapshot-shape-and", FetchSnapshotShapeAnd, "a validity check with `and` for `or` (Kafka #23185)",
     True, ""),
    ("raft-describe-quorum-any-role", DescribeQuorumAnyRole,
     "a leader-only request answered with a fatal error at a non-leader (KAFKA-13940)", True, ""),
    ("raft-snapshot-position-first", SnapshotPositionFirst,
     "a field validated before the epoch and the lookup that make it meaningful", True, ""),
)


# ---- RAFT-DRIVE-FETCH-ELSEWHERE (session 14): a fetch due at a voter the replica must not fetch from


class FollowerFetchesAnyVoter(RaftReplica):
    """A follower keeps the leader-discovery branch on: it fetches from any voter its fetch is
    due at, not only its leader (a port of Kafka 3.9.1+'s ``maybeSendFetchToBestNode`` without
    its condition, the leader's request timed out or backing off, which no lockstep step
    reaches). RAFT-RULE-FETCH-DUE, RAFT-RULE-OBSERVER: a replica that knows its leader fetches
    from it only; the model offers a follower's FetchDue at its leader only, so only
    RAFT-DRIVE-FETCH-ELSEWHERE asks it to fetch elsewhere."""

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        if self.role == "follower" and to != self.leader and to in self.voters and to != self.id:
            self.send("FetchRequest", to, epoch=self.epoch, fetch_offset=self.end_offset,
                      last_fetched_epoch=self.last_epoch)
            return
        super().on_FetchDue(inp)


RAFT_MUTANTS += (
    ("raft-follower-fetches-any-voter", FollowerFetchesAnyVoter,
     "a discovery branch left on once the leader is known", True, ""),
)


# ---------------------------------------------------------------- the guided paths' probes (session 14)
# One mutant per probe a guided path ends with (RAFT-DRIVE-PROBE, conformance/drivers/raft.py:
# RaftDriver.probes), each a slip in the state that probe reaches: caught with the probe, and
# (but for prospective-retimes-in-place) escaping the default budget without it
# (bench/probe_mutants.py switches one probe off; figures in docs/performance.md, "Raft probe
# mutants, session 14"). Kept out of the CI run but for the cheap ones (guided run 1).


class CandidateLosesAtHalf(RaftReplica):
    """A candidate counts its round lost once half the voters (rounded down) have refused it,
    ``len(rejected) >= len(voters) // 2``, where a round is lost only when the voters that have
    not refused are no majority (Kafka's ``EpochElection.isVoteRejected``): with three voters
    one refusal, with five two. The candidate backs off with an answer still to come, so its
    resend and its election timer act as a backing-off candidate's; a grant that arrives still
    wins (RAFT-RULE-VOTE-TALLY). RAFT-DRIVE-MID-ROUND (macros.FirstAnswer) leaves a candidate
    with one refusal counted and the round open."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        super().on_vote_response(resp)
        if self.role == "candidate" and not resp["granted"] and resp["src"] in self.voters \
                and len(self.rejected) >= len(self.voters) // 2:
            self.backing_off = True


class ProspectiveRetimesInPlace(RaftReplica):
    """A prospective that knew no leader and whose election timer expires starts its next
    pre-vote round in place: it asks again only the voters whose answers it has not counted
    (the round's "unrecorded voters" computed before the tally is cleared), where KIP-996's
    new round asks every voter (RAFT-KIP996-TIMEOUT: a fresh ``ProspectiveState``).
    RAFT-DRIVE-MID-ROUND (macros.AbandonRound) times a prospective out with an answer counted;
    so does a path of the guide's graph in the four-voter kip-996 shape (not AbandonRound's alone)."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        answered = (self.granted | self.rejected) - {self.id} if self.role == "prospective" else set()
        start = len(self.out)
        super().on_ElectionTimeout(inp)
        if answered and self.role == "prospective":
            self.out[start:] = [o for o in self.out[start:]
                                if not (o["type"] == "VoteRequest" and o["dst"] in answered)]


class StaleAnswerMarksFetched(RaftReplica):
    """A follower marks that it has fetched from its leader (KIP-996's ``hasFetchedFromLeader``)
    on a fetch answer from its leader's id before it checks the answer's epoch: an answer of the
    leader's earlier epoch (held on the wire while the leader resigned and won again) changes
    nothing else, but the follower then refuses pre-votes it must still grant in the new epoch,
    where it has not fetched yet (RAFT-RULE-STALE-EPOCH: an older epoch's answer changes
    nothing; RAFT-KIP996-PRE-VOTE-GRANT). RAFT-DRIVE-STALE-ANSWER at a guided path's end
    (macros.HeldFetch), before the path's own-epoch pre-vote probe."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "FetchResponse" and resp["epoch"] < self.epoch and self.role == "follower"
                and resp["src"] == self.leader and resp["error"] == "NONE"):
            self.has_fetched = True
            return
        super().on_response(resp)

    on_FetchResponse = on_response  # the reference dispatches on the message type


class ResignedNeverResendsEndEpoch(RaftReplica):
    """A resigned leader sends EndQuorumEpoch once, when it resigns, and never again: a voter
    whose copy was lost waits out its whole election timeout instead of standing at once
    (RAFT-RULE-RESEND, pollResigned's resend to the voters that have not acknowledged).
    RAFT-DRIVE-RESEND (macros.Retry) resigns a leader, loses its EndQuorumEpoch and fires the
    resend."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        if self.role != "resigned":
            super().on_ResendDue(inp)


class ProspectiveTimeoutLeavesLeader(RaftReplica):
    """A kip-996 prospective that stood from following a leader and whose election timer
    expires goes back to its epoch knowing that leader but not following it (unattached with
    the leader, the branch KIP-853 keeps for a leader without a known endpoint, taken for
    every prior leader): it neither fetches nor stands until a message moves it, where it
    should follow its leader again (RAFT-KIP996-TIMEOUT, RAFT-KIP996-LOSS).
    RAFT-DRIVE-TIMER-CHAIN fires a follower's fetch timeout and then the prospective's
    election timeout, back to back."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "prospective" and self.is_voter and self.prior is not None \
                and self.prior[2] not in (None, self.id):
            self.prior_unreachable = True
            self.go_back(self.prior)
            return
        super().on_ElectionTimeout(inp)


class ProspectiveLossVotesForSelf(RaftReplica):
    """A prospective that loses its pre-vote round, having voted for another candidate in its
    epoch before it stood, goes back voted for itself: the vote restored is the round's own
    (the prospective's self-grant, as a Raft candidate votes for itself), not the one it had
    (RAFT-KIP996-LOSS: back to the vote and leader it had). The canvass (macros.Canvass) makes
    a voter vote for a candidate no one else heard and then lose a pre-vote of its own."""

    def on_pre_vote_response(self, resp: dict[str, Any]) -> None:
        prior = self.prior
        super().on_pre_vote_response(resp)
        if prior is not None and self.role == "voted" and prior[1] not in (None, self.id) and prior[2] is None:
            self.voted_for = self.id


RAFT_MUTANTS += (  # appended as one block (session 14)
    ("raft-candidate-loses-at-half", CandidateLosesAtHalf, "a majority test off by one (half, not a majority)",
     False, "written for macros.FirstAnswer (RAFT-DRIVE-MID-ROUND), but no guided run catches it (session 28, "
     "offline replay of the 150 default guided plans): the runs that take FirstAnswer are 139 and 146 (kip-996: "
     "the voter that stands is a prospective, which this slip leaves alone) and 141 (kip-595: the candidate is "
     "refused once, then meets only injected requests, which a backing-off candidate answers the same; no resend, "
     "election timer or late grant reaches it). At the default budget it conforms at seed 0 (324 runs) and is "
     "caught at seed 1 by random run 211 only (a VoteRequest the candidate did not resend); kept out of the CI run"),
    ("raft-prospective-retimes-in-place", ProspectiveRetimesInPlace, "a round restarted without its state reset",
     False, "guided run 144 at seeds 0 and 1, with macros.AbandonRound off too (a guide-graph path of the "
     "four-voter kip-996 shape): not AbandonRound's alone; kept out of the CI run (cost)"),
    ("raft-stale-answer-marks-fetched", StaleAnswerMarksFetched, "a state flag set before the epoch check (KIP-996)",
     True, "macros.HeldFetch's (RAFT-DRIVE-STALE-ANSWER), since session 26 RAFT-DRIVE-HELD-FETCH's (the macro and a "
     "pre-vote chained after a start path): guided run 35 at the default budget (every seed: a guided run; the "
     "three-voter kip-996 shape with faults, after RAFT-DRIVE-SNAPSHOT-LAG; with it off, conforms at seed 0, "
     "324 runs). Was guided run 88 at seed 0; after "
     "the guided paths changed (sessions 22-24) no guided run took HeldFetch and it escaped the default budget "
     "(session 25: none of the 150 guided runs diverged; conforms, 324 runs, at seed 0)"),
    ("raft-resigned-never-resends-end-epoch", ResignedNeverResendsEndEpoch, "a request sent once, never retried",
     True, "macros.Retry's (RAFT-DRIVE-RESEND): guided run 1 at seeds 0 and 1, escapes the default budget at "
     "seed 0 with the probe off (bench/probe_mutants.py)"),
    ("raft-prospective-timeout-leaves-leader", ProspectiveTimeoutLeavesLeader,
     "a transition back to the wrong role (KIP-996)", True,
     "RAFT-DRIVE-TIMER-CHAIN's: guided run 4 at seed 0 (a guided run: the same at every seed); with the chain "
     "off a random run catches it at seed 0 (run 262) and the liveness check's timed run at seed 1: not the "
     "chain's alone (the chain makes the lockstep catch early and seed-independent)"),
    ("raft-prospective-loss-votes-for-self", ProspectiveLossVotesForSelf, "the wrong state restored on a loss",
     False, "macros.Canvass's: guided run 74 at seeds 0 and 1, escapes the default budget at seed 0 with "
     "Canvass off (bench/probe_mutants.py); kept out of the CI run (cost)"),
)


# ---- RAFT-DRIVE-NEW-LEADER-PRE-VOTE (session 15): a follower moved straight to a new leader


class FollowerKeepsFetchedAcrossEpochs(RaftReplica):
    """A follower keeps KIP-996's ``hasFetchedFromLeader`` when a leader of a higher epoch makes
    it a follower again (the flag on the replica, reset only when it stops following, not on a
    new ``FollowerState``), so it refuses an up-to-date pre-vote of the new epoch before its
    first fetch from the new leader (RAFT-KIP996-PRE-VOTE-GRANT: only a fetch since it became
    follower counts). RAFT-DRIVE-NEW-LEADER-PRE-VOTE: an election the follower does not hear
    (macros.ElectWithout), then that pre-vote; red team
    ``raft_scratch8:pre-vote-fetched-flag-survives-new-epoch``."""

    def become_follower(self, epoch: int, leader: int) -> None:
        kept = self.role == "follower" and self.has_fetched
        super().become_follower(epoch, leader)
        self.has_fetched = self.has_fetched or kept


RAFT_MUTANTS += (
    ("raft-follower-keeps-fetched-across-epochs", FollowerKeepsFetchedAcrossEpochs,
     "a per-state flag kept on the replica (KIP-996)", False,
     "RAFT-DRIVE-NEW-LEADER-PRE-VOTE's: guided run 138 at seed 0 (a guided run: the same at every seed), "
     "escapes the default budget at seed 0 without the probe; kept out of the CI run (cost)"),
)


class VoteCopiesCounted(RaftReplica):
    """A candidate tallies the granted answers it received, not the voters that granted: a
    VoteResponse that arrives twice (a duplicate on the wire, a retried answer) counts twice, so
    where a majority is three (four or five voters) a candidate with one real grant leads
    (Raft's ``votesGranted`` is a set; RAFT-DRIVE-DUPLICATE-VOTE delivers the copy)."""

    def become_candidate(self) -> None:
        self.answers = [self.id]  # the tally, one entry per granting answer
        super().become_candidate()

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role != "candidate" or resp["src"] not in self.voters:
            return
        if not resp["granted"]:
            super().on_vote_response(resp)
            return
        self.granted.add(resp["src"])
        self.answers = [*getattr(self, "answers", [self.id]), resp["src"]]
        if len(self.answers) >= len(self.voters) // 2 + 1:
            self.become_leader()


RAFT_MUTANTS += (  # appended as one block (session 15, raftfetch)
    ("raft-vote-copies-counted", VoteCopiesCounted, "a tally of answers, not of voters (duplicate counted)", True,
     "RAFT-DRIVE-DUPLICATE-VOTE's: guided run 40 at seeds 0 and 1 (the four-voter kip-595 shape); with the "
     "probe off no lockstep run catches it at seed 0, only the liveness check's timed run (its prefix, drawn "
     "with faults, happened to deliver a granted VoteResponse twice)"),
)


# ---- RAFT-DRIVE-RESEND-ACKED (session 16): a resend timer at a voter that acknowledged by fetching


class ResendIgnoresFetchAck(RaftReplica):
    """A leader counts only a NONE BeginQuorumEpochResponse as a voter's acknowledgement of its
    epoch, not a valid Fetch (Kafka's ``ReplicaState.updateFollowerState`` sets
    ``hasAcknowledgedLeader`` too): a voter whose answer was lost but which has been fetching
    gets BeginQuorumEpoch again at its resend timer (RAFT-RULE-RESEND, RAFT-STEP-RESEND)."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        acked = set(self.acked)
        super().on_valid_fetch(replica, offset)
        if self.role == "leader":
            self.acked = acked


RAFT_MUTANTS += (  # appended as one block (session 16, raftfetch)
    ("raft-resend-ignores-fetch-ack", ResendIgnoresFetchAck, "an acknowledgement tracked by one of its two signals",
     True, "RAFT-DRIVE-RESEND-ACKED's (an idle ResendDue at a voter that acknowledged by a fetch alone): guided "
     "run 18 at seed 0 (a guided run: every seed); before it the driver never sent ResendDue towards an "
     "acknowledged voter, so no run could catch it"),
)


# ---- session 16 (outsiderc): RAFT-RULE-PREFERRED-SUCCESSORS


class PreferredNamesSelf(RaftReplica):
    """A resigning leader sorts every voter by its fetch offset, itself included, and names
    that list as its preferred successors (Kafka's ``nonLeaderVotersByDescendingFetchOffset``
    without the filter that leaves the leader out): a former leader is told to stand first
    (RAFT-RULE-PREFERRED-SUCCESSORS: other voters only)."""

    def resign(self) -> None:
        offsets = {**self.end_offsets, self.id: self.end_offset}
        preferred = sorted(self.voters, key=lambda v: (-offsets.get(v, 0), v))
        super().resign()
        self.out[:] = [{**o, "preferred": preferred} if o["type"] == "EndQuorumEpochRequest" else o
                       for o in self.out]


RAFT_MUTANTS += (  # appended as one block (session 16, outsiderc)
    ("raft-preferred-names-self", PreferredNamesSelf, "a list built over every voter, the sender included", True,
     "RAFT-RULE-PREFERRED-SUCCESSORS's: before it the driver compared EndQuorumEpoch without its list"),
)


class LeaderToldBeforeCommitCallback(RaftReplica):
    """The listener's callbacks of one step fired from a map keyed by kind, leader changes
    first: a new leader's state machine is told it leads before the records up to its epoch
    start are handed to it (RAFT-OBS-LISTENER-LEADER, KAFKA-15345: the records first).
    Observations and the set of callbacks are the model's; only their order differs."""

    def notify_listener(self) -> None:
        start = len(self.out)
        super().notify_listener()
        told = self.out[start:]
        self.out[start:] = sorted(told, key=lambda o: o["type"] != "HandleLeaderChange")


RAFT_MUTANTS += (  # session 16, outsiderc: ordering.LEADER_TOLD_AFTER_COMMIT
    ("raft-leader-told-before-commit-callback", LeaderToldBeforeCommitCallback,
     "callbacks of one step in the wrong order (KAFKA-15345)", True,
     "the leader-change order rule's: before it the harness compared listener callbacks as a multiset"),
)


class BeginEpochRenewsFollower(RaftReplica):
    """A follower handles every BeginQuorumEpoch of its leader's epoch as a new announcement:
    it enters a new follower state, which has not fetched (a port of ``maybeTransition`` that
    calls ``transitionToFollower`` whenever the request names a leader), so after Kafka 3.9+'s
    heartbeat it grants an up-to-date pre-vote it must refuse (RAFT-RULE-BEGIN-EPOCH: unchanged;
    RAFT-KIP996-PRE-VOTE-GRANT; RAFT-DRIVE-HEARTBEAT)."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        super().on_BeginQuorumEpochRequest(req)
        if self.role == "follower" and req["src"] == self.leader and req["epoch"] == self.epoch:
            self.has_fetched = False


RAFT_MUTANTS += (  # session 16, outsiderc: RAFT-DRIVE-HEARTBEAT
    ("raft-begin-epoch-renews-follower", BeginEpochRenewsFollower,
     "a follower state rebuilt by a repeated announcement (KIP-996)", True,
     "RAFT-DRIVE-HEARTBEAT's: no guided path asked a follower anything after a repeated BeginQuorumEpoch"),
)


class RestartedCandidateTalliesAnswersOnly(RaftReplica):
    """A candidate that restarts rebuilds its tally from the answers it gets from then on and
    leaves out its own vote, which only the quorum-state file holds (RAFT-RULE-RESTART: a
    candidate with ``granted = {self}``): with three voters one grant no longer elects it
    (RAFT-DRIVE-RESTARTED-CANDIDATE)."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "candidate":
            self.granted.discard(self.id)


RAFT_MUTANTS += (  # session 16, outsiderc: RAFT-DRIVE-RESTARTED-CANDIDATE
    ("raft-restarted-candidate-tallies-answers-only", RestartedCandidateTalliesAnswersOnly,
     "a restart that rebuilds the role but not the vote the file records", True,
     "RAFT-DRIVE-RESTARTED-CANDIDATE's: a candidate's reboot followed by a grant was left to random draws"),
)


class ResignedDescribesQuorum(RaftReplica):
    """A resigned leader still answers DescribeQuorum with itself as the leader and its (cleared)
    replica table: the handler is guarded by "the epoch's leader is me", which a resigned state
    still says, instead of "I lead" (RAFT-RULE-DESCRIBE-QUORUM: NOT_LEADER_OR_FOLLOWER;
    RAFT-DRIVE-LEADER-TABLE at a resigned leader)."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role == "resigned":
            voters = [[v, self.end_offset if v == self.id else -1] for v in self.voters]
            self.send("DescribeQuorumResponse", req["src"], error="NONE", leader=self.id, epoch=self.epoch,
                      high_watermark=self.high_watermark, voters=voters)
            return
        super().on_DescribeQuorumRequest(req)


class BackingOffCandidateResends(RaftReplica):
    """A kip-595 candidate backing off still resends its VoteRequest to the voters that have not
    answered (``pollCandidate`` without its ``isBackingOff()`` branch), so a late grant can elect
    it in an election it gave up (RAFT-RULE-RESEND; RAFT-DRIVE-RESEND-BACKOFF)."""

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        if (self.role == "candidate" and self.backing_off and to != self.id and to in self.voters
                and to not in self.granted | self.rejected):
            self.send("VoteRequest", to, epoch=self.epoch, last_epoch=self.last_epoch,
                      end_offset=self.end_offset, pre_vote=False)
            return
        super().on_ResendDue(inp)


RAFT_MUTANTS += (  # session 17, lead: red team raft_scratch10's escapes
    ("raft-resigned-describes-quorum", ResignedDescribesQuorum,
     "a leader-only request guarded by the epoch's leader id instead of the role", True,
     "RAFT-DRIVE-LEADER-TABLE at a resigned leader: the rotation rarely met one"),
    ("raft-backing-off-candidate-resends", BackingOffCandidateResends,
     "a resend without its backoff branch", True,
     "RAFT-DRIVE-RESEND-BACKOFF's: ResendDue was enabled at a backing-off candidate nowhere"),
)


class SnapshotFetchServedAsRecords(RaftReplica):
    """A leader serves a fetch below its log start as if the log still held those records: it
    answers with what it has from the log start on (nothing of what was asked) instead of the
    snapshot id (KIP-630, RAFT-RULE-FETCH-SNAPSHOT-ID: ``validateOffsetAndEpoch`` without its
    SNAPSHOT kind), so the follower never loads the snapshot and its log has a hole."""

    def snapshot_needed(self, offset: int, last_epoch: int) -> bool:
        return False


class SnapshotLoadUntold(RaftReplica):
    """A follower that fetched a snapshot does not tell its state machine
    (``handleLoadSnapshot`` missing after ``truncateToLatestSnapshot``): the listener reads on
    from the snapshot's end as if it had applied it (RAFT-OBS-LISTENER-SNAPSHOT)."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        before = self.log_start
        super().on_FetchSnapshotResponse(resp)
        if self.log_start != before and self.listening:
            self.listener_next = max(self.listener_next, self.log_start)


class SnapshotAboveHighWatermark(RaftReplica):
    """``createSnapshot`` accepted above the high watermark: the state machine snapshots records
    that are not committed (RAFT-RULE-SNAPSHOT-TAKE, RAFT-INV-SNAPSHOT-COMMITTED)."""

    def on_TakeSnapshot(self, inp: dict[str, Any]) -> None:
        end = inp["end_offset"]
        if self.role != "down" and max(1, self.log_start) <= end <= self.end_offset and (
                not self.snapshots or end > self.snapshots[-1][0]):
            self.snapshots.append((end, self.log[end - 1]["epoch"]))
            return
        super().on_TakeSnapshot(inp)


RAFT_MUTANTS += (  # session 18, raftsnap: KIP-630 snapshots (RAFT-DRIVE-SNAPSHOT)
    ("raft-snapshot-fetch-served-as-records", SnapshotFetchServedAsRecords,
     "a fetch below the log start answered with records instead of the snapshot id", True,
     "RAFT-DRIVE-SNAPSHOT's: a replica lagging behind a cleaned log"),
    ("raft-snapshot-load-untold", SnapshotLoadUntold,
     "the listener not told HandleLoadSnapshot after a snapshot fetch", True,
     "RAFT-DRIVE-SNAPSHOT's: a snapshot fetched and loaded"),
    ("raft-snapshot-above-hw", SnapshotAboveHighWatermark,
     "a snapshot taken above the high watermark accepted", True,
     "RAFT-DRIVE-SNAPSHOT's refused snapshots (category snapshot)"),
)


# ---- session 19, probestart: red team raft_scratch11's KIP-996 escapes (start probes)


class ProspectiveFollowsKnownLeaderAgain(RaftReplica):
    """A prospective that came from following leader L goes back to following L when L's
    BeginQuorumEpoch of its epoch arrives (a handler with its own "the leader is alive"
    branch), abandoning its pre-vote round, where a replica that knows its epoch's leader is
    unchanged by the notice (RAFT-KIP996-LEADER-KNOWN, RAFT-RULE-BEGIN-EPOCH;
    RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH)."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "prospective" and req["epoch"] == self.epoch and req["src"] == self.leader
                and req["src"] != self.id):
            self.become_follower(self.epoch, req["src"])
        super().on_BeginQuorumEpochRequest(req)


class ErrorFetchMarksFetched(RaftReplica):
    """A follower marks "fetched from its leader" on any answer of its leader, an error too
    (the flag set before the error branch of ``handleFetchResponse``): after its resigned
    leader's NOT_LEADER_OR_FOLLOWER it refuses the pre-votes that would replace that leader
    (RAFT-KIP996-PRE-VOTE-GRANT: a successful fetch only; RAFT-DRIVE-ERROR-FETCH-PRE-VOTE)."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if self.role == "follower" and resp["src"] == self.leader and resp["error"] != "NONE":
            self.has_fetched = True
        super().on_fetch_response(resp)


RAFT_MUTANTS += (  # session 19, probestart: red team raft_scratch11's escapes
    ("raft-prospective-follows-known-leader-again", ProspectiveFollowsKnownLeaderAgain,
     "a prospective's pre-vote abandoned on a notice from the leader it knew", True,
     "RAFT-DRIVE-PROSPECTIVE-BEGIN-EPOCH's (a start probe): a lost BeginQuorumEpoch answer, the fetch timer, "
     "then the leader's resend at the prospective"),
    ("raft-error-fetch-marks-fetched", ErrorFetchMarksFetched,
     "a follower's fetched flag set by an error answer", True,
     "RAFT-DRIVE-ERROR-FETCH-PRE-VOTE's (a start probe): a follower that never fetched, its leader resigned, "
     "a NOT_LEADER_OR_FOLLOWER answer, then a pre-vote"),
)


# ---- session 20, probestart: red team raft_scratch14's escape (a start probe)


class ProspectiveVotesPastLeader(RaftReplica):
    """A prospective that came from following its epoch's leader grants a standard vote of that
    epoch to an up-to-date candidate (its grant tests the vote it holds, not the leader it
    knows), where it must refuse (RAFT-KIP996-PROSPECTIVE-VOTES: neither a vote nor a leader;
    RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE)."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        known, self.leader = self.leader, (None if self.role == "prospective" else self.leader)
        try:
            return super().grant_vote(req, up_to_date)
        finally:
            self.leader = known


RAFT_MUTANTS += (  # session 20, probestart: red team raft_scratch14's escape
    ("raft-prospective-votes-past-leader", ProspectiveVotesPastLeader,
     "a prospective that knows its epoch's leader grants a standard vote of that epoch", True,
     "RAFT-DRIVE-PROSPECTIVE-LEADER-VOTE's (a start probe): a follower that never fetched, its fetch timer, "
     "then an up-to-date vote of its epoch"),
)


# ---- session 19, blindraft: red team raft_scratch12's escapes (start probes)


class CleanLogUnbounded(RaftReplica):
    """``deleteBeforeSnapshot`` without its high-watermark bound: the log is cleaned up to the
    latest snapshot whether or not the replica knows it is committed, so a restarted replica
    (its HW unknown) drops its log below a snapshot (RAFT-RULE-SNAPSHOT-CLEAN)."""

    def on_CleanLog(self, inp: dict[str, Any]) -> None:
        if self.snapshots and self.log_start < self.snapshots[-1][0]:
            self.log_start = self.snapshots[-1][0]
            self.snapshots = [self.snapshots[-1]]
            return
        super().on_CleanLog(inp)


class SnapshotNotFoundRetried(RaftReplica):
    """A follower answered ``SNAPSHOT_NOT_FOUND`` keeps the snapshot id it was told and asks for
    it again (the error taken as transient), where it must fetch records again and be told the
    leader's current snapshot (RAFT-RULE-FETCH-SNAPSHOT-LOAD)."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        wanted = self.fetching_snapshot
        super().on_FetchSnapshotResponse(resp)
        if resp.get("error") == "SNAPSHOT_NOT_FOUND" and self.role == "follower" and self.fetching_snapshot is None:
            self.fetching_snapshot = wanted


class FetchedOnlyWithRecords(RaftReplica):
    """KIP-996's "has fetched from the leader" set only by an answer that brings records: a
    follower already caught up when it started following grants pre-votes against its live
    leader (RAFT-KIP996-PRE-VOTE-GRANT)."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        fetched = self.has_fetched
        super().on_fetch_response(resp)
        if self.role == "follower" and not resp.get("entries") and resp.get("diverging") is None \
                and resp.get("snapshot_id") is None:
            self.has_fetched = fetched


class PreferredByRecency(RaftReplica):
    """A resigning leader names its successors by when it last heard from them, the latest
    fetch first, not by how far each has fetched (a port that keeps its replica table in access
    order and reads it backwards): a voter that fetched last, but not far, is asked to stand
    first (RAFT-RULE-PREFERRED-ORDER; KIP-595's preferred successors are sorted by progress)."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        self.end_offsets.pop(replica, None)  # re-inserted last: the table in access order
        super().on_valid_fetch(replica, offset)

    def resign(self) -> None:
        recent = [v for v in reversed(self.end_offsets) if v in self.others()]
        super().resign()
        order = recent + [v for v in self.others() if v not in recent]
        self.out[:] = [{**o, "preferred": order} if o["type"] == "EndQuorumEpochRequest" else o for o in self.out]


RAFT_MUTANTS += (  # session 19, blindraft: red team raft_scratch12's escapes
    ("raft-clean-log-unbounded", CleanLogUnbounded,
     "a log cleaned to the latest snapshot with no high-watermark bound", True,
     "RAFT-DRIVE-SNAPSHOT-LAG's: a restarted replica holding a snapshot past its log start"),
    ("raft-snapshot-not-found-retried", SnapshotNotFoundRetried,
     "SNAPSHOT_NOT_FOUND taken as transient: the deleted snapshot asked for again", True,
     "RAFT-DRIVE-SNAPSHOT-SUPERSEDED's: a snapshot deleted between the fetch naming it and its fetch"),
    ("raft-fetched-only-with-records", FetchedOnlyWithRecords,
     "a follower's fetched flag set only by an answer with records", True,
     "RAFT-DRIVE-REFOLLOW-PRE-VOTE's: a follower's first fetch since it follows again brings nothing"),
    # session 20 (raftgaps): RAFT-RULE-PREFERRED-ORDER, red team raft_scratch12's last escape
    ("raft-preferred-by-recency", PreferredByRecency,
     "preferred successors ordered by the last fetch's time, not its offset", True,
     "RAFT-DRIVE-PREFERRED-ORDER's (a start probe): the voter that fetched last but least asked first"),
)


class SnapshotLoadKeepsTail(RaftReplica):
    """A follower loading its leader's snapshot truncates its log only when the snapshot runs past
    the log's end, so a deposed leader's stale records past the snapshot survive the load
    (RAFT-RULE-FETCH-SNAPSHOT-LOAD; RAFT-DRIVE-SNAPSHOT-DEPOSED)."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        log, wanted = list(self.log), self.fetching_snapshot
        super().on_FetchSnapshotResponse(resp)
        if wanted is not None and self.fetching_snapshot is None and self.log_start == wanted[0] < len(log):
            self.log += [dict(e) for e in log[wanted[0]:]]


class SnapshotCheckedAgainstLatest(RaftReplica):
    """A leader judges whether a fetch needs a snapshot against its latest snapshot's epoch, not
    its earliest: a fetch it could answer from the log (or with a diverging epoch) is sent a
    snapshot id while two snapshots are held (RAFT-RULE-FETCH-SNAPSHOT; RAFT-DRIVE-SNAPSHOT-DEPOSED)."""

    def snapshot_needed(self, offset: int, last_epoch: int) -> bool:
        held = self.snapshots
        return super().snapshot_needed(offset, last_epoch) or (bool(held) and offset > 0 and last_epoch < held[-1][1])


class NewListenerLoadsOldest(RaftReplica):
    """A new listener (a rebooted replica's) is handed the oldest snapshot the replica holds, not
    the latest (RAFT-OBS-LISTENER-SNAPSHOT; RAFT-DRIVE-SNAPSHOT-REBOOT)."""

    def notify_listener(self) -> None:
        held = self.snapshots
        if self.listening and self.role != "down" and self.listener_next == 0 and len(held) > 1 \
                and self.high_watermark is not None and held[0][0] <= self.high_watermark:
            self.listener_next = held[0][0]
            self.out.append({"type": "HandleLoadSnapshot", "offset": held[0][0]})
        super().notify_listener()


RAFT_MUTANTS += (  # session 20, blindraft: red team raft_scratch13's escapes
    ("raft-snapshot-load-keeps-tail", SnapshotLoadKeepsTail,
     "a loaded snapshot keeps the follower's records past its end", True,
     "RAFT-DRIVE-SNAPSHOT-DEPOSED's: a deposed leader's stale suffix runs past the snapshot it loads"),
    ("raft-snapshot-checked-against-latest", SnapshotCheckedAgainstLatest,
     "a fetch's need for a snapshot judged by the latest snapshot's epoch", True,
     "RAFT-DRIVE-SNAPSHOT-DEPOSED's: a leader holding two snapshots of different epochs"),
    ("raft-new-listener-loads-oldest", NewListenerLoadsOldest,
     "a new listener handed the oldest snapshot held", True,
     "RAFT-DRIVE-SNAPSHOT-REBOOT's: a rebooted replica holding two snapshots"),
)

class ProspectiveCountsStandardAnswer(RaftReplica):
    """A prospective counts every vote answer of its epoch as a pre-vote answer, so a late grant
    of the candidacy it gave up in that epoch (KIP-996: a candidate whose election timer expires
    is prospective in the same epoch) wins it the pre-vote round: a port whose response
    dispatch reads the role alone, where Kafka ignores the answer by its correlation id
    (RAFT-RULE-PRE-VOTE, RAFT-MODEL-IGNORED-RESPONSES; RAFT-DRIVE-HELD-GRANT)."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role == "prospective":
            self.on_pre_vote_response(resp)
            return
        super().on_vote_response(resp)


RAFT_MUTANTS += (  # session 18, raftgaps: red team raft_scratch9's prospective-counts-standard-grant
    ("raft-prospective-counts-standard-answer", ProspectiveCountsStandardAnswer,
     "a vote answer dispatched on the role alone, not on the request it answers (KIP-996)", True,
     "RAFT-DRIVE-HELD-GRANT's: the model takes a held standard answer off the wire at the prospective"),
)


class BeginEpochAckCountsForCheckQuorum(RaftReplica):
    """A leader counts a voter's NONE BeginQuorumEpochResponse of its epoch towards check-quorum
    as it counts a fetch: one "this voter is alive" record for the acknowledgements
    (``addAcknowledgementFrom``) and for check-quorum (``updateCheckQuorumForFollowingVoter``),
    so a period in which a voter answered the epoch but never fetched is renewed and the leader
    leads on where the protocol resigns (RAFT-RULE-CHECK-QUORUM-PERIOD;
    RAFT-DRIVE-CHECK-QUORUM-ACK)."""

    def on_response(self, resp: dict[str, Any]) -> None:
        super().on_response(resp)
        if (resp["type"] == "BeginQuorumEpochResponse" and self.role == "leader" and resp["epoch"] == self.epoch
                and resp.get("error") == "NONE" and resp["src"] in self.voters and resp["src"] != self.id):
            self.count_for_check_quorum(resp["src"])

    on_BeginQuorumEpochResponse = on_response


RAFT_MUTANTS += (  # session 18, raftgaps: red team raft_scratch10's begin-epoch-ack-resets-check-quorum
    ("raft-begin-epoch-ack-counts-for-check-quorum", BeginEpochAckCountsForCheckQuorum,
     "an acknowledgement counted as a fetch towards check-quorum", True,
     "RAFT-RULE-CHECK-QUORUM-PERIOD's and RAFT-DRIVE-CHECK-QUORUM-ACK's: a CheckQuorumTimeout resigned "
     "whatever was counted"),
)


class TruncateMinAnyEpoch(RaftReplica):
    """A follower told a diverging (epoch, end) truncates to the lesser of that end and the end
    of its own largest epoch not above the diverging one, whether or not that epoch IS the
    diverging one: a follower that never held the diverging epoch cuts records of its own older
    epoch that the leader's next answer would have judged (``truncateToEndOffset`` without the
    epoch check; RAFT-RULE-TRUNCATE; RAFT-DRIVE-DIVERGENT-EPOCHS)."""

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        _, local_end = self.end_offset_for_epoch(div_epoch)
        target = min(local_end, div_end)
        if target < self.end_offset:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})


RAFT_MUTANTS += (  # session 21, raftreach: red team raft_scratch13's truncate-min-ignores-epoch
    ("raft-truncate-min-any-epoch", TruncateMinAnyEpoch,
     "a truncation offset taken as a minimum without checking the epoch found", True,
     "RAFT-DRIVE-DIVERGENT-EPOCHS's (a start probe, one epoch past the bound): a follower that never "
     "held the diverging epoch"),
)


class EndEpochMoveWrittenAfterAnswer(RaftReplica):
    """A replica writes its quorum state in an EndQuorumEpoch handler only where the handler
    itself makes it follow (a leaderless replica of the request's epoch), not after the
    higher-epoch move the cross-role rule made just before: that write is left to the end of
    the step, after the answer has left (``handleEndQuorumEpochRequest`` sending its response
    before the ``transitionToFollower`` of ``maybeTransition`` is flushed). A crash between the
    two restarts in the older epoch although the sender saw the new one (RAFT-OBS-PERSIST,
    ordering.PERSIST_BEFORE_SEND; RAFT-DRIVE-END-EPOCH-AHEAD)."""

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.refuse_epoch_request(req):
            return
        self.observe_epoch(req["epoch"], req["src"])
        if (req["epoch"] == self.epoch and req["src"] != self.id and req["src"] in self.voters
                and self.role in ("unattached", "voted", "candidate", "prospective")
                and (self.leader is None or self.leader_unreachable())):
            self.become_follower(req["epoch"], req["src"])
            self.persist()
        self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error="NONE")


RAFT_MUTANTS += (  # session 22, raftpersist: red team raft_scratch15's end-epoch-answered-before-persist
    ("raft-end-epoch-move-written-after-answer", EndEpochMoveWrittenAfterAnswer,
     "a quorum-state write after the answer of the request that moved the epoch", True,
     "RAFT-DRIVE-END-EPOCH-AHEAD's (a start probe): an EndQuorumEpoch of an epoch ahead of its receiver"),
)


class CrashKeepsAcknowledgements(RaftReplica):
    """A crash clears the role and the high watermark but not the leader's acknowledgement
    bookkeeping, so a leader that restarts resigned (RAFT-RULE-RESTART) takes the voters that
    acknowledged its leadership (a fetch, a BeginQuorumEpoch answer) as having acknowledged its
    resignation: its EndQuorumEpoch to such a voter, once lost, is never sent again, and the
    voter waits out its whole fetch timeout (RAFT-RULE-RESEND: pollResigned resends to every
    voter that has not answered the EndQuorumEpoch; a port whose ResignedState is built from the
    in-memory LeaderState's acknowledged set instead of all the other voters). Only a leader
    with other voters restarts with anyone to resend to (RAFT-DRIVE-LEADER-REBOOT)."""

    def on_Crash(self, inp: dict[str, Any]) -> None:
        acked = set(getattr(self, "acked", ()))  # (a replica that never changed role has none)
        super().on_Crash(inp)
        self.acked = acked


RAFT_MUTANTS += (  # session 22, raftreboot: red team raft_scratch16's restarted-leader-waits-to-resign
    ("raft-crash-keeps-acknowledgements", CrashKeepsAcknowledgements,
     "a restarted leader's resignation takes its leadership's acknowledgements as answered", True,
     "RAFT-DRIVE-LEADER-REBOOT's (a start probe): a leader with other voters reboots, its EndQuorumEpoch "
     "to a voter that had fetched is lost and its resend timer fires"),
)


class StaleFetchFencedFirst(RaftReplica):
    """A replica fences a Fetch of a stale epoch before it validates the request's shape: the
    stale-epoch rule taken as a cross-role rule ahead of every handler (etcd's ``Step`` order, a
    lower term answered before the message is read), so a malformed Fetch of a stale epoch (its
    last fetched epoch above its epoch) is answered FENCED_LEADER_EPOCH where Kafka 3.3-4.4's
    ``handleFetchRequest`` answers INVALID_REQUEST before ``validateLeaderOnlyRequest``
    (RAFT-RULE-INVALID-REQUEST; RAFT-DRIVE-MALFORMED-STALE-FETCH)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] < self.epoch:
            self.fetch_error(req, "FENCED_LEADER_EPOCH")
            return
        super().on_FetchRequest(req)


class SnapshotAnswerRecordsSnapshotEnd(RaftReplica):
    """A leader that answers a Fetch with its snapshot's id records the fetcher at that
    snapshot's end, as if the fetcher had already loaded what it is told to fetch (a port that
    moves the replica's position with the answer, not with the fetch): DescribeQuorum then
    reports a voter that holds nothing of the snapshot at its end (RAFT-RULE-FETCH-SNAPSHOT-ID:
    a snapshot answer records no position; RAFT-DRIVE-SNAPSHOT-TABLE)."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_FetchRequest(req)
        told = [o for o in self.out[start:] if o["type"] == "FetchResponse" and o.get("snapshot_id") is not None]
        if told and self.role == "leader" and req["src"] >= 0:
            self.end_offsets[req["src"]] = told[0]["snapshot_id"][0]


RAFT_MUTANTS += (  # session 22, raftfetch: red team raft_scratch15's fetch escapes
    ("raft-stale-fetch-fenced-first", StaleFetchFencedFirst,
     "a stale epoch fenced before the request's shape is validated", False,
     "RAFT-DRIVE-MALFORMED-STALE-FETCH's (an injected request): caught at seed 0 with the default budget "
     "at run 221, a random one (490 s at load ~10): kept out of the CI run"),
    ("raft-snapshot-answer-records-snapshot-end", SnapshotAnswerRecordsSnapshotEnd,
     "a fetcher's position moved by the answer it is sent, not by its fetch", True,
     "RAFT-DRIVE-SNAPSHOT-TABLE's (a start probe): DescribeQuorum right after a snapshot answer"),
)


class FollowerKeepsLeaderOnEndEpochAhead(RaftReplica):
    """A voter following a leader that meets an EndQuorumEpoch of a higher epoch from another
    voter moves to that epoch but keeps following its old leader (a port whose follower state
    takes the request's epoch and not its sender), where RAFT-RULE-HIGHER-EPOCH makes it the
    follower of the epoch's leader, the request's sender (Kafka's ``handleEndQuorumEpochRequest``:
    ``maybeTransition`` with the sender as leader). Only RAFT-DRIVE-MISSED-ELECTION's start path
    delivers such a request at a follower from a replica of the cluster (a follower that missed
    the election the sender won, then the sender's resignation)."""

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "follower" and self.is_voter and req["epoch"] > self.epoch and req["src"] in self.voters
                and req["src"] not in (self.id, self.leader) and self.leader is not None):
            self.become_follower(req["epoch"], self.leader)
            self.persist()
            self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error="NONE")
            return
        super().on_EndQuorumEpochRequest(req)


RAFT_MUTANTS += (  # session 23, raftcov (RAFT-DRIVE-MISSED-ELECTION)
    ("raft-follower-keeps-leader-on-end-epoch-ahead", FollowerKeepsLeaderOnEndEpochAhead,
     "a follower meeting a newer epoch's EndQuorumEpoch keeps following its old leader", True,
     "RAFT-DRIVE-MISSED-ELECTION's (a start probe): a follower that missed an election meets the winner's "
     "EndQuorumEpoch"),
)


# ---- session 24, raftfix: red team raft_scratch17's stale-begin-epoch-ack-counted


class StaleBeginAnswerEndsRound(RaftReplica):
    """A leader takes a BeginQuorumEpochResponse of an earlier epoch (a term it led before) as
    the end of its announcement round: it stops resending BeginQuorumEpoch to every voter,
    though none answered in its epoch (RAFT-RULE-STALE-EPOCH: an older epoch's answer changes
    nothing; RAFT-RULE-RESEND). RAFT-DRIVE-HELD-BEGIN-ANSWER (macros.HeldBeginAnswer) holds a
    voter's answer while its leader resigns and wins again, delivers it, then fires a resend."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "BeginQuorumEpochResponse" and resp["epoch"] < self.epoch and self.role == "leader"
                and resp.get("error") == "NONE"):
            self.acked |= set(self.voters) - {self.id}
            return
        super().on_response(resp)

    on_BeginQuorumEpochResponse = on_response  # the reference dispatches on the message type


class ObserverFetchRenewsPeriod(RaftReplica):
    """A leader resets its check-quorum timer on every valid fetch from an observer (the reset
    called from the fetch path for any replica, not only after a majority of the voters
    fetched): a leader its voters no longer reach leads on while an observer fetches
    (RAFT-RULE-CHECK-QUORUM counts voters only). RAFT-DRIVE-CHECK-QUORUM-OBSERVER's steps
    have the leader's observers fetch before its check-quorum timeouts."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        super().on_valid_fetch(replica, offset)
        if replica not in self.voters and self.role == "leader":
            self.fetched, self.renewed = set(), self.check_quorum_period


RAFT_MUTANTS += (  # session 24, raftfix
    ("raft-stale-begin-answer-ends-round", StaleBeginAnswerEndsRound,
     "an older epoch's answer taken as the end of a round", True,
     "RAFT-DRIVE-HELD-BEGIN-ANSWER's (after a start path: macros.HeldBeginAnswer, RAFT-DRIVE-STALE-ANSWER)"),
    ("raft-observer-fetch-renews-period", ObserverFetchRenewsPeriod,
     "a timer reset by a fetch that must not count", True,
     "RAFT-DRIVE-CHECK-QUORUM-OBSERVER's (after a start path): observers fetch over the leader's check-quorum "
     "timeouts"),
)


# ---- session 24, raftfix: red team raft_scratch17's pre-vote-compares-committed-log


class PreVoteEndAgainstHighWatermark(RaftReplica):
    """A prospective whose log ends past its high watermark grants a pre-vote whose claimed log
    reaches that high watermark, whatever its last epoch (a port that reads "a pre-vote only
    asks whether the prospective holds the committed records" into ``canGrantPreVote``), where
    RAFT-RULE-VOTE-LOG-UP-TO-DATE compares the claim with the receiver's whole log
    (RAFT-KIP996-PRE-VOTE-GRANT). RAFT-DRIVE-PRE-VOTE-UNCOMMITTED's steps (after a start path) ask
    a prospective holding an uncommitted record for a pre-vote that ends at its high watermark."""

    def log_is_up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        hw = self.high_watermark
        if self.role == "prospective" and hw is not None and hw < self.end_offset and end_offset >= hw:
            return True
        return super().log_is_up_to_date(last_epoch, end_offset)


RAFT_MUTANTS += (  # session 24, raftfix
    ("raft-pre-vote-end-against-high-watermark", PreVoteEndAgainstHighWatermark,
     "a pre-vote compared with the receiver's committed prefix", True,
     "RAFT-DRIVE-PRE-VOTE-UNCOMMITTED's (after a start path): a prospective with an uncommitted record asked for a "
     "pre-vote ending at its high watermark"),
)


# ---- session 26, raftsplit: red team raft_scratch17's voted-follows-only-its-candidate


class VotedIgnoresOtherLeader(RaftReplica):
    """A voter that voted for candidate X in epoch e ignores the leader a BeginQuorumEpoch of e
    from any other replica names (a port that guards the voted state's move to follower with
    ``leaderId == votedId``): it answers with its epoch and no leader and stays voted until its
    election timer fires. RAFT-RULE-BEGIN-EPOCH: a replica that knows no leader in the request's
    epoch follows its sender, whoever it voted for. RAFT-DRIVE-SPLIT-VOTE (after a start path,
    five voters) has Y win e without V, which voted for X, then delivers Y's BeginQuorumEpoch to
    V. (Session 26's first version sent no answer at all: random run 271 caught that at seed 0
    with the probe off.)"""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if (self.role == "voted" and req["epoch"] == self.epoch and self.voted_for is not None
                and req["src"] not in (self.id, self.voted_for) and self.leader is None):
            if self.refuse_epoch_request(req):
                return
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=None, error="NONE")
            return
        super().on_BeginQuorumEpochRequest(req)


RAFT_MUTANTS += (  # session 26, raftsplit
    ("raft-voted-ignores-other-leader", VotedIgnoresOtherLeader,
     "a request from the wrong sender taken as stale", True,
     "RAFT-DRIVE-SPLIT-VOTE's (after a start path, five voters): a voter that voted for one candidate meets the "
     "BeginQuorumEpoch of another that won the epoch; guided run 116 (every seed), conforms at seed 0 (324 runs) "
     "with the probe off (bench/probe_mutants.py)"),
)


# ---- session 26, refetch: red team raft_scratch18's snapshot-fetch-survives-role-change


class SnapshotIdKeptAcrossRoles(RaftReplica):
    """A follower told by its leader to fetch a snapshot keeps that id past its role changes (a
    port that holds the download in progress on the client instead of on ``FollowerState``):
    once it follows a leader again, its next fetch is a FetchSnapshot for the old id.
    RAFT-RULE-FETCH-DUE, RAFT-RULE-FETCH-SNAPSHOT-ID: each role state starts without one, and a
    new follower fetches records first. RAFT-DRIVE-REFETCH (after RAFT-DRIVE-MISSED-ELECTION's
    tail) has the voter that tail moved fetch once more; RAFT-DRIVE-SNAPSHOT-TABLE leaves that
    voter holding the id."""

    def _reset_role_state(self) -> None:
        pending = self.fetching_snapshot
        super()._reset_role_state()
        self.fetching_snapshot = pending

    def on_Crash(self, inp: dict[str, Any]) -> None:
        super().on_Crash(inp)
        self.fetching_snapshot = None  # the process's memory goes with it


RAFT_MUTANTS += (  # session 26, refetch
    ("raft-snapshot-id-kept-across-roles", SnapshotIdKeptAcrossRoles,
     "role state carried across a transition", True,
     "RAFT-DRIVE-REFETCH's (after RAFT-DRIVE-MISSED-ELECTION's tail): the voter that tail moved, left holding a "
     "snapshot id by RAFT-DRIVE-SNAPSHOT-TABLE, fetches once more; guided run 8 (every seed), conforms at seed 0 "
     "(324 runs) with the probe off (bench/probe_mutants.py)"),
)


# ---- session 27, blindraft: red team raft_scratch19's snapshot-answer-names-earliest


class SnapshotIdEarliest(RaftReplica):
    """A leader holding two snapshots answers a fetch it cannot serve as records with the id of
    its EARLIEST snapshot (a port whose ``validateOffsetAndEpoch`` reads
    ``earliestSnapshotId()`` for the position check and answers with the same variable), so the
    follower downloads an older snapshot than the latest. RAFT-RULE-FETCH-SNAPSHOT-ID: the
    answer names the latest snapshot. RAFT-DRIVE-SNAPSHOT-PAIR (RAFT-DRIVE-SNAPSHOT's last
    steps) has the leader snapshot again without cleaning and a fetch from below its log start
    reach it."""

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        super().on_FetchRequest(req)
        for o in self.out:
            if o["type"] == "FetchResponse" and o.get("snapshot_id") is not None and len(self.snapshots) > 1:
                o["snapshot_id"] = list(self.snapshots[0])


RAFT_MUTANTS += (  # session 27, blindraft
    ("raft-snapshot-id-earliest", SnapshotIdEarliest,
     "the wrong one of two values (earliest for latest)", True,
     "RAFT-DRIVE-SNAPSHOT-PAIR's (RAFT-DRIVE-SNAPSHOT's last steps): a leader holding two snapshots answers a "
     "fetch from below its log start; guided run 3 (every seed), conforms at seed 0 (324 runs) with the probe off "
     "(bench/probe_mutants.py)"),
)


class SnapshotServedLatestOnly(RaftReplica):
    """A leader serves a FetchSnapshot only for its latest snapshot and answers
    ``SNAPSHOT_NOT_FOUND`` for an older one it still holds (a port that compares the id asked
    for with ``latestSnapshot()`` instead of calling ``readSnapshot(id)``).
    RAFT-RULE-FETCH-SNAPSHOT-DATA: a held snapshot is served. RAFT-DRIVE-SNAPSHOT-SUPERSEDING
    (within RAFT-DRIVE-SNAPSHOT) has the leader snapshot again between the fetch that named a
    snapshot and the FetchSnapshot that asks for it."""

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        wanted = tuple(req.get("snapshot_id") or ())
        if self.snapshots and wanted in self.snapshots[:-1]:
            req = {**req, "snapshot_id": [-1, -1]}
        super().on_FetchSnapshotRequest(req)


RAFT_MUTANTS += (  # session 27, blindraft
    ("raft-snapshot-served-latest-only", SnapshotServedLatestOnly,
     "a lookup by the latest value instead of by key", True,
     "RAFT-DRIVE-SNAPSHOT-SUPERSEDING's (within RAFT-DRIVE-SNAPSHOT): the leader snapshots again between the fetch "
     "naming a snapshot and the FetchSnapshot asking for it; guided run 3 (every seed), conforms at seed 0 (324 "
     "runs) with the probe off (bench/probe_mutants.py)"),
)


class CandidateLossNeedsMajorityRefusals(RaftReplica):
    """A candidate counts its round lost only once the refusals themselves are a majority,
    where a round is lost as soon as the voters that have not refused are no majority
    (RAFT-RULE-CANDIDATE, Kafka's ``EpochElection.isVoteRejected``). The two agree for an odd
    voter set; with two or four voters a candidate refused by exactly half can no longer win,
    backs off (RAFT-RULE-BACKOFF) and resends nothing, while this one waits on and resends its
    VoteRequest. RAFT-DRIVE-HALF-REFUSED (last on the start paths, four voters, kip-595) refuses
    a candidate by two of four and then fires its resend timer towards the fourth."""

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role != "candidate" or resp["src"] not in self.voters or not self.is_ballot(resp):
            return
        (self.granted if resp["granted"] else self.rejected).add(resp["src"])
        if resp["granted"] and self.majority(self.granted):
            self.become_leader()
        elif self.majority(self.rejected):
            self.backing_off = True


RAFT_MUTANTS += (  # session 27, raftcq
    ("raft-candidate-loss-needs-majority-refusals", CandidateLossNeedsMajorityRefusals,
     "a majority test on the wrong set (refusals a majority, not grants out of reach)", True,
     "RAFT-DRIVE-HALF-REFUSED's (last on the start paths, four voters, kip-595): a candidate refused by two of "
     "four, then its resend timer; guided run 106 (every seed: a guided run)"),
)


class RenewedPeriodRestartsCount(RaftReplica):
    """A check-quorum period that was renewed ends with the count of the voters heard since the
    last reset cleared as well ("a new period, a new count"), where it is kept: it belongs to
    the timer's last reset, not to the period (RAFT-RULE-CHECK-QUORUM-PERIOD; Kafka's
    ``fetchedVoters`` is cleared only where ``updateCheckQuorumForFollowingVoter`` resets the
    timer). With four or five voters a voter that fetched after the reset is forgotten, and a
    leader that hears a second voter in the next period (a majority with the first) resigns at
    its next timeout where it leads on. RAFT-DRIVE-CHECK-QUORUM-CARRY (before
    RAFT-DRIVE-CHECK-QUORUM-ACK's core) carries a counted voter across a renewed period's end."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        renewed = self.role == "leader" and self.renewed
        super().on_CheckQuorumTimeout(inp)
        if renewed:
            self.fetched = set()


class SnapshotAnswerErrorFirst(RaftReplica):
    """A FetchSnapshot answer carrying an error other than SNAPSHOT_NOT_FOUND is dropped before
    its epoch is looked at ("nothing to load"), where any answer of a higher epoch moves its
    receiver to that epoch first (RAFT-RULE-HIGHER-EPOCH, RAFT-RULE-RESPONSE (1), Kafka's
    ``maybeHandleCommonResponse`` before the partition's error): a follower whose leader moved
    on while its FetchSnapshot was in flight is answered FENCED_LEADER_EPOCH in the new epoch
    and keeps following the deposed leader. RAFT-DRIVE-HELD-ACROSS-EPOCH (RAFT-DRIVE-SNAPSHOT-
    TABLE's last steps) holds the lagging voter's FetchSnapshot while another voter is elected."""

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        if resp.get("error") not in (NONE, "SNAPSHOT_NOT_FOUND"):
            return
        super().on_FetchSnapshotResponse(resp)


RAFT_MUTANTS += (  # session 28, raftesc
    ("raft-renewed-period-restarts-count", RenewedPeriodRestartsCount,
     "per-period bookkeeping cleared at the wrong event (the period's end, not the timer's reset)", True,
     "RAFT-DRIVE-CHECK-QUORUM-CARRY's (before RAFT-DRIVE-CHECK-QUORUM-ACK's core, four or five voters): a voter "
     "counted across a renewed period's end, a second voter's fetch, a second timeout"),
    ("raft-snapshot-answer-error-first", SnapshotAnswerErrorFirst,
     "an error test before the epoch check (a higher epoch's answer dropped)", True,
     "RAFT-DRIVE-HELD-ACROSS-EPOCH's (RAFT-DRIVE-SNAPSHOT-TABLE's last steps, kip-595): the lagging voter's "
     "FetchSnapshot held while another voter is elected, then answered FENCED_LEADER_EPOCH"),
)


class CommitBeforeSnapshotLoad(RaftReplica):
    """The listener's callbacks of one step handed over commits first: a listener behind the
    log start is told the commit of the records past the latest snapshot, then
    ``HandleLoadSnapshot`` of that snapshot (offsets and contents the model's), so a state
    machine applies records it then overwrites with the snapshot (RAFT-OBS-LISTENER-SNAPSHOT:
    the snapshot first; Kafka's ``updateListenersProgress``). Only the order differs."""

    def notify_listener(self) -> None:
        start = len(self.out)
        super().notify_listener()
        told = self.out[start:]
        self.out[start:] = sorted(told, key=lambda o: o["type"] != "HandleCommit")


RAFT_MUTANTS += (  # session 29, blindraft: ordering.SNAPSHOT_LOADED_BEFORE_COMMIT
    ("raft-commit-before-snapshot-load", CommitBeforeSnapshotLoad,
     "callbacks of one step in the wrong order (the commit past a snapshot before its load)", True,
     "the snapshot-load order rule's: before it the harness compared a snapshot load and a commit as a multiset"),
)


class SnapshotIdAnswerNotFetched(RaftReplica):
    """A follower marks itself fetched from its leader on a records or a diverging answer only:
    a Fetch answer that names the leader's snapshot leaves it "not fetched" until its next
    records answer, so meanwhile it grants an up-to-date pre-vote it must refuse
    (RAFT-KIP996-PRE-VOTE-GRANT; Kafka 4.x ``resetFetchTimeoutForSuccessfulFetch`` after the
    snapshot branch too). RAFT-DRIVE-SNAPSHOT-FETCHED (RAFT-DRIVE-SNAPSHOT-TABLE's last step,
    kip-996) asks the lagging voter for a pre-vote right after it was named the snapshot."""

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        fetched = self.has_fetched
        super().on_fetch_response(resp)
        if self.role == "follower" and resp.get("snapshot_id") is not None and resp.get("diverging") is None:
            self.has_fetched = fetched


RAFT_MUTANTS += (  # session 29, blindraft: RAFT-DRIVE-SNAPSHOT-FETCHED
    ("raft-snapshot-id-answer-not-fetched", SnapshotIdAnswerNotFetched,
     "a successful fetch counted in two of its three branches (KIP-996)", True,
     "RAFT-DRIVE-SNAPSHOT-FETCHED's (RAFT-DRIVE-SNAPSHOT-TABLE's last step, kip-996): a pre-vote at a follower "
     "named the snapshot, before its download"),
)
