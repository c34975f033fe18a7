"""A KRaft replica written the way a user would write one: a mutable class, plain dicts.

It follows KIP-595 (and, with ``pre_vote``, KIP-996 as Kafka 4.0+ ships it: ``ProspectiveState``,
each state's ``canGrantVote``) and Kafka's ``KafkaRaftClient`` / ``QuorumState`` / ``LeaderState`` (not
``kspec.model.raft``, which it never imports), speaks the conformance JSON (the shapes
``kspec.model.core.codec.encode`` gives the model's messages) and must conform to the model
step for step. The mutants in :mod:`kspec.conformance.targets.mutants` subclass it and
override one method each.

Persisted state (the quorum-state file and the log) survives a Crash; the role, the high
watermark and the leader's bookkeeping do not.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.conformance.targets.majority import majority_offset

NONE = "NONE"
FENCED = "FENCED_LEADER_EPOCH"
UNKNOWN_EPOCH = "UNKNOWN_LEADER_EPOCH"
NOT_LEADER = "NOT_LEADER_OR_FOLLOWER"

# Kafka's defaults (QuorumConfig): quorum.election.timeout.ms, quorum.election.backoff.max.ms,
# quorum.fetch.timeout.ms; KafkaRaftClient.RETRY_BACKOFF_BASE_MS; the check-quorum timer is
# 1.5 fetch timeouts (LeaderState).
ELECTION_TIMEOUT_MS = 1000
ELECTION_BACKOFF_MAX_MS = 1000
FETCH_TIMEOUT_MS = 2000
RETRY_BACKOFF_BASE_MS = 100
CHECK_QUORUM_MS = FETCH_TIMEOUT_MS * 3 // 2

# The roles whose election timer a move to a higher epoch as unattached keeps.
_TIMER_KEPT_FROM = ("unattached", "voted", "candidate", "prospective")

# Roles whose election state is "no leader known": they follow a leader they hear of.
_LEADERLESS = ("unattached", "voted", "candidate", "prospective")


def _entry(epoch: int, kind: str, payload: list[int] | None = None) -> dict[str, Any]:
    return {"type": "Entry", "epoch": epoch, "kind": kind, "payload": list(payload or [])}


class RaftReplica:
    """One KRaft replica. ``step(input) -> outputs``; ``observation()`` for the harness."""

    def __init__(self, node_id: int, voters: list[int], pre_vote: bool = False, kip853: bool | None = None) -> None:
        self.id = node_id
        self.voters = sorted(voters)
        self.pre_vote = pre_vote
        # KIP-595 (kip853 False): Vote, BeginQuorumEpoch and EndQuorumEpoch are voter-only
        # requests (validateVoterOnlyRequest to 3.7). KIP-853 (True, 3.8+): any replica takes a
        # vote from any replica. None: only voters vote, for voters, with no error.
        self.voter_only = kip853 is False
        self.open_votes = kip853 is True
        # quorum-state file (persisted): epoch, voted-for, leader
        self.epoch = 0
        self.voted_for: int | None = None
        self.leader: int | None = None
        # the log (persisted): list of Entry dicts
        self.log: list[dict[str, Any]] = []
        # KIP-630 (persisted): the snapshot ids [end offset, epoch] held, oldest first, and the log
        # start offset; the records below it are kept only as the contents of the snapshot
        # ending there (never served as records). Volatile: the snapshot id a follower was told
        # to fetch (FollowerState.fetchingSnapshot).
        self.snapshots: list[tuple[int, int]] = []
        self.log_start = 0
        self.fetching_snapshot: tuple[int, int] | None = None
        # volatile
        self.role = "unattached"
        self.high_watermark: int | None = None
        self.granted: set[int] = set()
        self.rejected: set[int] = set()
        self.backing_off = False
        self.timed_out = False  # a candidate backing off because its election timer expired
        self.prior: tuple[int, int | None, int | None] | None = None  # prospective: election to go back to
        self.prior_unreachable = False  # prospective: its prior leader had no known endpoint
        self.epoch_start = 0
        self.end_offsets: dict[int, int] = {}
        self.fetched: set[int] = set()
        self.renewed = False  # leader: a majority fetched in this check-quorum period
        # RAFT-RULE-CHECK-QUORUM-PERIOD: whether the run holds it to the check-quorum period (its
        # node configuration says so where the target declares it; else a CheckQuorumTimeout
        # resigns wherever no majority fetched since the timer was last reset, and no leader is
        # ever renewed)
        self.check_quorum_period = False
        self.has_fetched = False  # follower (KIP-996): fetched from its leader since it became follower
        self.out: list[dict[str, Any]] = []
        self._written = self.election()
        # timing (RAFT-LIVE-TIMED): elections lost in a row, and the replica's own random source
        self.retries = 0
        self.rng = random.Random(node_id)
        # The state machine's listener (spec/raft.md RAFT-OBS-LISTENER), when the driver asks for
        # one: the offset it reads next and the last (epoch, leader) it was told.
        self.listening = False
        self.listener_next = 0
        self.listener_told: tuple[int, int | None] = (0, None)

    # ------------------------------------------------------------------ helpers

    @property
    def is_voter(self) -> bool:
        return self.id in self.voters

    @property
    def end_offset(self) -> int:
        return len(self.log)

    @property
    def last_epoch(self) -> int:
        return self.log[-1]["epoch"] if self.log else 0

    def others(self) -> list[int]:
        return [v for v in self.voters if v != self.id]

    def may_vote(self, candidate: int) -> bool:
        return self.open_votes or (self.is_voter and candidate in self.voters)

    def refuse_non_voter(self, req: dict[str, Any]) -> bool:
        """A voter-only request a KIP-595 replica refuses: answered INCONSISTENT_VOTER_SET."""
        kind = req["type"].replace("Request", "Response")
        extra = {"granted": False, "pre_vote": bool(req.get("pre_vote"))} if kind == "VoteResponse" else {}
        if req["src"] < 0:  # Kafka's -1, no replica: malformed (INVALID_REQUEST)
            self.send(kind, req["src"], epoch=self.epoch, **extra, leader=self.leader, error="INVALID_REQUEST")
            return True
        if not self.voter_only or (self.is_voter and req["src"] in self.voters):
            return False
        self.send(kind, req["src"], epoch=self.epoch, **extra, leader=self.leader, error="INCONSISTENT_VOTER_SET")
        return True

    def majority(self, members: set[int]) -> bool:
        return len(members & set(self.voters)) >= len(self.voters) // 2 + 1

    def election(self) -> tuple[int, int | None, int | None]:
        return (self.epoch, self.voted_for, self.leader)

    def persist(self) -> None:
        """Write the quorum-state file if it changed (Kafka's ``QuorumState.transitionTo``)."""
        now = self.election()
        if now != self._written:
            self._written = now
            self.out.append({"type": "PersistElection", "epoch": now[0], "voted_for": now[1], "leader": now[2]})

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        self.out.append({"type": kind, "src": self.id, "dst": dst, **fields})

    def log_is_up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        if last_epoch != self.last_epoch:
            return last_epoch > self.last_epoch
        return end_offset >= self.end_offset

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        found, end = 0, 0
        for offset, e in enumerate(self.log):
            if e["epoch"] > epoch:
                break
            found, end = e["epoch"], offset + 1
        return found, end

    def _reset_role_state(self) -> None:
        self.fetching_snapshot = None
        self.granted, self.rejected, self.backing_off, self.prior = set(), set(), False, None
        self.timed_out = False
        self.end_offsets, self.fetched, self.has_fetched, self.renewed = {}, set(), False, False
        self.acked: set[int] = set()  # leader / resigned: voters that acknowledged (Kafka's hasAcknowledgedLeader)

    # ------------------------------------------------------------------ timers

    def timer_kind(self) -> str | None:
        """The timer the replica's role runs, named by the model input that ends it."""
        if self.role == "down":
            return None
        if self.role == "leader":
            return "CheckQuorumTimeout"
        if not self.is_voter:
            return None
        if self.role == "follower":
            return "FetchTimeout"
        if self.role == "candidate" and self.backing_off:
            return "BackoffExpired"
        return "ElectionTimeout"

    def timer_ms(self, kind: str) -> int:
        if kind == "ElectionTimeout":
            return self.election_timeout_ms()
        if kind == "BackoffExpired":
            return self.election_backoff_ms(self.retries)
        if kind == "FetchTimeout":
            return FETCH_TIMEOUT_MS
        return CHECK_QUORUM_MS

    def election_timeout_ms(self) -> int:
        """QuorumState.randomElectionTimeoutMs: the timeout plus up to as much again."""
        return ELECTION_TIMEOUT_MS + self.rng.randrange(ELECTION_TIMEOUT_MS)

    def election_backoff_ms(self, retries: int) -> int:
        """KafkaRaftClient.binaryExponentialElectionBackoffMs: a random multiple of the base,
        below 2^retries, capped."""
        return min(RETRY_BACKOFF_BASE_MS * self.rng.randrange(2 << min(20, max(retries, 1) - 1)),
                   ELECTION_BACKOFF_MAX_MS)

    # ------------------------------------------------------------------ transitions

    def become_unattached(self, epoch: int) -> None:
        self._reset_role_state()
        self.role, self.epoch, self.voted_for, self.leader = "unattached", epoch, None, None

    def become_voted(self, epoch: int, candidate: int) -> None:
        self._reset_role_state()
        self.role, self.epoch, self.voted_for, self.leader = "voted", epoch, candidate, None

    def become_follower(self, epoch: int, leader: int) -> None:
        # Kafka 4.0+ keeps the voted key within the epoch ("State transitions within the same
        # epoch should preserve voted key"); 3.x writes the leader alone.
        voted = self.voted_for if self.pre_vote and epoch == self.epoch else None
        self._reset_role_state()
        self.role, self.epoch, self.voted_for, self.leader = "follower", epoch, voted, leader

    def become_candidate(self) -> None:
        self._reset_role_state()
        self.role, self.epoch, self.voted_for, self.leader = "candidate", self.epoch + 1, self.id, None
        self.granted = {self.id}
        self.persist()
        if self.majority(self.granted):
            self.become_leader()
            return
        self.request_votes(self.epoch, pre_vote=False)

    def leader_unreachable(self) -> bool:
        """KIP-853: an unattached (or voted) replica that knows its epoch's leader but not the
        leader's endpoint (restarted with a leader outside its voter set)."""
        return self.role in ("unattached", "voted") and self.leader is not None

    def become_prospective(self) -> None:
        prior = self.election()
        unreachable = self.leader_unreachable()
        self._reset_role_state()
        self.role, self.prior, self.granted = "prospective", prior, {self.id}
        self.prior_unreachable = unreachable

    def become_leader(self) -> None:
        self._reset_role_state()
        self.role, self.voted_for, self.leader = "leader", None, self.id
        self.epoch_start = self.end_offset
        self.high_watermark = None
        self.persist()
        record = _entry(self.epoch, "leader_change")
        self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": [record]})
        self.log.append(record)
        for v in self.others():
            self.send("BeginQuorumEpochRequest", v, epoch=self.epoch)
        self.update_high_watermark()

    def resign(self) -> None:
        # Kafka names the other voters, most caught up first, as preferred successors.
        preferred = sorted(self.others(), key=lambda v: (-self.end_offsets.get(v, 0), v))
        self._reset_role_state()
        # Kafka's ResignedState has no high watermark; the roles it moves to inherit none.
        self.role, self.high_watermark = "resigned", None
        for v in self.others():
            self.send("EndQuorumEpochRequest", v, epoch=self.epoch, preferred=preferred)

    def go_back(self, prior: tuple[int, int | None, int | None]) -> None:
        """A lost pre-vote: return to the election state the replica had before."""
        epoch, voted_for, leader = prior
        if leader is not None and self.prior_unreachable:
            # still no endpoint for that leader: unattached with it, the vote kept
            self._reset_role_state()
            self.role = "voted" if voted_for is not None else "unattached"
            self.epoch, self.voted_for, self.leader = epoch, voted_for, leader
        elif leader is not None and leader != self.id:
            self.become_follower(epoch, leader)
        elif voted_for is not None:
            # transitionToUnattached keeps the voted key in the same epoch, even its own
            self.become_voted(epoch, voted_for)
        else:
            self.become_unattached(epoch)
        self._written = self.election()  # nothing is written: the file still holds the prior state

    def start_election(self) -> None:
        if not self.pre_vote:
            self.become_candidate()
            return
        self.become_prospective()
        if self.majority(self.granted):
            self.become_candidate()
            return
        self.request_votes(self.epoch, pre_vote=True)  # a pre-vote carries the current epoch

    def request_votes(self, epoch: int, pre_vote: bool) -> None:
        for v in self.others():
            self.send("VoteRequest", v, epoch=epoch, last_epoch=self.last_epoch, end_offset=self.end_offset,
                      pre_vote=pre_vote)

    def observe_epoch(self, epoch: int, leader: int | None) -> None:
        """A higher epoch moves any role on: follower of its leader when known, else unattached."""
        if epoch <= self.epoch:
            return
        if leader is not None and leader != self.id:
            self.become_follower(epoch, leader)
        else:
            self.become_unattached(epoch)

    def majority_offset(self) -> int:
        """The largest offset a majority of the voters hold, as the leader knows it (its own log
        end, its followers' fetch offsets)."""
        return majority_offset({**self.end_offsets, self.id: self.end_offset}, self.voters)

    def update_high_watermark(self) -> None:
        majority = self.majority_offset()
        # only once a record of this leader's epoch commits, and never backwards
        if majority <= self.epoch_start:
            return
        if self.high_watermark is not None and majority <= self.high_watermark:
            return
        self.high_watermark = majority

    # ------------------------------------------------------------------ inputs

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self.out = []
        kind = inp["type"]
        if self.role == "down":
            if kind == "Restart":
                self.on_restart()
            self._coalesced()
            self.notify_listener()
            return self.out
        handler = getattr(self, "on_" + kind, None)
        if handler is None:
            raise TargetError(f"unknown input type {kind!r}")
        expired = self.role == "candidate" and self.timed_out
        epoch = self.epoch
        handler(inp)
        self.persist()
        if expired and self.role == "unattached" and self.epoch > epoch and kind != "ElectionTimeout":
            # The unattached state inherits the candidate's expired election timer
            # (transitionToUnattached: remainingElectionTimeMs), so the next election starts now.
            self.start_election()
            self.persist()
        self._coalesced()
        self.notify_listener()
        return self.out

    def notify_listener(self) -> None:
        """Tell the listener what is due (RAFT-OBS-LISTENER): the committed records it has not
        read, then the leader and epoch if they are news. A leader is announced only once the
        listener has read past its epoch start; a resigned replica never."""
        if not self.listening:
            return
        if self.role == "down":
            self.listener_next, self.listener_told = 0, (0, None)  # the restart registers a new one
            return
        hw = self.high_watermark
        if hw is not None and self.snapshots and self.listener_next < hw and (
                self.listener_next < self.log_start or self.listener_next == 0):
            # KIP-630 (Kafka 3.6+ updateListenersProgress): the latest snapshot first
            self.listener_next = self.snapshots[-1][0]
            self.out.append({"type": "HandleLoadSnapshot", "offset": self.listener_next})
        if hw is not None and hw > self.listener_next:
            entries = [[e["epoch"], e["kind"]] for e in self.log[self.listener_next:hw]]
            self.out.append({"type": "HandleCommit", "offset": self.listener_next, "entries": entries})
            self.listener_next = hw
        if self.role == "resigned" or (self.role == "leader" and self.listener_next <= self.epoch_start):
            return
        news = (self.epoch, self.id if self.role == "leader" else self.leader)
        told = self.listener_told
        if news != told and (news[0] > told[0] or (news[0] == told[0] and news[1] is not None and told[1] is None)):
            self.out.append({"type": "HandleLeaderChange", "epoch": news[0], "leader": news[1]})
            self.listener_told = news

    def _coalesced(self) -> list[dict[str, Any]]:
        """Writes of the quorum-state file with nothing sent between them are one output, the
        file as it was when the next message left (spec/raft.md RAFT-OBS-PERSIST)."""
        merged: list[dict[str, Any]] = []
        for o in self.out:
            if o["type"] == "PersistElection" and merged and merged[-1]["type"] == "PersistElection":
                merged[-1] = o
            else:
                merged.append(o)
        self.out[:] = merged  # in place: a subclass may return self.out (voters)
        return self.out

    def on_Crash(self, inp: dict[str, Any]) -> None:
        self._reset_role_state()
        self.role, self.high_watermark = "down", None

    def on_Restart(self, inp: dict[str, Any]) -> None:
        pass  # already running

    def on_restart(self) -> None:
        """Resume from the quorum-state file and the log (``QuorumState.initialize``)."""
        epoch, voted_for, leader = self.election()
        self.high_watermark = None
        if epoch < self.last_epoch:
            self.become_unattached(self.last_epoch)
            self._written = self.election()
        elif leader == self.id:
            self.role = "resigned"
            for v in self.others():
                self.send("EndQuorumEpochRequest", v, epoch=self.epoch, preferred=[])
        elif voted_for == self.id:
            self.role, self.granted = "candidate", {self.id}
            self.request_votes(self.epoch, pre_vote=False)
        elif leader is not None and leader not in self.voters:
            # the leader's endpoint is in the voter set only: unattached, the leader (and vote) kept
            self.role = "voted" if voted_for is not None else "unattached"
        elif leader is not None:
            self.role = "follower"
        elif voted_for is not None:
            self.role = "voted"
        else:
            self.role = "unattached"
        self.initialize()

    def initialize(self) -> None:
        """``KafkaRaftClient.initialize()``, at the first start and every restart: a lone voter
        does not wait for a timer. A restarted candidate wins its own vote; else it stands."""
        if not self.is_voter or self.others() or self.role in ("leader", "down"):
            return
        if self.role == "candidate":
            self.become_leader()
        else:
            self.start_election()

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        up_to_date = self.log_is_up_to_date(req["last_epoch"], req["end_offset"])
        if req.get("pre_vote"):
            self.on_pre_vote_request(req)
            return
        if self.refuse_vote(req, pre_vote=False) or self.refuse_non_voter(req):
            return
        if req["epoch"] > self.epoch:
            self.become_unattached(req["epoch"])
        restarts = self.role == "prospective" and self.pre_vote and self.voted_for is None and self.leader is None
        asked = sorted((self.granted | self.rejected) - {self.id})
        granted = self.grant_vote(req, up_to_date)
        self.persist()
        self.answer_vote(req, granted, pre_vote=False, error=NONE)
        if granted and restarts:
            # RAFT-KIP996-PROSPECTIVE-VOTES (prospectiveAddVotedState: a new ProspectiveState):
            # the pre-vote round starts again, asking again the voters whose answers it forgot
            self.granted, self.rejected = {self.id}, set()
            for v in asked:
                self.send("VoteRequest", v, epoch=self.epoch, last_epoch=self.last_epoch,
                          end_offset=self.end_offset, pre_vote=True)

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        """Kafka 4.0+ handleVoteRequest(preVote=true): fenced below our epoch; a higher epoch
        moves us there first; then canGrantVote of the state we are in. No vote is cast."""
        if self.refuse_vote(req, pre_vote=True):
            return
        if req["epoch"] > self.epoch:
            self.become_unattached(req["epoch"])
            self.persist()
        up_to_date = self.log_is_up_to_date(req["last_epoch"], req["end_offset"])
        if self.role == "follower":
            allowed = not self.has_fetched
        else:
            allowed = self.role in ("unattached", "voted", "prospective", "candidate", "resigned")
        granted = self.may_vote(req["src"]) and up_to_date and allowed
        self.answer_vote(req, granted, pre_vote=True, error=NONE)

    def refuse_vote(self, req: dict[str, Any], pre_vote: bool) -> bool:
        """Answer a malformed (before any epoch check) or stale-epoch (pre-)vote request with its
        error; True when it did. A candidate's log ends in an epoch below the one it stands in (it
        bumped its epoch); a prospective's may end in the epoch it asks in (it has not)."""
        log_too_new = req["last_epoch"] > req["epoch"] if pre_vote else req["last_epoch"] >= req["epoch"]
        if req["end_offset"] < 0 or req["last_epoch"] < 0 or log_too_new:
            error = "INVALID_REQUEST"
        elif req["epoch"] < self.epoch:
            error = FENCED
        else:
            return False
        self.answer_vote(req, False, pre_vote=pre_vote, error=error)
        return True

    def answer_vote(self, req: dict[str, Any], granted: bool, *, pre_vote: bool, error: str) -> None:
        self.send("VoteResponse", req["src"], epoch=self.epoch, granted=granted, leader=self.leader,
                  pre_vote=pre_vote, error=error)

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if not (self.may_vote(req["src"]) and up_to_date):
            return False
        if self.role == "unattached" and self.leader is None:
            self.become_voted(req["epoch"], req["src"])
            return True
        if self.role == "voted":
            return bool(self.voted_for == req["src"])
        if self.role == "prospective" and self.pre_vote:
            # prospectiveAddVotedState: the file gets the vote, the role stays prospective
            if self.voted_for is None and self.leader is None:
                self.voted_for = req["src"]
                assert self.prior is not None
                self.prior = (self.prior[0], req["src"], self.prior[2])
                return True
            return bool(self.voted_for == req["src"])
        return False

    def refuse_epoch_request(self, req: dict[str, Any]) -> bool:
        """A Begin/EndQuorumEpoch request this replica answers with an error: below its epoch
        (FENCED), else one a KIP-595 replica refuses from a non-voter; True when it did."""
        if req["epoch"] < self.epoch:
            self.send(req["type"].replace("Request", "Response"), req["src"], epoch=self.epoch, leader=self.leader,
                      error=FENCED)
            return True
        return self.refuse_non_voter(req)

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.refuse_epoch_request(req):
            return
        if req["src"] != self.id and (req["epoch"] > self.epoch or self.leader is None or self.leader_unreachable()):
            self.become_follower(req["epoch"], req["src"])
        self.persist()
        self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)

    def on_EndQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if self.refuse_epoch_request(req):
            return
        self.observe_epoch(req["epoch"], req["src"])
        if (req["epoch"] == self.epoch and req["src"] != self.id and req["src"] in self.voters
                and self.role in _LEADERLESS
                and (self.leader is None or self.leader_unreachable())):
            self.become_follower(req["epoch"], req["src"])  # a replica without a leader follows the sender
        self.persist()
        self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)

    def fetch_error(self, req: dict[str, Any], error: str) -> None:
        self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.leader, error=error,
                  offset=req["fetch_offset"], entries=[], high_watermark=None, diverging=None)

    def on_FetchRequest(self, req: dict[str, Any]) -> None:
        if req["fetch_offset"] < 0 or req["last_fetched_epoch"] < 0 or req["last_fetched_epoch"] > req["epoch"]:
            self.fetch_error(req, "INVALID_REQUEST")  # malformed, before any epoch check
            return
        if req["epoch"] < self.epoch:
            return self.fetch_error(req, FENCED)
        if req["epoch"] > self.epoch:
            return self.fetch_error(req, UNKNOWN_EPOCH)
        if self.role != "leader":
            return self.fetch_error(req, NOT_LEADER)
        offset, last_epoch = req["fetch_offset"], req["last_fetched_epoch"]
        if self.snapshot_needed(offset, last_epoch):
            # KIP-630: the records are in a snapshot only; name the latest, send no records
            self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                      entries=[], high_watermark=self.high_watermark, diverging=None,
                      snapshot_id=list(self.snapshots[-1]))
            return None
        found, end = self.end_offset_for_epoch(last_epoch)
        valid = (offset == 0 and last_epoch == 0) or (found == last_epoch and end >= offset
                                                       and offset <= self.end_offset)
        if not valid:
            self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                      entries=[], high_watermark=self.high_watermark, diverging=[found, end])
            return None
        if req["src"] >= 0:  # replica id -1 (a consumer) is no replica's position
            self.on_valid_fetch(req["src"], offset)
        self.send("FetchResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE, offset=offset,
                  entries=[dict(e) for e in self.log[offset:]], high_watermark=self.high_watermark, diverging=None)
        return None

    def snapshot_needed(self, offset: int, last_epoch: int) -> bool:
        """Kafka's ``validateOffsetAndEpoch`` of kind SNAPSHOT (a log with snapshots only)."""
        if not self.snapshots or (self.log_start == 0 and offset == 0):
            return False
        earliest = self.snapshots[0][1]
        return offset < self.log_start or (offset == self.log_start and last_epoch != earliest) or last_epoch < earliest

    def on_TakeSnapshot(self, inp: dict[str, Any]) -> None:
        """``createSnapshot``: committed records only, not below the log start, a new latest."""
        end, hw = inp["end_offset"], self.high_watermark
        if self.role == "down" or hw is None or not (max(1, self.log_start) <= end <= min(hw, self.end_offset)):
            return
        if self.snapshots and end <= self.snapshots[-1][0]:
            return
        self.snapshots.append((end, self.log[end - 1]["epoch"]))

    def on_CleanLog(self, inp: dict[str, Any]) -> None:
        """``deleteBeforeSnapshot(latestSnapshotId)``: up to the latest snapshot, at most the HW."""
        if not self.snapshots or self.high_watermark is None:
            return
        end = self.snapshots[-1][0]
        if self.log_start < end <= self.high_watermark:
            self.snapshots = [self.snapshots[-1]]
            self.log_start = end

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        """The leader learns a replica's end offset; a majority fetching resets check-quorum."""
        self.end_offsets[replica] = offset
        if replica in self.voters:
            self.acked.add(replica)  # a fetch acknowledges the leader (ReplicaState.updateFollowerState)
            self.count_for_check_quorum(replica)
        self.update_high_watermark()

    def count_for_check_quorum(self, voter: int) -> None:
        """Kafka's ``updateCheckQuorumForFollowingVoter``: once the voters heard from (and the
        leader) are a majority, the check-quorum timer is reset, which renews the period."""
        self.fetched.add(voter)
        if self.majority(self.fetched | {self.id}):
            self.fetched, self.renewed = set(), self.check_quorum_period

    # ---- leader-only requests (RAFT-RULE-LEADER-ONLY): answered, nothing changes ----

    def leader_only_error(self, epoch: int) -> str | None:
        """Kafka's ``validateLeaderOnlyRequest``: the request's leader epoch against ours."""
        if epoch < self.epoch:
            return FENCED
        if epoch > self.epoch:
            return UNKNOWN_EPOCH
        return None if self.role == "leader" else NOT_LEADER

    def on_FetchSnapshotRequest(self, req: dict[str, Any]) -> None:
        """RAFT-RULE-FETCH-SNAPSHOT: exactly one topic of one partition, ours ("raft", 0); no
        snapshot is ever held, so the leader of the request's epoch has not got the one asked for."""
        topics = req["topics"]
        if len(topics) != 1 or len(topics[0][1]) != 1:
            self.send("FetchSnapshotResponse", req["src"], epoch=None, leader=None, error="INVALID_REQUEST")
        elif topics[0][0] != "raft" or topics[0][1][0] != 0:
            self.send("FetchSnapshotResponse", req["src"], epoch=None, leader=None, error="UNKNOWN_TOPIC_OR_PARTITION")
        else:
            error = self.leader_only_error(req["epoch"])
            wanted = tuple(req.get("snapshot_id") or ())
            if error is None and wanted in self.snapshots and req.get("position", 0) == 0:
                # KIP-630: the whole snapshot in one answer
                self.send("FetchSnapshotResponse", req["src"], epoch=self.epoch, leader=self.id, error=NONE,
                          snapshot_id=list(wanted), entries=[dict(e) for e in self.log[:wanted[0]]])
                return
            self.send("FetchSnapshotResponse", req["src"], epoch=self.epoch, leader=self.leader,
                      error=error or "SNAPSHOT_NOT_FOUND")

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        """RAFT-RULE-DESCRIBE-QUORUM: the leader's id, epoch, HW and voters' log end offsets."""
        if self.role != "leader":
            self.send("DescribeQuorumResponse", req["src"], error=NOT_LEADER, leader=None, epoch=None,
                      high_watermark=None, voters=[])
            return
        voters = [[v, self.end_offset if v == self.id else self.end_offsets.get(v, -1)] for v in self.voters]
        self.send("DescribeQuorumResponse", req["src"], error=NONE, leader=self.id, epoch=self.epoch,
                  high_watermark=self.high_watermark, voters=voters)

    def on_FetchSnapshotResponse(self, resp: dict[str, Any]) -> None:
        """KIP-630: the snapshot a follower asked its leader for, taken whole; the log truncated to
        it (``truncateToLatestSnapshot``), the HW at least its end."""
        epoch = resp.get("epoch")
        if epoch is not None and epoch > self.epoch:
            self.observe_epoch(epoch, resp.get("leader"))
            return
        if (self.role != "follower" or self.fetching_snapshot is None or resp["src"] != self.leader
                or epoch != self.epoch):
            return
        if resp.get("error") == "SNAPSHOT_NOT_FOUND":
            self.fetching_snapshot = None
            return
        snapshot = tuple(resp.get("snapshot_id") or ())
        if resp.get("error") != NONE or snapshot != self.fetching_snapshot:
            return
        self.fetching_snapshot = None
        end = snapshot[0]
        entries = [dict(e) for e in resp.get("entries", [])]
        if entries != self.log:
            self.out.append({"type": "TruncateLog", "offset": end})
        self.log = entries
        self.log_start = end
        self.snapshots = [(end, snapshot[1])]
        self.high_watermark = end if self.high_watermark is None else max(self.high_watermark, end)

    def on_DescribeQuorumResponse(self, resp: dict[str, Any]) -> None:
        """Never asked for: ignored."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if resp["epoch"] > self.epoch:
            self.observe_epoch(resp["epoch"], resp.get("leader"))
            return
        is_pre_vote = resp["type"] == "VoteResponse" and resp.get("pre_vote")
        if resp["epoch"] < self.epoch:
            return
        leader = resp.get("leader")
        if leader is not None and leader != self.id and self.role in _LEADERLESS and (
                self.leader is None or self.leader_unreachable()):
            self.become_follower(resp["epoch"], leader)
            if resp["type"] == "FetchResponse":
                self.on_fetch_response(resp)  # discovered the leader: take its records at once
            return
        if is_pre_vote:
            if self.role == "prospective":
                self.on_pre_vote_response(resp)
        elif resp["type"] == "VoteResponse":
            self.on_vote_response(resp)
        elif resp["type"] == "FetchResponse":
            self.on_fetch_response(resp)
        elif resp.get("error") == NONE and resp["src"] in self.voters and (
                (resp["type"] == "BeginQuorumEpochResponse" and self.role == "leader")
                or (resp["type"] == "EndQuorumEpochResponse" and self.role == "resigned")):
            self.acked.add(resp["src"])  # addAcknowledgementFrom / acknowledgeResignation

    on_VoteResponse = on_response
    on_BeginQuorumEpochResponse = on_response
    on_EndQuorumEpochResponse = on_response
    on_FetchResponse = on_response

    @staticmethod
    def is_ballot(resp: dict[str, Any]) -> bool:
        """An answer with an error is no vote, granted or refused (RAFT-RULE-VOTE-ERROR; Kafka's
        ``handleVoteResponse`` records only ``NONE`` answers)."""
        return bool(resp.get("error", NONE) == NONE)

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        if self.role != "candidate" or resp["src"] not in self.voters or not self.is_ballot(resp):
            return
        (self.granted if resp["granted"] else self.rejected).add(resp["src"])
        if resp["granted"] and self.majority(self.granted):
            self.become_leader()
        elif not self.majority(set(self.voters) - self.rejected):
            self.backing_off = True

    def on_pre_vote_response(self, resp: dict[str, Any]) -> None:
        if resp["src"] not in self.voters or not self.is_ballot(resp):
            return
        (self.granted if resp["granted"] else self.rejected).add(resp["src"])
        if self.majority(self.granted):
            self.become_candidate()
        elif not self.majority(set(self.voters) - self.rejected):
            assert self.prior is not None
            self.go_back(self.prior)

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        if self.role != "follower" or resp["src"] != self.leader or resp["error"] != NONE:
            return
        if resp.get("diverging") is not None or resp.get("snapshot_id") is not None \
                or resp["offset"] == self.end_offset:
            self.has_fetched = True
        if resp.get("diverging") is not None:
            self.truncate_to(*resp["diverging"])
            return
        if resp.get("snapshot_id") is not None:
            self.fetching_snapshot = tuple(resp["snapshot_id"])  # fetch that snapshot next
            return
        if resp["offset"] != self.end_offset:
            return  # a reply to an older fetch
        if resp["entries"]:
            self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": resp["entries"]})
            self.log.extend(dict(e) for e in resp["entries"])
        self.advance_high_watermark(resp.get("high_watermark"))

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        local_epoch, local_end = self.end_offset_for_epoch(div_epoch)
        target = min(local_end, div_end) if local_epoch == div_epoch else local_end
        if target < self.end_offset:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})

    def advance_high_watermark(self, leader_hw: int | None) -> None:
        if leader_hw is None:
            return
        hw = min(leader_hw, self.end_offset)
        if self.high_watermark is None or hw > self.high_watermark:
            self.high_watermark = hw

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if not self.is_voter:
            return
        if self.role in ("unattached", "voted"):
            self.start_election()
        elif self.role == "resigned":
            if self.pre_vote:
                # Kafka 4.0+ pollResigned; the unattached state inherits the expired timer
                self.become_unattached(self.epoch + 1)
                self.persist()
                self.start_election()
            else:
                self.become_candidate()
        elif self.role == "candidate" and not self.backing_off:
            if self.pre_vote:
                self.start_election()  # Kafka 4.0+ pollCandidate: straight to prospective
            else:
                self.backing_off = self.timed_out = True
        elif self.role == "prospective":
            assert self.prior is not None
            self.go_back(self.prior)
            if self.role != "follower":
                self.start_election()  # the unattached state inherits the expired timer

    def on_BackoffExpired(self, inp: dict[str, Any]) -> None:
        if self.role == "candidate" and self.backing_off:
            self.start_election()

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "follower" and self.is_voter:
            self.start_election()

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and self.renewed:
            self.renewed = False  # the timer was reset in the period just ended: a new period
        elif self.role == "leader" and not self.majority(self.fetched | {self.id}):
            self.resign()

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        if self.role == "follower" and to == self.leader and self.fetching_snapshot is not None:
            self.send("FetchSnapshotRequest", to, epoch=self.epoch, snapshot_id=list(self.fetching_snapshot),
                      position=0, topics=[["raft", [0]]])
            return
        if (self.role == "follower" and to == self.leader) or (
                self.role in ("unattached", "voted") and not self.is_voter and to in self.voters):
            self.send("FetchRequest", to, epoch=self.epoch, fetch_offset=self.end_offset,
                      last_fetched_epoch=self.last_epoch)

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        """Send the role's request again to a voter that has not answered it (pollLeader's
        nonAcknowledgingVoters, pollResigned's unackedVoters, unrecordedVoters while voting)."""
        to = inp["to"]
        if not self.is_voter or to == self.id or to not in self.voters:
            return
        if self.role == "leader" and to not in self.acked:
            self.send("BeginQuorumEpochRequest", to, epoch=self.epoch)
        elif self.role == "resigned" and to not in self.acked:
            self.send("EndQuorumEpochRequest", to, epoch=self.epoch, preferred=[])
        elif (self.role == "candidate" and not self.backing_off) or self.role == "prospective":
            if to not in self.granted | self.rejected:
                self.send("VoteRequest", to, epoch=self.epoch, last_epoch=self.last_epoch,
                          end_offset=self.end_offset, pre_vote=self.role == "prospective")

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        if self.role != "leader":
            return
        record = _entry(self.epoch, "data", inp.get("payload"))
        self.out.append({"type": "AppendLog", "offset": self.end_offset, "entries": [record]})
        self.log.append(record)
        self.update_high_watermark()

    # ------------------------------------------------------------------ observation

    def observation(self) -> dict[str, JSON]:
        return {
            "role": self.role,
            "epoch": self.epoch,
            "leader": self.leader,
            "voted_for": self.voted_for,
            "log": [[e["epoch"], e["kind"]] for e in self.log[self.log_start:]],
            "high_watermark": self.high_watermark,
        } | ({"log_start": self.log_start, "snapshots": [list(x) for x in self.snapshots]} if self.snapshots else {})


