"""Interactive-query routers as a user would write them: ``route(assignment, store, key_bytes,
partitions)`` returns where a key lives.

Conformance targets for the ``streams`` protocol, written apart from the model's
``kspec.model.streams.metadata.route``: their own murmur2 (over Java ``int`` semantics by
``struct`` wrapping) and their own scan of the assignment. They read the model's
``Assignment`` by attribute and answer with the model's ``KeyQueryMetadata`` so results compare.
``ReferenceRouter`` must meet the laws of spec/streams.md; each mutant breaks one.

:class:`RouterTarget` puts a router behind the conformance interface (spec/adapter-protocol.md,
streams): one node, the metadata state of the instance answering queries; the inputs are the
rebalance events (the assignment arrives with ``RebalanceFinished``) and the queries
(``MetadataForKey``, ``AllMetadata``, ``AllMetadataForStore``), answered in the observation
``{"result": ...}``.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from typing import Any

from kspec.conformance.adapters.base import JSON, StepResult, Target, TargetError
from kspec.model.streams.metadata import (
    NOT_AVAILABLE,
    UNKNOWN_HOST,
    Assignment,
    HostInfo,
    KeyQueryMetadata,
    StreamsMetadata,
    Topology,
    key_metadata_json,
    parse_assignment,
    streams_metadata_json,
)


def _int32(x: int) -> int:
    return int(struct.unpack("<i", struct.pack("<I", x & 0xFFFFFFFF))[0])


def _ushr(x: int, n: int) -> int:
    return (x & 0xFFFFFFFF) >> n


MURMUR_M = _int32(0x5BD1E995)


def murmur2_blocks(data: bytes) -> int:
    """Kafka's ``Utils.murmur2`` up to its tail switch: the hash over the whole 4-byte blocks
    (shared with the tail-switch mutant, which differs only after this)."""
    length = len(data)
    m = MURMUR_M
    h = _int32(_int32(0x9747B28C) ^ length)
    for i in range(length // 4):
        b = data[i * 4:i * 4 + 4]
        k = _int32(b[0] + (b[1] << 8) + (b[2] << 16) + (b[3] << 24))
        k = _int32(k * m)
        k = _int32(k ^ _ushr(k, 24))
        k = _int32(k * m)
        h = _int32(h * m)
        h = _int32(h ^ k)
    return h


def murmur2_finish(h: int) -> int:
    """``Utils.murmur2``'s final mix, after the tail."""
    h = _int32(h ^ _ushr(h, 13))
    h = _int32(h * MURMUR_M)
    return _int32(h ^ _ushr(h, 15))


def java_murmur2(data: bytes) -> int:
    """Kafka's ``Utils.murmur2``, transcribed statement by statement with int32 wrapping."""
    length = len(data)
    m = MURMUR_M
    h = murmur2_blocks(data)
    tail = length & ~3
    rest = length % 4
    if rest >= 3:
        h = _int32(h ^ (data[tail + 2] << 16))
    if rest >= 2:
        h = _int32(h ^ (data[tail + 1] << 8))
    if rest >= 1:
        h = _int32(h ^ data[tail])
        h = _int32(h * m)
    return murmur2_finish(h)


