"""Composite actions for the KRaft-based lockstep drivers: a short protocol exchange taken as
one step of the run, expanded into the model's own actions.

A bug that shows only after a voter change has been replicated to every voter, or only after
a replica that lacks it has won an election, needs a dozen deliveries and timer expiries in
one order; a random walk over single messages rarely keeps that order for long (every step
also offers a timeout, a fetch of another replica, a snapshot ...). The drivers therefore offer
three macros next to the single steps, built from four exchanges:

* :class:`RoundTrip` — a replica fires its fetch, the leader answers, the answer arrives;
* :class:`Replicate` — every follower of a leader does round trips until nothing changes
  (the leader's log reaches them and its high watermark moves);
* :class:`Campaign` — a replica's election timer expires and its vote requests and the
  answers are delivered until it wins or nothing is left to deliver; a winner's
  BeginQuorumEpoch requests are delivered too. Not offered on its own: an election taken in
  one step leaves out the split votes and crossing candidacies that vote-keeping bugs need
  (``raft-restart-votes-again`` was caught at 2 of 6 seeds with it, 6 of 6 without;
  ``bench/conformance_sweep.py``);
* :class:`Depose` — a leader's newest entries are lost: a voter that lacks them wins an
  election (a campaign) and the old leader fetches from it, so it truncates them. Offered only
  while a leader has entries some voter lacks, so it comes up right after a leader appended
  (the moment a random walk would need many steps in one order to exploit).

Each macro expands (:func:`expand`) into model actions that the driver resolves one by one, so
a target sees the same node-level inputs as from single steps, and a counterexample lists
them one by one (``spec/adapter-protocol.md``: replay feeds recorded inputs, not actions).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar, cast

from kspec.conformance.driver import Driver, Event, M
from kspec.conformance.drivers import ordering
from kspec.model.core.protocol import first_violated
from kspec.model.raft.messages import (
    BackoffExpired,
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    CheckQuorumTimeout,
    ElectionTimeout,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    FetchTimeout,
    ResendDue,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Candidate, Down, Follower, Leader, Prospective, Resigned, Unattached, Voted
from kspec.model.raft.system import Deliver, Drop, Duplicate, Fire, Raft, describe_message

# A campaign delivers at most this many vote messages (a pre-vote round and a vote round to
# every voter and back); a replication makes at most this many passes over the followers.
MAX_CAMPAIGN_DELIVERIES = 16
MAX_REPLICATE_PASSES = 3


@dataclass(frozen=True)
class RoundTrip:
    """Replica ``node`` fetches once from its leader and gets the answer."""

    node: int


@dataclass(frozen=True)
class Replicate:
    """Every live follower of ``leader`` fetches until the logs and high watermarks stop moving."""

    leader: int


@dataclass(frozen=True)
class Campaign:
    """Replica ``node``'s election timer expires; its vote requests and their answers (then a
    winner's BeginQuorumEpoch requests) are delivered."""

    node: int


@dataclass(frozen=True)
class Depose:
    """Voter ``successor``, which lacks some of ``leader``'s entries, wins an election; then
    ``leader`` fetches from it (and truncates what the successor does not have)."""

    leader: int
    successor: int


@dataclass(frozen=True)
class CatchUp:
    """Replica ``node`` alone fetches until its log and high watermark stop moving (an observer
    without a leader first asks the voters in turn until one names the leader): one replica
    ahead of the others, as a fast follower or an observer is while the voters lag."""

    node: int


@dataclass(frozen=True)
class Reclaim:
    """Voter ``successor``, which lacks some of ``leader``'s entries, wins an election; then
    ``leader``, still holding them, wins the next one back (a voter that has nothing of the
    successor's epoch votes for it) and ``successor`` fetches from it: the follower now holds
    fewer entries of the diverging epoch than the leader (Raft's figure 8)."""

    leader: int
    successor: int


@dataclass(frozen=True)
class DeposeCommitted:
    """As :class:`Depose`, but the successor's other followers fetch from it until its high
    watermark is known before ``leader`` fetches: the old leader's diverging fetch is then
    answered with a high watermark above where it truncates to (a diverging response only
    truncates: RAFT-RULE-HW-FOLLOWER caps a HW by the follower's log end)."""

    leader: int
    successor: int


@dataclass(frozen=True)
class StrayCampaign:
    """Voter ``node``, which never heard that its epoch has a leader (the BeginQuorumEpoch to it
    was lost), times out and stands: its vote (or pre-vote) requests and the answers are
    delivered, the leader's and its fetching followers' rejections among them (KIP-996: a
    prospective that loses goes back to the vote and leader it had, RAFT-KIP996-LOSS)."""

    node: int


@dataclass(frozen=True)
class Canvass:
    """Follower ``node`` (ahead of ``voter``) times out and stands, and only ``voter`` hears it:
    the requests to ``voter`` and its answers are delivered until ``voter`` has voted for
    ``node``, whose other messages stay in flight (a candidacy the rest of the quorum never
    sees). Then ``voter``, holding a vote for a candidate that has not won and a log behind
    it, times out and stands itself (a :class:`StrayCampaign`): with pre-vote it loses
    without anyone naming a leader, the loss after which a prospective keeps its vote
    (RAFT-KIP996-LOSS; the red-team's prospective-loss-forgets-vote needed 13 such chosen
    steps in one order). One macro, not two: the state between them lies past the guide's
    beam, so a path that took the canvass alone ended there."""

    node: int
    voter: int


@dataclass(frozen=True)
class Redeliver:
    """A copy of ``message`` (a response its destination has already taken) arriving again:
    not a macro, the second half of :class:`DeliverTwice`, which the raft driver resolves."""

    message: Any


@dataclass(frozen=True)
class DeliverTwice:
    """Response ``message`` is delivered, then a copy of it on the wire arrives too (a duplicate
    or a retry). Offered only where the replica's step on the copy changes nothing: a response
    counts once (a candidate's votes are a set, Raft's ``votesGranted``; Kafka ignores a
    response it no longer expects, RAFT-MODEL-IGNORED-RESPONSES), so a target must ignore it."""

    message: Any


@dataclass(frozen=True)
class DeliverLate:
    """RAFT-DRIVE-LATE-COPY: follower ``node``'s fetch answer (the one in flight from its leader,
    else the last of a :class:`CatchUp`: an answer at its log end while the others lag) is
    delivered; then the leader's followers fetch until nothing moves (a :class:`Replicate`:
    later answers reach ``node``, its high watermark rises); then a copy of that first answer
    arrives: a duplicate the network held back, or a retried response. Enabled only where the
    high watermark moved in between and the copy changes nothing (an older answer is no reply
    to the fetch in flight, RAFT-MODEL-IGNORED-RESPONSES; a follower's high watermark never
    moves back, RAFT-RULE-HW-FOLLOWER), so a target must ignore it. :class:`DeliverTwice`
    delivers the copy at once, where it still carries the newest high watermark there is."""

    node: int


