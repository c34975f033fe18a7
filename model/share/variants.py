"""Deliberately broken variants of the share coordinator, each a known bug class.

Each one must be caught by ``kspec explore share --variant NAME`` with a short trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kspec.model.share.combiner import from_cells, prune
from kspec.model.share.records import StateBatch
from kspec.model.share.shard import Flaws
from kspec.model.share.system import ShareSystem


def combine_lower_count_wins(start_offset: int, current: Sequence[StateBatch],
                             new: Sequence[StateBatch]) -> tuple[StateBatch, ...]:
    """A combiner whose overlap rule is inverted: the lower delivery count wins."""
    cells: dict[int, tuple[int, int]] = {}
    for b in prune(start_offset, [*current, *new]):
        for o in range(b.first_offset, b.last_offset + 1):
            old = cells.get(o)
            if old is None or (b.delivery_count, b.delivery_state) < (old[1], old[0]):
                cells[o] = (b.delivery_state, b.delivery_count)
    return from_cells(cells)


def _variant(flaws: Flaws) -> Callable[..., ShareSystem]:
    def make(**bounds: Any) -> ShareSystem:
        return ShareSystem(**bounds, flaws=flaws)
    return make


VARIANTS: dict[str, Callable[..., ShareSystem]] = {
    # Seed 004: the snapshot after the update limit keeps only the new batches when the request
    # carries a start offset, so an untouched batch's delivery count is lost.
    "new-batches-only-on-start-move": _variant(Flaws(seed_bug=True)),
    # The combiner lets the lower delivery count win where batches overlap.
    "lower-count-wins": _variant(Flaws(lower_count_wins=True)),
    # Initialize of a known key goes out as a ShareUpdate, which has no state epoch field.
    "update-drops-state-epoch": _variant(Flaws(init_as_update=True)),
    # A write from an older leader epoch is not fenced.
    "unfenced-stale-leader": _variant(Flaws(no_leader_fence=True)),
}
