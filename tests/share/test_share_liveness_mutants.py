"""SHARE-LIVE-WRITE-ANSWERS on targets: the three share liveness mutants (each mirrors a
liveness variant of model/share/liveness.py: a leader retries a write forever) answer
COORDINATOR_NOT_AVAILABLE where the model's answer is final, and the lockstep runs catch that
answer at seed 0 within a few runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.mutants_liveness import SHARE_LIVENESS_MUTANTS
from kspec.model.share.liveness import LIVENESS_VARIANTS


def test_one_mutant_per_liveness_variant() -> None:
    assert {name.removeprefix("share-") for name, _, _ in SHARE_LIVENESS_MUTANTS} == set(LIVENESS_VARIANTS)


@pytest.mark.parametrize("name", [name for name, _, _ in SHARE_LIVENESS_MUTANTS])
def test_share_liveness_mutant_caught(name: str, tmp_path: Path) -> None:
    result = run_conformance("share", CATALOGUE[name].target(), examples=20, seed_value=0, out_dir=tmp_path,
                             minimal=False)
    assert result.verdict == "diverges" and result.finding is not None, result.verdict
    assert "COORDINATOR_NOT_AVAILABLE" in result.finding.line() or result.finding.field == "observation.active", \
        result.finding.line()
