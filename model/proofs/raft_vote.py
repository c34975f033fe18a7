"""At most one leader per epoch (RAFT-INV-ELECTION-SAFETY) from the vote-granting rules.

The Z3 encoding mirrors :func:`kspec.model.proofs.election.step` action by action. The proof is
inductive: the invariant

* every vote a candidate has been granted is the voter's persisted vote (so the granted sets
  of two candidates are disjoint),
* every leader's granted votes are a quorum of the voters,
* at most one candidate leads,

holds initially and is preserved by every step, for every voter set within ``PROOF_REPLICAS``
replicas, every log summary and every reachable-or-not state satisfying it. The forgetful
variant (a restarted voter loses its vote) is refuted by a bounded run from the initial state,
and the run is replayed through the Python transition system.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import z3  # type: ignore[import-untyped]  # z3-solver ships no type information

from kspec.model.proofs import election
from kspec.model.proofs import encode_raft as enc
from kspec.model.proofs.obligation import Obligation, Query, Replay

PROOF_REPLICAS = 7
VARIANT_REPLICAS = 3
VARIANT_STEPS = 8

GRANT, LEAD, RESTART = 0, 1, 2
KINDS: dict[int, election.ActionKind] = {GRANT: "grant", LEAD: "lead", RESTART: "restart"}
NO_VOTE = -1


@dataclass(frozen=True, slots=True)
class SymState:
    """A symbolic :class:`~kspec.model.proofs.election.ElectionState`; a vote of -1 is none."""

    voters: enc.BitSet
    last_epoch: tuple[enc.Expr, ...]
    end_offset: tuple[enc.Expr, ...]
    voted: tuple[enc.Expr, ...]
    granted: tuple[enc.BitSet, ...]
    leaders: enc.BitSet

    @property
    def size(self) -> int:
        return len(self.voted)


@dataclass(frozen=True, slots=True)
class SymAction:
    """A symbolic action: kind (GRANT, LEAD, RESTART), voter, candidate."""

    kind: enc.Expr
    voter: enc.Expr
    candidate: enc.Expr


def sym_state(prefix: str, n: int, voters: enc.BitSet | None = None,
              logs: tuple[tuple[enc.Expr, ...], tuple[enc.Expr, ...]] | None = None) -> SymState:
    """Fresh variables for a state; voters and logs may be shared with another state."""
    last_epoch, end_offset = logs if logs is not None else (
        tuple(z3.Int(f"{prefix}_last_epoch_{i}") for i in range(n)),
        tuple(z3.Int(f"{prefix}_end_offset_{i}") for i in range(n)))
    return SymState(
        voters=voters if voters is not None else enc.bitset(f"{prefix}_voter", n),
        last_epoch=last_epoch,
        end_offset=end_offset,
        voted=tuple(z3.Int(f"{prefix}_voted_{i}") for i in range(n)),
        granted=tuple(enc.bitset(f"{prefix}_granted_{c}", n) for c in range(n)),
        leaders=enc.bitset(f"{prefix}_leader", n),
    )


def sym_action(prefix: str) -> SymAction:
    """Fresh variables for an action."""
    return SymAction(z3.Int(f"{prefix}_kind"), z3.Int(f"{prefix}_voter"), z3.Int(f"{prefix}_candidate"))


def _pick(index: enc.Expr, items: Sequence[enc.Expr]) -> enc.Expr:
    """``items[index]`` for a symbolic index known to be in range."""
    out = items[-1]
    for i in reversed(range(len(items) - 1)):
        out = z3.If(index == i, items[i], out)
    return out


def well_formed(s: SymState) -> list[enc.Expr]:
    """Premises: votes name a replica or nobody; log summaries are non-negative."""
    n = s.size
    return ([z3.And(v >= NO_VOTE, v < n) for v in s.voted]
            + [e >= 0 for e in s.last_epoch] + [o >= 0 for o in s.end_offset])


def action_in_range(a: SymAction, forgetful: bool) -> enc.Expr:
    """Premise: the action's kind and replicas are in range (RESTART only when forgetful)."""
    top = RESTART if forgetful else LEAD
    return z3.And(a.kind >= GRANT, a.kind <= top, a.voter >= 0, a.candidate >= 0)


def enabled(s: SymState, a: SymAction, forgetful: bool) -> enc.Expr:
    """The encoding of the preconditions in ``election.step``."""
    n = s.size
    v, c = a.voter, a.candidate
    in_range = z3.And(v < n, c < n)
    voter_votes = _pick(v, s.voters)
    candidate_votes = _pick(c, s.voters)
    own_vote = _pick(v, s.voted)
    grant = z3.And(
        voter_votes, candidate_votes,
        z3.Or(own_vote == NO_VOTE, own_vote == c),
        enc.log_up_to_date(_pick(c, s.last_epoch), _pick(c, s.end_offset),
                           _pick(v, s.last_epoch), _pick(v, s.end_offset)),
    )
    lead = z3.And(candidate_votes, _pick(c, [enc.is_quorum(g, s.voters) for g in s.granted]))
    restart = z3.And(z3.BoolVal(forgetful), voter_votes)
    return z3.And(in_range, z3.If(a.kind == GRANT, grant, z3.If(a.kind == LEAD, lead, restart)))


