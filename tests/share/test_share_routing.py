"""SHARE-RULE-ROUTING: Java's String.hashCode, Kafka's Utils.abs, abs(hash) % partitions."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kspec.model.share.records import SharePartitionKey
from kspec.model.share.routing import java_string_hash, kafka_abs, parse_coordinator_key, partition_for


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


# -- SHARE-RULE-KEY-PARSE: FindCoordinator recovers the share-partition from the key string ----

ODD_GROUPS = ("a:b", ":lead", "trail:", "x::y", "::", " padded ", "gr\u00fcppe-\U0001F600", "k:T:7", "x" * 300)


@pytest.mark.parametrize("group", ODD_GROUPS)
def test_the_parse_gives_back_every_group_id(group: str) -> None:
    key = SharePartitionKey(group, "y6cwZmhbJHOwKfrveLr4zw", 3)
    assert parse_coordinator_key(key.coordinator_key()) == key


@given(st.text(min_size=1, max_size=20), st.integers(0, 2**31 - 1))
def test_the_parse_inverts_the_format(group: str, partition: int) -> None:
    key = SharePartitionKey(group, "AAAAAAAAAAAAAAAAAAAAAA", partition)
    assert parse_coordinator_key(key.coordinator_key()) == key


def test_parsed_from_left_refuses_a_colon_and_trims() -> None:
    """Kafka 4.0.0-4.2.0's parse (KAFKA-20183): three fields exactly, the group id trimmed."""
    topic = "y6cwZmhbJHOwKfrveLr4zw"
    assert parse_coordinator_key(f"a:b:{topic}:0", from_left=True) is None
    assert parse_coordinator_key(f":lead:{topic}:0", from_left=True) is None
    assert parse_coordinator_key(f" padded :{topic}:0", from_left=True) == SharePartitionKey("padded", topic, 0)
    assert parse_coordinator_key(f"g:{topic}:0", from_left=True) == SharePartitionKey("g", topic, 0)


@pytest.mark.parametrize("text", ["", "g", "g:T", ":T:0", "g:T:", "g:T:x", "g::0", "g:T:1_0", "g:T: 1"])
def test_strings_naming_no_share_partition(text: str) -> None:
    assert parse_coordinator_key(text) is None


def test_find_coordinator_answers_in_every_shard_kind() -> None:
    from kspec.model.share.shard import (
        NONE,
        FindCoordinatorRequest,
        FindCoordinatorResponse,
        ShardState,
        step,
        unload,
    )
    from kspec.model.share.versions import rules_of, with_deviations

    req = FindCoordinatorRequest("a:b", "y6cwZmhbJHOwKfrveLr4zw", 0)
    want = partition_for(SharePartitionKey("a:b", "y6cwZmhbJHOwKfrveLr4zw", 0), 50)
    for shard in (ShardState(), unload(ShardState()), ShardState(rules=rules_of(0))):
        after, outputs = step(shard, req)
        assert after == shard and outputs == (FindCoordinatorResponse(req.topic_id, 0, NONE, "", want),)
    left = ShardState(rules=with_deviations(rules_of(1), ["share-key-parsed-from-left"]))
    [response] = step(left, req)[1]
    assert isinstance(response, FindCoordinatorResponse)
    assert (response.error, response.coordinator) == ("INVALID_REQUEST", -1)


def test_routing_probes_reach_utils_abs_of_min_value() -> None:
    """SHARE-DRIVE-ROUTING holds a group id whose coordinator key hashes to Integer.MIN_VALUE
    (Utils.abs gives partition 0), and the mutant share-routing-math-abs (Math.abs: -48) differs
    from the reference on that probe alone: no other route key can catch it (red team,
    session 14)."""
    from kspec.conformance.targets.mutants_share import RoutingMathAbs
    from kspec.conformance.targets.reference.share import ShareShard
    from kspec.model.share.system import ROUTE_KEYS

    texts = [k.coordinator_key() for k in ROUTE_KEYS]
    at_min = [t for t in texts if java_string_hash(t) == -(2**31)]
    assert len(at_min) == 1
    reference, mutant = ShareShard(1, None), RoutingMathAbs(1, None)
    assert [t for t in texts if mutant.route(t) != reference.route(t)] == at_min
    assert (reference.route(at_min[0]), mutant.route(at_min[0])) == (0, -48)


def test_guided_paths_end_with_a_lookup_while_unloaded() -> None:
    """SHARE-DRIVE-ROUTING-UNLOADED: a guided path of a target that answers FindCoordinator ends
    with Unload, a routing probe, Load (the broker answers from the key alone, loaded or not);
    a target that does not declare ``routing`` gets none of it (red team, session 14)."""
    from kspec.conformance.drivers.share import ShareDriver
    from kspec.model.share.system import ROUTE_KEYS, FindCoordinator, Load, Unload

    routed = ShareDriver({"routing": True})
    state = routed.init_state()
    probes = routed.probes(state, 1)
    # the routing probes, then the path-end probes that follow them (SHARE-DRIVE-COUNT-FROM-BELOW ...)
    assert [type(a) for _, a in probes][:3] == [Unload, FindCoordinator, Load]
    assert probes[1] == ("routing", FindCoordinator(ROUTE_KEYS[1]))
    plain = ShareDriver({}).probes(state, 1)
    assert not any(isinstance(a, Unload | FindCoordinator | Load) for _, a in plain)
    assert [c for c, _ in plain] == [c for c, _ in probes[3:]]
