"""MirrorMaker 2's ``ReplicationPolicy`` contract and Kafka's two policies, as pure Python.

This is the reference for spec/mm2.md. It follows ``org.apache.kafka.connect.mirror``
in ``connect/mirror-client`` (``ReplicationPolicy``, ``DefaultReplicationPolicy``,
``IdentityReplicationPolicy``) method by method, with Kafka's names in snake_case, including
the parts that are surprising (Java's ``String.split`` drops trailing empty strings;
``IdentityReplicationPolicy`` treats any topic that merely *ends with* the heartbeats topic
name as a heartbeat). A policy is immutable: Kafka's ``configure(props)`` becomes the
constructor arguments, and :meth:`ReplicationPolicy.for_flow` is how MM2 hands a connector's
``source.cluster.alias`` to the policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Protocol

DEFAULT_SEPARATOR = "."
DEFAULT_HEARTBEATS_TOPIC = "heartbeats"
_RECURSION_LIMIT = 10_000

# Which topics are internal changed in Kafka 4.0 (KAFKA-17200, apache/kafka#17815). Before
# (MM2-RULE-INTERNAL-3X) ``isInternalTopic`` also took Connect-style names ending ".internal"
# or "-internal", and ``isMM2InternalTopic`` took any name ending with the internal suffix.
# Since (MM2-RULE-INTERNAL-4X) ``isMM2InternalTopic`` needs the "mm2" prefix (or a checkpoints
# topic) and ``isInternalTopic`` is MM2's own topics plus Kafka's "__"/"." prefixes, so user
# topics named "orders-internal" or "orders.internal" replicate.
INTERNAL_RULE_3X = "3.x"
INTERNAL_RULE_4X = "4.x"
INTERNAL_RULES = (INTERNAL_RULE_3X, INTERNAL_RULE_4X)


def internal_rule_for(kafka_version: str) -> str:
    """The internal-topic rule of a Kafka release (``"3.9.0"`` -> ``"3.x"``, ``"4.1.0"`` -> ``"4.x"``)."""
    major = kafka_version.split(".", 1)[0]
    if not major.isdigit():
        raise ValueError(f"not a Kafka version: {kafka_version!r}")
    return INTERNAL_RULE_4X if int(major) >= 4 else INTERNAL_RULE_3X


class PolicyLike(Protocol):
    """What MM2 (and the laws) call on a replication policy: Kafka's methods in snake_case."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str: ...
    def topic_source(self, topic: str) -> str | None: ...
    def upstream_topic(self, topic: str) -> str | None: ...
    def original_topic(self, topic: str) -> str: ...
    def heartbeats_topic(self) -> str: ...
    def offset_syncs_topic(self, cluster_alias: str) -> str: ...
    def checkpoints_topic(self, cluster_alias: str) -> str: ...
    def is_heartbeats_topic(self, topic: str) -> bool: ...
    def is_checkpoints_topic(self, topic: str) -> bool: ...
    def is_mm2_internal_topic(self, topic: str) -> bool: ...
    def is_internal_topic(self, topic: str) -> bool: ...


def java_split(text: str, separator: str) -> list[str]:
    """``text.split(Pattern.quote(separator))`` as Java computes it (limit 0).

    Matches are leftmost and non-overlapping (as Python's ``str.split``); a match at the very
    start yields a leading empty string; trailing empty strings are removed; a string with no
    match splits into itself. The separator must be non-empty (MM2-LAW-SEPARATOR-NONEMPTY).
    """
    if not separator:
        raise ValueError("the replication policy separator must be non-empty")
    if separator not in text:
        return [text]
    parts = text.split(separator)
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def original_topic_chain(policy: PolicyLike, topic: str, limit: int) -> list[str] | None:
    """The topics ``original_topic`` visits (``topic`` first, the original last).

    Kafka's default ``originalTopic`` recurses on ``upstreamTopic`` until it is null or equal
    to its argument; a policy whose upstream chain never ends would recurse forever, so this
    stops after ``limit`` steps and returns None (MM2-LAW-ORIGINAL-TERMINATES).
    """
    chain = [topic]
    current = topic
    for _ in range(limit):
        upstream = policy.upstream_topic(current)
        if upstream is None or upstream == current:
            return chain
        chain.append(upstream)
        current = upstream
    return None


