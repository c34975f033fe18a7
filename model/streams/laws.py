"""Laws tying ``all_metadata``, ``all_metadata_for_store`` and the per-key lookup together
(spec/streams.md, STREAMS-LAW-*), over any assignment.

A law takes a router (a function with :func:`kspec.model.streams.metadata.route`'s signature,
so a user's router class can be checked the same way) and a :class:`Query`. "Valid"
assignments are those Streams' assignor makes: each partition has one active host, and no
host is standby for a partition it holds actively; laws that need that say so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from kspec.model.core import laws as core_laws
from kspec.model.streams.metadata import (
    NOT_AVAILABLE,
    UNKNOWN_HOST,
    Assignment,
    HostInfo,
    HostMap,
    KeyQueryMetadata,
    StreamsMetadata,
    TopicPartition,
    all_metadata,
    all_metadata_for_store,
)
from kspec.model.streams.murmur2 import partition_for_key

Router = Callable[[Assignment, str, bytes, Mapping[str, int] | None], KeyQueryMetadata | None]


@dataclass(frozen=True, slots=True)
class Query:
    """One lookup: the assignment the instance knows, a store and the serialized key."""

    assignment: Assignment
    store: str
    key: bytes


def valid_assignment(a: Assignment) -> bool:
    """What Streams' assignor guarantees: each source partition has at most one active host;
    partition ``p`` of all the source topics of a store belongs to one task, so to one active
    host (co-partitioning); and no host is standby for a task it holds actively."""
    owners: dict[TopicPartition, HostInfo] = {}
    for host, tps in a.active:
        for tp in tps:
            if owners.setdefault(tp, host) != host:
                return False
    for _, sources in a.topology.stores:
        for tp, host in owners.items():
            if tp.topic in sources and any(owners.get(TopicPartition(t, tp.partition), host) != host
                                           for t in sources):
                return False
    task_owner = {(store, tp.partition): host for store, sources in a.topology.stores
                  for tp, host in owners.items() if tp.topic in sources}
    for host, tps in a.standby:
        for tp in tps:
            for store, sources in a.topology.stores:
                if tp.topic in sources and task_owner.get((store, tp.partition)) == host:
                    return False
    return True


def _max_partitions(q: Query) -> int:
    counts = q.assignment.partition_count()
    return max((counts.get(t, 0) for t in q.assignment.topology.source_topics(q.store)), default=0)


def _expected_partition(q: Query) -> int | None:
    n = _max_partitions(q)
    return partition_for_key(q.key, n) if n > 0 else None


def _answer(router: Router, q: Query) -> KeyQueryMetadata | None:
    return router(q.assignment, q.store, q.key, None)


def _routable(q: Query) -> bool:
    return (q.assignment.initialized() and bool(q.assignment.topology.source_topics(q.store))
            and q.store not in q.assignment.topology.global_stores and _max_partitions(q) > 0)


def _matching(q: Query, partition: int) -> set[TopicPartition]:
    return {TopicPartition(t, partition) for t in q.assignment.topology.source_topics(q.store)}


def _partition(router: Router, q: Query) -> bool:
    r = _answer(router, q)
    return r is not None and r.partition == _expected_partition(q)


def _active_owns(router: Router, q: Query) -> bool:
    r = _answer(router, q)
    if r is None:
        return False
    if r.active_host == UNKNOWN_HOST:
        return True
    meta = {m.host_info: m for m in all_metadata(q.assignment)}
    m = meta.get(r.active_host)
    return m is not None and q.store in m.state_store_names and bool(_matching(q, r.partition) & m.topic_partitions)


def _holders(q: Query, assigned: HostMap) -> frozenset[HostInfo]:
    """The hosts ``assigned`` (active or standby tasks) a partition of the key's store."""
    expected = _expected_partition(q)
    if expected is None:
        return frozenset()
    return frozenset(host for host, tps in assigned if _matching(q, expected) & tps)


def _active_found(router: Router, q: Query) -> bool:
    r = _answer(router, q)
    if r is None:
        return False
    owners = _holders(q, q.assignment.active)
    return (r.active_host in owners) if owners else r.active_host == UNKNOWN_HOST


def _standbys(router: Router, q: Query) -> bool:
    r = _answer(router, q)
    return r is not None and r.standby_hosts == _holders(q, q.assignment.standby) and \
        r.active_host not in r.standby_hosts


