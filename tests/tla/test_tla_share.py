"""tla/ShareCoordinator.tla against the Python share model, with real TLC.

Agreement is shown four ways: equal sets of distinct states (``kspec tla check share``),
TLC ``-simulate`` behaviours replaying step by step through the Python model, broken copies
of the spec (flaw flags) and the matching Python variants violating the same-named property
(TLC's counterexample replays through the Python variant; the explorer's counterexample is a
behaviour of the broken spec and not of the reference), and TLC reaching every witness.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tlc_helpers import (
    action_kinds,
    assert_cli_equal_state_sets,
    assert_counterexample_replays,
    assert_replay_rejects,
    assert_witness_reached,
    replay_simulation,
    tlc_on,
    trace_tlc,
)

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
    config_for,
    from_model,
    replay,
)
from kspec.tla.runner import Simulation, TLCResult

MAPPING = get_mapping("share")
SPEC = MAPPING.spec_path()
SMALL = {"offsets": 2, "max_records": 4}
tlc = tlc_on(SPEC, timeout=120)


# -- equal sets of distinct states -------------------------------------------------------------


# Every rule set (KafkaMinor): 4.0 needs no initialize, so fewer records reach as far.
# One release per rule set (4.2 and 4.3 follow 4.1's; 4.4 refuses negative epochs).
@pytest.mark.parametrize(("minor", "records", "least"), [(0, 3, 500), (1, 4, 500), (4, 4, 500)])
def test_tla_check_share_equal_state_sets(minor: int, records: int, least: int,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    # Every bound named: the CLI fills the rest with the explorer's defaults.
    bounds = {"offsets": 2, "max_records": records, "snapshot_every": 1, "max_leader_epoch": 1, "max_state_epoch": 2,
              "max_failovers": 1, "kafka_minor": minor}
    model = ShareSystem(**bounds)
    inside = [s for s in reachable_states(model) if model.within_bounds(s)]
    assert len(inside) > least
    assert_cli_equal_state_sets("share", bounds, len(inside), capsys)


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


def simulated(seed: int, traces: int = 4, depth: int = 14) -> TLCResult:
    result = tlc(config_for(DEFAULT_BOUNDS), simulate=Simulation(depth=depth, seed=seed, traces=traces))
    assert result.ok, result.violation
    assert len(result.simulation_traces) == traces
    return result


def test_simulated_traces_replay_step_by_step() -> None:
    # Each replay has as many states as its trace, equal to them (replay_simulation).
    replays = replay_simulation(MAPPING, ShareSystem(**DEFAULT_BOUNDS), simulated(seed=11, traces=8), traces=8)
    kinds = action_kinds(replays)
    assert sum(len(replayed) - 1 for replayed in replays) >= 30
    assert {"Write", "Read"} <= kinds and len(kinds) >= 4, kinds


def test_replay_rejects_a_state_no_action_reaches() -> None:
    trace = simulated(seed=11, traces=1).simulation_traces[0].values()
    # One field off in the second state: no first step of the model is fenced (there are no
    # fences yet); a leader epoch of 5 in the first.
    assert_replay_rejects(MAPPING, ShareSystem(**DEFAULT_BOUNDS), trace, {"last_error": "FENCED_STATE_EPOCH"},
                          {"leader_epoch": 5})


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
    # TLC's counterexample is a behaviour of the Python variant, ending where no_loss fails,
    # and not of the reference model.
    assert_counterexample_replays(MAPPING, broken, variant, len(shortest.trace), ShareSystem(**SEED_BUG_BOUNDS))
    # The reference spec at the same bounds holds no_loss.
    assert tlc(config_for(SEED_BUG_BOUNDS, REFERENCE, properties=())).ok


def test_unfenced_stale_leader_counterexample_is_a_behaviour_of_the_broken_spec(tmp_path: Path) -> None:
    name = "unfenced-stale-leader"
    flaws = VARIANT_FLAWS[name]
    # A write's record keeps the stored leader epoch (SHARE-RULE-WRITE-KEEPS-EPOCHS), so the
    # states after an accepted stale write equal those after the current leader's same write:
    # only the action shows the flaw. TLC follows the trace on the broken copy and finds the
    # property violated on its last step; on the reference spec the same states are reached by
    # the current leader's write, and the property holds along them.
    bounds = {**SMALL, "kafka_minor": 1}
    variant = VARIANTS[name](**bounds)
    found = explore(variant)
    assert found.violations and found.violations[0].name == "stale_leader_fenced"
    states = [step.state for step in found.violations[0].trace]

    cfgs = [config_for(bounds, f, invariants=(), properties=("stale_leader_fenced",)) for f in (flaws, REFERENCE)]
    broken = trace_tlc(tmp_path / "broken", MAPPING, states, cfgs[0])
    assert broken.violation is not None and broken.violation.name == "stale_leader_fenced"
    assert broken.violation.trace is not None and len(broken.violation.trace) == len(states)
    assert trace_tlc(tmp_path / "reference", MAPPING, states, cfgs[1]).ok

    # And TLC on the broken copy finds the same property violated on its own, in as many steps.
    alone = tlc(config_for(bounds, flaws, invariants=(), properties=("stale_leader_fenced",)))
    assert alone.violation is not None and alone.violation.name == "stale_leader_fenced"
    assert alone.violation.trace is not None and len(alone.violation.trace) == len(states)
    replay(variant, alone.violation.trace.values())


# -- TLC reaches every witness -----------------------------------------------------------------


@pytest.mark.parametrize("witness", WITNESSES)
def test_tlc_reaches_witness(witness: str) -> None:
    result = tlc(config_for(DEFAULT_BOUNDS, invariants=(f"not_{witness}",), properties=()))
    replayed = assert_witness_reached(MAPPING, result, ShareSystem(**DEFAULT_BOUNDS), witness, f"not_{witness}")
    if witness == "share_update_written":
        assert any(isinstance(r, ShareUpdate) for r in replayed[-1][1].log)
