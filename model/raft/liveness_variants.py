"""Deliberately broken KRaft variants for the liveness properties (spec/raft.md §Liveness).

Two kinds: a replica step with a bug that stalls progress (``node.step`` wrapped, as in
``variants.py``), and a timer order the correct protocol does not allow (a release without
randomised timeouts or backoff lets replicas expire together: ``LiveRaftModel.timers``).
``tests/raft/test_raft_liveness.py`` holds each to the properties it must break.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft import node as node_mod
from kspec.model.raft.liveness import LiveRaftModel, TimerOrder
from kspec.model.raft.messages import BackoffExpired, ElectionTimeout, Input, Output, VoteRequest, VoteResponse
from kspec.model.raft.state import Candidate, Node, Prospective

StepFn = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


def candidate_never_retries(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A candidate that lost its election never starts another one (its backoff timer is
    never armed)."""
    if isinstance(inp, BackoffExpired) and isinstance(node.role, Candidate):
        return node, ()
    return node_mod.step(node, inp)


def prospective_never_gives_up(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A prospective replica neither returns to its prior state when a majority rejects its
    pre-vote nor when its election timer expires: it waits for a grant or a leader."""
    if isinstance(node.role, Prospective):
        if isinstance(inp, ElectionTimeout):
            return node, ()
        if isinstance(inp, VoteResponse) and inp.pre_vote and not inp.granted:
            return replace(node, role=replace(node.role, rejected=frozenset())), ()
    return node_mod.step(node, inp)


def prospective_ignores_timeout(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A prospective replica whose election timer expires stays prospective (it only leaves
    on the pre-vote responses, which may have been lost)."""
    if isinstance(node.role, Prospective) and isinstance(inp, ElectionTimeout):
        return node, ()
    return node_mod.step(node, inp)


def rejects_pre_votes(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A voter that answers every pre-vote with a rejection (e.g. it compares the pre-vote's
    epoch with its own plus one): no prospective can ever win."""
    if isinstance(inp, VoteRequest) and inp.pre_vote:
        after, outputs = node_mod.step(node, inp)
        return after, tuple(replace(o, granted=False) if isinstance(o, VoteResponse) else o for o in outputs)
    return node_mod.step(node, inp)


def restores_into_prospective(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A prospective replica that loses its pre-vote (a majority rejects, or its timer
    expires) "returns" to a prior state captured after it became prospective: it stays
    prospective, asking nobody."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(node.role, Prospective) and not isinstance(after.role, Prospective | Candidate) \
            and after.epoch == node.epoch and isinstance(inp, ElectionTimeout | VoteResponse) \
            and not (isinstance(inp, VoteResponse) and inp.leader is not None and inp.epoch == node.epoch):
        return replace(node, role=replace(node.role, granted=frozenset({node.id}), rejected=frozenset())), ()
    return after, outputs


@dataclass(frozen=True, slots=True)
class LivenessVariant:
    """A liveness variant: the properties it breaks and the bounds that show it quickly."""

    breaks: tuple[str, ...]
    step: StepFn | None = None
    timers: TimerOrder = "solo"
    bounds: dict[str, Any] = field(default_factory=dict)
    doc: str = ""


_SMALL = {"max_epoch": 1, "max_appends": 0}
_PRE_VOTE = {"pre_vote": True, "max_epoch": 1, "max_appends": 0}

CATALOGUE: dict[str, LivenessVariant] = {
    "lockstep-timers": LivenessVariant(
        ("EventuallyStableLeader", "NoElectionLivelock", "NotStuckCandidate"), timers="lockstep",
        bounds={**_SMALL, "max_crashes": 0},
        doc="election timeouts and backoff without randomisation: replicas may expire together"),
    "lockstep-backoff": LivenessVariant(
        ("EventuallyStableLeader", "NoElectionLivelock", "NotStuckCandidate"), timers="lockstep-backoff",
        bounds={**_SMALL, "max_crashes": 0, "max_elections": 3},
        doc="backoff after a lost election without jitter: the losers retry together"),
    "candidate-never-retries": LivenessVariant(
        ("EventuallyStableLeader", "NotStuckCandidate"), step=candidate_never_retries,
        bounds={**_SMALL, "max_crashes": 0, "max_elections": 3}),
    "prospective-never-gives-up": LivenessVariant(
        ("EventuallyStableLeader", "NotStuckProspective"), step=prospective_never_gives_up, bounds=_PRE_VOTE),
    "prospective-ignores-timeout": LivenessVariant(
        ("NotStuckProspective",), step=prospective_ignores_timeout, bounds=_PRE_VOTE),
    "restores-into-prospective": LivenessVariant(
        ("EventuallyStableLeader", "NotStuckProspective"), step=restores_into_prospective, bounds=_PRE_VOTE),
    "rejects-pre-votes": LivenessVariant(
        ("EventuallyStableLeader", "NoElectionLivelock"), step=rejects_pre_votes, bounds=_PRE_VOTE),
}


def _factory(v: LivenessVariant) -> Callable[..., LiveRaftModel]:
    def make(**bounds: Any) -> LiveRaftModel:
        if v.step is not None:
            bounds = {**bounds, "step": v.step}
        return LiveRaftModel(timers=v.timers, **bounds)

    return make


VARIANTS: dict[str, Callable[..., LiveRaftModel]] = {name: _factory(v) for name, v in CATALOGUE.items()}
