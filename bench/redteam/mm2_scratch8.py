"""MirrorMaker 2 replication-policy bugs, session 16's blind round ("outsidera").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``'s
``DefaultPolicy`` and ``IdentityPolicy``), under session 15's KIP-1016 target
(``mm2_scratch7.Kip1016Target``), written from spec/mm2.md, docs/adapter-guide.md and Kafka's
``connect/mirror-client`` sources, without the driver, the model or the mutant catalogue. They
aim at names the earlier rounds left alone: ``heartbeats`` or ``.internal`` as a *part* of a name
(not its end), a checkpoints topic whose alias holds the separator, a remote copy of an MM2
topic, the identity policy's answers for a heartbeats topic that is local, and a loop guard that
stops on a repeated source (``..orders``: source ``""`` twice).

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch8:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


class HeartbeatsPieceAnywhere(DefaultPolicy):
    """MM2-RULE (ReplicationPolicy.isHeartbeatsTopic = ``heartbeatsTopic().equals(originalTopic(
    topic))``): a heartbeats topic is any name one of whose separator-split pieces is the
    heartbeats name ("a heartbeats topic some hops away"), so ``heartbeats.orders`` (remote from
    a cluster aliased ``heartbeats``, original ``orders``) and ``A.heartbeats.x`` count, and so
    does ``heartbeats.`` (local: Java drops the trailing empty piece, its original is itself).
    An implementer slips here because every heartbeat replica's name is aliases then
    ``heartbeats``, and the piece test needs no loop."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.heartbeats_topic() in self.split(topic)


class IdentityLocalHeartbeatFromAlias(IdentityPolicy):
    """MM2-RULE-IDENTITY-* ("such topics are handled exactly as the default policy does"): for a
    name that looks like a heartbeat but has no source by the default rule (``heartbeats``,
    ``myheartbeats``), ``topicSource`` falls back to the configured ``source.cluster.alias``, as for
    every other identity topic; Kafka answers the default policy's null. An implementer slips
    here by treating null from the heartbeat branch as "not decided" instead of "local"."""

    def topic_source(self, topic: str) -> str | None:
        source = super().topic_source(topic)
        return self.alias if source is None else source


class CheckpointsAliasFirstPiece(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES (``isCheckpointsTopic``: the name ends with the checkpoints
    suffix): the test parses the alias as the name's first piece split at the internal separator
    and asks whether ``checkpointsTopic(alias)`` rebuilds the name, so the checkpoints topic of an
    alias that holds the internal separator (``us.west.checkpoints.internal``) is not recognised
    (nor MM2-internal, nor internal: it would be replicated). An implementer slips here by
    "parsing what the policy formatted" instead of testing the suffix."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        alias = topic.split(self.internal_sep())[0]
        return topic == self.checkpoints_topic(alias)


class Mm2SuffixContained(DefaultPolicy):
    """MM2-RULE-INTERNAL-3X/-4X (``isMM2InternalTopic``: the name *ends with* the internal suffix):
    the suffix test written as ``contains``, so a name with ``.internal`` as an inner part is
    MM2-internal (3.x: ``orders.internal.v2``; 4.x: ``mm2-offsets.A.internal.bak``) and never
    replicated. A Java slip (``topic.contains(...)`` for ``endsWith``) that every real MM2 name
    hides, since they all end with the suffix."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return self.internal_suffix() in topic
        return (topic.startswith("mm2") and self.internal_suffix() in topic) or self.is_checkpoints_topic(topic)


class Mm2PrefixOfOriginal(DefaultPolicy):
    """MM2-RULE-INTERNAL-4X (``t`` starts with ``mm2`` and ends with the internal suffix: the name
    as given): the ``mm2`` prefix is tested on ``originalTopic(t)`` ("a replicated MM2 topic is
    still MM2's"), so a remote copy of an MM2 topic, ``A.mm2-offsets.B.internal``, is MM2-internal
    and internal where Kafka replicates it like any name (4.x). An implementer slips here because
    the suffix survives replication and the prefix does not."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return super().is_mm2_internal_topic(topic)
        original = self.original_topic(topic)
        return ((original.startswith("mm2") and topic.endswith(self.internal_suffix()))
                or self.is_checkpoints_topic(topic))


class IdentityHeartbeatTestIsSuffix(IdentityPolicy):
    """MM2-RULE-IDENTITY-* (only the *renaming* follows the suffix test; ``isHeartbeatsTopic`` is the
    interface's ``heartbeatsTopic().equals(originalTopic(topic))``): the identity policy's
    ``isHeartbeatsTopic`` is its "looks like a heartbeat" test itself, so ``myheartbeats`` (whose
    original topic is ``myheartbeats``) counts as a heartbeats topic. An implementer slips here
    because the Javadoc's "heartbeats are the special case" reads as the definition."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.looks_like_heartbeat(topic)


class OriginalStopsAtRepeatedSource(DefaultPolicy):
    """MM2-RULE (ReplicationPolicy.originalTopic: follow ``upstreamTopic`` until null or a fixed
    point): a loop guard that also stops when the upstream name has the same source as the name
    ("the policy is not peeling: a loop"), so ``..orders`` (source ``""``, upstream ``.orders``,
    source ``""`` again) answers ``.orders`` instead of ``orders``, as does ``A.A.orders``. An
    implementer slips here guarding against identity-like policies by source, not by name."""

    def original_topic(self, topic: str) -> str:
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            if self.topic_source(upstream) == self.topic_source(topic):
                return upstream
            topic = upstream


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "heartbeats-piece-anywhere": HeartbeatsPieceAnywhere,
    "identity-local-heartbeat-from-alias": IdentityLocalHeartbeatFromAlias,
    "checkpoints-alias-first-piece": CheckpointsAliasFirstPiece,
    "mm2-suffix-contained": Mm2SuffixContained,
    "mm2-prefix-of-original": Mm2PrefixOfOriginal,
    "identity-heartbeat-test-is-suffix": IdentityHeartbeatTestIsSuffix,
    "original-stops-at-repeated-source": OriginalStopsAtRepeatedSource,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
