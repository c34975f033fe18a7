"""tla/KRaft.tla against the Python KRaft system model, with real TLC.

Agreement is shown three ways: equal sets of distinct states (``kspec tla check raft``, the
Python side without symmetry reduction), TLC ``-simulate`` behaviours replaying step by step
through the Python model, and a broken copy of the spec (the VoteTwice flag) and the Python
variant ``vote-twice`` violating the same-named property, TLC's counterexample replaying
through the variant.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from kspec.model.core.explorer import explore, reachable_states
from kspec.model.raft import make
from kspec.model.raft.system import ACTION_TYPES
from kspec.model.raft.variants import CATALOGUE, VARIANTS
from kspec.tla.check import check_agreement
from kspec.tla.mappings import get_mapping
from kspec.tla.mappings.raft import (
    ACTION_PROPERTIES,
    DEFAULT_BOUNDS,
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


def tlc(cfg: str, **kwargs: Any) -> TLCResult:
    return run_tlc(SPEC, config_text=cfg, check_deadlock=False, timeout=120, **kwargs)




# -- equal sets of distinct states -------------------------------------------------------------


def test_tla_check_raft_equal_state_sets(capsys: pytest.CaptureFixture[str]) -> None:
    args = [f"{k}={str(v).lower()}" for k, v in SMALL.items()]
    code, out, err = run_cli(["tla", "check", "raft", *args, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    model = make(**SMALL)
    inside = [s for s in reachable_states(model) if model.within_bounds(s)]
    assert doc["equal"] is True and doc["only_in_tlc"] == doc["only_in_model"] == 0
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == len(inside) > 1000
    assert doc["tlc_violations"] == []
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
    result = check_agreement(MAPPING, model, bounds, timeout=120)
    assert result.equal and result.tlc_distinct_states == result.model_distinct_states > 100
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
    with pytest.raises(UnsupportedBounds, match="symmetry=false"):
        config({**SMALL, "symmetry": True})
    code, out, err = run_cli(["tla", "check", "raft", "max_epoch=1"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "symmetry=false" in err, err


def test_committed_cfg_is_the_generated_one() -> None:
    cfg = SPEC.with_suffix(".cfg").read_text()
    assert cfg == config_for(CFG_BOUNDS)
    for name in (*INVARIANTS, *ACTION_PROPERTIES):
        assert f"  {name}\n" in cfg


def test_spec_names_every_python_invariant_and_action() -> None:
    lines = SPEC.read_text().splitlines()
    props = {p.name: p for p in make(**SMALL).properties() if p.kind in ("always", "always_step")}
    assert set(props) == {*INVARIANTS, *ACTION_PROPERTIES}
    for prop in props.values():
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
    assert result.ok, result.violation
    assert len(result.simulation_traces) == 10
    model = make(**SIM_BOUNDS)
    kinds: set[str] = set()
    steps = 0
    epochs_led: set[int] = set()
    for trace in result.simulation_traces:
        values = trace.values()
        replayed = replay(model, values)
        assert [from_model(s) for _, s in replayed] == [FrozenDict(v) for v in values]
        kinds |= {type(getattr(a, "input", a)).__name__ for a, _ in replayed[1:]}
        epochs_led |= {e for e, _ in replayed[-1][1].elected}
        steps += len(values) - 1
    assert steps >= 100
    assert {"Deliver", "Drop", "ElectionTimeout", "FetchDue", "ClientAppend", "CheckQuorumTimeout"} <= kinds, kinds
    assert {1, 2} <= epochs_led


def test_replay_rejects_a_state_no_action_reaches() -> None:
    result = tlc(config_for(SMALL, properties=()), simulate=Simulation(depth=10, seed=3, traces=1))
    trace = result.simulation_traces[0].values()
    assert len(trace) >= 3
    model = make(**SMALL)
    with pytest.raises(ReplayError, match="state 2 of the TLC trace"):
        replay(model, [trace[0], {**trace[1], "appends": 5}])
    with pytest.raises(ReplayError, match="not an initial state"):
        replay(model, [{**trace[0], "elections": 1}])


# -- a broken copy: TLC and the explorer find the same property violated ------------------------


VOTE_TWICE_BOUNDS: dict[str, int | bool] = {"max_epoch": 1, "max_appends": 0, "max_crashes": 0, "max_fetches": 0,
                                            "max_elections": 2, "symmetry": False}


def test_vote_twice_flag_and_variant_violate_vote_once() -> None:
    name = "vote-twice"
    assert VARIANT_FLAGS[name] == "VoteTwice" and CATALOGUE[name].breaks == "VoteOnce"
    broken = tlc(config_for(VOTE_TWICE_BOUNDS, name, properties=()))
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", "VoteOnce")

    variant = VARIANTS[name](**VOTE_TWICE_BOUNDS)
    found = explore(variant)
    assert [v.name for v in found.violations] == ["VoteOnce"]
    # TLC's counterexample is a behaviour of the Python variant, ending where VoteOnce fails.
    replayed = replay(variant, broken.violation.trace.values())
    vote_once = next(p for p in variant.properties() if p.name == "VoteOnce")
    assert not vote_once.check(replayed[-1][1]) and all(vote_once.check(s) for _, s in replayed[:-1])
    assert len(replayed) == len(found.violations[0].trace)
    # It is not a behaviour of the reference model (whose spec holds VoteOnce: the tests above).
    with pytest.raises(ReplayError):
        replay(make(**VOTE_TWICE_BOUNDS), broken.violation.trace.values())


def trace_check(tmp_path: Path, states: list[Any], variant: str | None) -> TLCResult:
    """TLC on a module allowing only the Python trace's steps that the spec's Next allows."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "KRaft.tla").write_text(SPEC.read_text())
    spec = tmp_path / "KRaftTrace.tla"
    spec.write_text(trace_module("KRaftTrace", states))
    cfg = config_for(VOTE_TWICE_BOUNDS, variant, invariants=("VoteOnce",), properties=())
    cfg = cfg.replace("INIT Init", "INIT TraceInit").replace("NEXT Next", "NEXT TraceNext")
    return run_tlc(spec, config_text=cfg, check_deadlock=False, timeout=120)


