"""The Kafka tests that need a JVM of their own run their JVM work in a child process (one JVM
per process, and other kafka tests start another version): the test file run as a script prints
one JSON document, read here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any


def child_report(script: Path, version: str, protocol: str) -> dict[str, Any]:
    """Run ``script VERSION`` and return the last JSON line it prints; an AssertionError with the
    child's last lines when it fails."""
    done = subprocess.run([sys.executable, str(script), version], capture_output=True, text=True, timeout=600,
                          check=False)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    assert done.returncode == 0 and lines, (f"kafka:{version} {protocol} child failed (exit {done.returncode}): "
                                           f"{(done.stderr or done.stdout).strip().splitlines()[-3:]}")
    return dict(json.loads(lines[-1]))
