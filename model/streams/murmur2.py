"""Kafka's murmur2 and the default partitioner for keyed records.

``murmur2`` is ``org.apache.kafka.common.utils.Utils.murmur2`` (32-bit MurmurHash2 with seed
0x9747b28c), computed in Java ``int`` arithmetic: products wrap at 32 bits, ``>>>`` is an
unsigned shift, and the result is a signed int. ``partition_for_key`` is what the producer's
built-in partitioner and Streams' ``DefaultStreamPartitioner`` do with serialized key bytes:
``toPositive(murmur2(key)) % numPartitions`` (STREAMS-RULE-DEFAULT-PARTITIONER).
"""

from __future__ import annotations

_MASK = 0xFFFFFFFF
_SEED = 0x9747B28C
_M = 0x5BD1E995
_R = 24


def _signed(value: int) -> int:
    value &= _MASK
    return value - (1 << 32) if value & 0x80000000 else value


def murmur2(data: bytes) -> int:
    """``Utils.murmur2(data)``: a signed 32-bit hash."""
    length = len(data)
    h = (_SEED ^ length) & _MASK
    full = length - length % 4
    for i in range(0, full, 4):
        k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
        k = (k * _M) & _MASK
        k ^= k >> _R
        k = (k * _M) & _MASK
        h = (h * _M) & _MASK
        h ^= k
    rest = length % 4
    # Java's switch falls through from case 3 to case 1.
    if rest == 3:
        h ^= data[full + 2] << 16
    if rest >= 2:
        h ^= data[full + 1] << 8
    if rest >= 1:
        h ^= data[full]
        h = (h * _M) & _MASK
    h ^= h >> 13
    h = (h * _M) & _MASK
    h ^= h >> 15
    return _signed(h)


def to_positive(number: int) -> int:
    """``Utils.toPositive``: clear the sign bit (not ``abs``: ``Integer.MIN_VALUE`` maps to 0)."""
    return number & 0x7FFFFFFF


def partition_for_key(key: bytes, num_partitions: int) -> int:
    """The default partitioner's partition for serialized ``key`` among ``num_partitions``."""
    if num_partitions <= 0:
        raise ValueError(f"num_partitions must be positive, got {num_partitions}")
    return to_positive(murmur2(key)) % num_partitions
