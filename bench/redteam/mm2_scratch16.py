"""MirrorMaker 2 replication-policy bugs, session 29's blind round ("blindmm2").

Each bug overrides one or two methods of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` / ``IdentityReplicationPolicy`` (``redteam.mm2_scratch5``), under
session 15's KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``connect/mirror-client`` sources
(``DefaultReplicationPolicy``, ``IdentityReplicationPolicy``, ``ReplicationPolicy`` at 3.9 and
4.x, KAFKA-17200) and ``MirrorMakerConfig`` (the Connect topic names MM2 gives its workers),
without the driver, the model or the mutant catalogue (the earlier modules read for their format
and bug names only). They aim at inputs a careful port still gets wrong: Java's split emulated
with a slip that only several trailing separators or a multi-character separator show, suffix
tests written as unescaped regular expressions (``.`` is the one metacharacter topic names
allow), the 3.x/4.x internal rules mixed up for names starting with ``mm2``, and KIP-949's
internal separator leaking into KIP-1016's heartbeats name.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch16:Correct

BEFORE (blind, ``PYTHONPATH=bench nice -n 10 python bench/redteam_power.py --seeds 2 --protocols mm2
--modules mm2_scratch16``; caught = diverges at seeds 0 and 1; runs to detection, median/max):

    split-trailing-empty-once           2/2   4, 4
    split-overlapping-advance           2/2   4, 4
    rule3x-mm2-prefix-early-return      2/2   24, 24
    mm2-connect-names-dotted            0/2   escaped
    identity-heartbeat-regex-suffix     2/2   93, 93
    heartbeats-name-follows-separator   0/2   escaped
    checkpoints-suffix-regex-unescaped  2/2   10, 10

caught at every seed: 5/7.

AFTER (phase 2, same command with ``--only BUG``):

    mm2-connect-names-dotted            2/2   2, 2   (MM2-DRIVE-CONNECT-WORKER-NAMES; not reached
                                                      before: no query name was one of
                                                      MirrorMakerConfig's dotted worker topics;
                                                      mutant mm2-connect-worker-names-internal)
    heartbeats-name-follows-separator   2/2   11, 11 (MM2-DRIVE-DOTTED-HEARTBEATS-NAME; not
                                                      reached before: KIP-1016's name was configured
                                                      in the 4.x "." configurations only, where the
                                                      internal separator is "." too; mutant
                                                      mm2-heartbeats-name-internal-separator)

caught at every seed after: 7/7.
"""

from __future__ import annotations

import re
from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy, IdentityPolicy
from redteam.mm2_scratch7 import Kip1016Target


def split_pop_once(text: str, sep: str) -> list[str]:
    """Java's split as the porter remembers it: "a trailing separator leaves one empty piece,
    drop it" -- one ``pop``, where ``Pattern.split`` drops *every* trailing empty piece."""
    pieces = text.split(sep)
    if len(pieces) > 1 and pieces[-1] == "":
        pieces.pop()
    return pieces


