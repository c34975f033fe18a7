"""STREAMS-DRIVE-SUBTOPOLOGIES (spec/streams.md §5): the driver's topology has a second
sub-topology, ``sessions`` over ``clicks``, whose tasks are placed apart from ``input``'s, so a
host can run one sub-topology's tasks and not the other's. The placement keeps every plan valid,
it reaches a host without ``sessions``, and a router that gives every store to any host with a
task (red team ``streams_scratch5``'s ``stores-from-any-task``) is caught by the lockstep."""

from __future__ import annotations

from typing import Any

from kspec.conformance.drivers.streams import (
    CLICKS_TOPIC,
    CONFIGS,
    SESSIONS,
    AllMetadata,
    StreamsDriver,
    clicks_partitions,
    widen,
)
from kspec.conformance.harness import Divergence, Lockstep
from kspec.conformance.targets.registry import reference_target
from kspec.conformance.targets.streams_routers import ReferenceRouter, RouterTarget
from kspec.model.streams.metadata import StreamsMetadata, TopicPartition, all_metadata
from kspec.model.streams.system import Assign, Finish, Plan, StreamsSystem, to_assignment


def _plans(config: dict[str, Any]) -> list[Plan]:
    model = StreamsSystem(instances=int(config["instances"]), partitions=int(config["partitions"]),
                          standbys=int(config["standbys"]))
    return model.plans(frozenset(model.instances))


def test_every_plan_places_clicks_validly_and_some_host_lacks_sessions() -> None:
    apart = 0
    for config in CONFIGS:
        n = int(config["partitions"])
        for plan in _plans(config):
            wide = widen(to_assignment(plan), n)
            actives = [tp for _, tps in wide.active for tp in tps if tp.topic == CLICKS_TOPIC]
            # one active host per clicks partition, every partition held
            assert sorted(tp.partition for tp in actives) == list(range(clicks_partitions(n)))
            standby = dict(wide.standby)
            for h, tps in wide.active:  # no host standby for a task it runs
                assert not {tp for tp in tps if tp.topic == CLICKS_TOPIC} & standby.get(h, frozenset())
            assert dict(wide.partitions)[CLICKS_TOPIC] == clicks_partitions(n)
            apart += any(SESSIONS not in m.state_store_names and m.topic_partitions for m in all_metadata(wide))
    assert apart  # a host that runs input's tasks but none of sessions'


class StoresFromAnyTaskRouter(ReferenceRouter):
    """Every store on any host that runs a task ("each instance runs the whole topology")."""

    def all_metadata(self, assignment: Any) -> list[StreamsMetadata]:
        names = frozenset(n for n, _ in assignment.topology.stores)
        return [StreamsMetadata(m.host_info, (names if m.topic_partitions else frozenset()) | m.state_store_names,
                                m.topic_partitions, m.standby_state_store_names, m.standby_topic_partitions)
                for m in super().all_metadata(assignment)]


def test_lockstep_catches_every_store_on_any_host_with_a_task() -> None:
    # (2 instances, 4 partitions): host0 runs input 0 and 1, host1 input 2 and 3; clicks has two
    # partitions, placed with input 3 and 2: host0 holds no sessions.
    config = {"instances": 2, "partitions": 4, "standbys": 0}
    plan = Plan((0, 0, 1, 1), (frozenset(),) * 4, frozenset({0, 1}))
    wide = widen(to_assignment(plan), 4)
    assert TopicPartition(CLICKS_TOPIC, 0) in dict(wide.active)[max(dict(wide.active))]
    for target, caught in ((reference_target("streams"), False), (RouterTarget("any", StoresFromAnyTaskRouter), True)):
        session = Lockstep(StreamsDriver(config), target)
        try:
            for action in (Assign(plan), Finish(), AllMetadata()):
                after = session.driver.resolve(session.state, action)
                assert after is not None, action
                session._step(action, after)
        except Divergence as err:
            assert caught, err.finding.line()
        else:
            assert not caught
