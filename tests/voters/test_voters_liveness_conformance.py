"""VOTERS-LIVE-SUFFIX-CONFORM: the fair fault-free suffixes of a voters conformance run drive
every accepted AddVoter/RemoveVoter to its end. The reference completes every change it is left
with (witnessed: suffixes start with a change pending); each voters liveness mutant (one per
liveness variant of model/voters/liveness.py) is caught on the way, in lockstep; a log-level
target is not checked. Seed 0, the check alone (seconds), not the safety runs before it."""

from __future__ import annotations

from typing import Any

import pytest

from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.drivers.voters_liveness import NAMES, check_liveness
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.mutants_liveness import VOTERS_LIVENESS_MUTANTS
from kspec.conformance.targets.reference.voters import VotersTarget
from kspec.model.voters.liveness import LIVENESS_VARIANTS, VOTERS_LIVENESS


@pytest.fixture(scope="module")
def spec() -> Any:
    return PROTOCOLS["voters"]()


def test_reference_completes_every_change_non_vacuously(spec: Any) -> None:
    report = check_liveness(spec, VotersTarget(), [dict(c) for c in spec.configs], seed=0, runs=2)
    assert report.error is None and report.violation is None, (report.error, report.violation)
    assert report.verdicts == dict.fromkeys(NAMES, "holds")
    assert report.witnesses["pending_at_start"] > 0
    assert report.witnesses["completed"] == report.witnesses["pending_at_start"]
    assert tuple(p.name for p in VOTERS_LIVENESS) == NAMES


def test_one_mutant_per_liveness_variant() -> None:
    assert {name.removeprefix("voters-") for name, _, _ in VOTERS_LIVENESS_MUTANTS} == set(LIVENESS_VARIANTS)


@pytest.mark.parametrize("name", [name for name, _, _ in VOTERS_LIVENESS_MUTANTS])
def test_voters_liveness_mutant_caught(spec: Any, name: str) -> None:
    report = check_liveness(spec, CATALOGUE[name].target(), [dict(c) for c in spec.configs], seed=0, runs=2)
    # the change never completes the model's way: the target diverges on the way (a lockstep
    # finding inside the suffix) or the change is left pending
    assert report.error is not None or report.verdicts["ReconfigurationCompletes"] == "violated", report.line()
    assert report.steps


def test_log_level_target_is_not_checked(spec: Any) -> None:
    configs = [{**c, "level": "log"} for c in spec.configs]
    report = check_liveness(spec, VotersTarget(), configs, seed=0)
    assert report.verdicts == dict.fromkeys(NAMES, "not-checked") and "replica-level" in report.reason
