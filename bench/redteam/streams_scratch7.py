"""Kafka Streams queryable-state metadata, session 15's blind red-team bugs ("outsidera").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
``MetadataTarget``), written from spec/streams.md, docs/adapter-guide.md and Kafka's
``StreamsMetadataState`` / ``KeyQueryMetadata`` / ``StreamsMetadata`` alone (the driver, the model
and the other red-team modules unread). Each bug is one subclass overriding one or two methods,
its docstring naming the rule it breaks and why a porter slips there: the order of
``getKeyQueryMetadataForKey``'s checks, global stores and members without a task, standbys
during a rebalance, Python's truthiness on the empty key, an incremental ``onChange``, and
murmur2's tail bytes taken as Java's signed bytes.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch7:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, MetadataNode, MetadataTarget, to_int32


class Metadata7(Metadata):
    """The bug-free port, told the instance's topology at start (the node configuration's
    ``stores`` / ``global_stores``, fixed for the run): what a porter validates a store name by."""

    def configure(self, config: dict[str, Any]) -> None:
        self.topology = set(config.get("stores") or {}) | set(config.get("global_stores") or [])


class Target7(MetadataTarget):
    """``streams_scratch5.MetadataTarget`` over :class:`Metadata7`."""

    impl: type[Metadata] = Metadata7

    def start(self, node: Any, config: dict[str, Any]) -> MetadataNode:
        started = super().start(node, config)
        if isinstance(started.state, Metadata7):
            started.state.configure(config)
        return started


class UnknownStoreBeforeInitNull(Metadata7):
    """STREAMS-RULE-KEY (1 before 3), STREAMS-RULE-NOT-AVAILABLE: the store name is validated
    before the "initialized" check, so an unknown store asked about before the first assignment
    answers null where Kafka's ``getKeyQueryMetadataForKey`` returns ``NOT_AVAILABLE`` first
    (``if (!isInitialized()) return KeyQueryMetadata.NOT_AVAILABLE;`` precedes the global-store
    and source-topics look-ups). Validating the arguments first is the porter's reflex. Needs a
    key query for an unknown store before the first ``RebalanceFinished``."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if store not in self.topology:
            return None
        return super().key_metadata(store, key)


class GlobalStoreMetadataSkipsIdle(Metadata7):
    """STREAMS-RULE-STORE-METADATA ("every host for a global store"), STREAMS-RULE-ALL-METADATA:
    ``allMetadataForStore`` of a global store lists only the hosts that run a task (active or
    standby), because the porter built the answer from the partitions-by-host maps' non-empty
    entries, where Kafka returns ``allMetadata`` whole: every member, a member without a task
    too, holds every global store. Needs a plan that leaves a member without a task, then
    ``AllMetadataForStore`` of the global store."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        answer = super().all_metadata_for_store(store)
        if store in self.global_stores:
            return [e for e in answer if e["partitions"] or e["standby_partitions"]]
        return answer


class IdleMemberWithoutGlobals(Metadata7):
    """STREAMS-RULE-ALL-METADATA ("a member without a task too, with no partitions, no standby
    stores and only the global stores"): a member that runs no task gets no store names at all,
    because the porter added the global stores inside the loop over a host's partitions
    (``rebuildMetadataForSingleTopology`` adds them to every host). Needs a plan that leaves a
    member without a task, then ``AllMetadata`` (or ``AllMetadataForStore`` of a global store)."""

    def active_stores(self, host: str) -> list[str]:
        if not self.active.get(host) and not self.standby.get(host):
            return []
        return super().active_stores(host)


class StandbysHiddenWhileRebalancing(Metadata7):
    """STREAMS-RULE-KEY (5), spec/streams.md "Not available while rebalancing": while a rebalance
    runs, a key's standby hosts are left out (the porter took standby tasks for suspended during
    a rebalance, so not worth naming), where Kafka answers from the previous assignment whole
    until ``onChange`` replaces it, standbys included (KIP-535: a caller may query a standby).
    Needs a key with a standby host queried between ``RebalanceStarted`` and
    ``RebalanceFinished`` after a first assignment."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is not None and self.rebalancing:
            return {**answer, "standbys": []}
        return answer