@dataclass(frozen=True, slots=True)
class ReplicationPolicy:
    """The interface's default methods (``ReplicationPolicy.java``, Kafka 3.0+ with KIP-690).

    Subclasses override the naming; what is left here is what a user's policy inherits.
    ``internal_rule`` is the Kafka release line whose ``isInternalTopic`` default applies
    (:data:`INTERNAL_RULE_4X`, Kafka 4.0 and later, unless told otherwise).
    """

    internal_rule: str = field(default=INTERNAL_RULE_4X, kw_only=True)

    def for_flow(self, source_cluster_alias: str) -> ReplicationPolicy:
        """The policy as a connector of the flow ``source -> target`` configures it."""
        return self

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        raise NotImplementedError

    def topic_source(self, topic: str) -> str | None:
        raise NotImplementedError

    def upstream_topic(self, topic: str) -> str | None:
        raise NotImplementedError

    def original_topic(self, topic: str) -> str:
        """Follow ``upstream_topic`` until it is None or a fixed point (Kafka 3.0+)."""
        current = topic
        for _ in range(_RECURSION_LIMIT):
            upstream = self.upstream_topic(current)
            if upstream is None or upstream == current:
                return current
            current = upstream
        # Java would overflow its stack here; say so in the same terms.
        raise RecursionError(f"original_topic({topic!r}) does not terminate")

    def heartbeats_topic(self) -> str:
        return DEFAULT_HEARTBEATS_TOPIC

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return "mm2-offset-syncs." + cluster_alias + ".internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return cluster_alias + ".checkpoints.internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.heartbeats_topic() == self.original_topic(topic)

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(".checkpoints.internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.internal_rule == INTERNAL_RULE_3X:
            return topic.endswith(".internal")
        return (topic.startswith("mm2") and topic.endswith(".internal")) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        """MM2's own internal topics and Kafka's (``__*``, ``.*``); with the 3.x rule also
        Connect's default ones (``*.internal``, ``*-internal``)."""
        kafka_internal = topic.startswith("__") or topic.startswith(".")
        if self.internal_rule == INTERNAL_RULE_3X and (topic.endswith("-internal") or topic.endswith(".internal")):
            return True
        return self.is_mm2_internal_topic(topic) or kafka_internal


@dataclass(frozen=True, slots=True)
class DefaultReplicationPolicy(ReplicationPolicy):
    """``DefaultReplicationPolicy``: remote topics are ``<source alias><separator><topic>``.

    ``separator`` is ``replication.policy.separator`` (default "."); with
    ``internal_topic_separator_enabled`` false (``replication.policy.internal.topic.separator
    .enabled``) the checkpoints and offset-syncs names keep "." as before KIP-690;
    ``heartbeats_topic_name`` is ``default.replication.policy.heartbeats.topic.name`` (KIP-1016).
    """

    separator: str = DEFAULT_SEPARATOR
    internal_topic_separator_enabled: bool = True
    heartbeats_topic_name: str = DEFAULT_HEARTBEATS_TOPIC

    def __post_init__(self) -> None:
        if not self.separator:
            raise ValueError("the replication policy separator must be non-empty")
        if self.internal_rule not in INTERNAL_RULES:
            raise ValueError(f"unknown internal-topic rule {self.internal_rule!r} (known: {', '.join(INTERNAL_RULES)})")

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return source_cluster_alias + self.separator + topic

    def topic_source(self, topic: str) -> str | None:
        parts = java_split(topic, self.separator)
        # Fewer than two parts: not a remote topic. Note "a." splits to ["a"] (trailing
        # empties dropped) and ".a" to ["", "a"], whose source is the empty alias.
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator):]

    def _internal_separator(self) -> str:
        return self.separator if self.internal_topic_separator_enabled else "."

    def _internal_suffix(self) -> str:
        return self._internal_separator() + "internal"

    def _checkpoints_suffix(self) -> str:
        return self._internal_separator() + "checkpoints" + self._internal_suffix()

    def heartbeats_topic(self) -> str:
        return self.heartbeats_topic_name

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return "mm2-offset-syncs" + self._internal_separator() + cluster_alias + self._internal_suffix()

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return cluster_alias + self._checkpoints_suffix()

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self._checkpoints_suffix())

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.internal_rule == INTERNAL_RULE_3X:
            return topic.endswith(self._internal_suffix())
        return (topic.startswith("mm2") and topic.endswith(self._internal_suffix())) or self.is_checkpoints_topic(topic)