class ReferenceRouter:
    """Routes a key as ``KafkaStreams.queryMetadataForKey`` with the default partitioner, and
    lists instances as ``allMetadata`` / ``allMetadataForStore`` do."""

    # KafkaStreams keeps answering from the last assignment while a rebalance runs.
    keeps_metadata_during_rebalance = True

    def rebalance_started(self) -> None:
        """A rebalance began (``RebalanceStarted``): nothing to do, the metadata is the last
        assignment's until ``onChange`` (a hook for routers that keep derived state)."""

    def all_metadata(self, assignment: Any) -> list[StreamsMetadata]:
        """One entry per host in either map, by (host, port); a host whose sets are empty (a
        member with no task) too."""
        active = dict(assignment.active)
        standby = dict(assignment.standby)
        topology = assignment.topology
        out = []
        for h in sorted(set(active) | set(standby)):
            act = active.get(h, frozenset())
            stb = standby.get(h, frozenset())
            stores_act = {n for n, ts in topology.stores if any(tp.topic in ts for tp in act)}
            stores_stb = {n for n, ts in topology.stores if any(tp.topic in ts for tp in stb)}
            out.append(StreamsMetadata(h, frozenset(stores_act | set(topology.global_stores)), frozenset(act),
                                       frozenset(stores_stb), frozenset(stb)))
        return out

    def all_metadata_for_store(self, assignment: Any, store: str) -> list[StreamsMetadata]:
        """The hosts holding ``store`` as active or standby (KIP-535); everyone for a global store."""
        if not any(n > 0 for _, n in assignment.partitions):
            return []
        every = self.all_metadata(assignment)
        if store in assignment.topology.global_stores:
            return every
        if not any(name == store and topics for name, topics in assignment.topology.stores):
            return []
        return [m for m in every if store in m.state_store_names or store in m.standby_state_store_names]

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        return (java_murmur2(key) & 0x7FFFFFFF) % num_partitions

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        counts = dict(assignment.partitions) if partitions is None else dict(partitions)
        if not counts or max(counts.values()) <= 0:
            return NOT_AVAILABLE
        topology = assignment.topology
        hosts = sorted({h for h, _ in assignment.active} | {h for h, _ in assignment.standby})
        if store in topology.global_stores:
            return KeyQueryMetadata(hosts[0] if hosts else UNKNOWN_HOST, frozenset(), -1)
        sources = next((topics for name, topics in topology.stores if name == store), ())
        if not sources:
            return None
        widest = max(counts.get(t, 0) for t in sources)
        if widest <= 0:
            return NOT_AVAILABLE
        p = self.partition(key_bytes, widest, assignment)
        active = UNKNOWN_HOST
        standbys = set()
        for h in hosts:
            mine = [tp for hh, tps in assignment.active if hh == h for tp in tps]
            theirs = [tp for hh, tps in assignment.standby if hh == h for tp in tps]
            if any(tp.topic in sources and tp.partition == p for tp in mine):
                active = h
            if any(tp.topic in sources and tp.partition == p for tp in theirs):
                standbys.add(h)
        return KeyQueryMetadata(active, frozenset(standbys), p)

    __call__ = route


