"""Routing a share-partition key to a ``__share_group_state`` partition (SHARE-RULE-ROUTING).

``ShareCoordinatorService.partitionFor``: ``Utils.abs(key.asCoordinatorKey().hashCode()) %
numPartitions``, with Java's ``String.hashCode`` over UTF-16 code units in 32-bit arithmetic and
Kafka's ``Utils.abs``, which maps ``Integer.MIN_VALUE`` to 0 (``Math.abs`` would stay negative).
"""

from __future__ import annotations

from kspec.model.share.records import SharePartitionKey

INT_MIN = -(2**31)


def to_int32(n: int) -> int:
    """Wrap an integer to Java's 32-bit two's complement."""
    n &= 0xFFFFFFFF
    return n - 2**32 if n >= 2**31 else n


def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode``: ``s[0]*31^(n-1) + ... + s[n-1]`` over UTF-16 code units."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + ((data[i] << 8) | data[i + 1])) & 0xFFFFFFFF
    return to_int32(h)


def kafka_abs(n: int) -> int:
    """Kafka's ``Utils.abs``: ``n == Integer.MIN_VALUE ? 0 : Math.abs(n)``."""
    return 0 if n == INT_MIN else abs(n)


def partition_for(key: SharePartitionKey, num_partitions: int) -> int:
    """The ``__share_group_state`` partition whose coordinator owns ``key``."""
    if num_partitions <= 0:
        raise ValueError(f"num_partitions must be positive, got {num_partitions}")
    return kafka_abs(java_string_hash(key.coordinator_key())) % num_partitions
