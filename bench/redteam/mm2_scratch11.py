"""MirrorMaker 2 replication-policy bugs, session 20's blind round ("blindvs").

Each bug overrides one method of session 12's from-scratch port of Kafka's
``DefaultReplicationPolicy`` (``redteam.mm2_scratch5``'s ``DefaultPolicy``), under session 15's
KIP-1016 target (``mm2_scratch7.Kip1016Target``), written from spec/mm2.md,
docs/adapter-guide.md and Kafka's ``connect/mirror-client`` sources, without the driver, the
model or the mutant catalogue (the earlier modules read for their bug names only). They aim at
odd names: a replication cycle ``A.B.A.orders`` cut short, a single leading underscore taken for
Kafka's ``__`` prefix, the checkpoints test written with the topic separator where KIP-949's flag
keeps the names' separator at ``.``, and an alias search that skips a leading separator.

    PYTHONPATH=bench kspec conform mm2 --target python:redteam.mm2_scratch11:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import register, subclass
from redteam.mm2_scratch5 import DefaultPolicy
from redteam.mm2_scratch7 import Kip1016Target


class OriginalStopsAtCycle(DefaultPolicy):
    """MM2-RULE-*-ORIGINAL (``ReplicationPolicy.originalTopic`` recurses until ``upstreamTopic``
    is null or a fixed point): the port guards the walk against replication cycles ("A->B->A
    must not loop"), remembering the sources it has stripped and stopping when one comes back,
    so ``A.B.A.orders`` has original ``A.orders`` where Kafka strips every prefix (``orders``).
    Equal for every name whose prefixes are distinct aliases. An implementer slips here because
    MirrorMaker's own cycle detection (``MirrorSourceConnector.isCycle``) works on these very
    prefixes, and an unbounded walk looks like it needs a guard."""

    def original_topic(self, topic: str) -> str:
        seen: set[str] = set()
        while True:
            source = self.topic_source(topic)
            upstream = self.upstream_topic(topic)
            if upstream is None or upstream == topic or source in seen:
                return topic
            if source is not None:
                seen.add(source)
            topic = upstream


class InternalSingleUnderscore(DefaultPolicy):
    """MM2-RULE-*-INTERNAL (``topic.startsWith("__") || topic.startsWith(".")``): the Kafka
    internal-topic test is written as "hidden names start with ``_`` or ``.``" (``topic[:1] in
    "_."``), so ``_schemas`` or ``_orders`` are internal where Kafka keeps them replicable. Equal
    for ``__consumer_offsets`` and every name without a leading underscore. An implementer slips
    here because Confluent's ``_schemas`` and ``_confluent-*`` topics are commonly called
    internal."""

    def is_internal_topic(self, topic: str) -> bool:
        return super().is_internal_topic(topic) or topic.startswith("_")


class CheckpointsTestUsesSeparator(DefaultPolicy):
    """MM2-RULE-DEFAULT-INTERNAL-NAMES / KIP-949 (``isCheckpointsTopic`` ends with the suffix that
    ``checkpointsTopic`` writes, both through ``internalSeparator()``): the test is written with
    the topic separator (``topic.endsWith(separator + "checkpoints" + separator + "internal")``),
    so with a custom separator and ``replication.policy.internal.topic.separator.enabled=false``
    the policy's own ``A.checkpoints.internal`` is not a checkpoints topic (and, under 4.x, not an
    MM2 internal topic). Equal whenever the flag is on or the separator is ``.``. Needs a custom
    separator, the flag off, and a checkpoints name asked."""

    def is_checkpoints_topic(self, topic: str) -> bool:
        return topic.endswith(self.sep + "checkpoints" + self.sep + "internal")


class SourceSearchFromOne(DefaultPolicy):
    """MM2-RULE-DEFAULT-SOURCE (the first piece of ``topic.split(Pattern.quote(separator))``, which
    is the empty alias for a name starting with the separator): the port finds the separator
    with ``topic.indexOf(separator, 1)`` ("an alias has at least one character"), so ``.a.orders``
    has source ``.a`` and upstream ``orders`` where Kafka reads source ``""`` and upstream
    ``a.orders``; ``.orders`` has no source where Kafka has ``""``. Equal for every name not
    starting with the separator."""

    def topic_source(self, topic: str) -> str | None:
        if not self.sep or not topic.startswith(self.sep):
            return super().topic_source(topic)
        at = topic.find(self.sep, 1)
        return None if at < 0 or not topic[at + len(self.sep):] else topic[:at]

Correct = subclass(globals(), "Correct", Kip1016Target)
CORRECT = "Correct"

BUGS: dict[str, type[DefaultPolicy]] = {
    "original-stops-at-cycle": OriginalStopsAtCycle,
    "internal-single-underscore": InternalSingleUnderscore,
    "checkpoints-test-uses-separator": CheckpointsTestUsesSeparator,
    "source-search-from-one": SourceSearchFromOne,
}


def _slot(policy: type[DefaultPolicy]) -> tuple[str, dict[str, Any]]:
    return policy.__name__ + "Target", {"default": policy, "__doc__": policy.__doc__}


TARGETS = register(globals(), Kip1016Target, BUGS, _slot)
