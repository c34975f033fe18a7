"""Symmetry reduction for the voter-set system model: the initial voters are interchangeable
(VOTERS-MODEL-SYMMETRY).

Renaming the initial voters by a permutation (hosts that start as observers stay fixed) maps
a reachable state to a reachable state with the same properties: the model orders no replica
ids, the directory of a host is its id (VOTERS-MODEL-DIRS), and ``initial_voters`` is the set
renamed. Beyond what raft's renaming covers (:mod:`kspec.model.raft.symmetry`), a voter-set
state names replica ids in the VotersRecords (in logs, in fetch responses, in the ghost
``committed`` set), in each replica's voter-set history, latest snapshot and static set.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace
from kspec.model.core.symmetry import canonical_under_renaming
from kspec.model.raft import symmetry as raft_sym
from kspec.model.raft.messages import Entry, FetchResponse, Message
from kspec.model.voters.control import VOTERS, ControlState, voters_entry, voters_of
from kspec.model.voters.history import LogHistory, VoterSet, VoterSetHistory
from kspec.model.voters.node import VoterNode

Perm = Mapping[int, int]


def _set(p: Perm, voters: VoterSet) -> VoterSet:
    return frozenset((p.get(r, r), p.get(d, d)) for r, d in voters)


def _entry(p: Perm, e: Entry) -> Entry:
    return voters_entry(e.epoch, _set(p, voters_of(e))) if e.kind == VOTERS else e


def _entries(p: Perm, entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    if not any(e.kind == VOTERS for e in entries):
        return entries
    return tuple(_entry(p, e) for e in entries)


def _control(p: Perm, c: ControlState) -> ControlState:
    h = c.voters
    hist = LogHistory(tuple((o, _set(p, v)) for o, v in h.history.entries), h.history.min_offset)
    return replace(c, voters=VoterSetHistory(_set(p, h.static), hist))


def _node(p: Perm, n: Any) -> Any:
    assert isinstance(n, VoterNode)
    # raft's renaming covers id, voters and role; the rest names ids too.
    m = raft_sym._node(p, n)
    snap = n.snapshot
    if snap is not None and snap.voters is not None:
        snap = replace(snap, voters=_set(p, snap.voters))
    return replace(m, log=_entries(p, n.log), control=_control(p, n.control), snapshot=snap,
                   static=_set(p, n.static))


def _message(p: Perm, m: Message) -> Message:
    out = raft_sym._message(p, m)
    if isinstance(out, FetchResponse) and out.entries:
        out = replace(out, entries=_entries(p, out.entries))
    return out


def permute(state: Any, p: Perm) -> Any:
    """The state with every renamed replica id (and directory id) replaced, nodes reordered."""
    nodes = sorted((_node(p, n) for n in state.nodes), key=lambda n: n.id)
    network: Bag[Message] = Bag(frozenset((_message(p, m), c) for m, c in state.network.items))
    return replace(
        state,
        nodes=tuple(nodes),
        network=network,
        elected=frozenset((e, p.get(leader, leader)) for e, leader in state.elected),
        votes=frozenset((p.get(v, v), e, p.get(c, c)) for v, e, c in state.votes),
        committed=frozenset((o, _entry(p, e), ep) for o, e, ep in state.committed),
    )


def _signature(n: Any) -> tuple[Any, ...]:
    """What a replica looks like without ids: renaming does not change it."""
    log = tuple((e.epoch, e.kind, len(e.payload)) for e in n.log)
    snap = None if n.snapshot is None else n.snapshot.end_offset
    return (type(n.role).__name__, n.epoch, log, -1 if n.high_watermark is None else n.high_watermark, snap,
            n.id in n.voters, len(n.voters))


def make_canonical(renamed: frozenset[int]) -> Callable[[Any], Any]:
    """A function from a state to its orbit's representative under renamings of ``renamed``.

    As in raft: only renamings that sort the renamed replicas by their id-free signature are
    tried (ties try every order); the representative is the candidate with the smallest hash
    (then repr). Signatures are renaming-invariant, so every state of an orbit yields the same
    candidates and so the same representative.
    """
    return canonical_under_renaming(renamed, _signature, permute)