@dataclass(frozen=True)
class LateFetch:
    """RAFT-DRIVE-LATE-COPY, the request side: follower ``node`` (behind its leader) fetches and
    the network copies the request (a duplicate); one copy and its answer are delivered, then
    ``node`` catches up alone (the leader's high watermark moves with it), then the other copy
    of the old fetch reaches the leader: a fetch offset below the one the leader knows for
    ``node``. The leader answers it from that offset (the answer stays on the wire) and its
    high watermark never moves back (RAFT-RULE-HW)."""

    node: int


@dataclass(frozen=True)
class Stale:
    """RAFT-DRIVE-STALE-ANSWER: response ``message`` stays on the wire while its receiver moves
    to a later epoch with the same peer, then arrives: a candidate's vote answer after the
    candidate stood again (its timers expire until its epoch passes the answer's), or a
    leader's fetch answer after that leader resigned (check quorum) and won the next epoch,
    which the receiver follows again. The model drops such an answer from the wire
    (RAFT-MODEL-IGNORED-RESPONSES), so it arrives as a :class:`Redeliver` copy, enabled only
    where it changes nothing. An answer of an older epoch changes nothing
    (RAFT-RULE-STALE-EPOCH): a grant counts only in its own candidacy, and records of an
    older epoch's answer are not appended, even from the same leader."""

    message: Any


@dataclass(frozen=True)
class HeldGrant:
    """RAFT-DRIVE-HELD-GRANT (kip-996): candidate ``message.dst``'s standard vote answer
    ``message`` is held while the candidate's election timer expires, which under KIP-996 makes
    it a prospective of the same epoch asking for pre-votes (Kafka 4.0+ ``pollCandidate``); then
    the answer arrives. Kafka's request manager no longer expects it (``resetConnections`` at the
    transition, so it is ignored by its correlation id; the model took it off the wire,
    RAFT-MODEL-IGNORED-RESPONSES), so it arrives as a :class:`Redeliver` copy, enabled only where
    it changes nothing: a standard answer is never a pre-vote, although its epoch is the
    prospective's (RAFT-RULE-PRE-VOTE). :class:`Stale` fires the timers on until the epoch has
    moved, past the prospective."""

    message: Any


@dataclass(frozen=True)
class BeginEpochAnswer:
    """RAFT-DRIVE-CHECK-QUORUM-ACK: voter ``voter``'s NONE answer to leader ``leader``'s
    BeginQuorumEpoch arrives: the one in flight, else (the model leaves an answer that changes
    nothing off the wire, RAFT-MODEL-INERT-RESPONSES) a :class:`Redeliver` copy of the answer a
    follower of the leader's epoch gives, enabled only where it changes nothing. An
    acknowledgement is no fetch: it must not count towards check-quorum
    (RAFT-RULE-CHECK-QUORUM)."""

    leader: int
    voter: int


@dataclass(frozen=True)
class ElectWithout:
    """RAFT-DRIVE-ELECT-WITHOUT: voter ``node``'s election timer expires and it wins without ``absent``: its (pre-)vote
    requests to ``absent`` stay on the wire, the others and their answers are delivered; then
    the winner's BeginQuorumEpoch reaches ``absent`` first. So ``absent`` (a follower that
    knows a high watermark, the old leader, a resigned leader) moves two roles at once, from
    its epoch's follower, leader or resigned leader straight to the next epoch's follower, by
    one message: the step where a
    replica that resets its listener, high watermark or fetch state on a new leader shows it.
    (A :class:`Campaign` delivers every vote request, so every voter first moves to the new
    epoch unattached or voted, and follows at an equal epoch.)"""

    node: int
    absent: int


@dataclass(frozen=True)
class FirstAnswer:
    """RAFT-DRIVE-MID-ROUND: voter ``node``'s timer expires and it stands (prospective or
    candidate); its request to ``voter`` and ``voter``'s answer are delivered, its other
    requests stay on the wire. Enabled only where ``node`` still stands in that round having
    counted the answer (a rejection, or a grant short of a majority with four or five voters):
    a replica in the middle of an election round, where a request, a timer or a crash meets a
    tally that is neither empty nor decided (a prospective that grants a standard vote starts
    its round again, RAFT-KIP996-PROSPECTIVE-VOTES; a candidate keeps its grants). A
    :class:`Campaign` delivers every answer, so its rounds end decided or with every voter heard."""

    node: int
    voter: int


@dataclass(frozen=True)
class AbandonRound:
    """RAFT-DRIVE-MID-ROUND, the next round: a :class:`FirstAnswer` (``node`` stands, only
    ``voter``'s answer arrives), then ``node``'s timers expire until it stands in a new round
    (a kip-595 candidate backs off, then stands in the next epoch; a prospective that knew no
    leader asks again), and that round's requests and answers are delivered (as a
    :class:`Campaign`). The old round's requests stay on the wire. What a round counted must
    not count in the next (a candidate's grants are per epoch; KIP-996's new pre-vote round
    counts afresh)."""

    node: int
    voter: int


@dataclass(frozen=True)
class LateVote:
    """RAFT-DRIVE-MID-ROUND, a held answer: voter ``node`` stands, its request to ``voter`` is
    delivered, and the answer is held while ``node``'s timers make it stand in a later epoch
    (a :class:`Stale` answer, delivered as a copy where it changes nothing): the simplest
    round whose own answer arrives after the round was given up."""

    node: int
    voter: int


@dataclass(frozen=True)
class HeldFetch:
    """RAFT-DRIVE-STALE-ANSWER at a guided path's end: follower ``node`` fetches, its leader
    answers, and the answer is held while the leader resigns (check quorum) and wins the next
    epoch, which ``node`` follows again; then the answer arrives (a :class:`Stale` copy): an
    older epoch's answer from the same leader, which a follower checking only the sender
    appends."""

    node: int


