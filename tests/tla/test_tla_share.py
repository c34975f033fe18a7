"""tla/ShareCoordinator.tla against the Python share model, with real TLC.

Agreement is shown four ways: equal sets of distinct states (``kspec tla check share``),
TLC ``-simulate`` behaviours replaying step by step through the Python model, broken copies
of the spec (flaw flags) and the matching Python variants violating the same-named property
(TLC's counterexample replays through the Python variant; the explorer's counterexample is a
behaviour of the broken spec and not of the reference), and TLC reaching every witness.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from kspec.model.core.explorer import explore, reachable_states
from kspec.model.share.records import ShareUpdate
from kspec.model.share.shard import REFERENCE, Flaws
from kspec.model.share.system import Elect, Initialize, Load, Read, ShareSystem, Unload, Write
from kspec.model.share.variants import VARIANTS
from kspec.tla.mappings import get_mapping
from kspec.tla.mappings.share import (
    ACTION_PROPERTIES,
    DEFAULT_BOUNDS,
    INVARIANTS,
    VARIANT_FLAWS,
    WITNESSES,
    ReplayError,
    config_for,
    from_model,
    replay,
    trace_module,
)
from kspec.tla.runner import Simulation, TLCResult, run_tlc
from kspec.tla.values import FrozenDict

MAPPING = get_mapping("share")
SPEC = MAPPING.spec_path()
SMALL = {"offsets": 2, "max_records": 4}


def tlc(cfg: str, **kwargs: Any) -> TLCResult:
    return run_tlc(SPEC, config_text=cfg, check_deadlock=False, timeout=120, **kwargs)


def property_of(model: ShareSystem, name: str) -> Any:
    return next(p for p in model.properties() if p.name == name)




# -- equal sets of distinct states -------------------------------------------------------------


# Every Kafka release's rules (KafkaMinor): 4.0 needs no initialize, so fewer records reach as far.
@pytest.mark.parametrize(("minor", "records", "least"), [(0, 3, 1000), (1, 4, 1000), (2, 4, 500), (3, 4, 500)])
def test_tla_check_share_equal_state_sets(minor: int, records: int, least: int,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["tla", "check", "share", "offsets=2", f"max_records={records}",
                              f"kafka_minor={minor}", "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    model = ShareSystem(offsets=2, max_records=records, kafka_minor=minor)
    inside = [s for s in reachable_states(model) if model.within_bounds(s)]
    assert doc["equal"] is True and doc["only_in_tlc"] == doc["only_in_model"] == 0
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == len(inside) > least
    assert doc["tlc_violations"] == []


def test_the_mapping_is_one_to_one() -> None:
    states = reachable_states(ShareSystem(**SMALL))
    assert len({from_model(s) for s in states}) == len(states)


def test_committed_cfg_is_the_generated_one() -> None:
    cfg = SPEC.with_suffix(".cfg").read_text()
    assert cfg == config_for(DEFAULT_BOUNDS)
    for name in (*INVARIANTS, *ACTION_PROPERTIES, "WithinBounds"):
        assert f"  {name}\n" in cfg or f"CONSTRAINT {name}\n" in cfg


def test_spec_names_every_python_property_and_action() -> None:
    lines = SPEC.read_text().splitlines()
    model = ShareSystem()
    for prop in model.properties():
        at = [i for i, line in enumerate(lines) if line.startswith(f"{prop.name} ==")]
        assert len(at) == 1, prop.name
        assert lines[at[0] - 1].startswith(f"\\* {prop.id}"), f"{prop.name} lacks its ID comment"
    for action in (Write, Read, Elect, Initialize, Unload, Load):
        assert any(re.match(rf"{action.__name__}(\(.*\))? ==", line) for line in lines), action.__name__


# -- TLC -simulate traces replay through the model ---------------------------------------------


def simulated(seed: int, traces: int = 4, depth: int = 14) -> list[list[dict[str, Any]]]:
    result = tlc(config_for(DEFAULT_BOUNDS), simulate=Simulation(depth=depth, seed=seed, traces=traces))
    assert result.ok, result.violation
    assert len(result.simulation_traces) == traces
    return [t.values() for t in result.simulation_traces]


def test_simulated_traces_replay_step_by_step() -> None:
    model = ShareSystem(**DEFAULT_BOUNDS)
    kinds: set[str] = set()
    steps = 0
    for trace in simulated(seed=11, traces=8):
        replayed = replay(model, trace)
        assert len(replayed) == len(trace)
        assert [from_model(s) for _, s in replayed] == [FrozenDict(v) for v in trace]
        kinds |= {type(a).__name__ for a, _ in replayed[1:]}
        steps += len(trace) - 1
    assert steps >= 30
    assert {"Write", "Read"} <= kinds and len(kinds) >= 4, kinds


def test_replay_rejects_a_state_no_action_reaches() -> None:
    trace = simulated(seed=11, traces=1)[0]
    assert len(trace) >= 3
    with pytest.raises(ReplayError, match="state 2 of the TLC trace"):
        # One field off: no first step of the model is fenced (there are no fences yet).
        replay(ShareSystem(**DEFAULT_BOUNDS), [trace[0], {**trace[1], "last_error": "FENCED_STATE_EPOCH"}])
    bad = {**trace[0], "leader_epoch": 5}
    with pytest.raises(ReplayError, match="not an initial state"):
        replay(ShareSystem(**DEFAULT_BOUNDS), [bad])


# -- broken copies: TLC and the explorer find the same property violated ------------------------


SEED_BUG_BOUNDS = {"offsets": 2, "max_records": 3, "snapshot_every": 0}


def test_seed_bug_flag_and_variant_violate_no_loss() -> None:
    flaws = VARIANT_FLAWS["new-batches-only-on-start-move"]
    assert flaws == Flaws(seed_bug=True)
    broken = tlc(config_for(SEED_BUG_BOUNDS, flaws, properties=()))
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("invariant", "no_loss")

    variant = VARIANTS["new-batches-only-on-start-move"](**SEED_BUG_BOUNDS)
    found = explore(variant, stop_on_violation=False)
    assert {v.name for v in found.violations} == {"no_loss"}
    shortest = next(v for v in found.violations if v.name == "no_loss")
    # TLC's counterexample is a behaviour of the Python variant, ending where no_loss fails.
    replayed = replay(variant, broken.violation.trace.values())
    no_loss = property_of(variant, "no_loss")
    assert not no_loss.check(replayed[-1][1]) and all(no_loss.check(s) for _, s in replayed[:-1])
    assert len(replayed) == len(shortest.trace)
    # The reference spec at the same bounds holds no_loss.
    assert tlc(config_for(SEED_BUG_BOUNDS, REFERENCE, properties=())).ok


def trace_check(tmp_path: Path, states: list[Any], flaws: Flaws, bounds: Mapping[str, int],
                properties: tuple[str, ...]) -> TLCResult:
    """TLC on a module allowing only the Python trace's steps that the spec's Next allows."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ShareCoordinator.tla").write_text(SPEC.read_text())
    spec = tmp_path / "ShareTrace.tla"
    spec.write_text(trace_module("ShareTrace", states))
    cfg = config_for(bounds, flaws, invariants=(), properties=properties)
    cfg = cfg.replace("INIT Init", "INIT TraceInit").replace("NEXT Next", "NEXT TraceNext")
    return run_tlc(spec, config_text=cfg, check_deadlock=False, timeout=120)


