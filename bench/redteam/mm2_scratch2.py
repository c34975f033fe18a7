"""MirrorMaker 2 replication policies, session 9's planted bugs (none of sessions 5 and 8), over
every configuration the driver draws (both policies, both internal-topic rules).

Written from spec/mm2.md and spec/adapter-protocol.md (mm2) only, over session 5's from-scratch
``redteam.mm2.Policy`` / ``IdentityPolicy`` and session 8's 3.x rule (``redteam.mm2_scratch``):
the slips of a hand port of ``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` in
another language (Python's ``split(sep, 1)`` for Java's, a zero value for Java's null, a tidy-up
of doubled separators, Unicode normalisation, guards against "invalid" names).

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch2:Correct
"""

from __future__ import annotations

import unicodedata

from redteam._targets import register, slot_target, subclass
from redteam.mm2 import IdentityPolicy, Policy
from redteam.mm2_scratch import AnyTarget, Rule3x

# ---------------------------------------------------------------------------- bugs


class FormatNoDoubleSeparator(Policy):
    """``formatRemoteTopic`` avoids a doubled separator: a topic that already starts with the
    separator (``.orders``) is joined without another one (``A.orders``, read back as ``orders``)."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        if topic.startswith(self.sep):
            return source + topic
        return super().format_remote_topic(source, topic)


class SplitMaxTwo(Policy):
    """``topicSource`` splits once (Python's ``split(sep, 1)``, Java's ``split(regex, 2)``): the
    trailing empty pieces Java's plain ``split`` drops are kept, so ``A.`` and ``orders..`` are remote."""

    def topic_source(self, topic: str) -> str | None:
        parts = topic.split(self.sep, 1)
        return parts[0] if len(parts) == 2 else None


class UpstreamLocalEmpty(Policy):
    """A Go-style zero value: ``upstreamTopic`` of a local topic is ``""``, not null."""

    def upstream_topic(self, topic: str) -> str | None:
        up = super().upstream_topic(topic)
        return "" if up is None else up


class OriginalEmptyNull(Policy):
    """A guard against an invalid name: ``originalTopic("")`` answers null (Kafka: ``""``)."""

    def original_topic(self, topic: str) -> str:
        if topic == "":
            return None  # type: ignore[return-value]
        return super().original_topic(topic)


class NfcNormalised(Policy):
    """Names normalised to Unicode NFC on the way in (a "canonical topic names" helper): a
    decomposed ``ördérs`` comes back composed."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return super().format_remote_topic(unicodedata.normalize("NFC", source), unicodedata.normalize("NFC", topic))

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(unicodedata.normalize("NFC", topic))

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(unicodedata.normalize("NFC", topic))


class Mm2InternalForgetsCheckpoints(Policy):
    """4.x's MM2-internal test ported as "starts with mm2 and ends with the suffix" only: a
    checkpoints topic (``A.checkpoints.internal``) is not MM2's own."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return topic.startswith("mm2") and topic.endswith(self.isep + "internal")


class InternalPrefixIsSeparator(Policy):
    """``isInternalTopic``'s ``.`` prefix read as "starts with the separator": with ``_``,
    ``_orders`` is internal and ``.orders`` is not."""

    def is_internal_topic(self, topic: str) -> bool:
        return self.is_mm2_internal_topic(topic) or topic.startswith("__") or topic.startswith(self.sep)


class HeartbeatsOneHop(Policy):
    """``isHeartbeatsTopic`` looks one hop up (the topic or its upstream), not at the original."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return topic == self.heartbeats_topic() or self.upstream_topic(topic) == self.heartbeats_topic()


class OffsetSyncsPlainPrefix(Policy):
    """Offset-syncs with the first separator hard-coded as ``.`` (copied from the default name):
    ``mm2-offset-syncs.A_internal`` with the separator ``_``."""

    def offset_syncs_topic(self, alias: str) -> str:
        return f"mm2-offset-syncs.{alias}{self.isep}internal"


class Rule3xSuffixWithSeparator(Rule3x, Policy):
    """3.x: Connect's ``.internal`` suffix written with the configured separator (``-internal``
    kept): with ``_``, ``orders.internal`` is replicated."""

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(("-internal", self.sep + "internal")))


class IdentityUpstreamNull(IdentityPolicy):
    """Identity: ``upstreamTopic`` of a non-heartbeat topic is null ("identity has no upstream"),
    not the topic itself."""

    def upstream_topic(self, topic: str) -> str | None:
        return Policy.upstream_topic(self, topic) if self.looks_like_heartbeat(topic) else None


class IdentityAliasForHeartbeats(IdentityPolicy):
    """Identity: ``topicSource`` is the configured alias for every topic, heartbeats too."""

    def topic_source(self, topic: str) -> str | None:
        return self.alias


class IdentityLooksLikeSeparatorHeartbeats(IdentityPolicy):
    """Identity: a heartbeat look-alike is ``heartbeats`` or ends with ``sep + heartbeats`` (a
    "fix" of the plain suffix test), so ``myheartbeats`` is an identity name."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        hb = self.heartbeats_topic()
        return topic == hb or topic.endswith(self.sep + hb)


class Identity3xUpstreamNull(Rule3x, IdentityUpstreamNull):
    pass


class Identity3xAliasForHeartbeats(Rule3x, IdentityAliasForHeartbeats):
    pass


Correct = subclass(globals(), "Correct", AnyTarget)
CORRECT = "Correct"
# bug name -> {slot of AnyTarget: class}: the slots the bug replaces.
BUGS: dict[str, dict[str, type[Policy]]] = {
    "format-no-double-separator": {"default": FormatNoDoubleSeparator},
    "split-max-two": {"default": SplitMaxTwo},
    "upstream-local-empty": {"default": UpstreamLocalEmpty},
    "original-empty-null": {"default": OriginalEmptyNull},
    "nfc-normalised": {"default": NfcNormalised},
    "mm2-internal-forgets-checkpoints": {"default": Mm2InternalForgetsCheckpoints},
    "internal-prefix-is-separator": {"default": InternalPrefixIsSeparator},
    "heartbeats-one-hop": {"default": HeartbeatsOneHop},
    "offset-syncs-dot-prefix": {"default": OffsetSyncsPlainPrefix},
    "rule3x-suffix-with-separator": {"default3x": Rule3xSuffixWithSeparator},
    "identity-upstream-null": {"identity": IdentityUpstreamNull, "identity3x": Identity3xUpstreamNull},
    "identity-alias-for-heartbeats": {"identity": IdentityAliasForHeartbeats,
                                      "identity3x": Identity3xAliasForHeartbeats},
    "identity-heartbeats-after-separator": {"identity": IdentityLooksLikeSeparatorHeartbeats},
}
TARGETS = register(globals(), Correct, BUGS, slot_target)