@dataclass(frozen=True)
class HeldBeginAnswer:
    """RAFT-DRIVE-STALE-ANSWER at a guided path's end: voter ``voter``'s answer to leader
    ``leader``'s BeginQuorumEpoch (the one in flight, else the answer a follower of the
    leader's epoch gives) is held while the leader resigns (check quorum) and wins the next
    epoch, whose BeginQuorumEpoch ``voter`` follows without fetching; then the old answer
    arrives (a :class:`Redeliver` copy), the new answer is lost and the leader's resend timer
    for ``voter`` fires: the leader has not heard from it in its epoch (RAFT-RULE-RESEND) and
    must send BeginQuorumEpoch again. A leader that counts the older epoch's acknowledgement
    sends nothing. With ``epoch`` set (an epoch before the leader's: it led that one and won
    again, as after :class:`HeldFetch`), the answer of that epoch arrives at once, no
    resignation first."""

    leader: int
    voter: int
    epoch: int = 0


@dataclass(frozen=True)
class Retry:
    """RAFT-DRIVE-RESEND at a guided path's end: replica ``node``'s request to voter ``to``, the
    one its role awaits an answer to (a leader's BeginQuorumEpoch, a resigned leader's
    EndQuorumEpoch, a candidate's vote, a prospective's pre-vote), is lost, or the answer is;
    then its resend timer for ``to`` fires (RAFT-RULE-RESEND: the role's request again). The
    model offers a resend only where nothing is in flight between the two
    (RAFT-MODEL-ONE-RESEND), so a resend needs a loss first, which a random run rarely puts
    right before the resend in the rarer roles (a resigned leader's)."""

    node: int
    to: int


@dataclass(frozen=True)
class PastBound:
    """RAFT-DRIVE-DIVERGENT-EPOCHS: the macros ``steps`` taken in turn, where the raft driver lets
    their steps run one epoch past its ``max_epoch`` (``RaftDriver.expand``): a deposition the
    bound forbids (an election in epoch ``max_epoch + 1``) and the old leader's catch-up. Offered
    in category PROBE only (no random run draws it, the guide's graph leaves it out), at the
    epoch bound; nothing can follow it (every state after it is past the bound)."""

    steps: tuple[Any, ...]


Macro = (RoundTrip | Replicate | Campaign | Depose | CatchUp | Reclaim | DeliverTwice | DeposeCommitted
         | StrayCampaign | Canvass | DeliverLate | LateFetch | Stale | ElectWithout | FirstAnswer | AbandonRound
         | LateVote | HeldFetch | HeldBeginAnswer | Retry | HeldGrant | BeginEpochAnswer | PastBound)
# The driver categories the macros come in (one per offered macro).
CATEGORIES = ("round_trip", "replicate", "depose")

St = TypeVar("St")  # a system state (raft's Raft, voters' Voters)
Resolve = Callable[[Any, Any], Any]  # (state, model action) -> state after, or None
Actions = Callable[[Any], Iterable[Any]]  # state -> the model's actions
Expansion = list[tuple[Any, Any]]  # (model action, state after it)


class MacroSteps(Driver[M]):
    """Base of the KRaft drivers (raft, voters): expansion of the macros (cached for the
    current state: the lockstep resolves every enabled one) with the driver's ``model.actions``
    and ``resolve``, and the guided runs' abstract state."""

    _expansions: tuple[Any, dict[Macro, Expansion | None]] = (None, {})
    # RAFT-STATE-PERSIST-BEFORE-SEND; RAFT-OBS-LISTENER-LEADER (a leader told after the commit);
    # RAFT-OBS-LISTENER-SNAPSHOT (a snapshot loaded before the commits past it)
    output_order = (ordering.PERSIST_BEFORE_SEND, ordering.LEADER_TOLD_AFTER_COMMIT,
                    ordering.SNAPSHOT_LOADED_BEFORE_COMMIT)

    # Whether the model tells a leader it leads at its epoch start, before the epoch commits
    # (Kafka 3.3-3.5, deviation raft-leader-told-before-epoch-commits): Kafka tells it inside
    # onBecomeLeader, ahead of the commit a lone voter makes in the same step, so the leader's
    # notice is ordered only where the rules hold it back until the commit.
    leader_told_at_epoch_start = False

    def output_kind(self, node: Any, output: Any) -> Any:
        """An output's type, a HandleLeaderChange that names the stepping replica itself as
        ``HandleLeaderChange(self)`` (ordering.LEADER_TOLD_AFTER_COMMIT)."""
        kind = super().output_kind(node, output)
        if kind == "HandleLeaderChange" and output.get("leader") == node and not self.leader_told_at_epoch_start:
            return "HandleLeaderChange(self)"
        return kind

    def guide_key(self, state: Any) -> Hashable:
        """The KRaft system state without its ghost history (which only the properties read:
        the same actions are enabled, so a path through representatives replays step for step)."""
        if isinstance(state, Raft):
            return replace(state, elected=frozenset(), votes=frozenset(), committed=frozenset())
        return state  # type: ignore[no-any-return]

    def expand(self, state: Any, macro: Macro) -> Expansion | None:
        """The model actions ``macro`` takes from ``state``, each with the state after it."""
        if self._expansions[0] is not state:
            self._expansions = (state, {})
        known = self._expansions[1]
        if macro not in known:
            known[macro] = expand(macro, state, self.model.actions, self.resolve)
        return known[macro]

    def resolve_macro(self, state: St, macro: Macro) -> St | None:
        """The state after ``macro`` (a state of the same class), or None when it is not enabled."""
        found = self.expand(state, macro)
        return None if found is None else cast(St, found[-1][1])

    def sub_steps(self, state: Any, macro: Macro) -> Expansion:
        """The expansion as (model action, state after) pairs; empty when not enabled."""
        return self.expand(state, macro) or []

    def macro_events(self, state: Any, macro: Macro) -> list[Event]:
        """The node-level events of the expansion's actions in order, each labelled with the
        model action that gave it."""
        out: list[Event] = []
        for action, after in self.sub_steps(state, macro):
            out += [replace(ev, label=self.describe(action)) for ev in self.events(state, action, after)]
            state = after
        return out

    def violated_within(self, state: Any, macro: Macro, properties: Sequence[Any]) -> str | None:
        """The first of ``properties`` that a step of ``macro``'s expansion breaks, or None."""
        for action, after in self.sub_steps(state, macro):
            broken = first_violated(properties, state, action, after)
            if broken is not None:
                return broken
            state = after
        return None


