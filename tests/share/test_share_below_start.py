"""SHARE-DRIVE-REINIT-BELOW-WRITE, SHARE-DRIVE-COUNT-FROM-BELOW and SHARE-DRIVE-SAME-FIRST-OFFSET
(red team session 23's ``start-clamp-survives-reinitialize``, ``count-after-start-resolved`` and
``write-batches-by-first-offset``): what the driver sends tells the reference shard from the
mutant written for each, input by input."""

from __future__ import annotations

from kspec.conformance.drivers.share import ReinitBelowStored, ShareDriver
from kspec.model.share.combiner import per_offset
from kspec.model.share.records import ARCHIVED, AVAILABLE, NOT_SET
from kspec.model.share.system import KEY, SAME_FIRST_OFFSET, Initialize, Read, Write
from tests.share_steps import first_difference


def test_reinit_below_stored_ends_with_a_write_between_the_start_offsets() -> None:
    for limit in (0, 1, 2):
        driver = ShareDriver({"snapshot_every": limit})
        s0 = driver.init_state()
        parts = driver._parts_of(s0, ReinitBelowStored())
        assert parts is not None and [type(a).__name__ for a, _ in parts][-2:] == ["Write", "Read"]
        write = parts[-2][0]
        old_start = parts[2][1].shard.offset(KEY).start_offset
        assert 0 == write.start_offset < old_start
        assert all(s.last_error == "NONE" for _, s in parts[-2:])
        stored = parts[-1][1].shard.offset(KEY)
        assert stored.start_offset == 0 and any(b.first_offset == 0 for b in stored.state_batches)
        steps = [(s0, ReinitBelowStored())]
        assert first_difference(driver, steps, "reference") is None
        assert first_difference(driver, steps, "mutant:share-reorder-drops-batches-below-highest") == "WriteRequest"


def test_count_from_below_ends_guided_paths_and_keeps_a_stored_count_below_two() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    probes = driver.count_below_probes(s0)
    assert [(c, type(a).__name__) for c, a in probes] == [("initialize", "Initialize"), ("read", "Read"),
                                                          ("counts", "Write")]
    # a path-end probe (guide.with_probes), never a step of the guide's graph
    assert not any(type(a).__name__ == "CountFromBelowStart" for _, a in driver.candidates(s0))
    assert driver.probes(s0, 0)[:3] == probes  # no tie, reorder or routing probe at the start
    parts = driver._count_below_parts(s0)
    assert parts is not None and [a for a, _ in parts] == [a for _, a in probes]
    write = parts[-1][0]
    assert write.start_offset == NOT_SET and write.delivery_complete_count == 2
    counted = parts[-2][1].shard.offset(KEY).delivery_complete_count
    assert counted < 2 and parts[-1][1].shard.offset(KEY).delivery_complete_count == counted
    steps = list(zip([s0, *(after for _, after in parts)], [a for a, _ in parts], strict=False))
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-count-from-unset-start-taken") == "WriteRequest"
    old = ShareDriver({"kafka_version": "4.1"})
    assert old._count_below_parts(old.init_state()) is None and old.count_below_probes(old.init_state()) == []


def test_same_first_offset_probe_keeps_the_higher_per_offset() -> None:
    """SHARE-DRIVE-SAME-FIRST-OFFSET (red team session 23's ``write-batches-by-first-offset``):
    one write's batches sharing a first offset, one repeated: per offset the higher wins."""
    driver = ShareDriver({})
    s = driver.init_state()
    init = next(a for _, a in driver.candidates(s) if isinstance(a, Initialize) and a.key == KEY)
    steps = [(s, init)]
    s = driver.resolve(s, init)
    read = next(a for _, a in driver.candidates(s) if isinstance(a, Read) and a.key == KEY
                and a.leader_epoch == s.leader_epoch)
    steps.append((s, read))
    s = driver.resolve(s, read)
    probe = next(a for c, a in driver.candidates(s) if c == "batches" and isinstance(a, Write)
                 and a.batches == SAME_FIRST_OFFSET)
    steps.append((s, probe))
    after = driver.resolve(s, probe)
    assert after is not None and after.last_error == "NONE"
    assert per_offset(after.shard.offset(KEY).state_batches) == {0: (AVAILABLE, 2), 1: (ARCHIVED, 1)}
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-write-batches-last-wins") == "WriteRequest"


def test_reinit_below_max_count_and_stale_initialize_end_guided_paths() -> None:
    """SHARE-DRIVE-REINIT-BELOW-WRITE's composite, SHARE-DRIVE-MAX-DELIVERY-COUNT's write and
    SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC's initialize end a guided path wherever they fit
    (``ShareDriver.probes``), after SHARE-DRIVE-COUNT-FROM-BELOW."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    assert driver.reinit_below_probes(s0) == [("initialize", ReinitBelowStored())]
    maxed = driver.max_count_probes(s0)
    assert [(c, type(a).__name__) for c, a in maxed] == [("initialize", "Initialize"), ("epochs", "Write")]
    assert [b.delivery_count for b in maxed[-1][1].batches] == [2**15 - 1]
    # after the count probe's three steps: the composite, then h:T:0's initialize and the write,
    # then SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC (g:U:0 stored, U deleted, the stale initialize)
    stale = driver.stale_initialize_probes(s0)
    assert [(c, type(a).__name__) for c, a in stale] == [("initialize", "Initialize"), ("image", "DeleteTopic"),
                                                         ("initialize", "Initialize")]
    assert stale[-1][1].state_epoch == 0
    ends = [("initialize", ReinitBelowStored()), *maxed, *stale]
    assert driver.probes(s0, 0)[3:3 + len(ends)] == ends  # then session 26's PathEndProbe composites
    steps, s = [], s0
    for _, action in stale:
        steps.append((s, action))
        s = driver.resolve(s, action)
    assert s.last_error == "FENCED_STATE_EPOCH"
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-initialize-image-before-fence") == "InitializeRequest"
    steps, s = [], s0
    for _, action in maxed:
        steps.append((s, action))
        s = driver.resolve(s, action)
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-delivery-count-int8") == "WriteRequest"
