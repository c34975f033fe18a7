"""A KRaft replica (KIP-595, KIP-996 pre-vote) written from scratch as a ``python:`` target, with
planted bugs.

Written from spec/raft.md, spec/adapter-protocol.md (raft) and docs/adapter-guide.md only: no
kspec model code, no reference replica, the drivers unread (session 7, issue #19). One class,
:class:`Replica`, holds the whole protocol; each planted bug is a name in ``Replica.bugs``
switched on by a subclass, so a bug is one ``if`` at the place a real implementer slips.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError

NONE = "NONE"
FENCED = "FENCED_LEADER_EPOCH"
UNKNOWN_EPOCH = "UNKNOWN_LEADER_EPOCH"
NOT_LEADER = "NOT_LEADER_OR_FOLLOWER"
INVALID = "INVALID_REQUEST"
INCONSISTENT = "INCONSISTENT_VOTER_SET"

Election = tuple[int, int | None, int | None]  # (epoch, voted_for, leader): the quorum-state file


class Replica:
    """One KRaft replica: role and its fields, the log, the HW, and the listener above it."""

    bugs: frozenset[str] = frozenset()

    def __init__(self, rid: int, voters: list[int], pre_vote: bool, kip853: bool, listener: bool) -> None:
        self.id = rid
        self.listener = listener
        self.voters = sorted(voters)
        self.pre_vote = pre_vote
        self.kip853 = kip853 or pre_vote
        self.log: list[tuple[int, str, list[int]]] = []
        self.role = "unattached"
        self.epoch = 0
        self.voted_for: int | None = None
        self.leader: int | None = None
        self.hw: int | None = None
        self.file: Election = (0, None, None)  # what the quorum-state file holds while down
        self._clear_role_fields()
        self.listener_next = 0
        self.told: tuple[int, int | None] = (0, None)
        self._kept_listener: tuple[int, tuple[int, int | None]] = (0, (0, None))
        self.timer_expired = False
        self.out: list[dict[str, Any]] = []
        if self.voters == [self.id]:
            self.lone_voter_elects()
            if self.listener:
                self.tell_listener()
            self.out = []  # what start writes (and tells its listener) is not an output

    # ---- small helpers ----

    def bug(self, name: str) -> bool:
        return name in self.bugs

    def _clear_role_fields(self) -> None:
        self.granted: set[int] = set()
        self.rejected: set[int] = set()
        self.backing_off = False
        self.timed_out = False
        self.prior: Election = (self.epoch, None, None)
        self.epoch_start = 0
        self.end_offsets: dict[int, int] = {}
        self.fetched: set[int] = set()
        self.fetched_from_leader = False
        self.acked: set[int] = set()  # voters that acknowledged the epoch (or the resignation)

    @property
    def is_voter(self) -> bool:
        return self.id in self.voters

    def others(self) -> list[int]:
        return [v for v in self.voters if v != self.id]

    def majority(self, ids: set[int]) -> bool:
        need = len(self.voters) // 2 + 1
        if self.bug("majority-even-off-by-one"):
            need = (len(self.voters) + 1) // 2
        return len(ids & set(self.voters)) >= need

    @property
    def end(self) -> int:
        return len(self.log)

    @property
    def last_epoch(self) -> int:
        return self.log[-1][0] if self.log else 0

    def end_for_epoch(self, epoch: int, strict: bool = False) -> tuple[int, int]:
        """RAFT-LOG-END-FOR-EPOCH: the largest epoch <= ``epoch`` in the log and its end."""
        found, end = 0, 0
        for offset, (e, _, _) in enumerate(self.log):
            if e < epoch or (e == epoch and not strict):
                found, end = e, offset + 1
        return (found, end) if found else (0, 0)

    def up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        return (last_epoch, end_offset) >= (self.last_epoch, self.end)

    def election(self) -> Election:
        """RAFT-STATE-PERSISTED, from the role."""
        if self.role == "down":
            return self.file
        if self.role == "prospective":
            return self.prior
        if self.role in ("leader", "resigned"):
            return (self.epoch, None, self.id)
        if self.role == "candidate":
            return (self.epoch, self.id, None)
        if self.role == "follower":
            return (self.epoch, self.voted_for if self.pre_vote else None, self.leader)
        return (self.epoch, self.voted_for if self.role == "voted" else None, None)

    def persist_if_changed(self, before: Election) -> None:
        now = self.election()
        if now == before:
            return
        write = {"type": "PersistElection", "epoch": now[0], "voted_for": now[1], "leader": now[2]}
        if self.out and self.out[-1]["type"] == "PersistElection":
            self.out[-1] = write  # RAFT-OBS-PERSIST: adjacent writes are one, the last
        else:
            self.out.append(write)

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        self.out.append({"type": kind, "src": self.id, "dst": dst, **fields})

    def append(self, entries: list[tuple[int, str, list[int]]]) -> None:
        if not entries:
            return
        self.out.append({"type": "AppendLog", "offset": self.end,
                         "entries": [_entry(e) for e in entries]})
        self.log.extend(entries)

    # ---- transitions (each persists before what follows it is sent) ----

    def to_unattached(self, epoch: int) -> None:
        before = self.election()
        keep_vote = epoch == self.epoch and self.role == "prospective" and self.prior[1] is not None
        vote = self.prior[1] if keep_vote else None
        self.role, self.epoch, self.leader = ("voted" if vote is not None else "unattached"), epoch, None
        self.voted_for = vote
        self._clear_role_fields()
        self.persist_if_changed(before)

    def to_follower(self, epoch: int, leader: int) -> None:
        before = self.election()
        vote = None
        if self.pre_vote and epoch == self.epoch:
            vote = self.prior[1] if self.role == "prospective" else (
                self.voted_for if self.role == "voted" else (self.id if self.role == "candidate" else None))
        if self.pre_vote and self.role == "follower" and epoch == self.epoch:
            vote = self.voted_for
        if self.bug("follower-forgets-vote-kip996"):
            vote = None  # KIP-595's rule: a known leader clears the vote
        self.role, self.epoch, self.leader, self.voted_for = "follower", epoch, leader, vote
        self._clear_role_fields()
        self.persist_if_changed(before)

    def to_voted(self, candidate: int) -> None:
        before = self.election()
        if self.role == "prospective":
            # KIP-996: stays prospective. A vote it had already given (asked again) changes
            # nothing: the leader it knew stays in the persisted state (session 10: the
            # well-formed probes found this port rewriting it without the leader).
            if self.prior[1] != candidate:
                self.prior = (self.epoch, candidate, None)
        else:
            self.role, self.voted_for, self.leader = "voted", candidate, None
        if self.bug("vote-sent-before-persist"):
            return  # the caller persists after it answers
        self.persist_if_changed(before)

    def start_election(self) -> None:
        """RAFT-RULE-ELECTION: prospective under kip-996 (a lone voter skips it), else candidate."""
        if not self.is_voter:
            return
        if self.pre_vote and self.voters != [self.id]:
            self.to_prospective()
        else:
            self.to_candidate()

    def to_prospective(self) -> None:
        prior = self.election()
        self.role = "prospective"
        self._clear_role_fields()
        self.prior = prior
        self.voted_for, self.leader = prior[1], prior[2]
        self.granted = {self.id}
        for v in self.others():
            self.send("VoteRequest", v, epoch=self.epoch, last_epoch=self.last_epoch, end_offset=self.end,
                      pre_vote=True)

    def to_candidate(self) -> None:
        before = self.election()
        self.role, self.epoch, self.voted_for, self.leader = "candidate", self.epoch + 1, self.id, None
        self._clear_role_fields()
        self.granted = {self.id}
        self.announce_candidacy(before)

    def announce_candidacy(self, before: Election) -> None:
        if not self.bug("candidate-sends-before-persist"):
            self.persist_if_changed(before)
        for v in self.others():
            self.send("VoteRequest", v, epoch=self.epoch, last_epoch=self.last_epoch, end_offset=self.end,
                      pre_vote=False)
        if self.bug("candidate-sends-before-persist"):
            self.persist_if_changed(before)
        if self.majority(self.granted):
            self.to_leader()

    def to_leader(self) -> None:
        before = self.election()
        self.role, self.voted_for, self.leader = "leader", None, self.id
        self._clear_role_fields()
        self.epoch_start = self.end
        self.hw = None
        self.persist_if_changed(before)
        self.append([(self.epoch, "leader_change", [])])
        for v in self.others():
            self.send("BeginQuorumEpochRequest", v, epoch=self.epoch)
        self.update_hw()

    def lone_voter_elects(self) -> None:
        """RAFT-RULE-LONE-VOTER: a restarted candidate wins at once, any other role stands."""
        if self.role == "candidate":
            self.to_leader()
        elif self.role != "leader":
            self.to_candidate()

    # ---- the step ----

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self.out = []
        kind = inp["type"]
        if self.role == "down":
            if kind == "Restart":
                self.restart()
        elif kind == "Crash":
            self.file = self.election()
            self.role, self.hw = "down", None
        elif kind == "Restart":
            pass
        elif kind in ("FetchSnapshotRequest", "DescribeQuorumRequest"):
            self.on_leader_only(inp)
        elif kind in ("FetchSnapshotResponse", "DescribeQuorumResponse"):
            pass
        elif kind.endswith("Request"):
            self.on_request(inp)
        elif kind.endswith("Response"):
            self.on_response(inp)
        else:
            getattr(self, "on_" + kind)(inp)
        if self.role != "down" and self.listener:
            self.tell_listener()
        return self.out

    def restart(self) -> None:
        """RAFT-RULE-RESTART from the quorum-state file and the log."""
        e, v, ldr = self.file
        self._clear_role_fields()
        self.hw = None
        self.epoch, self.voted_for, self.leader = e, None, None
        self.listener_next, self.told = 0, (0, None)
        if self.bug("listener-survives-restart"):
            self.listener_next, self.told = self._kept_listener
        if e < self.last_epoch:
            self.role, self.epoch = "unattached", self.last_epoch
        elif ldr == self.id:
            self.role, self.leader = "resigned", self.id
            for o in self.others():
                self.send("EndQuorumEpochRequest", o, epoch=e, preferred=[])
        elif v == self.id:
            self.role, self.voted_for = "candidate", self.id
            self.granted = {self.id}
            for o in self.others():
                self.send("VoteRequest", o, epoch=e, last_epoch=self.last_epoch, end_offset=self.end,
                          pre_vote=False)
        elif ldr is not None:
            self.role, self.leader, self.voted_for = "follower", ldr, v
        elif v is not None:
            self.role, self.voted_for = "voted", v
        else:
            self.role = "unattached"
        if self.voters == [self.id] and not (self.bug("lone-voter-stays-resigned") and self.role == "resigned"):
            self.lone_voter_elects()

    # ---- requests ----

    def on_request(self, req: dict[str, Any]) -> None:
        kind, epoch = req["type"], req["epoch"]
        if self.malformed(req):
            return self.refuse(req, INVALID)
        if epoch < self.epoch:
            return self.refuse(req, UNKNOWN_EPOCH if kind == "FetchRequest" and self.bug("stale-fetch-unknown-epoch")
                               else FENCED)
        if kind == "FetchRequest":
            if epoch > self.epoch:
                return self.refuse(req, FENCED if self.bug("stale-fetch-unknown-epoch") else UNKNOWN_EPOCH)
            if self.role != "leader" and not (self.bug("resigned-serves-fetch") and self.role == "resigned"):
                return self.refuse(req, NOT_LEADER)
            return self.on_fetch(req)
        if req["src"] < 0 and not self.bug("sentinel-src-accepted"):
            return self.refuse(req, INVALID)
        if not req.get("pre_vote") and not self.kip853:
            if req["src"] not in self.voters or (not self.is_voter and not self.bug("observer-votes-kip595")):
                return self.refuse(req, INCONSISTENT)
        if epoch > self.epoch:
            leader = req["src"] if kind != "VoteRequest" else None
            self.observe_epoch(epoch, leader)
        if kind == "VoteRequest":
            return self.on_vote(req)
        if kind == "BeginQuorumEpochRequest":
            if self.knows_no_leader() and req["src"] != self.id:
                self.to_follower(epoch, req["src"])
            return self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
        # EndQuorumEpochRequest at an equal epoch
        if self.role in ("unattached", "voted", "candidate") or (self.role == "prospective" and self.knows_no_leader()):
            if req["src"] != self.id:
                self.to_follower(epoch, req["src"])
        self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error=NONE)
        return None

    def knows_no_leader(self) -> bool:
        if self.role in ("leader", "follower"):
            return False
        if self.role == "prospective":
            return self.prior[2] is None
        if self.role == "resigned":
            return True
        return self.leader is None

    def malformed(self, req: dict[str, Any]) -> bool:
        """RAFT-RULE-INVALID-REQUEST, the checks made before any epoch check."""
        if req["type"] == "VoteRequest":
            if req["last_epoch"] < 0 or req["end_offset"] < 0:
                return True
            if req.get("pre_vote"):  # RAFT-KIP996-PRE-VOTE-INVALID: a pre-vote's may equal its epoch
                return req["last_epoch"] > req["epoch"]
            return req["last_epoch"] >= req["epoch"]
        if req["type"] == "FetchRequest":
            return (req["last_fetched_epoch"] > req["epoch"] or req["fetch_offset"] < 0
                    or req["last_fetched_epoch"] < 0)
        return False

    def refuse(self, req: dict[str, Any], error: str) -> None:
        kind, src = req["type"], req["src"]
        if kind == "VoteRequest":
            self.send("VoteResponse", src, epoch=self.epoch, granted=False, leader=self.leader,
                      pre_vote=bool(req.get("pre_vote")), error=error)
        elif kind == "FetchRequest":
            self.send("FetchResponse", src, epoch=self.epoch, leader=self.leader, error=error,
                      offset=req["fetch_offset"], entries=[], high_watermark=None, diverging=None)
        else:
            self.send(kind.replace("Request", "Response"), src, epoch=self.epoch, leader=self.leader, error=error)

    def on_leader_only(self, req: dict[str, Any]) -> None:
        """FetchSnapshot and DescribeQuorum (RAFT-RULE-LEADER-ONLY): answered, nothing changes."""
        src = req["src"]
        if req["type"] == "DescribeQuorumRequest":
            if self.role != "leader":
                self.send("DescribeQuorumResponse", src, error="NOT_LEADER_OR_FOLLOWER", leader=None, epoch=None,
                          high_watermark=None, voters=[])
            else:
                voters = [[v, self.end if v == self.id else self.end_offsets.get(v, -1)] for v in self.voters]
                self.send("DescribeQuorumResponse", src, error=NONE, leader=self.id, epoch=self.epoch,
                          high_watermark=self.hw, voters=voters)
            return
        topics = req["topics"]
        if len(topics) != 1 or len(topics[0][1]) != 1:
            self.send("FetchSnapshotResponse", src, epoch=None, leader=None, error="INVALID_REQUEST")
            return
        if topics[0][0] != "raft" or topics[0][1][0] != 0:
            self.send("FetchSnapshotResponse", src, epoch=None, leader=None, error="UNKNOWN_TOPIC_OR_PARTITION")
            return
        epoch = req["epoch"]
        error = ("FENCED_LEADER_EPOCH" if epoch < self.epoch else "UNKNOWN_LEADER_EPOCH" if epoch > self.epoch
                 else "NOT_LEADER_OR_FOLLOWER" if self.role != "leader" else "SNAPSHOT_NOT_FOUND")
        self.send("FetchSnapshotResponse", src, epoch=self.epoch, leader=self.leader, error=error)

    def observe_epoch(self, epoch: int, leader: int | None) -> None:
        """RAFT-RULE-HIGHER-EPOCH (RAFT-RULE-TIMER-KEPT: a timed-out kip-595 candidate stands again)."""
        timer_expired = self.role == "candidate" and self.timed_out and not self.pre_vote
        if leader is not None and leader != self.id:
            self.to_follower(epoch, leader)
        else:
            self.to_unattached(epoch)
            self.timer_expired = timer_expired

    def on_vote(self, req: dict[str, Any]) -> None:
        src, pre = req["src"], bool(req.get("pre_vote"))
        ok = self.up_to_date(req["last_epoch"], req["end_offset"])
        granted = False
        if pre:  # RAFT-KIP996-PRE-VOTE-GRANT
            granted = ok and self.role != "leader" and not (self.role == "follower" and self.fetched_from_leader)
        elif ok and (self.kip853 or (src in self.voters and self.is_voter)):
            if self.role == "unattached" and self.leader is None:
                granted = True
            elif self.role == "voted":
                granted = self.voted_for == src
            elif self.role == "prospective":
                granted = self.prior[1] == src or (self.prior[1] is None and self.prior[2] is None)
        before = self.election()
        # RAFT-KIP996-PROSPECTIVE-VOTES: a prospective that grants starts its pre-vote round again
        forgotten = sorted((self.granted | self.rejected) - {self.id}) \
            if granted and not pre and self.role == "prospective" and self.prior[1] is None else []
        if granted and not pre:
            self.to_voted(src)
        self.send("VoteResponse", src, epoch=self.epoch, granted=granted, leader=self.leader, pre_vote=pre,
                  error=NONE)
        if forgotten:
            self.granted, self.rejected = {self.id}, set()
            for v in forgotten:
                self.send("VoteRequest", v, epoch=self.epoch, last_epoch=self.last_epoch, end_offset=self.end,
                          pre_vote=True)
        if self.bug("vote-sent-before-persist"):
            self.persist_if_changed(before)
        self.maybe_stand_again(granted)

    def maybe_stand_again(self, granted: bool) -> None:
        if getattr(self, "timer_expired", False):
            self.timer_expired = False
            if not granted and self.role == "unattached":
                self.start_election()

    def on_fetch(self, req: dict[str, Any]) -> None:
        """RAFT-RULE-FETCH at the leader (or, with the bug, a resigned one)."""
        src, offset, last = req["src"], req["fetch_offset"], req["last_fetched_epoch"]
        found, end = self.end_for_epoch(last)
        valid = (offset == 0 and last == 0) or (found == last and offset <= end)
        if not valid:
            self.send("FetchResponse", src, epoch=self.epoch, leader=self.leader, error=NONE, offset=offset,
                      entries=[], high_watermark=self.hw, diverging=[found, end])
            return
        self.end_offsets[src] = offset
        if src in self.voters:
            self.acked.add(src)  # a valid fetch acknowledges the leader too (RAFT-RULE-RESEND)
        if src in self.voters or self.bug("check-quorum-counts-any-fetcher"):
            self.fetched.add(src)
            counted = self.fetched | {self.id}
            if self.bug("check-quorum-counts-any-fetcher"):
                if len(counted) >= len(self.voters) // 2 + 1:
                    self.fetched = set()
            elif self.majority(counted):
                self.fetched = set()
        self.update_hw()
        self.send("FetchResponse", src, epoch=self.epoch, leader=self.leader, error=NONE, offset=offset,
                  entries=[_entry(e) for e in self.log[offset:]], high_watermark=self.hw, diverging=None)

    def update_hw(self) -> None:
        """RAFT-RULE-HW-MAJORITY, RAFT-RULE-HW-LEADER-EPOCH."""
        if self.role != "leader":
            return
        offsets = sorted((self.end if v == self.id else self.end_offsets.get(v, 0) for v in self.voters),
                         reverse=True)
        need = len(self.voters) // 2 + 1
        if self.bug("majority-even-off-by-one"):
            need = (len(self.voters) + 1) // 2
        m = offsets[need - 1]
        if m > self.epoch_start and (self.hw is None or m > self.hw):
            self.hw = m

    # ---- responses ----

    def on_response(self, resp: dict[str, Any]) -> None:
        """RAFT-RULE-RESPONSE."""
        epoch, leader = resp["epoch"], resp.get("leader")
        if epoch > self.epoch:
            self.observe_epoch(epoch, leader)
            self.maybe_stand_again(False)
            return
        if epoch < self.epoch:
            return
        if leader is not None and leader != self.id and self.role in ("unattached", "voted", "candidate",
                                                                     "prospective") and self.knows_no_leader():
            self.to_follower(epoch, leader)
            if resp["type"] != "FetchResponse" or resp["error"] != NONE:
                return
        acks = (("BeginQuorumEpochResponse", "leader"), ("EndQuorumEpochResponse", "resigned"))
        if (resp["type"], self.role) in acks and resp["error"] == NONE and resp["src"] in self.voters:
            self.acked.add(resp["src"])
        if resp["type"] == "VoteResponse":
            self.on_vote_response(resp)
        elif resp["type"] == "FetchResponse":
            self.on_fetch_response(resp)
        elif resp["error"] == NONE and (
                (resp["type"] == "BeginQuorumEpochResponse" and self.role == "leader")
                or (resp["type"] == "EndQuorumEpochResponse" and self.role == "resigned")):
            self.acked.add(resp["src"])

    def on_vote_response(self, resp: dict[str, Any]) -> None:
        src, pre = resp["src"], bool(resp.get("pre_vote"))
        if resp["error"] != NONE or src not in self.voters:
            return
        if self.role == "candidate" and not pre:
            (self.granted if resp["granted"] else self.rejected).add(src)
            if resp["granted"] and self.majority(self.granted):
                return self.to_leader()
            if not self.majority(set(self.voters) - self.rejected):
                self.backing_off = True
        elif self.role == "prospective" and pre:
            (self.granted if resp["granted"] else self.rejected).add(src)
            if resp["granted"] and self.majority(self.granted):
                return self.to_candidate()
            if not self.majority(set(self.voters) - self.rejected):
                self.lose_pre_vote()
        return None

    def lose_pre_vote(self) -> None:
        """RAFT-KIP996-LOSS: follow the leader it knew, else unattached with the vote it had."""
        e, _, ldr = self.prior
        if ldr is not None:
            self.to_follower(e, ldr)
        else:
            if self.bug("prospective-loss-forgets-vote"):
                self.prior = (e, None, None)
            self.to_unattached(e)

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        """RAFT-RULE-FOLLOWER-FETCH."""
        if self.role != "follower" or resp["src"] != self.leader or resp["error"] != NONE:
            return
        if resp["diverging"] is not None:
            self.fetched_from_leader = True
            self.truncate(*resp["diverging"])
            if self.bug("diverging-takes-hw") and resp["high_watermark"] is not None:
                self.hw = resp["high_watermark"]
            return
        if resp["offset"] != self.end:
            return
        self.fetched_from_leader = True
        self.append([(e["epoch"], e["kind"], list(e["payload"])) for e in resp["entries"]])
        h = resp["high_watermark"]
        if h is not None:
            h = min(h, self.end)
            if self.hw is None or h > self.hw:
                self.hw = h

    def truncate(self, d: int, end_d: int) -> None:
        """RAFT-RULE-TRUNCATE."""
        found, end_l = self.end_for_epoch(d, strict=self.bug("truncate-epoch-strict"))
        target = min(end_l, end_d) if found == d else end_l
        if target < self.end:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})

    # ---- timers and client ----

    def on_ElectionTimeout(self, _: dict[str, Any]) -> None:
        if not self.is_voter:
            return
        if self.role in ("unattached", "voted"):
            self.start_election()
        elif self.role == "candidate":
            if self.pre_vote:
                self.to_prospective()
            elif not self.backing_off:
                self.backing_off = self.timed_out = True
        elif self.role == "prospective":
            e, _, ldr = self.prior
            if ldr is not None:
                self.to_follower(e, ldr)
            else:  # RAFT-KIP996-TIMEOUT: unattached with the expired timer, so at once prospective again
                self.to_unattached(e)
                self.to_prospective()
        elif self.role == "resigned":
            if self.pre_vote:  # RAFT-KIP996-RESIGNED
                self.to_unattached(self.epoch + 1)
                self.to_prospective()
            else:
                self.to_candidate()

    def on_FetchTimeout(self, _: dict[str, Any]) -> None:
        if self.role == "follower" and self.is_voter:
            self.start_election()

    def on_BackoffExpired(self, _: dict[str, Any]) -> None:
        if self.role == "candidate" and self.backing_off:
            self.start_election()

    def on_CheckQuorumTimeout(self, _: dict[str, Any]) -> None:
        if self.role != "leader" or self.majority(self.fetched | {self.id}):
            return
        self.role, self.hw, self.acked = "resigned", None, set()
        for v in self.others():
            self.send("EndQuorumEpochRequest", v, epoch=self.epoch, preferred=[])
        if self.bug("resigned-told-no-leader") and self.listener:
            self.out.append({"type": "HandleLeaderChange", "epoch": self.epoch, "leader": None})

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        """RAFT-RULE-RESEND: the role's request again to a voter that has not answered it."""
        to = inp["to"]
        if not self.is_voter or to == self.id or to not in self.voters:
            return
        if self.role == "leader" and to not in self.acked:
            self.send("BeginQuorumEpochRequest", to, epoch=self.epoch)
        elif self.role == "resigned" and to not in self.acked:
            self.send("EndQuorumEpochRequest", to, epoch=self.epoch, preferred=[])
        elif (self.role == "candidate" and not self.backing_off) or self.role == "prospective":
            if to not in self.granted | self.rejected:
                self.send("VoteRequest", to, epoch=self.epoch, last_epoch=self.last_epoch, end_offset=self.end,
                          pre_vote=self.role == "prospective")

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        follower = self.role == "follower" and to == self.leader
        observer = not self.is_voter and self.role in ("unattached", "voted") and to in self.voters
        if not (follower or observer):
            return
        self.send("FetchRequest", to, epoch=self.epoch, fetch_offset=self.end, last_fetched_epoch=self.last_epoch)

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        if self.role != "leader":
            return
        payload = list(inp.get("payload", []))
        if self.bug("empty-append-ignored") and not payload:
            return
        if self.bug("payload-signed-bytes"):
            payload = [b - 256 if b > 127 else b for b in payload]  # a Java byte[] port
        self.append([(self.epoch, "data", payload)])
        self.update_hw()

    # ---- the listener (RAFT-OBS-LISTENER) ----

    def tell_listener(self) -> None:
        if self.hw is not None and self.hw > self.listener_next:
            records = [[e, k] for e, k, _ in self.log[self.listener_next:self.hw]]
            if self.bug("commit-skips-control-records"):
                records = [r for r in records if r[1] == "data"]
            if records or not self.bug("commit-skips-control-records"):
                self.out.append({"type": "HandleCommit", "offset": self.listener_next, "entries": records})
            self.listener_next = self.hw
        if self.role == "resigned":
            news = None
        elif self.role == "leader":
            caught_up = self.listener_next > self.epoch_start or self.bug("leader-told-before-caught-up")
            news = (self.epoch, self.id) if caught_up else None
        else:
            news = (self.epoch, self.election()[2])
        if news is not None and (news[0] > self.told[0] or (news[0] == self.told[0] and self.told[1] is None
                                                           and news[1] is not None)):
            self.out.append({"type": "HandleLeaderChange", "epoch": news[0], "leader": news[1]})
            self.told = news
        self._kept_listener = (self.listener_next, self.told)

    def observe(self) -> dict[str, Any]:
        e, v, ldr = self.election()
        return {"role": self.role, "epoch": e, "leader": ldr, "voted_for": v,
                "log": [[ep, k] for ep, k, _ in self.log],
                "high_watermark": None if self.role == "down" else self.hw}


