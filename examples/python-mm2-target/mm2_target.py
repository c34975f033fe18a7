"""A MirrorMaker 2 replication policy as a ``python:`` conformance target, written from scratch.

Written from the adapter protocol (spec/adapter-protocol.md, section mm2) and Kafka's
``DefaultReplicationPolicy`` documentation only, the way a user would hold their own policy to
kspec's model: no kspec model code, only the two small types of the adapter API.

    PYTHONPATH=examples/python-mm2-target kspec conform mm2 --target python:mm2_target:PolicyTarget

It implements the default policy under Kafka 4.x's internal-topic rule only, and says so:
``supports()`` declines the identity-policy configurations before a run draws them, and
``start`` refuses a 3.x-rule configuration with a one-line error (a refusal at start), so a
run skips those configurations and counts them instead of ending with ``error``.

``NaivePolicyTarget`` is the same policy with the slip a Python port of Java most easily has:
``str.split`` keeps the empty pieces after a trailing separator, Java's ``String.split`` drops
them, so ``"orders."`` reads as a remote topic of cluster ``orders``. kspec catches it.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError

SEPARATOR = "replication.policy.separator"
INTERNAL_SEPARATOR = "replication.policy.internal.topic.separator.enabled"


class DefaultPolicy:
    """Remote topics are ``<source alias><separator><topic>``."""

    def __init__(self, props: dict[str, str]) -> None:
        self.sep = props.get(SEPARATOR, ".")
        # The flag only counts when a separator is configured (Kafka's configure()).
        enabled = props.get(INTERNAL_SEPARATOR, "true").lower() == "true" if SEPARATOR in props else True
        self.internal_sep = self.sep if enabled else "."

    def split(self, topic: str) -> list[str]:
        """Java's ``topic.split(Pattern.quote(sep))``: trailing empty pieces are dropped."""
        pieces = topic.split(self.sep)
        while len(pieces) > 1 and pieces[-1] == "":
            pieces.pop()
        return pieces if len(pieces) > 1 or pieces != [""] else [""]

    def format_remote_topic(self, source: str, topic: str) -> str:
        return source + self.sep + topic

    def topic_source(self, topic: str) -> str | None:
        pieces = self.split(topic)
        return pieces[0] if len(pieces) > 1 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source) + len(self.sep):]

    def original_topic(self, topic: str) -> str:
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream

    def heartbeats_topic(self) -> str:
        return "heartbeats"

    def checkpoints_topic(self, alias: str) -> str:
        s = self.internal_sep
        return f"{alias}{s}checkpoints{s}internal"

    def offset_syncs_topic(self, alias: str) -> str:
        s = self.internal_sep
        return f"mm2-offset-syncs{s}{alias}{s}internal"

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.original_topic(topic) == "heartbeats"

    def is_checkpoints_topic(self, topic: str) -> bool:
        s = self.internal_sep
        return topic.endswith(f"{s}checkpoints{s}internal")

    def is_mm2_internal_topic(self, topic: str) -> bool:
        # Kafka 4.x: MM2's own topics start with "mm2" and end with "<sep>internal", or are
        # checkpoints topics.
        ends = topic.endswith(self.internal_sep + "internal")
        return (topic.startswith("mm2") and ends) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        return self.is_mm2_internal_topic(topic) or topic.startswith("__") or topic.startswith(".")


class NaivePolicy(DefaultPolicy):
    """``split`` as Python's, not Java's (see the module docstring)."""

    def split(self, topic: str) -> list[str]:
        return topic.split(self.sep)


# The adapter protocol's inputs: type -> (method, argument fields).
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


class PolicyNode:
    """One configured policy (one node): each input is one call, the observation its answer."""

    def __init__(self, policy: DefaultPolicy) -> None:
        self.policy = policy

    def step(self, inp: dict[str, Any]) -> StepResult:
        if inp.get("type") not in CALLS:
            raise TargetError(f"unknown mm2 input {inp.get('type')!r}")
        method, fields = CALLS[inp["type"]]
        answer = getattr(self.policy, method)(*(inp[f] for f in fields))
        return StepResult(outputs=[], observation={"result": answer})

    def close(self) -> None:
        pass


class PolicyTarget(Target):
    """The target: ``kspec conform mm2 --target python:mm2_target:PolicyTarget``."""

    name = "python:mm2_target:PolicyTarget"
    protocol = "mm2"
    policy_class: type[DefaultPolicy] = DefaultPolicy

    def supports(self, config: dict[str, Any]) -> bool:
        """Declined before a run draws it: only the default policy is implemented."""
        return config.get("policy", "default") == "default"

    def start(self, node: str, config: dict[str, Any]) -> PolicyNode:
        if config.get("policy", "default") != "default":
            raise TargetError("only the default replication policy is implemented")
        if config.get("internal_rule", "4.x") != "4.x":
            # A refusal at start: the run skips this configuration and counts it.
            raise TargetError(f"internal-topic rule {config.get('internal_rule')} is not implemented (4.x only)")
        return PolicyNode(self.policy_class({str(k): str(v) for k, v in (config.get("props") or {}).items()}))

    def close(self) -> None:
        pass


class NaivePolicyTarget(PolicyTarget):
    """The same target with Python's ``str.split`` (caught: see the module docstring)."""

    name = "python:mm2_target:NaivePolicyTarget"
    policy_class = NaivePolicy
