"""Kafka Streams' queryable-state metadata (KIP-67, standbys from KIP-535) as pure functions.

This follows ``StreamsMetadataState`` (``streams/.../processor/internals``): the metadata is
rebuilt from the assignment (host -> active and standby topic partitions, every member named)
and partition counts — what ``onChange`` is given; a member gives it the counts of the active
map (:func:`partitions_from_active`); ``all_metadata``, ``all_metadata_for_store`` and the per-key
lookup (:func:`route`, Kafka's ``getKeyQueryMetadataForKey`` with the default partitioner)
are answered from it. Before the first assignment (no partition counts known) the lookup
answers :data:`NOT_AVAILABLE` and ``all_metadata_for_store`` is empty (STREAMS-RULE-NOT-AVAILABLE).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from kspec.model.streams.murmur2 import partition_for_key


@dataclass(frozen=True, slots=True, order=True)
class HostInfo:
    """``HostInfo``: the ``application.server`` endpoint of an instance."""

    host: str
    port: int


UNKNOWN_HOST = HostInfo("unavailable", -1)
UNKNOWN_PARTITION = -1


@dataclass(frozen=True, slots=True, order=True)
class TopicPartition:
    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class StreamsMetadata:
    """``StreamsMetadata`` of one instance: its host, and active and standby stores/partitions."""

    host_info: HostInfo
    state_store_names: frozenset[str]
    topic_partitions: frozenset[TopicPartition]
    standby_state_store_names: frozenset[str]
    standby_topic_partitions: frozenset[TopicPartition]


@dataclass(frozen=True, slots=True)
class KeyQueryMetadata:
    """``KeyQueryMetadata``: where a key lives (active host, standby hosts, partition)."""

    active_host: HostInfo
    standby_hosts: frozenset[HostInfo]
    partition: int


NOT_AVAILABLE = KeyQueryMetadata(UNKNOWN_HOST, frozenset(), UNKNOWN_PARTITION)


@dataclass(frozen=True, slots=True)
class Topology:
    """The stores of an application and the source topics each reads (``sourceTopicsForStore``),
    and the global stores (present on every instance)."""

    stores: tuple[tuple[str, tuple[str, ...]], ...]
    global_stores: frozenset[str] = frozenset()

    def source_topics(self, store: str) -> tuple[str, ...]:
        for name, topics in self.stores:
            if name == store:
                return topics
        return ()


@dataclass(frozen=True, slots=True)
class Assignment:
    """What ``StreamsMetadataState.onChange`` receives: host -> partitions, for actives and
    standbys, and the partition count of each topic (``partitionsByTopic``)."""

    topology: Topology
    active: tuple[tuple[HostInfo, frozenset[TopicPartition]], ...]
    standby: tuple[tuple[HostInfo, frozenset[TopicPartition]], ...] = ()
    partitions: tuple[tuple[str, int], ...] = ()

    def partition_count(self) -> dict[str, int]:
        return dict(self.partitions)

    def initialized(self) -> bool:
        """``isInitialized``: partition counts are known (an assignment has been received)."""
        return any(n > 0 for _, n in self.partitions)


def _stores_on(topology: Topology, partitions: frozenset[TopicPartition]) -> frozenset[str]:
    topics = {tp.topic for tp in partitions}
    return frozenset(name for name, sources in topology.stores if topics.intersection(sources))


HostMap = tuple[tuple[HostInfo, frozenset[TopicPartition]], ...]


def partitions_from_active(active: HostMap) -> tuple[tuple[str, int], ...]:
    """The partition counts a member gives ``onChange`` (STREAMS-RULE-PARTITION-INFO): one
    ``PartitionInfo`` per partition in the active host map
    (``StreamsPartitionAssignor.getTopicPartitionInfo(partitionsByHost)``), counted per topic
    (``partitionsByTopic``, ``SourceTopicsInfo.maxPartitions``), not the topic's own count."""
    per_topic: dict[str, set[int]] = {}
    for _, tps in active:
        for tp in tps:
            per_topic.setdefault(tp.topic, set()).add(tp.partition)
    return tuple(sorted((topic, len(ps)) for topic, ps in per_topic.items()))


