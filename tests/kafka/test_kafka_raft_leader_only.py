"""RAFT-RULE-FETCH-SNAPSHOT-SHAPE on Kafka itself: the stored counterexample
``kafka_4.3_fetch_snapshot_no_topic.itf.json`` (``kspec conform raft --target kafka:4.3.1
--seed 0``: a lone voter, leader after a reboot, gets a FetchSnapshot with no topic) replays
to the same divergence on 4.3.1, whose ``handleFetchSnapshotRequest`` throws
IndexOutOfBoundsException out of ``poll`` (the catalogued ``raft-fetch-snapshot-shape-unchecked``,
named in the report), and conforms on 4.4.0, which answers INVALID_REQUEST (apache/kafka#23185).
One JVM per release, in a child ``kspec replay``."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

TRACE = Path(__file__).resolve().parents[1] / "raft" / "testdata" / "kafka_4.3_fetch_snapshot_no_topic.itf.json"
# kafka:4.3.1 seed 0 --accept raft-fetch-snapshot-shape-unchecked, run 104 (before the adapter
# flushed at a Halt): an observer that had just appended gets the FetchSnapshot with no topic
# and stops; the variant predicts the Halt with its log kept (D-FLUSH).
OBSERVER = TRACE.with_name("kafka_4.3_fetch_snapshot_observer_halt.itf.json")


def replay(version: str, trace: Path = TRACE) -> dict[str, Any]:
    done = subprocess.run(["kspec", "replay", str(trace), "--target", f"kafka:{version}", "--json"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.stdout.strip(), done.stderr[-800:]
    doc: dict[str, Any] = json.loads(done.stdout)
    return doc


def test_trace_ends_with_a_fetch_snapshot_without_topics() -> None:
    doc = json.loads(TRACE.read_text())
    last = doc["states"][-1]
    assert last["input"]["type"] == "FetchSnapshotRequest" and last["input"]["topics"] == []
    assert [o["type"] for o in last["target_outputs"]] == ["Halt"]


@pytest.mark.parametrize("version", ["4.3.1", "4.4.0"])
def test_the_and_check_throws_where_it_ships(version: str) -> None:
    got = replay(version)
    if version == "4.4.0":
        assert got["verdict"] == "conforms", got
        return
    assert got["verdict"] == "diverges", got
    assert "IndexOutOfBoundsException" in json.dumps(got["divergence"]), got["divergence"]


def test_a_halted_observer_keeps_what_it_appended_under_the_accepted_variant() -> None:
    doc = json.loads(OBSERVER.read_text())
    assert doc["#meta"]["config"]["model_variant"] == "kafka-fetch-snapshot-shape-unchecked"
    got = replay("4.3.1", OBSERVER)
    assert got["verdict"] == "conforms", got
