"""The ReplicationPolicy methods as a closed union of call messages, and how a policy answers one.

The conformance suite drives a policy at this level: one call is one input, and the answer
(a string, None or a boolean) is what the target must give back. Names follow Kafka's Java
methods (``FormatRemoteTopic`` for ``formatRemoteTopic``); fields name the arguments.
:class:`RecordingPolicy` wraps a policy and logs every call made through it, so any code that
takes a :class:`~kspec.model.mm2.policy.PolicyLike` (a law, ``is_cycle``, a sync of the
system model) can be turned into the sequence of calls it makes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from kspec.model.mm2.policy import PolicyLike

Answer = str | bool | None


@dataclass(frozen=True, slots=True)
class FormatRemoteTopic:
    source: str
    topic: str


@dataclass(frozen=True, slots=True)
class TopicSource:
    topic: str


@dataclass(frozen=True, slots=True)
class UpstreamTopic:
    topic: str


@dataclass(frozen=True, slots=True)
class OriginalTopic:
    topic: str


@dataclass(frozen=True, slots=True)
class HeartbeatsTopic:
    pass


@dataclass(frozen=True, slots=True)
class CheckpointsTopic:
    alias: str


@dataclass(frozen=True, slots=True)
class OffsetSyncsTopic:
    alias: str


@dataclass(frozen=True, slots=True)
class IsHeartbeatsTopic:
    topic: str


@dataclass(frozen=True, slots=True)
class IsCheckpointsTopic:
    topic: str


@dataclass(frozen=True, slots=True)
class IsMM2InternalTopic:
    topic: str


@dataclass(frozen=True, slots=True)
class IsInternalTopic:
    topic: str


Call = (FormatRemoteTopic | TopicSource | UpstreamTopic | OriginalTopic | HeartbeatsTopic | CheckpointsTopic
        | OffsetSyncsTopic | IsHeartbeatsTopic | IsCheckpointsTopic | IsMM2InternalTopic | IsInternalTopic)

CALL_TYPES: tuple[type, ...] = (FormatRemoteTopic, TopicSource, UpstreamTopic, OriginalTopic, HeartbeatsTopic,
                                CheckpointsTopic, OffsetSyncsTopic, IsHeartbeatsTopic, IsCheckpointsTopic,
                                IsMM2InternalTopic, IsInternalTopic)

# The calls that take one topic, in the order the conformance driver offers them.
TOPIC_QUERIES: tuple[Callable[[str], Call], ...] = (TopicSource, UpstreamTopic, OriginalTopic, IsInternalTopic,
                                                    IsHeartbeatsTopic, IsCheckpointsTopic, IsMM2InternalTopic)


def answer(policy: PolicyLike, call: Call) -> Answer:
    """What ``policy`` answers to ``call`` (its snake_case method with the call's fields)."""
    match call:
        case FormatRemoteTopic(source, topic):
            return policy.format_remote_topic(source, topic)
        case TopicSource(topic):
            return policy.topic_source(topic)
        case UpstreamTopic(topic):
            return policy.upstream_topic(topic)
        case OriginalTopic(topic):
            return policy.original_topic(topic)
        case HeartbeatsTopic():
            return policy.heartbeats_topic()
        case CheckpointsTopic(alias):
            return policy.checkpoints_topic(alias)
        case OffsetSyncsTopic(alias):
            return policy.offset_syncs_topic(alias)
        case IsHeartbeatsTopic(topic):
            return policy.is_heartbeats_topic(topic)
        case IsCheckpointsTopic(topic):
            return policy.is_checkpoints_topic(topic)
        case IsMM2InternalTopic(topic):
            return policy.is_mm2_internal_topic(topic)
        case IsInternalTopic(topic):
            return policy.is_internal_topic(topic)
    raise TypeError(f"not a ReplicationPolicy call: {call!r}")


T = TypeVar("T")


class Unanswered(LookupError):
    """A :class:`AnsweringPolicy` was asked a call it has no answer for."""


class _Dispatch:
    """PolicyLike's methods, each turned into one :class:`Call` handed to ``_ask``."""

    def _ask(self, call: Call) -> Answer:
        raise NotImplementedError

    # An answer of the wrong type (a target's null where a string is promised) cannot be fed
    # to the code asking: it is reported as unanswered, and the answer itself as a divergence.
    def _answer(self, call: Call, kind: type[T]) -> T:
        result = self._ask(call)
        if not isinstance(result, kind):
            raise Unanswered(call)
        return result

    def _opt(self, call: Call) -> str | None:
        result = self._ask(call)
        if result is not None and not isinstance(result, str):
            raise Unanswered(call)
        return result

    def format_remote_topic(self, source_cluster_alias: str, topic: str) -> str:
        return self._answer(FormatRemoteTopic(source_cluster_alias, topic), str)

    def topic_source(self, topic: str) -> str | None:
        return self._opt(TopicSource(topic))

    def upstream_topic(self, topic: str) -> str | None:
        return self._opt(UpstreamTopic(topic))

    def original_topic(self, topic: str) -> str:
        return self._answer(OriginalTopic(topic), str)

    def heartbeats_topic(self) -> str:
        return self._answer(HeartbeatsTopic(), str)

    def offset_syncs_topic(self, cluster_alias: str) -> str:
        return self._answer(OffsetSyncsTopic(cluster_alias), str)

    def checkpoints_topic(self, cluster_alias: str) -> str:
        return self._answer(CheckpointsTopic(cluster_alias), str)

    def is_heartbeats_topic(self, topic: str) -> bool:
        return self._answer(IsHeartbeatsTopic(topic), bool)

    def is_checkpoints_topic(self, topic: str) -> bool:
        return self._answer(IsCheckpointsTopic(topic), bool)

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return self._answer(IsMM2InternalTopic(topic), bool)

    def is_internal_topic(self, topic: str) -> bool:
        return self._answer(IsInternalTopic(topic), bool)


class RecordingPolicy(_Dispatch):
    """``policy`` with every call made through it appended to ``log`` as ``(node, call, answer)``."""

    def __init__(self, policy: PolicyLike, node: str, log: list[tuple[str, Call, Answer]]) -> None:
        self.policy = policy
        self.node = node
        self.log = log

    def _ask(self, call: Call) -> Answer:
        result = answer(self.policy, call)
        self.log.append((self.node, call, result))
        return result


class AnsweringPolicy(_Dispatch):
    """A policy that answers only from ``answers`` (another policy's recorded answers, keyed by
    ``(node, call)``) and raises :class:`Unanswered` for anything else."""

    def __init__(self, node: str, answers: dict[tuple[str, Call], Answer]) -> None:
        self.node = node
        self.answers = answers

    def _ask(self, call: Call) -> Answer:
        key = (self.node, call)
        if key not in self.answers:
            raise Unanswered(call)
        return self.answers[key]
