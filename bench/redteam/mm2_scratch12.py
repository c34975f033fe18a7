"""MirrorMaker 2 replication-policy bugs, session 21's blind round ("blindms").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``), under
session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md and Kafka's ``connect/mirror-client`` sources, without the driver, the
model or the mutant catalogue (the earlier modules read for their format and bug names only).
They aim at odd names and configurations: a multi-character separator read with Python's
``str.strip`` (a character set), a heartbeats name that itself contains the separator, KIP-949's
flag missed at one call site, and the identity policy's ``upstreamTopic`` null turned into the
name by a Python ``or``.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch12:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


class SourceStripCharSet(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (``topic.split(Pattern.quote(separator))``, trailing empty pieces
    dropped, fewer than two pieces -> null): the port emulates "trailing empty pieces dropped" as
    "the rest after the first separator is only separators", written ``rest.strip(sep)`` -- but
    Python's ``strip`` takes a CHARACTER SET, so with a multi-character separator a rest made of
    its characters in another arrangement counts as empty: with ``__``, ``A___`` (rest ``_``) has
    no source where Kafka reads ``A``; with ``-.``, ``A-..-`` (rest ``.-``) likewise. Equal for
    every one-character separator. Needs a multi-character separator and a name whose tail after
    the first separator is a run of its characters."""

    def topic_source(self, topic: str) -> str | None:
        if not self.sep:
            return super().topic_source(topic)
        head, found, rest = topic.partition(self.sep)
        return head if found and rest.strip(self.sep) else None


class HeartbeatsNameShortcut(DefaultPolicy):
    """MM2-RULE-DEFAULT-* (``heartbeatsTopic().equals(originalTopic(topic))``): the port
    adds a fast path "the heartbeats topic itself is a heartbeats topic" (``topic == hb or ...``),
    which Kafka does not have: with a configured heartbeats name that contains the separator
    (KIP-1016, e.g. ``hb.beats`` with ``.``), Kafka reads the name as remote (original ``beats``)
    and answers false for the name itself; the port answers true. Equal for every heartbeats
    name without the separator. Needs a configured heartbeats name containing the separator and
    ``IsHeartbeatsTopic`` of exactly that name."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return topic == self.heartbeats_topic() or super().is_heartbeats_topic(topic)


class Mm2InternalSuffixIgnoresFlag(DefaultPolicy):
    """MM2-RULE-INTERNAL-4X / KIP-949 (``topic.startsWith("mm2") && topic.endsWith(internalSuffix())``,
    the suffix through ``internalSeparator()``): the KIP-949 patch misses this call site, which
    keeps the topic separator (``topic.endswith(sep + "internal")``), so with a custom separator
    and the flag off the policy's own ``mm2-offset-syncs.A.internal`` is not MM2-internal (nor
    internal) under the 4.x rule, and ``mm2-offsets_A_internal`` is. Equal when the flag is on,
    the separator is ``.``, or the rule is 3.x. Needs a custom separator, the flag off, the 4.x
    rule and an offset-syncs (or other ``mm2``) name asked."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        if self.rule3x:
            return super().is_mm2_internal_topic(topic)
        return (topic.startswith("mm2") and topic.endswith(self.sep + "internal")) or self.is_checkpoints_topic(topic)


class IdentityUpstreamOrTopic(IdentityPolicy):
    """MM2-RULE-IDENTITY-* (``upstreamTopic``: ``looksLikeHeartbeat(topic) ? super.upstreamTopic(topic)
    : topic``): the port writes it ``super().upstream_topic(topic) or topic`` ("identity keeps the
    name"), so a heartbeat-looking name with no source (the local ``heartbeats`` itself, or
    ``myheartbeats``) has upstream ``heartbeats`` where Kafka answers null. ``originalTopic`` is
    unchanged (the walk stops at the fixed point either way). Needs the identity policy and
    ``UpstreamTopic`` of a heartbeat-looking name without the separator."""

    def upstream_topic(self, topic: str) -> str | None:
        if self.looks_like_heartbeat(topic):
            return DefaultPolicy.upstream_topic(self, topic) or topic
        return topic


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "source-strip-char-set": SourceStripCharSet,
    "heartbeats-name-shortcut": HeartbeatsNameShortcut,
    "mm2-internal-suffix-ignores-flag": Mm2InternalSuffixIgnoresFlag,
    "identity-upstream-or-topic": IdentityUpstreamOrTopic,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
