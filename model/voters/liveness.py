"""Voter-set liveness: an AddVoter or RemoveVoter the leader accepted eventually completes
(its VotersRecord commits) or fails (the record is truncated away), spec/voters.md §Liveness.

The suffix is KRaft's (``kspec.model.raft.liveness``: faults stop, timely delivery, detector
timeouts, epochs renumbered) with the reconfiguration environment stopped too: no new
AddVoter, RemoveVoter, snapshot or kraft.version upgrade after the last fault.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from kspec.model.core.evolve import evolve as replace
from kspec.model.core.liveness import LivenessProperty
from kspec.model.raft import node as raft_node
from kspec.model.raft.liveness import RaftSuffix
from kspec.model.raft.messages import Entry, FetchRequest, FetchResponse, Input, Output
from kspec.model.raft.state import Leader, Node
from kspec.model.raft.system import Action, Raft
from kspec.model.voters.control import KRAFT_VERSION, VOTERS
from kspec.model.voters.system import Voters, VotersModel


def pending_changes(s: Raft) -> frozenset[Hashable]:
    """The VotersRecords a leader holds above its high watermark: accepted, not yet committed."""
    out: set[Hashable] = set()
    for n in s.nodes:
        if isinstance(n.role, Leader):
            hw = n.high_watermark or 0
            out |= {(o, e) for o, e in enumerate(n.log) if o >= hw and e.kind == VOTERS}
    return frozenset(out)


VOTERS_LIVENESS: tuple[LivenessProperty[Raft, Action], ...] = (
    LivenessProperty("VOTERS-LIVE-RECONFIG-COMPLETES", "ReconfigurationCompletes", "not_stuck", pending_changes,
                     "Once faults stop, an accepted AddVoter/RemoveVoter commits or is truncated away.",
                     # VOTERS-LIVE-BOUNDS: at max_epoch=2 (the default) the suffix graph is too big to
                     # check in a command's time (killed after 15 min wall, ~1 GB): not-checked there.
                     applies=lambda b: int(b.get("max_epoch", 1)) <= 1),
)


class VotersSuffix(RaftSuffix):
    """KRaft's suffix over the voter-set model, the reconfiguration counters dropped."""

    def canonical(self, state: Raft) -> Raft:
        assert isinstance(state, Voters)
        return super().canonical(replace(state, adds=0, removes=0, snapshots=0, upgrades=0))

    def properties(self) -> Sequence[LivenessProperty[Raft, Action]]:
        return VOTERS_LIVENESS


def make_suffix(model: VotersModel) -> VotersSuffix:
    """``ProtocolInfo.liveness`` for voters."""
    return VotersSuffix(model)


# ---------------------------------------------------------------- variants

RaftStep = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


def _is_change(log: tuple[Entry, ...], offset: int) -> bool:
    """Whether the VotersRecord at ``offset`` of ``log`` is a reconfiguration's: not one written
    right after a KRaftVersionRecord (the first leader's copy of the bootstrap set,
    VOTERS-RULE-FIRST-LEADER, or the upgrade's), which the variants leave alone so that the
    quorum still starts."""
    return log[offset].kind == VOTERS and not (offset > 0 and log[offset - 1].kind == KRAFT_VERSION)


def hw_stops_at_voters_record(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The leader never moves its high watermark past an uncommitted VotersRecord (it waits
    for a majority of a voter set that cannot form)."""
    after, outputs = raft_node.step(node, inp)
    if isinstance(after.role, Leader) and after.high_watermark is not None:
        before_hw = node.high_watermark if isinstance(node.role, Leader) else None
        for o in range(len(after.log)):
            if _is_change(after.log, o) and o >= (before_hw or 0) and after.high_watermark > o:
                after = replace(after, high_watermark=before_hw)
                break
    return after, outputs


def leader_withholds_voters_record(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """The leader does not send an uncommitted VotersRecord to fetching followers (it sends the
    records before it only), so the record can never reach a majority."""
    after, outputs = raft_node.step(node, inp)
    if isinstance(inp, FetchRequest) and isinstance(after.role, Leader):
        hw = after.high_watermark or 0
        fixed = []
        for out in outputs:
            if isinstance(out, FetchResponse) and out.entries:
                keep = []
                for k, e in enumerate(out.entries):
                    if _is_change(after.log, out.offset + k) and out.offset + k >= hw:
                        break
                    keep.append(e)
                out = replace(out, entries=tuple(keep))
            fixed.append(out)
        outputs = tuple(fixed)
    return after, outputs


def follower_drops_voters_record(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
    """A follower ignores a fetch response carrying a VotersRecord (it fails to apply it and
    retries from the same offset forever)."""
    if isinstance(inp, FetchResponse) and inp.entries:
        log = node.log[:inp.offset] + inp.entries
        if any(_is_change(log, inp.offset + k) for k in range(len(inp.entries))):
            return node, ()
    return raft_node.step(node, inp)


LIVENESS_VARIANTS: dict[str, RaftStep] = {
    "hw-stops-at-voters-record": hw_stops_at_voters_record,
    "leader-withholds-voters-record": leader_withholds_voters_record,
    "follower-drops-voters-record": follower_drops_voters_record,
}


def _factory(step: RaftStep) -> Callable[..., VotersModel]:
    def make(**bounds: Any) -> VotersModel:
        return VotersModel(raft_step=step, **bounds)

    return make


VARIANTS: dict[str, Callable[..., VotersModel]] = {name: _factory(s) for name, s in LIVENESS_VARIANTS.items()}
