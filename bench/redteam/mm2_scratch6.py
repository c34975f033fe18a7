"""MirrorMaker 2 replication policies, session 14's out-of-sample bugs ("outsider").

Written from docs/adapter-guide.md, spec/mm2.md, spec/adapter-protocol.md, KIP-382 and Kafka's
``connect/mirror-client`` classes (no kspec model, driver or earlier round's bug read before the
first measurement), over session 12's from-scratch port (``redteam.mm2_scratch5``'s
``DefaultPolicy`` / ``IdentityPolicy``, its bug-free base only). The bugs are the slips of a
Python reimplementer: ``topicSource``'s empty alias read as "no source", Python's ``str.split``
(trailing empty pieces kept) for Java's ``Pattern.split``, ``originalTopic`` as the last piece,
``isCheckpointsTopic`` with the topic separator where the internal one applies, the offset-syncs
name ending ``.internal`` whatever the internal separator, a client's identity policy with the
empty alias for "no alias", the identity policy keeping a heartbeats name unprefixed, and a
falsy guard turning ``formatRemoteTopic('', topic)`` into the topic itself. Bugs 9-13 were
written (still blind) after 1-8 were all caught. Most repeat a slip of an earlier round
(mm2_scratch .. mm2_scratch4, bench/redteam/mm2.py): outsiders converge.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch6:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import SOURCE_ALIAS, DefaultPolicy, IdentityPolicy, PolicyTarget


class SourceEmptyIsNone(DefaultPolicy):
    """``topicSource`` returns ``parts[0] or None``: a name that starts with the separator
    (``.orders``) has the empty alias as its source in Kafka (``""``, and upstream ``orders``),
    the Python ``or`` makes it "not a remote topic" (null)."""

    def topic_source(self, topic: str) -> str | None:
        parts = self.split(topic)
        return (parts[0] or None) if len(parts) >= 2 else None


class PythonSplitKeepsTrailing(DefaultPolicy):
    """The separator split is Python's ``str.split``, which keeps trailing empty pieces where
    Java's ``Pattern.split`` drops them: ``A.`` (``["A", ""]``) reads as a remote topic of ``A``
    with the empty upstream name, where Kafka has one piece and null."""

    def split(self, topic: str) -> list[str]:
        return topic.split(self.sep)


class OriginalLastPiece(DefaultPolicy):
    """``originalTopic`` as the last piece of the split ("strip every prefix at once") instead
    of following ``upstreamTopic`` to its end: the same for most names, but a name whose tail is
    separators (``A.orders.``) loses them, as Java's split drops trailing empty pieces."""

    def original_topic(self, topic: str) -> str:
        pieces = self.split(topic)
        return pieces[-1] if len(pieces) >= 2 else topic


class CheckpointsTestTopicSeparator(DefaultPolicy):
    """``isCheckpointsTopic`` builds its suffix with the topic separator, where
    ``checkpointsTopic`` uses the internal one: with a custom separator and KIP-690's internal
    separator off, the policy's own checkpoints topic (``A.checkpoints.internal``) is not
    recognised (nor MM2-internal)."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self.sep + "checkpoints" + self.sep + "internal")


class OffsetSyncsDotInternal(DefaultPolicy):
    """``offsetSyncsTopic`` writes the separator before the alias but a literal ``.internal``
    after it (the pre-KIP-690 name half updated): with ``_`` as the internal separator Kafka
    names it ``mm2-offset-syncs_A_internal``."""

    def offset_syncs_topic(self, alias: str) -> str:
        return "mm2-offset-syncs" + self.internal_sep() + alias + ".internal"


class ClientAliasEmpty(IdentityPolicy):
    """The identity policy reads ``source.cluster.alias`` with the empty string as its default
    (``props.get(key, "")``): a client's policy, configured without it, answers ``topicSource``
    of a plain topic with ``""`` where Kafka's field is null."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.alias = props.get(SOURCE_ALIAS, "")


class IdentityFormatKeepsHeartbeats(IdentityPolicy):
    """The identity policy's ``formatRemoteTopic`` returns every name as it is ("identity keeps
    names"), forgetting that heartbeats are still prefixed (else every cluster's heartbeats
    topic would collide): ``formatRemoteTopic("A", "heartbeats")`` is ``A.heartbeats``."""

    def format_remote_topic(self, alias: str, topic: str) -> str:
        return topic


