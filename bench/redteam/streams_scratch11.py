"""Kafka Streams queryable-state metadata, session 20's blind red-team bugs ("blindvs").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``KeyQueryMetadata`` alone (the driver, the model and the mutant routers unread). Each needs a
few steps: partition counts kept for a topic a later assignment no longer carries (deleted),
a key-answer cache emptied when a rebalance starts but refilled during it, standbys told apart
by host name alone (two instances on one machine), and global stores accumulated over
assignments.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch11:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, host_key
from redteam.streams_scratch7 import Metadata7, Target7


class PartitionCountsMerged(Metadata7):
    """STREAMS-RULE-KEY (the partition count of the store's source topics, from the cluster
    metadata of the latest assignment): the porter merges each assignment's partition counts into
    the ones it knew ("a topic's partition count only changes by growing, and a missing entry is
    an incomplete metadata refresh"), so after a topic is deleted (absent from the next
    assignment) a key of a store over it is still answered with a partition where Kafka has no
    count. Needs an assignment with the topic, one without it, then a key of that store."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        known = dict(self.partitions)
        super().on_change(assignment)
        self.partitions = {**known, **self.partitions}


class KeyCacheClearedOnStart(Metadata7):
    """STREAMS-RULE-KEY over a rebalance: ``queryMetadataForKey`` answers cached per (store, key),
    the cache emptied when a rebalance STARTS ("from then on the old answers are unsafe") rather
    than when the new assignment arrives, so a key asked during the rebalance is answered from
    the old assignment and cached, and that answer outlives ``onChange``. Needs a rebalance
    started, a key asked mid-rebalance, a finish that moves its partition, and the key again."""

    def rebalance_started(self) -> None:
        super().rebalance_started()
        self.__dict__["_key_cache"] = {}

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        cache: dict[tuple[str, str], Any] = self.__dict__.setdefault("_key_cache", {})
        if (store, key) not in cache:
            cache[(store, key)] = super().key_metadata(store, key)
        answer = cache[(store, key)]
        return None if answer is None else {**answer, "standbys": list(answer["standbys"])}


class StandbysDedupByHostName(Metadata7):
    """STREAMS-RULE-KEY (``KeyQueryMetadata.standbyHosts``, a set of ``HostInfo``: host AND port):
    the standbys are deduplicated by host name ("one machine is one standby"), keeping the first
    port in host order, so two instances on one machine both standing by for the partition are
    reported as one. Equal wherever standbys run on distinct machines. Needs two members sharing
    a host name with different ports, both with a standby of the key's partition."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is None or not answer.get("standbys"):
            return answer
        names: set[str] = set()
        kept = []
        for host in answer["standbys"]:
            name = host_key(host)[0]
            if name not in names:
                names.add(name)
                kept.append(host)
        return {**answer, "standbys": kept}


class GlobalStoresAccumulated(Metadata7):
    """STREAMS-RULE-KEY / STREAMS-RULE-STORE-METADATA (global stores as the latest assignment
    names them): the porter adds each assignment's global stores to the ones it knew ("a global
    store lives as long as the instance"), so a global store dropped from a later assignment is
    still listed on every member and its keys answered by the first host. Needs an assignment
    with a global store, one without it, then a query naming it or listing stores."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        known = list(self.global_stores)
        super().on_change(assignment)
        self.global_stores = sorted(set(known) | set(self.global_stores))


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "partition-counts-merged": PartitionCountsMerged,
    "key-cache-cleared-on-start": KeyCacheClearedOnStart,
    "standbys-dedup-by-host-name": StandbysDedupByHostName,
    "global-stores-accumulated": GlobalStoresAccumulated,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
