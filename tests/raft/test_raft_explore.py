"""The KRaft system model explored: properties hold, witnesses are reached, every broken
variant is caught with a short trace."""

from __future__ import annotations

import pytest

from kspec.model.core.explorer import explore, reachable_states, simulate
from kspec.model.raft import BOUNDS, PROTOCOL, make
from kspec.model.raft.properties import raft_properties
from kspec.model.raft.variants import CATALOGUE, VARIANTS

SMALL = {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}


def test_default_exploration_holds_and_reaches_every_witness() -> None:
    result = explore(make())
    assert result.complete
    assert not result.violations, [(v.property, len(v.trace)) for v in result.violations]
    assert all(result.witnesses.values()), {k for k, v in result.witnesses.items() if not v}
    # A witness behind a bound that is 0 by default (max_resends, as max_duplicates) is not
    # applicable there, neither reached nor missed (Property.needs); reached at max_resends=1 by
    # test_resend_exploration_holds_and_reaches_its_witness.
    # Likewise the snapshot witnesses behind max_snapshots (KIP-630), reached by
    # test_snapshot_exploration_holds_and_reaches_its_witnesses.
    assert result.not_applicable == {"BeginQuorumEpochResent": "needs max_resends >= 1",
                                     "SnapshotTaken": "needs max_snapshots >= 1",
                                     "SnapshotLoaded": "needs max_snapshots >= 1"}
    assert "BeginQuorumEpochResent" not in result.witnesses and result.ok
    assert result.distinct_states >= 10_000


def test_resend_exploration_holds_and_reaches_its_witness() -> None:
    result = explore(make(**SMALL, max_resends=1))
    assert result.complete and not result.violations
    assert result.witnesses["BeginQuorumEpochResent"]
    assert set(result.not_applicable) == {"SnapshotTaken", "SnapshotLoaded"}  # max_snapshots is 0


def test_snapshot_exploration_holds_and_reaches_its_witnesses() -> None:
    # KIP-630: a leader snapshots its committed log and cleans it; a follower that fetches below
    # the log start is sent the snapshot id, fetches the snapshot and truncates to it. Four
    # fetches: two commit the LeaderChange record, two more bring the snapshot to a follower.
    result = explore(make(**SMALL, max_snapshots=1, max_fetches=4))
    assert result.complete and not result.violations, [v.name for v in result.violations]
    assert result.witnesses["SnapshotTaken"] and result.witnesses["SnapshotLoaded"]
    assert result.not_applicable == {"BeginQuorumEpochResent": "needs max_resends >= 1"}


def test_every_always_property_has_witnesses_and_a_variant() -> None:
    props = raft_properties()
    witnesses = {p.name for p in props if p.kind in ("sometimes", "sometimes_step")}
    targeted = {v.breaks for v in CATALOGUE.values()}
    for p in props:
        if p.kind in ("always", "always_step"):
            assert p.witnessed_by and set(p.witnessed_by) <= witnesses, p.name
            assert p.name in targeted, f"no broken variant breaks {p.name}"
        assert p.id.startswith("RAFT-")


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_broken_variant_is_caught(name: str) -> None:
    variant = CATALOGUE[name]
    target, bounds = variant.breaks, variant.bounds
    model = VARIANTS[name](**{**{b.name: b.default for b in BOUNDS}, **bounds})
    result = explore(model, stop_on={target} if variant.keep_going else None)
    if any(p.name == target and p.kind.startswith("sometimes") for p in raft_properties()):
        # A witness-breaking variant: the complete exploration never reaches it.
        assert result.complete and not result.witnesses[target]
        if bounds:  # at the defaults, test_default_exploration shows the correct model reaches it
            correct = explore(make(**{**{b.name: b.default for b in BOUNDS}, **bounds}))
            assert correct.witnesses[target], "the correct model must reach it at these bounds"
        return
    names = [v.name for v in result.violations]
    assert target in names, (name, names)
    trace = next(v.trace for v in result.violations if v.name == target)
    assert len(trace) - 1 <= 25


def test_pre_vote_model_holds() -> None:
    result = explore(make(pre_vote=True, **SMALL))
    assert result.complete and not result.violations
    assert result.witnesses["LeaderElected"] and result.witnesses["VoteGranted"]


def test_observer_model_holds() -> None:
    result = explore(make(observers=1, **SMALL), max_states=8_000)
    assert not result.violations


def test_simulation_is_deterministic_per_seed() -> None:
    a = simulate(make(), seed=7, steps=60, traces=5)
    b = simulate(make(), seed=7, steps=60, traces=5)
    c = simulate(make(), seed=8, steps=60, traces=5)
    assert [t[-1].state for t in a.traces] == [t[-1].state for t in b.traces]
    assert [t[-1].state for t in a.traces] != [t[-1].state for t in c.traces]
    assert not a.violations


def test_reachable_states_agrees_with_explore() -> None:
    model = make(**SMALL)
    assert len(reachable_states(model)) == explore(model).distinct_states


def test_protocol_registered() -> None:
    assert PROTOCOL.name == "raft" and set(PROTOCOL.variants) == set(VARIANTS)


def test_symmetry_reduction_visits_exactly_the_orbits() -> None:
    """The optimised (symmetric) exploration against brute force: explore everything without
    symmetry, map each state to its orbit representative, and count."""
    full = make(symmetry=False, **SMALL)
    reduced = make(**SMALL)
    orbits = {reduced.canonical(s) for s in reachable_states(full)}
    assert len(orbits) == explore(reduced).distinct_states
    assert len(orbits) < len(reachable_states(full))


def test_without_the_check_quorum_period_no_leader_is_renewed_and_check_quorum_still_resigns() -> None:
    # RAFT-RULE-CHECK-QUORUM-PERIOD is opt-in for a target (model_config check_quorum_period):
    # the driver runs the model without it for any other, and then the model is the earlier one.
    # A majority's fetch clears the count but renews nothing, so every CheckQuorumTimeout it
    # offers resigns, a leader a majority fetched from included (CheckQuorumAfterFetch).
    from kspec.model.raft.state import Leader

    bounds = {**SMALL, "max_fetches": 3}
    result = explore(make(**bounds, check_quorum_period=False))
    assert result.complete and not result.violations
    assert result.witnesses["CheckQuorumAfterFetch"] and not result.witnesses["CheckQuorumRenewed"]
    states = reachable_states(make(**bounds, check_quorum_period=False))
    leaders = [n.role for s in states for n in s.nodes if isinstance(n.role, Leader)]
    assert leaders and not any(r.renewed for r in leaders)
    # with the period (the protocol, the default) the same bounds renew a leader
    assert explore(make(**bounds)).witnesses["CheckQuorumRenewed"]
