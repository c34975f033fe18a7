"""Kafka Streams' own ``StreamsMetadataState`` (``kafka:VERSION``, streams) against the model's
metadata functions (spec/streams.md): ``kspec conform`` at a small budget, every answer over
generated assignments of a several-store topology, and the behaviours that only Kafka's code has.

One Kafka version per process: KSPEC_KAFKA_TEST_VERSION (default 4.0.0, as the mm2 and share
tests, so tests/kafka runs in one process; 3.2.3, 3.5.2, 3.8.1 and 4.2.0 pass too). The first
run downloads the jars into the kspec cache; without Maven or network the target fails and so do
these tests, with the one-line reason.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kspec.conformance.adapters.base import TargetError
from kspec.conformance.cli import main
from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.targets import registry
from kspec.conformance.targets.kafka.artifacts import version_tuple
from kspec.conformance.targets.kafka.streams import KafkaStreamsTarget
from kspec.model.streams.metadata import (
    NOT_AVAILABLE,
    Assignment,
    HostInfo,
    TopicPartition,
    Topology,
    all_metadata,
    all_metadata_for_store,
    assignment_json,
    key_metadata_json,
    partitions_from_active,
    route,
    streams_metadata_json,
)
from kspec.model.streams.murmur2 import partition_for_key
from kspec.model.streams.system import Plan, to_assignment

VERSION = os.environ.get("KSPEC_KAFKA_TEST_VERSION", "4.0.0")
# Stores over one topic, two co-partitioned topics, and two topics of different sizes (the
# widest one is hashed over), and a global store.
TOPOLOGY = Topology((("counts", ("input",)), ("joined", ("left", "right")), ("agg", ("input", "other"))),
                    frozenset({"global"}))
CONFIG: dict[str, Any] = {"stores": {n: list(ts) for n, ts in TOPOLOGY.stores}, "global_stores": ["global"]}
STORES = ["counts", "joined", "agg", "global", "missing"]


@pytest.fixture(scope="module")
def kafka() -> KafkaStreamsTarget:
    target = registry.resolve_target(f"kafka:{VERSION}", "streams")
    assert isinstance(target, KafkaStreamsTarget)
    return target


def _finish(node: Any, a: Assignment) -> None:
    assert node.step({"type": "RebalanceFinished", "assignment": assignment_json(a)}).observation == {"result": None}


def _key(node: Any, store: str, key: str) -> Any:
    return node.step({"type": "MetadataForKey", "store": store, "key": key}).observation["result"]


@st.composite
def complete_assignments(draw: st.DrawFn) -> Assignment:
    """What the assignor hands out: every task (partition p of a sub-topology's topics) has one
    active host and standbys on other hosts; a member may have no task at all."""
    hosts = sorted({HostInfo(f"host{i}", 8080 + draw(st.integers(0, 1))) for i in range(draw(st.integers(1, 4)))})
    counts = {t: draw(st.integers(1, 5)) for t in ("input", "left", "other")}
    counts["right"] = counts["left"]
    tasks = [[TopicPartition(t, p) for t in group if p < counts[t]]
             for group in (("input", "other"), ("left", "right")) for p in range(max(counts[t] for t in group))]
    active: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    standby: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    for task in tasks:
        owner = draw(st.sampled_from(hosts))
        active[owner].update(task)
        for h in hosts:
            if h != owner and draw(st.booleans()):
                standby[h].update(task)
    return Assignment(TOPOLOGY, tuple((h, frozenset(active[h])) for h in hosts),
                      tuple((h, frozenset(standby[h])) for h in hosts if standby[h]), tuple(sorted(counts.items())))


def test_target_is_kafkas_own_class(kafka: KafkaStreamsTarget) -> None:
    node = kafka.start(0, {})
    assert str(node.state().getClass().getName()) == "org.apache.kafka.streams.processor.internals.StreamsMetadataState"
    assert kafka.name == f"kafka:{VERSION}"
    # 4.0 dropped the "get" of the query methods; the target finds each release's names.
    assert kafka.java.m_key == ("keyQueryMetadataForKey" if version_tuple(VERSION) >= (4, 0)
                                else "getKeyQueryMetadataForKey")
    assert _key(node, "counts", "alice") == key_metadata_json(NOT_AVAILABLE)


def test_conform_lockstep_against_kafka(kafka: KafkaStreamsTarget, tmp_path: Path) -> None:
    # `kspec conform streams --target kafka:VERSION` at a small budget (the default budget's
    # verdicts are in docs/kafka-matrix.md).
    result = run_conformance("streams", kafka, examples=30, steps=30, seed_value=1, out_dir=tmp_path)
    assert result.verdict == "conforms", result.finding and result.finding.line()


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(a=complete_assignments(), key=st.text(alphabet="abcdefghij", max_size=6))
def test_kafka_answers_as_the_model(kafka: KafkaStreamsTarget, a: Assignment, key: str) -> None:
    node = kafka.start(0, CONFIG)
    _finish(node, a)
    for store in STORES:
        assert _key(node, store, key) == key_metadata_json(route(a, store, key.encode())), (store, key)
        got = node.step({"type": "AllMetadataForStore", "store": store}).observation["result"]
        assert got == [streams_metadata_json(m) for m in all_metadata_for_store(a, store)], store
    got = node.step({"type": "AllMetadata"}).observation["result"]
    assert got == [streams_metadata_json(m) for m in all_metadata(a)]


def test_a_member_without_a_task_is_listed_as_kafka_lists_it(kafka: KafkaStreamsTarget) -> None:
    # STREAMS-RULE-EVERY-MEMBER: the system model's assignment names host2, which has no task, in
    # both maps with empty sets, as populatePartitionsByHostMaps does; Kafka's allMetadata lists it
    # with no partitions and no stores (no global store here), as the model does.
    plan = Plan((0, 1, 0), (frozenset({1}), frozenset({0}), frozenset({1})), frozenset({0, 1, 2}))
    a = to_assignment(plan)
    node = kafka.start(0, {})
    _finish(node, a)
    got = node.step({"type": "AllMetadata"}).observation["result"]
    assert got == [streams_metadata_json(m) for m in all_metadata(a)]
    assert got[-1] == {"host": "host2:8080", "stores": [], "partitions": [], "standby_stores": [],
                       "standby_partitions": []}
    # With a global store a task-less member holds it, as every member does.
    b = Assignment(TOPOLOGY, a.active, a.standby, (("input", 3), ("left", 1), ("other", 1), ("right", 1)))
    node = kafka.start(0, CONFIG)
    _finish(node, b)
    assert node.step({"type": "AllMetadata"}).observation["result"][-1]["stores"] == ["global"]
    got = node.step({"type": "AllMetadataForStore", "store": "global"}).observation["result"]
    assert [m["host"] for m in got] == ["host0:8080", "host1:8080", "host2:8080"]


def test_kafka_counts_the_partitions_of_the_active_map(kafka: KafkaStreamsTarget) -> None:
    # STREAMS-RULE-PARTITION-INFO: a member learns partition counts from the active host map
    # (StreamsPartitionAssignor.getTopicPartitionInfo), not from the topic. With input-2 in no
    # host's active set Kafka hashes over 2 partitions where the topic has 3; the model's
    # partitions_from_active gives 2 too. (STREAMS-ASSUME-ACTIVE-COVERS keeps this case out of
    # the system model: every plan gives every partition an active member.)
    host0, host1 = HostInfo("host0", 8080), HostInfo("host1", 8080)
    a = Assignment(Topology((("counts", ("input",)),)),
                   ((host0, frozenset({TopicPartition("input", 0)})), (host1, frozenset({TopicPartition("input", 1)}))),
                   (), (("input", 3),))
    node = kafka.start(0, {})
    _finish(node, a)
    got = _key(node, "counts", "alice")
    assert got["partition"] == partition_for_key(b"alice", 2) == 1
    assert dict(partitions_from_active(a.active)) == {"input": 2}
    assert got == key_metadata_json(route(a, "counts", b"alice", dict(partitions_from_active(a.active)))) == {
        "active": "host1:8080", "standbys": [], "partition": 1}
    assert got != key_metadata_json(route(a, "counts", b"alice"))
    # A store whose topics have no active partition: Kafka's partitioner divides by zero.
    b = Assignment(TOPOLOGY, ((host0, frozenset({TopicPartition("input", 0)})),), (),
                   (("input", 1), ("left", 1), ("other", 1), ("right", 1)))
    node = kafka.start(0, CONFIG)
    _finish(node, b)
    with pytest.raises(TargetError, match=r"ArithmeticException.*/ by zero"):
        _key(node, "joined", "alice")


def test_a_member_the_assignment_does_not_name_is_not_initialized(kafka: KafkaStreamsTarget) -> None:
    # Why the instance answering is a host the assignment names: Kafka's isInitialized() needs
    # localMetadata, set only by an onChange that names this host.
    a = Assignment(Topology((("counts", ("input",)),)),
                   ((HostInfo("host1", 8080), frozenset(TopicPartition("input", p) for p in range(3))),), (),
                   (("input", 3),))
    node = kafka.start(0, {"application_server": "host0:8080"})
    _finish(node, a)
    assert node.answering == "host1:8080"
    assert _key(node, "counts", "alice") == {"active": "host1:8080", "standbys": [], "partition": 0}
    java = kafka.java
    outsider = node.state("host9:8080")
    active = java.host_map(assignment_json(a)["active"])
    info = java.partition_info.invoke(None, active)
    if java.change_takes_cluster:  # before 3.6 onChange takes a Cluster
        info = java.Cluster.empty().withPartitions(info)
    java.on_change.invoke(outsider, active, java.HashMap(), info)
    found = getattr(outsider, java.m_key)(java.JString("counts"), java.JString("alice"), java.serializer)
    assert int(found.partition()) == -1 and str(found.activeHost().host()) == "unavailable"


def test_an_instance_keeps_its_topology(kafka: KafkaStreamsTarget) -> None:
    node = kafka.start(0, {})
    other = Assignment(Topology((("sums", ("input",)),)), (), (), (("input", 1),))
    with pytest.raises(TargetError, match="an instance's topology is fixed"):
        _finish(node, other)
    with pytest.raises(TargetError, match="'stores' must map a store"):
        kafka.start(0, {"stores": ["counts"]})


def test_a_bad_version_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(registry.UnknownTarget, match=r"^kafka:2\.8\.2: not supported for streams .*3\.0\.0"):
        registry.resolve_target("kafka:2.8.2", "streams")
    with pytest.raises(SystemExit) as exit_info:
        main(["conform", "streams", "--target", "kafka:four"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert err.count("\n") == 1 and "kafka:four: not a Kafka version" in err, err
