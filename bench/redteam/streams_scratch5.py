"""Kafka Streams queryable-state metadata, session 12's out-of-sample bugs ("outsider").

A fresh port of ``StreamsMetadataState`` (``onChange``, ``getAllMetadata``,
``getAllMetadataForStore``, ``getKeyQueryMetadataForKey``) and ``Utils.murmur2`` written from
docs/adapter-guide.md, spec/streams.md and spec/adapter-protocol.md and what Kafka's classes say
(no kspec model, driver or earlier red-team router code). The bugs are the slips of someone
porting it: the active host taken from whichever map holds the partition first, Python's ``%``
on the signed hash, the active host looked up on the store's first source topic only, every
store given to any host with a task, an unknown store answered NOT_AVAILABLE, hosts told apart
by name without the port, global stores listed among the standby stores, and key queries
refused while a rebalance runs.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch5:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, Target, TargetError
from redteam._targets import SelfNamed, attribute_target, register, subclass

NOT_AVAILABLE = {"active": "unavailable:-1", "standbys": [], "partition": -1}
# Kafka's UNKNOWN_HOST is HostInfo.unavailable() ("unavailable", -1), the active host of a key whose
# partition no host owns actively. Session 22: the port spelled it "unknown:-1", never seen until
# STREAMS-DRIVE-ACTIVE-WITHHELD gave a partition no active owner (a slip of the baseline, not a
# planted bug: fixed here so that every module's Correct conforms again).
UNKNOWN_HOST = "unavailable:-1"


def to_int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def murmur2(data: bytes) -> int:
    """``org.apache.kafka.common.utils.Utils.murmur2`` (Java int arithmetic)."""
    length = len(data)
    seed, m, r = 0x9747B28C, 0x5BD1E995, 24
    h = (seed ^ length) & 0xFFFFFFFF
    n4 = length // 4
    for i in range(n4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (k * m) & 0xFFFFFFFF
        k ^= k >> r
        k = (k * m) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
        h ^= k
    tail = length & 3
    base = length & ~3
    if tail == 3:
        h ^= (data[base + 2] & 0xFF) << 16
    if tail >= 2:
        h ^= (data[base + 1] & 0xFF) << 8
    if tail >= 1:
        h ^= data[base] & 0xFF
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return to_int32(h)


def to_positive(x: int) -> int:
    return x & 0x7FFFFFFF


def host_key(host: str) -> tuple[str, int]:
    """``host:port`` -> (host, port), split at the last colon (an IPv6 literal keeps its own)."""
    name, _, port = host.rpartition(":")
    return name, int(port)


class Metadata:
    """One instance's ``StreamsMetadataState``."""

    def __init__(self) -> None:
        self.stores: dict[str, list[str]] = {}
        self.global_stores: list[str] = []
        self.active: dict[str, set[tuple[str, int]]] = {}
        self.standby: dict[str, set[tuple[str, int]]] = {}
        self.partitions: dict[str, int] = {}
        self.rebalancing = False

    # -- inputs
    def rebalance_started(self) -> None:
        self.rebalancing = True

    def on_change(self, assignment: dict[str, Any]) -> None:
        self.rebalancing = False
        self.stores = {s: list(ts) for s, ts in assignment.get("stores", {}).items()}
        self.global_stores = list(assignment.get("global_stores", []))
        self.active = {}
        self.standby = {}
        for host, parts in assignment.get("active", {}).items():
            self.add_host(self.active, host, parts)
        for host, parts in assignment.get("standby", {}).items():
            self.add_host(self.standby, host, parts)
        self.partitions = {t: int(n) for t, n in assignment.get("partitions", {}).items()}

    def add_host(self, into: dict[str, set[tuple[str, int]]], host: str, parts: list[list[Any]]) -> None:
        into.setdefault(self.host_id(host), set()).update((str(t), int(p)) for t, p in parts)

    def host_id(self, host: str) -> str:
        return host

    # -- helpers
    def initialized(self) -> bool:
        return bool(self.partitions)

    def hosts(self) -> list[str]:
        return sorted(set(self.active) | set(self.standby), key=host_key)

    def stores_of(self, parts: set[tuple[str, int]]) -> list[str]:
        topics = {t for t, _ in parts}
        return sorted(s for s, ts in self.stores.items() if topics & set(ts))

    def active_stores(self, host: str) -> list[str]:
        return sorted(set(self.stores_of(self.active.get(host, set()))) | set(self.global_stores))

    def standby_stores(self, host: str) -> list[str]:
        return self.stores_of(self.standby.get(host, set()))

    def entry(self, host: str) -> dict[str, Any]:
        return {"host": host, "stores": self.active_stores(host),
                "partitions": sorted([t, p] for t, p in self.active.get(host, set())),
                "standby_stores": self.standby_stores(host),
                "standby_partitions": sorted([t, p] for t, p in self.standby.get(host, set()))}

    # -- queries
    def all_metadata(self) -> list[dict[str, Any]]:
        return [self.entry(h) for h in self.hosts()]

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if not self.initialized():
            return []
        if store in self.global_stores:
            return self.all_metadata()
        if not self.stores.get(store):
            return []
        return [e for e in self.all_metadata() if store in e["stores"] or store in e["standby_stores"]]

    def partition_for(self, key: str, n: int) -> int:
        return to_positive(murmur2(key.encode("utf-8"))) % n

    def lookup_topics(self, topics: list[str]) -> list[str]:
        return topics

    def holders(self, store: str, topics: list[str], partition: int, standby: bool) -> list[str]:
        found = []
        for host in self.hosts():
            parts = (self.standby if standby else self.active).get(host, set())
            names = self.standby_stores(host) if standby else self.active_stores(host)
            if store in names and any((t, partition) in parts for t in topics):
                found.append(host)
        return found

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if not self.initialized():
            return dict(NOT_AVAILABLE)
        if store in self.global_stores:
            hosts = self.hosts()
            return {"active": hosts[0] if hosts else "unavailable:-1", "standbys": [], "partition": -1}
        topics = self.stores.get(store)
        if not topics:
            return None
        n = max(self.partitions.get(t, 0) for t in topics)
        if n <= 0:
            return None
        partition = self.partition_for(key, n)
        actives = self.holders(store, self.lookup_topics(topics), partition, standby=False)
        active = actives[-1] if actives else UNKNOWN_HOST
        standbys = sorted((h for h in self.holders(store, topics, partition, standby=True) if h != active),
                          key=host_key)
        return {"active": active, "standbys": standbys, "partition": partition}

    # -- the adapter
    def call(self, inp: dict[str, Any]) -> Any:
        t = inp["type"]
        if t == "RebalanceStarted":
            self.rebalance_started()
            return None
        if t == "RebalanceFinished":
            self.on_change(inp["assignment"])
            return None
        if t == "MetadataForKey":
            return self.key_metadata(inp["store"], inp["key"])
        if t == "AllMetadata":
            return self.all_metadata()
        if t == "AllMetadataForStore":
            return self.all_metadata_for_store(inp["store"])
        raise TargetError(f"unknown streams input {t!r}")