def test_unfenced_stale_leader_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    name = "unfenced-stale-leader"
    flaws = VARIANT_FLAWS[name]
    # Kafka 4.1's rules: there a write's record carries the writer's leader epoch. From 4.2 it
    # carries the stored one (SHARE-VER-WRITE-KEEPS-EPOCHS), so the state after an accepted stale
    # write equals the state after the current leader's same write, and only the action (not the
    # state) shows the flaw: the reference spec would then allow the trace's states.
    bounds = {**SMALL, "kafka_minor": 1}
    variant = VARIANTS[name](**bounds)
    found = explore(variant)
    assert found.violations and found.violations[0].name == "stale_leader_fenced"
    states = [step.state for step in found.violations[0].trace]

    broken = trace_check(tmp_path / "broken", states, flaws, bounds, ("stale_leader_fenced",))
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == ("action", "stale_leader_fenced")
    assert [FrozenDict(v) for v in broken.violation.trace.values()] == [from_model(s) for s in states]

    # The reference spec does not allow the trace's last step: TLC never takes it.
    reference = trace_check(tmp_path / "reference", states, REFERENCE, bounds, ("stale_leader_fenced",))
    assert reference.ok and reference.distinct_states == len(states) - 1

    # And TLC on the broken copy finds the same property violated on its own, in as many steps.
    alone = tlc(config_for(bounds, flaws, invariants=(), properties=("stale_leader_fenced",)))
    assert alone.violation is not None and alone.violation.name == "stale_leader_fenced"
    assert alone.violation.trace is not None and len(alone.violation.trace) == len(states)
    replay(variant, alone.violation.trace.values())


# -- TLC reaches every witness -----------------------------------------------------------------


@pytest.mark.parametrize("witness", WITNESSES)
def test_tlc_reaches_witness(witness: str) -> None:
    result = tlc(config_for(DEFAULT_BOUNDS, invariants=(f"not_{witness}",), properties=()))
    assert result.violation is not None and result.violation.name == f"not_{witness}"
    assert result.violation.trace is not None
    model = ShareSystem(**DEFAULT_BOUNDS)
    replayed = replay(model, result.violation.trace.values())
    assert property_of(model, witness).check(replayed[-1][1])
    if witness == "share_update_written":
        assert any(isinstance(r, ShareUpdate) for r in replayed[-1][1].log)
