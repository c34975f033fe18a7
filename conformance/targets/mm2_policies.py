"""Replication policies as a user would write them: plain classes, Kafka's method names in snake_case.

These are conformance targets for the ``mm2`` protocol, written apart from the model
(``kspec.model.mm2``) so that checking one against the other means something: the naming is
done with regular expressions here, as Java's ``Pattern.split`` does it, and with string
slicing in the model. ``DefaultPolicy`` and ``IdentityPolicy`` must meet the laws of
spec/mm2.md (the identity policy all but the ones Kafka's identity policy cannot meet); each
mutant breaks at least one.

A policy is configured as Kafka's are: ``configure(props)`` with Kafka's property names, or
keyword arguments to the constructor. ``internal_rule`` ("4.x", the default, or "3.x") is the
Kafka release line whose ``isInternalTopic`` the class follows (spec/mm2.md,
MM2-RULE-INTERNAL-*): Kafka has no property for it, the release decides.

:class:`PolicyTarget` puts policy classes behind the conformance interface (``--target
python:MODULE:FUNCTION`` with a function returning one; the wire format is
spec/adapter-protocol.md's mm2 section): each node is one configured policy, each input one
call, the observation its answer ``{"result": ...}``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError

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
                 heartbeats_topic_name: str = "heartbeats", internal_rule: str = "4.x") -> None:
        self.separator = separator
        self.internal_topic_separator_enabled = internal_topic_separator_enabled
        self.heartbeats_topic_name = heartbeats_topic_name
        self.internal_rule = internal_rule

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
        suffix = f"{self._sep()}internal"
        if self.internal_rule == "3.x":
            return topic.endswith(suffix)
        # Kafka 4.0: MM2's own names start with "mm2" (offset-syncs, Connect's mm2-offsets ...),
        # or are checkpoints topics.
        return (topic.startswith("mm2") and topic.endswith(suffix)) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        # Kafka 4.0 (KAFKA-17200) dropped Connect's "-internal"/".internal" names from the rule.
        connect_style = self.internal_rule == "3.x" and topic.endswith(("-internal", ".internal"))
        return self.is_mm2_internal_topic(topic) or topic.startswith(("__", ".")) or connect_style


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
    """Mutant: only ``__`` and ``.`` prefixes are internal; MM2's ``*.internal`` topics replicate."""

    def is_internal_topic(self, topic: str) -> bool:
        return topic.startswith(("__", "."))


class DottedAliasPolicy(DefaultPolicy):
    """Mutant: ``topic_source`` splits on a period whatever the separator, so an alias like
    ``us.west`` (legal with separator ``_``) comes back as ``us``."""

    def topic_source(self, topic: str) -> str | None:
        if self.separator not in topic:
            return None
        return topic.split(".")[0]


class HardcodedSeparatorPolicy(DefaultPolicy):
    """Mutant: ``format_remote_topic`` joins with "." whatever ``replication.policy.separator``
    says, so with ``_`` a remote topic is not read back as remote."""

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return f"{source_cluster_alias}.{topic}"


class LastSeparatorPolicy(DefaultPolicy):
    """Mutant: ``topic_source`` splits at the *last* separator: one hop reads back, but
    ``B.A.orders`` comes from ``B.A`` and a topic with the separator in its name is misread."""

    def topic_source(self, topic: str) -> str | None:
        head, sep, tail = topic.rpartition(self.separator)
        return head if sep and head and tail else None


class InternalNamesIgnoreSeparatorPolicy(DefaultPolicy):
    """Mutant: checkpoints and offset-syncs topics keep "." while ``is_mm2_internal_topic``
    follows the configured separator (the KIP-690 / KIP-949 renaming half done), so with ``_``
    MM2's own topics are no longer internal and get replicated."""

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return f"mm2-offset-syncs.{cluster_alias}.internal"

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return f"{cluster_alias}.checkpoints.internal"