# ---------------------------------------------------------------------------- bugs


class StandbyAsActive(Metadata):
    """The active host is the first host (in host order) holding the key's partition in either
    map: a standby listed before the active holder is named active."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if not answer or answer["partition"] < 0:
            return answer
        holders = sorted([answer["active"], *answer["standbys"]], key=host_key) if answer["active"] != UNKNOWN_HOST \
            else sorted(answer["standbys"], key=host_key)
        if not holders:
            return answer
        first = holders[0]
        return {"active": first, "standbys": [h for h in holders if h != first], "partition": answer["partition"]}


class SignedModulo(Metadata):
    """Python's ``%`` on the signed hash (always non-negative in Python, so ``toPositive``
    "is not needed"): ``-5 % 3`` is 1 where ``(-5 & 0x7fffffff) % 3`` is 2."""

    def partition_for(self, key: str, n: int) -> int:
        return murmur2(key.encode("utf-8")) % n


class ActiveLookupFirstTopic(Metadata):
    """The active host looked up on the store's first source topic only ("co-partitioned, any
    topic will do"): a key past the narrower first topic's partitions has no active host."""

    def lookup_topics(self, topics: list[str]) -> list[str]:
        return topics[:1]


class StoresFromAnyTask(Metadata):
    """A host with any task holds every store of the application ("each instance runs the whole
    topology"); only an idle member has none."""

    def stores_of(self, parts: set[tuple[str, int]]) -> list[str]:
        return sorted(self.stores) if parts else []