def candidates(state: Any) -> list[tuple[str, Macro]]:
    """The macros worth offering in ``state`` (``expand`` decides whether one is enabled):
    a round trip for every follower, a replication for every leader with a follower, a
    deposition for every leader and voter following it whose log is shorter than the leader's."""
    out: list[tuple[str, Macro]] = []
    nodes = [n for n in state.nodes if not isinstance(n.role, Down)]
    followed = {n.role.leader for n in nodes if isinstance(n.role, Follower)}
    for n in nodes:
        if isinstance(n.role, Follower):
            out.append(("round_trip", RoundTrip(n.id)))
        if isinstance(n.role, Leader) and n.id in followed:
            out.append(("replicate", Replicate(n.id)))
    for leader in (n for n in nodes if isinstance(n.role, Leader)):
        out += [("depose", Depose(leader.id, n.id)) for n in nodes
                if isinstance(n.role, Follower) and n.role.leader == leader.id and n.is_voter
                and len(n.log) < len(leader.log)]
    return out


# The categories of the raft driver's own macros (:func:`raft_candidates`).
RAFT_CATEGORIES = ("catch_up", "redeliver", "stray")


def raft_candidates(state: Any) -> list[tuple[str, Macro]]:
    """The macros only the raft driver offers: while some replica leads, a catch-up for every
    other live replica that follows a leader or is an observer without one (one replica ahead
    of the rest: a fast follower, an observer ahead of lagging voters), and a reclaim for every
    leader and voter following it whose log is shorter (a follower left with fewer entries of
    the diverging epoch than its leader, the case a truncation that forgets its own end misses)."""
    nodes = [n for n in state.nodes if not isinstance(n.role, Down)]
    # every response in flight, delivered twice (the driver's resolve decides whether the copy
    # changes nothing, else the macro is not enabled)
    responses = [m for m in sorted(state.network.distinct(), key=repr) if type(m).__name__.endswith("Response")]
    out: list[tuple[str, Macro]] = [("redeliver", DeliverTwice(m)) for m in responses]
    # a vote answer to a candidate, a fetch answer from a leader, held until the receiver's
    # epoch moved on with the same peer (RAFT-DRIVE-STALE-ANSWER)
    out += [("redeliver", Stale(m)) for m in responses
            if (isinstance(m, VoteResponse) and not m.pre_vote and isinstance(state.node(m.dst).role, Candidate))
            or (isinstance(m, FetchResponse) and m.error == "NONE" and isinstance(state.node(m.src).role, Leader))]
    # a follower's fetch answer, its copy arriving after later answers (RAFT-DRIVE-LATE-COPY)
    # (only while a leader has records past its high watermark: else no later answer raises it)
    if any(isinstance(n.role, Leader) and (n.high_watermark or 0) < n.end_offset for n in nodes):
        out += [("redeliver", DeliverLate(n.id)) for n in nodes
                if isinstance(n.role, Follower) or (not n.is_voter and not isinstance(n.role, Leader))]
        out += [("redeliver", LateFetch(n.id)) for n in nodes if isinstance(n.role, Follower)
                and len(n.log) < len(state.node(n.role.leader).log)]
    # an election that a voter knowing a high watermark, a leader or a resigned leader does
    # not hear
    out += [("stray", ElectWithout(n.id, a.id)) for a in nodes
            if a.is_voter and (a.high_watermark or isinstance(a.role, Leader | Resigned))
            for n in nodes if n.is_voter and n.id != a.id and isinstance(n.role, Follower | Unattached | Voted)]
    leaders = [n for n in nodes if isinstance(n.role, Leader)]
    if not leaders:
        return out + stray_candidates(state)
    out += [
        ("catch_up", CatchUp(n.id)) for n in nodes
        if isinstance(n.role, Follower) or (not n.is_voter and not isinstance(n.role, Leader))]
    for leader in leaders:
        out += [("depose", m) for n in nodes
                if isinstance(n.role, Follower) and n.role.leader == leader.id and n.is_voter
                and len(n.log) < len(leader.log)
                for m in (Reclaim(leader.id, n.id), DeposeCommitted(leader.id, n.id))]
        # a voter of the leader's epoch that follows no one (it voted, or heard nothing)
        out += [("stray", StrayCampaign(n.id)) for n in nodes
                if n.is_voter and n.epoch == leader.epoch and isinstance(n.role, Unattached | Voted)]
        # a follower ahead of another voter canvasses that voter alone
        out += [("stray", Canvass(n.id, v.id)) for n in nodes
                if isinstance(n.role, Follower) and n.role.leader == leader.id and n.is_voter
                for v in nodes if v.id not in (n.id, leader.id) and v.id in n.voters
                and len(v.log) < len(n.log)]
    return out + [c for c in stray_candidates(state) if c not in out]


def mid_round_candidates(state: Any) -> list[tuple[str, Macro]]:
    """RAFT-DRIVE-MID-ROUND: a first answer (category ``stray``) for every live voter that a
    timer makes stand (one that follows no one, follows, resigned, or backs off) and every
    other live voter it would ask."""
    live = {n.id for n in state.nodes if not isinstance(n.role, Down)}
    return [("stray", FirstAnswer(n.id, v)) for n in state.nodes
            if n.id in live and n.is_voter and (isinstance(n.role, Unattached | Voted | Follower | Resigned)
                                                 or (isinstance(n.role, Candidate) and n.role.backing_off))
            for v in sorted(n.voters) if v != n.id and v in live]


def _behind(state: Any, node: Any) -> bool:
    """Whether no majority of the voters has a log ``node``'s log is as up to date as (its
    campaign must lose: the others reject it on the log check)."""
    mine = (node.last_epoch, node.end_offset)
    up = [v for v in state.nodes if v.id in node.voters and mine >= (v.last_epoch, v.end_offset)]
    return 2 * len(up) <= len(node.voters)


def stray_candidates(state: Any) -> list[tuple[str, Macro]]:
    """A stray campaign (category ``stray``) for every live voter that follows no one and is
    behind a majority of the voters (raft_candidates adds one for a voter of a leader's epoch
    that never heard of it): a campaign that loses, rejected on the log check by replicas
    that may know no leader either."""
    return [("stray", StrayCampaign(n.id)) for n in state.nodes
            if n.is_voter and isinstance(n.role, Unattached | Voted) and _behind(state, n)]


def _new_messages(before: Any, after: Any, kind: type[Any] | tuple[type[Any], ...], *,
                  src: int | None = None, dst: int | None = None) -> list[Any]:
    """Messages of ``kind`` that ``after`` has more copies of than ``before`` (sorted by repr:
    the expansion must not depend on the network's iteration order)."""
    found = [m for m in after.network.distinct() if isinstance(m, kind)
             and (src is None or m.src == src) and (dst is None or m.dst == dst)
             and after.network.count(m) > before.network.count(m)]
    return sorted(found, key=repr)


