"""Every KRaft release line the raft target drives (``raft_releases.LINES``): the lines added in
session 6 start and step once on Kafka's own classes, and the version table answers in one line.

- 3.3-3.6 (``RaftConfig``, ``initialize()``; 3.3-3.4 without KIP-903's ``ReplicaState`` and
  ``ElectionState.leaderIdOrSentinel``): a replica's election timeout makes it a candidate that
  writes its vote and asks the other voters; a leader that a majority never fetched from stays
  leader at ``CheckQuorumTimeout`` (no check-quorum before 3.7: the catalogued deviation
  ``raft-leader-never-resigns``, KAFKA-15489), which the model's rule set says it must not.
- 4.2.2: Maven serves no test jar, so the test doubles are compiled from 4.2.1's test sources
  (``test_doubles``); a replica's election timeout makes it prospective (KIP-996).

Each version runs in a child process (one JVM per process): this file run as a script
(``python test_kafka_raft_releases.py VERSION``) prints one JSON document. Conformance runs at
the default budget are bench work (``bench/kafka_matrix.py raft``), not tests.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from kafka_child import child_report

from kspec.conformance.adapters.base import TargetError

HERE = Path(__file__).resolve()
NEW_LINES = ["3.3.2", "3.4.1", "3.5.2", "3.6.2", "4.2.2", "4.4.0"]


def child(version: str) -> dict[str, Any]:
    from kspec.conformance.targets.kafka import artifacts
    from kspec.conformance.targets.kafka.raft import ARTIFACTS, KafkaRaftTarget

    target = KafkaRaftTarget(version)
    out: dict[str, Any] = {"model_config": target.model_config,
                           "jars": [p.name for p in artifacts.cached(version, ARTIFACTS) or []]}
    node = target.start(1, {"voters": [1, 2, 3]})
    first = node.step({"type": "ElectionTimeout"})
    out["election"] = {"outputs": first.outputs, "observation": first.observation}
    if not version.startswith("4."):
        node.step({"type": "VoteResponse", "src": 2, "dst": 1, "epoch": 1, "granted": True, "leader": None,
                   "pre_vote": False, "error": "NONE"})
        out["leader"] = node.observation()
        out["check_quorum"] = node.step({"type": "CheckQuorumTimeout"}).observation
    node.close()
    return out


@pytest.mark.parametrize("version", NEW_LINES)
def test_new_release_line_starts_and_steps(version: str) -> None:
    report = child_report(HERE, version, "raft")
    election = report["election"]
    if version.startswith("4."):
        # check_quorum_period: Kafka 3.7+ declares RAFT-RULE-CHECK-QUORUM-PERIOD (LeaderState's timer reset)
        assert report["model_config"] == {"pre_vote": True, "kip853": True, "listener": True,
                                          "check_quorum_period": True}
        assert "kspec-test-doubles.jar" in report["jars"], report["jars"]
        assert election["observation"]["role"] == "prospective", election
        assert election["observation"]["epoch"] == 0, election
        return
    # Every line is held to the listener; 3.3-3.5 by their own listener API, whose handleCommit
    # carries data records only ("data": ListenerRules.data_only; spec/raft.md RAFT-OBS-LISTENER)
    listener = True if version >= "3.6" else "data"
    assert report["model_config"] == {"pre_vote": False, "kip853": False, "listener": listener}
    assert election["observation"]["role"] == "candidate" and election["observation"]["epoch"] == 1, election
    kinds = [o["type"] for o in election["outputs"]]
    assert kinds == ["PersistElection", "VoteRequest", "VoteRequest"], kinds
    assert {o["dst"] for o in election["outputs"][1:]} == {2, 3}
    assert report["leader"]["role"] == "leader", report["leader"]
    # RAFT-RULE-CHECK-QUORUM says resign; 3.3-3.6 have no check-quorum timer (KAFKA-15489)
    assert report["check_quorum"]["role"] == "leader", report["check_quorum"]


@pytest.mark.parametrize("version", ["2.8.0", "3.2.3", "4.5.0", "9.9.9", "banana", "3.x"])
def test_unknown_release_is_one_line_naming_the_lines(version: str) -> None:
    from kspec.conformance.targets.kafka.raft import check_supported

    with pytest.raises(TargetError) as err:
        check_supported(version)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"kafka:{version}: ")
    assert "3.3-4.4" in text and "4.4.0" in text, text


def test_every_line_has_one_row() -> None:
    from kspec.conformance.targets.kafka.raft import check_supported
    from kspec.conformance.targets.kafka.raft_releases import LINES

    assert [r.line for r in LINES] == sorted({r.line for r in LINES})
    for row in LINES:
        assert check_supported(row.last_patch) == row.line
        assert row.check_quorum == (row.line >= (3, 7)), row


if __name__ == "__main__":
    print(json.dumps(child(sys.argv[1])))