class EmptyKeyIsNull(Metadata7):
    """STREAMS-RULE-KEY (keys are strings; null is never sent), STREAMS-RULE-DEFAULT-PARTITIONER:
    the empty key is taken for a missing one (Python's ``if not key``) and answered null, where
    Kafka serializes ``""`` to zero bytes and hashes them (``murmur2`` of the empty array) like
    any key. Needs a key query for ``""`` on a store with source topics after an assignment."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if not key and self.initialized() and store not in self.global_stores:
            return None
        return super().key_metadata(store, key)


class IncrementalOnChange(Metadata7):
    """STREAMS-RULE-EVERY-MEMBER, STREAMS-RULE-ALL-METADATA (``onChange`` rebuilds the view from
    the maps it is given): ``onChange`` updates the host entries it is given and never removes a
    host the new maps no longer name, so a member that left stays listed with its old tasks (and,
    last in host order, may still be named the active host of a task that moved). The porter
    wrote an update where Kafka's ``rebuildMetadata`` clears ``allMetadata`` first. Needs a member
    leaving and a finished rebalance without it, then a query."""

    def on_change(self, assignment: dict[str, Any]) -> None:
        active, standby = self.active, self.standby
        super().on_change(assignment)
        self.active = {**active, **self.active}
        self.standby = {**standby, **self.standby}


class SignedTailBytes(Metadata7):
    """STREAMS-RULE-MURMUR2 ("tail bytes through a fall-through switch", each ``& 0xff``): the
    tail bytes are taken as Java's signed bytes (the porter transcribed ``data[i] << 16`` without
    the ``& 0xff``), so a tail byte of 0x80 or more sign-extends into the hash's high bits. The
    four-byte blocks are right. Needs a key whose 1-3 trailing bytes include one of 0x80 or more
    (multi-byte UTF-8) and whose partition the changed hash moves."""

    def partition_for(self, key: str, n: int) -> int:
        return (signed_tail_murmur2(key.encode("utf-8")) & 0x7FFFFFFF) % n


def signed_tail_murmur2(data: bytes) -> int:
    """``Utils.murmur2`` with the tail bytes sign-extended (the slip of :class:`SignedTailBytes`)."""
    length = len(data)
    m, r = 0x5BD1E995, 24
    h = (0x9747B28C ^ length) & 0xFFFFFFFF
    for i in range(length // 4):
        k = (int.from_bytes(data[4 * i:4 * i + 4], "little") * m) & 0xFFFFFFFF
        k ^= k >> r
        h = ((h * m) & 0xFFFFFFFF) ^ ((k * m) & 0xFFFFFFFF)
    tail, base = length & 3, length & ~3

    def signed(b: int) -> int:
        return b - 256 if b >= 128 else b

    if tail == 3:
        h ^= (signed(data[base + 2]) << 16) & 0xFFFFFFFF
    if tail >= 2:
        h ^= (signed(data[base + 1]) << 8) & 0xFFFFFFFF
    if tail >= 1:
        h ^= signed(data[base]) & 0xFFFFFFFF
        h = (h * m) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * m) & 0xFFFFFFFF
    h ^= h >> 15
    return to_int32(h)


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata7]] = {
    "unknown-store-before-init-null": UnknownStoreBeforeInitNull,
    "global-store-metadata-skips-idle": GlobalStoreMetadataSkipsIdle,
    "idle-member-without-globals": IdleMemberWithoutGlobals,
    "standbys-hidden-while-rebalancing": StandbysHiddenWhileRebalancing,
    "empty-key-is-null": EmptyKeyIsNull,
    "incremental-on-change": IncrementalOnChange,
    "signed-tail-bytes": SignedTailBytes,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
