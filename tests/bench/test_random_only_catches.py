"""bench/random_only_catches.py reads a run's phase from ``kspec conform --json`` (or, from a
document without ``phase``, from the detection run against the guided runs) and lists as
random-only what some seed caught only in a random run, or not at all."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture()
def bench(monkeypatch: pytest.MonkeyPatch) -> Any:
    spec = importlib.util.spec_from_file_location("random_only_catches", ROOT / "bench" / "random_only_catches.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "random_only_catches", module)  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


def doc(verdict: str, run: int | None, guided: int, **more: Any) -> dict[str, Any]:
    return {"verdict": verdict, "runs_to_detection": run, "coverage": {"guided_runs": guided}, **more}


def test_phase_from_the_key_or_from_the_runs(bench: Any) -> None:
    assert bench.phase_of(doc("diverges", 300, 150, phase="random")) == "random"
    assert bench.phase_of(doc("diverges", 36, 150)) == "guided"
    assert bench.phase_of(doc("diverges", 150, 150)) == "guided"  # the last guided run
    assert bench.phase_of(doc("diverges", 151, 150)) == "random"
    assert bench.phase_of(doc("diverges", None, 150)) == "liveness"
    assert bench.phase_of(doc("conforms", None, 150)) is None
    assert bench.phase_of(doc("error", 3, 150)) is None


def test_random_only_lists_a_name_any_seed_left_to_chance(bench: Any) -> None:
    c = bench.catch_of
    catches = [c("a", "raft", 0, doc("diverges", 4, 100)), c("a", "raft", 1, doc("diverges", 4, 100)),
               c("b", "raft", 0, doc("diverges", 4, 100)), c("b", "raft", 1, doc("diverges", 250, 100)),
               c("c", "raft", 0, doc("conforms", None, 150)),
               c("d", "raft", 0, doc("diverges", None, 150))]
    assert bench.random_only(catches) == ["b", "c"]
    assert catches[3].line() == "| raft | b | 1 | diverges | 250 | random | 100 |"
    assert catches[4].line() == "| raft | c | 0 | conforms | - | escaped | 150 |"
