"""``kafka:VERSION`` targets: Apache Kafka's own classes, jars resolved by Maven, run through JPype.

- mm2: ``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (connect-mirror-client);
- share: ``ShareCoordinatorShard`` (kafka-share-coordinator, Kafka 4.0 and later);
- raft: ``KafkaRaftClient`` per replica over Kafka's own raft test doubles (kafka-raft, 3.7-3.9).
- voters: ``KafkaRaftClient`` per replica with AddRaftVoter/RemoveRaftVoter (the replica level,
  ``kafka:VERSION``; kafka-raft 3.9 and later), or ``KRaftControlRecordStateMachine`` over
  ``VoterSetHistory`` and Kafka's ``MockLog`` (the log level, ``kafka:VERSION:log``; 3.8 and later).
- streams: ``StreamsMetadataState`` fed as ``StreamsPartitionAssignor.onAssignment`` feeds it
  (kafka-streams, 3.0 and later).

One Kafka version per process (JPype cannot restart a JVM); see ``jvm``. Jars are cached in
``$KSPEC_KAFKA_CACHE`` or ``~/.cache/kspec/kafka``; see ``artifacts``.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import TargetError

PROTOCOLS = ("mm2", "share", "raft", "voters", "streams")


def make_kafka_target(version: str, protocol: str) -> Any:
    """The ``kafka:VERSION`` target of ``protocol``; TargetError (one line) when it cannot run."""
    if protocol == "mm2":
        from kspec.conformance.targets.kafka.mm2 import KafkaMm2Target

        return KafkaMm2Target(version)
    if protocol == "share":
        from kspec.conformance.targets.kafka.share import KafkaShareTarget

        return KafkaShareTarget(version)
    if protocol == "raft":
        from kspec.conformance.targets.kafka.raft import KafkaRaftTarget

        return KafkaRaftTarget(version)
    if protocol == "voters":
        # kafka:VERSION is the replica level (KafkaRaftClient), kafka:VERSION:log the log level.
        release, _, level = version.partition(":")
        if level == "log":
            from kspec.conformance.targets.kafka.voters import KafkaVotersTarget

            return KafkaVotersTarget(release)
        if level in ("", "replica"):
            from kspec.conformance.targets.kafka.voters_replica import KafkaVotersReplicaTarget

            return KafkaVotersReplicaTarget(release)
        raise TargetError(f"kafka:{version}: no voters level {level!r} (kafka:VERSION is the replica level, "
                          "kafka:VERSION:log the log level)")
    if protocol == "streams":
        from kspec.conformance.targets.kafka.streams import KafkaStreamsTarget

        return KafkaStreamsTarget(version)
    raise TargetError(f"kafka:{version}: no Kafka target for protocol {protocol!r} "
                      f"(kafka targets cover: {', '.join(PROTOCOLS)})")