def post(s: SymState, a: SymAction) -> SymState:
    """The encoding of the updates in ``election.step`` (meaningful where enabled)."""
    n = s.size
    v, c = a.voter, a.candidate
    is_grant, is_lead, is_restart = a.kind == GRANT, a.kind == LEAD, a.kind == RESTART
    voted = tuple(
        z3.If(z3.And(is_grant, v == i), c, z3.If(z3.And(is_restart, v == i), NO_VOTE, s.voted[i]))
        for i in range(n))
    granted = tuple(
        tuple(z3.Or(s.granted[k][i], z3.And(is_grant, c == k, v == i)) for i in range(n))
        for k in range(n))
    leaders = tuple(z3.Or(s.leaders[k], z3.And(is_lead, c == k)) for k in range(n))
    return SymState(s.voters, s.last_epoch, s.end_offset, voted, granted, leaders)


def equal(s: SymState, t: SymState) -> enc.Expr:
    """Two symbolic states are the same state."""
    parts = [x == y for x, y in zip(s.voted, t.voted, strict=True)]
    parts += [x == y for gs, gt in zip(s.granted, t.granted, strict=True) for x, y in zip(gs, gt, strict=True)]
    parts += [x == y for x, y in zip(s.leaders, t.leaders, strict=True)]
    parts += [x == y for x, y in zip(s.voters, t.voters, strict=True)]
    parts += [x == y for x, y in zip(s.last_epoch + s.end_offset, t.last_epoch + t.end_offset, strict=True)]
    return z3.And(*parts)


def transition(s: SymState, a: SymAction, t: SymState, forgetful: bool) -> enc.Expr:
    """``t`` is ``election.step(s, a)`` and that step is enabled."""
    return z3.And(action_in_range(a, forgetful), enabled(s, a, forgetful), equal(post(s, a), t))


def is_initial(s: SymState) -> enc.Expr:
    """``election.initial``: nobody voted, no votes granted, no leader."""
    return z3.And(*[v == NO_VOTE for v in s.voted], *[z3.Not(b) for g in s.granted for b in g],
                  *[z3.Not(b) for b in s.leaders])


def at_most_one_leader(s: SymState) -> enc.Expr:
    """RAFT-INV-ELECTION-SAFETY within the epoch."""
    return enc.card(s.leaders) <= 1


def invariant(s: SymState) -> enc.Expr:
    """The inductive invariant (see the module docstring)."""
    n = s.size
    votes_persisted = [z3.Implies(s.granted[c][i], s.voted[i] == c) for c in range(n) for i in range(n)]
    leaders_have_quorum = [z3.Implies(s.leaders[c], enc.is_quorum(s.granted[c], s.voters)) for c in range(n)]
    return z3.And(*votes_persisted, *leaders_have_quorum, at_most_one_leader(s))


# --- decoding and replay -----------------------------------------------------------------------

def concrete_state(model: Any, s: SymState) -> election.ElectionState:
    """The Python state a Z3 model gives a symbolic state."""
    votes = [enc.int_value(model, v) for v in s.voted]
    return election.ElectionState(
        voters=enc.bitset_value(model, s.voters),
        last_epoch=tuple(enc.int_value(model, e) for e in s.last_epoch),
        end_offset=tuple(enc.int_value(model, o) for o in s.end_offset),
        voted=tuple(None if v == NO_VOTE else v for v in votes),
        granted=tuple(enc.bitset_value(model, g) for g in s.granted),
        leaders=enc.bitset_value(model, s.leaders),
    )


def concrete_action(model: Any, a: SymAction) -> election.ElectionAction:
    """The Python action a Z3 model gives a symbolic action."""
    return election.ElectionAction(KINDS[enc.int_value(model, a.kind)], enc.int_value(model, a.voter),
                                   enc.int_value(model, a.candidate))


def _state_json(s: election.ElectionState) -> dict[str, Any]:
    return {"voters": sorted(s.voters), "last_epoch": list(s.last_epoch), "end_offset": list(s.end_offset),
            "voted": list(s.voted), "granted": [sorted(g) for g in s.granted], "leaders": sorted(s.leaders)}


def _action_json(a: election.ElectionAction) -> dict[str, Any]:
    if a.kind == "grant":
        return {"action": "grant", "voter": a.voter, "candidate": a.candidate}
    if a.kind == "lead":
        return {"action": "lead", "candidate": a.candidate}
    return {"action": "restart", "voter": a.voter}


def _action_of_json(doc: dict[str, Any]) -> election.ElectionAction:
    return election.ElectionAction(doc["action"], doc.get("voter", 0), doc.get("candidate", 0))


