"""Kafka Streams queryable-state metadata, session 11's planted bugs (none of sessions 5 and 8-10
nor of the catalogue), over session 5's from-scratch baseline ``redteam.streams.Metadata``.

Written as an outsider implementing the metadata state from spec/streams.md and the adapter
protocol: Python's falsy partition 0, a ``min`` where the widest source decides, a host list
cached at the first assignment, a sorted map's ``ceilingKey`` for a store lookup, an "automatic"
serde that writes numeric keys as integers, ``allMetadataForStore`` over active stores only, a
strict listener that drops an assignment no rebalance start announced, standby partitions listed
with the active ones, an off-by-one partition bound, and hosts keyed by port.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch4:Correct
"""

from __future__ import annotations

import re
from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams import Metadata, host_order
from redteam.streams_scratch import Rebalancing, ScratchTarget, store_sources

# ---------------------------------------------------------------------------- bugs


class FalsyPartitionNoStandbys(Metadata):
    """``standbys = ... if partition else []`` ("a global store has no partition", tested with
    Python's truthiness): a key of partition 0 is answered without its standby hosts."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if ans and ans["partition"] == 0:
            ans = {**ans, "standbys": []}
        return ans


class NarrowestSourceCount(Metadata):
    """A store over several source topics hashes modulo the *narrowest* source's partition
    count (``min`` for ``max``)."""

    def num_partitions(self, sources: list[str]) -> int:
        counts = (self.assignment or {}).get("partitions") or {}
        return min(counts.get(t, 0) for t in sources)


class HostsCached(Metadata):
    """The host list computed at the first assignment that names hosts and kept ("hosts do not
    change without a restart"): an instance that joins later is never listed or answered."""

    def __init__(self) -> None:
        super().__init__()
        self.cached: list[str] | None = None

    def hosts(self) -> list[str]:
        if self.cached is None:
            hosts = super().hosts()
            if hosts:
                self.cached = hosts
            return hosts
        return self.cached


class StoreLookupCeiling(Metadata):
    """Stores kept in a sorted map and looked up with ``ceilingKey`` (a misuse of the navigable
    map): an unknown store name finds the next store in name order."""

    def _resolve(self, store: str) -> str:
        a = self.assignment or {}
        names = sorted(set(a.get("stores") or {}) | set(a.get("global_stores") or []))
        if store in names:
            return store
        return next((s for s in names if s > store), store)

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        return super().metadata_for_key(self._resolve(store), key)

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        return super().all_metadata_for_store(self._resolve(store))


class KeyIntParsed(Metadata):
    """An "automatic" serde: a key that reads as a 32-bit integer is serialized as one (4 bytes,
    big-endian, Kafka's IntegerSerializer), other keys as UTF-8 strings."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        self._key = key
        return super().metadata_for_key(store, key)

    def partition_for(self, key: bytes, n: int) -> int:
        text = getattr(self, "_key", "")
        if re.fullmatch(r"-?[0-9]+", text) and -2**31 <= int(text) < 2**31:
            key = int(text).to_bytes(4, "big", signed=True)
        return super().partition_for(key, n)


class AllMetadataForStoreActiveOnly(Metadata):
    """``allMetadataForStore`` keeps the hosts whose *active* stores name the store: a host that
    holds it only as a standby is left out."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        out = super().all_metadata_for_store(store)
        if store in ((self.assignment or {}).get("global_stores") or []):
            return out
        return [e for e in out if store in e["stores"]]


class FinishWithoutStartIgnored(Rebalancing):
    """A strict listener: an assignment (``onChange``) that no rebalance start announced is
    dropped as out of order."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        if self.rebalancing:
            super().rebalance_finished(assignment)
        self.rebalancing = False


class EntryPartitionsUnion(Metadata):
    """A host's ``topicPartitions`` built from every partition it holds, standby ones too (the
    standby list is filled as well)."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        e["partitions"] = sorted(e["partitions"] + [tp for tp in e["standby_partitions"] if tp not in e["partitions"]])
        return e


class LastPartitionOffByOne(Metadata):
    """A partition bound check written ``0 <= p < n - 1`` (off by one): a key that hashes to the
    last partition of its store is answered NOT_AVAILABLE."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        sources = store_sources(self, store)
        if ans and sources and ans["partition"] >= 0 and ans["partition"] == self.num_partitions(sources) - 1:
            return {"active": "unavailable:-1", "standbys": [], "partition": -1}
        return ans


class HostsKeyedByPort(Metadata):
    """Instances keyed by port (the dev setup runs them all on localhost): two hosts on one port
    are one entry, the one later in host order."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        merged: dict[str, Any] = dict(assignment)
        for side in ("active", "standby"):
            by_port: dict[str, tuple[str, list[Any]]] = {}
            for h, tps in sorted((assignment.get(side) or {}).items(), key=lambda kv: host_order(kv[0])):
                port = h.rpartition(":")[2]
                by_port[port] = (h, by_port.get(port, (h, []))[1] + list(tps))
            merged[side] = {h: tps for h, tps in by_port.values()}
        super().rebalance_finished(merged)


Correct = subclass(globals(), "Correct", ScratchTarget, metadata_class=Metadata)
CORRECT = "Correct"
BUGS: dict[str, type[Metadata]] = {
    "falsy-partition-no-standbys": FalsyPartitionNoStandbys,
    "narrowest-source-count": NarrowestSourceCount,
    "hosts-cached": HostsCached,
    "store-lookup-ceiling": StoreLookupCeiling,
    "key-int-parsed": KeyIntParsed,
    "all-metadata-for-store-active-only": AllMetadataForStoreActiveOnly,
    "finish-without-start-ignored": FinishWithoutStartIgnored,
    "entry-partitions-union": EntryPartitionsUnion,
    "last-partition-off-by-one": LastPartitionOffByOne,
    "hosts-keyed-by-port": HostsKeyedByPort,
}
TARGETS = register(globals(), ScratchTarget, BUGS, attribute_target("metadata_class"))
