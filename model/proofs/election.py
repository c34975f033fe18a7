"""The vote-granting rules of one KRaft epoch as a small Python transition system.

This is what RAFT-PROOF-ONE-LEADER-PER-EPOCH is about: replicas ``0..n-1``, a fixed voter set,
each replica's log summary (last epoch, end offset), each replica's persisted vote
(Kafka's ``votedId`` in the quorum-state file) and, per candidate, the votes it has been granted.
Three actions:

* ``grant(voter, candidate)`` — a voter grants its vote when it has not voted in this epoch or
  already voted for this candidate, and the candidate's log is up to date
  (``rules.log_up_to_date``); the vote is persisted and the candidate records it;
* ``lead(candidate)`` — a candidate whose granted votes are a quorum of the voters
  (``rules.is_quorum``) becomes leader;
* ``restart(voter)`` — only in the *forgetful* variant: the voter restarts having lost its
  persisted vote, so it may vote again in the same epoch. Kafka forbids this by writing
  ``votedId`` to disk before answering.

Only voters vote and only voters stand as candidates. A candidate's own vote is a
``grant(c, c)``. Steps return ``None`` when the action is not enabled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from kspec.model.raft import rules

ActionKind = Literal["grant", "lead", "restart"]


@dataclass(frozen=True, slots=True)
class ElectionState:
    """One epoch's election state over replicas ``0..len(voted)-1``."""

    voters: frozenset[int]
    last_epoch: tuple[int, ...]
    end_offset: tuple[int, ...]
    voted: tuple[int | None, ...]
    granted: tuple[frozenset[int], ...]
    leaders: frozenset[int]

    @property
    def size(self) -> int:
        """The number of replicas."""
        return len(self.voted)


@dataclass(frozen=True, slots=True)
class ElectionAction:
    """``grant`` uses voter and candidate, ``lead`` the candidate, ``restart`` the voter."""

    kind: ActionKind
    voter: int = 0
    candidate: int = 0


def initial(voters: frozenset[int], last_epoch: tuple[int, ...], end_offset: tuple[int, ...]) -> ElectionState:
    """The start of an epoch: nobody has voted, nobody leads."""
    n = len(last_epoch)
    return ElectionState(voters, last_epoch, end_offset, (None,) * n, (frozenset(),) * n, frozenset())


def step(state: ElectionState, action: ElectionAction, *, forgetful: bool = False) -> ElectionState | None:
    """The state after ``action``, or None when it is not enabled."""
    v, c = action.voter, action.candidate
    if action.kind == "grant":
        if v not in state.voters or c not in state.voters:
            return None
        if state.voted[v] not in (None, c):
            return None
        if not rules.log_up_to_date(state.last_epoch[c], state.end_offset[c], state.last_epoch[v], state.end_offset[v]):
            return None
        voted = (*state.voted[:v], c, *state.voted[v + 1:])
        granted = (*state.granted[:c], state.granted[c] | {v}, *state.granted[c + 1:])
        return replace(state, voted=voted, granted=granted)
    if action.kind == "lead":
        if c not in state.voters or not rules.is_quorum(state.granted[c], state.voters):
            return None
        return replace(state, leaders=state.leaders | {c})
    if action.kind == "restart":
        if not forgetful or v not in state.voters:
            return None
        return replace(state, voted=(*state.voted[:v], None, *state.voted[v + 1:]))
    raise ValueError(f"unknown election action {action.kind!r}")
