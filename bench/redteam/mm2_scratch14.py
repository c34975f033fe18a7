"""MirrorMaker 2 replication-policy bugs, session 27's blind round ("blindms").

Each bug overrides one or two methods of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``), under
session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``connect/mirror-client`` sources
(``DefaultReplicationPolicy.configure``, ``IdentityReplicationPolicy``, ``MirrorClient``), without
the driver, the model or the mutant catalogue (the earlier modules read for their format and bug
names only). They aim at configuration values read the way ``ConfigDef`` reads them (trimmed)
where ``configure`` takes the raw map, a policy that remembers the names it formatted, and an
MM2-internal suffix test written with the split helper.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch14:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import HEARTBEATS_NAME, DefaultPolicy, IdentityPolicy, java_split
from redteam.mm2_scratch7 import Kip1016Target


class FlagValueTrimmed(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES / KIP-949 (``configure`` reads the flag with
    ``Boolean.parseBoolean(props.get(...).toString())``, the raw string: ``true`` in any case
    enables it, anything else — ``true `` with a blank, as a properties file keeps a trailing one —
    disables it): the porter knows that ``MirrorClientConfig`` declares the setting a
    ``ConfigDef.Type.BOOLEAN``, whose parser trims, and reads the value as
    ``value.strip().lower() == "true"``. Equal for every spelling of ``true`` / ``false`` without
    blanks; a flag ``true `` or `` TRUE`` (with a custom separator) keeps the separator in the
    internal names here, where Kafka falls back to ``.``. Needs a flag value with a blank at an
    edge, then an internal name or test (``CheckpointsTopic``, ``IsCheckpointsTopic`` ...)."""

    @staticmethod
    def parse_flag(value: str) -> bool:
        return value.strip().lower() == "true"


class HeartbeatsNameTrimmed(DefaultPolicy):
    """MM2-LAW-HEARTBEATS-NAME-VALID (KIP-1016's ``default.replication.policy.heartbeats.topic.name``
    is stored by ``DefaultReplicationPolicy.configure`` as given, ``(String) props.get(...)``; no
    validator, no trimming): the porter trims it, as ``ConfigDef`` trims a STRING value it parses.
    Equal for every name without blanks at its edges; with `` hb`` or ``hb `` configured,
    ``HeartbeatsTopic`` answers ``hb`` (Kafka: the name with its blank), ``IsHeartbeatsTopic('hb')``
    is true here and false in Kafka, and the identity policy's suffix test follows. Needs a
    heartbeats name with a blank at an edge, then ``HeartbeatsTopic`` or a heartbeats test."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        if HEARTBEATS_NAME in props:
            self.heartbeats = props[HEARTBEATS_NAME].strip()


class SourceRememberedFromFormat(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE / MM2-RULE-DEFAULT-UPSTREAM (``topicSource`` reads the name alone,
    with Java's split, whatever the policy formatted before): the porter speeds up the sync loop
    by remembering, per policy, the source alias of every name ``formatRemoteTopic`` built
    ("we know where we put it") and answers ``topicSource`` (and so ``upstreamTopic``) from that
    memo first. Equal for a clean alias and a topic with a non-separator tail; differs, after the
    format call, for an alias holding the separator (``formatRemoteTopic('us.west', 'orders')``,
    then ``TopicSource('us.west.orders')``: ``us.west`` here, ``us`` in Kafka) and for a topic
    that reads back as local (``formatRemoteTopic('A', '')`` = ``A.``, then ``TopicSource('A.')``:
    ``A`` here, null in Kafka). Needs a ``FormatRemoteTopic`` and, later at the same node, a read
    of its result."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.formatted: dict[str, str] = {}

    def format_remote_topic(self, alias: str, topic: str) -> str:
        name = super().format_remote_topic(alias, topic)
        self.formatted[name] = alias
        return name

    def topic_source(self, topic: str) -> str | None:
        if topic in self.formatted:
            return self.formatted[topic]
        return super().topic_source(topic)


class Mm2InternalLastPiece(DefaultPolicy):
    """MM2-RULE-INTERNAL-3X / MM2-RULE-INTERNAL-4X (``isMM2InternalTopic`` tests
    ``topic.endsWith(internalSuffix())``): the porter reuses the split helper ``topicSource``
    uses and tests "the last piece after the internal separator is ``internal``" (at least two
    pieces). Java's split drops trailing empty pieces, so a name with the suffix followed by
    separators only (``orders.internal.``, ``mm2-offsets.A.internal..``) is MM2-internal here
    (3.x; 4.x when it starts with ``mm2``) and so internal, where Kafka's ``endsWith`` says no.
    Equal for every name that does not end with the separator. Needs such a name asked of
    ``IsMM2InternalTopic`` / ``IsInternalTopic`` (or replicated by a sync)."""

    def ends_internal(self, topic: str) -> bool:
        pieces = java_split(topic, self.internal_sep())
        return len(pieces) >= 2 and pieces[-1] == "internal"

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return self.ends_internal(topic)
        return (topic.startswith("mm2") and self.ends_internal(topic)) or self.is_checkpoints_topic(topic)


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "flag-value-trimmed": FlagValueTrimmed,
    "heartbeats-name-trimmed": HeartbeatsNameTrimmed,
    "source-remembered-from-format": SourceRememberedFromFormat,
    "mm2-internal-last-piece": Mm2InternalLastPiece,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
