"""STREAMS-RULE-EVERY-MEMBER and STREAMS-RULE-PARTITION-INFO (spec/streams.md): a member with no
task is in both host maps and in ``allMetadata``; a member's partition counts are those of the
active map. Model, law, variant, and the lockstep (reference conforms, a router that drops
task-less members is caught by STREAMS-LAW-EVERY-MEMBER)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from kspec.conformance.drivers.runner import run_conformance
from kspec.conformance.drivers.streams import GLOBAL_STORE, AllMetadata, StreamsDriver
from kspec.conformance.harness import Divergence, Lockstep
from kspec.conformance.targets.registry import reference_target
from kspec.conformance.targets.streams_routers import DropsIdleMembersRouter, ReferenceRouter, RouterTarget
from kspec.model.core.explorer import explore
from kspec.model.streams import PROTOCOL, make
from kspec.model.streams import laws as L
from kspec.model.streams.metadata import (
    Assignment,
    HostInfo,
    StreamsMetadata,
    TopicPartition,
    Topology,
    all_metadata,
    partitions_from_active,
    streams_metadata_json,
)
from kspec.model.streams.system import Assign, Finish, Plan, StreamsSystem, host, idle_members, to_assignment

TOPOLOGY = Topology((("counts", ("input",)), ("joined", ("left", "right"))), frozenset({"global"}))


def test_a_member_without_a_task_is_in_both_maps_and_listed() -> None:
    # Three members, every task on host0 with its standby on host1: host2 has nothing.
    plan = Plan((0, 0, 0), (frozenset({1}),) * 3, frozenset({0, 1, 2}))
    a = to_assignment(plan)
    assert idle_members(plan) == {2}
    assert dict(a.active)[host(2)] == frozenset() and dict(a.standby)[host(2)] == frozenset()
    assert dict(a.standby)[host(0)] == frozenset()  # an active-only member is in the standby map too
    # Kafka's rebuildMetadataForSingleTopology: no stores, no partitions (global stores only).
    assert all_metadata(a)[-1] == StreamsMetadata(host(2), frozenset(), frozenset(), frozenset(), frozenset())
    assert [m.host_info for m in all_metadata(a)] == [host(0), host(1), host(2)]


def test_partition_counts_come_from_the_active_map() -> None:
    h0, h1 = HostInfo("h", 0), HostInfo("h", 1)
    active = ((h0, frozenset({TopicPartition("input", 0), TopicPartition("left", 1)})),
              (h1, frozenset({TopicPartition("input", 2)})), (HostInfo("h", 2), frozenset()))
    # input-1 in nobody's active set: 2, not the topic's 3 (S1); left: one partition.
    assert partitions_from_active(active) == (("input", 2), ("left", 1))
    assert partitions_from_active(()) == ()


def test_every_plan_meets_the_assumption() -> None:
    # STREAMS-ASSUME-ACTIVE-COVERS: every plan of the system model gives each partition an active
    # member, so the counts of the active map are the topic's.
    for bounds in ({"instances": 3, "partitions": 3, "standbys": 1}, {"instances": 2, "partitions": 4, "standbys": 0},
                   {"instances": 3, "partitions": 1, "standbys": 2}):
        m = StreamsSystem(**bounds)
        for members in (frozenset(m.instances), frozenset({0})):
            for plan in m.plans(members):
                assert to_assignment(plan).partitions == (("input", m.partitions),), plan


def test_idle_member_witness_and_omit_idle_variant() -> None:
    for bounds in ({"standbys": 0}, {"instances": 3, "partitions": 1, "keys": 1}):
        result = explore(make(**bounds))
        assert not result.violations and result.witnesses["member_without_task_listed"], bounds
    # At the defaults (2 instances, 1 standby) every member holds a task: no witness is offered.
    assert "member_without_task_listed" not in explore(make()).witnesses
    variant = PROTOCOL.variants["omit-idle-members"]
    found = explore(variant(standbys=0))
    assert [v.property for v in found.violations] == ["STREAMS-INV-METADATA-MEMBERS"]
    assert len(found.violations[0].trace) - 1 == 2  # assign everything to host0, finish
    assert not explore(variant()).violations  # unreachable where no member can be idle


@st.composite
def assignments(draw: st.DrawFn) -> Assignment:
    """Valid assignments in which members may have no task (in both maps, empty)."""
    hosts = [HostInfo(f"host{i}", 8080) for i in range(draw(st.integers(1, 4)))]
    counts = {"input": draw(st.integers(1, 4)), "left": draw(st.integers(1, 3))}
    tasks = [[TopicPartition("input", p)] for p in range(counts["input"])]
    tasks += [[TopicPartition(t, p) for t in ("left", "right")] for p in range(counts["left"])]
    active: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    standby: dict[HostInfo, set[TopicPartition]] = {h: set() for h in hosts}
    for task in tasks:
        owner = draw(st.sampled_from(hosts))
        active[owner].update(task)
        for h in hosts:
            if h != owner and draw(st.integers(0, 2)) == 0:
                standby[h].update(task)
    act = tuple((h, frozenset(active[h])) for h in hosts)
    return Assignment(TOPOLOGY, act, tuple((h, frozenset(standby[h])) for h in hosts), partitions_from_active(act))


@settings(max_examples=150, deadline=None)
@given(a=assignments())
def test_every_member_law_holds_for_model_and_reference(a: Assignment) -> None:
    assert L.EVERY_MEMBER.check(a, all_metadata(a))
    assert L.EVERY_MEMBER.check(a, ReferenceRouter().all_metadata(a))


def test_every_member_law_catches_a_router_that_drops_idle_members() -> None:
    found = find(assignments(), lambda a: not L.EVERY_MEMBER.check(a, DropsIdleMembersRouter().all_metadata(a)),
                 settings=settings(max_examples=2000, database=None, phases=[Phase.generate]))
    assert any(not tps for _, tps in found.active)
    # The law also sees a listing with the wrong partitions or a duplicate host.
    every = all_metadata(found)
    assert not L.EVERY_MEMBER.check(found, (*every, every[0]))


def test_lockstep_names_the_idle_member_and_catches_the_dropping_router(tmp_path: Path) -> None:
    # (2 instances, 4 partitions, no standbys): everything on host0 leaves host1 without a task;
    # the reference lists it, the dropping router does not.
    config = {"instances": 2, "partitions": 4, "standbys": 0}
    plan = Plan((0, 0, 0, 0), (frozenset(),) * 4, frozenset({0, 1}))
    for target, caught in ((reference_target("streams"), False), (RouterTarget("drops", DropsIdleMembersRouter), True)):
        session = Lockstep(StreamsDriver(config), target)
        for action in (Assign(plan), Finish(), AllMetadata()):
            after = session.driver.resolve(session.state, action)
            assert after is not None, action
            try:
                session._step(action, after)
            except Divergence as err:
                assert caught and err.finding.field == "STREAMS-LAW-EVERY-MEMBER", err.finding.line()
                break
        else:
            assert not caught
            listed = session.steps[-1].target_observation["result"]
            # No partition, no standby store; the driver's global store, as on every host.
            assert listed[-1] == streams_metadata_json(
                StreamsMetadata(host(1), frozenset({GLOBAL_STORE}), frozenset(), frozenset(), frozenset()))
    # At the default budget, as `kspec conform` runs it.
    result = run_conformance("streams", RouterTarget("drops", DropsIdleMembersRouter), seed_value=0, out_dir=tmp_path)
    assert result.verdict == "diverges" and result.finding is not None
    # Named by the law, or, when a global store's allMetadataForStore (every host, STREAMS-RULE-
    # STORE-METADATA, no law: the law's precondition leaves global stores out) comes first, by
    # the answer that leaves the idle member out.
    last = result.steps[-1].input
    assert result.finding.field == "STREAMS-LAW-EVERY-MEMBER" or (
        result.finding.field == "observation.result"
        and last == {"type": "AllMetadataForStore", "store": GLOBAL_STORE}), result.finding.line()