class ConnectNamesInternalPolicy(DefaultPolicy):
    """Mutant: ``is_internal_topic`` keeps Kafka 3.x's rule on 4.x (KAFKA-17200 missed): a user
    topic named ``orders-internal`` is never replicated."""

    def is_internal_topic(self, topic: str) -> bool:
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or topic.endswith(("-internal", ".internal")))


REFERENCE = {"default": DefaultPolicy, "identity": IdentityPolicy}
MUTANTS = {
    "upstream-self": UpstreamSelfPolicy,
    "internal-replicable": InternalReplicablePolicy,
    "dotted-alias": DottedAliasPolicy,
    "hardcoded-separator": HardcodedSeparatorPolicy,
    "last-separator": LastSeparatorPolicy,
    "internal-names-ignore-separator": InternalNamesIgnoreSeparatorPolicy,
    "connect-names-internal": ConnectNamesInternalPolicy,
}


# -- the conformance interface ----------------------------------------------------------------

# Input type -> (method, argument fields): spec/adapter-protocol.md's mm2 inputs.
CALLS: dict[str, tuple[str, tuple[str, ...]]] = {
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


def call_args(inp: JSON) -> tuple[str, list[str]]:
    """The method name and string arguments of one mm2 input; TargetError when malformed."""
    if not isinstance(inp, dict) or inp.get("type") not in CALLS:
        kind = inp.get("type") if isinstance(inp, dict) else type(inp).__name__
        raise TargetError(f"unknown mm2 input {kind!r} (known: {', '.join(CALLS)})")
    method, fields = CALLS[inp["type"]]
    args = [inp.get(f) for f in fields]
    if not all(isinstance(a, str) for a in args):
        raise TargetError(f"mm2 input {inp['type']}: {', '.join(fields)} must be strings, got {inp!r:.120}")
    return method, [str(a) for a in args]


class PolicyInstance:
    """One configured policy: an input is a call, the observation its answer."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy

    def step(self, inp: JSON) -> StepResult:
        method, args = call_args(inp)
        return StepResult([], {"result": getattr(self.policy, method)(*args)})

    def close(self) -> None:
        pass


class PolicyTarget(Target):
    """Policy classes as an mm2 target. ``classes`` maps the configurations' policy kinds
    (``default``, ``identity``) to classes; a target without a kind does not take the runs
    configured with it (:meth:`supports`). Node config: ``{"policy": kind, "props": {Kafka
    property: value}, "internal_rule": "4.x" | "3.x"}``."""

    protocol = "mm2"
    # It reads KIP-1016's heartbeats-topic name (MM2-DRIVE-HEARTBEATS-NAME; opt-in, since a
    # policy written before the setting, and Kafka before it, keep ``heartbeats``).
    # It reads its properties as Kafka's configure does, an absent one at its default
    # (MM2-DRIVE-DEFAULT-PROPS; opt-in, since an adapter may index the properties it expects).
    model_config: Mapping[str, JSON] = MappingProxyType({"heartbeats_topic_name": True, "default_props": True})

    def __init__(self, name: str = "reference", classes: Mapping[str, type] | None = None) -> None:
        self.name = name
        self.classes = dict(REFERENCE if classes is None else classes)

    def supports(self, config: Mapping[str, JSON]) -> bool:
        """Whether this target has a class for the configuration's policy kind."""
        return str(config.get("policy", "default")) in self.classes

    def start(self, node: Any, config: dict[str, JSON]) -> PolicyInstance:
        kind = str(config.get("policy", "default"))
        cls = self.classes.get(kind)
        if cls is None:
            raise TargetError(f"{self.name}: no {kind} policy (this target has: {', '.join(self.classes)})")
        policy = cls(internal_rule=str(config.get("internal_rule", "4.x")))
        policy.configure({str(k): v for k, v in dict(config.get("props") or {}).items()})
        return PolicyInstance(policy)

    def close(self) -> None:
        pass
