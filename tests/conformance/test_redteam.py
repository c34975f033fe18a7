"""The red-team bugs kspec catches stay caught (bench/redteam/: buggy ``python:`` targets written
from the user-facing material only, bench/redteam_power.py for the power over seeds): a few per
protocol at the default budget, seed 0, each loaded as a user would load it (``python:`` with
``bench/`` on the import path)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets.registry import resolve_target

BENCH = Path(__file__).resolve().parents[2] / "bench"

# (protocol, bug) pairs, cheap ones (found within a few runs at seed 0).
CAUGHT = [
    ("mm2", "regex-separator"),
    ("mm2", "empty-source-is-local"),
    ("mm2", "identity-source-unset-reads-name"),  # the client's policy, no source.cluster.alias
    ("streams", "first-source-count"),  # a store over two topics of different sizes
    ("streams", "one-partition-unrouted"),  # a topic with one partition
    ("raft", "equal-epoch-vote-resets"),  # an equal epoch taken for a new one
    ("voters", "add-voter-lag-by-one"),  # a catch-up check off by one
    ("share", "load-keeps-update-count"),  # fail-over: Load onto the old counts
]


@pytest.fixture(scope="module", autouse=True)
def _bench_on_path() -> Iterator[None]:
    sys.path.insert(0, str(BENCH))
    yield
    sys.path.remove(str(BENCH))


@pytest.mark.parametrize(("protocol", "bug"), CAUGHT, ids=[f"{p}:{b}" for p, b in CAUGHT])
def test_red_team_bug_is_caught(protocol: str, bug: str) -> None:
    module = importlib.import_module(f"redteam.{protocol}")
    target = resolve_target(f"python:redteam.{protocol}:{module.TARGETS[bug]}", protocol)
    # Caught is all this asserts: detection ends the search before Hypothesis's shrinking and the
    # minimiser start, so neither is run (test_minimise.py and the lockstep catalogue test cover them).
    r = run_conformance(protocol, target, seed_value=0, out_dir=None, shrink=False, minimal=False)
    assert r.verdict == "diverges", (bug, r.verdict, r.finding)
