"""The share coordinator's stored values and the records of ``__share_group_state``.

``StateBatch`` is Kafka's ``PersisterStateBatch`` (server-common) without the staged
transactional fields newer trunk adds. ``ShareSnapshot`` / ``ShareUpdate`` carry the fields of
``ShareSnapshotValue.json`` / ``ShareUpdateValue.json`` that the state machine uses, with KIP-1226's
``DeliveryCompleteCount`` (4.2+, a tagged field; -1 when absent or unknown); timestamps are left
out (spec/share.md, SHARE-REC-*).
"""

from __future__ import annotations

from dataclasses import dataclass

# Delivery states as persisted (ShareSnapshotValue.json: 0 Available, 2 Acked, 4 Archived).
# ACQUIRED (1) and ARCHIVING (3) exist in the broker but "should not be persisted".
AVAILABLE = 0
ACQUIRED = 1
ACKNOWLEDGED = 2
ARCHIVING = 3
ARCHIVED = 4

STATE_NAMES = {AVAILABLE: "AVAILABLE", ACQUIRED: "ACQUIRED", ACKNOWLEDGED: "ACKNOWLEDGED",
               ARCHIVING: "ARCHIVING", ARCHIVED: "ARCHIVED"}

# PartitionFactory.UNINITIALIZED_START_OFFSET and DEFAULT_STATE_EPOCH; -1 is "not set" for the
# leader epoch, state epoch and start offset of a write (SHARE-RULE-WRITE-MINUS-ONE).
UNINITIALIZED_START_OFFSET = -1
DEFAULT_STATE_EPOCH = 0
NOT_SET = -1
# PartitionFactory.UNINITIALIZED_DELIVERY_COMPLETE_COUNT: the delivery-complete count is unknown
# (KIP-1226; also what a record or response without the field reads as).
UNKNOWN_COUNT = -1


@dataclass(frozen=True, slots=True, order=True)
class StateBatch:
    """A run of offsets ``[first_offset, last_offset]`` sharing a delivery state and count.

    Field order makes the dataclass order equal to Java's ``PersisterStateBatch.compareTo``
    except that Kafka compares the count before the state; :func:`batch_sort_key` is that order.
    """

    first_offset: int
    last_offset: int
    delivery_state: int
    delivery_count: int

    def __post_init__(self) -> None:
        if self.first_offset > self.last_offset:
            raise ValueError(f"StateBatch first_offset {self.first_offset} > last_offset {self.last_offset}")


def batch_sort_key(b: StateBatch) -> tuple[int, int, int, int]:
    """Kafka's ``PersisterStateBatch.compareTo``: first, last, delivery count, delivery state."""
    return (b.first_offset, b.last_offset, b.delivery_count, b.delivery_state)


@dataclass(frozen=True, slots=True, order=True)
class SharePartitionKey:
    """Kafka's ``SharePartitionKey``: a share group, a topic id (its string form) and a partition."""

    group_id: str
    topic_id: str
    partition: int

    def coordinator_key(self) -> str:
        """``SharePartitionKey.asCoordinatorKey``: ``"%s:%s:%d"`` of group, topic id, partition."""
        return f"{self.group_id}:{self.topic_id}:{self.partition}"


@dataclass(frozen=True, slots=True)
class ShareSnapshot:
    """A ``ShareSnapshot`` record (key version 0): the complete state of one share-partition."""

    key: SharePartitionKey
    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...]
    delivery_complete_count: int = UNKNOWN_COUNT  # KIP-1226 (4.2+), SHARE-REC-DELIVERY-COMPLETE-COUNT


@dataclass(frozen=True, slots=True)
class ShareUpdate:
    """A ``ShareUpdate`` record (key version 1): a delta against the last snapshot.

    It has no state epoch field (SHARE-REC-UPDATE-NO-STATE-EPOCH); ``start_offset`` and
    ``leader_epoch`` may be -1 for "unchanged".
    """

    key: SharePartitionKey
    snapshot_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...]
    # KIP-1226 (4.2+): replay stores it as is (no -1 for "unchanged").
    delivery_complete_count: int = UNKNOWN_COUNT


@dataclass(frozen=True, slots=True)
class ShareTombstone:
    """A tombstone (``ShareSnapshot`` key, null value) written by DeleteShareGroupState (4.1+)."""

    key: SharePartitionKey


Record = ShareSnapshot | ShareUpdate | ShareTombstone
