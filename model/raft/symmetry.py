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
from kspec.model.core.symmetry import canonical_under_renaming
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
        case Unattached():
            return r
        case Voted(epoch=e, voted_for=v):
            return Voted(e, p.get(v, v))
        case Candidate():
            return replace(r, granted=_ids(p, r.granted), rejected=_ids(p, r.rejected))
        case Prospective():
            return replace(r, prior=_election(p, r.prior), granted=_ids(p, r.granted), rejected=_ids(p, r.rejected))
        case Leader():
            return replace(r, end_offsets=tuple(sorted((p.get(k, k), o) for k, o in r.end_offsets)),
                           fetched=_ids(p, r.fetched))
        case Follower(epoch=e, leader=leader):
            return Follower(e, p.get(leader, leader))
        case Down(election=e):
            return Down(_election(p, e))
    return r


def _node(p: Perm, n: Node) -> Node:
    return replace(n, id=p.get(n.id, n.id), voters=_ids(p, n.voters), role=_role(p, n.role))


def _message(p: Perm, m: Message) -> Message:
    changes: dict[str, Any] = {"src": p.get(m.src, m.src), "dst": p.get(m.dst, m.dst)}
    if not isinstance(m, BeginQuorumEpochRequest | FetchRequest | EndQuorumEpochRequest) and hasattr(m, "leader"):
        changes["leader"] = _id(p, m.leader)
    if isinstance(m, EndQuorumEpochRequest):
        changes["preferred"] = tuple(p.get(x, x) for x in m.preferred)
    return replace(m, **changes)


def permute(state: Any, p: Perm) -> Any:
    """The state with every voter id renamed by ``p`` (nodes reordered to match)."""
    nodes = sorted((_node(p, n) for n in state.nodes), key=lambda n: n.id)
    network: Bag[Message] = Bag(frozenset((_message(p, m), c) for m, c in state.network.items))
    return replace(
        state,
        nodes=tuple(nodes),
        network=network,
        elected=frozenset((e, p.get(leader, leader)) for e, leader in state.elected),
        votes=frozenset((p.get(v, v), e, p.get(c, c)) for v, e, c in state.votes),
    )


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
