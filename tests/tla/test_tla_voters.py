"""tla/Voters.tla against the Python voter-set system model (KIP-853), with real TLC.

Agreement is shown three ways, as for raft (test_tla_raft.py): equal sets of distinct states
(``kspec tla check voters``, the Python side without symmetry reduction), TLC ``-simulate``
behaviours replaying step by step through the Python model, and each broken copy of the spec
(a flaw flag) violating the same property as the same-named Python variant, each side's
counterexample being a behaviour of the other.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from kspec.model.core.explorer import explore, reachable_states
from kspec.model.raft.system import ACTION_TYPES
from kspec.model.voters import make
from kspec.model.voters.node import VOTER_INPUT_TYPES
from kspec.model.voters.variants import CATALOGUE, VARIANTS
from kspec.tla.mappings import get_mapping
from kspec.tla.mappings.voters import (
    INVARIANTS,
    VARIANT_FLAGS,
    WITNESSES,
    ReplayError,
    UnsupportedBounds,
    config,
    config_for,
    from_model,
    replay,
    trace_module,
)
from kspec.tla.runner import Simulation, TLCResult, run_tlc
from kspec.tla.values import FrozenDict

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


def tlc(cfg: str, **kwargs: Any) -> TLCResult:
    return run_tlc(SPEC, config_text=cfg, check_deadlock=False, timeout=180, **kwargs)




# -- equal sets of distinct states -------------------------------------------------------------


def test_tla_check_voters_equal_state_sets(capsys: pytest.CaptureFixture[str]) -> None:
    args = [f"{k}={str(v).lower()}" for k, v in SMALL.items()]
    code, out, err = run_cli(["tla", "check", "voters", *args, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    model = make(**SMALL)
    states = reachable_states(model)
    assert doc["equal"] is True and doc["only_in_tlc"] == doc["only_in_model"] == 0
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == len(states) > 3000
    assert doc["tlc_violations"] == []
    # Not trivial states: an added voter and a removal commit, a snapshot holds a voter set.
    props = {p.name: p for p in model.properties()}
    for witness in ("VoterAdded", "VoterRemoved", "SnapshotTaken", "AddedVoterVotes"):
        assert any(props[witness].check(s) for s in states), witness


@pytest.mark.parametrize("bounds", [UPGRADE_BOUNDS, FORMATTED_BOUNDS], ids=["upgrade", "formatted-crash"])
def test_equal_state_sets_static_voters_and_formatted_start(bounds: dict[str, int | bool]) -> None:
    from kspec.tla.check import check_agreement

    model = make(**bounds)
    result = check_agreement(MAPPING, model, bounds, timeout=180)
    assert result.equal and result.tlc_distinct_states == result.model_distinct_states > 100
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
    from kspec.tla.check import check_agreement

    result = check_agreement(MAPPING, make(**bounds), bounds, timeout=120)
    assert result.equal and result.tlc_distinct_states == result.model_distinct_states >= 1


def test_the_mapping_is_one_to_one() -> None:
    states = reachable_states(make(**SMALL))
    assert len({from_model(s) for s in states}) == len(states)


def test_symmetry_and_unknown_flags_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UnsupportedBounds, match="symmetry=false"):
        config({**SMALL, "symmetry": True})
    with pytest.raises(UnsupportedBounds, match="no flaw flag"):
        config_for(SMALL, "no-such-variant")
    code, out, err = run_cli(["tla", "check", "voters", "max_epoch=1"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "symmetry=false" in err, err


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
    witnesses = {p.name: p for p in make(**UPGRADE_BOUNDS).properties() if p.kind == "sometimes"}
    assert set(witnesses) == set(WITNESSES)
    for prop in witnesses.values():
        at = [i for i, line in enumerate(lines) if line.startswith(f"{prop.name} ==")]
        assert len(at) == 1 and lines[at[0] - 1].startswith(f"\\* {prop.id}"), prop.name
    for action in ACTION_TYPES:
        assert any(re.match(rf"{action.__name__}\(.*\) ==", line) for line in lines), action.__name__
    text = SPEC.read_text()
    for inp in VOTER_INPUT_TYPES:
        assert f'"{inp.__name__}"' in text, inp.__name__


# -- TLC -simulate traces replay through the model ---------------------------------------------


def test_simulated_traces_replay_step_by_step() -> None:
    result = tlc(config_for(SIM_BOUNDS, invariants=()), simulate=Simulation(depth=60, seed=7, traces=16))
    assert result.ok, result.violation
    assert len(result.simulation_traces) == 16
    model = make(**SIM_BOUNDS)
    kinds: set[str] = set()
    steps = 0
    for trace in result.simulation_traces:
        values = trace.values()
        replayed = replay(model, values)
        assert [from_model(s) for _, s in replayed] == [FrozenDict(v) for v in values]
        kinds |= {type(getattr(a, "input", a)).__name__ for a, _ in replayed[1:]}
        steps += len(values) - 1
    assert steps >= 150
    assert {"Deliver", "FetchDue", "AddVoter", "RemoveVoter"} <= kinds, kinds


def test_replay_rejects_a_state_no_action_reaches() -> None:
    result = tlc(config_for(CFG_BOUNDS, invariants=()), simulate=Simulation(depth=6, seed=3, traces=1))
    trace = result.simulation_traces[0].values()
    assert len(trace) >= 3
    model = make(**CFG_BOUNDS)
    with pytest.raises(ReplayError, match="state 2 of the TLC trace"):
        replay(model, [trace[0], {**trace[1], "adds": 5}])
    with pytest.raises(ReplayError, match="not an initial state"):
        replay(model, [{**trace[0], "snapshots": 1}])


# -- broken copies: TLC and the explorer find the same property violated -----------------------

# Bounds at which each variant's flaw shows (history-not-truncated needs a second epoch whose
# leader truncates an uncommitted VotersRecord: three voters).
BROKEN_BOUNDS: dict[str, dict[str, int | bool]] = {
    "two-changes-in-flight": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "effect-on-commit": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "snapshot-without-voters": {"hosts": 3, "voters": 2, "max_fetches": 1, "max_elections": 1, "symmetry": False},
    "history-not-truncated": {"hosts": 3, "voters": 3, "max_fetches": 2, "max_elections": 1, "symmetry": False},
}


@pytest.mark.parametrize("name", sorted(VARIANT_FLAGS))
def test_flaw_flag_and_variant_violate_the_same_property(name: str) -> None:
    bounds = BROKEN_BOUNDS[name]
    broken = tlc(config_for(bounds, name))
    assert broken.violation is not None and broken.violation.trace is not None
    assert broken.violation.kind == "invariant"

    variant = VARIANTS[name](**bounds)
    found = explore(variant)
    violated = {v.name for v in found.violations}
    assert CATALOGUE[name][1] in violated and broken.violation.name in violated, (broken.violation.name, violated)
    # TLC's counterexample is a shortest behaviour of the Python variant, ending where the
    # property fails.
    replayed = replay(variant, broken.violation.trace.values())
    prop = next(p for p in variant.properties() if p.name == broken.violation.name)
    assert not prop.check(replayed[-1][1]) and all(prop.check(s) for _, s in replayed[:-1])
    assert len(replayed) == len(found.violations[0].trace)
    # It is not a behaviour of the reference model.
    with pytest.raises(ReplayError):
        replay(make(**bounds), broken.violation.trace.values())


def trace_check(tmp_path: Path, states: list[Any], variant: str | None, bounds: dict[str, int | bool],
                invariant: str) -> TLCResult:
    """TLC on a module allowing only the Python trace's steps that the spec's Next allows."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    for sibling in ("KRaft.tla", "Voters.tla"):
        (tmp_path / sibling).write_text((SPEC.parent / sibling).read_text())
    spec = tmp_path / "VotersTrace.tla"
    spec.write_text(trace_module("VotersTrace", states))
    cfg = config_for(bounds, variant, invariants=(invariant,))
    cfg = cfg.replace("INIT Init", "INIT TraceInit").replace("NEXT Next", "NEXT TraceNext")
    return run_tlc(spec, config_text=cfg, check_deadlock=False, timeout=120)


