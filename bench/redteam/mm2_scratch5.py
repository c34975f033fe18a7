"""MirrorMaker 2 replication policies, session 12's out-of-sample bugs ("outsider").

A fresh port of ``DefaultReplicationPolicy`` and ``IdentityReplicationPolicy`` written from
docs/adapter-guide.md, spec/mm2.md and spec/adapter-protocol.md and what Kafka's
``connect/mirror-client`` classes say (no kspec model, driver or earlier red-team policy code):
Java's ``Pattern.split`` emulated by hand, both internal-topic rules, the identity policy's
"looks like a heartbeat" suffix test. The bugs are the slips a Java or Python reimplementer makes:
``isHeartbeatsTopic`` as a suffix test, ``upstreamTopic`` re-joined from the split pieces, a
format that will not prefix an already-prefixed name, MM2's internal topics as a list of known
names, Kafka's hidden-topic prefix ``.`` confused with the separator, the identity policy's
``originalTopic`` as the name itself, KIP-949's flag read with Python truthiness, and the
identity policy's heartbeat test as "is the heartbeats topic or a remote copy of it".

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch5:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError
from redteam._targets import SelfNamed, register, subclass

SEPARATOR = "replication.policy.separator"
INTERNAL_SEPARATOR = "replication.policy.internal.topic.separator.enabled"
HEARTBEATS_NAME = "default.replication.policy.heartbeats.topic.name"
SOURCE_ALIAS = "source.cluster.alias"


def java_split(text: str, sep: str) -> list[str]:
    """``Pattern.compile(Pattern.quote(sep)).split(text)``: leftmost non-overlapping matches, a
    leading empty piece when the text starts with the separator, trailing empty pieces dropped,
    ``[text]`` when nothing matches."""
    if sep == "":
        pieces = list(text) if text else [""]
    else:
        pieces, start = [], 0
        while (at := text.find(sep, start)) >= 0:
            pieces.append(text[start:at])
            start = at + len(sep)
        if not pieces:
            return [text]
        pieces.append(text[start:])
    while pieces and pieces[-1] == "":
        pieces.pop()
    return pieces


class DefaultPolicy:
    """``DefaultReplicationPolicy`` (configure, the eleven methods), Kafka 4.x's internal rule
    unless ``rule3x``."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        self.rule3x = rule3x
        self.sep = "."
        self.isep_enabled = True
        if SEPARATOR in props:
            self.sep = props[SEPARATOR]
            if INTERNAL_SEPARATOR in props:
                self.isep_enabled = self.parse_flag(props[INTERNAL_SEPARATOR])
        self.heartbeats = props.get(HEARTBEATS_NAME, "heartbeats")

    @staticmethod
    def parse_flag(value: str) -> bool:
        return value.lower() == "true"  # Boolean.parseBoolean

    # -- names
    def internal_sep(self) -> str:
        return self.sep if self.isep_enabled else "."

    def internal_suffix(self) -> str:
        return self.internal_sep() + "internal"

    def checkpoints_suffix(self) -> str:
        return self.internal_sep() + "checkpoints" + self.internal_suffix()

    def format_remote_topic(self, alias: str, topic: str) -> str:
        return alias + self.sep + topic

    def heartbeats_topic(self) -> str:
        return self.heartbeats

    def checkpoints_topic(self, alias: str) -> str:
        return alias + self.checkpoints_suffix()

    def offset_syncs_topic(self, alias: str) -> str:
        return "mm2-offset-syncs" + self.internal_sep() + alias + self.internal_suffix()

    # -- reading names
    def split(self, topic: str) -> list[str]:
        return java_split(topic, self.sep)

    def topic_source(self, topic: str) -> str | None:
        parts = self.split(topic)
        return parts[0] if len(parts) >= 2 else None

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source) + len(self.sep):]

    def original_topic(self, topic: str) -> str:
        # ReplicationPolicy's default, iterative: stop at null or at a fixed point.
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                return topic
            topic = upstream

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self.heartbeats_topic() == self.original_topic(topic)

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self.checkpoints_suffix())

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return topic.endswith(self.internal_suffix())
        return (topic.startswith("mm2") and topic.endswith(self.internal_suffix())) or self.is_checkpoints_topic(topic)

    def is_internal_topic(self, topic: str) -> bool:
        kafka_internal = topic.startswith("__") or topic.startswith(".")
        connect = self.rule3x and (topic.endswith("-internal") or topic.endswith(".internal"))
        return self.is_mm2_internal_topic(topic) or kafka_internal or connect