def replay_trace(cex: dict[str, Any], forgetful: bool) -> Replay:
    """Run a decoded trace through ``election.step`` from its initial state; it must end with two
    leaders, every step enabled."""
    init = cex["initial"]
    state: election.ElectionState | None = election.initial(
        frozenset(init["voters"]), tuple(init["last_epoch"]), tuple(init["end_offset"]))
    steps_run = 0
    for doc in cex["actions"]:
        assert state is not None
        state = election.step(state, _action_of_json(doc), forgetful=forgetful)
        if state is None:
            return Replay(False, {"disabled_step": steps_run, "action": doc})
        steps_run += 1
    assert state is not None
    return Replay(len(state.leaders) >= 2,
                  {"steps": steps_run, "leaders": sorted(state.leaders), "voted": list(state.voted),
                   "granted": [sorted(g) for g in state.granted]})


def replay_step(cex: dict[str, Any], forgetful: bool) -> Replay:
    """Replay a counterexample to induction: one step from a state satisfying the invariant."""
    before = cex["before"]
    state = election.ElectionState(
        frozenset(before["voters"]), tuple(before["last_epoch"]), tuple(before["end_offset"]),
        tuple(before["voted"]), tuple(frozenset(g) for g in before["granted"]), frozenset(before["leaders"]))
    after = election.step(state, _action_of_json(cex["action"]), forgetful=forgetful)
    return Replay(after is not None and len(after.leaders) >= 2,
                  {"leaders_after": None if after is None else sorted(after.leaders)})


# --- obligations -------------------------------------------------------------------------------

def _inductive_query(n: int, forgetful: bool) -> Query:
    s = sym_state("s", n)
    a = sym_action("a")
    t = sym_state("t", n, voters=s.voters, logs=(s.last_epoch, s.end_offset))
    init = sym_state("i", n)
    premises = (*well_formed(s), invariant(s), transition(s, a, t, forgetful))
    claim = z3.And(invariant(t), z3.Implies(is_initial(init), invariant(init)))

    def decode(model: Any) -> dict[str, Any]:
        return {"before": _state_json(concrete_state(model, s)), "action": _action_json(concrete_action(model, a)),
                "after": _state_json(concrete_state(model, t))}

    return Query(premises, claim, decode, lambda cex: replay_step(cex, forgetful))


def _bounded_run_query(n: int, steps: int, forgetful: bool) -> Query:
    first = sym_state("s0", n)
    states = [first]
    actions = [sym_action(f"a{k}") for k in range(steps)]
    for k in range(steps):
        states.append(sym_state(f"s{k + 1}", n, voters=first.voters, logs=(first.last_epoch, first.end_offset)))
    premises = (*well_formed(first), is_initial(first),
                *[transition(states[k], actions[k], states[k + 1], forgetful) for k in range(steps)])
    claim = z3.And(*[at_most_one_leader(s) for s in states])

    def decode(model: Any) -> dict[str, Any]:
        start = concrete_state(model, first)
        acts = [concrete_action(model, a) for a in actions]
        # The run may reach two leaders before its last step; keep the prefix that does.
        leaders_at = [len(concrete_state(model, s).leaders) for s in states]
        end = next(k for k, count in enumerate(leaders_at) if count >= 2)
        return {"initial": {"voters": sorted(start.voters), "last_epoch": list(start.last_epoch),
                            "end_offset": list(start.end_offset)},
                "actions": [_action_json(x) for x in acts[:end]]}

    return Query(premises, claim, decode, lambda cex: replay_trace(cex, forgetful))


ONE_LEADER_PER_EPOCH = Obligation(
    id="RAFT-PROOF-ONE-LEADER-PER-EPOCH",
    name="one_leader_per_epoch",
    expected="proved",
    doc="Vote granting with a persisted vote (votedId) and the log-up-to-date check, and leadership "
        "on is_quorum(granted, voters), admit at most one leader per epoch: the invariant (granted votes "
        "are persisted votes; leaders hold a quorum; at most one leader) holds initially and every "
        "grant or lead step preserves it. Two leaders would need two quorums of one voter set that "
        "intersect in a voter that voted twice.",
    rules=("RAFT-RULE-MAJORITY", "RAFT-RULE-VOTE-LOG-UP-TO-DATE", "RAFT-INV-ELECTION-SAFETY"),
    bounds=f"voter sets within {PROOF_REPLICAS} replicas; any log summaries; inductive, so any run length",
    build=lambda: _inductive_query(PROOF_REPLICAS, forgetful=False),
)

FORGETFUL_VOTER = Obligation(
    id="RAFT-PROOF-ONE-LEADER-FORGETFUL-VOTER",
    name="one_leader_per_epoch_forgetful_voter",
    expected="refuted",
    doc="If a restarted voter forgets its vote (votedId not persisted) it may vote twice in one epoch, "
        "and two candidates can each gather a quorum: a run from the initial state to two leaders, "
        "replayed through the Python transition system (rules.is_quorum, rules.log_up_to_date).",
    rules=("RAFT-RULE-MAJORITY", "RAFT-INV-ELECTION-SAFETY"),
    bounds=f"voter sets within {VARIANT_REPLICAS} replicas, runs of up to {VARIANT_STEPS} steps",
    build=lambda: _bounded_run_query(VARIANT_REPLICAS, VARIANT_STEPS, forgetful=True),
)

OBLIGATIONS = (ONE_LEADER_PER_EPOCH, FORGETFUL_VOTER)
