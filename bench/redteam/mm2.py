"""MirrorMaker 2 replication policies (DefaultReplicationPolicy, Kafka 4.x rule) with planted
bugs, written from spec/mm2.md and spec/adapter-protocol.md (mm2) only."""

from __future__ import annotations

import re
from typing import Any

from kspec.conformance.adapters.base import StepResult, TargetError

SEPARATOR = "replication.policy.separator"
INTERNAL_SEPARATOR = "replication.policy.internal.topic.separator.enabled"


def java_split(text: str, sep: str) -> list[str]:
    """``text.split(Pattern.quote(sep))``: trailing empty strings removed."""
    parts = text.split(sep)
    while len(parts) > 1 and parts[-1] == "":
        parts.pop()
    if parts == [""] and text:
        return []  # every piece empty ("..." with "."): Java gives an empty array
    return parts


class Policy:
    def __init__(self, props: dict[str, str]) -> None:
        self.sep = props.get(SEPARATOR, ".")
        enabled = props.get(INTERNAL_SEPARATOR, "true").lower() == "true" if SEPARATOR in props else True
        self.isep = self.sep if enabled else "."

    def split(self, topic: str) -> list[str]:
        return java_split(topic, self.sep)

    def format_remote_topic(self, source: str, topic: str) -> str:
        return source + self.sep + topic

    def topic_source(self, topic: str) -> str | None:
        parts = self.split(topic)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source) + len(self.sep):]

    def original_topic(self, topic: str) -> str:
        while True:
            up = self.upstream_topic(topic)
            if up is None or up == topic:
                return topic
            topic = up

    def heartbeats_topic(self) -> str:
        return "heartbeats"

    def checkpoints_topic(self, alias: str) -> str:
        return f"{alias}{self.isep}checkpoints{self.isep}internal"

    def offset_syncs_topic(self, alias: str) -> str:
        return f"mm2-offset-syncs{self.isep}{alias}{self.isep}internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.original_topic(topic) == self.heartbeats_topic()

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(f"{self.isep}checkpoints{self.isep}internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return (topic.startswith("mm2") and topic.endswith(self.isep + "internal")) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        return self.is_mm2_internal_topic(topic) or topic.startswith("__") or topic.startswith(".")


# ---------------------------------------------------------------------------- bugs


class RegexSeparator(Policy):
    """The separator used as a regular expression (Java's ``split(sep)`` without
    ``Pattern.quote``): with ``.`` every character separates."""

    def split(self, topic: str) -> list[str]:
        parts = re.split(self.sep, topic)
        while len(parts) > 1 and parts[-1] == "":
            parts.pop()
        return parts


class EmptySourceIsLocal(Policy):
    """A falsy check: ``if parts[0]`` — a topic starting with the separator (``.orders``, source
    ``""`` in Java) is read as local."""

    def topic_source(self, topic: str) -> str | None:
        parts = self.split(topic)
        return parts[0] if len(parts) >= 2 and parts[0] else None


class CheckpointsSuffixLoose(Policy):
    """``isCheckpointsTopic`` tests the suffix ``checkpoints.internal`` without the separator in
    front, so a user topic ``mycheckpoints.internal`` is MM2's own."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(f"checkpoints{self.isep}internal")


class SingleUnderscoreInternal(Policy):
    """One underscore for two: any topic starting with ``_`` counts as Kafka-internal."""

    def is_internal_topic(self, topic: str) -> bool:
        return self.is_mm2_internal_topic(topic) or topic.startswith("_") or topic.startswith(".")


class HeartbeatsCaseInsensitive(Policy):
    """Heartbeats recognised ignoring case (``Heartbeats`` is a user's topic)."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.original_topic(topic).lower() == self.heartbeats_topic()


class UpstreamStripsSeparators(Policy):
    """``upstreamTopic`` strips leading separators from what follows the alias (a tidy-up), so
    ``A..orders`` has upstream ``orders``, not ``.orders``."""

    def upstream_topic(self, topic: str) -> str | None:
        up = super().upstream_topic(topic)
        while up is not None and up.startswith(self.sep) and len(up) > len(self.sep):
            up = up[len(self.sep):]
        return up


class FormatIdempotent(Policy):
    """A tidy-up: ``formatRemoteTopic(a, t)`` leaves ``t`` alone when it already starts with
    ``a + sep`` ("already remote from a"), so a topic of cluster A named ``A.x`` is not renamed and
    a two-hop name through the same alias is lost."""

    def format_remote_topic(self, source: str, topic: str) -> str:
        if topic.startswith(source + self.sep):
            return topic
        return super().format_remote_topic(source, topic)


class Mm2DashPrefix(Policy):
    """4.x's MM2-internal test written for MM2's own names (``mm2-offset-syncs``,
    ``mm2-offsets``): the prefix checked is ``mm2-``, where Kafka checks ``mm2``."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return (topic.startswith("mm2-") and topic.endswith(self.isep + "internal")) or self.is_checkpoints_topic(topic)


class IdentityPolicy(Policy):
    """Kafka's IdentityReplicationPolicy as spec/mm2.md §1.2 describes it: topics that look like
    heartbeats (ending with the heartbeats name) follow the default policy; the rest keep their
    name, come from the configured ``source.cluster.alias`` and are their own upstream."""

    def __init__(self, props: dict[str, str]) -> None:
        super().__init__(props)
        self.alias = props.get("source.cluster.alias")

    def looks_like_heartbeat(self, topic: str) -> bool:
        return topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, source: str, topic: str) -> str:
        return super().format_remote_topic(source, topic) if self.looks_like_heartbeat(topic) else topic

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic) if self.looks_like_heartbeat(topic) else self.alias

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(topic) if self.looks_like_heartbeat(topic) else topic


class IdentityHeartbeatsExact(IdentityPolicy):
    """Identity: only the exact heartbeats name is a heartbeat (``==`` for ``endswith``), so a
    replicated ``A.heartbeats`` keeps its name on the next hop and the hop count is lost."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        return topic == self.heartbeats_topic()


class IdentityUpstreamNone(IdentityPolicy):
    """Identity: ``upstreamTopic`` of a non-heartbeat topic is null ("it is not remote"), where
    Kafka answers the topic itself."""

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(topic) if self.looks_like_heartbeat(topic) else None


class IdentitySourceUnsetIsLocal(IdentityPolicy):
    """Identity: without ``source.cluster.alias`` the policy falls back to the default reading of
    the name (``A.orders`` comes from ``A``), where Kafka answers null."""

    def topic_source(self, topic: str) -> str | None:
        if self.alias is None:
            return Policy.topic_source(self, topic)
        return super().topic_source(topic)


CALLS = {
    "FormatRemoteTopic": ("format_remote_topic", ("source", "topic")),
    "TopicSource": ("topic_source", ("topic",)),
    "UpstreamTopic": ("upstream_topic", ("topic",)),
    "OriginalTopic": ("original_topic", ("topic",)),
    "HeartbeatsTopic": ("heartbeats_topic", ()),
    "CheckpointsTopic": ("checkpoints_topic", ("alias",)),
    "OffsetSyncsTopic": ("offset_syncs_topic", ("alias",)),
    "IsHeartbeatsTopic": ("is_heartbeats_topic", ("topic",)),
    "IsCheckpointsTopic": ("is_checkpoints_topic", ("topic",)),
    "IsMM2InternalTopic": ("is_mm2_internal_topic", ("topic",)),
    "IsInternalTopic": ("is_internal_topic", ("topic",)),
}


class Node:
    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def step(self, inp: dict[str, Any]) -> StepResult:
        if inp.get("type") not in CALLS:
            raise TargetError(f"unknown mm2 input {inp.get('type')!r}")
        method, fields = CALLS[inp["type"]]
        return StepResult([], {"result": getattr(self.policy, method)(*(inp[f] for f in fields))})

    def close(self) -> None:
        pass


class Target:
    protocol = "mm2"
    policy_class: type[Policy] = Policy
    kind = "default"

    def __init__(self) -> None:
        self.name = f"python:redteam.mm2:{type(self).__name__}"

    def supports(self, config: dict[str, Any]) -> bool:
        return config.get("policy", "default") == self.kind and config.get("internal_rule", "4.x") == "4.x"

    def start(self, node: str, config: dict[str, Any]) -> Node:
        return Node(self.policy_class({str(k): str(v) for k, v in (config.get("props") or {}).items()}))

    def close(self) -> None:
        pass


def _target(cls: type[Policy]) -> type[Target]:
    kind = "identity" if issubclass(cls, IdentityPolicy) else "default"
    return type(cls.__name__ + "Target", (Target,), {"policy_class": cls, "kind": kind})


Correct = _target(Policy)
CorrectIdentity = _target(IdentityPolicy)
CORRECT = "Correct"
BUGS: dict[str, type[Policy]] = {
    "regex-separator": RegexSeparator,
    "empty-source-is-local": EmptySourceIsLocal,
    "checkpoints-suffix-loose": CheckpointsSuffixLoose,
    "single-underscore-internal": SingleUnderscoreInternal,
    "heartbeats-case-insensitive": HeartbeatsCaseInsensitive,
    "upstream-strips-separators": UpstreamStripsSeparators,
    "format-idempotent": FormatIdempotent,
    "mm2-dash-prefix": Mm2DashPrefix,
    "identity-heartbeats-exact": IdentityHeartbeatsExact,
    "identity-upstream-none": IdentityUpstreamNone,
    "identity-source-unset-reads-name": IdentitySourceUnsetIsLocal,
}
for _name, _cls in BUGS.items():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