def test_vote_twice_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    found = explore(VARIANTS["vote-twice"](**VOTE_TWICE_BOUNDS))
    states = [step.state for step in found.violations[0].trace]
    broken = trace_check(tmp_path / "broken", states, "vote-twice")
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", "VoteOnce")
    assert [FrozenDict(v) for v in broken.violation.trace.values()] == [from_model(s) for s in states]
    # The reference spec does not allow the last step (the second vote): TLC never takes it.
    reference = trace_check(tmp_path / "reference", states, None)
    assert reference.ok and reference.distinct_states == len(states) - 1


# -- TLC reaches the witnesses -----------------------------------------------------------------


@pytest.mark.parametrize("witness", ["VoteGranted", "RecordCommitted"])
def test_tlc_reaches_witness(witness: str) -> None:
    assert witness in WITNESSES
    result = tlc(config_for(COMMIT_BOUNDS, invariants=(f"Not{witness}",), properties=()))
    assert result.violation is not None and result.violation.name == f"Not{witness}"
    assert result.violation.trace is not None
    model = make(**COMMIT_BOUNDS)
    replayed = replay(model, result.violation.trace.values())
    prop = next(p for p in model.properties() if p.name == witness)
    assert prop.check(replayed[-1][1]) and not any(prop.check(s) for _, s in replayed[:-1])


# -- more broken copies: candidate-counts-rejections, vote-ignores-log -------------------------


def test_candidate_counts_rejections_flag_and_variant_violate_election_safety() -> None:
    name = "candidate-counts-rejections"
    assert VARIANT_FLAGS[name] == "CandidateCountsRejections" and CATALOGUE[name].breaks == "ElectionSafety"
    broken = tlc(config_for(VOTE_TWICE_BOUNDS, name, properties=()))
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", "ElectionSafety")
    variant = VARIANTS[name](**VOTE_TWICE_BOUNDS)
    found = explore(variant)
    assert [v.name for v in found.violations] == ["ElectionSafety"]
    replayed = replay(variant, broken.violation.trace.values())
    safety = next(p for p in variant.properties() if p.name == "ElectionSafety")
    assert not safety.check(replayed[-1][1]) and all(safety.check(s) for _, s in replayed[:-1])
    assert len(replayed) == len(found.violations[0].trace)
    with pytest.raises(ReplayError):
        replay(make(**VOTE_TWICE_BOUNDS), broken.violation.trace.values())


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

    def check(where: Path, variant: str | None) -> TLCResult:
        where.mkdir(parents=True)
        (where / "KRaft.tla").write_text(SPEC.read_text())
        (where / "KRaftTrace.tla").write_text(trace_module("KRaftTrace", states))
        cfg = config_for(IGNORES_LOG_BOUNDS, variant, invariants=("LeaderCompleteness",), properties=())
        cfg = cfg.replace("INIT Init", "INIT TraceInit").replace("NEXT Next", "NEXT TraceNext")
        return run_tlc(where / "KRaftTrace.tla", config_text=cfg, check_deadlock=False, timeout=120)

    broken = check(tmp_path / "broken", name)
    assert broken.violation is not None and broken.violation.trace is not None
    assert broken.violation.name == "LeaderCompleteness"
    assert [FrozenDict(v) for v in broken.violation.trace.values()] == [from_model(s) for s in states]
    reference = check(tmp_path / "reference", None)
    assert reference.ok and reference.distinct_states < len(states)
