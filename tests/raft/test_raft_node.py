"""Datadriven scenario tests of the KRaft replica's step function."""

from __future__ import annotations

from pathlib import Path

import pytest
from datadriven import run_file
from raft_fixture import Cluster

FIXTURES = sorted((Path(__file__).parent / "testdata").glob("*.txt"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_node_scenarios(path: Path, rewrite: bool) -> None:
    cluster = Cluster()
    run_file(path, cluster.run, rewrite)


def test_fixtures_exist() -> None:
    names = {p.stem for p in FIXTURES}
    assert {"election", "truncation", "check_quorum", "stale_epoch", "restart"} <= names