def test_two_changes_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    name = "two-changes-in-flight"
    bounds = BROKEN_BOUNDS[name]
    found = explore(VARIANTS[name](**bounds))
    states = [step.state for step in found.violations[0].trace]
    invariant = CATALOGUE[name][1]
    broken = trace_check(tmp_path / "broken", states, name, bounds, invariant)
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", invariant)
    assert [FrozenDict(v) for v in broken.violation.trace.values()] == [from_model(s) for s in states]
    # The reference spec does not allow the last step (the second VotersRecord): TLC never takes it.
    reference = trace_check(tmp_path / "reference", states, None, bounds, invariant)
    assert reference.ok and reference.distinct_states == len(states) - 1


# -- TLC reaches the witnesses -----------------------------------------------------------------


@pytest.mark.parametrize("witness", ["VoterAdded", "VoterRemoved"])
def test_tlc_reaches_witness(witness: str) -> None:
    result = tlc(config_for(CFG_BOUNDS | {"max_fetches": 2}, invariants=(f"Not{witness}",)))
    assert result.violation is not None and result.violation.name == f"Not{witness}"
    assert result.violation.trace is not None
    model = make(**(CFG_BOUNDS | {"max_fetches": 2}))
    replayed = replay(model, result.violation.trace.values())
    prop = next(p for p in model.properties() if p.name == witness)
    assert prop.check(replayed[-1][1]) and not any(prop.check(s) for _, s in replayed[:-1])
