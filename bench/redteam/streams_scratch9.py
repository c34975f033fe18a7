"""Kafka Streams queryable-state metadata, session 17's blind red-team bugs ("blindvoters").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState.
getKeyQueryMetadataForKey`` / ``HostInfo`` alone (the driver, the model and the mutant routers
unread). Each bug is one subclass overriding one method, its docstring naming the rule it breaks
and why a porter slips there: ``retainAll`` on the metadata's own partition sets (the defensive
copy dropped), the host loop left at the active host before the standbys after it are seen, the
global store's "first host" taken in the order of the ``host:port`` strings, and an IPv6 host
written back with URL brackets.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch9:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import Metadata, host_key
from redteam.streams_scratch7 import Metadata7, Target7


class RetainAllInPlace(Metadata7):
    """STREAMS-RULE-KEY (5) and STREAMS-RULE-ALL-METADATA: ``getKeyQueryMetadataForKey`` copies each
    host's partition sets (``new HashSet<>(streamsMetadata.topicPartitions())``) before
    ``retainAll(matchingPartitions)``; the porter narrowed the sets themselves (``parts &=
    matching``), so every key query leaves each host holding only the partitions of that key, and
    the next ``allMetadata`` (and the next key of another partition) answers from the narrowed
    sets. Needs a key query of a local store, then any other query."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is not None and answer["partition"] >= 0:
            matching = {(t, answer["partition"]) for t in self.stores.get(store, [])}
            for parts in (*self.active.values(), *self.standby.values()):
                parts &= matching
        return answer


class LookupStopsAtActive(Metadata7):
    """STREAMS-RULE-KEY (5: "standbys likewise"): the loop over the hosts ``break``s once it found
    the active host (a host holds a partition actively at most once), so standby hosts that come
    after the active one in host order are never looked at. Kafka's loop runs over every
    ``StreamsMetadata``, collecting the active host and the standby hosts in one pass. Needs a
    key whose standby sorts after its active host."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is None or answer["partition"] < 0 or answer["active"] not in self.hosts():
            return answer
        cut = self.hosts().index(answer["active"])
        answer["standbys"] = [h for h in answer["standbys"] if h in self.hosts()[:cut]]
        return answer


class GlobalKeyFirstByString(Metadata7):
    """STREAMS-RULE-KEY (2: a global store's key is answered by the model's first host, first in
    host order, (host, port)): the porter sorted the ``host:port`` strings, so the port compares
    as text: ``h:10000`` comes before ``h:9092``. The same whenever the hosts' names differ or their
    ports have as many digits. Needs two members on one host name with ports of different
    lengths, then a global store's key."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is not None and self.initialized() and store in self.global_stores and self.hosts():
            answer["active"] = min(self.hosts())
        return answer


class Ipv6Bracketed(Metadata7):
    """STREAMS-DRIVE-ENDPOINTS / ``HostInfo``: an IPv6 host is written back as a URL writes it,
    ``[::1]:8080``, where ``HostInfo.host()`` holds ``::1`` and the wire's ``host:port`` is
    ``::1:8080``. The porter parsed the host right (at the last colon) and then "fixed" the
    rendering for the next client that splits it. Needs an IPv6 member, then any answer that
    names it."""

    def host_id(self, host: str) -> str:
        name, port = host_key(host)
        return f"[{name}]:{port}" if ":" in name else host

    def hosts(self) -> list[str]:
        return sorted(set(self.active) | set(self.standby), key=lambda h: host_key(h.replace("[", "").replace("]", "")))


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "retain-all-in-place": RetainAllInPlace,
    "lookup-stops-at-active": LookupStopsAtActive,
    "global-key-first-by-string": GlobalKeyFirstByString,
    "ipv6-bracketed": Ipv6Bracketed,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
