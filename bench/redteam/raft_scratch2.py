"""KRaft replicas, session 9's planted bugs (none of session 7's), over session 7's from-scratch
replica ``redteam.raft_scratch.Replica`` (spec/raft.md and the adapter docs only): each bug
overrides one method as a real implementer slips there.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch2:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, attribute_target, register
from redteam.raft_scratch import NONE, Replica
from redteam.raft_scratch import Correct as _Correct


class UpToDateEndFirst(Replica):
    """The log comparison of a vote made on (end offset, last epoch): a longer log of an older
    epoch counts as more up to date."""

    def up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        return (end_offset, last_epoch) >= (self.end, self.last_epoch)


class UpToDateStrict(Replica):
    """A vote granted only to a strictly longer log (``>`` for ``>=``): equal logs are refused."""

    def up_to_date(self, last_epoch: int, end_offset: int) -> bool:
        return (last_epoch, end_offset) > (self.last_epoch, self.end)


class RestartForgetsVote(Replica):
    """Restart reads the epoch and the leader from the quorum-state file but not the vote."""

    def restart(self) -> None:
        e, _, ldr = self.file
        self.file = (e, None, ldr)
        super().restart()


class RestartCandidateNewEpoch(Replica):
    """A replica that was a candidate stands again in the next epoch at restart, not in its own."""

    def restart(self) -> None:
        e, v, _ = self.file
        super().restart()
        if self.role == "candidate" and self.voters != [self.id] and v == self.id and e == self.epoch:
            self.out = [o for o in self.out if o["type"] != "VoteRequest"]
            self.to_candidate()


class LeaderSendsBeforePersist(Replica):
    """A new leader sends BeginQuorumEpoch before its election is written."""

    def to_leader(self) -> None:
        start = len(self.out)
        super().to_leader()
        persists = [o for o in self.out[start:] if o["type"] == "PersistElection"]
        rest = [o for o in self.out[start:] if o["type"] != "PersistElection"]
        self.out[start:] = rest + persists


class ResignedAcceptsAppends(Replica):
    """A resigned leader still appends client records (it is still "the leader" locally)."""

    def on_ClientAppend(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned":
            self.append([(self.epoch, "data", list(inp.get("payload", [])))])
            return
        super().on_ClientAppend(inp)


class VoteResponseForgetsLeader(Replica):
    """A VoteResponse never names the leader (the field left at its default)."""

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        if kind == "VoteResponse":
            fields["leader"] = None
        super().send(kind, dst, **fields)


class FetchErrorOffsetZero(Replica):
    """A fetch error response carries offset 0, not the request's fetch offset."""

    def refuse(self, req: dict[str, Any], error: str) -> None:
        if req["type"] == "FetchRequest":
            req = {**req, "fetch_offset": 0}
        super().refuse(req, error)


class LeaderGrantsPreVote(Replica):
    """KIP-996: the pre-vote refusal of a leader forgotten (only a fetching follower refuses)."""

    def on_vote(self, req: dict[str, Any]) -> None:
        if req.get("pre_vote") and self.role == "leader":
            ok = self.up_to_date(req["last_epoch"], req["end_offset"])
            self.send("VoteResponse", req["src"], epoch=self.epoch, granted=ok, leader=self.leader, pre_vote=True,
                      error=NONE)
            return
        super().on_vote(req)


class ResignedGrantsVote(Replica):
    """A resigned leader grants a vote in its own epoch, as an unattached voter would.

    Equivalent (session 10; left out of BUGS): the bug grants only a vote whose log is up to
    date, and none is. A leader's log holds a record of its own epoch from the step it was
    elected in (the LeaderChange: RAFT-RULE-LEADER-CHANGE; the election is persisted in the
    same step), it never truncates while leader or resigned, and a restart comes back resigned
    only from that file and log; a well-formed VoteRequest of epoch e has a last epoch below e
    (RAFT-RULE-INVALID-REQUEST). So at a resigned leader of e every well-formed vote of e is
    behind its log, and every malformed one is refused before the role is looked at. In Kafka
    the bug is reachable only by a crash between writing the quorum state and appending the
    LeaderChange (``transitionToLeader`` then ``onBecomeLeader``), which the model's atomic
    steps do not have (RAFT-DRIVE-WELL-FORMED feeds resigned leaders votes of their epoch:
    reference seed 0, 51 behind, none can be up to date).
    """

    def on_vote(self, req: dict[str, Any]) -> None:
        if self.role == "resigned" and not req.get("pre_vote") and req["epoch"] == self.epoch \
                and self.up_to_date(req["last_epoch"], req["end_offset"]) and req["src"] in self.voters:
            before = self.election()
            self.role, self.voted_for, self.leader = "voted", req["src"], None
            self.persist_if_changed(before)
            self.send("VoteResponse", req["src"], epoch=self.epoch, granted=True, leader=None, pre_vote=False,
                      error=NONE)
            return
        super().on_vote(req)


class TruncateSilently(Replica):
    """A follower truncates its log without the TruncateLog effect (the file is cut in place)."""

    def truncate(self, d: int, end_d: int) -> None:
        start = len(self.out)
        super().truncate(d, end_d)
        self.out[start:] = [o for o in self.out[start:] if o["type"] != "TruncateLog"]


class Correct(SelfNamed, _Correct):
    pass


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "up-to-date-end-first": UpToDateEndFirst,
    "up-to-date-strict": UpToDateStrict,
    "restart-forgets-vote": RestartForgetsVote,
    "restart-candidate-new-epoch": RestartCandidateNewEpoch,
    "leader-sends-before-persist": LeaderSendsBeforePersist,
    "resigned-accepts-appends": ResignedAcceptsAppends,
    "vote-response-forgets-leader": VoteResponseForgetsLeader,
    "fetch-error-offset-zero": FetchErrorOffsetZero,
    "leader-grants-pre-vote": LeaderGrantsPreVote,
    "truncate-silently": TruncateSilently,
}
# Planted, but no well-formed input within the model tells them from the bug-free replica
# (the reason in each class's docstring).
EQUIVALENT: dict[str, type[Replica]] = {"resigned-grants-vote": ResignedGrantsVote}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
