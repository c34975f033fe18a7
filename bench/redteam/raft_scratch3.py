"""KRaft replicas, session 10's planted bugs (none of sessions 7 and 9's), over session 7's
from-scratch replica ``redteam.raft_scratch.Replica``: each bug overrides one method as a real
implementer slips there. Kinds not planted before: a follower's high watermark, the leader's
fetch validation and a follower's truncation point, an observer taken for a voter, what is
persisted after the answer, fields read back wrong at restart, sentinels and falsy ids, and
listener callbacks repeated.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch3:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, attribute_target, register
from redteam.raft_scratch import NONE, Replica
from redteam.raft_scratch import Correct as _Correct


class FollowerHwNotMonotonic(Replica):
    """A follower takes the high watermark of every fetch response it appends from, also a
    lower one than it has (a late copy of an earlier response at the same offset).

    Escaped at seed 0 (session 10): only a copy of an earlier empty FetchResponse at the same
    offset, delivered after a later one raised the HW (a network Duplicate, then a second
    fetch while a third voter's fetch moves the leader's HW, then the old copy), shows it;
    every newer response carries a HW at least as high (a new leader's first HW is past its
    epoch start, past every committed offset). DeliverTwice delivers the copy at once, not
    late.
    """

    def on_fetch_response(self, resp: dict[str, Any]) -> None:
        valid = (self.role == "follower" and resp["src"] == self.leader and resp["error"] == NONE
                 and resp["diverging"] is None and resp["offset"] == self.end)
        super().on_fetch_response(resp)
        if valid and resp["high_watermark"] is not None:
            self.hw = min(resp["high_watermark"], self.end)


class FetchIgnoresLastEpoch(Replica):
    """The leader checks only that a fetch's offset is within its log, not that the fetcher's
    last epoch ends there (a diverging follower is served from its offset, never truncates)."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        offset = req["fetch_offset"]
        if 0 < offset <= self.end:
            req = {**req, "last_fetched_epoch": self.log[offset - 1][0]}
        super().on_fetch(req)


class ObserverStandsOnFetchTimeout(Replica):
    """An observer following the leader takes its fetch timeout for a voter's: it stands for
    election (the voter check lives in start_election, and this path skips it)."""

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "follower" and not self.is_voter:
            if self.pre_vote:
                self.to_prospective()
            else:
                self.to_candidate()
            return
        super().on_FetchTimeout(inp)


class EpochPersistedAfterRefusal(Replica):
    """A vote of a higher epoch that is refused is answered before the new epoch is written
    (the write is queued behind the response)."""

    def on_request(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_request(req)
        new = self.out[start:]
        refused = [o for o in new if o["type"] == "VoteResponse" and not o["granted"]]
        if refused and req["type"] == "VoteRequest":
            persists = [o for o in new if o["type"] == "PersistElection"]
            self.out[start:] = [o for o in new if o["type"] != "PersistElection"] + persists


class RestartReadsLeaderAsVote(Replica):
    """Restart reads the quorum-state file's fields in the wrong order: the leader id as the
    vote and the vote as the leader id."""

    def restart(self) -> None:
        e, v, ldr = self.file
        self.file = (e, ldr, v)
        super().restart()


class RestartVoteSentinel(Replica):
    """The quorum-state file stores "no vote" as -1 (Kafka's votedId sentinel) and restart
    reads any stored value as a vote."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        if self.role == "down" and self.file[1] is None:
            e, _, ldr = self.file
            self.file = (e, -1, ldr)
        return out


class LeaderIdZeroIsNone(Replica):
    """A response's leader is tested for truth, not for presence: replica id 0 counts as "no
    leader" (a Python/JavaScript port of Kafka's ``leaderId >= 0``)."""

    def on_response(self, resp: dict[str, Any]) -> None:
        if resp.get("leader") == 0:
            resp = {**resp, "leader": None}
        super().on_response(resp)

    def on_request(self, req: dict[str, Any]) -> None:
        if req["type"] in ("BeginQuorumEpochRequest", "EndQuorumEpochRequest") and req["src"] == 0:
            return self.refuse(req, "INVALID_REQUEST")
        return super().on_request(req)


class CommitRedeliveredOnNewLeader(Replica):
    """The listener's read position is reset when the replica follows a new epoch's leader: it
    is handed the committed records again from offset 0.

    Escaped at seed 0 (session 10). The reset happens only when one message moves the replica
    to a higher epoch as a follower (BeginQuorumEpoch of a later epoch, a response naming the
    later leader) while it knows a high watermark above 0: a third voter that fetched a
    committed record in epoch e, then hears of a leader of e + 1 elected without its vote.
    Most paths move it into e + 1 by the vote request first (unattached or voted), and it
    follows at an equal epoch, where the bug does nothing.
    """

    def to_follower(self, epoch: int, leader: int) -> None:
        new_epoch = epoch > self.epoch
        super().to_follower(epoch, leader)
        if new_epoch:
            self.listener_next = 0


class LeaderChangeToldOnResend(Replica):
    """A follower tells its listener the leader again on every BeginQuorumEpoch of its epoch
    from that leader (a resend), not only when it learns of it."""

    def on_request(self, req: dict[str, Any]) -> None:
        again = (req["type"] == "BeginQuorumEpochRequest" and self.role == "follower"
                 and req["epoch"] == self.epoch and req["src"] == self.leader)
        super().on_request(req)
        if again and self.listener:
            self.out.append({"type": "HandleLeaderChange", "epoch": self.epoch, "leader": self.leader})


class TruncateAfterOffset(Replica):
    """A follower told it diverges takes the end offset for the epoch as the last offset to
    keep (inclusive), not the end (exclusive): one record too many survives."""

    def truncate(self, d: int, end_d: int) -> None:
        found, end_l = self.end_for_epoch(d)
        target = (min(end_l, end_d) if found == d else end_l) + 1
        if target < self.end:
            del self.log[target:]
            self.out.append({"type": "TruncateLog", "offset": target})


class Correct(SelfNamed, _Correct):
    pass


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "follower-hw-not-monotonic": FollowerHwNotMonotonic,
    "fetch-ignores-last-epoch": FetchIgnoresLastEpoch,
    "observer-stands-on-fetch-timeout": ObserverStandsOnFetchTimeout,
    "epoch-persisted-after-refusal": EpochPersistedAfterRefusal,
    "restart-reads-leader-as-vote": RestartReadsLeaderAsVote,
    "restart-vote-sentinel": RestartVoteSentinel,
    "leader-id-zero-is-none": LeaderIdZeroIsNone,
    "commit-redelivered-on-new-leader": CommitRedeliveredOnNewLeader,
    "leader-change-told-on-resend": LeaderChangeToldOnResend,
    "truncate-after-offset": TruncateAfterOffset,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
