"""The Streams metadata laws (spec/streams.md) over generated assignments, for the model's
``route``, the reference router target, and the partition-count-ignoring mutant."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from kspec.conformance.targets.streams_routers import IgnorePartitionCountRouter, ReferenceRouter
from kspec.model.streams import laws as L
from kspec.model.streams.metadata import (
    NOT_AVAILABLE,
    UNKNOWN_HOST,
    Assignment,
    HostInfo,
    KeyQueryMetadata,
    TopicPartition,
    Topology,
    all_metadata,
    all_metadata_for_store,
    route,
)
from kspec.model.streams.murmur2 import partition_for_key

TOPOLOGY = Topology(
    (("counts", ("input",)), ("joined", ("left", "right")), ("agg", ("input", "other"))),
    frozenset({"global"}),
)
STORES = ["counts", "joined", "agg", "global", "missing"]


def model_router(a: Assignment, store: str, key: bytes,
                 partitions: Mapping[str, int] | None) -> KeyQueryMetadata | None:
    return route(a, store, key, partitions)


REFERENCE = ReferenceRouter()
MUTANT = IgnorePartitionCountRouter()


@st.composite
def assignments(draw: st.DrawFn, valid: bool = True, initialized: bool | None = None) -> Assignment:
    hosts = [HostInfo(f"host{i}", 8080 + draw(st.integers(0, 1))) for i in range(draw(st.integers(1, 4)))]
    hosts = sorted(set(hosts))
    init = draw(st.booleans()) if initialized is None else initialized
    counts = {t: draw(st.integers(1, 5)) for t in ("input", "left", "other")}
    counts["right"] = counts["left"]  # co-partitioned, as a join requires
    # A task is partition p of every topic of a sub-topology (co-partitioned sources).
    groups = [("input", "other"), ("left", "right")]
    tasks = [[TopicPartition(t, p) for t in group if p < counts[t]]
             for group in groups for p in range(max(counts[t] for t in group))]
    active: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    standby: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    for task in tasks:
        if draw(st.integers(0, 9)) == 0:
            continue  # unassigned task
        owner = draw(st.sampled_from(hosts))
        for tp in task:
            active[owner if valid else draw(st.sampled_from(hosts))].add(tp)
        for h in hosts:
            if (h != owner or not valid) and draw(st.integers(0, 2)) == 0:
                standby[h].update(task)
    keep = [h for h in hosts if active[h] or standby[h] or draw(st.booleans())]
    return Assignment(
        TOPOLOGY,
        tuple((h, frozenset(active[h])) for h in keep if active[h] or not standby[h]),
        tuple((h, frozenset(standby[h])) for h in keep if standby[h]),
        tuple(sorted(counts.items())) if init else (),
    )


@st.composite
def queries(draw: st.DrawFn, valid: bool = True, initialized: bool | None = None) -> L.Query:
    return L.Query(draw(assignments(valid, initialized)), draw(st.sampled_from(STORES)), draw(st.binary(max_size=12)))


# Searches that only need *a* counterexample or *an* input: no shrinking, no example database.
NO_SHRINK = settings(max_examples=2000, database=None, phases=[Phase.generate])
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
ROUTERS = {"model": model_router, "reference-target": REFERENCE}


@pytest.mark.parametrize("router", list(ROUTERS), ids=list(ROUTERS))
@pytest.mark.parametrize("law", L.LAWS, ids=lambda law: law.id)
@SETTINGS
@given(q=queries())
def test_laws_hold_over_valid_assignments(router: str, law: L.Law, q: L.Query) -> None:
    assert law.holds(ROUTERS[router], q), (law.id, q)


@pytest.mark.parametrize("law", [law for law in L.LAWS if law.id not in
                                 ("STREAMS-LAW-ACTIVE-FOUND", "STREAMS-LAW-STANDBYS")], ids=lambda law: law.id)
@SETTINGS
@given(q=queries(valid=False))
def test_laws_without_validity_hold_over_any_assignment(law: L.Law, q: L.Query) -> None:
    assert law.holds(model_router, q), (law.id, q)


@pytest.mark.parametrize("law", L.LAWS, ids=lambda law: law.id)
def test_generator_reaches_every_precondition(law: L.Law) -> None:
    found = find(queries(), law.precondition, settings=NO_SHRINK)
    assert law.precondition(found)


@SETTINGS
@given(q=queries(valid=False))
def test_reference_target_agrees_with_model(q: L.Query) -> None:
    assert REFERENCE(q.assignment, q.store, q.key) == route(q.assignment, q.store, q.key)


def test_mutant_router_breaks_the_partition_law() -> None:
    law = L.LAWS_BY_ID["STREAMS-LAW-PARTITION"]
    found = find(queries(initialized=True), lambda q: not law.holds(MUTANT, q),
                 settings=NO_SHRINK)
    assert law.precondition(found)


def test_not_available_before_first_assignment() -> None:
    a = Assignment(TOPOLOGY, ())
    assert route(a, "counts", b"k") == NOT_AVAILABLE
    assert NOT_AVAILABLE.active_host == UNKNOWN_HOST and NOT_AVAILABLE.partition == -1
    assert all_metadata_for_store(a, "counts") == ()


def test_store_with_two_sources_uses_the_widest_topic() -> None:
    # agg reads input (2 partitions) and other (5): the partitioner sees 5 partitions.
    h = HostInfo("h", 1)
    tps = frozenset(TopicPartition(t, p) for t, n in (("input", 2), ("other", 5)) for p in range(n))
    a = Assignment(TOPOLOGY, ((h, tps),), (), (("input", 2), ("other", 5)))
    r = route(a, "agg", b"foobar")
    assert r is not None and r.partition == partition_for_key(b"foobar", 5) == 1
    assert r.active_host == h


def test_global_store_is_everywhere() -> None:
    h0, h1 = HostInfo("a", 1), HostInfo("b", 1)
    a = Assignment(TOPOLOGY, ((h0, frozenset()), (h1, frozenset({TopicPartition("input", 0)}))), (),
                   (("input", 1),))
    assert all(("global" in m.state_store_names) for m in all_metadata(a))
    r = route(a, "global", b"x")
    assert r == KeyQueryMetadata(h0, frozenset(), -1)