class SplitTrailingEmptyOnce(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (``topicSource`` = first piece of ``Pattern.split``, which removes
    *all* trailing empty strings; fewer than two pieces -> null): the porter emulates the trailing
    removal with a single ``pop``. Equal for every name with at most one separator at its end
    (``A.`` -> ``["A"]`` -> null, ``A.orders`` -> ``A``); differs once two or more separators end the
    name: ``A..`` (Kafka ``["A"]``, null; here ``["A", ""]``, source ``A``, upstream ``.``), ``..``
    (Kafka ``[]``, null; here ``["", ""]``, source ``""``), ``A____`` with ``__``. ``upstreamTopic``
    and ``originalTopic`` follow. Needs a one-topic call of a name ending in a doubled separator
    (a remote copy of a topic that ends with the separator: ``format('A', 'x.')`` = ``A.x.`` is
    fine, ``format('A', '.')`` = ``A..`` is not)."""

    def split(self, topic: str) -> list[str]:
        return split_pop_once(topic, self.sep)


class SplitOverlappingAdvance(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (``Pattern.split`` takes leftmost *non-overlapping* matches): the
    porter's hand-written split loop resumes the search one character after a match
    (``start = at + 1``) instead of after the separator (``at + len(sep)``). Identical for every
    one-character separator; with ``__`` or ``-.`` a match's tail can start the next "piece", so
    a name whose rest after the first separator is only separator characters keeps a non-empty
    last piece: ``A__`` with ``__`` (Kafka ``["A"]``, null) splits here into ``["A", "_"]`` -> source
    ``A``, upstream ``""``; ``A-.`` with ``-.`` into ``["A", "."]``; ``A____`` into ``["A", "", "", "_"]``.
    Every name with a non-separator character after the first separator splits to the same first
    piece. Needs a multi-character separator and a name that ends right after (runs of) it."""

    def split(self, topic: str) -> list[str]:
        sep = self.sep
        pieces, start = [], 0
        while (at := topic.find(sep, start)) >= 0:
            pieces.append(topic[start:at])
            start = at + 1
        if not pieces:
            return [topic]
        pieces.append(topic[start:])
        while pieces and pieces[-1] == "":
            pieces.pop()
        return pieces


class Rule3xMm2PrefixEarlyReturn(DefaultPolicy):
    """MM2-RULE-INTERNAL-3X (``isInternalTopic`` = ``isMM2InternalTopic(t) || t.startsWith("__") ||
    t.startsWith(".") || t.endsWith("-internal") || t.endsWith(".internal")``): the porter, having
    read KAFKA-17200's 4.x ``isMM2InternalTopic`` ("starts with ``mm2``"), short-cuts
    ``isInternalTopic`` for every name starting with ``mm2``: "MM2's names are MM2's business",
    ``return self.is_mm2_internal_topic(t)``. Under 4.x it is equivalent (a name starting with
    ``mm2`` starts with neither ``__`` nor ``.``). Under 3.x a name starting with ``mm2`` that ends
    with Connect's ``-internal`` / ``.internal`` but not with the MM2 suffix (separator +
    ``internal``) loses its Connect reading: ``mm2-orders-internal`` with ``.``, MirrorMaker's own
    worker topics ``mm2-offsets.A.internal`` / ``mm2-configs.A.internal`` with ``_`` (internal in
    Kafka 3.x by the Connect suffix, not internal here). Needs the 3.x rule, a custom separator (or
    a ``-internal`` name) and an ``IsInternalTopic`` of such a name."""

    def is_internal_topic(self, topic: str) -> bool:
        if self.rule3x and topic.startswith("mm2"):
            return self.is_mm2_internal_topic(topic)
        return super().is_internal_topic(topic)


MM2_CONNECT_TOPIC = re.compile(r"mm2-(offsets|configs|status)\..*\.internal")


class Mm2ConnectNamesDotted(DefaultPolicy):
    """MM2-RULE-INTERNAL-4X (``isMM2InternalTopic`` = ``t.startsWith("mm2") &&
    t.endsWith(internalSuffix()) || isCheckpointsTopic(t)``, the suffix built with the internal
    separator): the porter reads ``MirrorMakerConfig``, which names MirrorMaker's Connect worker
    topics with dots whatever the separator (``"mm2-offsets." + alias + ".internal"``), and adds
    those names to 4.x's MM2-internal test so that they are never replicated with a custom
    separator either. Kafka 4.x does not: with ``_`` (internal separator on) or ``-``,
    ``mm2-offsets.A.internal`` ends with neither ``_internal`` nor ``-internal``, so it is neither
    MM2-internal nor internal (KAFKA-17200 lets it replicate). Equal with ``.``, with the internal
    separator off, and under 3.x (the Connect suffix makes them internal anyway; only
    ``IsMM2InternalTopic`` would differ there, with ``_``). Needs a custom separator whose
    internal separator is on and a dotted MirrorMaker Connect name."""

    def is_mm2_internal_topic(self, topic: str) -> bool:
        return super().is_mm2_internal_topic(topic) or MM2_CONNECT_TOPIC.fullmatch(topic) is not None


class IdentityHeartbeatRegexSuffix(IdentityPolicy):
    """MM2-RULE-IDENTITY-* with KIP-1016 (``looksLikeHeartbeat(t)`` = ``t.endsWith(heartbeatsTopic())``,
    a literal suffix): the porter writes the suffix test as a regular expression,
    ``re.search(hb + "$", t)``, without escaping the configured name. Equal for ``heartbeats`` and
    every name without a ``.``; a configured name holding ``.`` matches any character there:
    with ``hb.topic``, ``hb-topic`` and ``A.hb_topic`` look like heartbeats here (the default
    policy's answers: ``TopicSource('hb-topic')`` null, ``FormatRemoteTopic('A', 'hb-topic')`` =
    ``A.hb-topic``) and are plain identity names in Kafka (the node's alias, ``hb-topic``); a name
    ``.`` (the separator alone) makes every non-empty topic look like one. Needs the identity
    policy, a KIP-1016 name holding ``.`` and a topic that differs from it at the dot."""

    def looks_like_heartbeat(self, topic: str) -> bool:
        return re.search(self.heartbeats_topic() + "$", topic) is not None


class HeartbeatsNameFollowsSeparator(DefaultPolicy):
    """MM2-LAW-HEARTBEATS-NAME-VALID / KIP-1016 (``heartbeatsTopic()`` is the configured name as
    given; KIP-949's ``replication.policy.internal.topic.separator.enabled`` renames the
    checkpoints and offset-syncs topics only): the porter takes the heartbeats topic for one of
    MM2's internal topics (KIP-690 lists it with them) and spells a configured dotted name with
    the internal separator, as it spells ``mm2-offset-syncs.A.internal``: ``hb.topic`` with ``_``
    (flag on) is ``hb_topic``. Equal for ``heartbeats`` and for every name without ``.``, and for
    every name with the separator ``.`` or the internal separator off. Needs a KIP-1016 name
    holding ``.``, a custom separator with the internal separator on, and ``HeartbeatsTopic`` or a
    heartbeats test."""

    def heartbeats_topic(self) -> str:
        return self.heartbeats.replace(".", self.internal_sep())


class CheckpointsSuffixRegexUnescaped(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES (``isCheckpointsTopic(t)`` = ``t.endsWith(checkpointsTopicSuffix())``,
    literal): the porter tests the suffix with ``re.search(suffix + "$", t)``, the suffix built
    from the (internal) separator and not escaped. With ``_``, ``__`` or ``-`` (flag on) the suffix
    has no metacharacter; with ``.`` (or the internal separator off: ``.checkpoints.internal``)
    each ``.`` matches any character, so ``A-checkpoints-internal``, ``A_checkpoints_internal`` and
    ``Acheckpoints.internal`` -- the checkpoints names of other separators, a user's look-alikes --
    are checkpoints (and MM2-internal, internal) here and plain topics in Kafka. ``-.`` (flag on)
    gives ``-.checkpoints-.internal``: ``A-xcheckpoints-.internal`` too. Needs a checkpoints-like
    name whose separator characters are not the configured ones."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return re.search(self.checkpoints_suffix() + "$", topic) is not None


Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "split-trailing-empty-once": SplitTrailingEmptyOnce,
    "split-overlapping-advance": SplitOverlappingAdvance,
    "rule3x-mm2-prefix-early-return": Rule3xMm2PrefixEarlyReturn,
    "mm2-connect-names-dotted": Mm2ConnectNamesDotted,
    "identity-heartbeat-regex-suffix": IdentityHeartbeatRegexSuffix,
    "heartbeats-name-follows-separator": HeartbeatsNameFollowsSeparator,
    "checkpoints-suffix-regex-unescaped": CheckpointsSuffixRegexUnescaped,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    slot = "identity" if issubclass(policy, IdentityPolicy) else "default"
    return policy.__name__ + "Target", {slot: policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