class UnknownStoreNotAvailable(Metadata):
    """A key query for a store the topology does not have answers NOT_AVAILABLE (as before the
    first assignment) where Kafka answers null."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if self.initialized() and store not in self.global_stores and store not in self.stores:
            return dict(NOT_AVAILABLE)
        return super().key_metadata(store, key)


class HostWithoutPort(Metadata):
    """Hosts told apart by name alone (a map keyed by ``HostInfo.host()``): two instances on one
    machine become one entry holding both's partitions, shown under the first port seen."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        self.first_port: dict[str, str] = {}
        super().on_change(assignment)

    def host_id(self, host: str) -> str:
        name, _ = host_key(host)
        return self.first_port.setdefault(name, host)


class StandbyStoresWithGlobals(Metadata):
    """Global stores listed among a host's standby stores too ("a global store is everywhere")."""

    def standby_stores(self, host: str) -> list[str]:
        return sorted(set(super().standby_stores(host)) | set(self.global_stores))


class NotAvailableWhileRebalancing(Metadata):
    """Key queries answered NOT_AVAILABLE from a rebalance's start to its end (KIP-67's
    discussion: metadata "available after rebalance"); the metadata calls still answer."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if self.rebalancing:
            return dict(NOT_AVAILABLE)
        return super().key_metadata(store, key)


# ---------------------------------------------------------------------------- equivalent


class CountsFromHighestPartition(Metadata):
    """EQUIVALENT: the partition counts taken as the highest active partition + 1 per topic,
    not ``onChange``'s counts. Kafka's counts are the number of active partitions
    (STREAMS-RULE-PARTITION-INFO), equal to this whenever every partition has an active host,
    which the assignor guarantees (STREAMS-ASSUME-ACTIVE-COVERS): no assignment in the contract
    tells them apart."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        counts: dict[str, int] = {}
        for parts in self.active.values():
            for t, p in parts:
                counts[t] = max(counts.get(t, 0), p + 1)
        self.partitions = counts


# ---------------------------------------------------------------------------- target


class MetadataNode:
    def __init__(self, state: Metadata) -> None:
        self.state = state

    def step(self, inp: dict[str, Any]) -> StepResult:
        return StepResult(outputs=[], observation={"result": self.state.call(inp)})

    def close(self) -> None:
        pass


class MetadataTarget(SelfNamed, Target):
    protocol = "streams"
    impl: type[Metadata] = Metadata

    def start(self, node: Any, config: dict[str, Any]) -> MetadataNode:
        return MetadataNode(self.impl())


Correct = subclass(globals(), "Correct", MetadataTarget)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "standby-as-active": StandbyAsActive,
    "signed-modulo": SignedModulo,
    "active-lookup-first-topic": ActiveLookupFirstTopic,
    "stores-from-any-task": StoresFromAnyTask,
    "unknown-store-not-available": UnknownStoreNotAvailable,
    "host-without-port": HostWithoutPort,
    "standby-stores-with-globals": StandbyStoresWithGlobals,
    "not-available-while-rebalancing": NotAvailableWhileRebalancing,
}
EQUIVALENT: dict[str, type[Metadata]] = {"counts-from-highest-partition": CountsFromHighestPartition}

TARGETS = register(globals(), MetadataTarget, BUGS, attribute_target("impl"))
# The equivalent ones as targets too, so the claim can be run; not in TARGETS (not measured).
EQUIVALENT_TARGETS = register(globals(), MetadataTarget, EQUIVALENT, attribute_target("impl"))
