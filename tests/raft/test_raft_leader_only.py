"""Leader-only requests (RAFT-RULE-LEADER-ONLY): FetchSnapshot's shape rule and Kafka's catalogued
`&&` check (raft-fetch-snapshot-shape-unchecked), the variant's composition with another step
variant, and the driver's probe inputs (RAFT-DRIVE-LEADER-ONLY). The answers of every role are
in testdata/leader_only.txt."""

from __future__ import annotations

import pytest

from kspec.conformance.drivers.raft import SNAPSHOT_SHAPES, RaftDriver, input_cell, leader_only_requests
from kspec.model.raft import node as node_mod
from kspec.model.raft.messages import (
    OWN_PARTITION,
    CheckQuorumTimeout,
    DescribeQuorumRequest,
    ElectionTimeout,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    Halt,
    VoteResponse,
)
from kspec.model.raft.state import Down, Leader, Node
from kspec.model.raft.variants import DEVIATIONS, compose

UNCHECKED = DEVIATIONS["kafka-fetch-snapshot-shape-unchecked"]


def leader() -> Node:
    node = node_mod.new_node(1, frozenset({1, 2, 3}), kip853=True)
    node, _ = node_mod.step(node, ElectionTimeout())
    node, _ = node_mod.step(node, VoteResponse(2, 1, 1, True, None))
    assert isinstance(node.role, Leader)
    return node


@pytest.mark.parametrize("shape", sorted(SNAPSHOT_SHAPES))
def test_the_protocol_refuses_every_shape_but_one_partition(shape: str) -> None:
    node = leader()
    after, out = node_mod.step(node, FetchSnapshotRequest(2, 1, 1, topics=SNAPSHOT_SHAPES[shape]))
    assert after == node and len(out) == 1 and isinstance(out[0], FetchSnapshotResponse)
    expected = {"one": "SNAPSHOT_NOT_FOUND", "other-topic": "UNKNOWN_TOPIC_OR_PARTITION",
                "other-partition": "UNKNOWN_TOPIC_OR_PARTITION"}.get(shape, "INVALID_REQUEST")
    assert out[0].error == expected


def test_kafka_and_check_throws_on_no_topic_and_serves_two_partitions() -> None:
    node = leader()
    down, out = UNCHECKED.step(node, FetchSnapshotRequest(2, 1, 1, topics=()))
    assert out == (Halt("java.lang.IndexOutOfBoundsException"),) and isinstance(down.role, Down)
    answers = {shape: UNCHECKED.step(node, FetchSnapshotRequest(2, 1, 1, topics=topics))[1][0]
               for shape, topics in SNAPSHOT_SHAPES.items() if topics}
    assert {s: a.error for s, a in answers.items() if isinstance(a, FetchSnapshotResponse)} == {
        "one": "SNAPSHOT_NOT_FOUND", "two-partitions": "SNAPSHOT_NOT_FOUND", "two-topics": "SNAPSHOT_NOT_FOUND",
        "two-topics-two-partitions": "INVALID_REQUEST", "other-topic": "UNKNOWN_TOPIC_OR_PARTITION",
        "other-partition": "UNKNOWN_TOPIC_OR_PARTITION"}
    # any other input is the protocol's step
    assert UNCHECKED.step(node, CheckQuorumTimeout()) == node_mod.step(node, CheckQuorumTimeout())


def test_a_variant_of_some_inputs_composes_with_a_step_variant() -> None:
    never_resigns = DEVIATIONS["kafka-no-check-quorum"]
    both = compose([never_resigns, UNCHECKED])
    node = leader()
    assert both(node, CheckQuorumTimeout()) == (node, ())  # 3.3-3.6: no check-quorum
    assert isinstance(both(node, FetchSnapshotRequest(2, 1, 1, topics=()))[0].role, Down)
    with pytest.raises(ValueError):
        compose([never_resigns, DEVIATIONS["kafka-observer-voted-stands"]])
    driver = RaftDriver({"model_variant": "kafka-no-check-quorum+kafka-fetch-snapshot-shape-unchecked"})
    assert driver.variant.count("+") == 1


def test_every_role_gets_every_shape_epoch_and_describe_quorum() -> None:
    driver = RaftDriver({})
    state = driver.init_state()
    for n in state.nodes:
        found = leader_only_requests(state, n, frozenset())
        snaps = [m for m in found if isinstance(m, FetchSnapshotRequest)]
        assert {m.topics for m in snaps} == set(SNAPSHOT_SHAPES.values())
        assert {m.epoch for m in snaps if m.topics == OWN_PARTITION} == {-1, 0, 1}
        assert sum(isinstance(m, DescribeQuorumRequest) for m in found) == 1
        assert all(m.dst == n.id and m.orphaned for m in found)
    node = state.nodes[0]
    no_topic = FetchSnapshotRequest(2, 1, 0, topics=())
    assert input_cell(node, no_topic) == ("unattached", "FetchSnapshotRequest= no-topic")
    assert input_cell(node, FetchSnapshotRequest(2, 1, -1)) == ("unattached", "FetchSnapshotRequest< -1 one")