def all_metadata(assignment: Assignment) -> tuple[StreamsMetadata, ...]:
    """``allMetadata``: one entry per host in either map, sorted by (host, port) — a host
    whose set is empty too (the assignor names every member: STREAMS-RULE-EVERY-MEMBER); global
    stores count as active stores on every host."""
    if not assignment.active and not assignment.standby:
        return ()
    active = dict(assignment.active)
    standby = dict(assignment.standby)
    topology = assignment.topology
    out = []
    for host in sorted(set(active) | set(standby)):
        act = active.get(host, frozenset())
        stb = standby.get(host, frozenset())
        out.append(StreamsMetadata(host, _stores_on(topology, act) | topology.global_stores, act,
                                   _stores_on(topology, stb), stb))
    return tuple(out)


def all_metadata_for_store(assignment: Assignment, store: str) -> tuple[StreamsMetadata, ...]:
    """``allMetadataForStore``: the hosts holding ``store`` as active or standby."""
    if not assignment.initialized():
        return ()
    every = all_metadata(assignment)
    if store in assignment.topology.global_stores:
        return every
    if not assignment.topology.source_topics(store):
        return ()
    return tuple(m for m in every if store in m.state_store_names or store in m.standby_state_store_names)


Partitioner = Callable[[bytes, int], int]


def route(assignment: Assignment, store: str, key_bytes: bytes,
          partitions: Mapping[str, int] | None = None,
          partitioner: Partitioner = partition_for_key) -> KeyQueryMetadata | None:
    """``queryMetadataForKey(store, key, serializer)``: the key's partition and hosts.

    ``partitions`` overrides the assignment's partition counts (what the metadata knows).
    The partition is the default partitioner over the store's source topic with the most
    partitions; the active host is the (last, in host order) host whose active partitions
    include that partition of a source topic and whose active stores include ``store``; the
    standbys likewise. Returns None for a store that has no source topics.
    """
    counts = dict(assignment.partitions) if partitions is None else dict(partitions)
    if not any(n > 0 for n in counts.values()):
        return NOT_AVAILABLE
    every = all_metadata(assignment)
    topology = assignment.topology
    if store in topology.global_stores:
        first = every[0].host_info if every else UNKNOWN_HOST
        return KeyQueryMetadata(first, frozenset(), UNKNOWN_PARTITION)
    sources = topology.source_topics(store)
    if not sources:
        return None
    max_partitions = 0
    for topic in sources:
        if counts.get(topic, 0) > max_partitions:
            max_partitions = counts[topic]
    if max_partitions == 0:
        # Kafka would ask the partitioner for 0 partitions and fail; no partition is known.
        return NOT_AVAILABLE
    partition = partitioner(key_bytes, max_partitions)
    matching = {TopicPartition(topic, partition) for topic in sources}
    active_host = UNKNOWN_HOST
    standbys: set[HostInfo] = set()
    for m in every:
        if store in m.state_store_names and matching & m.topic_partitions:
            active_host = m.host_info
        if store in m.standby_state_store_names and matching & m.standby_topic_partitions:
            standbys.add(m.host_info)
    return KeyQueryMetadata(active_host, frozenset(standbys), partition)


# -- the conformance wire format (spec/adapter-protocol.md, streams) -------------------------------
# Hosts are "host:port" strings and topic partitions [topic, partition] pairs, so a target in
# any language reads them without kspec's classes.

def host_text(h: HostInfo) -> str:
    """``host:port``."""
    return f"{h.host}:{h.port}"


def parse_host(text: str) -> HostInfo:
    """The HostInfo of ``host:port``; ValueError when it is not one."""
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise ValueError(f"not host:port: {text!r}")
    return HostInfo(host, int(port))


def _tps_json(tps: frozenset[TopicPartition]) -> list[list[str | int]]:
    return [[tp.topic, tp.partition] for tp in sorted(tps)]