class RaftInstance:
    """The adapter: a replica behind the node-level interface, with Kafka's timers (a
    ``TimedInstance``): the timer a role runs is armed when the replica enters the role, with
    the replica's draw for it (RAFT-LIVE-TIMED)."""

    def __init__(self, replica: RaftReplica) -> None:
        self.replica = replica
        self.now = 0
        self.deadline: dict[str, int] = {}
        self.election_at: int | None = None
        self._armed: tuple[Any, ...] | None = None
        self._arm(None)

    def step(self, inp: JSON) -> StepResult:
        outputs = self.replica.step(inp)
        self._arm(inp)
        return StepResult(outputs, self.replica.observation())

    def _arm(self, inp: JSON) -> None:
        r = self.replica
        kind = r.timer_kind()
        signature = (kind, r.role, r.epoch, r.backing_off, r.leader)
        kept = signature == self._armed
        if kept and isinstance(inp, dict) and kind == "FetchTimeout" and inp.get("type") == "FetchResponse" \
                and inp.get("error") == NONE:
            kept = False  # a successful fetch restarts the fetch timer
        if kept and isinstance(inp, dict) and kind == "CheckQuorumTimeout" and inp.get("type") == "FetchRequest":
            kept = False  # a follower fetched: the leader's check-quorum timer restarts
        if kept and isinstance(inp, dict) and inp.get("type") == kind:
            kept = False  # the timer expired and the role stays (a prospective starting again): a new one
        if kept:
            return
        before = self._armed[1] if self._armed is not None else None
        self._armed = signature
        if r.role not in ("candidate", "prospective"):
            r.retries = 0
        if kind == "ElectionTimeout":
            # QuorumState.transitionToUnattached keeps the election timer of an unattached,
            # voted (3.9+: unattached with a voted key), candidate or prospective replica that
            # moves to a higher epoch (RAFT-RULE-TIMER-KEPT): a candidate that cannot win must not
            # keep the others from timing out by raising the epoch.
            if not (r.role == "unattached" and before in _TIMER_KEPT_FROM and self.election_at is not None):
                self.election_at = self.now + r.timer_ms(kind)
            self.deadline = {kind: self.election_at}
        elif kind == "BackoffExpired":
            r.retries += 1
            self.deadline = {kind: self.now + r.timer_ms(kind)}  # the election timer keeps running
        else:
            self.election_at = None
            self.deadline = {} if kind is None else {kind: self.now + r.timer_ms(kind)}

    def timers(self) -> dict[str, int]:
        return {kind: max(0, at - self.now) for kind, at in self.deadline.items()}

    def elapse(self, ms: int) -> None:
        self.now += ms

    def close(self) -> None:
        pass


class RaftTarget(Target):
    """A raft target: one :class:`RaftReplica` (or subclass) per node."""

    protocol = "raft"
    # It reports its listener's callbacks (RAFT-OBS-LISTENER), so the run holds it to them, and
    # takes KIP-630's snapshots (RAFT-DRIVE-SNAPSHOT), and keeps the check-quorum period
    # (RAFT-RULE-CHECK-QUORUM-PERIOD).
    model_config: Mapping[str, JSON] = MappingProxyType({"listener": True, "snapshots": True,
                                                         "check_quorum_period": True})

    def __init__(self, name: str = "reference", replica_class: type[RaftReplica] = RaftReplica) -> None:
        self.name = name
        self.replica_class = replica_class

    def start(self, node: int, config: dict[str, JSON]) -> RaftInstance:
        kip853 = config.get("kip853")
        replica = self.replica_class(node, list(config["voters"]), bool(config.get("pre_vote", False)),
                                     None if kip853 is None else bool(kip853))
        replica.listening = bool(config.get("listener"))
        replica.check_quorum_period = bool(config.get("check_quorum_period"))
        replica.initialize()  # what it would write or send at start: nothing the harness compares
        replica.notify_listener()
        return RaftInstance(replica)

    def close(self) -> None:
        pass