def _entry(e: tuple[int, str, list[int]]) -> dict[str, Any]:
    return {"type": "Entry", "epoch": e[0], "kind": e[1], "payload": list(e[2])}


class Node:
    """The adapter around one replica: JSON in, outputs and observation out."""

    def __init__(self, replica: Replica) -> None:
        self.replica = replica

    def step(self, inp: dict[str, Any]) -> StepResult:
        outputs = self.replica.step(inp)
        return StepResult(outputs=outputs, observation=self.replica.observe())

    def close(self) -> None:
        pass


class Correct(Target):
    """The bug-free replica. It takes one to five voters and declines larger clusters (none is
    drawn at the default bounds), and refuses at start a configuration key it does not know."""

    protocol = "raft"
    # Hold the replica to the listener contract too (RAFT-OBS-LISTENER): without this setting
    # the driver never asks a python: target for listener callbacks.
    model_config = {"listener": True}
    replica: type[Replica] = Replica
    KNOWN = frozenset({"voters", "pre_vote", "kip853", "listener"})

    def __init__(self) -> None:
        self.name = f"python:redteam.raft_scratch:{type(self).__name__}"

    def supports(self, config: dict[str, Any]) -> bool:
        # The run's configuration (voters and observers as counts), not a node's.
        return int(config.get("voters", 3)) <= 5 and int(config.get("observers", 0)) <= 2

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        unknown = set(config) - self.KNOWN
        if unknown:
            raise TargetError(f"configuration keys not implemented: {sorted(unknown)}")
        replica = self.replica(int(node), list(config["voters"]), bool(config.get("pre_vote")),
                               bool(config.get("kip853")), bool(config.get("listener")))
        return Node(replica)


