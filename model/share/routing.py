"""Finding a share-partition's coordinator: the key string parsed back (SHARE-RULE-KEY-PARSE) and
routed to a ``__share_group_state`` partition (SHARE-RULE-ROUTING).

``ShareCoordinatorService.partitionFor``: ``Utils.abs(key.asCoordinatorKey().hashCode()) %
numPartitions``, with Java's ``String.hashCode`` over UTF-16 code units in 32-bit arithmetic and
Kafka's ``Utils.abs``, which maps ``Integer.MIN_VALUE`` to 0 (``Math.abs`` would stay negative).
"""

from __future__ import annotations

import re

from kspec.model.share.records import SharePartitionKey

INT_MIN = -(2**31)
# share.coordinator.state.topic.num.partitions: Kafka's default, what a broker uses until the
# topic exists (ShareCoordinatorService.startup's supplier falls back to the config).
STATE_PARTITIONS = 50


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


def parse_coordinator_key(key: str, from_left: bool = False) -> SharePartitionKey | None:
    """SHARE-RULE-KEY-PARSE: the share-partition a coordinator key string names, or None when it
    names none. The topic id and the partition are the last two ``:``-separated fields (a topic
    id's base64url form and a number have no ``:``); the group id is everything before them,
    ``:`` included, exactly as written. A key with an empty group id or without three fields
    names none.

    ``from_left`` is the parse of Kafka 4.0.0-4.2.0 (deviation ``share-key-parsed-from-left``,
    KAFKA-20183): Java's ``key.split(":")`` (trailing empty fields dropped) must give exactly three
    fields, and the group id is the first one trimmed (``String.trim``: characters up to U+0020).
    """
    if from_left:
        fields = key.split(":")
        while fields and fields[-1] == "":
            fields.pop()
        if len(fields) != 3:
            return None
        group, topic, number = fields[0].strip("".join(map(chr, range(0x21)))), fields[1], fields[2]
    else:
        fields = key.rsplit(":", 2)
        if len(fields) != 3:
            return None
        group, topic, number = fields
    # Integer.parseInt takes an optional sign and ASCII digits (Python's int would also take
    # spaces and underscores).
    if group == "" or topic == "" or re.fullmatch(r"[+-]?[0-9]+", number) is None:
        return None
    return SharePartitionKey(group, topic, int(number))
