"""Kafka Streams queryable-state metadata, session 9's planted bugs (none of sessions 5 and 8), over
session 5's from-scratch baseline ``redteam.streams.Metadata`` (spec/streams.md and
spec/adapter-protocol.md only).

The slips: a scalar where a set was meant (one standby kept), a list where a set was meant (a
standby named twice), Java's modified UTF-8 for keys outside the BMP, checks in the wrong order
(the store before "initialized"), substring for membership, an "unchanged members" shortcut in
``onChange``, a member with standby tasks only given active stores, key trimming, the wrong
sentinel partition and a null for an empty list.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch2:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams import NOT_AVAILABLE, Metadata, Node, murmur2
from redteam.streams_scratch import ScratchTarget as ScratchTarget1
from redteam.streams_scratch import store_sources


class StandbysOnlyLast(Metadata):
    """The standby hosts of a key kept in one variable (``standby = h``), so with two standby
    replicas only the last is named."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if ans and len(ans["standbys"]) > 1:
            ans["standbys"] = ans["standbys"][-1:]
        return ans


class StandbyDuplicates(Metadata):
    """Standby hosts collected in a list, one entry per matching standby partition: a host that
    is standby for partition p of both topics of a joined store is named twice."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if not ans or ans["partition"] < 0:
            return ans
        a = self.assignment or {}
        sources = store_sources(self, store)
        ans["standbys"] = sorted(h for h in self.hosts() for t, q in (a.get("standby") or {}).get(h, [])
                                 if t in sources and q == ans["partition"])
        return ans


def modified_utf8(text: str) -> bytes:
    """Java's ``DataOutputStream.writeUTF`` / JNI encoding (CESU-8): a character outside the BMP
    is two surrogates of three bytes each."""
    out = bytearray()
    for ch in text:
        cp = ord(ch)
        if cp > 0xFFFF:
            cp -= 0x10000
            for unit in (0xD800 | (cp >> 10), 0xDC00 | (cp & 0x3FF)):
                out += bytes([0xE0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3F), 0x80 | (unit & 0x3F)])
        else:
            out += ch.encode("utf-8")
    return bytes(out)


class Cesu8Keys(Metadata):
    """Keys serialized as Java's modified UTF-8 (a ``writeUTF`` serializer), not UTF-8: an emoji
    key hashes over six bytes, not four."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if any(ord(c) > 0xFFFF for c in key):
            return self._route(store, modified_utf8(key))
        return super().metadata_for_key(store, key)

    def _route(self, store: str, data: bytes) -> dict[str, Any] | None:
        self._data = data
        try:
            return super().metadata_for_key(store, "")
        finally:
            del self._data

    def partition_for(self, key: bytes, n: int) -> int:
        data = getattr(self, "_data", key)
        return (murmur2(data) & 0x7FFFFFFF) % n


class StoreCheckedBeforeInit(Metadata):
    """The store is looked up (in the topology the instance was configured with) before the
    "initialized" check: an unknown store is null and a global store answers an unknown host
    before the first assignment, where Kafka answers NOT_AVAILABLE."""

    def __init__(self, config: dict[str, Any]) -> None:
        super().__init__()
        self.stores = dict(config.get("stores") or {})
        self.globals = list(config.get("global_stores") or [])

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if not self.initialized():
            if store in self.globals:
                return {"active": "unavailable:-1", "standbys": [], "partition": -1}
            if not self.stores.get(store):
                return None
        return super().metadata_for_key(store, key)


class GlobalNameSubstring(Metadata):
    """Global stores kept as one comma-joined string and tested with ``in``: a substring of a
    global store's name (the empty name, ``config``) is taken for a global store."""

    def _is_global(self, store: str) -> bool:
        return store in ",".join((self.assignment or {}).get("global_stores") or [])

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        if self.initialized() and self._is_global(store):
            hosts = self.hosts()
            return {"active": hosts[0] if hosts else "unavailable:-1", "standbys": [], "partition": -1}
        return super().metadata_for_key(store, key)

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        if self.initialized() and self._is_global(store):
            return self.all_metadata()
        return super().all_metadata_for_store(store)


class StandbyOnlyMemberActiveStores(Metadata):
    """A host's active store names computed from all the partitions it holds (active and
    standby): a member with standby tasks only lists the store as active."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        tps = e["partitions"] + e["standby_partitions"]
        e["stores"] = sorted(self.stores_of(tps) | set((self.assignment or {}).get("global_stores") or []))
        return e


class SameMembersSkipsOnChange(Metadata):
    """``onChange`` short-cut: an assignment for the same members as the last one is taken as
    unchanged and not applied (the tasks moved, the members did not)."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        old = self.assignment
        if old is not None and set(old.get("active") or {}) == set(assignment.get("active") or {}):
            return
        super().rebalance_finished(assignment)


class KeyStripped(Metadata):
    """Keys trimmed of surrounding whitespace before hashing (a "clean the input" helper)."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        return super().metadata_for_key(store, key.strip())


class NotAvailablePartitionZero(Metadata):
    """NOT_AVAILABLE written with partition 0 (an int field's default) instead of -1."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if ans == NOT_AVAILABLE:
            return {**NOT_AVAILABLE, "partition": 0}
        return ans


class UnknownStoreListNull(Metadata):
    """``allMetadataForStore`` of an unknown store answers null (a map lookup's miss) where
    Kafka answers an empty collection."""

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        a = self.assignment or {}
        known = store in (a.get("global_stores") or []) or (a.get("stores") or {}).get(store)
        if self.initialized() and not known:
            return None  # type: ignore[return-value]
        return super().all_metadata_for_store(store)


class ScratchTarget(ScratchTarget1):
    def start(self, node: int, config: dict[str, Any]) -> Node:
        if self.metadata_class is StoreCheckedBeforeInit:
            return Node(StoreCheckedBeforeInit(config))
        return Node(self.metadata_class())


Correct = subclass(globals(), "Correct", ScratchTarget, metadata_class=Metadata, __doc__=Metadata.__doc__)
CORRECT = "Correct"
BUGS: dict[str, type[Metadata]] = {
    "standbys-only-last": StandbysOnlyLast,
    "standby-duplicates": StandbyDuplicates,
    "cesu8-keys": Cesu8Keys,
    "store-checked-before-init": StoreCheckedBeforeInit,
    "global-name-substring": GlobalNameSubstring,
    "standby-only-member-active-stores": StandbyOnlyMemberActiveStores,
    "same-members-skips-onchange": SameMembersSkipsOnChange,
    "key-stripped": KeyStripped,
    "not-available-partition-zero": NotAvailablePartitionZero,
    "unknown-store-list-null": UnknownStoreListNull,
}
TARGETS = register(globals(), ScratchTarget, BUGS, attribute_target("metadata_class"))