def _buggy(bug: str) -> type[Correct]:
    replica = type("Replica_" + bug.replace("-", "_"), (Replica,), {"bugs": frozenset({bug})})
    name = "".join(p.capitalize() for p in bug.split("-"))
    return type(name, (Correct,), {"replica": replica, "__doc__": BUGS[bug]})


CORRECT = "Correct"
# bug name -> (class, what it does): each a slip a real implementer makes.
BUGS = {
    # deep (a deposition or a lost pre-vote first)
    "diverging-takes-hw": "a follower takes the HW of a diverging FetchResponse, uncapped",
    "truncate-epoch-strict": "truncation looks for the largest epoch strictly below the diverging one",
    "prospective-loss-forgets-vote": "a prospective that loses its pre-vote comes back unattached without its vote",
    "follower-forgets-vote-kip996": "kip-996: a voter following the leader it voted for forgets the vote",
    # outputs in the wrong order
    "vote-sent-before-persist": "the VoteResponse granting a vote leaves before the vote is persisted",
    "candidate-sends-before-persist": "a candidate sends its VoteRequests before persisting its candidacy",
    # off-protocol inputs
    "stale-fetch-unknown-epoch": "FENCED_LEADER_EPOCH and UNKNOWN_LEADER_EPOCH swapped for fetches",
    "sentinel-src-accepted": "a Vote/BeginQuorumEpoch/EndQuorumEpoch from replica -1 is handled as any other",
    "resigned-serves-fetch": "a resigned leader keeps answering fetches",
    "check-quorum-counts-any-fetcher": "check-quorum counts fetches from observers and unknown ids",
    "observer-votes-kip595": "under kip-595 an observer handles a voter's Vote instead of INCONSISTENT_VOTER_SET",
    # rare configurations and values
    "empty-append-ignored": "a client append with an empty payload is dropped",
    "payload-signed-bytes": "payload bytes above 127 come back negative (a Java byte[] port)",
    "majority-even-off-by-one": "a majority of n voters is (n + 1) // 2: wrong for 2 and 4 voters",
    "lone-voter-stays-resigned": "a lone voter restarting as resigned does not elect itself again",
    # the listener contract
    "leader-told-before-caught-up": "a new leader is told it leads before its listener has read its epoch start",
    "resigned-told-no-leader": "a leader that resigns tells its listener (epoch, no leader)",
    "commit-skips-control-records": "HandleCommit leaves out control records (LeaderChange)",
    "listener-survives-restart": "the listener's position survives a restart: nothing is re-delivered",
}
TARGETS = {}
for _bug in BUGS:
    _cls = _buggy(_bug)
    globals()[_cls.__name__] = _cls
    TARGETS[_bug] = _cls.__name__
