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

from kspec.model.core.evolve import evolve as replace
from kspec.model.core.symmetry import canonical_under_renaming, memo_by_identity, memo_by_value, perm_key
from kspec.model.raft import symmetry as raft_sym
from kspec.model.raft.messages import Entry, FetchResponse, Message
from kspec.model.voters.control import VOTERS, ControlState, voters_entry, voters_of
from kspec.model.voters.history import LogHistory, VoterSet, VoterSetHistory
from kspec.model.voters.node import JOIN_REQUEST_TYPES, VoterNode

Perm = Mapping[int, int]


def _set(p: Perm, voters: VoterSet) -> VoterSet:
    return frozenset((p.get(r, r), p.get(d, d)) for r, d in voters)


# Memoised renamings (see kspec.model.core.symmetry): voter sets and the committed set by
# value (frozensets cache their hash), logs, control states and replicas by identity.
_set_m = memo_by_value(_set)


def _entry(p: Perm, e: Entry) -> Entry:
    return voters_entry(e.epoch, _set_m(p, perm_key(p), voters_of(e))) if e.kind == VOTERS else e


def _entries(p: Perm, entries: tuple[Entry, ...]) -> tuple[Entry, ...]:
    if not any(e.kind == VOTERS for e in entries):
        return entries
    return tuple(_entry(p, e) for e in entries)


_entries_m = memo_by_identity(_entries)


def _control(p: Perm, c: ControlState) -> ControlState:
    pk = perm_key(p)
    h = c.voters
    hist = LogHistory(tuple((o, _set_m(p, pk, v)) for o, v in h.history.entries), h.history.min_offset)
    return replace(c, voters=VoterSetHistory(_set_m(p, pk, h.static), hist))


_control_m = memo_by_identity(_control)


def _node(p: Perm, n: Any) -> Any:
    assert isinstance(n, VoterNode)
    pk = perm_key(p)
    # raft's renaming covers id, voters and role; the rest names ids too.
    m = raft_sym._node(p, n)
    snap = n.snapshot
    if snap is not None and snap.voters is not None:
        snap = replace(snap, voters=_set_m(p, pk, snap.voters))
    marks = tuple(sorted((p.get(r, r), e, c) for r, e, c in n.fetch_marks)) if n.fetch_marks else ()
    known = tuple(sorted((p.get(r, r), p.get(d, d), k) for r, d, k in n.upgrade_voters)) if n.upgrade_voters else ()
    return replace(m, log=_entries_m(p, pk, n.log), control=_control_m(p, pk, n.control), snapshot=snap,
                   static=_set_m(p, pk, n.static), fetch_marks=marks, upgrade_voters=known,
                   bootstrap_servers=frozenset(p.get(r, r) for r in n.bootstrap_servers))


_node_m = memo_by_identity(_node)


def _message(p: Perm, m: Message) -> Message:
    out = raft_sym._message(p, m)
    if isinstance(out, FetchResponse) and out.entries:
        out = replace(out, entries=_entries_m(p, perm_key(p), out.entries))
    if isinstance(out, JOIN_REQUEST_TYPES):
        # an auto-join request (the voters model's own message, VOTERS-RULE-AUTO-JOIN): the key it
        # names is a host's, and a host's directory is its id (VOTERS-MODEL-DIRS)
        join: Any = out
        out = replace(join, replica=p.get(join.replica, join.replica), directory=p.get(join.directory, join.directory))
    return out


def _network(p: Perm, items: frozenset[tuple[Message, int]]) -> frozenset[tuple[Message, int]]:
    return frozenset((_message(p, m), c) for m, c in items)


_network_m = memo_by_value(_network)


def _committed(p: Perm, committed: frozenset[tuple[int, Entry, int]]) -> frozenset[tuple[int, Entry, int]]:
    return frozenset((o, _entry(p, e), ep) for o, e, ep in committed)


_committed_m = memo_by_value(_committed)


def permute(state: Any, p: Perm) -> Any:
    """The state with every renamed replica id (and directory id) replaced, nodes reordered."""
    pk = perm_key(p)
    parts = raft_sym.permute_parts(state, p, pk, node=_node_m, messages=_network_m)
    return replace(state, **parts, committed=_committed_m(p, pk, state.committed))


def _signature(n: Any) -> tuple[Any, ...]:
    """What a replica looks like without ids: renaming does not change it."""
    log = tuple((e.epoch, e.kind, len(e.payload)) for e in n.log)
    snap = -1 if n.snapshot is None else n.snapshot.end_offset  # -1: sorts with ints
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
