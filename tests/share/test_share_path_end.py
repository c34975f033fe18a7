"""Sessions 26-27's path-end-only composites (PathEndProbe, category PATH_END):
SHARE-DRIVE-COUNT-AT-UNKNOWN-START, SHARE-DRIVE-INNER-LOSER, SHARE-DRIVE-ZERO-DELIVERY-COUNT and
SHARE-DRIVE-PARTITION-ADDED (red team session 26's ``unset-start-count-short-circuit``,
``losing-inner-batch-cuts-outer``, ``zero-count-available-as-gap`` and
``metadata-update-deletions-only``): sent only at a guided path's end, never drawn by a random run nor
an edge of the guide's graph, and what each sends tells the reference shard from its mutant."""

from __future__ import annotations

import pytest

from kspec.conformance.drivers import guide
from kspec.conformance.drivers.share import (
    GAPPED,
    ODD_GROUP,
    PATH_END,
    PATH_END_PARTS,
    PATH_END_PROBES,
    WIDE_OFFSET,
    PathEndProbe,
    ShareDriver,
)
from kspec.model.share.combiner import per_offset
from kspec.model.share.records import ACKNOWLEDGED, AVAILABLE, NOT_SET
from kspec.model.share.shard import UNKNOWN_TOPIC_OR_PARTITION
from kspec.model.share.system import (
    KEY,
    OTHER_GROUP,
    OTHER_PARTITION,
    TOPIC,
    UNHOSTED,
    CreatePartition,
    DeleteTopic,
    Initialize,
    Read,
    Write,
)
from tests.share_steps import first_difference

# each probe's mutant, and the request it first answers differently
MUTANTS = {
    "SHARE-DRIVE-COUNT-AT-UNKNOWN-START": ("mutant:share-unset-start-count-newest", "WriteRequest"),
    "SHARE-DRIVE-INNER-LOSER": ("mutant:share-losing-inner-cuts-outer", "WriteRequest"),
    "SHARE-DRIVE-ZERO-DELIVERY-COUNT": ("mutant:share-zero-delivery-count-dropped", "WriteRequest"),
    "SHARE-DRIVE-PARTITION-ADDED": ("mutant:share-image-deletions-only", "InitializeRequest"),
    "SHARE-DRIVE-ODD-GROUP-STATE": ("mutant:share-group-id-from-key-string", "InitializeRequest"),
    "SHARE-DRIVE-WIDE-START-OFFSET": ("mutant:share-start-offset-int32", "InitializeRequest"),
    "SHARE-DRIVE-GAPPED-BATCHES": ("mutant:share-merge-bridges-gap", "WriteRequest"),
}


def test_path_end_category_is_neither_a_rule_nor_in_the_graph() -> None:
    driver = ShareDriver({})
    assert PATH_END not in driver.categories and PATH_END in driver.unguided
    s0 = driver.init_state()
    offered = [a for c, a in driver.candidates(s0) if c == PATH_END]
    assert offered == [PathEndProbe(n) for n in PATH_END_PROBES]
    # the guide's graph leaves the category out: no edge of it is a PathEndProbe
    g = guide.graph_for(driver)
    assert not any(isinstance(a, PathEndProbe) for out in g.out for _, a, _, _ in out)


@pytest.mark.parametrize("name", PATH_END_PROBES)
def test_probe_ends_guided_paths_and_tells_its_mutant_apart(name: str) -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    ends = driver.probes(s0, 0)
    assert (PATH_END, PathEndProbe(name)) in ends
    # the state where this probe is sent: after the path-end probes before it
    s, steps = s0, []
    for _, action in ends[:ends.index((PATH_END, PathEndProbe(name))) + 1]:
        steps.append((s, action))
        s = driver.resolve(s, action)
        assert s is not None
    s = steps[-1][0]
    assert first_difference(driver, steps, "reference") is None
    mutant, request = MUTANTS[name]
    assert first_difference(driver, steps, mutant) == request
    # the path before the probe does not tell the mutant apart
    assert first_difference(driver, steps[:-1], mutant) is None
    # without the probe's parts (bench/_probes.py's switch) it is left out
    assert driver._path_end_parts(s, name) is not None


def test_count_at_unknown_start_keeps_the_higher_count() -> None:
    driver = ShareDriver({})
    parts = driver._count_unknown_start_parts(driver.init_state())
    assert parts is not None
    init, first, second = (a for a, _ in parts)
    assert isinstance(init, Initialize) and init.key == OTHER_PARTITION and init.start_offset == NOT_SET
    assert isinstance(first, Write) and isinstance(second, Write)
    assert (first.start_offset, first.delivery_complete_count) == (NOT_SET, 1)
    assert (second.start_offset, second.delivery_complete_count) == (NOT_SET, 0)
    counts = [s.shard.offset(OTHER_PARTITION).delivery_complete_count for _, s in parts]
    assert counts == [NOT_SET, 1, 1]  # equal start offsets (-1, -1): the higher stays
    # 4.1 has no count (KIP-1226 is 4.2's)
    assert ShareDriver({"kafka_version": "4.1"})._count_unknown_start_parts(driver.init_state()) is None


def test_inner_loser_leaves_the_stored_run_whole_and_zero_count_is_stored() -> None:
    driver = ShareDriver({})
    parts = driver._inner_loser_parts(driver.init_state())
    assert parts is not None
    writes = [a for a, _ in parts if isinstance(a, Write)]
    assert [b.delivery_count for w in writes for b in w.batches] == [2, 1]
    after_inner = next(s for a, s in parts if a == writes[-1])
    cells = per_offset(after_inner.shard.offset(KEY).state_batches)
    assert all(cells[o] == (ACKNOWLEDGED, 2) for o in range(4))
    zero = driver._zero_count_parts(driver.init_state())
    assert zero is not None
    write = zero[-1][0]
    assert isinstance(write, Write)
    assert [(b.delivery_state, b.delivery_count) for b in write.batches] == [(AVAILABLE, 0)]
    o = write.batches[0].first_offset
    assert per_offset(zero[-1][1].shard.offset(KEY).state_batches)[o] == (AVAILABLE, 0)


