"""Kafka Streams queryable-state metadata, session 28's blind red-team bugs ("blindms").

Slips over session 12's from-scratch ``StreamsMetadataState`` port (``streams_scratch5.Metadata``,
told its topology at start as in ``streams_scratch7``), written from spec/streams.md,
docs/adapter-guide.md, spec/adapter-protocol.md and Kafka's ``StreamsMetadataState`` /
``KeyQueryMetadata`` / ``HostInfo`` alone (the driver, the model and the mutant routers unread):
``UNKNOWN_HOST`` confused with ``NOT_AVAILABLE`` (both name ``unavailable:-1``), host names ordered
case-insensitively, a key-owner memo keyed by the partition alone, and a lazy metadata rebuild
dropped when the next rebalance starts.

    PYTHONPATH=bench kspec conform streams --target python:redteam.streams_scratch15:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register, subclass
from redteam.streams_scratch5 import NOT_AVAILABLE, UNKNOWN_HOST, Metadata, host_key
from redteam.streams_scratch7 import Metadata7, Target7


class UnknownHostAnswersNotAvailable(Metadata7):
    """STREAMS-RULE-KEY 5 / adapter contract (a key whose partition no host holds actively answers
    ``KeyQueryMetadata(UNKNOWN_HOST, standbys, partition)``: the partition and its standby hosts;
    ``NOT_AVAILABLE`` is for an uninitialized instance only): Kafka's ``UNKNOWN_HOST`` and
    ``NOT_AVAILABLE``'s host are both ``HostInfo.unavailable()``, so the porter folds the two cases
    into one — "no active host: not available" — and returns the ``NOT_AVAILABLE`` constant (no
    standbys, partition -1). Equal whenever every partition has an active owner (every assignment
    the classic assignor makes); differs under KIP-1071's reconciliation, when a task in flight has
    no active owner: Kafka names its partition and standbys. Needs an assignment with a partition
    that has no active host (standbys kept), then a key of a store hashing to it."""

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is not None and answer["partition"] >= 0 and answer["active"] == UNKNOWN_HOST:
            return dict(NOT_AVAILABLE)
        return answer


def host_key_casefold(host: str) -> tuple[str, int]:
    name, port = host_key(host)
    return name.casefold(), port


class HostOrderCaseInsensitive(Metadata7):
    """STREAMS-RULE-ALL-METADATA / STREAMS-RULE-KEY 2 (host order is ``HostInfo::host`` as a Java
    ``String`` — ``compareTo``, by UTF-16 unit, so ``Z`` sorts before ``a`` — then the port; it picks
    the global store's answering host): the porter, knowing DNS names are case-insensitive
    (RFC 4343), sorts hosts by the case-folded name, then the port. The entries keep their
    spelling. Equal whenever every host name is in one case or the names' order does not flip;
    differs for a member whose name has capitals before a lower-case name that folds earlier
    (``Node-2.Example.COM:8080`` and ``localhost:8080``: Kafka's first host is the ``Node-2`` one, the
    port's ``localhost``). Needs such endpoints, then a key of the global store."""

    def hosts(self) -> list[str]:
        return sorted(set(self.active) | set(self.standby), key=host_key_casefold)


class OwnersMemoByPartition(Metadata7):
    """STREAMS-RULE-KEY 5 (the active and standby hosts of a key are those holding its partition
    *of the store's source topics* with the store): the porter memoises the owners of a partition
    until the next ``onChange`` ("partition p is hosted by ...") keyed by the partition number
    alone, not by the store's source topics. Equal across every store of one sub-topology (task p
    holds partition p of each of its topics); differs when a key of a store of another
    sub-topology (``sessions`` over ``clicks``, whose task p runs elsewhere) hashes to a partition
    whose owners were memoised for the first: it is answered the other sub-topology's hosts.
    Needs, between two assignments, keys of stores of two sub-topologies that land on one
    partition number with different owners."""

    def __init__(self) -> None:
        super().__init__()
        self.owners: dict[int, tuple[str, list[str]]] = {}

    def on_change(self, assignment: dict[str, Any]) -> None:
        super().on_change(assignment)
        self.owners = {}

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        answer = super().key_metadata(store, key)
        if answer is None or answer["partition"] < 0:
            return answer
        partition = answer["partition"]
        if partition in self.owners:
            active, standbys = self.owners[partition]
            return {"active": active, "standbys": list(standbys), "partition": partition}
        self.owners[partition] = (answer["active"], list(answer["standbys"]))
        return answer


class LazyRebuildDroppedOnRebalance(Metadata7):
    """STREAMS-RULE-EVERY-MEMBER / "Not available while rebalancing" (``onChange`` rebuilds the view
    at once; during the next rebalance Kafka answers from that assignment until the next
    ``onChange``): the porter rebuilds lazily — ``onChange`` keeps the assignment and the first query
    after it rebuilds the view — and, when a rebalance starts with a rebuild still pending, drops
    it ("its assignment is about to be replaced anyway"). Equal whenever some query comes between
    an assignment and the next rebalance; differs when a rebalance finishes and another starts
    before any query: the port then answers from the assignment before (or NOT_AVAILABLE, if
    there was none) until the next one finishes. Needs ``RebalanceFinished`` immediately followed
    by ``RebalanceStarted``, then a query before the next finish."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: dict[str, Any] | None = None

    def on_change(self, assignment: dict[str, Any]) -> None:
        self.rebalancing = False
        self.pending = assignment

    def rebalance_started(self) -> None:
        super().rebalance_started()
        self.pending = None

    def rebuild(self) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            Metadata.on_change(self, pending)

    def all_metadata(self) -> list[dict[str, Any]]:
        self.rebuild()
        return super().all_metadata()

    def all_metadata_for_store(self, store: str) -> list[dict[str, Any]]:
        self.rebuild()
        return super().all_metadata_for_store(store)

    def key_metadata(self, store: str, key: str) -> dict[str, Any] | None:
        self.rebuild()
        return super().key_metadata(store, key)


Correct = subclass(globals(), "Correct", Target7)
CORRECT = "Correct"

BUGS: dict[str, type[Metadata]] = {
    "unknown-host-answers-not-available": UnknownHostAnswersNotAvailable,
    "host-order-case-insensitive": HostOrderCaseInsensitive,
    "owners-memo-by-partition": OwnersMemoByPartition,
    "lazy-rebuild-dropped-on-rebalance": LazyRebuildDroppedOnRebalance,
}
TARGETS = register(globals(), Target7, BUGS, attribute_target("impl"))
