"""The raft model's symmetry reduction against brute force: the orbit of a state is every
renaming of the voters, and the optimised canonical form (signature sort, memoised renaming)
must pick one representative per orbit, inside the orbit, the same from every member."""

from __future__ import annotations

import itertools
import random

from kspec.model.core.explorer import explore, reachable_states
from kspec.model.raft import make
from kspec.model.raft.symmetry import permute

# Small enough to enumerate every state and all six renamings of each, with ties (replicas
# with equal signatures) and appends so that the renaming reaches logs and the network.
SMALL = {"max_epoch": 1, "max_crashes": 0, "max_appends": 1, "max_fetches": 1}
PERMS = [dict(zip((1, 2, 3), q, strict=True)) for q in itertools.permutations((1, 2, 3))]


def _orbit(s: object) -> frozenset[object]:
    return frozenset(permute(s, p) for p in PERMS)


def test_explored_count_is_the_brute_force_orbit_count() -> None:
    states = reachable_states(make(symmetry=False, **SMALL))
    orbits = {_orbit(s) for s in states}
    reduced = explore(make(**SMALL))
    assert reduced.complete
    assert reduced.distinct_states == len(orbits) < len(states)


def test_canonical_is_an_orbit_invariant_member_of_the_orbit() -> None:
    canonical = make(**SMALL).canonical  # type: ignore[attr-defined]
    rng = random.Random(5)
    states = sorted(reachable_states(make(symmetry=False, **SMALL)), key=repr)
    for s in rng.sample(states, 400):
        rep = canonical(s)
        assert rep in _orbit(s)
        for p in rng.sample(PERMS, 3):
            assert canonical(permute(s, p)) == rep


def test_renaming_round_trips() -> None:
    """A memoised renaming returns the renamed part of this very value: renaming there and
    back gives the state again (a stale or confused memo entry would not)."""
    rng = random.Random(6)
    states = sorted(reachable_states(make(symmetry=False, **SMALL)), key=repr)
    for s in rng.sample(states, 300):
        for p in PERMS:
            back = {v: k for k, v in p.items()}
            assert permute(permute(s, p), back) == s
