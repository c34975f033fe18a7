"""Kafka Streams queryable-state metadata (KIP-67, KIP-535): murmur2, routing, laws, system model."""

from __future__ import annotations

from collections.abc import Callable

from kspec.model.core.protocol import Bound, ProtocolInfo
from kspec.model.streams.metadata import Assignment, KeyQueryMetadata, route
from kspec.model.streams.murmur2 import murmur2, to_positive
from kspec.model.streams.system import StreamsSystem, to_assignment_without_idle

BOUNDS = (
    Bound("instances", 2, "number of Streams instances", 1, 3),
    Bound("partitions", 3, "partitions of the store's source topic", 1, 4),
    Bound("standbys", 1, "num.standby.replicas", 0, 2),
    Bound("keys", 2, "number of keys queried", 1, 3),
)


def make(instances: int = 2, partitions: int = 3, standbys: int = 1, keys: int = 2) -> StreamsSystem:
    """The system model with Kafka's lookup."""
    return StreamsSystem(instances=instances, partitions=partitions, standbys=standbys, keys=keys)


def ignore_partition_count_router(assignment: Assignment, store: str, key: bytes) -> KeyQueryMetadata | None:
    """Mutant: hashes the key modulo the number of instances in the metadata, not the
    partition count of the store's source topic."""
    hosts = {h for h, _ in assignment.active} | {h for h, _ in assignment.standby}
    n = max(len(hosts), 1)
    return route(assignment, store, key, partitioner=lambda k, _count: to_positive(murmur2(k)) % n)


def _variant(router: Callable[[Assignment, str, bytes], KeyQueryMetadata | None]) -> Callable[..., StreamsSystem]:
    def build(instances: int = 2, partitions: int = 3, standbys: int = 1, keys: int = 2) -> StreamsSystem:
        return StreamsSystem(instances=instances, partitions=partitions, standbys=standbys, keys=keys, router=router)
    return build


def omit_idle_members(instances: int = 2, partitions: int = 3, standbys: int = 1, keys: int = 2) -> StreamsSystem:
    """Variant: the metadata leaves out a member with no task (host maps built from the tasks,
    not from the members: what kspec modelled before STREAMS-RULE-EVERY-MEMBER). A member can
    be task-less only when ``instances > standbys + 1``, e.g. ``kspec explore streams standbys=0``."""
    return StreamsSystem(instances=instances, partitions=partitions, standbys=standbys, keys=keys,
                         host_maps=to_assignment_without_idle)


PROTOCOL = ProtocolInfo(
    name="streams",
    make=make,
    bounds=BOUNDS,
    variants={"ignore-partition-count": _variant(ignore_partition_count_router),
              "omit-idle-members": omit_idle_members},
    summary="Kafka Streams instances, rebalances and interactive-query key routing",
)
