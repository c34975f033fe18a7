"""SHARE-DRIVE-TIE-UPDATE, SHARE-DRIVE-STALE-READ-WITHOUT-TOPIC and SHARE-DRIVE-IMAGE-WHILE-UNLOADED
(red team session 15), SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC, SHARE-DRIVE-COUNT-FROM-UNKNOWN-START and
SHARE-DRIVE-REINIT-COUNTED-START (session 16): what the driver sends tells the reference shard from the mutant of the
same name, input by input, where the model's answer is the reference's."""

from __future__ import annotations

from kspec.conformance.drivers.share import (
    INNER_SPLIT,
    FencesAcrossDelete,
    InnerBatchSplit,
    ReinitAtCountedStart,
    ReinitBelowStored,
    ReloadWithoutTopic,
    ShareDriver,
    StaleReadWithoutTopic,
    StateEpochAcrossDelete,
)
from kspec.model.share.combiner import per_offset
from kspec.model.share.records import ShareSnapshot, ShareUpdate
from kspec.model.share.system import (
    DOOMED,
    DOOMED_TOPIC,
    KEY,
    OTHER_PARTITION,
    DeleteTopic,
    Initialize,
    Load,
    Read,
    Write,
)
from tests.share_steps import first_difference, walk


def test_guided_tail_ties_a_stored_offset_in_an_update() -> None:
    driver = ShareDriver({"snapshot_every": 1})
    s0 = driver.init_state()
    prefix = walk(driver, s0, [Initialize(1, 0), Read(0)])
    end = driver.resolve(*prefix[-1])
    tail = driver.tie_probes(end)
    assert tail and isinstance(tail[-1][1], Write)
    steps = prefix + walk(driver, end, [a for _, a in tail])
    last = driver.resolve(*steps[-1])
    assert isinstance(last.log[-1], ShareUpdate)
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-update-tie-newer-wins") == "WriteRequest"
    # at snapshot limit 0 every write is a snapshot: nothing for the replay to tie
    assert ShareDriver({"snapshot_every": 0}).tie_probes(end) == []


def test_stale_read_without_topic_is_fenced_before_the_image() -> None:
    driver = ShareDriver({})
    s0 = driver.init_state()
    # in category initialize here: it initializes g:U:0 first (a target declining initialize never gets it)
    assert ("initialize", StaleReadWithoutTopic()) in driver.candidates(s0)
    steps = [(s0, StaleReadWithoutTopic())]
    after = driver.resolve(s0, StaleReadWithoutTopic())
    assert after is not None and after.last_error == "FENCED_LEADER_EPOCH"
    assert after.shard.offset(DOOMED) is not None
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-read-image-before-fence") == "ReadRequest"


def test_reload_without_topic_deletes_it_while_unloaded() -> None:
    """SHARE-DRIVE-IMAGE-WHILE-UNLOADED: the composite deletes the topic during the fail-over, so
    a shard that drops a MetadataUpdate while unloaded answers the doomed key's read from the old
    image."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    steps = [(s0, ReloadWithoutTopic())]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-image-dropped-while-unloaded") == "ReadRequest"


def test_new_leader_read_without_topic_records_nothing() -> None:
    """SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC (session 16): once topic U is gone, a read of g:U:0
    one epoch above its fence is refused and appends nothing: the image before the record."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    steps = walk(driver, s0, [Initialize(1, 0, key=DOOMED), DeleteTopic(DOOMED_TOPIC)])
    end = driver.resolve(*steps[-1])
    probe = Read(1, key=DOOMED)
    assert ("image", probe) in driver.candidates(end)
    steps += walk(driver, end, [probe])
    after = driver.resolve(*steps[-1])
    assert after is not None and after.last_error == "UNKNOWN_TOPIC_OR_PARTITION" and len(after.log) == 1
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-new-leader-read-records-without-topic") == "ReadRequest"


def test_count_from_an_unknown_start_offset_is_taken() -> None:
    """SHARE-DRIVE-COUNT-FROM-UNKNOWN-START (session 16): g:T:1 initialized with start offset -1,
    then written with a known start offset and count 1: the count is stored."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    steps = walk(driver, s0, [Initialize(1, -1, key=OTHER_PARTITION)])
    end = driver.resolve(*steps[-1])
    probe = next(a for c, a in driver.candidates(end) if c == "counts" and a.key == OTHER_PARTITION)
    steps += walk(driver, end, [probe])
    stored = driver.resolve(*steps[-1]).shard.offset(OTHER_PARTITION)
    assert stored is not None and stored.delivery_complete_count == 1
    witness = "SHARE-WIT-COUNT-FROM-UNKNOWN-START"  # the guided runs plan a path to it
    assert witness in [p.id for p in driver.witnesses() if p.holds(driver.resolve(*steps[-1]))]
    assert witness not in [p.id for p in driver.witnesses() if p.holds(end)]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-count-unknown-start-kept") == "WriteRequest"


def test_reinitialize_at_the_counted_start_resets_the_count() -> None:
    """SHARE-DRIVE-REINIT-COUNTED-START (session 16): the composite raises the count at start
    offset 0 and initializes there again: 0, not the higher of the two."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    assert ("initialize", ReinitAtCountedStart()) in driver.candidates(s0)
    parts = driver._parts_of(s0, ReinitAtCountedStart())
    assert parts is not None and parts[2][1].shard.offset(KEY).delivery_complete_count == 2
    # SHARE-DRIVE-COUNT-KEPT-AT-START (session 20): a lower count at the same start offset keeps the 2
    assert isinstance(parts[3][0], Write) and parts[3][0].delivery_complete_count == 0
    assert parts[3][1].shard.offset(KEY).delivery_complete_count == 2
    assert parts[-1][1].shard.offset(KEY).delivery_complete_count == 0
    steps = [(s0, ReinitAtCountedStart())]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-reinitialize-keeps-count-at-start") == "InitializeRequest"
    assert first_difference(driver, steps, "mutant:share-same-start-count-replaced") == "WriteRequest"
    # 4.1 has no count: the composite is not offered
    assert ShareDriver({"kafka_version": "4.1"})._reinit_count_parts(s0) is None