class IgnorePartitionCountRouter(ReferenceRouter):
    """Mutant: hashes the key modulo the number of instances, not the partition count."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        hosts = {h for h, _ in assignment.active} | {h for h, _ in assignment.standby}
        return (java_murmur2(key) & 0x7FFFFFFF) % max(len(hosts), 1)


class AbsHashRouter(ReferenceRouter):
    """Mutant: makes the hash positive with ``abs`` instead of ``& 0x7fffffff`` (the bug Kafka's
    own ``Utils.abs`` once had): a key whose murmur2 is negative lands on another partition."""

    def partition(self, key: bytes, num_partitions: int, assignment: Any) -> int:
        return abs(java_murmur2(key)) % num_partitions


class NoStandbysRouter(ReferenceRouter):
    """Mutant: never names standby hosts (KIP-67's lookup before KIP-535 added them)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        found = super().route(assignment, store, key_bytes, partitions)
        if found is None or found == NOT_AVAILABLE:
            return found
        return KeyQueryMetadata(found.active_host, frozenset(), found.partition)

    __call__ = route


class ActiveOnlyStoreMetadataRouter(ReferenceRouter):
    """Mutant: ``allMetadataForStore`` lists only the hosts holding the store actively (the
    pre-KIP-535 answer), though the per-key lookup names standbys."""

    def all_metadata_for_store(self, assignment: Any, store: str) -> list[StreamsMetadata]:
        return [m for m in super().all_metadata_for_store(assignment, store) if store in m.state_store_names]


class AvailableBeforeAssignmentRouter(ReferenceRouter):
    """Mutant: no "is initialized" check: before the first assignment a key is routed with one
    partition assumed, answering partition 0 on an unknown host instead of NOT_AVAILABLE."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        counts = dict(assignment.partitions) if partitions is None else dict(partitions)
        if not counts:
            return KeyQueryMetadata(UNKNOWN_HOST, frozenset(), 0)
        return super().route(assignment, store, key_bytes, partitions)

    __call__ = route


class ForgetsOnRebalanceRouter(ReferenceRouter):
    """Mutant: drops its metadata when a rebalance starts and answers NOT_AVAILABLE until it
    ends (what the KIP-67 discussion assumed), where Kafka answers from the last assignment."""

    keeps_metadata_during_rebalance = False


class OneStandbyRouter(ReferenceRouter):
    """Mutant: the standby hosts of a key kept in one variable, not a set: with two standby
    replicas only the last host (in host order) is named."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        found = super().route(assignment, store, key_bytes, partitions)
        if found is None or len(found.standby_hosts) < 2:
            return found
        return KeyQueryMetadata(found.active_host, frozenset({max(found.standby_hosts)}), found.partition)

    __call__ = route


def modified_utf8(text: str) -> bytes:
    """Java's modified UTF-8 (``DataOutputStream.writeUTF``, JNI): a character outside the BMP
    is its two UTF-16 surrogates, three bytes each."""
    out = bytearray()
    for ch in text:
        cp = ord(ch)
        if cp <= 0xFFFF:
            out += ch.encode("utf-8")
            continue
        cp -= 0x10000
        for unit in (0xD800 | (cp >> 10), 0xDC00 | (cp & 0x3FF)):
            out += bytes((0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F)))
    return bytes(out)


class ModifiedUtf8KeysRouter(ReferenceRouter):
    """Mutant: keys serialized as Java's modified UTF-8 (a ``writeUTF`` serializer) instead of
    UTF-8: a key outside the BMP (an emoji) hashes over six bytes, not four."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        return super().route(assignment, store, modified_utf8(key_bytes.decode("utf-8")), partitions)

    __call__ = route


class TrimmedKeysRouter(ReferenceRouter):
    """Mutant: keys trimmed of surrounding blanks before hashing (an input "clean-up")."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        return super().route(assignment, store, key_bytes.decode("utf-8").strip().encode("utf-8"), partitions)

    __call__ = route


class DropsIdleMembersRouter(ReferenceRouter):
    """Mutant: ``allMetadata`` lists only the hosts with a partition, dropping a member the
    assignment gave no task (kspec's own model did this before following
    ``populatePartitionsByHostMaps``)."""

    def all_metadata(self, assignment: Any) -> list[StreamsMetadata]:
        return [m for m in super().all_metadata(assignment) if m.topic_partitions or m.standby_topic_partitions]


class StandbyCacheRouter(ReferenceRouter):
    """Mutant: key lookups memoised until the active owners change (the memo keyed by the
    store, the key and the active map): a rebalance that moves standby tasks only keeps naming
    the old standby hosts (red team, session 14)."""

    def __init__(self) -> None:
        self.memo: dict[Any, KeyQueryMetadata | None] = {}

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        counts = None if partitions is None else tuple(sorted(partitions.items()))
        memo_key = (store, key_bytes, assignment.active, counts)
        if memo_key not in self.memo:
            self.memo[memo_key] = super().route(assignment, store, key_bytes, partitions)
        return self.memo[memo_key]

    __call__ = route


