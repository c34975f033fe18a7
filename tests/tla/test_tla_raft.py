"""tla/KRaft.tla against the Python KRaft system model, with real TLC.

Agreement is shown three ways: equal sets of distinct states (``kspec tla check raft``, the
Python side without symmetry reduction), TLC ``-simulate`` behaviours replaying step by step
through the Python model, and a broken copy of the spec (the VoteTwice flag) and the Python
variant ``vote-twice`` violating the same-named property, TLC's counterexample replaying
through the variant.
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
from kspec.model.raft import make
from kspec.model.raft.system import ACTION_TYPES
from kspec.model.raft.variants import CATALOGUE, VARIANTS
from kspec.tla.mappings import get_mapping
from kspec.tla.mappings.raft import (
    ACTION_PROPERTIES,
    DEFAULT_BOUNDS,
    INVARIANTS,
    NOT_IN_SPEC,
    VARIANT_FLAGS,
    WITNESSES,
    config,
    config_for,
    from_model,
)
from kspec.tla.runner import Simulation

MAPPING = get_mapping("raft")
SPEC = MAPPING.spec_path()
# Small enough for a test (about 2000 states), and a reboot, a vote, a fetch happen.
SMALL: dict[str, int | bool] = {"max_epoch": 1, "max_appends": 0, "max_crashes": 1, "max_fetches": 1,
                                "max_elections": 1, "symmetry": False}
# Two voters, a leader, an append, two fetches, a reboot: a record commits and a follower's
# high watermark advances.
COMMIT_BOUNDS: dict[str, int | bool] = {"voters": 2, "max_epoch": 1, "max_appends": 1, "max_crashes": 1,
                                        "max_fetches": 2, "max_elections": 1, "symmetry": False}
# The bounds of the committed KRaft.cfg.
CFG_BOUNDS: dict[str, int | bool] = {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}
# Simulation reaches deeper: leaders of two epochs, appends, check-quorum resignations. TLC
# ends a simulated behaviour at the first state outside the CONSTRAINT and picks successors
# uniformly (no weights), so the bounds are loose on messages and leave out duplication.
SIM_BOUNDS: dict[str, int | bool] = {"max_epoch": 3, "max_appends": 2, "max_crashes": 1, "max_fetches": 10,
                                     "max_elections": 3, "max_inflight": 6, "max_duplicates": 0,
                                     "symmetry": False}

tlc = tlc_on(SPEC, timeout=120)


# -- equal sets of distinct states -------------------------------------------------------------


def test_tla_check_raft_equal_state_sets(capsys: pytest.CaptureFixture[str]) -> None:
    model = make(**SMALL)
    inside = [s for s in reachable_states(model) if model.within_bounds(s)]
    assert len(inside) > 1000
    # Liveness is compared at smaller bounds in test_tla_raft_liveness.py.
    assert_cli_equal_state_sets("raft", SMALL, len(inside), capsys, "--no-liveness")
    # The bounds reach a reboot and a leader (the comparison is not over trivial states).
    assert any(s.crashes for s in inside) and any(s.elected for s in inside)


# One voter and one observer (the observer discovers the leader by fetching, a record commits);
# two voters with pre-vote (prospectives win and lose pre-votes).
OBSERVER_BOUNDS: dict[str, int | bool] = {"voters": 1, "observers": 1, "max_epoch": 1, "max_appends": 1,
                                          "max_fetches": 3, "max_crashes": 1, "max_elections": 1}
PRE_VOTE_BOUNDS: dict[str, int | bool] = {"voters": 2, "pre_vote": True, "max_epoch": 1, "max_appends": 0,
                                          "max_fetches": 1, "max_crashes": 1, "max_elections": 2}


# Two voters, two epochs and one duplication: requests are orphaned by a transition and by an
# answer already taken, a duplicated answer is taken once (RAFT-MODEL-IGNORED-RESPONSES).
DUPLICATE_BOUNDS: dict[str, int | bool] = {"voters": 2, "max_duplicates": 1, "max_epoch": 2, "max_appends": 0,
                                           "max_fetches": 1, "max_crashes": 0, "max_elections": 2}


@pytest.mark.parametrize("extra", [OBSERVER_BOUNDS, PRE_VOTE_BOUNDS, DUPLICATE_BOUNDS],
                         ids=["observer", "pre-vote", "duplicates"])
def test_equal_state_sets_with_observers_and_pre_vote(extra: dict[str, int | bool]) -> None:
    bounds = {**DEFAULT_BOUNDS, **extra}
    model = make(**bounds)
    assert_agreement(MAPPING, model, bounds, more_than=100, timeout=120)
    states = reachable_states(model)
    if extra is OBSERVER_BOUNDS:
        assert any(s.node(2).role_name == "follower" for s in states)
        assert any(s.committed for s in states) and any(s.crashes for s in states)
    elif extra is PRE_VOTE_BOUNDS:
        assert any(n.role_name == "prospective" for s in states for n in s.nodes)
        assert any(s.elected for s in states)
    else:
        assert any(getattr(m, "orphaned", False) for s in states for m in s.network.distinct())
        assert any(c > 1 and type(m).__name__.endswith("Response") for s in states for m, c in s.network.items)


def test_the_mapping_is_one_to_one() -> None:
    states = reachable_states(make(**SMALL))
    assert len({from_model(s) for s in states}) == len(states)


def test_symmetry_and_unsupported_bounds_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert_symmetry_refused("raft", config, SMALL, capsys)


def test_committed_cfg_is_the_generated_one() -> None:
    cfg = SPEC.with_suffix(".cfg").read_text()
    assert cfg == config_for(CFG_BOUNDS)
    for name in (*INVARIANTS, *ACTION_PROPERTIES):
        assert f"  {name}\n" in cfg


def test_spec_names_every_python_invariant_and_action() -> None:
    lines = SPEC.read_text().splitlines()
    props = {p.name: p for p in make(**SMALL).properties() if p.kind in ("always", "always_step")}
    assert set(props) == {*INVARIANTS, *ACTION_PROPERTIES, *NOT_IN_SPEC}
    for prop in (p for p in props.values() if p.name not in NOT_IN_SPEC):
        at = [i for i, line in enumerate(lines) if line.startswith(f"{prop.name} ==")]
        assert len(at) == 1, prop.name
        assert lines[at[0] - 1].startswith(f"\\* {prop.id}"), f"{prop.name} lacks its ID comment"
    for action in ACTION_TYPES:
        assert any(re.match(rf"{action.__name__}\(.*\) ==", line) for line in lines), action.__name__


def test_invariants_and_action_properties_hold_where_records_commit() -> None:
    result = tlc(config_for(COMMIT_BOUNDS))
    assert result.complete, result.violation
    states = reachable_states(make(**COMMIT_BOUNDS))
    assert result.distinct_states == len(states)
    # The step properties are not vacuous here: followers' high watermarks are known and move.
    assert any(n.role_name == "follower" and n.high_watermark for s in states for n in s.nodes)


# -- TLC -simulate traces replay through the model ---------------------------------------------


def test_simulated_traces_replay_step_by_step() -> None:
    result = tlc(config_for(SIM_BOUNDS, properties=()), simulate=Simulation(depth=40, seed=1, traces=10))
    replays = replay_simulation(MAPPING, make(**SIM_BOUNDS), result, traces=10)
    kinds = action_kinds(replays)
    epochs_led = {e for replayed in replays for e, _ in replayed[-1][1].elected}
    assert sum(len(replayed) - 1 for replayed in replays) >= 100
    assert {"Deliver", "Drop", "ElectionTimeout", "FetchDue", "ClientAppend", "CheckQuorumTimeout"} <= kinds, kinds
    assert {1, 2} <= epochs_led


def test_replay_rejects_a_state_no_action_reaches() -> None:
    result = tlc(config_for(SMALL, properties=()), simulate=Simulation(depth=10, seed=3, traces=1))
    assert_replay_rejects(MAPPING, make(**SMALL), result.simulation_traces[0].values(), {"appends": 5},
                          {"elections": 1})


# -- broken copies: TLC and the explorer find the same property violated -----------------------


VOTE_TWICE_BOUNDS: dict[str, int | bool] = {"max_epoch": 1, "max_appends": 0, "max_crashes": 0, "max_fetches": 0,
                                            "max_elections": 2, "symmetry": False}


@pytest.mark.parametrize(("name", "flag", "invariant"), [
    ("vote-twice", "VoteTwice", "VoteOnce"),
    ("candidate-counts-rejections", "CandidateCountsRejections", "ElectionSafety"),
], ids=["vote-twice", "candidate-counts-rejections"])
def test_flaw_flag_and_variant_violate_the_same_invariant(name: str, flag: str, invariant: str) -> None:
    assert VARIANT_FLAGS[name] == flag and CATALOGUE[name].breaks == invariant
    broken = tlc(config_for(VOTE_TWICE_BOUNDS, name, properties=()))
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", invariant)

    variant = VARIANTS[name](**VOTE_TWICE_BOUNDS)
    found = explore(variant)
    assert [v.name for v in found.violations] == [invariant]
    # TLC's counterexample is a behaviour of the Python variant, ending where the invariant
    # fails, and not of the reference model (whose spec holds it: the tests above).
    assert_counterexample_replays(MAPPING, broken, variant, len(found.violations[0].trace),
                                  make(**VOTE_TWICE_BOUNDS))


def test_vote_twice_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    found = explore(VARIANTS["vote-twice"](**VOTE_TWICE_BOUNDS))
    states = [step.state for step in found.violations[0].trace]
    cfgs = [config_for(VOTE_TWICE_BOUNDS, v, invariants=("VoteOnce",), properties=()) for v in ("vote-twice", None)]
    reference = assert_only_the_broken_spec_allows(tmp_path, MAPPING, states, *cfgs, ("invariant", "VoteOnce"))
    # The reference spec does not allow the last step (the second vote): TLC never takes it.
    assert reference.distinct_states == len(states) - 1


# -- TLC reaches the witnesses -----------------------------------------------------------------


@pytest.mark.parametrize("witness", ["VoteGranted", "RecordCommitted"])
def test_tlc_reaches_witness(witness: str) -> None:
    assert witness in WITNESSES
    result = tlc(config_for(COMMIT_BOUNDS, invariants=(f"Not{witness}",), properties=()))
    assert_witness_reached(MAPPING, result, make(**COMMIT_BOUNDS), witness, f"Not{witness}")


# -- another broken copy: vote-ignores-log ---------------------------------------------------


# vote-ignores-log needs appends, commits and a second epoch (37,018 states before TLC would
# find it), so the check goes the other way only: the explorer's counterexample is a behaviour
# of the broken spec, and not of the reference spec.
IGNORES_LOG_BOUNDS: dict[str, int | bool] = {"max_epoch": 2, "max_appends": 1, "max_crashes": 0, "max_fetches": 2,
                                             "max_elections": 2, "symmetry": False}


def test_vote_ignores_log_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    name = "vote-ignores-log"
    found = explore(VARIANTS[name](**IGNORES_LOG_BOUNDS))
    assert [v.name for v in found.violations] == [CATALOGUE[name].breaks] == ["LeaderCompleteness"]
    states = [step.state for step in found.violations[0].trace]
    cfgs = [config_for(IGNORES_LOG_BOUNDS, v, invariants=("LeaderCompleteness",), properties=()) for v in (name, None)]
    assert_only_the_broken_spec_allows(tmp_path, MAPPING, states, *cfgs, ("invariant", "LeaderCompleteness"))
