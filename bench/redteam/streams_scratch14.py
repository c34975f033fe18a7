"""Kafka Streams queryable-state metadata, session 27's blind red-team bugs ("blindms").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``KeyQueryMetadata`` / ``HostInfo`` alone (the driver, the model and the mutant routers unread): the
answering host fixed at the first assignment, a global store's ``allMetadataForStore`` answered
before the "initialized" check, keys normalised to NFC before hashing, and hosts ordered by port
before host name.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch14:Correct
"""

from __future__ import annotations

import unicodedata
from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, host_key, murmur2, to_positive
from redteam.streams_scratch7 import Metadata7, Target7


class GlobalKeyHostFixedAtFirstAssignment(Metadata7):
    """STREAMS-RULE-KEY 2 (a global store's key is answered by this host — the contract's stand-in
    the first host in host order of the *current* metadata — no standbys, partition -1): the porter
    reads "this host" as a property of the instance that never changes, so it takes the first
    host of the first assignment that names any and keeps it. Equal while the first host stays a
    member and first; differs once a rebalance removes it (a member leaves and the rebalance
    finishes without it) or brings in a member that sorts before it: Kafka's stand-in follows the
    metadata, the port names the old host. Needs an assignment, a rebalance that changes the first
    host, then a key of the global store."""

    def __init__(self) -> None:
        super().__init__()
        self.this_host: str | None = None

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        if self.this_host is None and self.hosts():
            self.this_host = self.hosts()[0]

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if store in self.global_stores and answer is not None and answer["partition"] == -1 \
                and self.initialized() and self.this_host is not None:
            return {**answer, "active": self.this_host}
        return answer


class GlobalStoreMetadataBeforeInitCheck(Metadata7):
    """STREAMS-RULE-STORE-METADATA ("empty before initialization; every host for a global store":
    ``getAllMetadataForStore`` returns ``emptyList()`` while ``!isInitialized()`` *before* it looks
    at global stores): the porter puts the global-store branch first ("a global store is on every
    instance, whatever the assignment"). Before the first assignment there is no host, so the port
    answers ``[]`` by accident; it differs once an assignment names members but leaves no active
    partition (KIP-1071's reconciliation with every task in flight: counts empty, uninitialized
    again): Kafka answers ``[]``, the port every member. Needs such an assignment, then
    ``AllMetadataForStore`` of the global store."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if store in self.global_stores:
            return self.all_metadata()
        return super().all_metadata_for_store(store)


class KeyNfcNormalised(Metadata7):
    """STREAMS-RULE-DEFAULT-PARTITIONER (``toPositive(murmur2(keyBytes)) % n`` over the bytes
    ``StringSerializer`` writes: the UTF-8 of the Java string as given, no normalisation): the
    porter normalises a key to Unicode NFC before encoding it ("the same key typed on two clients
    must hash alike"). Equal for every key already in NFC — ASCII, precomposed letters, emoji;
    differs for a key holding a combining sequence that has a precomposed form (``u`` + U+0308
    hashes as ``ü``'s two bytes, not three). Needs a decomposed key asked of a store with source
    topics."""

    def partition_for(self, key: str, n: int) -> int:
        return to_positive(murmur2(unicodedata.normalize("NFC", key).encode("utf-8"))) % n


def port_first(host: str) -> tuple[int, str]:
    name, port = host_key(host)
    return port, name


class HostOrderPortFirst(Metadata7):
    """STREAMS-RULE-ALL-METADATA / STREAMS-RULE-KEY 2 (host order is ``HostInfo::host`` then
    ``HostInfo::port``, which picks the global store's answering host and the active host should
    several hold a partition): the porter writes the comparator the other way round, port first
    then host name. Equal whenever the hosts share a port, share a host name, or the lower port
    also has the earlier name; differs for two members whose lower port sits on the later host
    name (``b:8080`` and ``a:9092``): the global store's key names ``b:8080`` here, ``a:9092`` in
    Kafka. Needs such endpoints, then a key of the global store."""

    def hosts(self) -> list[str]:
        return sorted(set(self.active) | set(self.standby), key=port_first)


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "global-key-host-fixed-at-first-assignment": GlobalKeyHostFixedAtFirstAssignment,
    "global-store-metadata-before-init-check": GlobalStoreMetadataBeforeInitCheck,
    "key-nfc-normalised": KeyNfcNormalised,
    "host-order-port-first": HostOrderPortFirst,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
