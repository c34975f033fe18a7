"""Faithfulness of the vote-granting encoding: Z3's transition equals ``election.step``.

A generated state and action are fed to both; the encoded precondition must be true exactly when
the Python step is enabled, and then the encoded post-state must be the Python one. The
invariant and the one-leader property are held to their Python meaning the same way.
"""

from __future__ import annotations

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from kspec.model.proofs import election, raft_vote
from kspec.model.proofs import encode_raft as enc
from kspec.model.raft import rules


def const_state(s: election.ElectionState) -> raft_vote.SymState:
    n = s.size
    return raft_vote.SymState(
        voters=enc.bitset_of(s.voters, n),
        last_epoch=tuple(z3.IntVal(e) for e in s.last_epoch),
        end_offset=tuple(z3.IntVal(o) for o in s.end_offset),
        voted=tuple(z3.IntVal(raft_vote.NO_VOTE if v is None else v) for v in s.voted),
        granted=tuple(enc.bitset_of(g, n) for g in s.granted),
        leaders=enc.bitset_of(s.leaders, n),
    )


def const_action(a: election.ElectionAction) -> raft_vote.SymAction:
    kind = {v: k for k, v in raft_vote.KINDS.items()}[a.kind]
    return raft_vote.SymAction(z3.IntVal(kind), z3.IntVal(a.voter), z3.IntVal(a.candidate))


def truth(term: object) -> bool:
    simple = z3.simplify(term)
    assert z3.is_true(simple) or z3.is_false(simple), simple
    return z3.is_true(simple)


def read_state(s: raft_vote.SymState) -> election.ElectionState:
    """A symbolic state made of closed terms, evaluated."""
    model = z3.Solver()
    assert model.check() == z3.sat
    return raft_vote.concrete_state(model.model(), s)


@st.composite
def states(draw: st.DrawFn) -> election.ElectionState:
    n = draw(st.integers(1, 4))
    replica = st.integers(0, n - 1)
    return election.ElectionState(
        voters=draw(st.frozensets(replica)),
        last_epoch=tuple(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))),
        end_offset=tuple(draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))),
        voted=tuple(draw(st.lists(st.none() | replica, min_size=n, max_size=n))),
        granted=tuple(draw(st.lists(st.frozensets(replica), min_size=n, max_size=n))),
        leaders=draw(st.frozensets(replica)),
    )


@st.composite
def state_and_action(draw: st.DrawFn) -> tuple[election.ElectionState, election.ElectionAction]:
    s = draw(states())
    replica = st.integers(0, s.size - 1)
    action = election.ElectionAction(draw(st.sampled_from(["grant", "lead", "restart"])), draw(replica), draw(replica))
    return s, action


@settings(max_examples=300)
@given(state_and_action(), st.booleans())
def test_transition_matches_python_step(case: tuple[election.ElectionState, election.ElectionAction],
                                        forgetful: bool) -> None:
    state, action = case
    expected = election.step(state, action, forgetful=forgetful)
    s, a = const_state(state), const_action(action)
    enabled = truth(z3.And(raft_vote.action_in_range(a, forgetful), raft_vote.enabled(s, a, forgetful)))
    assert enabled == (expected is not None)
    if expected is not None:
        assert read_state(raft_vote.post(s, a)) == expected
        assert truth(raft_vote.transition(s, a, const_state(expected), forgetful))


@given(states())
def test_invariant_matches_its_python_meaning(state: election.ElectionState) -> None:
    n = state.size
    persisted = all(state.voted[i] == c for c in range(n) for i in state.granted[c])
    quorums = all(rules.is_quorum(state.granted[c], state.voters) for c in state.leaders)
    one_leader = len(state.leaders) <= 1
    s = const_state(state)
    assert truth(raft_vote.at_most_one_leader(s)) == one_leader
    assert truth(raft_vote.invariant(s)) == (persisted and quorums and one_leader)


def test_initial_state_encoding() -> None:
    state = election.initial(frozenset({0, 1, 2}), (0, 0, 1), (3, 2, 0))
    assert truth(raft_vote.is_initial(const_state(state)))
    voted = election.step(state, election.ElectionAction("grant", 0, 0))
    assert voted is not None
    assert not truth(raft_vote.is_initial(const_state(voted)))


def test_log_check_blocks_a_stale_candidate() -> None:
    # Replica 1 has a longer log in the same epoch: it refuses candidate 0, in Python and in Z3.
    state = election.initial(frozenset({0, 1, 2}), (2, 2, 2), (5, 9, 5))
    action = election.ElectionAction("grant", 1, 0)
    assert election.step(state, action) is None
    assert not truth(raft_vote.enabled(const_state(state), const_action(action), False))