def test_fences_across_delete_start_again() -> None:
    """SHARE-DRIVE-FENCES-ACROSS-DELETE (session 17): a read one epoch ahead raises the fence,
    delete and initialize forget it, and the current leader's read and write are answered NONE.
    A shard that keeps fencing with the deleted key's epochs (the red team's zombie guard) is
    told apart at the read; one that fences only writes, at the write."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    assert ("delete", FencesAcrossDelete()) in driver.candidates(s0)
    parts = driver._parts_of(s0, FencesAcrossDelete())
    assert parts is not None and [type(a).__name__ for a, _ in parts] == [
        "Initialize", "Read", "Delete", "Initialize", "Read", "Write"]
    assert parts[1][1].shard.leader_epoch(KEY) == 1 and all(s.last_error == "NONE" for _, s in parts)
    assert parts[-1][1].shard.leader_epoch(KEY) == 0  # the fence starts again at the initialize's 0
    # the witness the guided runs plan a path to holds after the composite, not before its write
    reached = ["SHARE-WIT-FENCE-RESTARTED" in [p.id for p in driver.witnesses() if p.holds(s)] for _, s in parts]
    assert reached == [False] * 5 + [True]
    steps = [(s0, FencesAcrossDelete())]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-fence-survives-delete") == "ReadRequest"
    # 4.0 has no delete: the composite is not offered
    assert ShareDriver({"kafka_version": "4.0"})._fences_delete_parts(s0) is None


def test_guided_tail_sends_a_reorder_write_as_a_limit_snapshot() -> None:
    """SHARE-DRIVE-REORDER-SNAPSHOT (session 17): every guided path ends with the out-of-order write
    (start offset 0) carrying a batch below the stored start offset, written as the limit
    snapshot: its batches are pruned at the stored start offset."""
    for limit in (0, 1, 2):
        driver = ShareDriver({"snapshot_every": limit})
        s0 = driver.init_state()
        steps = walk(driver, s0, [Initialize(1, 0), Read(0)])
        end = driver.resolve(*steps[-1])
        tail = driver.reorder_probes(end)
        assert tail and tail[-1][0] == "reorder" and tail[-1][1].start_offset == 0, limit
        steps += walk(driver, end, [a for _, a in tail])
        before, last = driver.resolve(*steps[-2]), driver.resolve(*steps[-1])
        assert isinstance(last.log[-1], ShareSnapshot) and last.shard.offset(KEY).start_offset > 0
        assert any(b.first_offset < before.shard.offset(KEY).start_offset for b in tail[-1][1].batches)
        assert first_difference(driver, steps, "reference") is None
        assert first_difference(driver, steps, "mutant:share-reorder-snapshot-combines-at-request-start") == \
            "WriteRequest", limit


def test_inner_batch_split_is_a_composite_step_where_the_range_is_whole() -> None:
    """SHARE-DRIVE-INNER-BATCH (sessions 18, 19): the composite step stores [0,3] AVAILABLE x1 and
    writes [1,2] ACKNOWLEDGED x2 strictly inside it, then fails over: the stored range keeps its
    head and its tail. From the initial state (it initializes first, in category ``initialize``)
    and from a state whose start offset clips the range (it initializes again at 0). A combiner
    that forgets the tail is told apart at the inner write."""
    for limit in (0, 1, 2):
        driver = ShareDriver({"snapshot_every": limit})
        s0 = driver.init_state()
        assert ("initialize", InnerBatchSplit()) in driver.candidates(s0), limit
        moved = walk(driver, s0, [Initialize(1, 0), Read(0), Write(0, 1, ())])
        for steps in ([], moved):
            start = driver.resolve(*steps[-1]) if steps else s0
            steps = [*steps, (start, InnerBatchSplit())]
            parts = driver._parts_of(start, InnerBatchSplit())
            assert parts is not None and isinstance(parts[-1][0], Load), limit
            written = [a for a, _ in parts if isinstance(a, Write)]
            assert [w.batches for w in written] == list(INNER_SPLIT), limit
            stored = driver.resolve(*steps[-1]).shard.offset(KEY)
            assert stored is not None and stored.start_offset <= 0
            assert {o: per_offset(stored.state_batches)[o] for o in (0, 3)} == {0: (0, 1), 3: (0, 1)}, limit
            assert first_difference(driver, steps, "reference") is None
            assert first_difference(driver, steps, "mutant:share-inner-batch-drops-tail") == "WriteRequest", limit
    # 4.0 has no initialize: the first write stores the key (category batches)
    driver = ShareDriver({"kafka_version": "4.0"})
    assert ("batches", InnerBatchSplit()) in driver.candidates(driver.init_state())


def test_stale_initialize_of_a_deleted_topic_is_fenced_first() -> None:
    """SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC (session 18): while ``g:U:0`` is stored and topic
    ``U`` is deleted, an initialize at a state epoch below its fence is FENCED_STATE_EPOCH (the
    fences before the image); offered in category ``initialize``."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    steps = walk(driver, s0, [Initialize(1, 0, key=DOOMED), DeleteTopic(DOOMED_TOPIC)])
    end = driver.resolve(*steps[-1])
    stale = Initialize(0, 0, key=DOOMED)
    assert ("initialize", stale) in driver.candidates(end)
    steps += walk(driver, end, [stale])
    assert driver.resolve(*steps[-1]).last_error == "FENCED_STATE_EPOCH"
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-initialize-image-before-fence") == "InitializeRequest"
    # 4.0 has no initialize: not offered
    assert all(not isinstance(a, Initialize) for _, a in ShareDriver({"kafka_version": "4.0"}).candidates(end))


