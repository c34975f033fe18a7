"""A target that raises, hangs, answers malformed output or cannot start gives verdict error
with the step and the reason, never hangs the run, and keeps the partial counterexample."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conformance_faulty_targets import (
    SLOW_STEP,
    AlarmSwallowedOnce,
    DivergesThenHangs,
    HangingTarget,
    HangsOnce,
    MalformedTarget,
    NoLeaderOnlyDeclared,
    NoLeaderOnlyTarget,
    RaisingTarget,
    SlowStart,
    StartFails,
)

from kspec.conformance.cli import main
from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers.runner import run_conformance


@pytest.mark.parametrize(("target", "field", "reason"), [
    (RaisingTarget, "target", "RuntimeError: boom in the target"),
    (HangingTarget, "timeout", "hung"),
    (MalformedTarget, "malformed", "expected an object with a 'type'"),
])
def test_target_failure_is_an_error_with_partial_counterexample(target: type, field: str, reason: str,
                                                                  tmp_path: Path) -> None:
    target.instance_class.failed = 0
    result = run_conformance("raft", target(), out_dir=tmp_path, step_timeout=0.5)
    assert target.instance_class.failed == 1  # the run stops at the first failure: no shrinking, no replay
    assert result.verdict == "error"
    assert result.finding is not None and result.finding.field == field and reason in result.finding.detail
    # each instance fails on its third input: the run's step is the first node to get there
    assert result.finding.step == len(result.steps) >= 3
    meta, steps = read_counterexample(Path(result.counterexample or ""))
    assert meta["verdict"] == "error" and meta["divergence"]["step"] == result.finding.step
    assert steps[-1].input is not None and steps[-1].target_outputs is None
    assert steps[0].target_observation == steps[0].model_observation


def test_target_that_cannot_start(tmp_path: Path) -> None:
    result = run_conformance("raft", StartFails(), out_dir=tmp_path)
    assert result.verdict == "error" and result.finding is not None
    assert result.finding.step == 0 and "cannot start the replica" in result.finding.detail
    doc = json.loads(Path(result.counterexample or "").read_text())
    assert doc["#meta"]["verdict"] == "error" and doc["states"] == []


def test_a_start_slower_than_a_step_is_no_timeout(tmp_path: Path) -> None:
    """Starts have their own, longer limit (harness.START_TIMEOUT): a target whose start takes
    longer than the step timeout conforms; its steps are still held to the step timeout."""
    assert SlowStart.START_SECONDS > STEP_LIMIT
    result = run_conformance("raft", SlowStart(), examples=2, out_dir=tmp_path, step_timeout=STEP_LIMIT,
                             liveness=False)
    assert result.verdict == "conforms", result.finding and result.finding.line()


def test_unknown_leader_only_input_says_how_to_decline_it(tmp_path: Path) -> None:
    """RAFT-DRIVE-LEADER-ONLY is drawn for every raft target: one written without FetchSnapshot
    and DescribeQuorum errors on the first, and the error says how to declare the category
    unsupported; declared, the run never sends one."""
    result = run_conformance("raft", NoLeaderOnlyTarget(), examples=2, out_dir=tmp_path / "a")
    assert result.verdict == "error" and result.finding is not None, result.verdict
    assert "unknown input type" in result.finding.detail
    assert "declares unsupported = {'leader_only'}" in result.finding.detail, result.finding.detail
    declared = run_conformance("raft", NoLeaderOnlyDeclared(), examples=2, out_dir=tmp_path / "b")
    assert declared.verdict == "conforms", declared.finding and declared.finding.line()


STEP_LIMIT = 0.3  # seconds; the faulty targets' slow step takes OVERRUN (1 s)


@pytest.mark.parametrize("target", [AlarmSwallowedOnce, HangsOnce])
def test_a_step_over_the_limit_in_a_random_run_is_a_named_timeout(target: type, tmp_path: Path) -> None:
    """A step that overruns the per-step limit once, in a Hypothesis run, ends the run with a
    timeout naming the step, its input and the limit: never Hypothesis's flakiness error, even
    when the target swallows the alarm and answers (wrongly) late, as a Kafka client does when
    the alarm lands in a callback the JVM made (kafka:4.2.2 voters under a starved CPU ended
    ``error: FlakyStrategyDefinition``)."""
    result = run_conformance("raft", target(), out_dir=tmp_path, step_timeout=STEP_LIMIT, cover="random",
                             examples=20, liveness=False)
    assert result.verdict == "error" and result.finding is not None, result.finding
    assert result.finding.field == "timeout", result.finding.line()
    assert f"the target hung (no answer within {STEP_LIMIT:g}s)" in result.finding.detail
    assert result.finding.step == len(result.steps) >= 1
    last = result.steps[-1]
    assert f"on {last.input['type']}:" in result.finding.detail  # the input it hung on
    assert last.target_outputs is None  # the late answer is not taken
    meta, _ = read_counterexample(Path(result.counterexample or ""))
    assert meta["verdict"] == "error" and meta["divergence"]["field"] == "timeout"


def test_a_hang_while_shrinking_keeps_the_divergence(tmp_path: Path) -> None:
    """A step that hangs while Hypothesis shrinks a divergence it reproduced stops the
    shrinking, not the verdict: the divergence stands, and the hang is named with it. (Before,
    Hypothesis saw the replay stop where the run it replays went on, and ended the run with
    FlakyStrategyDefinition in the hang's place: a starved kafka:4.2.2 voters run did.)"""
    target = DivergesThenHangs()
    result = run_conformance("raft", target, out_dir=tmp_path, step_timeout=STEP_LIMIT, cover="random",
                             examples=20, liveness=False, minimal=False)
    assert target.first_wrong is not None and target.steps == target.first_wrong + SLOW_STEP  # it hung, last
    assert result.verdict == "diverges" and result.finding is not None, result.finding
    assert result.finding.kind == "outputs" and "Halt" in result.finding.detail
    stopped = result.shrinking_stopped
    assert stopped is not None and stopped.field == "timeout" and f"within {STEP_LIMIT:g}s" in stopped.detail
    assert result.to_json()["shrinking_stopped"] == stopped.to_json()
    assert result.steps[-1].index == result.finding.step  # the diverging session is the one saved


def test_cli_names_the_timeout(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``kspec conform`` on a step over ``--timeout``: exit 2, one stderr line naming the
    step, the input and the limit, no traceback; the JSON says timeout."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", "raft", "--target", "python:conformance_faulty_targets:AlarmSwallowedOnce",
              "--timeout", str(STEP_LIMIT), "--cover", "random", "--examples", "20", "--no-liveness",
              "--out", str(tmp_path), "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert exit_info.value.code == 2 and doc["verdict"] == "error", (out, err)
    assert doc["divergence"]["field"] == "timeout" and doc["divergence"]["step"] >= 1
    assert doc["time_limit"]["reached"] is False
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"failed at step {doc['divergence']['step']}: node " in err and f"within {STEP_LIMIT:g}s" in err
