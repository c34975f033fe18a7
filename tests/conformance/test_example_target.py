"""The adapter guide's from-scratch ``python:`` target (examples/python-mm2-target): it conforms,
declines and refuses the configurations it does not implement, and its naive twin is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "python-mm2-target"


def test_the_example_target_conforms_and_its_naive_twin_is_caught(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE))
    good = run_conformance("mm2", resolve_target("python:mm2_target:PolicyTarget", "mm2"), examples=24,
                           out_dir=tmp_path)
    assert good.verdict == "conforms", good.finding and good.finding.line()
    doc = good.to_json()
    # identity: declined by supports(); default under the 3.x rule: refused at start, once per
    # separator (".", "_", "-.").
    assert doc["configurations"]["unsupported"] == 2 and doc["configurations"]["refused"] == 3
    assert all("3.x is not implemented" in r["reason"] for r in doc["configurations"]["refusals"])
    naive = run_conformance("mm2", resolve_target("python:mm2_target:NaivePolicyTarget", "mm2"), out_dir=tmp_path)
    assert naive.verdict == "diverges" and naive.finding is not None
    assert naive.finding.field == "observation.result"


GUIDE = Path(__file__).resolve().parents[2] / "docs" / "adapter-guide.md"


def guide_target_source() -> str:
    """The python block after ``<!-- guide-target: guide_target.py -->`` in the adapter guide."""
    text = GUIDE.read_text(encoding="utf-8")
    marker = "<!-- guide-target: guide_target.py -->\n```python\n"
    assert marker in text, "the adapter guide lost its complete target"
    body = text[text.index(marker) + len(marker):]
    return body[:body.index("```")]


def test_the_guide_s_complete_target_conforms_declines_and_refuses(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "guide_target.py").write_text(guide_target_source(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    result = run_conformance("mm2", resolve_target("python:guide_target:GuideTarget", "mm2"), examples=24,
                             out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    doc = result.to_json()
    assert doc["configurations"]["unsupported"] == 2 and doc["configurations"]["refused"] == 3
    assert all("3.x is not implemented" in r["reason"] for r in doc["configurations"]["refusals"])
