"""bench/explore_bench.py --versus-tlc as typed: bounds TLC's spec does not model are refused
in one line before any exploration (exit 2), and with no bounds it compares the state space
TLC can check (symmetry off) instead of failing after the explorers ran."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bench" / "explore_bench.py"), *args],
                          capture_output=True, text=True, timeout=300, check=False)


def test_versus_tlc_refuses_symmetry_in_one_line() -> None:
    proc = _bench("--versus-tlc", "--bounds", "symmetry=true", "max_epoch=1")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "explore_bench: --bounds symmetry=true max_epoch=1: KRaft.tla models symmetry=false only (got True)"]
    assert "Traceback" not in proc.stderr and "kspec explore" not in proc.stdout


def test_versus_tlc_without_symmetry_bound_compares_tlc_state_space() -> None:
    # small bounds: the explorers and TLC must find the same distinct states (the bench asserts it)
    proc = _bench("--versus-tlc", "--bounds", "max_epoch=1", "max_crashes=0", "max_appends=0")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.startswith("raft symmetry=false max_epoch=1 max_crashes=0 max_appends=0:"), proc.stdout[:300]
    assert "parallel over TLC (wall)" in proc.stdout
