"""Kafka Streams queryable-state metadata, session 16's blind red-team bugs ("outsiderb").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``Utils.murmur2`` alone (the driver, the model and the mutant routers unread). Each bug is one
subclass overriding one method, its docstring naming the rule it breaks and why a porter slips
there: murmur2 seeded with the key's length in characters, a global store's key answered from the
first host that runs a task, and a host's standby stores taken from every task it runs once it
has a standby task.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch8:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, to_int32, to_positive
from redteam.streams_scratch7 import Metadata7, Target7


class HashSeedCharLength(Metadata7):
    """STREAMS-RULE-MURMUR2 (``h = seed ^ length``, the length of the serialized bytes): the seed is
    mixed with the key's length in characters (``len(key)``) while the body and tail run over its
    UTF-8 bytes. Kafka's ``murmur2(byte[] data)`` only ever sees bytes; the porter wrote
    ``len(key)`` where the Java has ``data.length``. The same for ASCII keys; a multi-byte UTF-8 key
    (``ördérs``, a key outside the BMP) hashes differently, and some land on another partition."""

    def partition_for(self, key: str, n: int) -> int:
        data = key.encode("utf-8")
        m, r = 0x5BD1E995, 24
        h = (0x9747B28C ^ len(key)) & 0xFFFFFFFF
        for i in range(len(data) // 4):
            k = (int.from_bytes(data[4 * i:4 * i + 4], "little") * m) & 0xFFFFFFFF
            k ^= k >> r
            h = ((h * m) & 0xFFFFFFFF) ^ ((k * m) & 0xFFFFFFFF)
        tail, base = len(data) & 3, len(data) & ~3
        if tail == 3:
            h ^= data[base + 2] << 16
        if tail >= 2:
            h ^= data[base + 1] << 8
        if tail >= 1:
            h ^= data[base]
            h = (h * m) & 0xFFFFFFFF
        h ^= h >> 13
        h = (h * m) & 0xFFFFFFFF
        h ^= h >> 15
        return to_positive(to_int32(h)) % n


class GlobalKeyFirstBusyHost(Metadata7):
    """STREAMS-RULE-KEY (2: a global store's key is answered by "this host", the model's first
    host): the porter, with no local host to name, took the first host that runs a task (the first
    entry of the partitions-by-host map with partitions), so where the first host in host order
    is a member the plan left without a task, another host is named. Every member, idle ones too,
    holds every global store (STREAMS-RULE-ALL-METADATA). Needs a plan that leaves the first host
    idle, then a key query for the global store."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        if self.initialized() and store in self.global_stores:
            busy = [h for h in self.hosts() if self.active.get(h) or self.standby.get(h)]
            return {"active": busy[0] if busy else "unavailable:-1", "standbys": [], "partition": -1}
        return super().key_metadata(store, key)


class StandbyStoresFromAllTasks(Metadata7):
    """STREAMS-RULE-ALL-METADATA (a host's standby stores are the stores of its *standby*
    partitions): a host that has any standby task is given, as standby stores, the stores of every
    task it runs, active ones too ("a standby instance serves what it holds"). The same while a
    host's active and standby tasks are of one sub-topology; a host with an active ``clicks`` task
    (``sessions``) and standby ``input`` tasks lists ``sessions`` among its standby stores. Needs
    standbys and the second sub-topology (STREAMS-DRIVE-SUBTOPOLOGIES) split that way."""

    def standby_stores(self, host: str) -> list[str]:
        standby = self.standby.get(host, set())
        if not standby:
            return []
        return self.stores_of(standby | self.active.get(host, set()))


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "hash-seed-char-length": HashSeedCharLength,
    "global-key-first-busy-host": GlobalKeyFirstBusyHost,
    "standby-stores-from-all-tasks": StandbyStoresFromAllTasks,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
