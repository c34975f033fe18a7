"""The coordinator's redundant offset (SHARE-RULE-REDUNDANT-OFFSET, ``ShareCoordinatorOffsetsManager``):
the shard's rule at node level, 4.1.0's deviation (KAFKA-19695) doing what Kafka 4.1.0 does, the
system properties breaking under the variant only, and what the driver compares. The two mutants
(share-redundant-pinned-by-delete, share-redundant-counts-updates) are held to a divergence by
tests/conformance/test_conformance_lockstep.py::test_mutant_caught_and_replays."""

from __future__ import annotations

from dataclasses import replace

import pytest

from kspec.conformance.drivers.share import ShareDriver
from kspec.model.share.records import ACKNOWLEDGED, StateBatch
from kspec.model.share.shard import (
    DeleteRequest,
    InitializeRequest,
    ShardState,
    WriteRequest,
    load,
    observe,
    redundant_offset,
    step,
)
from kspec.model.share.system import OTHER_PARTITION, Delete, Initialize, Write
from kspec.model.share.variants import build
from kspec.model.share.versions import rules_of, with_deviations

IMAGE = frozenset({("T", 0), ("T", 1)})
BATCH = (StateBatch(1, 1, ACKNOWLEDGED, 1),)
PINNED = "share-redundant-offset-pinned-by-delete"


def shard(*deviations: str, limit: int = 1) -> ShardState:
    return ShardState(snapshot_limit=limit, image=IMAGE, rules=with_deviations(rules_of(4), deviations))


def run(state: ShardState, *requests: object) -> tuple[ShardState, list[object]]:
    """``requests`` in order, each answered NONE; the shard and the records it wrote."""
    log: list[object] = []
    for req in requests:
        state, outs = step(state, req)  # type: ignore[arg-type]
        assert outs[-1].error == "NONE", outs[-1]  # type: ignore[union-attr]
        log += outs[:-1]
    return state, log


INIT_0, INIT_1 = InitializeRequest("g", "T", 0, 1, 0), InitializeRequest("g", "T", 1, 1, 0)
WRITE_0 = WriteRequest("g", "T", 0, 0, 1, -1, BATCH)


def test_only_snapshots_move_it_and_the_lowest_stored_key_holds_it() -> None:
    s, _ = run(shard(), INIT_0)
    assert redundant_offset(s) is None  # offset 0: nothing is redundant (Kafka's empty Optional)
    s, _ = run(s, INIT_1, WRITE_0)  # 1: g:T:1's snapshot, 2: g:T:0's update
    assert s.redundant == 0 and s.log_end == 3
    s, _ = run(s, WRITE_0)  # 3: g:T:0's limit snapshot; g:T:1's snapshot at 1 is now the lowest
    assert redundant_offset(s) == 1


@pytest.mark.parametrize(("deviations", "want"), [((), 2), ((PINNED,), 1)])
def test_a_deleted_key_holds_nothing_back_but_in_4_1_0(deviations: tuple[str, ...], want: int) -> None:
    # 0: g:T:0 initialized, 1: its tombstone, 2: g:T:1 initialized
    s, log = run(shard(*deviations), INIT_0, DeleteRequest("g", "T", 0), INIT_1)
    assert redundant_offset(s) == want
    assert observe(s)["redundant_offset"] == want
    # a fail-over replays the log at the same offsets and gets the same value
    assert load(log, 1, IMAGE, s.rules).redundant == s.redundant  # type: ignore[arg-type]


def test_with_every_key_deleted_the_last_tombstone_holds_it() -> None:
    s, _ = run(shard(), INIT_0, INIT_1, DeleteRequest("g", "T", 0), DeleteRequest("g", "T", 1))
    assert redundant_offset(s) == 3 and s.snapshot_offsets == ()


def test_the_system_properties_break_under_the_deviation_only() -> None:
    actions = (Initialize(1, 0), Delete(), Initialize(1, 0, key=OTHER_PARTITION))
    for variant, broken in (("", set()), (PINNED, {"redundant_offset_released"})):
        model = build(variant, kafka_minor=1, probes=True, max_records=10)
        s = model.init_states()[0]
        for a in actions:
            after = model.next_state(s, a)
            assert after is not None
            s = after
        assert {p.name for p in model.properties() if p.kind == "always" and not p.holds(s)} == broken
        reached = {p.name for p in model.properties() if p.kind == "sometimes" and p.holds(s)}
        assert ("delete_releases_log" in reached) == (not variant)


def test_safe_property_sees_an_update_taken_for_a_snapshot() -> None:
    model = build("", kafka_minor=4, probes=True, max_records=10)
    s = model.init_states()[0]
    for a in (Initialize(1, 0), Write(0, -1, BATCH)):
        after = model.next_state(s, a)
        assert after is not None
        s = after
    safe = next(p for p in model.properties() if p.name == "redundant_records_superseded")
    assert safe.holds(s)
    # the update at offset 1 taken for a full state: a log pruned below it loses the snapshot
    assert not safe.holds(replace(s, shard=replace(s.shard, redundant=1)))


def test_compared_only_for_a_target_that_reports_it() -> None:
    obs = {"active": True, "partitions": {}, "redundant_offset": 3}
    assert "redundant_offset" not in ShareDriver({}).canonical_observation({}, obs)  # type: ignore[operator]
    assert ShareDriver({"redundant_offset": True}).canonical_observation({}, obs)["redundant_offset"] == 3  # type: ignore[index]

