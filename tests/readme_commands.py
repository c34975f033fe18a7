"""The commands README.md shows under "Every command with its defaults", read from the README
itself (between the readme-commands markers), and the small stand-ins the default test run uses
for the long ones (tests/test_readme_commands.py; bench/readme_commands.py runs them as written)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

# Bounds that keep a stand-in to seconds; nothing here names a bound with one value only in TLA+
# (symmetry), so the stand-ins check that the defaults for it work.
SMALL = {
    ("tla", "check", "raft"): ["voters=1", "max_epoch=1", "max_appends=0", "max_crashes=0", "max_fetches=1",
                               "max_elections=1"],
    ("tla", "check", "voters"): ["hosts=2", "voters=1", "max_adds=0", "max_removes=0", "max_snapshots=0",
                                 "max_fetches=1", "max_elections=1"],
    ("tla", "check", "share"): ["offsets=1", "max_records=2", "max_state_epoch=1", "max_failovers=0"],
    ("explore", "raft"): ["max_elections=1"],
    ("conform", "raft"): ["--examples", "5", "--steps", "10"],
}


def readme_commands() -> list[list[str]]:
    """The README's commands, each as an argument list without the leading ``kspec``."""
    text = README.read_text(encoding="utf-8")
    m = re.search(r"<!-- readme-commands -->\s*```sh\n(.*?)```\s*<!-- /readme-commands -->", text, re.S)
    if m is None:
        raise AssertionError("README.md has no readme-commands block")
    commands = [shlex.split(line) for line in m.group(1).splitlines() if line.strip()]
    assert all(c[0] == "kspec" for c in commands), commands
    return [c[1:] for c in commands]


def small(argv: list[str]) -> list[str]:
    """The stand-in for a README command: the same command with small bounds or budgets added."""
    for prefix, extra in SMALL.items():
        if tuple(argv[:len(prefix)]) == prefix:
            return [*argv, *extra]
    return list(argv)
