"""KRaft replicas, session 11's planted bugs (none of sessions 5, 7, 9 and 10's), over session 7's
from-scratch replica ``redteam.raft_scratch.Replica``: each bug overrides one method as an
outsider implementing the adapter API slips there. Kinds not planted before: the leader's high
watermark (the epoch-start rule off by one, a value that moves back), check-quorum's timer reset,
a follower told of its leader's resignation, a prospective that grants a vote, the leader named
in a response of a higher epoch, a resigned leader that refuses a new epoch, a high watermark
checkpointed across a restart, responses of an older epoch taken for current ones, and a leader
discovered from a response that is not written down.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch4:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets import majority
from redteam._targets import SelfNamed, attribute_target, register
from redteam.raft_scratch import NONE, NOT_LEADER, Replica
from redteam.raft_scratch import Correct as _Correct


def majority_offset(leader: Replica) -> int:
    """The largest offset a majority of the voters holds, as the leader knows it (its own log
    end, its followers' fetch offsets): the high watermark's candidate."""
    return majority.majority_offset({**leader.end_offsets, leader.id: leader.end}, leader.voters)


class HwAtEpochStart(Replica):
    """The leader commits once a majority holds its epoch start offset (``>=``), not past it:
    the earlier epochs' records are committed before the new LeaderChange is on a majority
    (RAFT-RULE-HW-LEADER-EPOCH off by one)."""

    def update_hw(self) -> None:
        if self.role != "leader":
            return
        m = majority_offset(self)
        if m > 0 and m >= self.epoch_start and (self.hw is None or m > self.hw):
            self.hw = m


class LeaderHwNotMonotonic(Replica):
    """The leader recomputes its high watermark from the followers' fetch offsets and takes it
    as it is, also lower: an older fetch of a follower arriving late (a network duplicate)
    moves the leader's high watermark back."""

    def update_hw(self) -> None:
        if self.role != "leader":
            return
        m = majority_offset(self)
        if m > self.epoch_start:
            self.hw = m


class EndQuorumForgetsLeader(Replica):
    """A follower told by its leader that it resigned (EndQuorumEpoch of its epoch) forgets the
    leader at once: unattached in the same epoch, where KIP-595 only shortens its fetch timer."""

    def on_request(self, req: dict[str, Any]) -> None:
        if (req["type"] == "EndQuorumEpochRequest" and self.role == "follower" and req["epoch"] == self.epoch
                and req["src"] == self.leader):
            self.to_unattached(self.epoch)
            self.send("EndQuorumEpochResponse", req["src"], epoch=self.epoch, leader=None, error=NONE)
            return
        super().on_request(req)


class CheckQuorumResetForgetsSelf(Replica):
    """The check-quorum timer is reset when the followers that fetched are a majority on their
    own (the leader not counted): with three voters both must fetch, so a leader that heard
    one follower and then nothing for a whole timeout does not resign."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        before = set(self.fetched)
        super().on_fetch(req)
        src = req["src"]
        counted = src in self.voters and self.end_offsets.get(src) == req["fetch_offset"]
        if counted and not self.fetched and not self.majority(before | {src}):
            self.fetched = before | {src}


class ProspectiveGrantKeepsRound(Replica):
    """A prospective that grants a (real) vote keeps its pre-vote round's answers and asks no
    one again (KIP-996's prospective restarts its round: RAFT-KIP996-PROSPECTIVE-VOTES)."""

    def on_vote(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        kept = (set(self.granted), set(self.rejected))
        prospective = self.role == "prospective"
        super().on_vote(req)
        again = [o for o in self.out[start:] if o["type"] == "VoteRequest" and o["pre_vote"]]
        if prospective and again:
            self.out[start:] = [o for o in self.out[start:] if o not in again]
            self.granted, self.rejected = kept


class HigherEpochResponseIgnoresLeader(Replica):
    """A response of a higher epoch moves the replica to that epoch unattached, the leader it
    names dropped (only requests are read for a leader)."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if resp["epoch"] > self.epoch:
            resp = {**resp, "leader": None}
        super().on_response(resp)


class ResignedRefusesBeginEpoch(Replica):
    """A resigned leader, waiting for its successor, refuses a BeginQuorumEpoch of a higher
    epoch as NOT_LEADER_OR_FOLLOWER and stays resigned (it only looks at votes)."""

    def on_request(self, req: dict[str, Any]) -> None:
        if (req["type"] == "BeginQuorumEpochRequest" and self.role == "resigned" and req["epoch"] > self.epoch
                and req["src"] >= 0):
            return self.refuse(req, NOT_LEADER)
        return super().on_request(req)


class RestartKeepsHw(Replica):
    """The high watermark is checkpointed and read back at restart (as a broker's
    replication-offset-checkpoint), where KRaft knows none until its leader says so."""

    _saved_hw: int | None = None

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "Crash" and self.role != "down":
            self._saved_hw = self.hw
        return super().step(inp)

    def restart(self) -> None:
        super().restart()
        if self.hw is None and self._saved_hw is not None and self._saved_hw <= self.end:
            self.hw = self._saved_hw


class StaleVoteCounted(Replica):
    """A candidate counts a granted VoteResponse of an earlier candidacy of its own (an older
    epoch) toward its current one: the epoch of a vote response is not checked."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "VoteResponse" and resp["epoch"] < self.epoch and self.role == "candidate"
                and not resp.get("pre_vote")):
            self.on_vote_response(resp)
            return
        super().on_response(resp)


class StaleFetchResponseAppended(Replica):
    """A follower takes a FetchResponse from its leader whatever the response's epoch (it
    checks the sender, not the epoch): an answer from the same replica's earlier leadership is
    appended."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if (resp["type"] == "FetchResponse" and resp["epoch"] < self.epoch and self.role == "follower"
                and resp["src"] == self.leader):
            self.on_fetch_response(resp)
            return
        super().on_response(resp)


class DiscoveredLeaderNotPersisted(Replica):
    """A replica that learns its epoch's leader from a response (an observer's fetch answer, a
    vote answer naming the leader) follows it without writing the quorum state: only
    BeginQuorumEpoch and EndQuorumEpoch write it."""

    def on_response(self, resp: dict[str, Any]) -> None:
        start = len(self.out)
        before = self.election()
        super().on_response(resp)
        if resp["epoch"] == before[0] and self.role == "follower" and self.election() != before:
            self.out[start:] = [o for o in self.out[start:] if o["type"] != "PersistElection"]


class LeaderCommitsOwnWrites(Replica):
    """The leader's listener is handed a record as soon as the leader appends it (it reads its
    own log up to the end), not once the high watermark passes it."""

    def tell_listener(self) -> None:
        if self.role == "leader" and self.hw is not None:
            hw, self.hw = self.hw, self.end
            super().tell_listener()
            self.hw = hw
            return
        super().tell_listener()


class Correct(SelfNamed, _Correct):
    pass


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "hw-at-epoch-start": HwAtEpochStart,
    "leader-hw-not-monotonic": LeaderHwNotMonotonic,
    "end-quorum-forgets-leader": EndQuorumForgetsLeader,
    "check-quorum-reset-forgets-self": CheckQuorumResetForgetsSelf,
    "prospective-grant-keeps-round": ProspectiveGrantKeepsRound,
    "higher-epoch-response-ignores-leader": HigherEpochResponseIgnoresLeader,
    "resigned-refuses-begin-epoch": ResignedRefusesBeginEpoch,
    "restart-keeps-hw": RestartKeepsHw,
    "stale-vote-counted": StaleVoteCounted,
    "stale-fetch-response-appended": StaleFetchResponseAppended,
    "discovered-leader-not-persisted": DiscoveredLeaderNotPersisted,
    "leader-commits-own-writes": LeaderCommitsOwnWrites,
}
# Bugs no run within the model can show (name -> why), kept out of TARGETS.
EQUIVALENT: dict[str, type[Replica]] = {}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
