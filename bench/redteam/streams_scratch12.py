"""Kafka Streams queryable-state metadata, session 21's blind red-team bugs ("blindms").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``KeyQueryMetadata`` alone (the driver, the model and the mutant routers unread): "initialized"
kept as a flag set by the first assignment, standbys skipped when the partition has no active
host, a per-store source-topics info cached with its partition count, and old Kafka's
``Utils.abs`` where the partitioner uses ``toPositive``.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch12:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import UNKNOWN_HOST, Metadata, murmur2
from redteam.streams_scratch7 import Metadata7, Target7


class InitializedByFirstAssignment(Metadata7):
    """STREAMS-RULE-KEY 1 / STREAMS-RULE-NOT-AVAILABLE ("initialized" = the partition counts of
    the latest assignment's cluster metadata are non-empty): the porter keeps a boolean set by the
    first ``onChange`` ("once we have had an assignment we are initialized"), so a later assignment
    with no partition counts still answers a key of a store with null (no count) and
    ``allMetadataForStore`` with its hosts, where Kafka is back to NOT_AVAILABLE / empty. Needs an
    assignment, then one with empty partition counts, then a query."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        self.__dict__["_had_assignment"] = True

    def initialized(self) -> bool:
        return bool(self.__dict__.get("_had_assignment")) or super().initialized()


class StandbysSkippedWithoutActive(Metadata7):
    """STREAMS-RULE-KEY (``standbyHosts`` collected from the standby map whatever the active
    look-up found): the porter returns early once no host holds the key's partition as active
    ("the partition is not served, there is nothing to route to"), with ``UNKNOWN_HOST`` and no
    standbys, where Kafka still lists the hosts with a standby of it. Needs a plan in which a
    partition of a store has a standby but no active (a partial assignment, or mid-move), then a
    key that hashes to it."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is not None and answer["partition"] >= 0 and answer["active"] == UNKNOWN_HOST:
            return {**answer, "standbys": []}
        return answer


class SourceTopicsInfoCached(Metadata7):
    """STREAMS-RULE-KEY (the maximum partition count of the store's source topics, from the latest
    cluster metadata): the porter caches ``SourceTopicsInfo`` per store name ("the topology is
    fixed for the run") with its ``maxPartitions`` inside, filled on the store's first key query,
    so after an assignment in which a source topic grew (or shrank) the key is still hashed over
    the old count. Needs a key query, an assignment changing that store's partition count, then a
    key query of the same store."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        cache: dict[str, int] = self.__dict__.setdefault("_source_info", {})
        topics = self.stores.get(store)
        if (self.initialized() and store not in self.global_stores and topics
                and store not in cache):
            n = max(self.partitions.get(t, 0) for t in topics)
            if n > 0:
                cache[store] = n
        if store in cache and self.initialized() and store not in self.global_stores and topics:
            saved = self.partitions
            self.partitions = {**saved, **{t: cache[store] for t in topics}}
            try:
                return super().key_metadata(store, key)
            finally:
                self.partitions = saved
        return super().key_metadata(store, key)


class PartitionUtilsAbs(Metadata7):
    """STREAMS-LAW-PARTITION (``toPositive(murmur2(key)) % numPartitions``, i.e. ``& 0x7fffffff``):
    the port copies old Kafka's ``Utils.abs`` (``n == Integer.MIN_VALUE ? 0 : Math.abs(n)``), which
    the 0.8 producer used, so every key whose hash is negative lands on ``|h| % n`` instead of
    ``(h & 0x7fffffff) % n``. Equal for non-negative hashes and for one partition. Needs a store
    over a topic with two or more partitions and a key with a negative hash (about half)."""

    def partition_for(self, key: str, n: int) -> int:
        h = murmur2(key.encode("utf-8"))
        return (0 if h == -(1 << 31) else abs(h)) % n


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "initialized-by-first-assignment": InitializedByFirstAssignment,
    "standbys-skipped-without-active": StandbysSkippedWithoutActive,
    "source-topics-info-cached": SourceTopicsInfoCached,
    "partition-utils-abs": PartitionUtilsAbs,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
