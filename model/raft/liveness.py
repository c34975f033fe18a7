"""KRaft liveness: what every fair behaviour does once the network is healthy again.

After the last fault (drop, duplicate, crash) the suffix runs under the timing assumptions
of spec/raft.md §Liveness:

- RAFT-LIVE-ASSUME-TIMELY: a message in flight is delivered before any timer expires (the
  round trip is far shorter than the timeouts) — with randomised election timeouts and
  backoff this is the set of timer orders Kafka allows: one replica's timer expires alone;
- RAFT-LIVE-ASSUME-DETECTOR: a follower's fetch timeout and a leader's check-quorum timeout
  expire only when what they detect is true (the follower's leader no longer leads its
  epoch; a majority no longer follows the leader);
- weak fairness on every delivery and every timer; client appends stop with the faults
  (they are not needed for progress and would make the suffix infinite).

Epochs only grow, so an election that repeats forever never returns to the same state; the
suffix keys states by their epochs renumbered from the lowest (``shift_epochs``: every
comparison the protocol makes is between epochs, or against 0 meaning "no epoch"), so such a
livelock closes a cycle. The suffix bound is ``max_epoch + EXTRA_EPOCHS`` after renumbering:
a behaviour that needs more elections than that after the last fault is a bounded-liveness
violation of the properties that say so.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, Literal

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace
from kspec.model.core.liveness import LivenessProperty
from kspec.model.raft import node as node_mod
from kspec.model.raft.epochs import map_epochs
from kspec.model.raft.messages import (
    BackoffExpired,
    CheckQuorumTimeout,
    ClientAppend,
    ElectionTimeout,
    Entry,
    FetchDue,
    FetchTimeout,
    ResendDue,
    Restart,
    VoteRequest,
)
from kspec.model.raft.rules import is_quorum
from kspec.model.raft.state import Candidate, Down, Follower, Leader, Prospective
from kspec.model.raft.system import Action, Deliver, Fire, Raft, RaftModel, describe_action, fetch_in_flight

# Timer orders after faults stop: ``solo`` (randomised timeouts and backoff: a timer expires
# alone, after everything in flight is delivered); ``lockstep`` (no randomisation: besides the
# solo orders, the election timers of every replica that has one running may expire in the
# same instant, a ``Together`` step); ``lockstep-backoff`` (only the backoff after a lost
# election lacks jitter: the backing-off candidates may retry together).
TimerOrder = Literal["solo", "lockstep", "lockstep-backoff"]


@dataclass(frozen=True, slots=True)
class Together:
    """Timers of several replicas expire in the same instant (a timer order without jitter):
    each replica handles its expiry before any message is delivered."""

    fires: tuple[Fire, ...]

ELECTION_TIMERS = (ElectionTimeout, FetchTimeout, BackoffExpired)

# Elections the suffix allows after the last fault, beyond ``max_epoch`` (after renumbering).
EXTRA_EPOCHS = 2


class LiveRaftModel(RaftModel):
    """The KRaft model with a timer order other than the randomised one (a liveness variant)."""

    def __init__(self, *, timers: TimerOrder = "solo", **bounds: Any) -> None:
        super().__init__(**bounds)
        self.timers: TimerOrder = timers

    def describe_action(self, action: Any) -> str:
        if isinstance(action, Together):
            return "together: " + "; ".join(describe_action(f) for f in action.fires)
        return describe_action(action)


# ---------------------------------------------------------------- epoch renumbering

_LOG_EPOCH_FIELDS = frozenset({"last_epoch", "last_fetched_epoch"})


def _min_epochs(value: Any, acc: list[int]) -> None:
    """acc = [lowest replica/message epoch, lowest non-zero log epoch]."""
    if isinstance(value, Entry):
        if value.epoch and value.epoch < acc[1]:
            acc[1] = value.epoch
        return
    if isinstance(value, tuple | frozenset):
        for v in value:
            _min_epochs(v, acc)
        return
    if isinstance(value, Bag):
        for m, _ in value.items:
            _min_epochs(m, acc)
        return
    if not is_dataclass(value):
        return
    for f in fields(value):
        v = getattr(value, f.name)
        if f.name == "epoch" and isinstance(v, int):
            if v < acc[0]:
                acc[0] = v
        elif f.name in _LOG_EPOCH_FIELDS and isinstance(v, int):
            if v and v < acc[1]:
                acc[1] = v
        elif f.name == "diverging" and v is not None:
            if v[0] and v[0] < acc[1]:
                acc[1] = v[0]
        else:
            _min_epochs(v, acc)


# Replica and message epochs, and the log epochs a message or a state names.
_SHIFTED = frozenset({"epoch"}) | _LOG_EPOCH_FIELDS


def _shift(value: Any, by: int) -> Any:
    return map_epochs(value, lambda e: e - by, _SHIFTED)


def shift_amount(state: Raft) -> int:
    """The most every epoch of ``state`` can be lowered by while replica and message epochs
    stay >= 0 and non-zero log epochs >= 1."""
    lo = min(n.epoch for n in state.nodes)
    if lo <= 0:
        return 0
    for n in state.nodes:
        # A log's epochs never decrease: its first entry has the lowest.
        if n.log and n.log[0].epoch - 1 < lo:
            lo = n.log[0].epoch - 1
            if lo <= 0:
                return 0
    acc = [lo, lo + 1]
    _min_epochs(state.nodes, acc)
    _min_epochs(state.network, acc)
    by = min(acc[0], acc[1] - 1)
    for msg in state.network.distinct():
        # A vote's last epoch stays below its epoch (RAFT-RULE-INVALID-REQUEST): a last epoch
        # of 0 ("empty log") is not lowered, so its epoch may not reach 0.
        if isinstance(msg, VoteRequest) and not msg.pre_vote and msg.last_epoch == 0:
            by = min(by, msg.epoch - 1)
    return int(max(0, by))


def shift_epochs(state: Raft) -> Raft:
    """``state`` with every epoch lowered by ``shift_amount`` (0 means "no epoch" and stays):
    the same behaviours follow, since the protocol only compares epochs with each other and
    with 0."""
    by = shift_amount(state)
    if by <= 0:
        return state
    return replace(state, nodes=_shift(state.nodes, by), network=_shift(state.network, by))


# ---------------------------------------------------------------- the suffix


class RaftSuffix:
    """The KRaft suffix (see the module docstring): no faults, timing assumptions, renumbered
    epochs, weak fairness on every action."""

    def __init__(self, model: RaftModel) -> None:
        self.model = model
        self.timers: TimerOrder = model.timers if isinstance(model, LiveRaftModel) else "solo"
        # The same model without its environment counters: after the last fault, timers and
        # fetches are unbounded (the epoch bound below keeps the graph finite).
        self._inner = copy.copy(model)
        self._inner.bounds = {**model.bounds, "max_elections": 1 << 30, "max_fetches": 1 << 30,
                              "max_appends": 0, "max_crashes": 0, "max_duplicates": 0}
        self._max_epoch = int(model.bounds["max_epoch"]) + EXTRA_EPOCHS

    def enter(self, state: Raft) -> Raft:
        return state

    def canonical(self, state: Raft) -> Raft:
        # The environment counters and the ghost history serve the fault phase and the
        # safety properties; the suffix is keyed without them.
        return shift_epochs(replace(state, appends=0, crashes=0, duplicates=0, fetches=0, elections=0,
                                    elected=frozenset(), votes=frozenset(), committed=frozenset()))

    def within_bounds(self, state: Raft) -> bool:
        return max(n.epoch for n in state.nodes) - shift_amount(state) <= self._max_epoch

    def fair_class(self, action: Action | Together) -> Hashable | None:
        # Every delivery and timer is weakly fair; expiring together is allowed, never owed.
        return None if isinstance(action, Together) else action

    def next_state(self, state: Raft, action: Action | Together) -> Raft | None:
        if isinstance(action, Together):
            after: Raft | None = state
            for fire in action.fires:
                after = None if after is None else self._inner.next_state(after, fire)
            return after
        return self._inner.next_state(state, action)

    def actions(self, state: Raft) -> Iterator[Action | Together]:
        deliverable = [m for m in state.network.distinct() if not isinstance(state.node(m.dst).role, Down)]
        for m in deliverable:
            yield Deliver(m)
        for n in state.nodes:
            if isinstance(n.role, Down):
                yield Fire(n.id, Restart())
        if deliverable:
            return
        timers = list(self._timers(state))
        yield from timers
        group = tuple(t for t in timers if self._lockstep(t.input))
        if len(group) > 1:
            yield Together(group)

    def deferred(self, state: Raft) -> Iterator[Action]:
        """The timers RAFT-LIVE-ASSUME-TIMELY holds back while messages are in flight: they
        keep running, so weak fairness still counts them as enabled."""
        if any(not isinstance(state.node(m.dst).role, Down) for m in state.network.distinct()):
            yield from self._timers(state)

    def _timers(self, state: Raft) -> Iterator[Fire]:
        for n in state.nodes:
            if isinstance(n.role, Down):
                continue
            for inp in node_mod.enabled_inputs(n):
                if isinstance(inp, ClientAppend | ResendDue):
                    # (a resend is a fault-phase input with its own budget: the suffix is judged
                    # on the timers alone, which must make progress without it)
                    continue
                if isinstance(inp, FetchDue) and fetch_in_flight(state, n.id):
                    continue
                if isinstance(inp, FetchTimeout) and (_leads(state, n.role) or _fetch_informs(state, n.role)):
                    continue
                if isinstance(inp, CheckQuorumTimeout) and _majority_follows(state, n):
                    continue
                yield Fire(n.id, inp)

    def _lockstep(self, inp: Any) -> bool:
        """Does this timer expire together with the others of its kind (no jitter)?"""
        if self.timers == "lockstep":
            return isinstance(inp, ELECTION_TIMERS)
        if self.timers == "lockstep-backoff":
            return isinstance(inp, BackoffExpired)
        return False

    def properties(self) -> Sequence[LivenessProperty[Raft, Action]]:
        return RAFT_LIVENESS

    def describe_state(self, state: Any) -> str:
        return str(self.model.describe_state(state))

    def describe_action(self, action: Any) -> str:
        if isinstance(action, Together):
            return "together: " + "; ".join(describe_action(f) for f in action.fires)
        return str(self.model.describe_action(action))


def _leads(state: Raft, role: Any) -> bool:
    """The follower's leader leads the follower's epoch (RAFT-LIVE-ASSUME-DETECTOR)."""
    if not isinstance(role, Follower):
        return False
    leader = state.node(role.leader).role
    return isinstance(leader, Leader) and leader.epoch == role.epoch


def _fetch_informs(state: Raft, role: Any) -> bool:
    """The follower's leader is up in a higher epoch: its next fetch (the fetch interval is far
    shorter than the fetch timeout) is answered with that epoch (RAFT-LIVE-ASSUME-FETCH-FIRST)."""
    if not isinstance(role, Follower):
        return False
    leader = state.node(role.leader).role
    return not isinstance(leader, Down) and leader.epoch > role.epoch


def _majority_follows(state: Raft, n: Any) -> bool:
    """A majority of voters (the leader included) follow the leader in its epoch."""
    following = frozenset(m.id for m in state.nodes if m.id == n.id or (
        isinstance(m.role, Follower) and m.role.leader == n.id and m.role.epoch == n.epoch))
    return is_quorum(following & n.voters, n.voters)


def make_suffix(model: RaftModel) -> RaftSuffix:
    """``ProtocolInfo.liveness`` for raft."""
    return RaftSuffix(model)


# ---------------------------------------------------------------- properties


def stable_leader(s: Raft) -> bool:
    """A leader leads the highest epoch and every other voter follows it in that epoch."""
    leaders = [n for n in s.nodes if isinstance(n.role, Leader)]
    top = max(n.epoch for n in s.nodes)
    for lead in leaders:
        if lead.epoch != top:
            continue
        if all(isinstance(n.role, Follower) and n.role.leader == lead.id and n.epoch == top
               for n in s.nodes if n.id != lead.id and n.id in lead.voters):
            return True
    return False


def starts_election(before: Raft, _action: Action, after: Raft) -> bool:
    """Some replica starts an election: it becomes prospective or a candidate from another
    role, or a candidate of a new epoch."""
    for b, a in zip(before.nodes, after.nodes, strict=True):
        if isinstance(a.role, Prospective | Candidate) and (
                type(b.role) is not type(a.role) or b.epoch != a.epoch):
            return True
    return False


def candidates(s: Raft) -> frozenset[Hashable]:
    """The replicas that are candidates."""
    return frozenset(n.id for n in s.nodes if isinstance(n.role, Candidate))


def prospectives(s: Raft) -> frozenset[Hashable]:
    """The replicas that are prospective (pre-vote)."""
    return frozenset(n.id for n in s.nodes if isinstance(n.role, Prospective))


RAFT_LIVENESS: tuple[LivenessProperty[Raft, Action], ...] = (
    LivenessProperty("RAFT-LIVE-STABLE-LEADER", "EventuallyStableLeader", "eventually_always", stable_leader,
                     "Once faults stop, a leader is eventually elected that every voter follows, and it stays.",
                     ),
    LivenessProperty("RAFT-LIVE-NO-LIVELOCK", "NoElectionLivelock", "eventually_never_step", starts_election,
                     "Once faults stop, elections eventually stop starting."),
    LivenessProperty("RAFT-LIVE-NOT-STUCK-CANDIDATE", "NotStuckCandidate", "not_stuck", candidates,
                     "No replica stays a candidate forever once faults stop."),
    LivenessProperty("RAFT-LIVE-NOT-STUCK-PROSPECTIVE", "NotStuckProspective", "not_stuck", prospectives,
                     "No replica stays prospective forever once faults stop (pre-vote).",
                     applies=lambda b: bool(b.get("pre_vote"))),
)
