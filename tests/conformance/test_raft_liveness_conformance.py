"""Bounded liveness of raft targets (issue #20, spec/raft.md §Liveness RAFT-LIVE-TIMED): the
timed fault-free suffixes hold the reference (every property, witnessed non-vacuously) and
catch each liveness mutant with exactly the properties it breaks; the counterexample shows the
repeating cycle. Seed 0, the check alone (seconds), not the safety runs before it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kspec.conformance.adapters.base import JSON, StepResult, Target
from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.drivers.raft_liveness import NAMES, check_liveness
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.mutants_liveness import BREAKS
from kspec.conformance.targets.reference.raft import RaftReplica, RaftTarget
from kspec.model.raft.liveness import RAFT_LIVENESS


@pytest.fixture(scope="module")
def spec() -> Any:
    return PROTOCOLS["raft"]()


def test_reference_holds_every_property_non_vacuously(spec: Any) -> None:
    report = check_liveness(spec, RaftTarget(), spec.configs, seed=0)
    assert report.verdicts == dict.fromkeys(NAMES, "holds"), report.violation
    # witnesses: elections happen after the last fault, candidates and prospectives are seen,
    # and symmetric splits (the start a jitter-free target never leaves) are resolved
    assert all(v > 0 for v in report.witnesses.values()), report.witnesses


def test_names_are_the_models() -> None:
    assert tuple(p.name for p in RAFT_LIVENESS) == NAMES


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_liveness_mutant_caught(spec: Any, name: str) -> None:
    report = check_liveness(spec, CATALOGUE[name].target(), spec.configs, seed=0)
    assert set(BREAKS[name]) <= {n for n, v in report.verdicts.items() if v == "violated"}, report.verdicts
    assert report.violation is not None and report.steps


def test_every_property_has_mutants() -> None:
    for prop in NAMES:
        assert sum(prop in b for b in BREAKS.values()) >= 3, prop


class _Untimed(Target):
    """The reference behind instances that report no timers."""

    protocol = "raft"
    name = "untimed"

    def start(self, node: Any, config: dict[str, JSON]) -> Any:
        inner = RaftTarget().start(node, config)

        class Plain:
            def step(self, inp: JSON) -> StepResult:
                return inner.step(inp)

            def close(self) -> None:
                inner.close()

        return Plain()


def test_untimed_target_is_not_checked(spec: Any) -> None:
    report = check_liveness(spec, _Untimed(), spec.configs, seed=0)
    assert report.verdicts == dict.fromkeys(NAMES, "not-checked") and "TimedInstance" in report.reason


def test_conform_reports_the_cycle(tmp_path: Path) -> None:
    result = run_conformance("raft", CATALOGUE["raft-no-jitter"].target(), examples=4, seed_value=0,
                             out_dir=tmp_path, minimal=False)
    assert result.verdict == "diverges" and result.finding is not None
    assert result.finding.kind == "liveness" and result.finding.field == "EventuallyStableLeader"
    assert "RAFT-LIVE-STABLE-LEADER" in result.finding.detail and "repeat" in result.finding.detail
    doc = result.to_json()
    assert doc["liveness"]["NoElectionLivelock"] == "violated"
    meta, steps = read_counterexample(Path(str(result.counterexample)))
    assert isinstance(meta["loop_back"], int) and meta["faults_stop"] <= meta["loop_back"] < len(steps)


def test_conform_json_reports_liveness_holds(tmp_path: Path) -> None:
    result = run_conformance("raft", RaftTarget(), examples=4, seed_value=0, out_dir=tmp_path)
    assert result.verdict == "conforms"
    assert result.to_json()["liveness"] == dict.fromkeys(NAMES, "holds")
    off = run_conformance("raft", RaftTarget(), examples=4, seed_value=0, out_dir=tmp_path, liveness=False)
    assert "liveness" not in off.to_json()


class _NoCheckQuorumTimer(RaftReplica):
    """Kafka 3.3-3.6 (the catalogued raft-leader-never-resigns): a leader runs no check-quorum
    timer at all, so its instance reports none."""

    def timer_kind(self) -> str | None:
        return None if self.role == "leader" else super().timer_kind()

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        pass


def test_accepted_deviation_is_no_liveness_failure(spec: Any) -> None:
    """RAFT-LIVE-TIMED-IDLE: with raft-leader-never-resigns accepted, the suffixes run its model
    variant, whose leader has no check-quorum timer to wait for: a target without one is not
    "waiting forever" (the false alarm kafka:3.6.2 gave), and every property holds."""
    configs = [{**c, "model_variant": "kafka-no-check-quorum"} for c in spec.configs]
    report = check_liveness(spec, RaftTarget("no-check-quorum", _NoCheckQuorumTimer), configs, seed=0)
    assert report.error is None and report.violation is None, (report.error, report.violation)
    assert report.verdicts == dict.fromkeys(NAMES, "holds")
    assert report.idle == {"CheckQuorumTimeout"} and report.variant == "kafka-no-check-quorum"
    assert "judged against the model variant kafka-no-check-quorum (CheckQuorumTimeout idle there)" in report.line()
    # the same target's missing timer still matters where the model's timer would act: a
    # candidate mutant that drops its backoff timer is caught under the same variant
    caught = check_liveness(spec, CATALOGUE["raft-candidate-never-retries"].target(), configs, seed=0)
    assert "violated" in caught.verdicts.values(), caught.verdicts
