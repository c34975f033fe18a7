"""KRaft replicas, session 13's out-of-sample bugs ("outsider"; none of sessions 5, 7 and 9-12's),
over session 7's from-scratch replica ``redteam.raft_scratch.Replica``: each bug overrides one
method where someone implementing KIP-595 / KIP-996 from the KIPs, spec/raft.md and the adapter
docs (no driver, model or mutant catalogue read before the first measurement) slips. Kinds not
planted before: a prospective that came from a follower and times out standing again instead
of returning to its leader, a prospective that ignores a majority of rejections (waits for its
timer), a pre-vote grant recorded as a vote, a resigned kip-996 leader pre-voting in its own
epoch, the listener told only of known leaders, the listener fed the follower's uncommitted
records, an observer that keeps asking voters once it follows a leader, and a BeginQuorumEpoch
answered before the new leader is persisted.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch6:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, register
from redteam.raft_scratch import NONE, Replica
from redteam.raft_scratch import Correct as _Correct


class ProspectiveTimeoutForgetsLeader(Replica):
    """A prospective whose election timer expires starts its next pre-vote round (unattached,
    then prospective again) whatever it was before; one that came from following a leader should
    go back to following it (RAFT-KIP996-TIMEOUT): the timeout handler ignores the prior leader."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "prospective" and self.prior[2] is not None:
            self.to_unattached(self.prior[0])
            self.to_prospective()
            return
        super().on_ElectionTimeout(inp)


class ListenerToldOnlyKnownLeaders(Replica):
    """The listener hears ``handleLeaderChange`` only when a leader is known: a new epoch with no
    leader yet (a vote, an election) is not announced, where Kafka tells it
    ``LeaderAndEpoch(empty, epoch)`` (RAFT-OBS-LISTENER)."""

    def tell_listener(self) -> None:
        start, told = len(self.out), self.told
        super().tell_listener()
        dropped = [o for o in self.out[start:] if o["type"] == "HandleLeaderChange" and o["leader"] is None]
        if dropped:
            self.out[start:] = [o for o in self.out[start:] if o not in dropped]
            self.told = told
            self._kept_listener = (self.listener_next, self.told)


class ProspectiveWaitsOutRejections(Replica):
    """A prospective that a majority has rejected stays prospective until its election timer
    expires: the loss is handled by the timer only, not at the rejection that makes a majority
    impossible (RAFT-KIP996-LOSS)."""

    def lose_pre_vote(self) -> None:
        return None


class PreVoteGrantRecorded(Replica):
    """An unattached replica that grants a pre-vote records it as its vote (the grant and the
    vote share one code path): it becomes voted for the prospective and persists that, where a
    pre-vote changes nothing (KIP-996)."""

    def on_vote(self, req: dict[str, Any]) -> None:
        if (req.get("pre_vote") and self.role == "unattached" and self.leader is None and self.voted_for is None
                and self.up_to_date(req["last_epoch"], req["end_offset"])):
            self.to_voted(req["src"])
            self.send("VoteResponse", req["src"], epoch=self.epoch, granted=True, leader=self.leader, pre_vote=True,
                      error=NONE)
            return
        super().on_vote(req)


class ResignedPreVotesInOwnEpoch(Replica):
    """A resigned leader (kip-996) whose election timer expires becomes prospective in its own
    epoch, as a follower's timeout does, instead of unattached in epoch + 1 first
    (RAFT-KIP996-RESIGNED)."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and self.pre_vote and self.is_voter:
            self.to_prospective()
            return
        super().on_ElectionTimeout(inp)


class ListenerReadsPastHw(Replica):
    """A follower hands its listener every record it has fetched (``handleCommit`` up to its log
    end), not only the committed ones: the listener reads the log, and the port bounds the read
    by the end of what was appended instead of the high watermark."""

    def tell_listener(self) -> None:
        if self.role != "follower" or self.hw is None or self.end <= self.hw:
            return super().tell_listener()
        hw = self.hw
        self.hw = self.end
        try:
            super().tell_listener()
        finally:
            self.hw = hw
        return None


class ObserverKeepsAskingVoters(Replica):
    """An observer that found its leader keeps sending Fetch to any voter it is asked to fetch
    from (the leader-discovery branch stays on for observers), where a follower fetches from its
    leader only."""

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        to = inp["to"]
        if not self.is_voter and self.role == "follower" and to in self.voters and to != self.leader:
            self.send("FetchRequest", to, epoch=self.epoch, fetch_offset=self.end, last_fetched_epoch=self.last_epoch)
            return
        super().on_FetchDue(inp)


class BeginEpochAnsweredBeforePersist(Replica):
    """A replica told of a new leader by BeginQuorumEpoch answers first, then writes the
    quorum-state file (the transition after the reply), where RAFT-STATE-PERSIST-BEFORE-SEND
    wants the write before any message of the step."""

    def on_request(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_request(req)
        if req["type"] != "BeginQuorumEpochRequest":
            return
        outs = self.out[start:]
        writes = [o for o in outs if o["type"] == "PersistElection"]
        if writes:
            self.out[start:] = [o for o in outs if o["type"] != "PersistElection"] + writes


class Correct(SelfNamed, _Correct):
    """The bug-free replica (session 7's), named after this module."""


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "prospective-timeout-forgets-leader": ProspectiveTimeoutForgetsLeader,
    "listener-told-only-known-leaders": ListenerToldOnlyKnownLeaders,
    "prospective-waits-out-rejections": ProspectiveWaitsOutRejections,
    "pre-vote-grant-recorded": PreVoteGrantRecorded,
    "resigned-pre-votes-in-own-epoch": ResignedPreVotesInOwnEpoch,
    "listener-reads-past-hw": ListenerReadsPastHw,
    "observer-keeps-asking-voters": ObserverKeepsAskingVoters,
    "begin-epoch-answered-before-persist": BeginEpochAnsweredBeforePersist,
}
TARGETS = register(globals(), Correct, BUGS,
                   lambda replica: (replica.__name__ + "Target", {"replica": replica, "__doc__": replica.__doc__}))
