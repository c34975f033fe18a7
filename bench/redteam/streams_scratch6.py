"""Kafka Streams queryable-state metadata, session 14's out-of-sample bugs ("outsider" round).

Over session 12's fresh port of ``StreamsMetadataState`` (``redteam.streams_scratch5.Metadata``,
its bug-free base only), eight slips of someone porting ``onChange``, ``getAllMetadata``,
``getAllMetadataForStore`` and ``getKeyQueryMetadataForKey``, written blind from
docs/adapter-guide.md, spec/streams.md, spec/adapter-protocol.md and Kafka's classes (no kspec
model, driver or earlier red-team bug code): a global store's hosts taken from the task holders,
a key-query cache dropped only when the active map changes, standby hosts collected once per
source topic, a store's hosts listed once as active and once as standby, ``onChange`` merging
into the old host maps, a standby-only member left out of a store's hosts, standbys looked up by
store name without the partition, and a task-less member listed without the global stores.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch6:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, MetadataTarget, host_key


class GlobalStoreTaskHostsOnly(Metadata):
    """``allMetadataForStore`` of a global store lists the hosts that run a task (active or
    standby), where Kafka lists every instance (``getAllMetadataForStore``: a global store is on
    every host, a member the assignor gave nothing too)."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if self.initialized() and store in self.global_stores:
            return [e for e in self.all_metadata() if e["partitions"] or e["standby_partitions"]]
        return super().all_metadata_for_store(store)


class KeyCacheIgnoresStandbys(Metadata):
    """Key queries are memoised per (store, key), and the memo is dropped on ``onChange`` only when
    the active map changed: a rebalance that moves standby tasks alone leaves stale standby hosts
    in ``queryMetadataForKey``'s answer."""

    def __init__(self) -> None:
        super().__init__()
        self.memo: dict[tuple[str, str], Any] = {}

    def on_change(self, assignment: dict[str, Any]) -> None:
        before = self.active
        super().on_change(assignment)
        if self.active != before:
            self.memo = {}

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if not self.initialized():
            return super().key_metadata(store, key)
        if (store, key) not in self.memo:
            self.memo[(store, key)] = super().key_metadata(store, key)
        return self.memo[(store, key)]


class StandbysPerSourceTopic(Metadata):
    """Standby hosts collected in a list by a loop over the store's source topics: a host that is
    standby for the task of a two-topic store (partition p of both topics) is named twice, where
    ``KeyQueryMetadata.standbyHosts`` is a set."""

    def holders(self, store: str, topics: list[str], partition: int, standby: bool) -> list[str]:
        if not standby:
            return super().holders(store, topics, partition, standby)
        found = []
        for host in self.hosts():
            parts = self.standby.get(host, set())
            if store in self.standby_stores(host):
                found += [host for t in topics if (t, partition) in parts]
        return found


class StoreHostsActiveThenStandby(Metadata):
    """``allMetadataForStore`` appends the hosts holding the store actively, then those holding it
    as standby: a host active for one partition of the store and standby for another is listed
    twice (Kafka filters ``allMetadata`` once per host)."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if not self.initialized() or store in self.global_stores or not self.stores.get(store):
            return super().all_metadata_for_store(store)
        every = self.all_metadata()
        found = [e for e in every if store in e["stores"]] + [e for e in every if store in e["standby_stores"]]
        return sorted(found, key=lambda e: host_key(e["host"]))


class OnChangeMergesHosts(Metadata):
    """``onChange`` updates the host maps with the new assignment's entries instead of replacing
    them: a member that left the group keeps its last partitions in the metadata."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        old_active, old_standby = self.active, self.standby
        super().on_change(assignment)
        for host, parts in old_active.items():
            self.active.setdefault(host, parts)
        for host, parts in old_standby.items():
            self.standby.setdefault(host, parts)


class StoreHostsFromActiveMap(Metadata):
    """``allMetadataForStore`` walks the hosts of the active map that hold a partition, then keeps
    those with the store as active or standby: a member that holds only standby tasks (one
    partition, two instances, one standby) is never listed, though it holds the store."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if not self.initialized() or store in self.global_stores or not self.stores.get(store):
            return super().all_metadata_for_store(store)
        return [e for e in self.all_metadata() if e["partitions"]
                and (store in e["stores"] or store in e["standby_stores"])]


class StandbysByStoreName(Metadata):
    """A key's standby hosts are the hosts with the store among their standby stores, whatever
    partition they are standby for (the partition check of the active lookup left out)."""

    def holders(self, store: str, topics: list[str], partition: int, standby: bool) -> list[str]:
        if not standby:
            return super().holders(store, topics, partition, standby)
        return [h for h in self.hosts() if store in self.standby_stores(h)]


class IdleMemberNoGlobalStores(Metadata):
    """A host's store names are built from its active partitions, and the global stores added only
    when there are any: a member without an active task is listed without the global stores,
    which every instance holds."""

    def active_stores(self, host: str) -> list[str]:
        if not self.active.get(host):
            return []
        return super().active_stores(host)


Correct = subclass(globals(), "Correct", MetadataTarget)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "global-store-task-hosts-only": GlobalStoreTaskHostsOnly,
    "key-cache-ignores-standbys": KeyCacheIgnoresStandbys,
    "standbys-per-source-topic": StandbysPerSourceTopic,
    "store-hosts-active-then-standby": StoreHostsActiveThenStandby,
    "on-change-merges-hosts": OnChangeMergesHosts,
    "store-hosts-from-active-map": StoreHostsFromActiveMap,
    "standbys-by-store-name": StandbysByStoreName,
    "idle-member-no-global-stores": IdleMemberNoGlobalStores,
}
TARGETS = register(globals(), MetadataTarget, BUGS, attribute_target("impl"))
