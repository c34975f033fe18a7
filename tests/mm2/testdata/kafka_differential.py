"""One-off differential check of ``kspec.model.mm2`` and ``kspec.model.streams.murmur2`` against
Kafka's own classes through JPype. Not collected by pytest; the ``kafka:VERSION`` conformance
target will supersede it.

Fetch the jars first::

    mvn dependency:get -Dartifact=org.apache.kafka:kafka-clients:3.9.0 -Dtransitive=false
    mvn dependency:get -Dartifact=org.apache.kafka:connect-mirror-client:3.9.0 -Dtransitive=false
    mvn dependency:get -Dartifact=org.slf4j:slf4j-api:1.7.36 -Dtransitive=false

then run ``python tests/mm2/testdata/kafka_differential.py [VERSION]``. Result on 2026-11-23 with
3.9.0 and with 4.1.0: 120000 policy comparisons and 20000 murmur2 comparisons each, 0 differences.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import jpype
import jpype.imports

from kspec.model.mm2.policy import DefaultReplicationPolicy, IdentityReplicationPolicy
from kspec.model.streams.murmur2 import murmur2


def main(version: str = "3.9.0") -> int:
    m2 = Path.home() / ".m2" / "repository"
    jars = [m2 / f"org/apache/kafka/kafka-clients/{version}/kafka-clients-{version}.jar",
            m2 / f"org/apache/kafka/connect-mirror-client/{version}/connect-mirror-client-{version}.jar",
            m2 / "org/slf4j/slf4j-api/1.7.36/slf4j-api-1.7.36.jar"]
    missing = [str(j) for j in jars if not j.exists()]
    if missing:
        print(f"missing jars: {', '.join(missing)} (see the docstring)", file=sys.stderr)
        return 2
    jpype.startJVM(classpath=[str(j) for j in jars])
    from java.util import HashMap  # type: ignore[import-not-found]
    from org.apache.kafka.common.utils import Utils  # type: ignore[import-not-found]
    from org.apache.kafka.connect.mirror import (  # type: ignore[import-not-found]
        DefaultReplicationPolicy as JavaDefault,
    )
    from org.apache.kafka.connect.mirror import (
        IdentityReplicationPolicy as JavaIdentity,
    )

    rng = random.Random(1)

    def name() -> str:
        return "".join(rng.choice("ab.._-_x0") for _ in range(rng.randint(0, 9)))

    def text(x: Any) -> str | None:
        return None if x is None else str(x)

    compared = differences = 0
    for _ in range(3000):
        sep = rng.choice([".", "_", "-", "__", "..", "-."])
        alias, topic = name() or "a", name() or "t"
        enabled, identity = rng.choice([True, False]), rng.choice([True, False])
        source = rng.choice([None, alias])
        props = HashMap()
        props.put("replication.policy.separator", sep)
        props.put("replication.policy.internal.topic.separator.enabled", "true" if enabled else "false")
        if source is not None:
            props.put("source.cluster.alias", source)
        j = JavaIdentity() if identity else JavaDefault()
        j.configure(props)
        m = (IdentityReplicationPolicy(separator=sep, internal_topic_separator_enabled=enabled,
                                       source_cluster_alias=source) if identity
             else DefaultReplicationPolicy(separator=sep, internal_topic_separator_enabled=enabled))
        for t in (topic, alias + sep + topic, topic + "heartbeats", alias + sep + "heartbeats"):
            pairs = [
                (text(j.formatRemoteTopic(alias, t)), m.format_remote_topic(alias, t)),
                (text(j.topicSource(t)), m.topic_source(t)),
                (text(j.upstreamTopic(t)), m.upstream_topic(t)),
                (text(j.originalTopic(t)), m.original_topic(t)),
                (bool(j.isInternalTopic(t)), m.is_internal_topic(t)),
                (bool(j.isHeartbeatsTopic(t)), m.is_heartbeats_topic(t)),
                (bool(j.isCheckpointsTopic(t)), m.is_checkpoints_topic(t)),
                (bool(j.isMM2InternalTopic(t)), m.is_mm2_internal_topic(t)),
                (text(j.checkpointsTopic(alias)), m.checkpoints_topic(alias)),
                (text(j.offsetSyncsTopic(alias)), m.offset_syncs_topic(alias)),
            ]
            for kafka, model in pairs:
                compared += 1
                if kafka != model:
                    differences += 1
                    if differences <= 10:
                        print("DIFF", identity, repr(sep), repr(alias), repr(t), kafka, model)
    print("policy comparisons", compared, "differences", differences)

    hashed = hash_differences = 0
    for _ in range(20000):
        data = bytes(rng.randrange(256) for _ in range(rng.randint(0, 40)))
        hashed += 1
        if int(Utils.murmur2(data)) != murmur2(data):
            hash_differences += 1
    print("murmur2 comparisons", hashed, "differences", hash_differences)
    return 1 if differences or hash_differences else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
