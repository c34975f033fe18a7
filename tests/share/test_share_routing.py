"""SHARE-RULE-ROUTING: Java's String.hashCode, Kafka's Utils.abs, abs(hash) % partitions."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from kspec.model.share.records import SharePartitionKey
from kspec.model.share.routing import java_string_hash, kafka_abs, partition_for


def test_java_string_hash_vectors() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("\u00e9") == 233
    assert java_string_hash("\U0001F600") == 0xD83D * 31 + 0xDE00  # a surrogate pair is two code units
    assert java_string_hash("polygenelubricants") == -(2**31)


def test_utils_abs_of_min_value_is_zero() -> None:
    assert kafka_abs(-(2**31)) == 0
    assert kafka_abs(-5) == 5
    assert partition_for(SharePartitionKey("polygenelubricants", "x", 0), 50) == partition_for(
        SharePartitionKey("polygenelubricants", "x", 0), 50)


def test_coordinator_key_format() -> None:
    key = SharePartitionKey("grp", "AAAAAAAAAAAAAAAAAAAAAA", 7)
    assert key.coordinator_key() == "grp:AAAAAAAAAAAAAAAAAAAAAA:7"
    assert partition_for(key, 50) == abs(java_string_hash("grp:AAAAAAAAAAAAAAAAAAAAAA:7")) % 50


@given(st.text(max_size=12), st.text(max_size=8), st.integers(0, 1000), st.integers(1, 200))
def test_partition_in_range(group: str, topic: str, partition: int, n: int) -> None:
    p = partition_for(SharePartitionKey(group, topic, partition), n)
    assert 0 <= p < n
    h = java_string_hash(f"{group}:{topic}:{partition}")
    assert -(2**31) <= h < 2**31
