"""Session 26's path-end-only composites (PathEndProbe, category PATH_END):
SHARE-DRIVE-COUNT-AT-UNKNOWN-START, SHARE-DRIVE-INNER-LOSER and SHARE-DRIVE-ZERO-DELIVERY-COUNT
(red team session 26's ``unset-start-count-short-circuit``, ``losing-inner-batch-cuts-outer`` and
``zero-count-available-as-gap``): sent only at a guided path's end, never drawn by a random run nor
an edge of the guide's graph, and what each sends tells the reference shard from its mutant."""

from __future__ import annotations

import pytest

from kspec.conformance.drivers import guide
from kspec.conformance.drivers.share import PATH_END, PATH_END_PROBES, PathEndProbe, ShareDriver
from kspec.model.share.combiner import per_offset
from kspec.model.share.records import ACKNOWLEDGED, AVAILABLE, NOT_SET
from kspec.model.share.system import KEY, OTHER_PARTITION, Initialize, Write
from tests.share_steps import first_difference

MUTANTS = {
    "SHARE-DRIVE-COUNT-AT-UNKNOWN-START": "mutant:share-unset-start-count-newest",
    "SHARE-DRIVE-INNER-LOSER": "mutant:share-losing-inner-cuts-outer",
    "SHARE-DRIVE-ZERO-DELIVERY-COUNT": "mutant:share-zero-delivery-count-dropped",
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
    assert first_difference(driver, steps, MUTANTS[name]) == "WriteRequest"
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
