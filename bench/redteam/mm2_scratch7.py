"""MirrorMaker 2 replication-policy bugs, session 15's blind round ("outsiderb").

Each bug overrides one or a few methods of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``'s
``DefaultPolicy`` and ``IdentityPolicy``, its base classes only), written from spec/mm2.md,
docs/adapter-guide.md and Kafka's ``connect/mirror-client`` sources (KIP-382, KIP-690, KIP-949,
KIP-1016), without the driver, the model or the mutant catalogue. They are slips a Python
reimplementer makes: KIP-1016's heartbeats-topic name read by one method and not another, Python
truthiness on the empty source alias ``""``, a termination guard on ``originalTopic`` that counts
hops, ``str.rstrip`` (a set of characters) standing in for Java's trailing-empty-piece rule,
3.x's Connect suffix folded into the separator's internal suffix, and the identity policy's
heartbeat test kept on the literal ``heartbeats``.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch7:Correct
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy, PolicyTarget, java_split


class HeartbeatsNameIgnored(DefaultPolicy):
    """MM2-RULE-DEFAULT-* with KIP-1016: ``heartbeatsTopic()`` is the literal ``heartbeats`` whatever
    ``default.replication.policy.heartbeats.topic.name`` configures (the policy predates the
    setting and was never updated). Kafka's ``DefaultReplicationPolicy.configure`` reads it and
    every heartbeat call (``heartbeatsTopic``, ``isHeartbeatsTopic``) follows it. An implementer
    slips here because the name was a constant of the interface for years (``ReplicationPolicy.
    DEFAULT_HEARTBEATS_TOPIC_NAME``)."""

    def heartbeats_topic(self) -> str:
        return "heartbeats"


class IdentityHeartbeatLiteral(IdentityPolicy):
    """MM2-RULE-IDENTITY-*: the identity policy's "looks like a heartbeat" tests the suffix
    ``heartbeats`` literally instead of ``heartbeatsTopic()`` (Kafka: ``topic.endsWith(
    heartbeatsTopic())``), so with KIP-1016's configured name the configured heartbeats topic is
    kept unrenamed by ``formatRemoteTopic`` and a topic ending in ``heartbeats`` is renamed. An
    implementer slips here because the Javadoc says "in the special case of heartbeats"."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        return topic.endswith("heartbeats")


class IdentityHeartbeatEmptySource(IdentityPolicy):
    """MM2-RULE-IDENTITY-* over MM2-RULE-DEFAULT-SOURCE/-UPSTREAM: in the identity policy's heartbeat
    branch, an empty source alias (``""``, a name that starts with the separator) is taken for
    "not remote" (Python truthiness: ``if not source``), so ``upstreamTopic('.heartbeats')`` is
    null instead of ``heartbeats`` (Kafka defers to the default policy, whose ``topicSource`` is
    ``""``, not null) and ``originalTopic`` stops there. The default policy's own methods are
    right; only the identity class, written apart, tests the source for truth."""

    def upstream_topic(self, topic: str) -> str | None:
        if not self.looks_like_heartbeat(topic):
            return topic
        source = DefaultPolicy.topic_source(self, topic)
        if not source:
            return None
        return topic[len(source) + len(self.sep):]


class OriginalTopicHopCap(DefaultPolicy):
    """MM2-RULE (ReplicationPolicy.originalTopic, MM2-LAW-ORIGINAL-OF-REMOTE): ``originalTopic``
    follows ``upstreamTopic`` at most five times, a guard against identity-like cycles sized
    "one past the four hops of the biggest topology MM2 builds". Kafka follows until null or a
    fixed point; a name six or more hops away (``A.B.C.A.B.C.orders``) answers a remote name
    instead of its origin. An implementer slips here because a loop guard by count is the usual
    way to make a loop terminate, and the fixed-point guard already terminates it."""

    def original_topic(self, topic: str) -> str:
        for _ in range(5):
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream
        return topic


class SourceRstripSeparator(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE: Java's "trailing empty strings are removed" emulated by
    ``topic.rstrip(sep)`` before splitting. ``str.rstrip`` takes a *set of characters*, not a
    suffix: with separator ``__``, ``x___`` (alias ``x_``, separator, empty topic or a trailing
    ``_``) loses all three underscores and reads as local, where Java splits it leftmost into
    ``x`` and ``_`` (source ``x``). Equal for one-character separators and for even runs of
    ``_``. An implementer slips here because rstrip reads as "strip that suffix"."""

    def split(self, topic: str) -> list[str]:
        return java_split(topic.rstrip(self.sep), self.sep)


class ConnectDotSuffixFolded(DefaultPolicy):
    """MM2-RULE-INTERNAL-3X: under 3.x, Connect's ``.internal`` suffix is taken as covered by
    ``isMM2InternalTopic`` (which tests the *internal separator's* suffix) and only ``-internal``
    is tested on its own. With separator ``_`` and the internal separator on, MM2's suffix is
    ``_internal``, so a Connect topic ``mm2-configs.A.internal`` or ``orders.internal`` is replicated.
    An implementer slips here because with the default ``.`` the two suffixes are the same."""

    def is_internal_topic(self, topic: str) -> bool:
        if not self.rule3x:
            return super().is_internal_topic(topic)
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith("-internal"))


class Kip1016Target(PolicyTarget):
    """scratch5's target, declaring that its policies read KIP-1016's heartbeats-topic name (its
    ``DefaultPolicy`` does): the driver then configures one (MM2-DRIVE-HEARTBEATS-NAME); and, since
    session 18, that they read absent properties at Kafka's defaults (``configure`` tests
    ``containsKey`` as Kafka's does): the driver then leaves defaults out (MM2-DRIVE-DEFAULT-PROPS)."""

    model_config = MappingProxyType({"heartbeats_topic_name": True, "default_props": True})


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "heartbeats-name-ignored": HeartbeatsNameIgnored,
    "identity-heartbeat-literal": IdentityHeartbeatLiteral,
    "identity-heartbeat-empty-source": IdentityHeartbeatEmptySource,
    "original-topic-hop-cap": OriginalTopicHopCap,
    "source-rstrip-separator": SourceRstripSeparator,
    "connect-dot-suffix-folded": ConnectDotSuffixFolded,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
