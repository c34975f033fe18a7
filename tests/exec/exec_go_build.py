"""Building the Go example targets for the exec tests (``go build``, no network)."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GO_SHARE = REPO / "examples" / "go-share-target"


@functools.cache
def build_go_share_target() -> Path:
    """Build examples/go-share-target once per test process; the binary's path.

    Fails the test (never skips) when ``go`` is missing or the build fails.
    """
    go = shutil.which("go")
    if go is None:
        pytest.fail("the Go toolchain is needed to build examples/go-share-target: `go` is not on PATH")
    out = Path(tempfile.mkdtemp(prefix="kspec-go-share-")) / "share-target"
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOTOOLCHAIN": "local", "GOPROXY": "off"}
    proc = subprocess.run([go, "build", "-o", str(out), "."], cwd=GO_SHARE, env=env, capture_output=True,
                          text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"go build of {GO_SHARE} failed (exit {proc.returncode}): {proc.stderr.strip()}")
    return out
