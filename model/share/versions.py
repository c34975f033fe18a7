"""The share coordinator's rule sets per Kafka release, and the switches for known deviations.

A *rule set* changes only where a release changed the protocol on purpose (spec/share.md,
"Versions"): 4.0 is KIP-932's early access without InitializeShareGroupState (SHARE-VER-INITIALIZE,
SHARE-VER-UNINITIALIZED-REFUSED from 4.1), 4.2 adds KIP-1226's delivery-complete count
(SHARE-VER-DELIVERY-COMPLETE-COUNT), and 4.4 refuses negative epochs (KAFKA-20743,
SHARE-VER-NEGATIVE-EPOCHS-REFUSED). Everything else a release does differently is a bug, and the
model does not absorb it: it is a *deviation* (conformance/deviations/share.toml) with a switch
here, off in every rule set, that a model variant turns on (``kspec.model.share.variants``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Rules:
    """The rules one share coordinator shard follows: a release's rule set, plus the deviation
    switches a model variant turned on (all off in a rule set)."""

    minor: int  # the rule set is that of Kafka 4.<minor> (0, 1, 2 or 4)
    # SHARE-VER-INITIALIZE (4.1+): InitializeShareGroupState, DeleteShareGroupState and
    # ReadShareGroupStateSummary exist; before, the API answers UNSUPPORTED_VERSION.
    initialize: bool
    # SHARE-VER-UNINITIALIZED-REFUSED (4.1+): a write or read of a key with no state is
    # INVALID_REQUEST, checked before the fences and the metadata image.
    uninitialized_refused: bool
    # SHARE-VER-NEGATIVE-EPOCHS-REFUSED (4.4+, KAFKA-20743): a negative leader or state epoch in
    # a write, read or initialize is INVALID_REQUEST; before, -1 meant "not set".
    negative_epochs_refused: bool = False
    # SHARE-VER-DELIVERY-COMPLETE-COUNT (4.2+, KIP-1226): writes, the stored state, the records and
    # the read-summary answer carry the share-partition's delivery-complete count (-1: unknown);
    # before, there is no such field (the model keeps -1 everywhere).
    delivery_complete_count: bool = False
    # -- deviation switches (bugs of some releases; spec/share.md, "Known deviations") ----------
    # share-write-records-epochs (KAFKA-19456, up to 4.1.x): a write's record carries the
    # write's leader epoch, and a limit snapshot its state epoch.
    write_records_epochs: bool = False
    # share-write-state-epoch-snapshot (KAFKA-19456, 4.1.x): a write with a state epoch above the
    # stored one writes a ShareSnapshot holding it.
    state_epoch_snapshot: bool = False
    # share-first-snapshot-after-limit-plus-one (apache/kafka#21426, up to 4.2.0): replaying the
    # first ShareUpdate after an unreset snapshot counts 0, not 1.
    update_count_from_zero: bool = False
    # share-read-fences-unset-leader-epoch (KAFKA-20694, up to 4.3.0): a read with leader epoch
    # -1 is fenced by any stored leader epoch.
    read_fences_unset: bool = False
    # share-write-start-offset-regresses (apache/kafka#23074, up to 4.3.x): a write's start offset
    # below the stored one moves the stored start offset back.
    write_start_regresses: bool = False
    # share-initialize-count-unset (KAFKA-20034, 4.2.0): initialize with a known start offset
    # stores the delivery-complete count -1 (unknown), not 0.
    initialize_count_unset: bool = False
    # share-write-count-regresses (apache/kafka#23112, 4.2.0 - 4.3.1): a write's record carries the
    # request's delivery-complete count whatever its start offset, so an equal or lower (or -1)
    # start offset can lower the stored count.
    write_count_from_request: bool = False
    # share-redundant-offset-pinned-by-delete (KAFKA-19695, 4.1.0): the offsets manager keeps a
    # deleted key's tombstone offset, so the redundant offset never passes it
    # (SHARE-RULE-REDUNDANT-OFFSET).
    deleted_key_pins_redundant: bool = False
    # share-prune-forgets-leader-fence (4.1.0 - 4.4.0, no fix yet): a shard loaded from the log
    # the runtime pruned below the redundant offset rebuilds its fences from what is left, so a
    # leader-epoch fence only an older record carried (an initialize's snapshot holds leader
    # epoch 0) comes back lower and a stale leader is no longer fenced.
    prune_forgets_fences: bool = False
    # share-key-parsed-from-left (KAFKA-20183, 4.0.0 - 4.2.0): SharePartitionKey.getInstance(String)
    # splits the coordinator key at every ':' and wants three fields, the group id trimmed, so
    # FindCoordinator refuses a group id with ':' and finds a padded one's trimmed twin
    # (SHARE-RULE-KEY-PARSE).
    key_parsed_from_left: bool = False

    @property
    def version(self) -> str:
        return f"4.{self.minor}"

    # The protocol's behaviour, read by the shard (the negation of the deviation switches).
    @property
    def write_keeps_epochs(self) -> bool:
        return not self.write_records_epochs

    @property
    def update_count_from_one(self) -> bool:
        return not self.update_count_from_zero

    @property
    def read_fence_skips_unset(self) -> bool:
        return not self.read_fences_unset

    @property
    def write_start_monotone(self) -> bool:
        return not self.write_start_regresses

    @property
    def write_count_by_start(self) -> bool:
        return not self.write_count_from_request


RULE_SETS: dict[int, Rules] = {
    0: Rules(0, initialize=False, uninitialized_refused=False),
    1: Rules(1, initialize=True, uninitialized_refused=True),
    2: Rules(2, initialize=True, uninitialized_refused=True, delivery_complete_count=True),
    4: Rules(4, initialize=True, uninitialized_refused=True, negative_epochs_refused=True,
             delivery_complete_count=True),
}
# Kafka 4.N -> the rule set it follows (4.3 changed nothing on purpose in the shard).
RULE_SET_OF_MINOR = {0: 0, 1: 1, 2: 2, 3: 2, 4: 4}
VERSIONS: dict[int, Rules] = {m: RULE_SETS[r] for m, r in RULE_SET_OF_MINOR.items()}
LATEST_MINOR = max(VERSIONS)
LATEST = VERSIONS[LATEST_MINOR]

# Deviation switches by deviation name (= model variant name).
DEVIATION_SWITCHES: dict[str, dict[str, bool]] = {
    "share-write-records-epochs": {"write_records_epochs": True},
    "share-write-state-epoch-snapshot": {"write_records_epochs": True, "state_epoch_snapshot": True},
    "share-first-snapshot-after-limit-plus-one": {"update_count_from_zero": True},
    "share-read-fences-unset-leader-epoch": {"read_fences_unset": True},
    "share-write-start-offset-regresses": {"write_start_regresses": True},
    "share-initialize-count-unset": {"initialize_count_unset": True},
    "share-write-count-regresses": {"write_count_from_request": True},
    "share-redundant-offset-pinned-by-delete": {"deleted_key_pins_redundant": True},
    "share-prune-forgets-leader-fence": {"prune_forgets_fences": True},
    "share-key-parsed-from-left": {"key_parsed_from_left": True},
}


def with_deviations(rules: Rules, names: tuple[str, ...] | list[str]) -> Rules:
    """``rules`` with the switches of the named deviations on; ValueError naming an unknown one."""
    switches: dict[str, bool] = {}
    for name in names:
        if name not in DEVIATION_SWITCHES:
            raise ValueError(f"unknown share deviation {name!r} (known: {', '.join(sorted(DEVIATION_SWITCHES))})")
        switches.update(DEVIATION_SWITCHES[name])
    return replace(rules, **switches)


def rules_of(minor: int) -> Rules:
    """The rule set Kafka 4.<minor> follows; ValueError naming the known releases otherwise."""
    if minor not in VERSIONS:
        raise ValueError(f"no share coordinator rules for Kafka 4.{minor} "
                         f"(known: {', '.join(f'4.{m}' for m in sorted(VERSIONS))})")
    return VERSIONS[minor]


def minor_of(version: str) -> int:
    """The 4.N line of a Kafka version string ("4.1", "4.1.0", "4.2.0-rc1"); ValueError when it
    is not a 4.x release the model has rules for."""
    m = re.match(r"^(\d+)\.(\d+)(?:[.-]|$)", version)
    if not m:
        raise ValueError(f"{version!r} is not a Kafka version")
    major, minor = int(m.group(1)), int(m.group(2))
    if major != 4:
        raise ValueError(f"no share coordinator rules for Kafka {version} (the model has 4.0 to 4.{LATEST_MINOR})")
    rules_of(minor)
    return minor
