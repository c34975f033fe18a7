"""The adapter guide's from-scratch ``python:`` target (examples/python-mm2-target): it conforms,
declines and refuses the configurations it does not implement, and its naive twin is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.machines.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-mm2-target"


def test_the_example_target_conforms_and_its_naive_twin_is_caught(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    good = run_conformance("mm2", resolve_target("python:mm2_target:PolicyTarget", "mm2"), examples=24,
                           out_dir=tmp_path)
    assert good.verdict == "conforms", good.finding and good.finding.line()
    doc = good.to_json()
    # identity: declined by supports(); default under the 3.x rule: refused at start.
    assert doc["configurations"]["unsupported"] == 2 and doc["configurations"]["refused"] == 2
    assert all("3.x is not implemented" in r["reason"] for r in doc["configurations"]["refusals"])
    naive = run_conformance("mm2", resolve_target("python:mm2_target:NaivePolicyTarget", "mm2"), out_dir=tmp_path)
    assert naive.verdict == "diverges" and naive.finding is not None
    assert naive.finding.field == "observation.result"
