"""Kafka Streams queryable-state metadata, session 8's planted bugs (issue: red team beyond raft).

The bug-free metadata state is session 5's from-scratch ``redteam.streams.Metadata`` (written
from spec/streams.md and spec/adapter-protocol.md only); this module adds bugs it does not have,
chosen as a Java-to-Python or Python-from-docs port gets them wrong: murmur2 ported with signed
shifts or bytes, tail switches without fall-through, keys in the wrong charset, the rebalance
listener read as "not available", unknown stores answered like missing metadata.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import SelfNamed, attribute_target, register, subclass
from redteam.streams import NOT_AVAILABLE, Metadata, PlainTarget, _i32


def murmur2_variant(data: bytes, *, fallthrough: bool = True, signed_tail: bool = False,
                    big_endian: bool = False, signed_shift: bool = False) -> int:
    """Utils.murmur2 with the slips of a port switched on."""
    m, r = 0x5BD1E995, 24

    def shr(x: int, n: int) -> int:  # >>> (or >> when ported wrongly)
        return x >> n if signed_shift else (x & 0xFFFFFFFF) >> n

    def byte(b: int) -> int:
        return b - 256 if signed_tail and b > 127 else b

    h = _i32(0x9747B28C ^ len(data))
    n4 = len(data) // 4
    for i in range(n4):
        k = int.from_bytes(data[4 * i:4 * i + 4], "big" if big_endian else "little")
        k = _i32(k * m)
        k ^= (k & 0xFFFFFFFF) >> r
        k = _i32(k * m)
        h = _i32(_i32(h * m) ^ k)
    tail, rest = 4 * n4, len(data) % 4
    if fallthrough:
        if rest == 3:
            h = _i32(h ^ (byte(data[tail + 2]) << 16))
        if rest >= 2:
            h = _i32(h ^ (byte(data[tail + 1]) << 8))
        if rest >= 1:
            h = _i32(_i32(h ^ byte(data[tail])) * m)
    else:  # a switch without fall-through: only the highest tail byte is mixed in
        if rest == 3:
            h = _i32(h ^ (byte(data[tail + 2]) << 16))
        elif rest == 2:
            h = _i32(h ^ (byte(data[tail + 1]) << 8))
        elif rest == 1:
            h = _i32(_i32(h ^ byte(data[tail])) * m)
    h = _i32(h ^ shr(h, 13))
    h = _i32(h * m)
    return _i32(h ^ shr(h, 15))


class TailNoFallthrough(Metadata):
    """murmur2's tail ``switch`` ported as ``if/elif``: a key of 2 or 3 tail bytes mixes in only
    its highest one (and skips the multiply)."""

    def partition_for(self, key: bytes, n: int) -> int:
        return (murmur2_variant(key, fallthrough=False) & 0x7FFFFFFF) % n


class TailSignedBytes(Metadata):
    """murmur2's tail bytes taken as Java's signed ``byte`` without ``& 0xff``: a tail byte
    >= 0x80 (multi-byte UTF-8) is sign-extended."""

    def partition_for(self, key: bytes, n: int) -> int:
        return (murmur2_variant(key, signed_tail=True) & 0x7FFFFFFF) % n


class BodyBigEndian(Metadata):
    """murmur2's 4-byte blocks read big-endian (``int.from_bytes`` default order)."""

    def partition_for(self, key: bytes, n: int) -> int:
        return (murmur2_variant(key, big_endian=True) & 0x7FFFFFFF) % n


class SignedShift(Metadata):
    """murmur2's final mix with ``>>`` for Java's ``>>>``: a negative intermediate hash shifts
    in ones."""

    def partition_for(self, key: bytes, n: int) -> int:
        return (murmur2_variant(key, signed_shift=True) & 0x7FFFFFFF) % n


class KeyLatin1(Metadata):
    """The key serialized as ISO-8859-1 (a ``getBytes()`` with the platform charset), not
    UTF-8: a key with characters past U+00FF hashes over ``?`` bytes, one past U+007F over one
    byte instead of two."""

    def partition_for(self, key: bytes, n: int) -> int:
        return super().partition_for(key.decode("utf-8").encode("latin-1", "replace"), n)


class CountSum(Metadata):
    """A store over several source topics hashes modulo the *sum* of their partition counts
    (all the partitions the store reads), not the widest topic's."""

    def num_partitions(self, sources: list[str]) -> int:
        counts = (self.assignment or {}).get("partitions") or {}
        return sum(counts.get(t, 0) for t in sources)


