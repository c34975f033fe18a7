"""MirrorMaker 2 replication-policy bugs, session 17's blind round ("blindshare").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``'s
``DefaultPolicy`` and ``IdentityPolicy``), under session 15's KIP-1016 target
(``mm2_scratch7.Kip1016Target``), written from spec/mm2.md, docs/adapter-guide.md and Kafka's
``connect/mirror-client`` sources, without the driver, the model or the mutant catalogue (the
earlier modules read for their bug names only). They aim at names and settings the earlier
rounds left alone: the separator ``-`` (legal in topic names, and then MM2's own internal suffix
is ``-internal``), characters outside the Basic Multilingual Plane, a run of the separator after
the source, a source that is the empty string several hops deep, and state kept across runs.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch9:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


class ConnectSuffixEarlyExit(DefaultPolicy):
    """MM2-RULE-INTERNAL-4X (KAFKA-17200: a user topic ``orders-internal`` is replicated; MM2's own
    names still are internal): the 4.x ``isInternalTopic`` returns false early for a name ending
    with ``-internal`` that does not start with ``mm2`` (after the ``__`` / ``.`` prefixes),
    "the KAFKA-17200 case" written as its own branch. With the separator ``-`` (legal in topic
    names) and KIP-949's internal separator on, MM2's checkpoints topic ``A-checkpoints-internal``
    ends with ``-internal`` too, so it is no longer internal and would be replicated. An
    implementer slips here because with ``.``, ``_`` or ``__`` no MM2 name ends with ``-internal``."""

    def is_internal_topic(self, topic: str) -> bool:
        if self.rule3x or topic.startswith(("__", ".")):
            return super().is_internal_topic(topic)
        if topic.endswith("-internal") and not topic.startswith("mm2"):
            return False
        return super().is_internal_topic(topic)


def _java_length(text: str) -> int:
    """``String.length()``: UTF-16 code units (a supplementary character counts two)."""
    return len(text.encode("utf-16-le")) // 2


class UpstreamUtf16Length(DefaultPolicy):
    """MM2-RULE-DEFAULT-UPSTREAM (``t.substring(source.length() + sep.length())``): the port keeps
    Java's lengths (``String.length()``, UTF-16 code units, through a ``java_length`` helper) but
    slices a Python string (code points), so a source holding a character outside the Basic
    Multilingual Plane (an emoji alias, ``🚀.orders``) cuts one code point too far per such
    character. Equal for every BMP name, accented ones too. An implementer slips here by porting
    the arithmetic literally."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[_java_length(source) + _java_length(self.sep):]


class OriginalCacheClassAttribute(DefaultPolicy):
    """MM2-RULE (ReplicationPolicy.originalTopic): ``originalTopic`` memoised in a dict declared on
    the class (``_originals: dict[str, str] = {}``, Python's shared mutable class attribute), keyed
    by the topic alone, so every policy instance shares it: a policy configured with another
    separator or internal rule (the next MirrorMaker configuration, the next run) answers the name
    as the first one read it (``A.orders`` is ``orders`` with ``.``, itself with ``_``). Within one
    configuration every answer is right. An implementer slips here because the cache looks like an
    instance field and MM2 asks the same names again and again."""

    _originals: dict[str, str] = {}

    def original_topic(self, topic: str) -> str:
        if topic not in self._originals:
            self._originals[topic] = super().original_topic(topic)
        return self._originals[topic]


class OriginalStopsAtEmptySource(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (``".a"`` has source ``""``), ReplicationPolicy.originalTopic (follow
    ``upstreamTopic`` until null or a fixed point): the walk stops at a name whose source is the
    empty string ("no cluster has an empty alias: that is a local name starting with the
    separator"), so ``A..orders`` answers ``.orders`` where Kafka peels on to ``orders``, and
    ``A..heartbeats`` is not a heartbeats topic. ``topicSource`` and ``upstreamTopic`` keep Kafka's
    answers. An implementer slips here by guarding the loop, not the split."""

    def original_topic(self, topic: str) -> str:
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic or self.topic_source(upstream) == "":
                return upstream if upstream is not None and upstream != topic else topic
            topic = upstream


class UpstreamLstripSeparator(DefaultPolicy):
    """MM2-RULE-DEFAULT-UPSTREAM (cut exactly ``source`` + one separator): ``upstreamTopic`` drops the
    source and then ``lstrip(sep)``, which strips every leading separator *character*, so with a
    run of separators after the source (``A..orders``, ``A___x`` with ``__``) the upstream name
    loses its own leading separators (``orders`` for Kafka's ``.orders``). An implementer slips here
    because ``lstrip`` reads as "remove that prefix" (Python's ``removeprefix``)."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic[len(source):].lstrip(self.sep)


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "connect-suffix-early-exit": ConnectSuffixEarlyExit,
    "upstream-utf16-length": UpstreamUtf16Length,
    "original-cache-class-attribute": OriginalCacheClassAttribute,
    "original-stops-at-empty-source": OriginalStopsAtEmptySource,
    "upstream-lstrip-separator": UpstreamLstripSeparator,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
