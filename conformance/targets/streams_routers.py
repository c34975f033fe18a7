"""Interactive-query routers as a user would write them: ``route(assignment, store, key_bytes,
partitions)`` returns where a key lives.

Conformance targets for the ``streams`` protocol, written apart from the model's
``kspec.model.streams.metadata.route``: their own murmur2 (over Java ``int`` semantics by
``struct`` wrapping) and their own scan of the assignment. They read the model's
``Assignment`` by attribute and answer with the model's ``KeyQueryMetadata`` so results compare.
``ReferenceRouter`` must meet the laws of spec/streams.md; ``IgnorePartitionCountRouter``
hashes the key modulo the number of instances and breaks STREAMS-LAW-PARTITION.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from kspec.model.streams.metadata import NOT_AVAILABLE, UNKNOWN_HOST, KeyQueryMetadata


def _int32(x: int) -> int:
    return struct.unpack("<i", struct.pack("<I", x & 0xFFFFFFFF))[0]


def _ushr(x: int, n: int) -> int:
    return (x & 0xFFFFFFFF) >> n


def java_murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``, transcribed statement by statement with int32 wrapping."""
    length = len(data)
    m = _int32(0x5BD1E995)
    h = _int32(_int32(0x9747B28C) ^ length)
    for i in range(length // 4):
        b = data[i * 4:i * 4 + 4]
        k = _int32(b[0] + (b[1] << 8) + (b[2] << 16) + (b[3] << 24))
        k = _int32(k * m)
        k = _int32(k ^ _ushr(k, 24))
        k = _int32(k * m)
        h = _int32(h * m)
        h = _int32(h ^ k)
    tail = length & ~3
    rest = length % 4
    if rest >= 3:
        h = _int32(h ^ (data[tail + 2] << 16))
    if rest >= 2:
        h = _int32(h ^ (data[tail + 1] << 8))
    if rest >= 1:
        h = _int32(h ^ data[tail])
        h = _int32(h * m)
    h = _int32(h ^ _ushr(h, 13))
    h = _int32(h * m)
    h = _int32(h ^ _ushr(h, 15))
    return h


class ReferenceRouter:
    """Routes a key as ``KafkaStreams.queryMetadataForKey`` with the default partitioner."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        return (java_murmur2(key) & 0x7FFFFFFF) % num_partitions

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        counts = dict(assignment.partitions) if partitions is None else dict(partitions)
        if not counts or max(counts.values()) <= 0:
            return NOT_AVAILABLE
        topology = assignment.topology
        hosts = sorted({h for h, _ in assignment.active} | {h for h, _ in assignment.standby})
        if store in topology.global_stores:
            return KeyQueryMetadata(hosts[0] if hosts else UNKNOWN_HOST, frozenset(), -1)
        sources = next((topics for name, topics in topology.stores if name == store), ())
        if not sources:
            return None
        widest = max(counts.get(t, 0) for t in sources)
        if widest <= 0:
            return NOT_AVAILABLE
        p = self.partition(key_bytes, widest, assignment)
        active = UNKNOWN_HOST
        standbys = set()
        for h in hosts:
            mine = [tp for hh, tps in assignment.active if hh == h for tp in tps]
            theirs = [tp for hh, tps in assignment.standby if hh == h for tp in tps]
            if any(tp.topic in sources and tp.partition == p for tp in mine):
                active = h
            if any(tp.topic in sources and tp.partition == p for tp in theirs):
                standbys.add(h)
        return KeyQueryMetadata(active, frozenset(standbys), p)

    __call__ = route


class IgnorePartitionCountRouter(ReferenceRouter):
    """Mutant: hashes the key modulo the number of instances, not the partition count."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        hosts = {h for h, _ in assignment.active} | {h for h, _ in assignment.standby}
        return (java_murmur2(key) & 0x7FFFFFFF) % max(len(hosts), 1)


REFERENCE = {"default": ReferenceRouter}
MUTANTS = {"ignore-partition-count": IgnorePartitionCountRouter}