def test_a_target_declining_a_part_gets_no_path_end_probe() -> None:
    driver = ShareDriver({})
    path: list[guide.Step] = []
    full = guide.with_probes(driver, path, 0, frozenset({"initialize"}))
    assert not any(isinstance(a, PathEndProbe) for _, a in full)



def test_the_table_holds_every_path_end_probe() -> None:
    assert set(PATH_END_PARTS) == set(PATH_END_PROBES) == set(MUTANTS)
    assert all(isinstance(PathEndProbe(n), guide.PartsProbe) for n in PATH_END_PROBES)


def test_partition_added_is_validated_against_the_new_image() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    assert (UNHOSTED.topic_id, UNHOSTED.partition) == (TOPIC, 2) and (TOPIC, 2) not in s0.shard.image
    parts = driver._partition_added_parts(s0)
    assert parts is not None
    actions = [a for a, _ in parts]
    assert actions[0] == CreatePartition(TOPIC, 2)
    assert [type(a) for a in actions[1:]] == [Initialize, Write, Read]
    assert all(a.key == UNHOSTED for a in actions[1:])  # type: ignore[attr-defined]
    assert all(s.last_error == "NONE" for _, s in parts)
    assert (TOPIC, 2) in parts[-1][1].shard.image
    # before the partition is created, the same initialize is UNKNOWN_TOPIC_OR_PARTITION
    assert driver.model.next_state(s0, actions[1]).last_error == UNKNOWN_TOPIC_OR_PARTITION
    # sent as a MetadataUpdate whose image adds T-2 to the one before
    (event,) = driver.events(s0, actions[0], parts[0][1])
    assert event.input == {"type": "MetadataUpdate",
                           "image": sorted([[t, p] for t, p in s0.shard.image | {(TOPIC, 2)}])}
    # 4.0 has no initialize: not sent; nor where T-2 is already in the image
    assert ShareDriver({"kafka_version": "4.0"})._partition_added_parts(s0) is None
    assert driver._partition_added_parts(parts[0][1]) is None


def test_create_partition_adds_partitions_in_order_and_keeps_deletions() -> None:
    model = ShareDriver({}).model
    s0 = model.init_states()[0]
    assert model.next_state(s0, CreatePartition(TOPIC, 3)) is None  # partition 2 missing
    assert model.next_state(s0, CreatePartition(TOPIC, 1)) is None  # already there
    gone = model.next_state(s0, DeleteTopic("U"))
    assert gone is not None and all(t != "U" for t, _ in gone.shard.image)
    again = model.next_state(gone, CreatePartition("U", 0))  # a topic created again
    assert again is not None and ("U", 0) in again.shard.image and again.shard.offsets == gone.shard.offsets


def test_a_target_declining_the_image_gets_no_partition_added() -> None:
    driver = ShareDriver({})
    full = guide.with_probes(driver, [], 0, frozenset({"image"}))
    assert PathEndProbe("SHARE-DRIVE-PARTITION-ADDED") not in [a for _, a in full]
    assert (PATH_END, PathEndProbe("SHARE-DRIVE-PARTITION-ADDED")) in guide.with_probes(driver, [], 0)


def test_odd_group_and_wide_start_offset_are_stored_as_sent() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    odd = driver._odd_group_parts(s0)
    assert odd is not None and [type(a) for a, _ in odd] == [Initialize, Write, Read]
    assert all(a.key == ODD_GROUP and s.last_error == "NONE" for a, s in odd)  # type: ignore[attr-defined]
    assert ODD_GROUP.group_id == " a:b " and odd[-1][1].shard.offset(ODD_GROUP) is not None
    wide = driver._wide_start_parts(s0)
    assert wide is not None and all(s.last_error == "NONE" for _, s in wide)
    stored = wide[-1][1].shard.offset(OTHER_PARTITION)
    assert stored is not None and stored.start_offset == WIDE_OFFSET + 1 == 2**31 + 1
    assert per_offset(stored.state_batches) == {o: (ACKNOWLEDGED, 1) for o in (2**31 + 1, 2**31 + 2)}
    # 4.0 has no initialize: neither is sent
    s40 = ShareDriver({"kafka_version": "4.0"})
    assert s40._odd_group_parts(s0) is None and s40._wide_start_parts(s0) is None
    # the other mutant is not told apart by the other probe (each is its probe's alone)
    for parts, other in ((odd, "mutant:share-start-offset-int32"), (wide, "mutant:share-group-id-from-key-string")):
        steps, s = [], s0
        for action, after in parts:
            steps.append((s, action))
            s = after
        assert first_difference(driver, steps, other) is None


def test_gapped_batches_keep_their_gap() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    parts = driver._gapped_parts(s0)
    assert parts is not None and [type(a) for a, _ in parts] == [Initialize, Write, Read]
    write = parts[1][0]
    assert isinstance(write, Write) and write.key == OTHER_GROUP and write.batches == GAPPED
    stored = parts[-1][1].shard.offset(OTHER_GROUP)
    assert stored is not None and per_offset(stored.state_batches) == {0: (ACKNOWLEDGED, 1), 2: (ACKNOWLEDGED, 1)}
    assert ShareDriver({"kafka_version": "4.0"})._gapped_parts(s0) is None
