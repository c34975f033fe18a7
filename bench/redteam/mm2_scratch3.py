"""MirrorMaker 2 replication policies, session 10's planted bugs (none of sessions 5, 8 and 9 nor
of the catalogue), over every configuration the driver draws.

Written as an outsider porting ``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` from
spec/mm2.md and the adapter protocol: the slips of someone who stores ``source.cluster.alias`` in
``configure`` and then uses it where the method has an alias argument, who writes the name tests
as regular expressions or case-folds them, who "validates" names, who reads a flag as
``== "true"``, or who keeps configuration in a class attribute (Java ``static``).

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch3:Correct
"""

from __future__ import annotations

import re

from redteam._targets import register, slot_target, subclass
from redteam.mm2 import IdentityPolicy, Policy
from redteam.mm2_scratch import AnyTarget, Rule3x

ALIAS = "source.cluster.alias"
FLAG = "replication.policy.internal.topic.separator.enabled"


class ConfiguredAlias(Policy):
    """Remembers ``source.cluster.alias`` (the identity policy's key, read by the default one too)."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        self.configured = props.get(ALIAS)


# ---------------------------------------------------------------------------- bugs


class FormatUsesConfiguredAlias(ConfiguredAlias):
    """``formatRemoteTopic(alias, t)`` prefixes the alias the policy was configured with (the
    flow's source, which is what MM2's connectors pass anyway), not its argument."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return super().format_remote_topic(self.configured or source, topic)


class CheckpointsUseConfiguredAlias(ConfiguredAlias):
    """``checkpointsTopic(alias)`` and ``offsetSyncsTopic(alias)`` name the configured alias when
    there is one (MirrorClient's policy has none and passes the remote cluster's)."""

    def checkpoints_topic(self, alias: str) -> str:
        return super().checkpoints_topic(self.configured or alias)

    def offset_syncs_topic(self, alias: str) -> str:
        return super().offset_syncs_topic(self.configured or alias)


class StaticAliasIdentity(IdentityPolicy):
    """Identity: the source alias kept in a class attribute (Java ``static``), so the policy
    configured last decides for every instance."""

    shared_alias: str | None = None

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        if ALIAS in props:
            type(self).shared_alias = props[ALIAS]

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic) if self.looks_like_heartbeat(topic) else type(self).shared_alias


class Mm2PrefixCaseInsensitive(Policy):
    """4.x's MM2-internal test on the lower-cased name ("topic names are case-insensitive"):
    ``MM2-orders.internal`` counts as MM2's own."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return super().is_mm2_internal_topic(topic.lower())


class Rule3xSuffixCaseInsensitive(Rule3x, Policy):
    """3.x: Connect's ``.internal`` / ``-internal`` suffixes tested on the lower-cased name:
    ``orders.INTERNAL`` is kept home."""

    def is_internal_topic(self, topic: str) -> bool:
        return super().is_internal_topic(topic) or topic.lower().endswith(("-internal", ".internal"))


class TopicSourcePartition(Policy):
    """``topicSource`` with Python's ``str.partition``: remote whenever a separator is followed by
    anything, so ``orders..`` (Java: local, trailing empty pieces dropped) comes from ``orders``."""

    def topic_source(self, topic: str) -> str | None:
        head, sep, tail = topic.partition(self.sep)
        return head if sep and tail else None


class FormatTruncatesLongNames(Policy):
    """``formatRemoteTopic`` "keeps names valid": a remote name is cut to Kafka's 249
    characters."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        return super().format_remote_topic(source, topic)[:249]


class CheckpointsRegexNeedsAlias(Policy):
    """``isCheckpointsTopic`` as the regular expression ``(.+)<s>checkpoints<s>internal``: the
    alias part must be non-empty, so ``.checkpoints.internal`` (the checkpoints topic of the
    empty alias) is not recognised."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        s = re.escape(self.isep)
        return re.fullmatch(f"(.+){s}checkpoints{s}internal", topic, re.DOTALL) is not None


class Mm2RegexNeedsMiddle(Policy):
    """4.x's MM2-internal test as ``mm2(.+)<s>internal``: something must come between the prefix
    and the suffix, so ``mm2.internal`` is not MM2's own."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        s = re.escape(self.isep)
        return (re.fullmatch(f"mm2(.+){s}internal", topic, re.DOTALL) is not None
                or self.is_checkpoints_topic(topic))


class FlagExactLowercase(Policy):
    """KIP-949's flag read as ``value == "false"`` (Kafka: ``Boolean.parseBoolean``, any case), so
    ``False`` / ``FALSE`` leave the internal separator on."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        if "replication.policy.separator" in props and FLAG in props:
            self.isep = "." if props[FLAG] == "false" else self.sep


class UpstreamAfterLastSeparator(Policy):
    """``upstreamTopic`` as what follows the *last* separator (the name "without its prefixes"),
    so ``A.B.orders`` has upstream ``orders`` and the hops between are lost."""

    def upstream_topic(self, topic: str) -> str | None:
        if self.topic_source(topic) is None:
            return None
        return topic.rsplit(self.sep, 1)[1] if self.sep in topic else None


Correct = subclass(globals(), "Correct", AnyTarget)
CORRECT = "Correct"
# bug name -> {slot of AnyTarget: class}: the slots the bug replaces.
BUGS: dict[str, dict[str, type[Policy]]] = {
    "format-uses-configured-alias": {"default": FormatUsesConfiguredAlias},
    "checkpoints-use-configured-alias": {"default": CheckpointsUseConfiguredAlias},
    "static-alias-identity": {"identity": StaticAliasIdentity},
    "mm2-prefix-case-insensitive": {"default": Mm2PrefixCaseInsensitive},
    "rule3x-suffix-case-insensitive": {"default3x": Rule3xSuffixCaseInsensitive},
    "topic-source-partition": {"default": TopicSourcePartition},
    "format-truncates-long-names": {"default": FormatTruncatesLongNames},
    "checkpoints-regex-needs-alias": {"default": CheckpointsRegexNeedsAlias},
    "mm2-regex-needs-middle": {"default": Mm2RegexNeedsMiddle},
    "flag-exact-lowercase": {"default": FlagExactLowercase},
    "upstream-after-last-separator": {"default": UpstreamAfterLastSeparator},
}
TARGETS = register(globals(), Correct, BUGS, slot_target)
