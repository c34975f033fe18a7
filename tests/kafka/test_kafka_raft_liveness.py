"""Bounded liveness on Kafka's own KafkaRaftClient (issue #20, RAFT-LIVE-TIMED): kafka:3.9.1
with Kafka's random election timeouts and backoffs elects a stable leader after every timed
suffix of one cluster shape; the same release with its draws pinned (a release without
jitter) livelocks after a symmetric split, and the check says so with the repeating cycle.
The JVM work runs in a child process (this file as a script), as in test_kafka_raft.py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve()
VERSION = "3.9.1"


def _child(pinned: bool) -> dict[str, object]:
    from kspec.conformance.adapters.base import Target
    from kspec.conformance.commands.conform import target_for
    from kspec.conformance.drivers import PROTOCOLS
    from kspec.conformance.drivers.raft_liveness import check_liveness
    from kspec.conformance.targets.kafka.raft import KafkaRaftNode

    class Pinned(Target):
        protocol = "raft"

        def __init__(self, inner: Target) -> None:
            self.inner = inner

        def start(self, node: object, config: dict[str, object]) -> KafkaRaftNode:
            inst = self.inner.start(node, config)
            assert isinstance(inst, KafkaRaftNode)
            inst.pinned_draws = pinned
            return inst

    spec = PROTOCOLS["raft"]()
    target = Pinned(target_for(f"kafka:{VERSION}", "raft", 30.0))
    config = {"voters": 3, "observers": 0, "pre_vote": False, "kip853": False, "faults": True}
    try:
        # No random fault phase: the split starts from replicas alike (a fault phase can leave
        # one at a higher epoch, and then the split is not symmetric and resolves by itself).
        report = check_liveness(spec, target, [config], seed=0, prefix=0)
    finally:
        target.inner.close()
    out = report.violation
    return {"verdicts": report.verdicts, "suffixes": report.suffixes, "witnesses": report.witnesses,
            "error": report.error.finding.line() if report.error else None,
            "loop_back": out.loop_back if out else None, "detail": out.detail if out else {}}


def _run(pinned: bool) -> dict[str, object]:
    done = subprocess.run([sys.executable, str(HERE), "pinned" if pinned else "random"], capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    doc: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return doc


def test_kafka_random_draws_elect() -> None:
    doc = _run(pinned=False)
    assert doc["error"] is None
    assert doc["verdicts"] == {"EventuallyStableLeader": "holds", "NoElectionLivelock": "holds",
                               "NotStuckCandidate": "holds", "NotStuckProspective": "not-checked"}
    witnesses = doc["witnesses"]
    assert isinstance(witnesses, dict) and witnesses["split_resolved"] >= 1 and witnesses["elections_after_faults"]


def test_kafka_pinned_draws_livelock() -> None:
    doc = _run(pinned=True)
    assert doc["error"] is None
    verdicts = doc["verdicts"]
    assert isinstance(verdicts, dict) and verdicts["EventuallyStableLeader"] == "violated"
    assert verdicts["NoElectionLivelock"] == "violated" and isinstance(doc["loop_back"], int)


if __name__ == "__main__":
    print(json.dumps(_child(sys.argv[1] == "pinned")))