def _fire(node: int, kinds: tuple[type, ...], state: Any, actions: Actions, resolve: Resolve,
          to: int | None = None) -> Expansion:
    for action in actions(state):
        if (isinstance(action, Fire) and action.node == node and isinstance(action.input, kinds)
                and (to is None or getattr(action.input, "to", None) == to)):
            after = resolve(state, action)
            if after is not None:
                return [(action, after)]
    return []


def _deliver(message: Any, state: Any, resolve: Resolve) -> Expansion:
    after = resolve(state, Deliver(message))
    return [] if after is None else [(Deliver(message), after)]


def _round_trip(node: int, state: Any, actions: Actions, resolve: Resolve, to: int | None = None) -> Expansion:
    steps = _fire(node, (FetchDue,), state, actions, resolve, to)
    if not steps:
        return []
    fired = steps[-1][1]
    # (a FetchSnapshot and its answer where a leader named its snapshot: KIP-630)
    for request in _new_messages(state, fired, (FetchRequest, FetchSnapshotRequest), src=node)[:1]:
        steps += _deliver(request, fired, resolve)
        if len(steps) == 2:
            answered = steps[-1][1]
            for response in _new_messages(fired, answered, (FetchResponse, FetchSnapshotResponse), dst=node)[:1]:
                steps += _deliver(response, answered, resolve)
    return steps


def _progress(state: Any) -> tuple[Any, ...]:
    # a follower that was named a snapshot (KIP-630) has progressed too: it fetches that next
    return tuple((n.log, n.high_watermark, n.log_start, getattr(n.role, "fetching_snapshot", None))
                 for n in state.nodes)


