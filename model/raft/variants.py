"""Deliberately broken variants of the KRaft model, one per property.

Each wraps the correct ``node.step`` with one known bug class, so the explorer must find a
short trace to the property it breaks (or show a witness is never reached). A property no
variant can break would be toothless; ``tests/raft/test_raft_variants.py`` holds each to it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft import node as node_mod
from kspec.model.raft.messages import (
    CheckQuorumTimeout,
    FetchResponse,
    Input,
    Output,
    Restart,
    VoteRequest,
)
from kspec.model.raft.rules import majority_end_offset
from kspec.model.raft.state import Down, Election, Follower, Leader, Node, Unattached, Voted
from kspec.model.raft.system import RaftModel

StepFn = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


def vote_twice(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A voter that already voted in an epoch grants another candidate too."""
    if isinstance(inp, VoteRequest) and not inp.pre_vote and isinstance(node.role, Voted) \
            and inp.epoch == node.epoch and node.role.voted_for != inp.src:
        node = replace(node, role=Unattached(node.epoch))
    return node_mod.step(node, inp)


def restart_forgets_vote(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The vote is not persisted: a restarted voter may vote again in the same epoch."""
    if isinstance(inp, Restart) and isinstance(node.role, Down) and node.role.election.voted_for not in (None,
                                                                                                        node.id):
        node = replace(node, role=Down(Election(node.role.election.epoch)))
    return node_mod.step(node, inp)


def quorum_state_lost(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The quorum-state file is not read on restart: the epoch comes from the log alone."""
    if isinstance(inp, Restart) and isinstance(node.role, Down):
        return replace(node, role=Unattached(node.last_epoch), high_watermark=None), ()
    return node_mod.step(node, inp)


def vote_ignores_log(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """Votes are granted without checking that the candidate's log is up to date."""
    if isinstance(inp, VoteRequest):
        inp = replace(inp, last_epoch=10**6)
    return node_mod.step(node, inp)


def leader_commits_alone(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The leader's high watermark is its own log end: no majority needed."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(after.role, Leader):
        after = replace(after, high_watermark=after.end_offset)
    return after, outputs


def follower_hw_uncapped(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A follower takes the leader's high watermark without capping it at its own log end."""
    after, outputs = node_mod.step(node, inp)
    if (isinstance(inp, FetchResponse) and isinstance(after.role, Follower) and inp.error == "NONE"
            and inp.diverging is None and inp.high_watermark is not None and inp.src == after.role.leader):
        after = replace(after, high_watermark=max(inp.high_watermark, after.high_watermark or 0))
    return after, outputs


def hw_without_epoch_guard(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A new leader keeps the high watermark it had and recomputes it from the offsets it has
    seen, without waiting for its epoch's LeaderChange record to commit."""
    after, outputs = node_mod.step(node, inp)
    if isinstance(after.role, Leader):
        offsets = dict(after.role.end_offsets)
        offsets[after.id] = after.end_offset
        hw = majority_end_offset(offsets, after.voters)
        if not isinstance(node.role, Leader) and node.high_watermark is not None:
            hw = min(hw, node.high_watermark) if hw < node.high_watermark else hw
        after = replace(after, high_watermark=hw)
    return after, outputs


def never_resigns(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A leader that never resigns when a majority stops fetching (no check-quorum)."""
    if isinstance(inp, CheckQuorumTimeout):
        return node, ()
    return node_mod.step(node, inp)


def ignores_diverging_epoch(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A follower that ignores the diverging epoch in a fetch response and never truncates."""
    if isinstance(inp, FetchResponse) and inp.diverging is not None:
        return node, ()
    return node_mod.step(node, inp)


# name -> (step function, what it breaks, the bounds that show it quickly)
CATALOGUE: dict[str, tuple[StepFn, str, dict[str, Any]]] = {
    "vote-twice": (vote_twice, "ElectionSafety", {}),
    "restart-forgets-vote": (restart_forgets_vote, "VoteOnce", {}),
    "quorum-state-lost": (quorum_state_lost, "EpochMonotonic", {}),
    "vote-ignores-log": (vote_ignores_log, "LeaderCompleteness", {}),
    "leader-commits-alone": (leader_commits_alone, "HighWatermarkDurable", {}),
    "follower-hw-uncapped": (follower_hw_uncapped, "HighWatermarkDurable", {}),
    "hw-without-epoch-guard": (hw_without_epoch_guard, "HighWatermarkMonotonic", {}),
    "never-resigns": (never_resigns, "LeaderResignsCheckQuorum", {}),
    "ignores-diverging-epoch": (ignores_diverging_epoch, "FollowerTruncates", {}),
}


def _factory(step: StepFn) -> Callable[..., RaftModel]:
    def make(**bounds: Any) -> RaftModel:
        return RaftModel(step=step, **bounds)

    return make


VARIANTS: dict[str, Callable[..., RaftModel]] = {name: _factory(fn) for name, (fn, _, _) in CATALOGUE.items()}
