"""Combining state batches: Kafka's ``PersisterStateBatchCombiner`` as a pure function.

Kafka (3.9 through 4.1, ``combineStateBatches``) prunes every batch against the start offset
(SHARE-RULE-COMBINE-PRUNE, -CLIP), then resolves overlaps so that on every offset the batch with
the higher priority wins, priority being (delivery count, delivery state) compared
lexicographically (SHARE-RULE-COMBINE-PRIORITY), and merges overlapping or contiguous batches
with equal state and count (SHARE-RULE-COMBINE-MERGE). Because the priority is a total order on
(count, state), the result on every offset is the maximum over all batches covering it, whichever
list it came from: combining is commutative, and in the persister's real use (counts only grow,
terminal states sort above AVAILABLE) the newer batch is the one that wins.

:func:`combine` computes that per-offset maximum with an interval sweep and returns it in the
canonical form (sorted, non-overlapping, maximal runs merged). :func:`combine_oracle` computes
the same thing offset by offset, for the differential test. :func:`combine_kafka` is a line by
line port of Kafka's TreeSet algorithm, which agrees per offset but can leave two contiguous
batches with equal state and count unmerged (SHARE-NOTE-COMBINE-UNMERGED).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from kspec.model.share.records import StateBatch, batch_sort_key


def priority(b: StateBatch) -> tuple[int, int]:
    """The overlap priority of a batch (SHARE-RULE-COMBINE-PRIORITY): (delivery count, state)."""
    return (b.delivery_count, b.delivery_state)


def prune(start_offset: int, batches: Iterable[StateBatch]) -> list[StateBatch]:
    """Drop batches below ``start_offset`` and clip the one it cuts (SHARE-RULE-COMBINE-PRUNE,
    SHARE-RULE-COMBINE-CLIP); a start offset of -1 prunes nothing."""
    out: list[StateBatch] = []
    for b in batches:
        if start_offset != -1 and b.last_offset < start_offset:
            continue
        if start_offset != -1 and b.first_offset < start_offset:
            b = StateBatch(start_offset, b.last_offset, b.delivery_state, b.delivery_count)
        out.append(b)
    return out


def combine(start_offset: int, current: Sequence[StateBatch], new: Sequence[StateBatch]) -> tuple[StateBatch, ...]:
    """The batches after combining ``current`` and ``new`` above ``start_offset`` (canonical form).

    An interval sweep: cut the offset line at every batch boundary, give each elementary segment
    the highest-priority batch covering it, and merge neighbours with equal state and count.
    """
    batches = prune(start_offset, [*current, *new])
    if not batches:
        return ()
    cuts = sorted({b.first_offset for b in batches} | {b.last_offset + 1 for b in batches})
    out: list[StateBatch] = []
    for lo, hi_excl in itertools.pairwise(cuts):
        best: tuple[int, int] | None = None
        for b in batches:
            if b.first_offset <= lo and hi_excl - 1 <= b.last_offset:
                p = priority(b)
                if best is None or p > best:
                    best = p
        if best is None:
            continue
        count, state = best
        if out and out[-1].last_offset == lo - 1 and priority(out[-1]) == best:
            prev = out[-1]
            out[-1] = StateBatch(prev.first_offset, hi_excl - 1, state, count)
        else:
            out.append(StateBatch(lo, hi_excl - 1, state, count))
    return tuple(out)


def per_offset(batches: Iterable[StateBatch]) -> dict[int, tuple[int, int]]:
    """Offset -> (delivery state, delivery count), the highest priority where batches overlap."""
    cells: dict[int, tuple[int, int]] = {}
    for b in batches:
        for o in range(b.first_offset, b.last_offset + 1):
            old = cells.get(o)
            if old is None or (b.delivery_count, b.delivery_state) > (old[1], old[0]):
                cells[o] = (b.delivery_state, b.delivery_count)
    return cells


def from_cells(cells: dict[int, tuple[int, int]]) -> tuple[StateBatch, ...]:
    """Maximal runs of consecutive offsets with equal (state, count), in offset order."""
    out: list[StateBatch] = []
    for o in sorted(cells):
        state, count = cells[o]
        if out and out[-1].last_offset == o - 1 and (out[-1].delivery_state, out[-1].delivery_count) == (state, count):
            out[-1] = StateBatch(out[-1].first_offset, o, state, count)
        else:
            out.append(StateBatch(o, o, state, count))
    return tuple(out)


def combine_oracle(start_offset: int, current: Sequence[StateBatch],
                   new: Sequence[StateBatch]) -> tuple[StateBatch, ...]:
    """Brute force, one offset at a time: the maximum-priority (count, state) on each offset at
    or above ``start_offset`` (every offset when it is -1), as maximal runs."""
    cells = per_offset([*current, *new])
    if start_offset != -1:
        cells = {o: v for o, v in cells.items() if o >= start_offset}
    return from_cells(cells)


def combine_kafka(start_offset: int, current: Sequence[StateBatch],
                  new: Sequence[StateBatch]) -> tuple[StateBatch, ...]:
    """A faithful port of ``PersisterStateBatchCombiner.combineStateBatches`` (Kafka 4.0/4.1).

    Kept to document where Kafka's batch shapes differ from :func:`combine`; per offset both
    agree (tested). The sorted set is a sorted list without duplicates.
    """
    combined = [*current, *new]
    if start_offset != -1:
        combined = prune(start_offset, combined)
    if len(combined) < 2:
        return tuple(combined)
    sorted_set = sorted(set(combined), key=batch_sort_key)
    final: list[StateBatch] = []

    def info_cmp(a: StateBatch, b: StateBatch) -> int:
        pa, pb = priority(a), priority(b)
        return (pa > pb) - (pa < pb)

    def add(b: StateBatch) -> None:
        if b not in sorted_set:
            sorted_set.append(b)
            sorted_set.sort(key=batch_sort_key)

    def copy(b: StateBatch, first: int, last: int) -> StateBatch:
        return StateBatch(first, last, b.delivery_state, b.delivery_count)

    def candidate_pair() -> tuple[StateBatch, StateBatch] | None:
        if not sorted_set:
            return None
        prev = sorted_set[0]
        skipped: list[StateBatch] = []
        for cand in sorted_set[1:]:
            if cand.first_offset <= prev.last_offset or (
                    prev.last_offset + 1 == cand.first_offset and info_cmp(prev, cand) == 0):
                for s in skipped:
                    sorted_set.remove(s)
                final.extend(skipped)
                return prev, cand
            skipped.append(prev)
            prev = cand
        for s in skipped:
            sorted_set.remove(s)
        final.extend(skipped)
        return None

    pair = candidate_pair()
    while pair is not None:
        prev, cand = pair
        sorted_set.remove(prev)
        sorted_set.remove(cand)
        if info_cmp(cand, prev) == 0:
            add(StateBatch(prev.first_offset, max(cand.last_offset, prev.last_offset),
                           prev.delivery_state, prev.delivery_count))
        elif cand.first_offset == prev.first_offset:
            if cand.last_offset == prev.last_offset:
                add(cand)
            elif info_cmp(cand, prev) < 0:
                add(prev)
                add(copy(cand, prev.last_offset + 1, cand.last_offset))
            else:
                add(cand)
        elif cand.last_offset < prev.last_offset:
            if info_cmp(cand, prev) < 0:
                add(prev)
            else:
                add(copy(prev, prev.first_offset, cand.first_offset - 1))
                add(cand)
                add(copy(prev, cand.last_offset + 1, prev.last_offset))
        elif cand.last_offset == prev.last_offset:
            if info_cmp(cand, prev) < 0:
                add(prev)
            else:
                add(copy(prev, prev.first_offset, cand.first_offset - 1))
                add(cand)
        else:
            if info_cmp(cand, prev) < 0:
                add(prev)
                add(copy(cand, prev.last_offset + 1, cand.last_offset))
            else:
                add(copy(prev, prev.first_offset, cand.first_offset - 1))
                add(cand)
        pair = candidate_pair()
    final.extend(sorted_set)
    return tuple(final)


def combine_new_only(start_offset: int, new: Sequence[StateBatch]) -> tuple[StateBatch, ...]:
    """The new batches combined on their own (what a ShareUpdate carries, and the seed's bug)."""
    return combine(start_offset, (), new)


def coalesce(batches: Iterable[StateBatch]) -> tuple[StateBatch, ...]:
    """The batches sorted, with contiguous or overlapping batches of equal (state, count) joined.

    This is what the protocol makes observable of a batch list (SHARE-OBS-BATCHES): where a run
    of offsets with one delivery state and count is cut is layout, not state. Batches that
    overlap with *different* state or count are kept apart, so an ambiguous list stays visible.
    """
    out: list[StateBatch] = []
    for b in sorted(batches, key=batch_sort_key):
        if out and priority(out[-1]) == priority(b) and b.first_offset <= out[-1].last_offset + 1:
            prev = out[-1]
            out[-1] = StateBatch(prev.first_offset, max(prev.last_offset, b.last_offset), prev.delivery_state,
                                 prev.delivery_count)
        else:
            out.append(b)
    return tuple(out)