class GlobalKeyBusyHostRouter(ReferenceRouter):
    """Mutant: a global store's key is answered by the first host that runs a task (active or
    standby), not the first host: a member the plan left idle holds every global store too
    (STREAMS-RULE-KEY 2, STREAMS-RULE-ALL-METADATA; red team, session 16)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        answer = super().route(assignment, store, key_bytes, partitions)
        if answer is None or store not in assignment.topology.global_stores or answer.partition != -1 \
                or answer.active_host == UNKNOWN_HOST:
            return answer
        busy = sorted({h for h, tps in (*assignment.active, *assignment.standby) if tps})
        return KeyQueryMetadata(busy[0], answer.standby_hosts, answer.partition) if busy else answer

    __call__ = route


class HostOrderByTextRouter(ReferenceRouter):
    """Mutant: a global store's key is answered by the first host in the order of the
    ``host:port`` texts, not of (host, port): the port compares as text, so ``localhost:10092``
    comes before ``localhost:9092`` (STREAMS-RULE-KEY 2; red team, session 17)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        answer = super().route(assignment, store, key_bytes, partitions)
        if answer is None or store not in assignment.topology.global_stores or answer.partition != -1 \
                or answer.active_host == UNKNOWN_HOST:
            return answer
        hosts = {h for h, _ in (*assignment.active, *assignment.standby)}
        first = min(hosts, key=self.host_order)
        return KeyQueryMetadata(first, answer.standby_hosts, answer.partition)

    @staticmethod
    def host_order(host: Any) -> Any:
        """The wrong order the global store's host is picked by (subclasses swap it)."""
        return f"{host.host}:{host.port}"

    __call__ = route


class StandbysByHostNameRouter(ReferenceRouter):
    """Mutant: a key's standbys told apart by host name alone (the first port in host order
    kept), not by ``HostInfo`` (host and port): two instances on one machine standing by for
    the key's partition are answered as one (STREAMS-RULE-KEY 3; red team, session 20)."""

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        answer = super().route(assignment, store, key_bytes, partitions)
        if answer is None:
            return answer
        kept: dict[str, HostInfo] = {}
        for h in sorted(answer.standby_hosts):
            kept.setdefault(h.host, h)
        return KeyQueryMetadata(answer.active_host, frozenset(kept.values()), answer.partition)

    __call__ = route

class KeyCacheFromRebalanceStartRouter(ReferenceRouter):
    """Mutant: key answers memoised per (store, key), the memo emptied when a rebalance starts
    rather than when its assignment arrives: a key asked during the rebalance keeps the old
    owners' answer after ``onChange`` (STREAMS-RULE-KEY; red team, session 20)."""

    def __init__(self) -> None:
        self.memo: dict[tuple[str, bytes], KeyQueryMetadata | None] = {}

    def rebalance_started(self) -> None:
        self.memo.clear()

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        if (store, key_bytes) not in self.memo:
            self.memo[(store, key_bytes)] = super().route(assignment, store, key_bytes, partitions)
        return self.memo[(store, key_bytes)]

    __call__ = route

class StoreMetadataCacheRouter(ReferenceRouter):
    """Mutant: ``allMetadataForStore`` memoised per store until the set of hosts changes: a
    rebalance over the same members that moves a store's tasks keeps listing the store's old
    hosts (STREAMS-RULE-STORE-METADATA; red team, session 18)."""

    def __init__(self) -> None:
        self.memo: dict[Any, list[StreamsMetadata]] = {}

    def all_metadata_for_store(self, assignment: Any, store: str) -> list[StreamsMetadata]:
        hosts = frozenset(h for h, _ in (*assignment.active, *assignment.standby))
        if (store, hosts) not in self.memo:
            self.memo[(store, hosts)] = super().all_metadata_for_store(assignment, store)
        return self.memo[(store, hosts)]


class PartitionCountsMergedRouter(ReferenceRouter):
    """Mutant: each assignment's partition counts merged into the ones known before ("a missing
    count is an incomplete metadata refresh"), so after a source topic is deleted (no partition
    of it in the next assignment) a store over it and a narrower topic still hashes modulo the
    deleted topic's count (STREAMS-RULE-PARTITION-INFO; red team, session 20:
    ``partition-counts-merged``). No protocol Kafka ships hands ``onChange`` an assignment without
    a deleted source topic while keeping the other topics (session 23, spec/streams.md
    STREAMS-DRIVE-TOPIC-DELETED, withdrawn), but KIP-1071's reconciliation hands out one with no
    active owner at all, so no count (STREAMS-DRIVE-ACTIVE-WITHHELD): merged, the old counts stay
    and a key is routed where Kafka answers NOT_AVAILABLE. Caught by that probe alone."""

    def __init__(self) -> None:
        self.known: dict[str, int] = {}
        self.seen: Any = None

    def route(self, assignment: Any, store: str, key_bytes: bytes,
              partitions: Mapping[str, int] | None = None) -> KeyQueryMetadata | None:
        if assignment is not self.seen:
            self.seen = assignment
            self.known = {**self.known, **dict(assignment.partitions)}
        return super().route(assignment, store, key_bytes, self.known if partitions is None else partitions)

    __call__ = route


