"""MirrorMaker 2 replication-policy bugs, session 22's blind round ("blindms").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``), under
session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md and Kafka's ``connect/mirror-client`` sources, without the driver, the
model or the mutant catalogue (the earlier modules read for their format and bug names only).
They aim at the identity policy's heartbeat branch over deep or odd names, an ``upstreamTopic``
written apart from ``topicSource``, KIP-1016's setting read with a Python ``or``, and KIP-949's
migration read as "accept both spellings".

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch13:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import HEARTBEATS_NAME, DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


class IdentityUpstreamHeartbeatsName(IdentityPolicy):
    """MM2-RULE-IDENTITY-* ("such topics are handled exactly as the default policy does":
    ``upstreamTopic`` of a heartbeat-looking name is ``super.upstreamTopic``, the name after its
    first separator): the porter reasons that the identity policy renames only heartbeats, and
    only once per hop, so the upstream of a remote heartbeats topic "is" the heartbeats topic, and
    answers ``heartbeatsTopic()`` for every heartbeat-looking name with a source. Right for one hop
    of the real name (``A.heartbeats``); wrong two hops away (``A.B.heartbeats``: Kafka
    ``B.heartbeats``), for look-alikes (``A.myheartbeats``: Kafka ``myheartbeats``) and for a dotted
    alias's copy (``us.west.heartbeats`` with ``.``: Kafka ``west.heartbeats``). ``originalTopic``
    still ends at ``heartbeats`` for the real name. Needs the identity policy and
    ``UpstreamTopic`` of a heartbeat-looking name two hops away or with a longer last piece."""

    def upstream_topic(self, topic: str) -> str | None:
        if self.looks_like_heartbeat(topic):
            up = DefaultPolicy.upstream_topic(self, topic)
            return None if up is None else self.heartbeats_topic()
        return topic


class UpstreamSplitOnce(DefaultPolicy):
    """MM2-RULE-DEFAULT-UPSTREAM (``upstreamTopic`` = ``topic.substring(source.length() +
    separator.length())`` *after* ``topicSource`` answered non-null, so null for every local name):
    the porter writes ``upstreamTopic`` on its own as "what follows the first separator"
    (``topic.split(sep, 1)[1]``), without asking ``topicSource``; Java's ``split`` drops trailing
    empty pieces, so ``A.`` and ``A..`` are local in Kafka (null upstream) but have the upstreams
    ``""`` and ``.`` here, and ``originalTopic('A.')`` walks on to ``""``. ``topicSource`` is right.
    Equal for every name with a non-empty piece after its first separator. Needs ``UpstreamTopic``
    or ``OriginalTopic`` of a name whose tail after the first separator is empty or only
    separators (``orders.`` too)."""

    def upstream_topic(self, topic: str) -> str | None:
        if not self.sep:
            return super().upstream_topic(topic)
        pieces = topic.split(self.sep, 1)
        return pieces[1] if len(pieces) == 2 else None


class IdentityOriginalStopsAtNonHeartbeat(IdentityPolicy):
    """MM2-RULE-IDENTITY-* with KIP-1016 (``originalTopic`` is the interface's walk over the
    identity policy's own ``upstreamTopic``: a heartbeat-looking name's upstream goes through the
    default reading, whatever the upstream looks like): the porter writes the identity walk as
    "follow upstreams while the name looks like a heartbeat" (a non-heartbeat identity name is its
    own original), so it returns the last heartbeat-looking name. With the default name every
    upstream of a heartbeat-looking name ends with ``heartbeats`` too, so nothing differs; with a
    configured name that holds the separator (``hb.topic`` with ``.``), ``A.hb.topic`` walks to
    ``hb.topic`` and Kafka on to ``topic`` (source ``hb``), so ``originalTopic`` differs and
    ``isHeartbeatsTopic('A.hb.topic')`` is true here, false in Kafka. Needs the identity policy,
    KIP-1016's name holding the separator, and ``OriginalTopic`` / ``IsHeartbeatsTopic`` of it or
    a remote copy."""

    def original_topic(self, topic: str) -> str:
        if not self.looks_like_heartbeat(topic):
            return topic
        while True:
            up = self.upstream_topic(topic)
            if up is None or up == topic or not self.looks_like_heartbeat(up):
                return topic
            topic = up


class HeartbeatsNameEmptyDefault(DefaultPolicy):
    """MM2-RULE-DEFAULT-* with KIP-1016 (``default.replication.policy.heartbeats.topic.name`` is
    stored as given when present; spec/mm2.md MM2-LAW-HEARTBEATS-SEPARATOR: neither KIP-1016 nor
    ``MirrorClientConfig`` validates it): the porter reads it ``props.get(name) or "heartbeats"``,
    so a configured empty name falls back to ``heartbeats``: ``HeartbeatsTopic`` answers
    ``heartbeats`` where Kafka answers ``""``, and ``IsHeartbeatsTopic`` is true of ``heartbeats``
    (Kafka: false) and false of the empty name (Kafka: true, ``originalTopic("")`` is ``""``).
    Equal for every non-empty name. Needs the
    setting present and empty, then ``HeartbeatsTopic`` or a heartbeats test."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.heartbeats = props.get(HEARTBEATS_NAME) or "heartbeats"


class CheckpointsBothSpellings(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES / KIP-949 (``isCheckpointsTopic``: the name ends with
    ``internalSeparator() + "checkpoints" + internalSeparator() + "internal"``, one spelling, the
    one the flag selects): the porter reads KIP-949's motivation (3.1-3.5 renamed the checkpoints
    topics of users with a custom separator) as "recognise both spellings during the migration",
    and accepts the name written with the separator and the one written with ``.``. With a custom
    separator, the flag on, ``A.checkpoints.internal`` is a checkpoints topic here (so MM2-internal
    under 4.x) and not in Kafka; with the flag off, ``A_checkpoints_internal`` (``_``) or
    ``A__checkpoints__internal`` (``__``) likewise. Equal with ``.``. Needs a custom separator and
    the other spelling's checkpoints name asked."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        both = (self.sep + "checkpoints" + self.sep + "internal", ".checkpoints.internal")
        return topic.endswith(both)


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "identity-upstream-heartbeats-name": IdentityUpstreamHeartbeatsName,
    "upstream-split-once": UpstreamSplitOnce,
    "identity-original-stops-at-non-heartbeat": IdentityOriginalStopsAtNonHeartbeat,
    "heartbeats-name-empty-default": HeartbeatsNameEmptyDefault,
    "checkpoints-both-spellings": CheckpointsBothSpellings,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
