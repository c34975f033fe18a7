"""The voter-set history a KRaft replica keeps between its latest snapshot and its log end.

A pure, frozen transcription of Kafka's ``VoterSetHistory`` over ``TreeMapLogHistory``
(``raft/src/main/java/org/apache/kafka/raft/internals/``). Every method returns a new value;
where Kafka throws ``IllegalArgumentException`` the model raises :class:`HistoryError`.
Rule IDs refer to ``spec/voters.md``.

A voter is a :data:`ReplicaKey`, ``(replica id, directory id)``; a voter set is a frozenset
of them. Offsets are Kafka's record offsets: an entry at offset ``o`` is the VotersRecord
written at ``o`` (in force from ``o`` on); ``-1`` is the bootstrap checkpoint (``0-0.checkpoint``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

ReplicaKey = tuple[int, int]
VoterSet = frozenset[ReplicaKey]

T = TypeVar("T")

# The bootstrap checkpoint's records sit at offset -1 (Kafka 4.0: VoterSetHistoryTest
# testBootstrapAddAt); nothing may be added below it.
BOOTSTRAP_OFFSET = -1


class HistoryError(ValueError):
    """What Kafka's history throws as IllegalArgumentException (VOTERS-HIST-ADD-ORDER)."""


def voter_ids(voters: VoterSet) -> frozenset[int]:
    """The replica ids of a voter set."""
    return frozenset(r for r, _ in voters)


def has_overlapping_majority(a: VoterSet, b: VoterSet) -> bool:
    """Kafka's ``VoterSet.hasOverlappingMajority`` (VOTERS-RULE-OVERLAP): at most one voter
    (by replica key) leaves and at most one joins."""
    return len(a - b) <= 1 and len(b - a) <= 1


@dataclass(frozen=True, slots=True)
class LogHistory(Generic[T]):
    """Kafka's ``TreeMapLogHistory``: values keyed by strictly increasing offsets.

    ``entries`` are ``(offset, value)`` pairs in increasing offset order.
    ``min_offset`` is the least offset ``add_at`` accepts: 0 for the generic history
    (TreeMapLogHistoryTest.testAddAt), -1 for the voter-set history (the bootstrap checkpoint).
    """

    entries: tuple[tuple[int, T], ...] = ()
    min_offset: int = 0

    def add_at(self, offset: int, value: T) -> LogHistory[T]:
        """VOTERS-HIST-ADD-ORDER: add ``value`` at an offset strictly greater than every other."""
        if offset < self.min_offset:
            raise HistoryError(f"Next offset {offset} must be greater than or equal to {self.min_offset}")
        if self.entries and offset <= self.entries[-1][0]:
            raise HistoryError(f"Next offset {offset} must be greater than the last offset {self.entries[-1][0]}")
        return LogHistory((*self.entries, (offset, value)), self.min_offset)

    def value_at_or_before(self, offset: int) -> T | None:
        """VOTERS-HIST-AT: the value of the greatest entry at or before ``offset`` (a floor)."""
        found: T | None = None
        for o, v in self.entries:
            if o > offset:
                break
            found = v
        return found

    def last_entry(self) -> tuple[int, T] | None:
        """The entry with the greatest offset, if any."""
        return self.entries[-1] if self.entries else None

    def truncate_new_entries(self, end_offset: int) -> LogHistory[T]:
        """VOTERS-HIST-TRUNCATE-NEW: remove every entry at or after ``end_offset``."""
        kept = tuple(e for e in self.entries if e[0] < end_offset)
        return self if len(kept) == len(self.entries) else LogHistory(kept, self.min_offset)

    def truncate_old_entries(self, start_offset: int) -> LogHistory[T]:
        """VOTERS-HIST-TRUNCATE-OLD: remove every entry at or before ``start_offset`` except the
        last of them, so a value added before stays visible at and after ``start_offset``."""
        older = [i for i, (o, _) in enumerate(self.entries) if o <= start_offset]
        if len(older) <= 1:
            return self
        return LogHistory(self.entries[older[-1]:], self.min_offset)

    def clear(self) -> LogHistory[T]:
        """Remove every entry."""
        return LogHistory((), self.min_offset)


@dataclass(frozen=True, slots=True)
class VoterSetHistory:
    """Kafka's ``VoterSetHistory``: the voter sets in the snapshot and log, and the static
    voter set (from ``controller.quorum.voters``) that stands in while there is none."""

    static: VoterSet
    history: LogHistory[VoterSet] = LogHistory((), BOOTSTRAP_OFFSET)

    @property
    def entries(self) -> tuple[tuple[int, VoterSet], ...]:
        return self.history.entries

    def add_at(self, offset: int, voters: VoterSet) -> VoterSetHistory:
        """VOTERS-HIST-ADD-ORDER. Any voter set is taken, whether or not it has an overlapping
        majority with the last one (VOTERS-HIST-ADD-OVERLAP: Kafka 3.9.1 and 4.0+ log it and add
        it, KAFKA-17973, for disaster recovery; 3.8 and 3.9.0 threw, VOTERS-KAFKA-K5): the rule
        that consecutive sets overlap is the leader's (VOTERS-RULE-OVERLAP), not the reader's."""
        return VoterSetHistory(self.static, self.history.add_at(offset, voters))

    def value_at_or_before(self, offset: int) -> VoterSet | None:
        """VOTERS-HIST-AT: the voter set in force at ``offset``; never the static set."""
        return self.history.value_at_or_before(offset)

    def last_value(self) -> VoterSet:
        """VOTERS-HIST-LAST: the latest voter set, or the static set when there is none."""
        last = self.history.last_entry()
        return last[1] if last is not None else self.static

    def last_entry(self) -> tuple[int, VoterSet] | None:
        """The latest ``(offset, voter set)``, if any came from the snapshot or the log."""
        return self.history.last_entry()

    def truncate_new_entries(self, end_offset: int) -> VoterSetHistory:
        """VOTERS-HIST-TRUNCATE-NEW: drop the entries at or after ``end_offset``."""
        h = self.history.truncate_new_entries(end_offset)
        return self if h is self.history else VoterSetHistory(self.static, h)

    def truncate_old_entries(self, start_offset: int) -> VoterSetHistory:
        """VOTERS-HIST-TRUNCATE-OLD: drop the entries at or before ``start_offset`` but the last."""
        h = self.history.truncate_old_entries(start_offset)
        return self if h is self.history else VoterSetHistory(self.static, h)

    def clear(self) -> VoterSetHistory:
        """Remove every entry; the static set remains."""
        return VoterSetHistory(self.static, self.history.clear())


def oracle_value_at_or_before(pairs: list[tuple[int, VoterSet]], offset: int) -> VoterSet | None:
    """Brute force (for differential tests): the value of the greatest offset <= ``offset``."""
    best: tuple[int, VoterSet] | None = None
    for o, v in pairs:
        if o <= offset and (best is None or o > best[0]):
            best = (o, v)
    return None if best is None else best[1]
