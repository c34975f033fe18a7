"""ruff on the whole tree, mypy --strict on model/, and model/'s import discipline."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_mypy_strict_on_model(tmp_path: Path) -> None:
    # The folders are mapped into the kspec namespace by setup.py; mypy needs them as files,
    # so a symlink tree kspec/{model,conformance,tla} stands in for the installed layout.
    pkg = tmp_path / "kspec"
    pkg.mkdir()
    for name in ("model", "conformance", "tla"):
        (pkg / name).symlink_to(ROOT / name)
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--explicit-package-bases", "--no-incremental",
         "--follow-imports=silent", "-p", "kspec.model"],
        cwd=tmp_path, env={"MYPYPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]


def test_model_never_imports_conformance_tla_or_hypothesis() -> None:
    bad = re.compile(r"^\s*(from|import)\s+(kspec\.conformance|kspec\.tla|hypothesis)\b", re.M)
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "model").rglob("*.py") if bad.search(p.read_text())]
    assert not offenders, offenders
