"""Kafka Streams queryable-state metadata, session 10's planted bugs (none of sessions 5, 8 and 9
nor of the catalogue), over session 5's from-scratch baseline ``redteam.streams.Metadata``.

Written as an outsider implementing the metadata state from spec/streams.md and the adapter
protocol: hosts identified by their name alone or normalised like DNS names, ``host:port`` split
at the first colon, keys handed to a C-string hash, a loop that keeps the last source topic's
partition count, a rebalance counter, a host's standby stores "deduplicated" against its active
ones, and the two-topic store read one topic at a time.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch3:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams import Metadata
from redteam.streams_scratch import ScratchTarget, store_sources

# ---------------------------------------------------------------------------- bugs


class HostIdentityByName(Metadata):
    """Hosts keyed by their host name (``HostInfo.equals`` without the port): two instances on
    one machine (``localhost:8080``, ``localhost:8081``) are one entry, the later one's."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        merged: dict[str, Any] = dict(assignment)
        for side in ("active", "standby"):
            by_name: dict[str, tuple[str, list[Any]]] = {}
            for h, tps in (assignment.get(side) or {}).items():
                name = h.rpartition(":")[0]
                old = by_name.get(name, (h, []))[1]
                by_name[name] = (h, old + list(tps))
            merged[side] = {h: tps for h, tps in by_name.values()}
        super().rebalance_finished(merged)


class HostLowercased(Metadata):
    """Host names normalised to lower case on the way in ("DNS names are case-insensitive"):
    ``Node-2.Example.COM:8080`` is answered as ``node-2.example.com:8080``."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        merged = dict(assignment)
        for side in ("active", "standby"):
            merged[side] = {h.lower(): tps for h, tps in (assignment.get(side) or {}).items()}
        super().rebalance_finished(merged)


class HostSplitFirstColon(Metadata):
    """``host:port`` split at the first colon (``split(":")``) when the host list is rebuilt, so
    an IPv6 literal ``[::1]:8080`` becomes host ``[`` and the rest is lost."""

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        merged = dict(assignment)
        for side in ("active", "standby"):
            merged[side] = {f"{h.split(':')[0]}:{h.split(':')[-1]}": tps
                            for h, tps in (assignment.get(side) or {}).items()}
        super().rebalance_finished(merged)


class KeyNulTerminated(Metadata):
    """The key handed to the hash as a C string: the bytes after the first NUL are not hashed."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        return super().metadata_for_key(store, key.split("\x00", 1)[0])


class LastSourceCount(Metadata):
    """The partition count of a store over several topics taken in a loop that overwrites it:
    the count of the store's *last* source topic, not the widest."""

    def num_partitions(self, sources: list[str]) -> int:
        counts = (self.assignment or {}).get("partitions") or {}
        n = 0
        for t in sources:
            n = counts.get(t, 0)
        return n


class RebalanceDepth(Metadata):
    """Rebalances counted: an assignment is applied only when every started rebalance has
    finished (two joins, one finish: the new assignment is never taken)."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0

    def rebalance_started(self) -> None:
        self.depth += 1

    def rebalance_finished(self, assignment: dict[str, Any]) -> None:
        self.depth = max(self.depth - 1, 0)
        if self.depth == 0:
            super().rebalance_finished(assignment)


class ActiveOwnsEverySource(Metadata):
    """The active host of a key must hold partition p of *every* source topic of the store, so
    a partition the narrower topic lacks has no active host."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if not ans or ans["partition"] < 0:
            return ans
        a = self.assignment or {}
        sources = store_sources(self, store)
        p = ans["partition"]
        owners = [h for h in self.hosts()
                  if all([t, p] in [list(tp) for tp in (a.get("active") or {}).get(h, [])] for t in sources)]
        ans["active"] = owners[-1] if owners else "unavailable:-1"
        return ans


class StandbysFirstSourceOnly(Metadata):
    """Standby hosts looked up in the store's first source topic only."""

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if not ans or ans["partition"] < 0:
            return ans
        a = self.assignment or {}
        first = ((a.get("stores") or {}).get(store) or [None])[0]
        held = {h: [list(tp) for tp in tps] for h, tps in (a.get("standby") or {}).items()}
        ans["standbys"] = sorted(h for h in self.hosts() if [first, ans["partition"]] in held.get(h, []))
        return ans


class StandbyStoresMinusActive(Metadata):
    """A host's standby store names "deduplicated" against its active ones: a host active for
    one partition of ``counts`` and standby for another lists ``counts`` as active only."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        e["standby_stores"] = sorted(set(e["standby_stores"]) - set(e["stores"]))
        return e


class PortDroppedForDefault(Metadata):
    """A host on the default port 8080 is written without it (``host`` for ``host:8080``, as a
    URL would), everywhere the target answers a host."""

    def entry(self, host: str) -> dict[str, Any]:
        e = super().entry(host)
        e["host"] = self._short(host)
        return e

    @staticmethod
    def _short(host: str) -> str:
        return host[:-len(":8080")] if host.endswith(":8080") else host

    def metadata_for_key(self, store: str, key: str) -> dict[str, Any] | None:
        ans = super().metadata_for_key(store, key)
        if ans and ans["active"] != "unavailable:-1":
            ans = {**ans, "active": self._short(ans["active"]),
                   "standbys": sorted(self._short(h) for h in ans["standbys"])}
        return ans


Correct = subclass(globals(), "Correct", ScratchTarget, metadata_class=Metadata)
CORRECT = "Correct"
BUGS: dict[str, type[Metadata]] = {
    "host-identity-by-name": HostIdentityByName,
    "host-lowercased": HostLowercased,
    "host-split-first-colon": HostSplitFirstColon,
    "key-nul-terminated": KeyNulTerminated,
    "last-source-count": LastSourceCount,
    "rebalance-depth": RebalanceDepth,
    "active-owns-every-source": ActiveOwnsEverySource,
    "standbys-first-source-only": StandbysFirstSourceOnly,
    "standby-stores-minus-active": StandbyStoresMinusActive,
    "port-dropped-for-default": PortDroppedForDefault,
}
TARGETS = register(globals(), ScratchTarget, BUGS, attribute_target("metadata_class"))
