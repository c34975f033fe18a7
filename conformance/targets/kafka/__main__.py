"""``python -m kspec.conformance.targets.kafka VERSION [--steps N]``: resolve, start and time a
``kafka:VERSION`` target (the figures of docs/kafka-matrix.md), one JSON document on stdout.

Measures: jar resolution (0 when cached), JVM start, ReplicationPolicy calls per second, and
share coordinator steps per second (request, records replayed, observation) for 4.0 and later.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.targets.kafka import artifacts, jvm


def measure(version: str, steps: int) -> dict[str, Any]:
    """The figures of one version (see the module docstring)."""
    from kspec.conformance.targets.kafka.mm2 import ARTIFACTS as MM2_ARTIFACTS
    from kspec.conformance.targets.kafka.mm2 import KafkaMm2Target

    out: dict[str, Any] = {"version": version}
    started = time.monotonic()
    jars = artifacts.resolve(version, MM2_ARTIFACTS)
    out["mm2_resolve_seconds"] = round(artifacts.last_resolve_seconds, 2)
    mm2 = KafkaMm2Target(version, jars)
    out["jvm_start_seconds"] = round(jvm.start_seconds, 2)
    policy = mm2.policy("default")
    t0 = time.monotonic()
    for i in range(steps):
        policy.original_topic(policy.format_remote_topic("A", f"t{i}"))
    out["mm2_calls_per_second"] = round(2 * steps / (time.monotonic() - t0))
    if int(version.split(".")[0]) >= 4:
        from kspec.conformance.targets.kafka.share import ARTIFACTS as SHARE_ARTIFACTS
        from kspec.conformance.targets.kafka.share import KafkaShareTarget

        share_jars = artifacts.resolve(version, SHARE_ARTIFACTS)
        out["share_resolve_seconds"] = round(artifacts.last_resolve_seconds, 2)
        node = KafkaShareTarget(version, share_jars).start(0, {"snapshot_limit": 2, "image": [["T", 0]]})
        batch = {"type": "StateBatch", "first_offset": 0, "last_offset": 3, "delivery_state": 0, "delivery_count": 1}
        init = {"type": "InitializeRequest", "group_id": "g", "topic_id": "T", "partition": 0, "state_epoch": 0,
                "start_offset": 0}
        if node.shard.java.has_initialize:
            node.step(init)  # 4.1+: reads and writes need an initialized share-partition
        t0 = time.monotonic()
        for i in range(steps):
            node.step({"type": "WriteRequest", "group_id": "g", "topic_id": "T", "partition": 0,
                       "leader_epoch": 1, "state_epoch": 0, "start_offset": -1,
                       "state_batches": [{**batch, "delivery_count": 1 + i % 3}]})
        out["share_steps_per_second"] = round(steps / (time.monotonic() - t0))
    out["total_seconds"] = round(time.monotonic() - started, 2)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kspec.conformance.targets.kafka")
    parser.add_argument("version")
    parser.add_argument("--steps", type=int, default=2000)
    args = parser.parse_args(argv)
    try:
        print(json.dumps(measure(args.version, args.steps)))
    except TargetError as err:
        print(f"kspec: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
