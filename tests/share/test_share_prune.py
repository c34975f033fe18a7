"""A load from the log the runtime pruned below the redundant offset (SHARE-RULE-PRUNE-INVISIBLE):
the model keeps the whole log's fences, the deviation share-prune-forgets-leader-fence (Kafka
4.1-4.4) rebuilds them from the records left, and the driver's composite step ReinitPruneReload
(SHARE-DRIVE-PRUNE-RELOAD) reaches it in one guided step. Kafka itself: the stored counterexample
in tests/kafka/test_kafka_share_deviations.py."""

from __future__ import annotations

from typing import Any

import pytest

from kspec.conformance.drivers.share import ReinitPruneReload, ShareDriver
from kspec.model.core.protocol import first_violated
from kspec.model.share.records import NOT_SET
from kspec.model.share.system import Elect, Initialize, PrunedLoad, Read, SysState, Unload, Write, prune_offset
from kspec.model.share.variants import build, waived

FORGETS = "share-prune-forgets-leader-fence"
BOUNDS: dict[str, Any] = {"offsets": 2, "max_records": 10, "max_leader_epoch": 2, "max_state_epoch": 2,
                          "max_failovers": 2, "probes": True}


def reinitialized(variant: str, minor: int = 4, every: int = 1) -> tuple[Any, SysState]:
    """A read at epoch 1 recorded, the group coordinator initialized again, the shard unloaded."""
    m = build(variant, snapshot_every=every, kafka_minor=minor, **BOUNDS)
    s = m.init_states()[0]
    for a in (Initialize(1, 0), Elect(), Read(1), Initialize(2, 0), Unload()):
        nxt = m.next_state(s, a)
        assert nxt is not None, a
        s = nxt
    return m, s


@pytest.mark.parametrize(("minor", "every"), [(4, 1), (4, 0), (1, 0)])
def test_model_keeps_fence_deviation_forgets_it(minor: int, every: int) -> None:
    m, s = reinitialized("", minor, every)
    assert prune_offset(s) == 2 and PrunedLoad() in list(m.actions(s))
    after = m.next_state(s, PrunedLoad())
    assert after is not None and after.log_start == 2 and after.shard.leader_epoch(after.log[0].key) == 1
    assert first_violated(list(m.properties()), s, PrunedLoad(), after) is None
    # the stale leader (epoch 0) is still fenced
    assert m.next_state(after, Write(0, NOT_SET, (), state_epoch=2)).last_error == "FENCED_LEADER_EPOCH"

    v, s = reinitialized(FORGETS, minor, every)
    lost = v.next_state(s, PrunedLoad())
    assert lost is not None and lost.shard.leader_epoch(lost.log[0].key) == 0
    assert v.next_state(lost, Write(0, NOT_SET, (), state_epoch=2)).last_error == "NONE"
    # the variant breaks SHARE-INV-PRUNE-KEEPS-FENCES (waived when the deviation is accepted)
    props = [p for p in v.properties() if p.kind in ("always", "always_step")]
    assert first_violated([p for p in props if p.name == "prune_keeps_fences"], s, PrunedLoad(), lost)
    assert "prune_keeps_fences" in waived(FORGETS)


def test_prune_not_offered_where_update_counts_would_tell() -> None:
    # limit 2: the read's update (count 1) is still counted after the initialize's snapshot on the
    # whole log, not on the log from it: the next record's kind would differ.
    _, s = reinitialized("", 4, 2)
    assert prune_offset(s) is None


def test_driver_composite_sends_the_pruned_load() -> None:
    d = ShareDriver({"snapshot_every": 1})
    s = d.init_state()
    assert ("initialize", ReinitPruneReload()) in d.candidates(s)
    after = d.resolve(s, ReinitPruneReload())
    assert after is not None and after.log_start == 2
    events = d.events(s, ReinitPruneReload(), after)
    load = events[-1].input
    assert load["type"] == "Load" and load["log_start_offset"] == 2 and len(load["records"]) == 3
    assert d.model_violation(s, ReinitPruneReload(), after) is None
    # a 4.0 model has no initialize: no composite
    assert not any(isinstance(a, ReinitPruneReload) for _, a in ShareDriver({"kafka_version": "4.0"}).candidates(s))


def test_observed_check_names_the_lost_fence() -> None:
    d = ShareDriver({"snapshot_every": 1})
    part = {"offset": None, "leader_epoch_fence": 5, "state_epoch_fence": 2, "update_count": 0}
    memory: dict[str, Any] = {}
    assert d.observed_violation(0, {"type": "Unload"}, {0: {"partitions": {"g:T:0": part}}}, memory) is None
    lost = {**part, "leader_epoch_fence": 0, "update_count": None}
    found = d.observed_violation(0, {"type": "Load", "log_start_offset": 2}, {0: {"partitions": {"g:T:0": lost}}},
                                 memory)
    assert found is not None and found.startswith("SHARE-INV-PRUNE-KEEPS-FENCES")
    # with the deviation accepted the drop is expected; an absent count after a pruned load is not a finding
    accepted = ShareDriver({"snapshot_every": 1, "model_variant": FORGETS})
    memory = {}
    accepted.observed_violation(0, {"type": "Unload"}, {0: {"partitions": {"g:T:0": part}}}, memory)
    assert accepted.observed_violation(0, {"type": "Load", "log_start_offset": 2},
                                       {0: {"partitions": {"g:T:0": lost}}}, memory) is None
