"""tla/Voters.tla against the Python voter-set system model (KIP-853), with real TLC.

Agreement is shown three ways, as for raft (test_tla_raft.py): equal sets of distinct states
(``kspec tla check voters``, the Python side without symmetry reduction), TLC ``-simulate``
behaviours replaying step by step through the Python model, and each broken copy of the spec
(a flaw flag) violating the same property as the same-named Python variant, each side's
counterexample being a behaviour of the other.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tlc_helpers import (
    action_kinds,
    assert_agreement,
    assert_cli_equal_state_sets,
    assert_counterexample_replays,
    assert_only_the_broken_spec_allows,
    assert_replay_rejects,
    assert_symmetry_refused,
    assert_witness_reached,
    replay_simulation,
    tlc_on,
)

from kspec.model.core.explorer import explore, reachable_states
from kspec.model.raft.system import ACTION_TYPES
from kspec.model.voters import make
from kspec.model.voters.node import VOTER_INPUT_TYPES
from kspec.model.voters.variants import CATALOGUE, VARIANTS
from kspec.tla.check import _canon
from kspec.tla.mappings import get_mapping
from kspec.tla.mappings.voters import (
    INVARIANTS,
    VARIANT_FLAGS,
    WITNESSES,
    UnsupportedBounds,
    config,
    config_for,
    from_model,
)
from kspec.tla.runner import Simulation, run_tlc

MAPPING = get_mapping("voters")
SPEC = MAPPING.spec_path()
# Three hosts, two initial voters: the leader adds the observer and the record commits, removes
# a voter (itself included, then resigns), takes a snapshot with a voter set; about 3400 states.
SMALL: dict[str, int | bool] = {"hosts": 3, "voters": 2, "max_fetches": 2, "max_elections": 1, "symmetry": False}
# The bounds of the committed Voters.cfg.
CFG_BOUNDS: dict[str, int | bool] = {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1,
                                     "symmetry": False}
# Static voters (kraft.version 0): the upgrade happens in the run; the formatted start.
UPGRADE_BOUNDS: dict[str, int | bool] = {"hosts": 2, "voters": 2, "kraft_version": 0, "max_fetches": 2,
                                         "max_adds": 0, "max_elections": 1, "symmetry": False}
FORMATTED_BOUNDS: dict[str, int | bool] = {"hosts": 3, "voters": 2, "started": False, "max_fetches": 1,
                                           "max_elections": 1, "max_epoch": 1, "max_crashes": 1,
                                           "symmetry": False}
# Simulation goes deeper: two elections, crashes, four hosts, more in flight.
SIM_BOUNDS: dict[str, int | bool] = {"hosts": 4, "voters": 3, "max_fetches": 16, "max_elections": 3, "max_epoch": 4,
                                     "max_crashes": 1, "max_inflight": 6, "max_snapshots": 2, "max_appends": 2,
                                     "symmetry": False}

tlc = tlc_on(SPEC, timeout=180)


# -- equal sets of distinct states -------------------------------------------------------------


def test_tla_check_voters_equal_state_sets(capsys: pytest.CaptureFixture[str]) -> None:
    model = make(**SMALL)
    states = reachable_states(model)
    assert len(states) > 3000
    assert_cli_equal_state_sets("voters", SMALL, len(states), capsys)
    # Not trivial states: an added voter and a removal commit, a snapshot holds a voter set.
    props = {p.name: p for p in model.properties()}
    for witness in ("VoterAdded", "VoterRemoved", "SnapshotTaken", "AddedVoterVotes", "VoteAcrossSets"):
        assert any(props[witness].check(s) for s in states), witness


@pytest.mark.parametrize("bounds", [UPGRADE_BOUNDS, FORMATTED_BOUNDS], ids=["upgrade", "formatted-crash"])
def test_equal_state_sets_static_voters_and_formatted_start(bounds: dict[str, int | bool]) -> None:
    model = make(**bounds)
    assert_agreement(MAPPING, model, bounds, more_than=100, timeout=180)
    states = reachable_states(model)
    if bounds is UPGRADE_BOUNDS:
        assert any(s.upgrades for s in states) and any(e.kind == "kraft_version" for s in states
                                                       for _, e, _ in s.committed)
    else:
        assert any(s.crashes for s in states) and any(s.elected for s in states)


# VOTERS-MODEL-START in TLA+ (StartUp) is the same state as VotersModel.start_up across quorum
# shapes: five voters with pre-vote (nothing else enabled), and two voters, two observers.
START_BOUNDS = [
    {"hosts": 5, "voters": 5, "pre_vote": True, "max_fetches": 0, "max_elections": 0, "max_adds": 0,
     "max_removes": 0, "symmetry": False},
    {"hosts": 4, "voters": 2, "pre_vote": True, "max_fetches": 1, "max_elections": 1, "max_adds": 0,
     "symmetry": False},
]


@pytest.mark.parametrize("bounds", START_BOUNDS, ids=["five-voters", "two-observers"])
def test_started_quorum_agrees_across_shapes(bounds: dict[str, int | bool]) -> None:
    assert_agreement(MAPPING, make(**bounds), bounds, more_than=0, timeout=120)


def test_the_mapping_is_one_to_one() -> None:
    states = reachable_states(make(**SMALL))
    assert len({from_model(s) for s in states}) == len(states)


def test_symmetry_and_unknown_flags_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert_symmetry_refused("voters", config, SMALL, capsys)
    with pytest.raises(UnsupportedBounds, match="no flaw flag"):
        config_for(SMALL, "no-such-variant")


def test_committed_cfg_is_the_generated_one() -> None:
    assert SPEC.with_suffix(".cfg").read_text() == config_for(CFG_BOUNDS)


def test_spec_names_every_python_invariant_and_action() -> None:
    lines = SPEC.read_text().splitlines()
    model = make(**SMALL)
    props = {p.name: p for p in model.properties() if p.kind == "always"}
    assert set(props) == set(INVARIANTS)
    for prop in props.values():
        at = [i for i, line in enumerate(lines) if line.startswith(f"{prop.name} ==")]
        assert len(at) == 1, prop.name
        assert lines[at[0] - 1].startswith(f"\\* {prop.id}"), f"{prop.name} lacks its ID comment"
    witnesses = {p.name: p for p in make(**UPGRADE_BOUNDS, max_crashes=1).properties() if p.kind == "sometimes"}
    assert set(witnesses) == set(WITNESSES)
    for prop in witnesses.values():
        at = [i for i, line in enumerate(lines) if line.startswith(f"{prop.name} ==")]
        assert len(at) == 1 and lines[at[0] - 1].startswith(f"\\* {prop.id}"), prop.name
    for action in ACTION_TYPES:
        assert any(re.match(rf"{action.__name__}\(.*\) ==", line) for line in lines), action.__name__
    text = SPEC.read_text()
    for inp in VOTER_INPUT_TYPES:
        assert f'"{inp.__name__}"' in text, inp.__name__


# -- auto-join (VOTERS-RULE-AUTO-JOIN) --------------------------------------------------------

# Observer 3 of the started quorum {1, 2} has auto-join on (every host has): its timer sends
# leader 1 an AddVoterRequest, which the leader judges as a client's AddVoter.
AUTO_JOIN_BOUNDS: dict[str, int | bool] = {"hosts": 3, "voters": 2, "auto_join": True, "max_fetches": 1,
                                           "max_elections": 1, "symmetry": False}


def test_auto_join_agrees_and_tlc_reaches_its_witness() -> None:
    model = make(**AUTO_JOIN_BOUNDS)
    assert_agreement(MAPPING, model, AUTO_JOIN_BOUNDS, more_than=900, timeout=180)
    # Not the same states as without auto-join: the requests are in flight, the joins counted.
    assert any(s.joins for s in reachable_states(model))
    # VOTERS-WIT-AUTO-JOINED, a step witness: TLC violates its negation, and the behaviour
    # replays through the model to a step the Python witness holds on (the request delivered).
    result = tlc(config_for(AUTO_JOIN_BOUNDS, invariants=(), properties=("NeverObserverAutoJoins",)))
    assert result.violation is not None and result.violation.name == "NeverObserverAutoJoins", result.violation
    assert result.violation.trace is not None
    replayed = MAPPING.replay(model, result.violation.trace.values())
    witness = next(p for p in model.properties() if p.name == "ObserverAutoJoins")
    steps = [(replayed[k - 1][1], *replayed[k]) for k in range(1, len(replayed))]
    assert witness.holds_step(*steps[-1]) and not any(witness.holds_step(*st) for st in steps[:-1])
    kinds = action_kinds([replayed])
    assert {"UpdateVoterSetDue", "Deliver"} <= kinds, kinds


# -- TLC -simulate traces replay through the model ---------------------------------------------


def test_simulated_traces_replay_step_by_step() -> None:
    result = tlc(config_for(SIM_BOUNDS, invariants=()), simulate=Simulation(depth=60, seed=7, traces=16))
    replays = replay_simulation(MAPPING, make(**SIM_BOUNDS), result, traces=16)
    kinds = action_kinds(replays)
    assert sum(len(replayed) - 1 for replayed in replays) >= 150
    assert {"Deliver", "FetchDue", "AddVoter", "RemoveVoter"} <= kinds, kinds


def test_replay_rejects_a_state_no_action_reaches() -> None:
    result = tlc(config_for(CFG_BOUNDS, invariants=()), simulate=Simulation(depth=6, seed=3, traces=1))
    assert_replay_rejects(MAPPING, make(**CFG_BOUNDS), result.simulation_traces[0].values(), {"adds": 5},
                          {"snapshots": 1})


# -- broken copies: TLC and the explorer find the same property violated -----------------------

# Bounds at which each variant's flaw shows (history-not-truncated needs a second epoch whose
# leader truncates an uncommitted VotersRecord: three voters).
BROKEN_BOUNDS: dict[str, dict[str, int | bool]] = {
    "two-changes-in-flight": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "effect-on-commit": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "snapshot-without-voters": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "history-not-truncated": {"hosts": 3, "voters": 3, "max_fetches": 2, "max_elections": 1, "symmetry": False},
    "first-leader-skips-voters": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
}


@pytest.mark.parametrize("name", sorted(BROKEN_BOUNDS))
def test_flaw_flag_and_variant_violate_the_same_property(name: str) -> None:
    bounds = BROKEN_BOUNDS[name]
    broken = tlc(config_for(bounds, name))
    assert broken.violation is not None and broken.violation.kind == "invariant"

    variant = VARIANTS[name](**bounds)
    found = explore(variant)
    violated = {v.name for v in found.violations}
    assert CATALOGUE[name][1] in violated and broken.violation.name in violated, (broken.violation.name, violated)
    if broken.violation.trace is None:
        # An initial state violates it (first-leader-skips-voters: the started quorum): TLC
        # prints no behaviour, and the explorer's trace is the initial state alone.
        assert len(found.violations[0].trace) == 1
        return
    # TLC's counterexample is a shortest behaviour of the Python variant, ending where the
    # property fails, and not a behaviour of the reference model.
    assert_counterexample_replays(MAPPING, broken, variant, len(found.violations[0].trace), make(**bounds))


# Kafka's deviations that break no safety property, with bounds that show them.
KAFKA_FLAG_BOUNDS: dict[str, dict[str, int | bool]] = {
    # K3: the removed leader of {1, 2} keeps leading {2}
    "kafka-no-check-quorum-with-one-voter": {"hosts": 2, "voters": 2, "max_fetches": 1, "max_elections": 1,
                                             "max_adds": 0, "symmetry": False},
    # K7: observer 3's lapse does not end when voter 2's answer names leader 1
    "kafka-observer-stuck-on-bootstrap": {"hosts": 3, "voters": 2, "max_fetches": 2, "max_elections": 1,
                                          "max_adds": 0, "max_removes": 0, "max_snapshots": 0, "symmetry": False},
}


@pytest.mark.parametrize("name", sorted(KAFKA_FLAG_BOUNDS))
def test_kafka_flag_agrees_with_its_variant(name: str) -> None:
    """VOTERS-KAFKA-K3 and -K7 break no safety property: the flag's spec and the variant reach
    equal sets of states. K3's are not the reference's; K7's are (the lapse flag is set and
    cleared in either order), but its variant never takes the step of the witness
    VOTERS-WIT-OBSERVER-REDISCOVERS, which the reference takes."""
    assert set(VARIANT_FLAGS) == set(BROKEN_BOUNDS) | set(KAFKA_FLAG_BOUNDS)
    bounds = KAFKA_FLAG_BOUNDS[name]
    broken = run_tlc(SPEC, config_text=config_for(bounds, name), dump=True, continue_after_violation=True,
                     check_deadlock=MAPPING.check_deadlock,
                     timeout=180)
    assert broken.dump_states is not None
    tlc_states = {_canon(MAPPING.from_tlc, s, "from_tlc", MAPPING) for s in broken.dump_states}
    variant = VARIANTS[name](**bounds)
    model_states = {_canon(MAPPING.from_model, s, "from_model", MAPPING) for s in reachable_states(variant)
                    if variant.within_bounds(s)}
    assert tlc_states == model_states
    ref = make(**bounds)
    if name == "kafka-observer-stuck-on-bootstrap":
        witness = "ObserverRediscoversLeader"
        assert explore(ref).witnesses[witness] and not explore(variant).witnesses[witness]
        return
    reference = {_canon(MAPPING.from_model, s, "from_model", MAPPING) for s in reachable_states(ref)
                 if ref.within_bounds(s)}
    assert model_states != reference


def test_two_changes_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    name = "two-changes-in-flight"
    bounds = BROKEN_BOUNDS[name]
    found = explore(VARIANTS[name](**bounds))
    states = [step.state for step in found.violations[0].trace]
    invariant = CATALOGUE[name][1]
    cfgs = [config_for(bounds, v, invariants=(invariant,)) for v in (name, None)]
    reference = assert_only_the_broken_spec_allows(tmp_path, MAPPING, states, *cfgs, ("invariant", invariant),
                                                   extends=("KRaft.tla",))
    # The reference spec does not allow the last step (the second VotersRecord): TLC never takes it.
    assert reference.distinct_states == len(states) - 1


# -- TLC reaches the witnesses -----------------------------------------------------------------


@pytest.mark.parametrize("witness", ["VoterAdded", "VoterRemoved", "VoteAcrossSets"])
def test_tlc_reaches_witness(witness: str) -> None:
    result = tlc(config_for(CFG_BOUNDS | {"max_fetches": 2}, invariants=(f"Not{witness}",)))
    assert_witness_reached(MAPPING, result, make(**(CFG_BOUNDS | {"max_fetches": 2})), witness, f"Not{witness}")
