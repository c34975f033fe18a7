"""Kafka Streams queryable-state metadata, session 18's blind red-team bugs ("blindvs").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``AssignmentInfo`` alone (the driver, the model and the mutant routers unread). Each bug needs a
few steps before it shows: a key's partition memoised per key whatever the store (the stores of
two sub-topologies hash modulo different counts), ``allMetadataForStore`` memoised until the
member set changes, a global store's key answered by the first member in the order the
assignment lists them, and a standby map kept when a new assignment carries none (as a decoder
of an ``AssignmentInfo`` before version 6, which had no standby map, would).

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch10:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata
from redteam.streams_scratch7 import Metadata7, Target7


class PartitionMemoPerKey(Metadata7):
    """STREAMS-RULE-KEY (4: the partition over the store's widest source topic): the porter
    memoised ``toPositive(murmur2(key)) % n`` by key alone ("murmur2 is the expensive part and a
    key always hashes the same"), so a key asked of one store keeps its partition when asked of a
    store of another sub-topology, whose source topics have another partition count. Needs one
    key asked of two stores whose widest topics differ in size."""

    def partition_for(self, key: str, n: int) -> int:
        memo: dict[str, int] = self.__dict__.setdefault("_partition_memo", {})
        if key not in memo:
            memo[key] = super().partition_for(key, n)
        return memo[key]


class StoreMetadataMemo(Metadata7):
    """STREAMS-RULE-STORE-METADATA: ``allMetadataForStore`` memoised per store and dropped only
    when the set of hosts changes ("a store's hosts change when members come and go"), so a
    rebalance over the same members that moves a sub-topology's tasks leaves the old hosts of its
    store. Kafka rebuilds the answer from ``allMetadata`` at every call. Needs the store asked,
    a rebalance over the same members that moves its tasks, and the store asked again."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        hosts = tuple(self.hosts())
        memo: dict[str, Any] = self.__dict__.setdefault("_store_memo", {})
        if memo.get("hosts") != hosts:
            memo.clear()
            memo["hosts"] = hosts
        if store not in memo:
            memo[store] = super().all_metadata_for_store(store)
        return [dict(e) for e in memo[store]]


class GlobalKeyFirstInAssignmentOrder(Metadata7):
    """STREAMS-RULE-KEY (2: a global store's key is answered by the model's first host, in host
    order (host, port)): the porter took "this host" as the first member the assignment's active
    map lists (the assignment "starts with the instance itself"), in the order the map was
    received. The same whenever the assignment lists its members in host order; differs where
    it does not (endpoints renamed so the first member sorts last). Needs an assignment whose
    first member is not first in host order, then a global store's key."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        self.__dict__["_received"] = [self.host_id(h) for h in assignment.get("active", {})]

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        received = self.__dict__.get("_received") or []
        if answer is not None and self.initialized() and store in self.global_stores and received:
            answer["active"] = received[0]
        return answer


class StandbyMapKeptWhenEmpty(Metadata7):
    """STREAMS-RULE-EVERY-MEMBER / KIP-535: an assignment whose standby map holds no standby
    partition at all is taken for one without a standby map (``AssignmentInfo`` before version
    6 carried none: "keep what we had"), so the previous standby map stays: a host that left
    keeps being listed by ``allMetadata`` and named as a standby. Needs an assignment with
    standby tasks, then a rebalance whose plan has none (one member left), then a query."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        previous = self.standby
        super().on_change(assignment)
        if previous and not any(assignment.get("standby", {}).values()):
            self.standby = previous


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "partition-memo-per-key": PartitionMemoPerKey,
    "store-metadata-memo": StoreMetadataMemo,
    "global-key-first-in-assignment-order": GlobalKeyFirstInAssignmentOrder,
    "standby-map-kept-when-empty": StandbyMapKeptWhenEmpty,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
