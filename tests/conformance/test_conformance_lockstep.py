"""The reference targets conform; every catalogued mutant is caught at the default budget and
its counterexample replays to the same divergence (and the reference conforms on it)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from kspec.conformance.counterexample import read_counterexample
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.harness import replay_steps
from kspec.conformance.targets.mutants import CATALOGUE
from kspec.conformance.targets.registry import reference_protocols, reference_target

CAUGHT = [name for name, m in CATALOGUE.items() if m.default_budget]


@pytest.mark.parametrize("protocol", reference_protocols())  # every protocol conformance/protocols.py declares
def test_reference_conforms(protocol: str, tmp_path: Path) -> None:
    result = run_conformance(protocol, reference_target(protocol), examples=120, seed_value=7, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()
    assert result.counterexample is None and not list(tmp_path.iterdir())


def test_catalogue_spans_protocols() -> None:
    by_protocol = {p: [n for n, m in CATALOGUE.items() if m.protocol == p] for p in reference_protocols()}
    assert len(CATALOGUE) >= 12 and all(len(v) >= 5 for v in by_protocol.values())
    assert all(m.doc for m in CATALOGUE.values())


@pytest.mark.parametrize("name", CAUGHT)
def test_mutant_caught_and_replays(name: str, tmp_path: Path) -> None:
    mutant = CATALOGUE[name]
    result = run_conformance(mutant.protocol, mutant.target(), out_dir=tmp_path)  # the default budget
    assert result.verdict == "diverges", f"{name} not caught"
    assert result.finding is not None and result.counterexample is not None
    assert result.finding.step == len(result.steps)
    meta, steps = read_counterexample(Path(result.counterexample))
    assert meta["target"] == f"mutant:{name}" and meta["divergence"] == result.finding.to_json()
    assert [s.to_json() for s in steps] == [s.to_json() for s in result.steps]
    driver = PROTOCOLS[mutant.protocol]().driver(meta["config"])
    again = replay_steps(driver, mutant.target(), steps)
    assert again.finding is not None and again.finding.same_as(meta["divergence"]), again.finding
    assert [s.target_outputs for s in again.steps] == [s.target_outputs for s in steps]
    fixed = replay_steps(driver, reference_target(mutant.protocol), steps)
    assert fixed.finding is None, fixed.finding.line() if fixed.finding else ""


def test_same_seed_same_counterexample(tmp_path: Path) -> None:
    mutant = CATALOGUE["raft-hw-before-epoch-commit"]
    a = run_conformance("raft", mutant.target(), seed_value=3, out_dir=tmp_path / "a")
    b = run_conformance("raft", mutant.target(), seed_value=3, out_dir=tmp_path / "b")
    assert a.verdict == b.verdict == "diverges"
    assert [s.to_json() for s in a.steps] == [s.to_json() for s in b.steps]


def test_same_seed_same_run_whatever_is_imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Hypothesis mixes literals from every local module loaded so far into its draws; a run
    # must not depend on them (kspec conform and pytest load different modules).
    mutant = CATALOGUE["raft-hw-before-epoch-commit"]
    before = run_conformance("raft", mutant.target(), seed_value=3, out_dir=None)
    module = "kspec_literals_probe"
    (tmp_path / f"{module}.py").write_text(f"LITERALS = {tuple(range(0, 256, 3))!r}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, module, raising=False)
    importlib.import_module(module)
    after = run_conformance("raft", mutant.target(), seed_value=3, out_dir=None)
    assert before.verdict == after.verdict == "diverges"
    assert before.examples == after.examples
    assert [s.to_json() for s in before.steps] == [s.to_json() for s in after.steps]