class IdleMemberDropped(Metadata):
    """``allMetadata`` lists only the hosts holding some partition: a member of the rebalance
    without a task is left out (STREAMS-RULE-EVERY-MEMBER)."""

    def hosts(self) -> list[str]:
        a = self.assignment or {}
        busy = {h for m in ("active", "standby") for h, tps in (a.get(m) or {}).items() if tps}
        return [h for h in super().hosts() if h in busy]


class GlobalStoreInStandbyStores(Metadata):
    """Global stores added to every host's standby stores as well as its active ones (every
    instance holds a copy, so "it is a standby too")."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        glob = (self.assignment or {}).get("global_stores") or []
        return {**e, "standby_stores": sorted(set(e["standby_stores"]) | set(glob))}


class GlobalKeyStandbysAll(Metadata):
    """A global store's key answers every other host as a standby (they all hold the store)."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        res = super().metadata_for_key(store, key)
        if res is not None and store in ((self.assignment or {}).get("global_stores") or []) and self.initialized():
            res = {**res, "standbys": [h for h in self.hosts() if h != res["active"]]}
        return res


class UnknownStoreNotAvailable(Metadata):
    """A key query of a store the topology does not have answers NOT_AVAILABLE ("no metadata
    for it yet") instead of null."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        a = self.assignment or {}
        if self.initialized() and store not in (a.get("stores") or {}) and store not in (a.get("global_stores") or []):
            return dict(NOT_AVAILABLE)
        return super().metadata_for_key(store, key)


class UnknownStoreAllHosts(Metadata):
    """``allMetadataForStore`` of an unknown store lists every host (the lookup falls through to
    the global-store branch)."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        a = self.assignment or {}
        if self.initialized() and store not in (a.get("stores") or {}):
            return self.all_metadata()
        return super().all_metadata_for_store(store)


def store_sources(meta: Metadata, store: str) -> list[str]:
    """The source topics of ``store`` in ``meta``'s last assignment ([] when none)."""
    return list(((meta.assignment or {}).get("stores") or {}).get(store) or [])


class Rebalancing(Metadata):
    """Keeps whether a rebalance was announced (``rebalance_started``, Kafka's
    onPartitionsRevoked) and has not finished (a base of the listeners that act on it)."""

    def __init__(self) -> None:
        super().__init__()
        self.rebalancing = False

    def rebalance_started(self) -> None:
        self.rebalancing = True


class NotAvailableDuringRebalance(Rebalancing):
    """Key queries answer NOT_AVAILABLE from a rebalance's start to its end (KIP-67's
    "available after rebalance"), though Kafka answers from the last assignment."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        self.rebalancing = False
        super().rebalance_finished(assignment)

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        return dict(NOT_AVAILABLE) if self.rebalancing else super().metadata_for_key(store, key)


class PartitionsSortedByNumber(Metadata):
    """A host's partitions sorted by partition number, then topic (``[[input, 0], [side, 0],
    [input, 1]]``), where the wire format sorts ``[topic, partition]``."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        return {**e, "partitions": sorted(e["partitions"], key=lambda tp: (tp[1], tp[0])),
                "standby_partitions": sorted(e["standby_partitions"], key=lambda tp: (tp[1], tp[0]))}


class EmptyKeyNull(Metadata):
    """An empty key is answered null ("no key, no partition"), where Kafka hashes the empty
    byte array."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if key == "" and self.initialized():
            return None
        return super().metadata_for_key(store, key)


class ScratchTarget(SelfNamed, PlainTarget):
    """A streams red-team target named after its own module and class (the later scratch modules
    build on it)."""


Correct = subclass(globals(), "Correct", ScratchTarget, metadata_class=Metadata)
CORRECT = "Correct"
BUGS: dict[str, type[Metadata]] = {
    "tail-no-fallthrough": TailNoFallthrough,
    "tail-signed-bytes": TailSignedBytes,
    "body-big-endian": BodyBigEndian,
    "signed-shift": SignedShift,
    "key-latin1": KeyLatin1,
    "count-sum": CountSum,
    "idle-member-dropped": IdleMemberDropped,
    "global-store-in-standby-stores": GlobalStoreInStandbyStores,
    "global-key-standbys-all": GlobalKeyStandbysAll,
    "unknown-store-not-available": UnknownStoreNotAvailable,
    "unknown-store-all-hosts": UnknownStoreAllHosts,
    "not-available-during-rebalance": NotAvailableDuringRebalance,
    "partitions-sorted-by-number": PartitionsSortedByNumber,
    "empty-key-null": EmptyKeyNull,
}
TARGETS = register(globals(), ScratchTarget, BUGS, attribute_target("metadata_class"))
