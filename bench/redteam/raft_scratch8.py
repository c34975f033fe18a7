"""Session 15's blind red-team round for raft: eight bugs planted in the from-scratch replica of
``raft_scratch`` (KIP-595, KIP-996), each a subclass of :class:`raft_scratch.Replica` that
overrides one or a few methods where a real KRaft implementer slips.

Written from README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/raft.md
(sections 1-6, 8-10), the KIPs and ``raft_scratch.py`` only: the drivers, the mutant catalogue,
the model and the other red-team modules unread. The bugs lean to long or unusual sequences (a
replica leading twice, a diverged follower, an observer that voted, a duplicated or injected
fetch) over ones any first run shows.

    PYTHONPATH=bench kspec conform raft --target python:redteam.raft_scratch8:Correct
"""

from __future__ import annotations

from typing import Any

from redteam import raft_scratch
from redteam._targets import SelfNamed, attribute_target, register
from redteam.raft_scratch import Replica


class Correct(SelfNamed, raft_scratch.Correct):
    """The bug-free replica of ``raft_scratch``, named after this module."""


class EndOffsetsSurviveReelection(Replica):
    """RAFT-RULE-DESCRIBE-QUORUM, RAFT-RULE-HW-MAJORITY: a leader's table of voter end offsets is
    kept from its previous leadership (and across roles and restarts), so a replica elected again
    describes a voter that has not fetched in the new epoch with the offset it fetched at in an
    old one (the spec: ``-1``), and counts that stale offset towards the new epoch's HW (the
    spec: 0 for a voter not heard from in the epoch).

    The slip: Kafka builds a fresh ``LeaderState`` per epoch; a port that keeps one replica map
    on the client object (as it keeps the log) and only clears the vote tallies on a transition
    never resets it. Seen only once the same replica leads a second time."""

    def _clear_role_fields(self) -> None:
        kept: dict[int, int] = dict(getattr(self, "end_offsets", {}))
        super()._clear_role_fields()
        self.end_offsets = kept


class PreVoteFetchedFlagSurvivesNewEpoch(Replica):
    """RAFT-KIP996-PRE-VOTE-GRANT: a follower refuses a pre-vote only while it has fetched
    successfully from its leader *since it became follower*; this replica keeps the flag when a
    higher epoch's leader makes it a follower again, so it refuses a pre-vote (of an up-to-date
    prospective) before its first fetch from the new leader, where the rule grants.

    The slip: ``hasFetchedFromLeader`` kept on the replica instead of on the follower state, and
    reset only when the replica stops following. Needs pre-vote, a follower that fetched, a new
    leader of a higher epoch, and a pre-vote reaching it before it fetches again."""

    def to_follower(self, epoch: int, leader: int) -> None:
        was_follower, fetched = self.role == "follower", self.fetched_from_leader
        super().to_follower(epoch, leader)
        if was_follower:
            self.fetched_from_leader = fetched