@dataclass(frozen=True, slots=True)
class IdentityReplicationPolicy(DefaultReplicationPolicy):
    """``IdentityReplicationPolicy`` (Kafka 3.0, KAFKA-9726): remote topics keep their names.

    It cannot tell a remote topic from a local one, so ``topic_source`` is whatever
    ``source.cluster.alias`` was configured (None when unset) and ``upstream_topic`` is the
    topic itself; Kafka's docs say MM2 cannot prevent cycles with it (MM2-LAW-CYCLE-DETECTABLE
    fails). Topics that *end with* the heartbeats name are handled as DefaultReplicationPolicy.
    """

    source_cluster_alias: str | None = None

    def for_flow(self, source_cluster_alias: str) -> ReplicationPolicy:
        return replace(self, source_cluster_alias=source_cluster_alias)

    def _looks_like_heartbeat(self, topic: str) -> bool:
        return topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        if self._looks_like_heartbeat(topic):
            return DefaultReplicationPolicy.format_remote_topic(self, source_cluster_alias, topic)
        return topic

    def topic_source(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return DefaultReplicationPolicy.topic_source(self, topic)
        return self.source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        if self._looks_like_heartbeat(topic):
            return DefaultReplicationPolicy.upstream_topic(self, topic)
        return topic


def is_cycle(policy: PolicyLike, topic: str, target_alias: str) -> bool:
    """``MirrorSourceConnector.isCycle``: would replicating ``topic`` to ``target_alias``
    bring it back to a cluster it came from, as far as the policy's names can tell?"""
    current = topic
    seen = 0
    while True:
        source = policy.topic_source(current)
        if source is None:
            return False
        if source == target_alias:
            return True
        upstream = policy.upstream_topic(current)
        if upstream is None or upstream == current:
            # Kafka's extra check for IdentityReplicationPolicy-like policies.
            return False
        current = upstream
        seen += 1
        if seen > len(topic) + 1:
            # Kafka would recurse until the stack overflows; a policy whose upstream chain
            # does not shrink is reported as "no cycle", the answer Kafka's guard gives.
            return False


def should_replicate(policy: PolicyLike, topic: str, target_alias: str,
                     topic_filter_accepts: bool = True, heartbeats_replication_enabled: bool = True) -> bool:
    """``MirrorSourceConnector.shouldReplicateTopic``: (filter or heartbeat) and not internal
    and not a cycle."""
    wanted = topic_filter_accepts or (heartbeats_replication_enabled and policy.is_heartbeats_topic(topic))
    return wanted and not policy.is_internal_topic(topic) and not is_cycle(policy, topic, target_alias)


# -- what MirrorClient reads from the names on one cluster (MirrorClient.java) ---------------

def count_hops_for_topic(policy: PolicyLike, topic: str, source_cluster_alias: str) -> int:
    """``MirrorClient.countHopsForTopic``: hops from ``source_cluster_alias`` to the cluster
    holding ``topic``, by walking topic sources; -1 when not found or when a source repeats
    (Kafka's guard for policies that cannot prevent cycles)."""
    hops = 0
    visited: set[str] = set()
    current: str | None = topic
    while current is not None:
        hops += 1
        source = policy.topic_source(current)
        if source is None:
            return -1
        if source == source_cluster_alias:
            return hops
        if source in visited:
            return -1
        visited.add(source)
        current = policy.upstream_topic(current)
    return -1


def all_sources(policy: PolicyLike, topic: str) -> frozenset[str]:
    """``MirrorClient.allSources``: every cluster a topic went through, by its name."""
    sources: set[str] = set()
    current: str | None = topic
    source = policy.topic_source(topic)
    while source is not None and source not in sources and current is not None:
        sources.add(source)
        current = policy.upstream_topic(current)
        source = None if current is None else policy.topic_source(current)
    return frozenset(sources)


def replication_hops(policy: PolicyLike, topics: list[str], upstream_alias: str) -> int:
    """``MirrorClient.replicationHops``: the fewest hops from ``upstream_alias`` over the
    heartbeat topics among ``topics`` (-1 when unreachable)."""
    counts = [count_hops_for_topic(policy, t, upstream_alias) for t in topics if policy.is_heartbeats_topic(t)]
    found = [c for c in counts if c != -1]
    return min(found) if found else -1


def upstream_clusters(policy: PolicyLike, topics: list[str]) -> frozenset[str]:
    """``MirrorClient.upstreamClusters``: the clusters named by the heartbeat topics' sources."""
    out: set[str] = set()
    for t in topics:
        if policy.is_heartbeats_topic(t):
            out |= all_sources(policy, t)
    return frozenset(out)
