"""An immutable multiset (bag) of in-flight messages.

The network of a system model is a bag: order-free, so two states that differ only in the
order messages were sent are the same state, and hashable, so the explorer can store it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Bag(Generic[T]):
    """A frozen multiset: ``items`` maps each element to its (positive) count."""

    items: frozenset[tuple[T, int]] = frozenset()

    @staticmethod
    def of(*elements: T) -> Bag[T]:
        """A bag holding ``elements`` (repeats count)."""
        bag: Bag[T] = Bag()
        for e in elements:
            bag = bag.add(e)
        return bag

    def count(self, element: T) -> int:
        """How many copies of ``element`` the bag holds."""
        for e, n in self.items:
            if e == element:
                return n
        return 0

    def add(self, element: T, copies: int = 1) -> Bag[T]:
        """The bag with ``copies`` more of ``element``."""
        # A set copied from a set keeps its entries' hashes: only the entry that changes is
        # hashed (a message's hash is recomputed, recursively, on every use).
        for e, n in self.items:
            if e == element:
                rest = set(self.items)
                rest.remove((e, n))
                rest.add((element, n + copies))
                return Bag(frozenset(rest))
        return Bag(self.items | {(element, copies)})

    def add_all(self, elements: Iterator[T] | tuple[T, ...] | list[T]) -> Bag[T]:
        """The bag with one more copy of each of ``elements``."""
        bag = self
        for e in elements:
            bag = bag.add(e)
        return bag

    def remove(self, element: T) -> Bag[T]:
        """The bag with one copy of ``element`` fewer; raises KeyError when absent."""
        for e, n in self.items:
            if e == element:
                rest = set(self.items)  # the entries' hashes copied, as in ``add``
                rest.remove((e, n))
                if n > 1:
                    rest.add((element, n - 1))
                return Bag(frozenset(rest))
        raise KeyError(element)

    def distinct(self) -> list[T]:
        """The distinct elements, in a deterministic order (by their repr)."""
        return sorted((e for e, _ in self.items), key=repr)

    def __len__(self) -> int:
        return sum(n for _, n in self.items)

    def __contains__(self, element: object) -> bool:
        for e, _ in self.items:
            if e == element:
                return True
        return False

    def __iter__(self) -> Iterator[T]:
        for e in self.distinct():
            for _ in range(self.count(e)):
                yield e
