"""Symmetry reduction for the KRaft system model: voters are interchangeable.

Renaming the voters by a permutation maps a reachable state to a reachable state with the
same properties, so the explorer needs to visit one state per orbit. ``canonical`` picks the
orbit's representative; the explorer keys its visited set by it (as TLC's SYMMETRY does)
while the traces it reports stay made of real, replayable steps. Observers are not permuted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace
from kspec.model.core.symmetry import (
    PermKey,
    canonical_under_renaming,
    memo_by_identity,
    memo_by_value,
    perm_key,
)
from kspec.model.raft.messages import (
    BeginQuorumEpochRequest,
    EndQuorumEpochRequest,
    FetchRequest,
    Message,
)
from kspec.model.raft.state import (
    Candidate,
    Down,
    Election,
    Follower,
    Leader,
    Node,
    Prospective,
    Role,
    Unattached,
    Voted,
)

Perm = Mapping[int, int]


def _id(p: Perm, x: int | None) -> int | None:
    return None if x is None else p.get(x, x)


def _ids(p: Perm, xs: frozenset[int]) -> frozenset[int]:
    return frozenset(p.get(x, x) for x in xs)


def _election(p: Perm, e: Election) -> Election:
    return Election(e.epoch, _id(p, e.voted_for), _id(p, e.leader))


def _role(p: Perm, r: Role) -> Role:
    match r:
        case Unattached(leader=leader):
            return r if leader is None else replace(r, leader=p.get(leader, leader))
        case Voted(epoch=e, voted_for=v, leader=leader):
            return Voted(e, p.get(v, v), _id(p, leader))
        case Candidate():
            return replace(r, granted=_ids(p, r.granted), rejected=_ids(p, r.rejected))
        case Prospective():
            return replace(r, prior=_election(p, r.prior), granted=_ids(p, r.granted), rejected=_ids(p, r.rejected))
        case Leader():
            return replace(r, end_offsets=tuple(sorted((p.get(k, k), o) for k, o in r.end_offsets)),
                           fetched=_ids(p, r.fetched))
        case Follower(epoch=e, leader=leader, voted_for=v):
            return replace(r, leader=p.get(leader, leader), voted_for=_id(p, v))
        case Down(election=e):
            return Down(_election(p, e))
    return r


def _node(p: Perm, n: Node) -> Node:
    listener = n.listener
    if listener is not None and listener.told_leader is not None:
        listener = replace(listener, told_leader=p.get(listener.told_leader, listener.told_leader))
    return replace(n, id=p.get(n.id, n.id), voters=_ids(p, n.voters), role=_role(p, n.role), listener=listener)


def _message(p: Perm, m: Message) -> Message:
    changes: dict[str, Any] = {"src": p.get(m.src, m.src), "dst": p.get(m.dst, m.dst)}
    if not isinstance(m, BeginQuorumEpochRequest | FetchRequest | EndQuorumEpochRequest) and hasattr(m, "leader"):
        changes["leader"] = _id(p, m.leader)
    if isinstance(m, EndQuorumEpochRequest):
        changes["preferred"] = tuple(p.get(x, x) for x in m.preferred)
    return replace(m, **changes)


def _network(p: Perm, items: frozenset[tuple[Message, int]]) -> frozenset[tuple[Message, int]]:
    return frozenset((_message(p, m), c) for m, c in items)


def _elected(p: Perm, elected: frozenset[tuple[int, int]]) -> frozenset[tuple[int, int]]:
    return frozenset((e, p.get(leader, leader)) for e, leader in elected)


def _votes(p: Perm, votes: frozenset[tuple[int, int, int]]) -> frozenset[tuple[int, int, int]]:
    return frozenset((p.get(v, v), e, p.get(c, c)) for v, e, c in votes)


# Memoised renamings of a state's parts (see kspec.model.core.symmetry): a replica by identity,
# the frozensets by value.
node_renamed = memo_by_identity(_node)
network_renamed = memo_by_value(_network)
elected_renamed = memo_by_value(_elected)
votes_renamed = memo_by_value(_votes)


def _node_id(n: Node) -> int:
    return n.id


def permute_parts(state: Any, p: Perm, pk: PermKey, node: Any = node_renamed,
                  messages: Any = network_renamed) -> dict[str, Any]:
    """The renamed parts a raft state shares with its extensions: nodes (renamed by ``node``,
    reordered), network (its items renamed by ``messages``), elected and votes."""
    network: Bag[Message] = Bag(messages(p, pk, state.network.items))
    return {
        "nodes": tuple(sorted((node(p, pk, n) for n in state.nodes), key=_node_id)),
        "network": network,
        "elected": elected_renamed(p, pk, state.elected),
        "votes": votes_renamed(p, pk, state.votes),
    }


def permute(state: Any, p: Perm) -> Any:
    """The state with every voter id renamed by ``p`` (nodes reordered to match)."""
    return replace(state, **permute_parts(state, p, perm_key(p)))


def _signature(n: Node) -> tuple[Any, ...]:
    """What a replica looks like without its id: renaming voters does not change it."""
    log = tuple((e.epoch, e.kind, e.payload) for e in n.log)
    return (type(n.role).__name__, n.epoch, log, -1 if n.high_watermark is None else n.high_watermark)


def make_canonical(voters: frozenset[int]) -> Callable[[Any], Any]:
    """A function from a state to its orbit's representative under voter renaming.

    Only renamings that sort the voters by their id-free signature are tried (ties try every
    order), which is one renaming for most states; the representative is the candidate with
    the smallest hash (then repr). Signatures are renaming-invariant, so every state of an
    orbit yields the same candidates and the same representative.
    """
    return canonical_under_renaming(voters, _signature, permute)