REFERENCE = {"default": ReferenceRouter}
MUTANTS = {
    "ignore-partition-count": IgnorePartitionCountRouter,
    "abs-hash": AbsHashRouter,
    "no-standbys": NoStandbysRouter,
    "active-only-store-metadata": ActiveOnlyStoreMetadataRouter,
    "available-before-assignment": AvailableBeforeAssignmentRouter,
    "forgets-on-rebalance": ForgetsOnRebalanceRouter,
    "drops-idle-members": DropsIdleMembersRouter,
    "one-standby": OneStandbyRouter,
    "modified-utf8-keys": ModifiedUtf8KeysRouter,
    "trimmed-keys": TrimmedKeysRouter,
    "standby-cache": StandbyCacheRouter,
    "global-key-busy-host": GlobalKeyBusyHostRouter,
    "host-order-by-text": HostOrderByTextRouter,
    "store-metadata-cache": StoreMetadataCacheRouter,
    "standbys-by-host-name": StandbysByHostNameRouter,
    "key-cache-from-rebalance-start": KeyCacheFromRebalanceStartRouter,
    "partition-counts-merged": PartitionCountsMergedRouter,
}


# -- the conformance interface ----------------------------------------------------------------

def _nothing() -> Assignment:
    return Assignment(Topology(()), ())


class RouterInstance:
    """The metadata state of the instance answering queries, with ``router`` answering them."""

    def __init__(self, router: ReferenceRouter) -> None:
        self.router = router
        self.assignment = _nothing()

    def step(self, inp: JSON) -> StepResult:
        kind = inp.get("type") if isinstance(inp, dict) else None
        if kind == "RebalanceStarted":
            self.router.rebalance_started()
            if not self.router.keeps_metadata_during_rebalance:
                self.assignment = _nothing()
            return StepResult([], {"result": None})
        if kind == "RebalanceFinished":
            try:
                self.assignment = parse_assignment(inp["assignment"])
            except (KeyError, TypeError, ValueError) as err:
                raise TargetError(f"RebalanceFinished: malformed assignment ({err})") from None
            return StepResult([], {"result": None})
        if kind == "MetadataForKey" and isinstance(inp.get("key"), str) and isinstance(inp.get("store"), str):
            found = self.router.route(self.assignment, inp["store"], inp["key"].encode("utf-8"))
            return StepResult([], {"result": key_metadata_json(found)})
        if kind == "AllMetadata":
            return StepResult([], {"result": [streams_metadata_json(m) for m in self.router.all_metadata(
                self.assignment)]})
        if kind == "AllMetadataForStore" and isinstance(inp.get("store"), str):
            return StepResult([], {"result": [streams_metadata_json(m) for m in self.router.all_metadata_for_store(
                self.assignment, inp["store"])]})
        raise TargetError(f"unknown or malformed streams input {inp!r:.120}")

    def close(self) -> None:
        pass


class RouterTarget(Target):
    """A router class as a streams target (one node)."""

    protocol = "streams"

    def __init__(self, name: str = "reference", router_class: type[ReferenceRouter] = ReferenceRouter) -> None:
        self.name = name
        self.router_class = router_class

    def start(self, node: Any, config: dict[str, JSON]) -> RouterInstance:
        return RouterInstance(self.router_class())

    def close(self) -> None:
        pass