def _parse_tps(items: list[list[str | int]]) -> frozenset[TopicPartition]:
    return frozenset(TopicPartition(str(t), int(p)) for t, p in items)


def assignment_json(a: Assignment) -> dict[str, object]:
    """What ``StreamsMetadataState.onChange`` gets, as plain JSON: the stores and their source
    topics, global stores, host -> active and standby partitions, and partition counts."""
    return {"stores": {name: list(topics) for name, topics in a.topology.stores},
            "global_stores": sorted(a.topology.global_stores),
            "active": {host_text(h): _tps_json(tps) for h, tps in a.active},
            "standby": {host_text(h): _tps_json(tps) for h, tps in a.standby},
            "partitions": dict(a.partitions)}


def parse_assignment(doc: Mapping[str, object]) -> Assignment:
    """The inverse of :func:`assignment_json`; ValueError, KeyError or TypeError when malformed."""
    stores = doc["stores"]
    active = doc["active"]
    standby = doc.get("standby") or {}
    partitions = doc.get("partitions") or {}
    globals_ = doc.get("global_stores") or []
    if not (isinstance(stores, dict) and isinstance(active, dict) and isinstance(standby, dict)
            and isinstance(partitions, dict) and isinstance(globals_, list)):
        raise TypeError("assignment: stores, active, standby, partitions must be objects, global_stores a list")
    topology = Topology(tuple((str(n), tuple(str(t) for t in ts)) for n, ts in stores.items()),
                        frozenset(str(g) for g in globals_))
    return Assignment(topology,
                      tuple(sorted((parse_host(h), _parse_tps(tps)) for h, tps in active.items())),
                      tuple(sorted((parse_host(h), _parse_tps(tps)) for h, tps in standby.items())),
                      tuple(sorted((str(t), int(n)) for t, n in partitions.items())))


def key_metadata_json(m: KeyQueryMetadata | None) -> dict[str, object] | None:
    """``KeyQueryMetadata`` as JSON (None stays null: a store without source topics)."""
    if m is None:
        return None
    return {"active": host_text(m.active_host), "standbys": sorted(host_text(h) for h in m.standby_hosts),
            "partition": m.partition}


def parse_key_metadata(doc: object) -> KeyQueryMetadata | None:
    """The inverse of :func:`key_metadata_json`; ValueError, KeyError or TypeError when malformed."""
    if doc is None:
        return None
    if not isinstance(doc, dict) or not isinstance(doc["standbys"], list) or not isinstance(doc["partition"], int):
        raise TypeError(f"not a KeyQueryMetadata: {doc!r:.80}")
    return KeyQueryMetadata(parse_host(str(doc["active"])), frozenset(parse_host(str(h)) for h in doc["standbys"]),
                            doc["partition"])


def parse_streams_metadata(doc: object) -> StreamsMetadata:
    """The inverse of :func:`streams_metadata_json`; ValueError, KeyError or TypeError when malformed."""
    if not isinstance(doc, dict):
        raise TypeError(f"not a StreamsMetadata: {doc!r:.80}")
    lists = [doc[k] for k in ("stores", "partitions", "standby_stores", "standby_partitions")]
    if not all(isinstance(x, list) for x in lists):
        raise TypeError(f"not a StreamsMetadata: {doc!r:.80}")
    return StreamsMetadata(parse_host(str(doc["host"])), frozenset(str(s) for s in lists[0]), _parse_tps(lists[1]),
                           frozenset(str(s) for s in lists[2]), _parse_tps(lists[3]))


def streams_metadata_json(m: StreamsMetadata) -> dict[str, object]:
    """``StreamsMetadata`` as JSON."""
    return {"host": host_text(m.host_info), "stores": sorted(m.state_store_names),
            "partitions": _tps_json(m.topic_partitions), "standby_stores": sorted(m.standby_state_store_names),
            "standby_partitions": _tps_json(m.standby_topic_partitions)}