class LeaderHwRecomputedNotMonotonic(Replica):
    """RAFT-RULE-HW-LEADER-EPOCH, RAFT-STEP-HW-MONOTONIC: the leader sets its HW to the majority
    offset whenever that is past its epoch start, without ``m > HW``; a fetch at a lower offset
    than the voter's last one (RAFT-RULE-FETCH accepts it: Kafka only logs a non-monotonic
    update) then moves the HW back.

    The slip: the HW read as "the median of the replicas' offsets" and recomputed from scratch,
    which holds as long as fetch offsets only grow. Needs a late or duplicated fetch of an older
    position after a newer one has been counted."""

    def update_hw(self) -> None:
        if self.role != "leader":
            return
        offsets = sorted((self.end if v == self.id else self.end_offsets.get(v, 0) for v in self.voters),
                         reverse=True)
        m = offsets[len(self.voters) // 2]
        if m > self.epoch_start:
            self.hw = m


class ResendIgnoresFetchAck(Replica):
    """RAFT-RULE-RESEND, RAFT-STEP-RESEND: a voter acknowledges a leader's epoch with a ``NONE``
    BeginQuorumEpochResponse *or with a valid Fetch*; this leader counts only the response, so
    at ``ResendDue`` it sends BeginQuorumEpoch again to a voter that has been fetching from it
    (whose response was lost, or which learned the leader another way).

    The slip: acknowledgement tracked as "the answer to my request", not Kafka's
    ``ReplicaState.hasAcknowledgedLeader`` that a fetch sets too. Needs a voter that fetched
    without its BeginQuorumEpochResponse reaching the leader, then a ResendDue to it.

    Session 15, after the blind round: escaped at seeds 0 and 1, a reach gap, not an
    equivalence (a ResendDue at an acknowledged voter is a legal expiry, RAFT-MODEL-TIME, and
    the extra BeginQuorumEpoch is one RAFT-STEP-RESEND forbids). The driver sends ResendDue(to)
    only where the model resends (``node.unanswered``), never at a voter that answered. Left
    open: an idle ResendDue there would make Kafka 3.9-4.1 send their BeginQuorumEpoch
    heartbeat to an acknowledged voter through the adapter's heartbeat path, the deviation
    D-RESEND holds unjudged (``raft-begin-epoch-heartbeat``).

    Session 16: caught at guided run 18 at seeds 0 and 1 (RAFT-DRIVE-RESEND-ACKED: the driver
    fires ResendDue at a leader towards a voter that acknowledged, and a guided probe makes that
    voter acknowledge by a fetch alone; the Kafka adapter holds 3.9+'s heartbeat copy to a voter
    its leader records as acknowledged, so no Kafka line diverges there)."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        acked = set(self.acked)
        super().on_fetch(req)
        self.acked = acked


class VotedObserverStopsFetching(Replica):
    """RAFT-RULE-OBSERVER, RAFT-RULE-FETCH-DUE, RAFT-KIP853-OPEN-VOTE: under kip-853 and kip-996
    an observer may vote; one that voted "fetches from any voter as an unattached observer does".
    This observer sends nothing at ``FetchDue`` once it has voted, so it learns no leader until a
    message names one.

    The slip: "voted" read as "waiting for the candidate I voted for to win", which is right for
    a voter (it waits for BeginQuorumEpoch) but an observer is never sent BeginQuorumEpoch.
    Needs an observer that received (and granted) a Vote, only an injected request does that."""

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        if not self.is_voter and self.role == "voted":
            return
        super().on_FetchDue(inp)


class ProspectiveFollowsEndEpoch(Replica):
    """RAFT-RULE-END-EPOCH, RAFT-KIP996-LEADER-KNOWN: at an equal epoch an EndQuorumEpoch moves
    an unattached, voted or candidate replica, and a prospective *that knows no leader*, to
    follow the sender. This prospective follows the sender whatever it knows, so one that came
    from following the leader that now resigns goes back to following it (a resigned leader that
    will never answer its fetches) instead of keeping its pre-vote running.

    The slip: the prospective treated as one more election role in the list of roles that
    follow an EndQuorumEpoch's sender. Needs pre-vote, a follower's fetch timeout, then its
    leader's check-quorum resignation reaching it."""

    def on_request(self, req: dict[str, Any]) -> None:
        src = req["src"]
        if (req["type"] == "EndQuorumEpochRequest" and self.role == "prospective" and req["epoch"] == self.epoch
                and src >= 0 and src != self.id and not self.knows_no_leader()):
            self.to_follower(self.epoch, src)
            self.send("EndQuorumEpochResponse", src, epoch=self.epoch, leader=self.leader, error=raft_scratch.NONE)
            return None
        return super().on_request(req)


class HwCountsObservers(Replica):
    """RAFT-RULE-HW-MAJORITY, RAFT-INV-HW-MAJORITY: the majority offset is taken over the voters
    only ("Observers do not count"); this leader sorts every replica it has heard from, observers
    included, and takes the majority-th, so an observer ahead of the voters commits records that
    only the leader holds among the voters.

    The slip: Kafka's ``LeaderState`` keeps voters and observers in two maps; a port with one
    map of replica states sorts them all. Needs an observer that fetched past the voters."""

    def update_hw(self) -> None:
        if self.role != "leader":
            return
        voters = [self.end if v == self.id else self.end_offsets.get(v, 0) for v in self.voters]
        observers = [o for r, o in self.end_offsets.items() if r >= 0 and r not in self.voters]
        m = sorted(voters + observers, reverse=True)[len(self.voters) // 2]
        if m > self.epoch_start and (self.hw is None or m > self.hw):
            self.hw = m


class DivergingFetchCountsPosition(Replica):
    """RAFT-RULE-FETCH (3), RAFT-INV-HW-MAJORITY: an invalid fetch position (a diverged
    follower's) is answered with the diverging epoch and "nothing changes at the leader"; this
    leader records the fetch offset as the follower's end offset before it validates it, and
    recomputes the HW, so a diverged follower's longer log counts towards the commit of records
    it does not hold.

    The slip: the replica's position updated at the top of the fetch handler, where the fetch
    is "received", and the validation (Kafka's ``validateOffsetAndEpoch``) added below it later.
    Needs a follower with an uncommitted suffix of an old epoch, fetching from a new leader."""

    def on_fetch(self, req: dict[str, Any]) -> None:
        src, offset, last = req["src"], req["fetch_offset"], req["last_fetched_epoch"]
        found, end = self.end_for_epoch(last)
        if src >= 0 and not ((offset == 0 and last == 0) or (found == last and offset <= end)):
            self.end_offsets[src] = offset
            self.update_hw()
        super().on_fetch(req)


CORRECT = "Correct"
# bug name -> the Replica subclass that plants it
BUGS: dict[str, type[Replica]] = {
    "end-offsets-survive-reelection": EndOffsetsSurviveReelection,
    "pre-vote-fetched-flag-survives-new-epoch": PreVoteFetchedFlagSurvivesNewEpoch,
    "leader-hw-recomputed-not-monotonic": LeaderHwRecomputedNotMonotonic,
    "resend-ignores-fetch-ack": ResendIgnoresFetchAck,
    "voted-observer-stops-fetching": VotedObserverStopsFetching,
    "prospective-follows-end-epoch": ProspectiveFollowsEndEpoch,
    "hw-counts-observers": HwCountsObservers,
    "diverging-fetch-counts-position": DivergingFetchCountsPosition,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("replica"))
