"""KRaft replicas, session 12's planted bugs (none of sessions 5, 7, 9, 10 and 11's), over session
7's from-scratch replica ``redteam.raft_scratch.Replica``: each bug overrides one method as a
contributor who gets KIP-595 or KIP-996 subtly wrong slips there. Kinds not planted before: the
high watermark as a median (wrong only with an even voter set), an election tally that outlives
its round (a kip-595 candidate's next epoch, a kip-996 prospective's next round), a prospective
that grants a vote by the other code path (persisted after it answers), a BeginQuorumEpoch of an
older epoch read for its leader, an observer's pre-vote, the leader's diverging-epoch answer, the
listener told again what it knows, and a resignation sent to observers.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch5:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, attribute_target, register
from redteam.raft_scratch import FENCED, Replica
from redteam.raft_scratch import Correct as _Correct


class HwMedianEvenVoters(Replica):
    """The leader's high watermark is the median of the voters' offsets sorted ascending (index
    n // 2): with three or five voters the middle one, with four the second largest, which only
    two of the four voters hold (RAFT-RULE-HW-MAJORITY needs three)."""

    def update_hw(self) -> None:
        if self.role != "leader":
            return
        offsets = sorted(self.end if v == self.id else self.end_offsets.get(v, 0) for v in self.voters)
        m = offsets[len(self.voters) // 2]
        if m > self.epoch_start and (self.hw is None or m > self.hw):
            self.hw = m


class CandidateNewEpochKeepsGrants(Replica):
    """A kip-595 candidate that stands again (its backoff expired) keeps the grants of its
    previous epoch's round: it only adds its own vote to the set (Raft's ``votesGranted`` is
    per term), so with four or five voters it wins with one grant of the new epoch too few."""

    def to_candidate(self) -> None:
        kept = set(self.granted) if self.role == "candidate" else set()
        super().to_candidate()
        if kept - self.granted and self.role == "candidate":
            self.granted |= kept
            if self.majority(self.granted):
                self.to_leader()


class ProspectiveRoundKeepsTally(Replica):
    """A prospective whose election timer expires (it knew no leader) starts its next pre-vote
    round with the answers of the round before still counted (the tally is cleared only on a
    transition to another role), where KIP-996's new round counts afresh."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        again = self.role == "prospective" and self.prior[2] is None and self.is_voter
        kept = (set(self.granted), set(self.rejected))
        super().on_ElectionTimeout(inp)
        if again and self.role == "prospective":
            self.granted |= kept[0]
            self.rejected |= kept[1] - self.granted


class ProspectiveGrantSentBeforePersist(Replica):
    """A prospective that grants a standard vote (it stays prospective: Kafka's
    ``prospectiveAddVotedState``, a code path of its own) answers before it persists the vote;
    the unattached and voted paths persist first (RAFT-STATE-PERSIST-BEFORE-SEND)."""

    def on_vote(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        prospective = self.role == "prospective" and not req.get("pre_vote")
        super().on_vote(req)
        if not prospective:
            return
        mine = self.out[start:]
        persists = [o for o in mine if o["type"] == "PersistElection"]
        if persists and any(o["type"] == "VoteResponse" for o in mine):
            self.out[start:] = [o for o in mine if o["type"] != "PersistElection"] + persists


class StaleBeginEpochNamesLeader(Replica):
    """A BeginQuorumEpoch of an older epoch is refused (FENCED_LEADER_EPOCH), but a replica
    that knows no leader takes its sender as the leader of its own epoch first: the request
    "names the leader", read before the epoch check."""

    def on_request(self, req: dict[str, Any]) -> None:
        if (req["type"] == "BeginQuorumEpochRequest" and req["epoch"] < self.epoch and req["src"] >= 0
                and req["src"] != self.id and self.role in ("unattached", "voted") and self.leader is None
                and not self.malformed(req)):
            self.to_follower(self.epoch, req["src"])
            return self.refuse(req, FENCED)
        return super().on_request(req)


class ObserverGrantsPreVoteAfterFetch(Replica):
    """An observer following the leader grants pre-votes after it has fetched from it: only a
    voter's answer protects the leader, so the ``hasFetchedFromLeader`` check is skipped for
    observers (KIP-996's rule is the follower role's, voter or not)."""

    def on_vote(self, req: dict[str, Any]) -> None:
        if req.get("pre_vote") and not self.is_voter and self.role == "follower":
            fetched, self.fetched_from_leader = self.fetched_from_leader, False
            super().on_vote(req)
            self.fetched_from_leader = fetched
            return
        super().on_vote(req)


class DivergingNamesEpochStart(Replica):
    """The leader answers a diverging fetch with the start offset of the largest epoch it has up
    to the fetcher's (where the epoch's records begin), not its end offset: the follower
    truncates that epoch's records it shares with the leader."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        start = len(self.out)
        super().on_fetch(req)
        for o in self.out[start:]:
            if o["type"] == "FetchResponse" and o.get("diverging") is not None:
                epoch = o["diverging"][0]
                first = next((i for i, (e, _, _) in enumerate(self.log) if e == epoch), 0)
                o["diverging"] = [epoch, first if epoch else 0]


class LeaderToldAgainAfterPreVote(Replica):
    """A follower whose pre-vote round ends (lost, or timed out) and that follows its leader
    again tells its listener that leader again: the transition back to follower is reported
    as a leader change, though the listener was told this epoch and leader before
    (RAFT-OBS-LISTENER-LEADER: never the same pair twice)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        was = self.role
        out = super().step(inp)
        told = any(o["type"] == "HandleLeaderChange" for o in out)
        if (was == "prospective" and self.role == "follower" and self.listener and not told
                and self.told == (self.epoch, self.leader)):
            out.append({"type": "HandleLeaderChange", "epoch": self.epoch, "leader": self.leader})
        return out


class EndQuorumSentToObservers(Replica):
    """A leader that resigns (check quorum) sends EndQuorumEpoch to every replica it has a fetch
    state for, observers included, where KIP-595 sends it to the voters: the code walks the
    leader's replica states rather than the voter set."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        known = sorted(r for r in self.end_offsets if r not in self.voters and r >= 0)
        super().on_CheckQuorumTimeout(inp)
        if self.role == "resigned":
            for r in known:
                self.send("EndQuorumEpochRequest", r, epoch=self.epoch, preferred=[])


class Correct(SelfNamed, _Correct):
    """The bug-free replica (session 7's), named after this module."""


CORRECT = "Correct"
BUGS: dict[str, type[Replica]] = {
    "hw-median-even-voters": HwMedianEvenVoters,
    "candidate-new-epoch-keeps-grants": CandidateNewEpochKeepsGrants,
    "prospective-round-keeps-tally": ProspectiveRoundKeepsTally,
    "prospective-grant-sent-before-persist": ProspectiveGrantSentBeforePersist,
    "stale-begin-epoch-names-leader": StaleBeginEpochNamesLeader,
    "observer-grants-pre-vote-after-fetch": ObserverGrantsPreVoteAfterFetch,
    "diverging-names-epoch-start": DivergingNamesEpochStart,
    "leader-told-again-after-pre-vote": LeaderToldAgainAfterPreVote,
    "end-quorum-sent-to-observers": EndQuorumSentToObservers,
}
# Bugs no run within the model can show (name -> why), kept out of TARGETS.
EQUIVALENT: dict[str, type[Replica]] = {}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