def _hosts_in_store_metadata(router: Router, q: Query) -> bool:
    r = _answer(router, q)
    if r is None:
        return False
    for_store = {m.host_info for m in all_metadata_for_store(q.assignment, q.store)}
    everyone = {m.host_info for m in all_metadata(q.assignment)}
    named = set(r.standby_hosts) | ({r.active_host} - {UNKNOWN_HOST})
    return named <= for_store <= everyone


def _store_metadata(router: Router, q: Query) -> bool:
    for_store = all_metadata_for_store(q.assignment, q.store)
    expected = tuple(m for m in all_metadata(q.assignment)
                     if q.store in m.state_store_names or q.store in m.standby_state_store_names)
    return for_store == expected


def _not_available(router: Router, q: Query) -> bool:
    return router(q.assignment, q.store, q.key, None) == NOT_AVAILABLE and not all_metadata_for_store(
        q.assignment, q.store)


@dataclass(frozen=True, slots=True)
class Law(core_laws.Law[Router, Query]):
    """A law of interactive-query routing: ``check(router, query)`` where ``precondition(query)``."""


LAWS: tuple[Law, ...] = (
    Law("STREAMS-LAW-PARTITION", "key goes to the default partitioner's partition",
        "partition == toPositive(murmur2(key)) % (partitions of the store's largest source topic)",
        _partition, _routable),
    Law("STREAMS-LAW-ACTIVE-OWNS", "the active host holds the store and the partition",
        "active_host's StreamsMetadata has the store and a source topic's partition among its actives",
        _active_owns, _routable),
    Law("STREAMS-LAW-ACTIVE-FOUND", "the owner of the partition is found",
        "active_host is a host whose active partitions include the key's partition (UNKNOWN when none)",
        _active_found, lambda q: _routable(q) and valid_assignment(q.assignment)),
    Law("STREAMS-LAW-STANDBYS", "standbys are exactly the standby holders",
        "standby_hosts == hosts whose standby partitions include the key's partition; active is not among them",
        _standbys, lambda q: _routable(q) and valid_assignment(q.assignment)),
    Law("STREAMS-LAW-HOSTS-IN-STORE-METADATA", "lookup, allMetadataForStore and allMetadata agree",
        "active and standby hosts of a key ⊆ hosts of allMetadataForStore(store) ⊆ hosts of allMetadata",
        _hosts_in_store_metadata, _routable),
    Law("STREAMS-LAW-STORE-METADATA", "allMetadataForStore filters allMetadata",
        "allMetadataForStore(store) == the allMetadata entries with the store as active or standby",
        _store_metadata,
        lambda q: q.assignment.initialized() and q.store not in q.assignment.topology.global_stores
        and bool(q.assignment.topology.source_topics(q.store))),
    Law("STREAMS-LAW-NOT-AVAILABLE", "nothing is answered before the first assignment",
        "with no partition counts known the lookup is NOT_AVAILABLE and allMetadataForStore is empty",
        _not_available, lambda q: not q.assignment.initialized()),
)

LAWS_BY_ID: dict[str, Law] = {law.id: law for law in LAWS}


def violated_laws(router: Router, q: Query) -> list[str]:
    """The IDs of the laws that fail for ``router`` at ``q``."""
    return [law.id for law in LAWS if not law.holds(router, q)]


# -- laws on an allMetadata answer ----------------------------------------------------------------

def every_member_listed(a: Assignment, listed: Sequence[StreamsMetadata]) -> bool:
    """STREAMS-LAW-EVERY-MEMBER: ``allMetadata`` has one entry per host of the assignment's
    two maps — a member whose sets are empty too — with that host's active and standby
    partitions (order is not checked here: 3.0-3.1 list hosts in HashMap order)."""
    active, standby = dict(a.active), dict(a.standby)
    hosts = [m.host_info for m in listed]
    if len(hosts) != len(set(hosts)) or set(hosts) != set(active) | set(standby):
        return False
    return all(m.topic_partitions == active.get(m.host_info, frozenset())
               and m.standby_topic_partitions == standby.get(m.host_info, frozenset()) for m in listed)


@dataclass(frozen=True, slots=True)
class MetadataLaw:
    """A named law over what ``allMetadata`` answered, given the assignment the instance was given."""

    id: str
    name: str
    doc: str
    check: Callable[[Assignment, Sequence[StreamsMetadata]], bool]


EVERY_MEMBER = MetadataLaw(
    "STREAMS-LAW-EVERY-MEMBER", "allMetadata lists every member of the assignment",
    "allMetadata has one entry per host of the active and standby maps, a member with no task too,"
    " with that host's active and standby partitions", every_member_listed)
