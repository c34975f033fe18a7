"""Deliberately broken replication policies: each is a bug class a user's policy can have.

Each must be caught by the laws (kspec.model.mm2.laws) and by exploring the system model
with it (``kspec explore mm2 --variant NAME``).
"""

from __future__ import annotations

from dataclasses import dataclass

from kspec.model.mm2.policy import DefaultReplicationPolicy


@dataclass(frozen=True, slots=True)
class UpstreamSelfPolicy(DefaultReplicationPolicy):
    """``upstream_topic`` returns the topic itself (as IdentityReplicationPolicy does) while
    names still carry the source alias: original_topic stops at once and isCycle gives up
    after the first hop, so a topic comes back to its source after three hops."""

    def upstream_topic(self, topic: str) -> str | None:
        return None if self.topic_source(topic) is None else topic


@dataclass(frozen=True, slots=True)
class InternalReplicablePolicy(DefaultReplicationPolicy):
    """``is_internal_topic`` only knows Kafka's ``__``/``.`` prefixes: MM2's ``.internal``
    topics (checkpoints, offset-syncs) become replicable."""

    def is_internal_topic(self, topic: str) -> bool:
        return topic.startswith("__") or topic.startswith(".")


@dataclass(frozen=True, slots=True)
class PeriodSplitPolicy(DefaultReplicationPolicy):
    """``topic_source`` splits on a period whatever the configured separator is: fine while
    aliases have no period, wrong for ``us.west`` with separator ``_``."""

    def topic_source(self, topic: str) -> str | None:
        if self.separator not in topic:
            return None
        return topic.split(".")[0]

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        if source is None:
            return None
        return topic[len(source) + len(self.separator):]