def _replicate(leader: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps: Expansion = []
    current = state
    for _ in range(MAX_REPLICATE_PASSES):
        before = _progress(current)
        followers = [n.id for n in current.nodes if isinstance(n.role, Follower) and n.role.leader == leader]
        for f in followers:
            trip = _round_trip(f, current, actions, resolve)
            if trip:
                steps += trip
                current = trip[-1][1]
        if _progress(current) == before:
            break
    return steps


def _campaign(node: int, state: Any, actions: Actions, resolve: Resolve, absent: int | None = None) -> Expansion:
    steps = _fire(node, (ElectionTimeout, FetchTimeout), state, actions, resolve)
    if not steps:
        return []
    current = steps[-1][1]
    for _ in range(MAX_CAMPAIGN_DELIVERIES):
        pending = [m for m in (_new_messages(state, current, VoteRequest, src=node)
                               + _new_messages(state, current, VoteResponse, dst=node))
                   if absent is None or absent not in (m.src, m.dst)]
        delivered = next((d for m in pending if (d := _deliver(m, current, resolve))), None)
        if delivered is None:
            break
        steps += delivered
        current = delivered[-1][1]
    if isinstance(current.node(node).role, Leader):
        for request in _new_messages(state, current, BeginQuorumEpochRequest, src=node):
            if request.dst == absent:
                continue  # ElectWithout delivers it
            delivered = _deliver(request, current, resolve)
            if delivered:
                steps += delivered
                current = delivered[-1][1]
    return steps


def _deliver_late(node: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    role = state.node(node).role
    answers = sorted((m for m in state.network.distinct() if isinstance(m, FetchResponse)
                      and isinstance(role, Follower) and m.src == role.leader and m.dst == node), key=repr)
    steps = next((d for m in answers if (d := _deliver(m, state, resolve))), None) or \
        _catch_up(node, state, actions, resolve)
    if not steps or not isinstance(steps[-1][0], Deliver) or not isinstance(steps[-1][0].message, FetchResponse):
        return []
    role = steps[-1][1].node(node).role
    if not isinstance(role, Follower):
        return []
    leader = role.leader
    first = steps[-1][0].message  # the answer at its log end, once caught up alone
    delivered = len(steps)
    steps += _replicate(leader, steps[-1][1], actions, resolve)
    later = any(isinstance(a, Deliver) and isinstance(a.message, FetchResponse) and a.message.src == leader
                and a.message.dst == node for a, _ in steps[delivered:])
    # only worth a step where a later answer moved the receiver's high watermark past the copy's
    later = later and steps[-1][1].node(node).high_watermark != steps[delivered - 1][1].node(node).high_watermark
    copy = Redeliver(first)
    after = resolve(steps[-1][1], copy) if later else None
    return [] if after is None else [*steps, (copy, after)]


def _follower_fetch(node: int, state: Any, actions: Actions, resolve: Resolve) -> tuple[Expansion, Any]:
    """Follower ``node``'s fetch timer to its leader fires: that step and the FetchRequest it
    sent, or ([], None)."""
    role = state.node(node).role
    if not isinstance(role, Follower):
        return [], None
    steps = _fire(node, (FetchDue,), state, actions, resolve, role.leader)
    requests = _new_messages(state, steps[-1][1], FetchRequest, src=node) if steps else []
    return (steps, requests[0]) if requests else ([], None)


def _late_fetch(node: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps, request = _follower_fetch(node, state, actions, resolve)
    if request is None:
        return []
    role = state.node(node).role  # a follower's (_follower_fetch)
    copied = resolve(steps[-1][1], Duplicate(request))
    if copied is None:
        return []
    steps.append((Duplicate(request), copied))
    steps += _deliver(request, copied, resolve)
    if len(steps) < 3:
        return []
    answered = steps[-1][1]
    steps += [d for m in _new_messages(copied, answered, FetchResponse, dst=node)[:1]
              for d in _deliver(m, answered, resolve)]
    before = steps[-1][1]
    steps += _catch_up(node, before, actions, resolve)
    hw_before = before.node(role.leader).high_watermark
    if steps[-1][1].node(role.leader).high_watermark == hw_before:
        return []  # the leader's high watermark did not move: the copy would show nothing new
    # (the copy is orphaned by now: its sender awaits a later fetch's answer)
    late = next((d for m in (request, replace(request, orphaned=True)) if (d := _deliver(m, steps[-1][1], resolve))),
                None)
    return steps + late if late else []


def _resign_and_stand(leader: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    """Leader ``leader``'s CheckQuorumTimeout, again where the first only ended a renewed
    check-quorum period (RAFT-RULE-CHECK-QUORUM-PERIOD: the next timeout resigns), then its
    campaign for the next epoch (:func:`_campaign`, won or not): the steps, or [] where no
    CheckQuorumTimeout fires (:class:`Stale`'s held fetch answer, :class:`HeldBeginAnswer`)."""
    steps = _fire(leader, (CheckQuorumTimeout,), state, actions, resolve)
    if steps and isinstance(steps[-1][1].node(leader).role, Leader):
        steps += _fire(leader, (CheckQuorumTimeout,), steps[-1][1], actions, resolve)
    if not steps:
        return []
    return steps + _campaign(leader, steps[-1][1], actions, resolve)


def _stale(message: Any, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps: Expansion = []
    current = state
    if isinstance(message, VoteResponse):
        # the candidate's timers until it stands in a later epoch (a kip-595 candidate backs
        # off first; a kip-996 one is prospective again, then a candidate)
        for _ in range(4):
            if current.node(message.dst).epoch > message.epoch:
                break
            fired = _fire(message.dst, (ElectionTimeout, BackoffExpired), current, actions, resolve)
            if not fired:
                return []
            steps += fired
            current = fired[-1][1]
    else:
        leader, follower = message.src, message.dst
        steps = _resign_and_stand(leader, current, actions, resolve)
        if not steps:
            return []
        current = steps[-1][1]
        role = current.node(follower).role
        if not (isinstance(role, Follower) and role.leader == leader):
            return []
    if current.node(message.dst).epoch <= message.epoch:
        return []
    # The model took the answer off the wire when its receiver moved on (Kafka's request
    # manager ignores it, RAFT-MODEL-IGNORED-RESPONSES): a copy the driver delivers, enabled
    # only where the receiver's step changes nothing, as for DeliverTwice.
    copy = Redeliver(message)
    after = resolve(current, copy)
    return [] if after is None else [*steps, (copy, after)]


def _held_grant(message: Any, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    node = message.dst
    if not isinstance(message, VoteResponse) or message.pre_vote or not isinstance(state.node(node).role, Candidate) \
            or state.node(node).epoch != message.epoch:
        return []
    steps = _fire(node, (ElectionTimeout,), state, actions, resolve)
    if not steps:
        return []
    current = steps[-1][1]
    if not (isinstance(current.node(node).role, Prospective) and current.node(node).epoch == message.epoch):
        return []  # a kip-595 candidate backs off instead: the answer would still count
    copy = Redeliver(message)
    after = resolve(current, copy)
    return [] if after is None else [*steps, (copy, after)]


def _begin_epoch_answer(leader: int, voter: int, state: Any, resolve: Resolve) -> Expansion:
    lead, follower = state.node(leader), state.node(voter)
    if not (isinstance(lead.role, Leader) and isinstance(follower.role, Follower) and follower.role.leader == leader
            and follower.epoch == lead.epoch and voter in lead.voters):
        return []
    answer = BeginQuorumEpochResponse(voter, leader, lead.epoch, leader)
    if state.network.count(answer):
        return _deliver(answer, state, resolve)
    after = resolve(state, Redeliver(answer))
    return [] if after is None else [(Redeliver(answer), after)]


def _elect_without(node: int, absent: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps = _campaign(node, state, actions, resolve, absent=absent)
    if not steps or not isinstance(steps[-1][1].node(node).role, Leader):
        return []
    current = steps[-1][1]
    if current.node(absent).epoch >= current.node(node).epoch:
        return []  # it heard of the epoch after all: a plain campaign
    found = _new_messages(state, current, BeginQuorumEpochRequest, src=node, dst=absent)
    delivered = next((d for m in found if (d := _deliver(m, current, resolve))), None)
    return [] if delivered is None else steps + delivered


def _one_answer(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> tuple[Expansion, Any]:
    """``node``'s timer fires and its vote request reaches ``voter``: those two steps and the
    first answer ``voter`` put on the wire (None where it sent none), or ([], None)."""
    steps = _fire(node, (ElectionTimeout, FetchTimeout, BackoffExpired), state, actions, resolve)
    if not steps:
        return [], None
    fired = steps[-1][1]
    for request in _new_messages(state, fired, VoteRequest, src=node, dst=voter)[:1]:
        steps += _deliver(request, fired, resolve)
    if len(steps) < 2:
        return [], None
    answers = _new_messages(fired, steps[-1][1], VoteResponse, src=voter, dst=node)
    return steps, answers[0] if answers else None


def _first_answer(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps, answer = _one_answer(node, voter, state, actions, resolve)
    if answer is None:
        return []
    fired = steps[0][1]
    steps += _deliver(answer, steps[-1][1], resolve)
    if len(steps) < 3:
        return []
    stood, now = fired.node(node).role, steps[-1][1].node(node).role
    counted = isinstance(now, Prospective | Candidate) and type(now) is type(stood) and now.epoch == stood.epoch \
        and voter in now.granted | now.rejected
    return steps if counted else []


MAX_ROUND_TIMERS = 3


def _held_fetch(node: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps, request = _follower_fetch(node, state, actions, resolve)
    if request is None:
        return []
    fired = steps[-1][1]
    steps += _deliver(request, fired, resolve)
    if len(steps) < 2:
        return []
    answers = [m for m in _new_messages(fired, steps[-1][1], FetchResponse, dst=node) if m.error == "NONE"]
    held = _stale(answers[0], steps[-1][1], actions, resolve) if answers else []
    return steps + held if held else []


def _held_begin_answer(leader: int, voter: int, epoch: int, state: Any, actions: Actions,
                       resolve: Resolve) -> Expansion:
    lead, follower = state.node(leader), state.node(voter)
    if not (isinstance(lead.role, Leader) and isinstance(follower.role, Follower) and follower.role.leader == leader
            and follower.epoch == lead.epoch and voter in lead.voters):
        return []
    if epoch:
        if not (0 < epoch < lead.epoch) or follower.role.fetched:
            return []
        copy = Redeliver(BeginQuorumEpochResponse(voter, leader, epoch, leader))
        after = resolve(state, copy)
        retried = [] if after is None else _retry(leader, voter, after, actions, resolve)
        return [(copy, after), *retried] if retried else []
    answer = BeginQuorumEpochResponse(voter, leader, lead.epoch, leader)
    steps = _resign_and_stand(leader, state, actions, resolve)
    if not steps:
        return []
    current = steps[-1][1]
    role = current.node(voter).role
    if not (isinstance(current.node(leader).role, Leader) and isinstance(role, Follower) and role.leader == leader
            and not role.fetched and current.node(voter).epoch > answer.epoch):
        return []
    # taken off the wire when the leader moved on (RAFT-MODEL-IGNORED-RESPONSES): a copy,
    # enabled only where the leader's step changes nothing
    copy = Redeliver(answer)
    after = resolve(current, copy)
    if after is None:
        return []
    retried = _retry(leader, voter, after, actions, resolve)
    return [*steps, (copy, after), *retried] if retried else []


def _retry(node: int, to: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps: Expansion = []
    current = state
    # what is in flight between them: the request (one its sender awaits) or the answer
    lost = sorted((m for m in state.network.distinct()
                   if (type(m).__name__.endswith("Request") and m.src == node and m.dst == to and not m.orphaned)
                   or (type(m).__name__.endswith("Response") and m.src == to and m.dst == node)), key=repr)
    for message in lost:
        for _ in range(state.network.count(message)):
            after = resolve(current, Drop(message))
            if after is None:
                return []
            steps.append((Drop(message), after))
            current = after
    fired = _fire(node, (ResendDue,), current, actions, resolve, to)
    return steps + fired if fired else []


def _late_vote(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps, answer = _one_answer(node, voter, state, actions, resolve)
    held = _stale(answer, steps[-1][1], actions, resolve) if answer is not None else []
    return steps + held if held else []


def _abandon_round(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps = _first_answer(node, voter, state, actions, resolve)
    if not steps:
        return []
    current = steps[-1][1]
    for _ in range(MAX_ROUND_TIMERS):
        fired = _fire(node, (ElectionTimeout, BackoffExpired), current, actions, resolve)
        if not fired:
            return []
        steps += fired
        current = fired[-1][1]
        role = current.node(node).role
        if isinstance(role, Prospective | Candidate) and not role.granted - {node} and not role.rejected:
            break  # standing in a new round
    else:
        return []
    if not isinstance(current.node(node).role, Prospective | Candidate):
        return []
    # the new round's requests (the old round's are orphaned: their answers are not awaited,
    # RAFT-MODEL-IGNORED-RESPONSES) and their answers, ``voter``'s last: a tally the old round
    # left shows only before the new round has heard from that voter again
    fresh = current
    for _ in range(MAX_CAMPAIGN_DELIVERIES):
        pending = sorted([m for m in current.network.distinct()
                          if isinstance(m, VoteRequest) and m.src == node and not m.orphaned]
                         + _new_messages(fresh, current, VoteResponse, dst=node),
                         key=lambda m: (voter in (m.src, m.dst), repr(m)))
        delivered = next((d for m in pending if (d := _deliver(m, current, resolve))), None)
        if delivered is None:
            break
        steps += delivered
        current = delivered[-1][1]
    return steps


def _canvass(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps = _fire(node, (ElectionTimeout, FetchTimeout), state, actions, resolve)
    if not steps:
        return []
    current = steps[-1][1]
    for _ in range(MAX_CAMPAIGN_DELIVERIES):
        them = current.node(voter).role
        if isinstance(them, Voted) and them.voted_for == node and them.epoch == current.node(node).epoch:
            # The vote stays on the wire: the candidate has not won. Its requests nobody
            # answers any more (a pre-vote the candidacy outran) arrive and change nothing.
            for request in _new_messages(state, current, VoteRequest, src=node):
                if request.orphaned and (d := _deliver(request, current, resolve)) \
                        and d[-1][1].node(request.dst) == current.node(request.dst):
                    steps += d
                    current = d[-1][1]
            return steps
        pending = (_new_messages(state, current, VoteRequest, src=node, dst=voter)
                   + _new_messages(state, current, VoteResponse, src=voter, dst=node))
        delivered = next((d for m in pending if (d := _deliver(m, current, resolve))), None)
        if delivered is None:
            break
        steps += delivered
        current = delivered[-1][1]
    return []  # the voter never voted for it: not a canvass


def _depose(leader: int, successor: int, state: Any, actions: Actions, resolve: Resolve,
            commit_first: bool = False) -> Expansion:
    old, new = state.node(leader), state.node(successor)
    if not isinstance(old.role, Leader) or len(new.log) >= len(old.log):
        return []  # nothing the successor lacks
    steps = _campaign(successor, state, actions, resolve)
    if not steps or not isinstance(steps[-1][1].node(successor).role, Leader):
        return []  # the successor did not win: not a deposition
    if commit_first:
        # the successor's other followers fetch until its high watermark is known
        others = [n.id for n in steps[-1][1].nodes if n.id != leader and isinstance(n.role, Follower)
                  and n.role.leader == successor]
        for _ in range(MAX_CATCH_UP_TRIPS):
            if steps[-1][1].node(successor).high_watermark is not None:
                break
            trips = [trip for f in others if (trip := _round_trip(f, steps[-1][1], actions, resolve))][:1]
            if not trips:
                break
            steps += trips[0]
        if steps[-1][1].node(successor).high_watermark is None:
            return []  # no follower committed the successor's epoch: a plain deposition
    # The old leader learnt of the new epoch (BeginQuorumEpoch) and now fetches from it.
    for _ in range(2):
        trip = _round_trip(leader, steps[-1][1], actions, resolve)
        if not trip:
            break
        steps += trip
    return steps


MAX_CATCH_UP_TRIPS = 4


def _catch_up(node: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps: Expansion = []
    current = state
    if not isinstance(current.node(node).role, Follower):
        # an observer without a leader asks each voter until an answer names the leader, the
        # leader's followers first: at the leader's epoch a follower's NOT_LEADER_OR_FOLLOWER
        # answer is what names the leader (RAFT-RULE-RESPONSE step 3), where the leader's own
        # answer is a fetch served (RAFT-DRIVE-OBSERVER-EPOCH)
        voters = sorted(current.node(node).voters,
                        key=lambda v: (not isinstance(current.node(v).role, Follower), v))
        for voter in voters:
            trip = _round_trip(node, current, actions, resolve, to=voter)
            if trip:
                steps += trip
                current = trip[-1][1]
            if isinstance(current.node(node).role, Follower):
                break
        if not isinstance(current.node(node).role, Follower):
            return []
    for _ in range(MAX_CATCH_UP_TRIPS):
        before = _progress(current)
        trip = _round_trip(node, current, actions, resolve)
        if not trip:
            break
        steps += trip
        current = trip[-1][1]
        if _progress(current) == before:
            break
    return steps


def _reclaim(leader: int, successor: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    old, new = state.node(leader), state.node(successor)
    if not isinstance(old.role, Leader) or len(new.log) >= len(old.log):
        return []
    steps = _campaign(successor, state, actions, resolve)
    if not steps or not isinstance(steps[-1][1].node(successor).role, Leader):
        return []
    back = _campaign(leader, steps[-1][1], actions, resolve)
    if not back or not isinstance(back[-1][1].node(leader).role, Leader):
        return []  # no voter left that lacks the successor's epoch: not a reclaim
    steps += back
    for _ in range(2):
        trip = _round_trip(successor, steps[-1][1], actions, resolve)
        if not trip:
            break
        steps += trip
    return steps


def _deliver_twice(message: Any, state: Any, resolve: Resolve) -> Expansion:
    steps = _deliver(message, state, resolve)
    if not steps:
        return []
    copy = Redeliver(message)
    after = resolve(steps[-1][1], copy)
    return [] if after is None else [*steps, (copy, after)]


def _in_turn(steps: Sequence[Any], state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    """The expansions of ``steps`` one after the other (each from where the one before ended);
    empty where one of them is not enabled."""
    out: Expansion = []
    current = state
    for macro in steps:
        found = expand(macro, current, actions, resolve)
        if found is None:
            return []
        out += found
        current = found[-1][1]
    return out


def _canvass_then_stand(node: int, voter: int, state: Any, actions: Actions, resolve: Resolve) -> Expansion:
    steps = _canvass(node, voter, state, actions, resolve)
    if steps:  # then the voter stands itself (a stray campaign, mostly lost)
        steps += _campaign(voter, steps[-1][1], actions, resolve)
    return steps


# Each macro's (expander, one-line description): the table ``expand`` and ``describe`` read
# (a new macro is one row here; MACRO_TYPES, what the drivers test actions against, is its keys).
# An expander takes (macro, state, the model's actions, resolve).
Expander = Callable[[Any, Any, Actions, Resolve], Expansion]
MACROS: dict[type[Macro], tuple[Expander, Callable[[Any], str]]] = {
    RoundTrip: (lambda m, s, a, r: _round_trip(m.node, s, a, r),
                lambda m: f"replica {m.node}: fetch round trip"),
    Replicate: (lambda m, s, a, r: _replicate(m.leader, s, a, r),
                lambda m: f"replica {m.leader}: replicate to its followers"),
    Campaign: (lambda m, s, a, r: _campaign(m.node, s, a, r),
               lambda m: f"replica {m.node}: campaign"),
    Depose: (lambda m, s, a, r: _depose(m.leader, m.successor, s, a, r),
             lambda m: f"replica {m.successor} deposes replica {m.leader}"),
    CatchUp: (lambda m, s, a, r: _catch_up(m.node, s, a, r),
              lambda m: f"replica {m.node}: catch up alone"),
    Reclaim: (lambda m, s, a, r: _reclaim(m.leader, m.successor, s, a, r),
              lambda m: f"replica {m.successor} deposes replica {m.leader}, which wins back"),
    DeliverTwice: (lambda m, s, a, r: _deliver_twice(m.message, s, r),
                   lambda m: f"deliver {describe_message(m.message)} twice"),
    DeposeCommitted: (lambda m, s, a, r: _depose(m.leader, m.successor, s, a, r, commit_first=True),
                      lambda m: f"replica {m.successor} deposes replica {m.leader} and commits before it fetches"),
    StrayCampaign: (lambda m, s, a, r: _campaign(m.node, s, a, r),
                    lambda m: f"replica {m.node}: campaign without having heard of its epoch's leader"),
    Canvass: (lambda m, s, a, r: _canvass_then_stand(m.node, m.voter, s, a, r),
              lambda m: f"replica {m.node}: stand, heard only by replica {m.voter}, which votes and then stands"),
    DeliverLate: (lambda m, s, a, r: _deliver_late(m.node, s, a, r),
                  lambda m: f"replica {m.node}: fetch answer, replication, then a late copy of the answer"),
    LateFetch: (lambda m, s, a, r: _late_fetch(m.node, s, a, r),
                lambda m: f"replica {m.node}: fetch (duplicated), catch up alone, then the old fetch's copy arrives"),
    Stale: (lambda m, s, a, r: _stale(m.message, s, a, r),
            lambda m: f"{describe_message(m.message)} held until its receiver's epoch moved on, then delivered"),
    FirstAnswer: (lambda m, s, a, r: _first_answer(m.node, m.voter, s, a, r),
                  lambda m: f"replica {m.node}: stand, only replica {m.voter}'s answer arrives"),
    AbandonRound: (lambda m, s, a, r: _abandon_round(m.node, m.voter, s, a, r),
                   lambda m: f"replica {m.node}: stand, only replica {m.voter}'s answer arrives, then stand again"),
    LateVote: (lambda m, s, a, r: _late_vote(m.node, m.voter, s, a, r),
               lambda m: f"replica {m.node}: stand, replica {m.voter}'s answer held until it stood again"),
    HeldFetch: (lambda m, s, a, r: _held_fetch(m.node, s, a, r),
                lambda m: f"replica {m.node}: fetch answer held until its leader resigned and won the next epoch"),
    HeldBeginAnswer: (lambda m, s, a, r: _held_begin_answer(m.leader, m.voter, m.epoch, s, a, r),
                      lambda m: f"replica {m.voter}'s answer to replica {m.leader}'s BeginQuorumEpoch held until "
                                "the leader resigned and won again, then delivered, and a resend to it"),
    HeldGrant: (lambda m, s, a, r: _held_grant(m.message, s, a, r),
                lambda m: f"{describe_message(m.message)} held while its candidate became prospective, then delivered"),
    BeginEpochAnswer: (lambda m, s, a, r: _begin_epoch_answer(m.leader, m.voter, s, r),
                       lambda m: f"replica {m.voter}'s answer to replica {m.leader}'s BeginQuorumEpoch arrives"),
    Retry: (lambda m, s, a, r: _retry(m.node, m.to, s, a, r),
            lambda m: f"replica {m.node}: its request to replica {m.to} is lost and sent again"),
    ElectWithout: (lambda m, s, a, r: _elect_without(m.node, m.absent, s, a, r),
                   lambda m: f"replica {m.node}: campaign and win without replica {m.absent}, which then hears of it"),
    PastBound: (lambda m, s, a, r: _in_turn(m.steps, s, a, r),
                lambda m: "; ".join(describe(x) for x in m.steps) + " (one epoch past the bound)"),
}
MACRO_TYPES: tuple[type[Macro], ...] = tuple(MACROS)


def describe(macro: Macro) -> str:
    """One line naming the macro."""
    return MACROS[type(macro)][1](macro)


def expand(macro: Macro, state: Any, actions: Actions, resolve: Resolve) -> Expansion | None:
    """The model actions ``macro`` takes from ``state``, each with the state after it; None
    when its first action is not enabled (then the macro is not)."""
    return MACROS[type(macro)][0](macro, state, actions, resolve) or None
