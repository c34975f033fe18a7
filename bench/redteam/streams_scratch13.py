"""Kafka Streams queryable-state metadata, session 22's blind red-team bugs ("blindms").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``KeyQueryMetadata`` alone (the driver, the model and the mutant routers unread): a key's standbys
filtered at store level, ``getAllMetadata`` given ``getAllMetadataForStore``'s "initialized"
guard, the global-store branch taken before the "initialized" check, partition info built from
both host maps, and a store's hosts required to hold every one of its source topics.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch13:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata
from redteam.streams_scratch7 import Metadata7, Target7


class StandbysMinusStoreActives(Metadata7):
    """STREAMS-RULE-KEY 5 / STREAMS-LAW-STANDBYS (standby hosts = exactly the hosts holding the
    key's partition as standby; only the key's *own* active host is left out): the porter writes
    KIP-535's "a host is never both active and standby" at the store level, removing from the
    standbys every host that runs *some* partition of the store actively, as ``allMetadataForStore``
    deduplicates hosts. A host active for partition 2 and standby for partition 0 of ``counts``
    (any plan with one standby and fewer hosts than partitions) is missing from partition 0's
    standbys. Needs a plan in which a host is standby for a key's partition and active for another
    partition of the same store, then that key."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is None or answer["partition"] < 0:
            return answer
        topics = self.stores.get(store) or []
        store_actives = {h for h in self.hosts()
                         if store in self.active_stores(h)
                         and any(t in topics for t, _ in self.active.get(h, set()))}
        return {**answer, "standbys": [h for h in answer["standbys"] if h not in store_actives]}


class AllMetadataGuardedByInit(Metadata7):
    """STREAMS-RULE-ALL-METADATA / STREAMS-LAW-EVERY-MEMBER (``getAllMetadata`` returns the
    metadata ``onChange`` built, one entry per host of either map, with no "initialized" check;
    only ``getAllMetadataForStore`` and the key lookup have one): the porter copies
    ``getAllMetadataForStore``'s guard ``if (!isInitialized()) return emptyList()`` into
    ``allMetadata`` "for symmetry". Equal before the first assignment (no hosts either); differs
    once an assignment with empty partition counts (every task in flight under KIP-1071, no active
    map entry) names members: Kafka lists them with their standbys, the port lists nobody. Needs
    an assignment with no active partition, then ``AllMetadata``."""

    def all_metadata(self) -> list[dict[str, Any]]:
        if not self.initialized():
            return []
        return super().all_metadata()


class GlobalKeyBeforeInitCheck(Metadata7):
    """STREAMS-RULE-KEY (1 before 2), STREAMS-RULE-NOT-AVAILABLE: ``getKeyQueryMetadataForKey``
    returns ``NOT_AVAILABLE`` while uninitialized *before* it looks at global stores; the porter
    puts the global-store branch first ("a global store is on every instance, it is always
    available"). Before the first assignment there is no host, so the port answers
    ``unavailable:-1`` / no standbys / -1 -- NOT_AVAILABLE by accident; it differs only once an
    assignment with empty partition counts names members (every task in flight, KIP-1071): Kafka
    answers NOT_AVAILABLE, the port the first host. Needs such an assignment, then a key of the
    global store."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if store in self.global_stores:
            hosts = self.hosts()
            return {"active": hosts[0] if hosts else "unavailable:-1", "standbys": [], "partition": -1}
        return super().key_metadata(store, key)


class PartitionInfoFromBothMaps(Metadata7):
    """STREAMS-RULE-PARTITION-INFO (the counts are those of the *active* map:
    ``getTopicPartitionInfo(partitionsByHost)``): the porter rebuilds the partition info itself
    from every partition the assignment names, active and standby ("the cluster metadata holds
    every partition"), ignoring ``onChange``'s counts. Equal whenever every partition has an active
    host; differs mid-reconciliation (KIP-1071: a moved task revoked from its old owner, its
    standbys kept): a partition held only as standby still counts, so keys hash modulo one more,
    and with no active at all the state stays "initialized" (answers instead of NOT_AVAILABLE).
    Needs an assignment that withholds some partition's active while a standby holds it, then a
    key of a store over that topic."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        seen: dict[str, set[int]] = {}
        for parts in [*self.active.values(), *self.standby.values()]:
            for t, p in parts:
                seen.setdefault(t, set()).add(p)
        self.partitions = {t: len(ps) for t, ps in seen.items()}


class StoresNeedEverySource(Metadata7):
    """STREAMS-RULE-ALL-METADATA ("a host's stores are the stores with a source topic among its
    partitions"; ``rebuildMetadataForSingleTopology`` adds a store when any of its source topics
    is among the host's topics): the porter requires *every* source topic of the store among the
    host's partitions ("a join store needs both sides"). A host whose only tasks are past the
    narrower topic's partitions (``joined`` over ``side`` and ``input``, ``side`` half as wide)
    holds ``input`` alone and loses ``joined`` / ``enriched`` from its stores, so those keys there
    get no active host and ``allMetadataForStore`` leaves it out. Needs a store over two topics of
    different widths and a host holding only partitions of the wider one."""

    def stores_of(self, parts: set[tuple[str, int]]) -> list[str]:
        topics = {t for t, _ in parts}
        return sorted(s for s, ts in self.stores.items() if ts and set(ts) <= topics)


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "standbys-minus-store-actives": StandbysMinusStoreActives,
    "all-metadata-guarded-by-init": AllMetadataGuardedByInit,
    "global-key-before-init-check": GlobalKeyBeforeInitCheck,
    "partition-info-from-both-maps": PartitionInfoFromBothMaps,
    "stores-need-every-source": StoresNeedEverySource,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
