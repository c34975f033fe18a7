"""MirrorMaker 2 replication-policy bugs, session 18's blind round ("blindshare").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``'s
``DefaultPolicy``), under session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written
from spec/mm2.md, docs/adapter-guide.md and Kafka's ``connect/mirror-client`` sources, without
the driver, the model or the mutant catalogue (the earlier modules read for their bug names
only). They aim at the configuration rather than the names: a setting read only when another
one is present, a flag's absence read with ``Boolean.parseBoolean(null)``, a legacy heartbeats
name kept next to KIP-1016's, an alias the policy knows preferred over the split, and 3.x's
Connect suffix written as a regular expression with an unescaped ``.``.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch10:Correct
"""

from __future__ import annotations

import re
from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import INTERNAL_SEPARATOR, SEPARATOR, SOURCE_ALIAS, DefaultPolicy
from redteam.mm2_scratch7 import Kip1016Target


class HeartbeatsNameNeedsSeparator(DefaultPolicy):
    """MM2-RULE-DEFAULT-* with KIP-1016 (``default.replication.policy.heartbeats.topic.name`` is
    read by ``configure`` whatever else is set): the port reads the heartbeats-topic name inside
    the ``if (props.containsKey(SEPARATOR_CONFIG))`` block, next to KIP-949's flag, the other
    "newer" setting, so a MirrorMaker that names its heartbeats topic but keeps the default
    separator (no ``replication.policy.separator`` in its properties) gets ``heartbeats``. An
    implementer slips here because KIP-949's flag really is read only with a separator."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        if SEPARATOR not in props:
            self.heartbeats = "heartbeats"


class InternalFlagAbsentDisabled(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES (KIP-949: ``replication.policy.internal.topic.separator.
    enabled`` defaults to true): the flag is read as ``Boolean.parseBoolean((String) props.get(
    INTERNAL_TOPIC_SEPARATOR_ENABLED_CONFIG))`` without Kafka's ``containsKey`` guard, and
    ``parseBoolean(null)`` is false: a custom separator configured without the flag names
    checkpoints and offset-syncs topics with ``.`` (the pre-3.1 names) where Kafka uses the
    separator. An implementer slips here because the flag exists to restore the old names, so
    "off unless asked" reads like its default."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        if SEPARATOR in props and INTERNAL_SEPARATOR not in props:
            self.isep_enabled = False


class HeartbeatsLegacyNameKept(DefaultPolicy):
    """MM2-RULE-DEFAULT-* with KIP-1016 (``isHeartbeatsTopic`` = ``heartbeatsTopic().equals(
    originalTopic(topic))``): with a configured heartbeats-topic name, the policy still counts the
    old ``heartbeats`` (and its remote copies) as heartbeats topics, "for clusters upgraded while
    MirrorMaker still emits the old name". Kafka knows one name. An implementer slips here because
    a rename usually keeps the old name readable."""

    def is_heartbeats_topic(self, topic: str) -> bool:
        return super().is_heartbeats_topic(topic) or self.original_topic(topic) == "heartbeats"


class SourcePrefersOwnAlias(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (the first piece of Java's split, "Kafka does not validate" an alias
    holding the separator, MM2-LAW-ALIAS-SEPARATOR): ``topicSource`` first tests whether the name
    starts with the policy's own ``source.cluster.alias`` and the separator, and answers that
    alias whole ("we know this one"), so at the node ``us.west`` with separator ``.``,
    ``us.west.orders`` has source ``us.west`` and upstream ``orders`` where Kafka reads ``us`` and
    ``west.orders``. Equal wherever the alias holds no separator. An implementer slips here while
    "fixing" the dotted-alias hazard the docs describe."""

    def __init__(self, props: dict[str, str], rule3x: bool) -> None:
        super().__init__(props, rule3x)
        self.alias = props.get(SOURCE_ALIAS)

    def topic_source(self, topic: str) -> str | None:
        if self.alias and topic.startswith(self.alias + self.sep) and len(topic) > len(self.alias + self.sep):
            return self.alias
        return super().topic_source(topic)


_CONNECT_SUFFIX = re.compile(".internal$|-internal$")  # the "." is any character


class Rule3xConnectRegexDot(DefaultPolicy):
    """MM2-RULE-INTERNAL-3X (``topic.endsWith("-internal") || topic.endsWith(".internal")``): the
    Connect suffix test is a regular expression written from MM2's default topic filter
    (``.*[-.]internal``) as ``".internal$|-internal$"``, the ``.`` unescaped, so any character
    before ``internal`` matches: ``orders_internal``, ``A__internal`` or ``ordersXinternal`` are
    internal under 3.x. Equal for every name ending in ``.internal`` or ``-internal``, and under 4.x.
    An implementer slips here because ``.`` in the filter's character class is literal."""

    def is_internal_topic(self, topic: str) -> bool:
        if not self.rule3x:
            return super().is_internal_topic(topic)
        return (self.is_mm2_internal_topic(topic) or topic.startswith(("__", "."))
                or _CONNECT_SUFFIX.search(topic) is not None)


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "heartbeats-name-needs-separator": HeartbeatsNameNeedsSeparator,
    "internal-flag-absent-disabled": InternalFlagAbsentDisabled,
    "heartbeats-legacy-name-kept": HeartbeatsLegacyNameKept,
    "source-prefers-own-alias": SourcePrefersOwnAlias,
    "rule3x-connect-regex-dot": Rule3xConnectRegexDot,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    return policy.__name__ + "Target", {"default": policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
