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


def apply_action(session: Any, text: str) -> None:
    """Apply the enabled model action whose description starts with ``text``."""
    driver = session.driver
    for _category, action in driver.candidates(session.state):
        if driver.describe(action).startswith(text):
            after = driver.resolve(session.state, action)
            if after is not None:
                session._step(action, after)
                return
    names = sorted({driver.describe(a) for _, a in driver.candidates(session.state)})
    raise AssertionError(f"no enabled action {text!r}; enabled: {names}")


def run_script(driver: Any, target: Any, script: list[str]) -> tuple[Any, dict[str, Any] | None]:
    """Drive ``target`` in lockstep with ``driver`` through the actions ``script`` names (see
    :func:`apply_action`); the closed session (its ``steps``) and the divergence or failure, if any."""
    from kspec.conformance.harness import Divergence, Lockstep, TargetFailure

    session = Lockstep(driver, target)
    finding = None
    try:
        for text in script:
            apply_action(session, text)
    except (Divergence, TargetFailure) as err:
        finding = err.finding.to_json()
    finally:
        session.close()
    return session, finding