class EmptyAliasFormatsNothing(DefaultPolicy):
    """``formatRemoteTopic`` guards against a missing alias with Python truthiness (``if not
    alias: return topic``): Kafka concatenates whatever it is given, so the empty alias gives
    ``.orders``."""

    def format_remote_topic(self, alias: str, topic: str) -> str:
        return super().format_remote_topic(alias, topic) if alias else topic


# Bugs 9-13, written after the first measurement caught bugs 1-8 at every seed (still blind: no
# driver or model read).


class IdentityUpstreamKeepsHeartbeats(IdentityPolicy):
    """The identity policy's ``upstreamTopic`` returns every name as it is, heartbeats too: a
    remote heartbeats topic (``A.heartbeats``) has no upstream ``heartbeats``, so its original
    topic is itself and it is not a heartbeats topic."""

    def upstream_topic(self, topic: str) -> str | None:
        return topic


class UpstreamByteLength(DefaultPolicy):
    """``upstreamTopic`` cuts the source off by its UTF-8 length (as a byte-oriented port
    would), not its length in characters: a non-ASCII source (``ördérs.orders``) loses part of
    the upstream name."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source.encode()) + len(self.sep):]


class MM2PrefixDash(DefaultPolicy):
    """Kafka 4.x's MM2-internal test reads "starts with ``mm2-``" (MM2's own names are
    ``mm2-offset-syncs``, ``mm2-configs`` ...), where the rule is the prefix ``mm2``."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return super().is_mm2_internal_topic(topic)
        return (topic.startswith("mm2-") and topic.endswith(self.internal_suffix())) or self.is_checkpoints_topic(topic)


class Rule4xKeepsConnectSuffix(DefaultPolicy):
    """The 4.x internal rule keeps 3.x's Connect suffixes (``-internal``, ``.internal``): a
    user topic ``orders-internal`` is still internal, which KAFKA-17200 undid."""

    def is_internal_topic(self, topic: str) -> bool:
        return super().is_internal_topic(topic) or topic.endswith("-internal") or topic.endswith(".internal")


class CheckpointsNoLeadingSeparator(DefaultPolicy):
    """``isCheckpointsTopic`` tests the suffix ``checkpoints.internal`` without the separator
    before it: ``mycheckpoints.internal`` passes."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith("checkpoints" + self.internal_suffix())


Correct = subclass(globals(), "Correct", PolicyTarget)
CORRECT = "Correct"

# bug name -> the policy class it replaces (default or identity slot).
BUGS: dict[str, type[DefaultPolicy]] = {
    "source-empty-is-none": SourceEmptyIsNone,
    "python-split-keeps-trailing": PythonSplitKeepsTrailing,
    "original-last-piece": OriginalLastPiece,
    "checkpoints-test-topic-separator": CheckpointsTestTopicSeparator,
    "offset-syncs-dot-internal": OffsetSyncsDotInternal,
    "client-alias-empty": ClientAliasEmpty,
    "identity-format-keeps-heartbeats": IdentityFormatKeepsHeartbeats,
    "empty-alias-formats-nothing": EmptyAliasFormatsNothing,
    # 9-13: after the first measurement (see above)
    "identity-upstream-keeps-heartbeats": IdentityUpstreamKeepsHeartbeats,
    "upstream-byte-length": UpstreamByteLength,
    "mm2-prefix-dash": MM2PrefixDash,
    "rule-4x-keeps-connect-suffix": Rule4xKeepsConnectSuffix,
    "checkpoints-no-leading-separator": CheckpointsNoLeadingSeparator,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    """An identity-policy bug fills the identity slot; a default-policy bug fills the default
    slot and sits under the identity policy too (an implementer's identity policy extends their
    own default policy, as Kafka's extends ``DefaultReplicationPolicy``)."""
    if issubclass(policy, IdentityPolicy):
        return policy.__name__ + "Target", {"identity": policy, "__doc__": policy.__doc__}
    identity = type(f"Identity{policy.__name__}", (IdentityPolicy, policy), {"__module__": __name__})
    return policy.__name__ + "Target", {"default": policy, "identity": identity, "__doc__": policy.__doc__}


TARGETS = register(globals(), PolicyTarget, BUGS, _slot)
