"""Kafka Streams queryable-state metadata (``StreamsMetadataState``) with planted bugs, written
from spec/streams.md and spec/adapter-protocol.md (streams) only: plain JSON in, plain JSON out.

Dropped as equivalent after a run: ``standby-only-host-dropped`` (hosts from the active map's
keys: every member is a key of both maps), ``initialized-sticky`` ("initialized" never cleared:
an assignment without partitions never reaches a live instance, which is itself a member)."""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult, TargetError

NOT_AVAILABLE = {"active": "unavailable:-1", "standbys": [], "partition": -1}


def _i32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x & 0x80000000 else x


def murmur2(data: bytes) -> int:
    m, r = 0x5BD1E995, 24
    h = _i32(0x9747B28C ^ len(data))
    n4 = len(data) // 4
    for i in range(n4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = _i32(k * m)
        k ^= (k & 0xFFFFFFFF) >> r
        k = _i32(k * m)
        h = _i32(_i32(h * m) ^ k)
    tail, rest = 4 * n4, len(data) % 4
    if rest == 3:
        h = _i32(h ^ (data[tail + 2] << 16))
    if rest >= 2:
        h = _i32(h ^ (data[tail + 1] << 8))
    if rest >= 1:
        h = _i32(_i32(h ^ data[tail]) * m)
    h = _i32(h ^ ((h & 0xFFFFFFFF) >> 13))
    h = _i32(h * m)
    return _i32(h ^ ((h & 0xFFFFFFFF) >> 15))


def host_order(host: str) -> tuple[str, int]:
    name, _, port = host.rpartition(":")
    return name, int(port)


class Metadata:
    """One instance's ``StreamsMetadataState``."""

    def __init__(self) -> None:
        self.assignment: dict[str, Any] | None = None

    # ---------------------------------------------------------------- events

    def rebalance_started(self) -> None:
        pass  # Kafka keeps answering from the last assignment

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        self.assignment = assignment

    # ---------------------------------------------------------------- helpers

    def initialized(self) -> bool:
        a = self.assignment
        return a is not None and any(n > 0 for n in (a.get("partitions") or {}).values())

    def hosts(self) -> list[str]:
        a = self.assignment or {}
        return sorted(set(a.get("active") or {}) | set(a.get("standby") or {}), key=host_order)

    def stores_of(self, tps: list[list[Any]]) -> set[str]:
        stores = (self.assignment or {}).get("stores") or {}
        topics = {t for t, _ in tps}
        return {s for s, sources in stores.items() if topics & set(sources)}

    def entry(self, host: str) -> dict[str, Any]:
        a = self.assignment or {}
        act = [list(tp) for tp in (a.get("active") or {}).get(host, [])]
        stb = [list(tp) for tp in (a.get("standby") or {}).get(host, [])]
        return {"host": host, "stores": sorted(self.stores_of(act) | set(a.get("global_stores") or [])),
                "partitions": sorted(act), "standby_stores": sorted(self.stores_of(stb)),
                "standby_partitions": sorted(stb)}

    def num_partitions(self, sources: list[str]) -> int:
        counts = (self.assignment or {}).get("partitions") or {}
        return max(counts.get(t, 0) for t in sources)

    def partition_for(self, key: bytes, n: int) -> int:
        return (murmur2(key) & 0x7FFFFFFF) % n

    # ---------------------------------------------------------------- queries

    def all_metadata(self) -> list[dict[str, Any]]:
        return [self.entry(h) for h in self.hosts()]

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if not self.initialized():
            return []
        a = self.assignment or {}
        if store in (a.get("global_stores") or []):
            return self.all_metadata()
        if not (a.get("stores") or {}).get(store):
            return []
        return [e for e in self.all_metadata() if store in e["stores"] or store in e["standby_stores"]]

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if not self.initialized():
            return dict(NOT_AVAILABLE)
        a = self.assignment or {}
        hosts = self.hosts()
        if store in (a.get("global_stores") or []):
            return {"active": hosts[0] if hosts else "unavailable:-1", "standbys": [], "partition": -1}
        sources = (a.get("stores") or {}).get(store) or []
        if not sources:
            return None
        n = self.num_partitions(sources)
        if n <= 0:
            return dict(NOT_AVAILABLE)
        p = self.partition_for(key.encode("utf-8"), n)
        active, standbys = "unavailable:-1", set()
        for h in hosts:
            if any(t in sources and q == p for t, q in (a.get("active") or {}).get(h, [])):
                active = h
            if any(t in sources and q == p for t, q in (a.get("standby") or {}).get(h, [])):
                standbys.add(h)
        return {"active": active, "standbys": sorted(standbys), "partition": p}


# ---------------------------------------------------------------------------- bugs


class OnePartitionUnrouted(Metadata):
    """Partition count 1 taken as "unpartitioned": a store whose source topic has one partition
    is answered like a global store (the first host, partition -1)."""

    def num_partitions(self, sources: list[str]) -> int:
        n = super().num_partitions(sources)
        return -1 if n == 1 else n

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        a = self.assignment or {}
        sources = (a.get("stores") or {}).get(store) or []
        if self.initialized() and sources and self.num_partitions(sources) == -1:
            hosts = self.hosts()
            return {"active": hosts[0], "standbys": [], "partition": -1}
        return super().metadata_for_key(store, key)


class FirstSourceCount(Metadata):
    """A store over several source topics hashes with the *first* topic's partition count, not
    the widest one's."""

    def num_partitions(self, sources: list[str]) -> int:
        counts = (self.assignment or {}).get("partitions") or {}
        return counts.get(sources[0], 0)


class KeyCache(Metadata):
    """Cache not invalidated: answers per (store, key) are cached and the cache is cleared only
    when the partition counts change, so after a rebalance that moves tasks between the same
    number of partitions a cached key names its old host."""

    def __init__(self) -> None:
        super().__init__()
        self.cache: dict[tuple[str, str], Any] = {}
        self.counts: Any = None

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        super().rebalance_finished(assignment)
        if assignment.get("partitions") != self.counts:
            self.cache.clear()
            self.counts = assignment.get("partitions")

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if not self.initialized():
            return super().metadata_for_key(store, key)
        if (store, key) not in self.cache:
            self.cache[(store, key)] = super().metadata_for_key(store, key)
        return self.cache[(store, key)]


class StandbyStoresFromActive(Metadata):
    """Copy and paste: a host's standby store names are computed from its *active* partitions,
    so a member holding only standby tasks lists no standby store (and is left out of the
    store's ``allMetadataForStore``)."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        e["standby_stores"] = sorted(self.stores_of(e["partitions"])) if e["standby_partitions"] else []
        return e


class GlobalStoreOnBusyHostsOnly(Metadata):
    """Global stores are added only to hosts that run an active task: an idle member's
    ``allMetadata`` entry lacks them."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        if not e["partitions"]:
            e["stores"] = sorted(self.stores_of([]))
        return e


class LongKeyTruncated(Metadata):
    """A fixed 255-byte key buffer: longer keys are hashed over their first 255 bytes."""

    def partition_for(self, key: bytes, n: int) -> int:
        return super().partition_for(key[:255], n)


class StoreNameNormalised(Metadata):
    """Store names compared case-insensitively and trimmed (a "friendly" lookup): an unknown
    store ``Counts `` finds ``counts``."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        stores = (self.assignment or {}).get("stores") or {}
        for s in stores:
            if s.lower() == store.strip().lower():
                store = s
        return super().metadata_for_key(store, key)


class RebalanceDropsStandbys(Metadata):
    """Listener contract: a rebalance start is taken to invalidate the standby map ("standbys
    are about to move"), so during a rebalance no standby is named, though Kafka answers from the
    last assignment until the next one arrives."""

    def rebalance_started(self) -> None:
        if self.assignment is not None:
            self.assignment = {**self.assignment, "standby": {h: [] for h in self.assignment.get("standby") or {}}}


class GlobalStorePartitionZero(Metadata):
    """A global store's key is answered with partition 0 (the only partition of its topic)
    instead of -1 (unknown)."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        out = super().metadata_for_key(store, key)
        if out is not None and store in ((self.assignment or {}).get("global_stores") or []):
            out = {**out, "partition": 0}
        return out


class AssignmentMerged(Metadata):
    """Listener contract: ``onChange`` is applied as an update of the maps it was given before
    (``dict.update``), not a replacement, so a member that left the group stays listed with its
    old partitions."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        if self.assignment is None:
            return super().rebalance_finished(assignment)
        merged = dict(assignment)
        for side in ("active", "standby"):
            merged[side] = {**(self.assignment.get(side) or {}), **(assignment.get(side) or {})}
        self.assignment = merged
        return None


class ModuloBeforePositive(Metadata):
    """``toPositive(hash % n)`` instead of ``toPositive(hash) % n``: a negative hash lands on
    another partition."""

    def partition_for(self, key: bytes, n: int) -> int:
        h = murmur2(key)
        java_remainder = -(abs(h) % n) if h < 0 else h % n  # Java's % keeps the dividend's sign
        return java_remainder & 0x7FFFFFFF


class Node:
    def __init__(self, metadata: Metadata) -> None:
        self.m = metadata

    def step(self, inp: dict[str, Any]) -> StepResult:
        kind = inp.get("type")
        if kind == "RebalanceStarted":
            self.m.rebalance_started()
            result: Any = None
        elif kind == "RebalanceFinished":
            self.m.rebalance_finished(inp["assignment"])
            result = None
        elif kind == "MetadataForKey":
            result = self.m.metadata_for_key(inp["store"], inp["key"])
        elif kind == "AllMetadata":
            result = self.m.all_metadata()
        elif kind == "AllMetadataForStore":
            result = self.m.all_metadata_for_store(inp["store"])
        else:
            raise TargetError(f"unknown streams input {kind!r}")
        return StepResult([], {"result": result})

    def close(self) -> None:
        pass


class Target:
    protocol = "streams"
    metadata_class: type[Metadata] = Metadata

    def __init__(self) -> None:
        self.name = f"python:redteam.streams:{type(self).__name__}"

    def start(self, node: int, config: dict[str, Any]) -> Node:
        return Node(self.metadata_class())

    def close(self) -> None:
        pass


def _target(cls: type[Metadata]) -> type[Target]:
    return type(cls.__name__ + "Target", (Target,), {"metadata_class": cls})


Correct = _target(Metadata)
CORRECT = "Correct"
BUGS: dict[str, type[Metadata]] = {
    "one-partition-unrouted": OnePartitionUnrouted,
    "first-source-count": FirstSourceCount,
    "key-cache-stale": KeyCache,
    "standby-stores-from-active": StandbyStoresFromActive,
    "global-store-busy-hosts-only": GlobalStoreOnBusyHostsOnly,
    "long-key-truncated": LongKeyTruncated,
    "store-name-normalised": StoreNameNormalised,
    "rebalance-drops-standbys": RebalanceDropsStandbys,
    "global-store-partition-zero": GlobalStorePartitionZero,
    "assignment-merged": AssignmentMerged,
    "modulo-before-positive": ModuloBeforePositive,
}
for _name, _cls in BUGS.items():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
