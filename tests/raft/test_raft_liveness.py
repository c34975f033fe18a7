"""KRaft liveness (spec/raft.md §Liveness): the model keeps every liveness property at small
bounds, each property is witnessed (not vacuous), and each liveness variant is caught with
a lasso that replays step for step. Bigger bounds: ``kspec explore raft`` (and bench/)."""

from __future__ import annotations

from typing import Any

import pytest

from kspec.model.core.liveness import Lasso, LivenessResult, check_liveness
from kspec.model.raft import BOUNDS, PROTOCOL
from kspec.model.raft.liveness import RAFT_LIVENESS, LiveRaftModel, make_suffix, shift_epochs
from kspec.model.raft.liveness_variants import CATALOGUE, VARIANTS

DEFAULTS = {b.name: b.default for b in BOUNDS}
SMALL = {**DEFAULTS, "max_epoch": 1, "max_appends": 0}


def _check(model: Any) -> LivenessResult:
    return check_liveness(model, make_suffix(model))


def _replays(model: Any, lasso: Lasso) -> None:
    """Every step of the lasso is a step of the model (fault phase) or of the suffix, and the
    loop returns to its first state (up to renumbering epochs)."""
    suffix = make_suffix(model)
    for i, (before, step) in enumerate(zip(lasso.stem, (*lasso.stem[1:], *lasso.loop), strict=False)):
        nxt = (model if i < lasso.faults_stop else suffix).next_state(before.state, step.action)
        if i >= lasso.faults_stop:
            assert nxt is not None and suffix.canonical(step.state) == suffix.canonical(nxt), \
                f"step {i + 1} does not replay"
        else:
            assert nxt == step.state, f"fault-phase step {i + 1} does not replay"
    if lasso.loop:
        assert suffix.canonical(lasso.loop[-1].state) == suffix.canonical(lasso.stem[-1].state)


@pytest.mark.parametrize("pre_vote", [False, True])
def test_model_keeps_every_liveness_property_and_each_is_witnessed(pre_vote: bool) -> None:
    result = _check(LiveRaftModel(**{**SMALL, "pre_vote": pre_vote}))
    expected = {p.name: "holds" for p in RAFT_LIVENESS}
    if not pre_vote:
        expected["NotStuckProspective"] = "not-checked"
    assert result.verdicts == expected
    assert result.witnesses and all(result.witnesses.values()), result.witnesses
    assert result.complete and result.fair_components > 0


@pytest.mark.parametrize("name", sorted(CATALOGUE))
def test_each_liveness_variant_is_caught_with_a_lasso(name: str) -> None:
    variant = CATALOGUE[name]
    model = VARIANTS[name](**{**DEFAULTS, **variant.bounds})
    result = _check(model)
    for prop in variant.breaks:
        assert result.verdicts[prop] == "violated", (prop, result.verdicts)
        lasso = result.counterexamples[prop]
        assert not lasso.escape
        _replays(model, lasso)


def test_every_liveness_property_has_three_variants() -> None:
    for prop in RAFT_LIVENESS:
        catching = [n for n, v in CATALOGUE.items() if prop.name in v.breaks]
        assert len(catching) >= 3, (prop.name, catching)


def test_liveness_variants_are_registered_with_the_protocol() -> None:
    assert set(CATALOGUE) <= set(PROTOCOL.variants)
    assert PROTOCOL.liveness is not None


def test_renumbering_epochs_keeps_zero_as_no_epoch() -> None:
    model = LiveRaftModel(**SMALL)
    state = model.init_states()[0]
    assert shift_epochs(state) == state  # epoch 0 everywhere: nothing to lower
    from kspec.model.core.evolve import evolve
    from kspec.model.raft.state import Candidate

    bumped = evolve(state, nodes=tuple(evolve(n, role=Candidate(3, frozenset({n.id}))) for n in state.nodes))
    lowered = shift_epochs(bumped)
    assert [n.epoch for n in lowered.nodes] == [0, 0, 0]
    assert all(n.log == () for n in lowered.nodes)


def test_explore_json_reports_liveness_and_explain_draws_the_cycle(
        capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    import json

    from cli_run import run_cli

    bounds = [f"{k}={v}" for k, v in CATALOGUE["lockstep-backoff"].bounds.items()]
    code, out, _ = run_cli(["explore", "raft", "--variant", "lockstep-backoff", *bounds, "--json"], capsys)
    doc = json.loads(out)
    assert code == 1
    assert doc["liveness"] == {"EventuallyStableLeader": "violated", "NoElectionLivelock": "violated",
                               "NotStuckCandidate": "violated", "NotStuckProspective": "not-checked"}
    lasso = doc["liveness_counterexamples"]["NoElectionLivelock"]
    assert 0 < lasso["faults_stop"] < lasso["loop_back"] < lasso["length"]
    path = tmp_path / "lasso.json"
    path.write_text(out)
    code, out, _ = run_cli(["explain", str(path), "--violation", "1"], capsys)
    assert code in (0, 1)
    assert f"↺ back to step {doc['liveness_counterexamples']['NoElectionLivelock']['loop_back']}" in out
    assert "no fault after this step" in out
