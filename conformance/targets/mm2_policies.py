"""Replication policies as a user would write them: plain classes, Kafka's method names in snake_case.

These are conformance targets for the ``mm2`` protocol, written apart from the model
(``kspec.model.mm2``) so that checking one against the other means something: the naming is
done with regular expressions here, as Java's ``Pattern.split`` does it, and with string
slicing in the model. ``DefaultPolicy`` and ``IdentityPolicy`` must meet the laws of
spec/mm2.md (the identity policy all but the ones Kafka's identity policy cannot meet); each
mutant breaks at least one.

A policy is configured as Kafka's are: ``configure(props)`` with Kafka's property names, or
keyword arguments to the constructor.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

SEPARATOR_CONFIG = "replication.policy.separator"
INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG = "replication.policy.internal.topic.separator.enabled"
HEARTBEATS_TOPIC_NAME_CONFIG = "default.replication.policy.heartbeats.topic.name"
SOURCE_CLUSTER_ALIAS_CONFIG = "source.cluster.alias"


def _split_like_java(text: str, separator: str) -> list[str]:
    # Pattern.compile(Pattern.quote(sep)).split(text): no match -> [text]; otherwise the
    # pieces between matches with the trailing empty ones removed.
    pieces = re.split(re.escape(separator), text)
    if len(pieces) == 1:
        return pieces
    end = len(pieces)
    while end > 0 and pieces[end - 1] == "":
        end -= 1
    return pieces[:end]


class DefaultPolicy:
    """Like Kafka's DefaultReplicationPolicy: remote topics are ``alias + separator + topic``."""

    def __init__(self, separator: str = ".", internal_topic_separator_enabled: bool = True,
                 heartbeats_topic_name: str = "heartbeats") -> None:
        self.separator = separator
        self.internal_topic_separator_enabled = internal_topic_separator_enabled
        self.heartbeats_topic_name = heartbeats_topic_name

    def configure(self, props: Mapping[str, Any]) -> None:
        """Kafka's ``configure``: the internal-topic flag only counts with a custom separator."""
        if SEPARATOR_CONFIG in props:
            self.separator = str(props[SEPARATOR_CONFIG])
            if INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG in props:
                self.internal_topic_separator_enabled = (
                    str(props[INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG]).lower() == "true")
        if HEARTBEATS_TOPIC_NAME_CONFIG in props:
            self.heartbeats_topic_name = str(props[HEARTBEATS_TOPIC_NAME_CONFIG])

    # remote topics

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}{self.separator}{topic}"

    def topic_source(self, topic: str) -> str | None:
        parts = _split_like_java(topic, self.separator)
        return parts[0] if len(parts) > 1 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source) + len(self.separator):]

    def original_topic(self, topic: str) -> str:
        upstream = self.upstream_topic(topic)
        if upstream is None or upstream == topic:
            return topic
        return self.original_topic(upstream)

    # internal topics

    def _sep(self) -> str:
        return self.separator if self.internal_topic_separator_enabled else "."

    def heartbeats_topic(self) -> str:
        return self.heartbeats_topic_name

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        s = self._sep()
        return f"mm2-offset-syncs{s}{cluster_alias}{s}internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        s = self._sep()
        return f"{cluster_alias}{s}checkpoints{s}internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.original_topic(topic) == self.heartbeats_topic()

    def is_checkpoints_topic(self, topic: str) -> bool:
        s = self._sep()
        return topic.endswith(f"{s}checkpoints{s}internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return topic.endswith(f"{self._sep()}internal")

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(("-internal", ".internal")))


class IdentityPolicy(DefaultPolicy):
    """Like Kafka's IdentityReplicationPolicy: names are kept, except heartbeats."""

    def __init__(self, source_cluster_alias: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.source_cluster_alias = source_cluster_alias

    def configure(self, props: Mapping[str, Any]) -> None:
        super().configure(props)
        if SOURCE_CLUSTER_ALIAS_CONFIG in props:
            self.source_cluster_alias = str(props[SOURCE_CLUSTER_ALIAS_CONFIG])

    def _heartbeat_like(self, topic: str) -> bool:
        return topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return super().format_remote_topic(source_cluster_alias, topic) if self._heartbeat_like(topic) else topic

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic) if self._heartbeat_like(topic) else self.source_cluster_alias

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(topic) if self._heartbeat_like(topic) else topic


# -- mutants ----------------------------------------------------------------------------------

class UpstreamSelfPolicy(DefaultPolicy):
    """Mutant: ``upstream_topic`` of a remote topic is the topic itself."""

    def upstream_topic(self, topic: str) -> str | None:
        return None if self.topic_source(topic) is None else topic


class InternalReplicablePolicy(DefaultPolicy):
    """Mutant: only ``__`` and ``.`` prefixes are internal; ``*.internal`` topics replicate."""

    def is_internal_topic(self, topic: str) -> bool:
        return topic.startswith(("__", "."))


class DottedAliasPolicy(DefaultPolicy):
    """Mutant: ``topic_source`` splits on a period whatever the separator, so an alias like
    ``us.west`` (legal with separator ``_``) comes back as ``us``."""

    def topic_source(self, topic: str) -> str | None:
        if self.separator not in topic:
            return None
        return topic.split(".")[0]


REFERENCE = {"default": DefaultPolicy, "identity": IdentityPolicy}
MUTANTS = {
    "upstream-self": UpstreamSelfPolicy,
    "internal-replicable": InternalReplicablePolicy,
    "dotted-alias": DottedAliasPolicy,
}
