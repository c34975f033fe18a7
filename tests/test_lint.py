"""ruff on the whole tree, plain mypy (strict, the whole package), and model/'s import discipline."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_mypy_strict_on_the_whole_package() -> None:
    # Plain `mypy` from the root, as pyproject.toml configures it: strict over kspec.model,
    # kspec.conformance and kspec.tla (.typecheck/kspec stands in for setup.py's mapping).
    # The incremental cache (.mypy_cache) keeps a repeated run to seconds.
    proc = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "Success" in proc.stdout, proc.stdout


def test_typecheck_layout_maps_every_root() -> None:
    # The symlinks mypy reads must point at the folders setup.py maps, or a folder goes unchecked.
    for name in ("model", "conformance", "tla"):
        link = ROOT / ".typecheck" / "kspec" / name
        assert link.is_symlink() and link.resolve() == (ROOT / name).resolve(), link


def test_model_never_imports_conformance_tla_or_hypothesis() -> None:
    bad = re.compile(r"^\s*(from|import)\s+(kspec\.conformance|kspec\.tla|hypothesis)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "model").rglob("*.py") if bad.search(p.read_text())]
    assert not offenders, offenders


def test_no_code_asks_for_a_protocol_by_name() -> None:
    # What differs between protocols is declared on their registry entry (conformance/protocols.py:
    # NodeEvents, conform_liveness, tla_liveness; the TLA+ mapping's fixed_bounds/shipped_config;
    # a driver's output_order), so that a new protocol never needs an `if protocol == "raft"` branch.
    bad = re.compile(r"\bprotocol\s*(==|!=)\s*[\"']|\bprotocol\s+(not\s+)?in\s+[(\[{][\"']")
    offenders = [f"{p.relative_to(ROOT)}:{n}" for root in ("model", "conformance", "tla")
                 for p in sorted((ROOT / root).rglob("*.py")) if p.name != "protocols.py"
                 for n, line in enumerate(p.read_text().splitlines(), 1) if bad.search(line)]
    assert not offenders, offenders