def test_routing_probes_hold_a_urlsafe_topic_id() -> None:
    """SHARE-DRIVE-ROUTING-URLSAFE-TOPIC (session 18): a route key's topic id holds "-" and "_", and
    the mutant that re-encodes the parsed Uuid in standard base64 differs on that key alone."""
    from kspec.conformance.targets.mutants_share import RoutingStandardBase64
    from kspec.conformance.targets.reference.share import ShareShard
    from kspec.model.share.system import ROUTE_KEYS

    texts = [k.coordinator_key() for k in ROUTE_KEYS]
    reference, mutant = ShareShard(1, None), RoutingStandardBase64(1, None)
    differ = [t for t in texts if mutant.route(t) != reference.route(t)]
    assert len(differ) == 1 and "-" in differ[0] and "_" in differ[0]


def test_reinit_below_stored_tells_each_field_from_the_one_replaced() -> None:
    """SHARE-DRIVE-REINIT-BELOW-STORED (session 19): the start offset moved past 0 and the fence
    raised above the current leader, then an initialize at start offset 0: the current leader's
    read is fenced (the fence keeps its maximum though the snapshot's leader epoch is 0) and the
    leader above reads start offset 0 (only initialize sets a lower one)."""
    for limit in (0, 1, 2):
        driver = ShareDriver({"snapshot_every": limit})
        s0 = driver.init_state()
        assert ("initialize", ReinitBelowStored()) in driver.candidates(s0)
        parts = driver._parts_of(s0, ReinitBelowStored())
        assert parts is not None and [type(a).__name__ for a, _ in parts][:7] == [
            "Initialize", "Read", "Write", "Read", "Initialize", "Read", "Read"]
        assert [s.last_error for _, s in parts][5:7] == ["FENCED_LEADER_EPOCH", "NONE"]
        assert parts[2][1].shard.offset(KEY).start_offset > 0 and parts[6][1].shard.offset(KEY).start_offset == 0
        steps = [(s0, ReinitBelowStored())]
        assert first_difference(driver, steps, "reference") is None
        assert first_difference(driver, steps, "mutant:share-read-fence-from-stored-offset") == "ReadRequest"
        assert first_difference(driver, steps, "mutant:share-initialize-start-monotone") == "InitializeRequest"
    assert ShareDriver({"kafka_version": "4.0"})._reinit_below_parts(ShareDriver({}).init_state()) is None


def test_state_epoch_across_delete_starts_again() -> None:
    """SHARE-DRIVE-STATE-EPOCH-ACROSS-DELETE (session 19): a key stored at state epoch 1, deleted,
    initialized at 0: NONE (the delete forgot the state-epoch fence), and the leader's read and
    write at the new state epoch are NONE too."""
    driver = ShareDriver({})
    s0 = driver.init_state()
    assert ("delete", StateEpochAcrossDelete()) in driver.candidates(s0)
    parts = driver._parts_of(s0, StateEpochAcrossDelete())
    assert parts is not None and [type(a).__name__ for a, _ in parts] == [
        "Initialize", "Delete", "Initialize", "Read", "Write"]
    assert parts[0][0].state_epoch == 1 and parts[2][0].state_epoch == 0
    assert all(s.last_error == "NONE" for _, s in parts) and parts[-1][1].shard.state_epoch(KEY) == 0
    steps = [(s0, StateEpochAcrossDelete())]
    assert first_difference(driver, steps, "reference") is None
    assert first_difference(driver, steps, "mutant:share-state-fence-survives-delete") == "InitializeRequest"
    assert ShareDriver({"kafka_version": "4.0"})._state_delete_parts(s0) is None
