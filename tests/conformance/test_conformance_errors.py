"""A target that raises, hangs, answers malformed output or cannot start gives verdict error
with the step and the reason, never hangs the run, and keeps the partial counterexample."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from conformance_faulty_targets import (
    HangingTarget,
    MalformedTarget,
    NoLeaderOnlyDeclared,
    NoLeaderOnlyTarget,
    RaisingTarget,
    StartFails,
)

from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers.runner import run_conformance


@pytest.mark.parametrize(("target", "field", "reason"), [
    (RaisingTarget, "target", "RuntimeError: boom in the target"),
    (HangingTarget, "timeout", "hung"),
    (MalformedTarget, "malformed", "expected an object with a 'type'"),
])
def test_target_failure_is_an_error_with_partial_counterexample(target: type, field: str, reason: str,
                                                                  tmp_path: Path) -> None:
    started = time.monotonic()
    result = run_conformance("raft", target(), out_dir=tmp_path, step_timeout=0.5)
    assert time.monotonic() - started < 60  # one timeout, no shrinking of a hanging target
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
