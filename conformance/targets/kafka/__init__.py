"""``kafka:VERSION`` targets: Apache Kafka's own classes, jars resolved by Maven, run through JPype.

- mm2: ``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (connect-mirror-client);
- share: ``ShareCoordinatorShard`` (kafka-share-coordinator, Kafka 4.0 and later);
- raft: ``KafkaRaftClient`` per replica over Kafka's own raft test doubles (kafka-raft, the KRaft
  lines 3.3-4.4, one row each in ``raft_releases``).
- voters: ``KafkaRaftClient`` per replica with AddRaftVoter/RemoveRaftVoter (the replica level,
  ``kafka:VERSION``; kafka-raft 3.9 and later), or ``KRaftControlRecordStateMachine`` over
  ``VoterSetHistory`` and Kafka's ``MockLog`` (the log level, ``kafka:VERSION:log``; 3.8 and later).
- streams: ``StreamsMetadataState`` fed as ``StreamsPartitionAssignor.onAssignment`` feeds it
  (kafka-streams, 3.0 and later).

One Kafka version per process (JPype cannot restart a JVM); see ``jvm``. Jars are cached in
``$KSPEC_KAFKA_CACHE`` or ``~/.cache/kspec/kafka``; see ``artifacts``.
"""

from __future__ import annotations

from kspec.conformance.adapters.base import Target, TargetError


def make_kafka_target(version: str, protocol: str) -> Target:
    """The ``kafka:VERSION`` target of ``protocol`` (its ``kafka`` entry in conformance/protocols.py);
    TargetError (one line) when it cannot run."""
    from kspec.conformance import protocols

    covered = [p.name for p in protocols.protocols() if p.kafka is not None]
    declared = protocols.find(protocol)
    if declared is None or declared.kafka is None:
        raise TargetError(f"kafka:{version}: no Kafka target for protocol {protocol!r} "
                          f"(kafka targets cover: {', '.join(covered)})")
    return declared.kafka_target(version)
