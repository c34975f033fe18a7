"""MirrorMaker 2 replication-policy bugs, session 28's blind round ("blindms").

Each bug overrides one or two methods of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``), under
session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``connect/mirror-client`` sources
(``DefaultReplicationPolicy``, ``IdentityReplicationPolicy``, ``ReplicationPolicy.originalTopic``),
without the driver, the model or the mutant catalogue (the earlier modules read for their format
and bug names only). They aim at an ``originalTopic`` walk that path-compresses the upstream
memo, KIP-949's flag read as an INI boolean, Java's ``replace`` (every occurrence) standing in for
a prefix cut, and the identity policy's null guard translated as Python truthiness.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch15:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


class UpstreamPathCompressed(DefaultPolicy):
    """MM2-RULE-DEFAULT-UPSTREAM / MM2-LAW-REMOTE-UPSTREAM (``upstreamTopic(t)`` is one hop up:
    ``t.substring(source.length() + separator.length())``, whatever was asked before): the porter
    speeds up ``originalTopic`` (MirrorClient and ``isHeartbeatsTopic`` walk it over and over) with
    a per-policy memo of upstream names that ``upstreamTopic`` consults first, and, as in a
    union-find, compresses the path after each walk: every name met on the way is mapped straight
    to the original. ``originalTopic`` stays right; a later ``UpstreamTopic`` of a name two or more
    hops away that an earlier walk passed through (``OriginalTopic('A.B.orders')`` then
    ``UpstreamTopic('A.B.orders')``) answers ``orders`` where Kafka answers ``B.orders``. Needs, at
    one node, an ``OriginalTopic`` or ``IsHeartbeatsTopic`` of a 2+-hop name and then an
    ``UpstreamTopic`` of that name (or of a 2+-hop name inside its chain)."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.hops: dict[str, str] = {}

    def upstream_topic(self, topic: str) -> str | None:
        if topic in self.hops:
            return self.hops[topic]
        return super().upstream_topic(topic)

    def original_topic(self, topic: str) -> str:
        chain: list[str] = []
        while True:
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic:
                break
            chain.append(topic)
            topic = upstream
        for name in chain:
            self.hops[name] = topic
        return topic


INI_BOOLEANS = {"1": True, "yes": True, "true": True, "on": True,
                "0": False, "no": False, "false": False, "off": False}


class FlagParsedAsIniBoolean(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES / KIP-949 (``configure`` reads
    ``replication.policy.internal.topic.separator.enabled`` with ``Boolean.parseBoolean``: ``true``
    in any case is true, every other string false): the porter reads MirrorMaker's properties
    file with Python's ``configparser`` habits and parses the flag as its ``getboolean`` does
    (``ConfigParser.BOOLEAN_STATES``: ``1``/``yes``/``on``/``true`` true, ``0``/``no``/``off``/``false``
    false, anything else falling back to Kafka's default reading, false). Equal for every spelling
    of ``true`` / ``false`` and for values with blanks; a flag ``yes``, ``on`` or ``1`` (with a custom
    separator) keeps the separator in the internal names here where Kafka falls back to ``.``
    (``A_checkpoints_internal`` vs ``A.checkpoints.internal``). Needs a custom separator, a flag
    spelled ``yes``/``on``/``1``, then an internal name or test."""

    @staticmethod
    def parse_flag(value: str) -> bool:
        return INI_BOOLEANS.get(value.lower(), False)


class UpstreamReplaceAll(DefaultPolicy):
    """MM2-RULE-DEFAULT-UPSTREAM (``upstreamTopic(t)`` cuts the source and one separator off the
    front: ``t.substring(source.length() + separator.length())``): the porter writes the cut as
    Java's ``topic.replace(source + separator, "")`` — ``String.replace`` replaces *every*
    occurrence, not the first — here ``str.replace`` without a count. Equal whenever ``source +
    separator`` occurs once, at the front (every one-hop name of a clean alias, two hops through
    distinct aliases); differs when it recurs further in: a name that passed the same cluster
    twice (``A.B.A.orders`` -> ``B.orders``, Kafka ``B.A.orders``), a topic holding the prefix
    (``A.x.A.orders``), and with the empty source (``..orders``: every ``.`` removed, Kafka
    ``.orders``). Needs ``UpstreamTopic`` (or an ``originalTopic`` walk that it skews) of such a
    name."""

    def upstream_topic(self, topic: str) -> str | None:
        source = self.topic_source(topic)
        return None if source is None else topic.replace(source + self.sep, "")


class IdentityEmptyTopicNotHeartbeat(IdentityPolicy):
    """MM2-RULE-IDENTITY-* with KIP-1016 (``looksLikeHeartbeat(topic)`` is ``topic != null &&
    topic.endsWith(heartbeatsTopic())``; the empty topic ends with the empty name): the porter
    translates Java's null guard as Python truthiness, ``topic and topic.endswith(hb)``, so the
    empty topic never looks like a heartbeat. Equal for every non-empty topic and, with any
    non-empty heartbeats name, for ``""`` too (it ends with no such name); with the heartbeats
    name configured empty (KIP-1016's setting is an unvalidated string), Kafka hands ``""`` to the
    default policy (``TopicSource('')`` null, ``UpstreamTopic('')`` null, ``FormatRemoteTopic(a, '')``
    = ``a.``) where the port answers as identity (the configured alias, ``""``, ``""``). Needs the
    identity policy, an empty heartbeats name, and a call of the empty topic."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        return bool(topic) and topic.endswith(self.heartbeats_topic())


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "upstream-path-compressed": UpstreamPathCompressed,
    "flag-parsed-as-ini-boolean": FlagParsedAsIniBoolean,
    "upstream-replace-all": UpstreamReplaceAll,
    "identity-empty-topic-not-heartbeat": IdentityEmptyTopicNotHeartbeat,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