class IdentityPolicy(DefaultPolicy):
    """``IdentityReplicationPolicy``: names kept, except topics that look like heartbeats."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.alias = props.get(SOURCE_ALIAS)

    def looks_like_heartbeat(self, topic: str) -> bool:
        return topic.endswith(self.heartbeats_topic())

    def format_remote_topic(self, alias: str, topic: str) -> str:
        return super().format_remote_topic(alias, topic) if self.looks_like_heartbeat(topic) else topic

    def topic_source(self, topic: str) -> str | None:
        return super().topic_source(topic) if self.looks_like_heartbeat(topic) else self.alias

    def upstream_topic(self, topic: str) -> str | None:
        return super().upstream_topic(topic) if self.looks_like_heartbeat(topic) else topic

    def original_topic(self, topic: str) -> str:
        return super().original_topic(topic) if self.looks_like_heartbeat(topic) else topic


# ---------------------------------------------------------------------------- bugs


class HeartbeatsBySuffix(DefaultPolicy):
    """``isHeartbeatsTopic`` as "is ``heartbeats`` or ends with separator + ``heartbeats``"
    (a remote copy's name, read without following the upstream chain). Differs where the split
    does not end at that separator: ``x___heartbeats`` with ``__`` is ``x`` + ``_heartbeats``."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        hb = self.heartbeats_topic()
        return topic == hb or topic.endswith(self.sep + hb)


class UpstreamRejoinPieces(DefaultPolicy):
    """``upstreamTopic`` re-joins the split pieces after the first (``String.join(sep,
    Arrays.copyOfRange(parts, 1, n))``): the trailing separators ``split`` dropped are lost
    (``A.orders.`` -> ``orders``)."""

    def upstream_topic(self, topic: str) -> str | None:
        parts = self.split(topic)
        return self.sep.join(parts[1:]) if len(parts) >= 2 else None


class FormatSkipsAlreadyPrefixed(DefaultPolicy):
    """``formatRemoteTopic`` does not prefix a name that already starts with ``alias + sep``
    ("it is already remote from there"): ``format('A', 'A.orders')`` is ``A.orders``."""

    def format_remote_topic(self, alias: str, topic: str) -> str:
        if topic.startswith(alias + self.sep):
            return topic
        return super().format_remote_topic(alias, topic)


class MM2InternalKnownNames(DefaultPolicy):
    """4.x's ``isMM2InternalTopic`` as MM2's known names: offset-syncs and checkpoints only,
    forgetting the Connect topics MM2 names ``mm2-offsets/-configs/-status.<alias>.internal``."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return super().is_mm2_internal_topic(topic)
        return ((topic.startswith("mm2-offset-syncs") and topic.endswith(self.internal_suffix()))
                or self.is_checkpoints_topic(topic))


class HiddenPrefixIsSeparator(DefaultPolicy):
    """Kafka's hidden-topic prefix ``.`` read as "starts with the separator": with ``_``,
    ``_orders`` is internal and ``.orders`` is not."""

    def is_internal_topic(self, topic: str) -> bool:
        connect = self.rule3x and (topic.endswith("-internal") or topic.endswith(".internal"))
        return (self.is_mm2_internal_topic(topic) or topic.startswith("__") or topic.startswith(self.sep)
                or connect)


class IdentityOriginalIsTopic(IdentityPolicy):
    """The identity policy's ``originalTopic`` is the name itself ("identity renames nothing"),
    heartbeats included: ``originalTopic('A.heartbeats')`` stays ``A.heartbeats``."""

    def original_topic(self, topic: str) -> str:
        return topic


class FlagTruthy(DefaultPolicy):
    """KIP-949's flag read with Python truthiness (``bool(value)``): any non-empty string,
    ``false`` included, enables the internal separator."""

    @staticmethod
    def parse_flag(value: str) -> bool:
        return bool(value)


class IdentityHeartbeatsExactName(IdentityPolicy):
    """The identity policy's "looks like a heartbeat" as "is the heartbeats topic or a remote
    copy of it" (``== heartbeats`` or ends with separator + ``heartbeats``) where Kafka tests the
    bare suffix: ``myheartbeats`` is kept as a plain identity topic."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        hb = self.heartbeats_topic()
        return topic == hb or topic.endswith(self.sep + hb)


# ---------------------------------------------------------------------------- equivalent


class EscapesOnlyDot(DefaultPolicy):
    """EQUIVALENT: a Java port's ``topic.split(sep.replace(".", "\\\\."))``: the separator used
    as a regular expression with only ``.`` escaped. Wrong for ``+``, ``|``, ``$`` … but a
    separator is part of topic names, whose characters are ``[a-zA-Z0-9._-]``: none of those
    but ``.`` is special in a regular expression, so no legal separator tells it apart."""

    def split(self, topic: str) -> list[str]:
        import re

        pattern = self.sep.replace(".", "\\.")
        pieces = re.split(pattern, topic) if pattern else [topic]
        while pieces and pieces[-1] == "":
            pieces.pop()
        return pieces if pieces else []


# ---------------------------------------------------------------------------- target


class PolicyNode:
    def __init__(self, policy: DefaultPolicy) -> None:
        self.policy = policy

    def call(self, inp: dict[str, Any]) -> Any:
        p, t = self.policy, inp["type"]
        if t == "FormatRemoteTopic":
            return p.format_remote_topic(inp["source"], inp["topic"])
        if t == "CheckpointsTopic":
            return p.checkpoints_topic(inp["alias"])
        if t == "OffsetSyncsTopic":
            return p.offset_syncs_topic(inp["alias"])
        if t == "HeartbeatsTopic":
            return p.heartbeats_topic()
        one = {"TopicSource": p.topic_source, "UpstreamTopic": p.upstream_topic, "OriginalTopic": p.original_topic,
               "IsHeartbeatsTopic": p.is_heartbeats_topic, "IsCheckpointsTopic": p.is_checkpoints_topic,
               "IsMM2InternalTopic": p.is_mm2_internal_topic, "IsInternalTopic": p.is_internal_topic}
        if t not in one:
            raise TargetError(f"unknown mm2 input {t!r}")
        return one[t](inp["topic"])

    def step(self, inp: dict[str, Any]) -> StepResult:
        return StepResult(outputs=[], observation={"result": self.call(inp)})

    def close(self) -> None:
        pass


class PolicyTarget(SelfNamed, Target):
    protocol = "mm2"
    default: type[DefaultPolicy] = DefaultPolicy
    identity: type[IdentityPolicy] = IdentityPolicy

    def start(self, node: Any, config: dict[str, Any]) -> PolicyNode:
        props = {str(k): str(v) for k, v in (config.get("props") or {}).items()}
        rule3x = config.get("internal_rule", "4.x") == "3.x"
        kind = self.identity if config.get("policy", "default") == "identity" else self.default
        return PolicyNode(kind(props, rule3x))


Correct = subclass(globals(), "Correct", PolicyTarget)
CORRECT = "Correct"

# bug name -> the policy class it replaces (default or identity slot).
BUGS: dict[str, type[DefaultPolicy]] = {
    "heartbeats-by-suffix": HeartbeatsBySuffix,
    "upstream-rejoin-pieces": UpstreamRejoinPieces,
    "format-skips-already-prefixed": FormatSkipsAlreadyPrefixed,
    "mm2-internal-known-names": MM2InternalKnownNames,
    "hidden-prefix-is-separator": HiddenPrefixIsSeparator,
    "identity-original-is-topic": IdentityOriginalIsTopic,
    "flag-truthy": FlagTruthy,
    "identity-heartbeats-exact-name": IdentityHeartbeatsExactName,
}
# Planted, but no configuration within the domain (legal separators) tells them apart: not measured.
EQUIVALENT: dict[str, type[DefaultPolicy]] = {"escapes-only-dot": EscapesOnlyDot}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), PolicyTarget, BUGS, _slot)
# The equivalent ones as targets too (``python:redteam.mm2_scratch5:EscapesOnlyDotTarget``), so the
# claim can be run; they are not in TARGETS (not measured as bugs).
EQUIVALENT_TARGETS = register(globals(), PolicyTarget, EQUIVALENT, _slot)
