"""Where Kafka releases' ``ShareCoordinatorShard`` differ: one :class:`Rules` per 4.N release.

Read from each release's source (kafka-share-coordinator sources jar, 4.0.0 … 4.3.1); the rule
IDs are in spec/share.md, section "Versions". Patch releases of one 4.N line have the same rules
(4.0.0 = 4.0.2; 4.1.0 and 4.1.2 differ only in the offsets manager, which the shard's state does
not show).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Rules:
    """The version-dependent rules of one Kafka 4.N share coordinator shard."""

    minor: int  # Kafka 4.<minor>
    # SHARE-VER-INITIALIZE (4.1+): InitializeShareGroupState, DeleteShareGroupState and
    # ReadShareGroupStateSummary exist; before, the API answers UNSUPPORTED_VERSION.
    initialize: bool
    # SHARE-VER-UNINITIALIZED-REFUSED (4.1+): a write or read of a key with no state is
    # INVALID_REQUEST, checked before the fences and the metadata image.
    uninitialized_refused: bool
    # SHARE-VER-STATE-EPOCH-SNAPSHOT (4.1 only): a write whose state epoch is above the stored
    # one writes a ShareSnapshot (next snapshot epoch) holding the new state epoch.
    state_epoch_snapshot: bool
    # SHARE-VER-WRITE-KEEPS-EPOCHS (4.2+): a write's record carries the stored leader epoch (only
    # a read records a new one) and a limit snapshot the stored state epoch.
    write_keeps_epochs: bool
    # SHARE-VER-UPDATE-COUNT-FROM-ONE (4.3+): replaying the first ShareUpdate after an unreset
    # snapshot counts 1 (``v == null ? 1 : v + 1``), not 0.
    update_count_from_one: bool
    # SHARE-VER-READ-FENCE-UNSET (4.3+): a read with leader epoch -1 is not fenced.
    read_fence_skips_unset: bool

    @property
    def version(self) -> str:
        return f"4.{self.minor}"


VERSIONS: dict[int, Rules] = {
    0: Rules(0, initialize=False, uninitialized_refused=False, state_epoch_snapshot=False,
             write_keeps_epochs=False, update_count_from_one=False, read_fence_skips_unset=False),
    1: Rules(1, initialize=True, uninitialized_refused=True, state_epoch_snapshot=True,
             write_keeps_epochs=False, update_count_from_one=False, read_fence_skips_unset=False),
    2: Rules(2, initialize=True, uninitialized_refused=True, state_epoch_snapshot=False,
             write_keeps_epochs=True, update_count_from_one=False, read_fence_skips_unset=False),
    3: Rules(3, initialize=True, uninitialized_refused=True, state_epoch_snapshot=False,
             write_keeps_epochs=True, update_count_from_one=True, read_fence_skips_unset=True),
}
LATEST_MINOR = max(VERSIONS)
LATEST = VERSIONS[LATEST_MINOR]


def rules_of(minor: int) -> Rules:
    """The rules of Kafka 4.<minor>; ValueError naming the known ones otherwise."""
    if minor not in VERSIONS:
        raise ValueError(f"no share coordinator rules for Kafka 4.{minor} "
                         f"(known: {', '.join(r.version for r in VERSIONS.values())})")
    return VERSIONS[minor]


def minor_of(version: str) -> int:
    """The 4.N line of a Kafka version string ("4.1", "4.1.0", "4.2.0-rc1"); ValueError when it
    is not a 4.x release the model has rules for."""
    parts = version.split(".")
    try:
        major, minor = int(parts[0]), int(parts[1].split("-")[0])
    except (IndexError, ValueError):
        raise ValueError(f"{version!r} is not a Kafka version") from None
    if major != 4:
        raise ValueError(f"no share coordinator rules for Kafka {version} (the model has 4.0 to 4.{LATEST_MINOR})")
    rules_of(minor)
    return minor
