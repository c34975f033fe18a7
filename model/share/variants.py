"""Deliberately broken variants of the share coordinator, each a known bug class.

Each one must be caught by ``kspec explore share --variant NAME`` with a short trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from typing import Any

from kspec.model.share.combiner import from_cells, prune
from kspec.model.share.records import StateBatch
from kspec.model.share.shard import Flaws
from kspec.model.share.system import ShareSystem
from kspec.model.share.versions import DEVIATION_SWITCHES


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


def _deviation(name: str) -> Callable[..., ShareSystem]:
    def make(**bounds: Any) -> ShareSystem:
        return ShareSystem(**bounds, deviations=(name,))
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

# The model doing what a release does where it deviates from the protocol (known deviations,
# conformance/deviations/share.toml; spec/share.md, "Known deviations"). Accepting a deviation
# (`kspec conform --accept NAME`) holds the target to the model with that variant.
DEVIATION_VARIANTS: dict[str, Callable[..., ShareSystem]] = {name: _deviation(name) for name in DEVIATION_SWITCHES}
BROKEN_VARIANTS: dict[str, Callable[..., ShareSystem]] = dict(VARIANTS)
# The invariant each deviation breaks (its catch): a model running the deviation's variant is
# not held to it (the conformance driver leaves it out of the model-side check).
DEVIATION_BREAKS: dict[str, frozenset[str]] = {
    # A write above the stored state epoch (a probe) puts it in the limit snapshot: the fence moves.
    "share-write-records-epochs": frozenset({"leader_epoch_only_from_read", "state_epoch_recorded"}),
    "share-write-state-epoch-snapshot": frozenset({"leader_epoch_only_from_read", "state_epoch_recorded"}),
    "share-first-snapshot-after-limit-plus-one": frozenset({"snapshot_cadence"}),
    "share-read-fences-unset-leader-epoch": frozenset({"unset_read_not_fenced"}),
    "share-write-start-offset-regresses": frozenset({"start_offset_never_backwards"}),
    "share-initialize-count-unset": frozenset({"initialize_sets_count"}),
    "share-write-count-regresses": frozenset({"count_follows_start_offset"}),
    # A deleted key's tombstone offset stays held: the redundant offset stops at it.
    "share-redundant-offset-pinned-by-delete": frozenset({"redundant_offset_released", "delete_releases_log"}),
    # A pruned load rebuilds the fences from the records left: a leader-epoch fence drops.
    "share-prune-forgets-leader-fence": frozenset({"prune_keeps_fences", "prune_restores_fence",
                                                   "replay_equals_handlers", "failover_preserves_reads",
                                                   "epochs_never_decrease"}),
    # FindCoordinator refuses a group id with ':' (a padded one finds its trimmed twin).
    "share-key-parsed-from-left": frozenset({"key_finds_coordinator"}),
}
VARIANTS.update(DEVIATION_VARIANTS)

FLAWS_OF: dict[str, Flaws] = {
    "new-batches-only-on-start-move": Flaws(seed_bug=True),
    "lower-count-wins": Flaws(lower_count_wins=True),
    "update-drops-state-epoch": Flaws(init_as_update=True),
    "unfenced-stale-leader": Flaws(no_leader_fence=True),
}


def build(variant: str, **bounds: Any) -> ShareSystem:
    """The system model of ``variant`` (names joined by ``+``; empty: the reference), broken
    variants' flaws and deviations' switches combined; ValueError naming an unknown name."""
    names = [n.strip() for n in variant.replace(",", "+").split("+") if n.strip()]
    flaws: dict[str, bool] = {}
    deviations: list[str] = []
    for name in names:
        if name in FLAWS_OF:
            flaws.update({f.name: True for f in fields(Flaws) if getattr(FLAWS_OF[name], f.name)})
        elif name in DEVIATION_SWITCHES:
            deviations.append(name)
        else:
            raise ValueError(f"unknown share model variant {name!r} (known: {', '.join(sorted(VARIANTS))})")
    return ShareSystem(**bounds, flaws=Flaws(**flaws), deviations=tuple(deviations))


def waived(variant: str) -> frozenset[str]:
    """The property names a model running ``variant`` is known to break by design (its deviations')."""
    names = [n.strip() for n in variant.replace(",", "+").split("+") if n.strip()]
    return frozenset().union(*(DEVIATION_BREAKS.get(n, frozenset()) for n in names))
