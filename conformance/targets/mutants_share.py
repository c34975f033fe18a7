"""Share coordinator mutants for the rules and inputs added with the known deviations
(spec/share.md, "Known deviations" and SHARE-VER-NEGATIVE-EPOCHS-REFUSED): each is the
reference shard (``kspec.conformance.targets.reference.share``) with one thing wrong, the way a
real implementation gets it wrong (three of them are bugs Kafka shipped). Registered in
``mutants.CATALOGUE``; each must be caught by ``kspec conform share --target mutant:NAME``.
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import NOT_SET, ShareShard


class WriteMovesLeaderEpoch(ShareShard):
    """A write's record carries the write's leader epoch (KAFKA-19456, Kafka 4.0-4.1), so a
    write moves the leader-epoch fence that only a read may move."""

    def state_record(self, key: Any, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is None or from_read or leader_epoch == NOT_SET:
            return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read)
        return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read=True)


class SnapshotOneUpdateLate(ShareShard):
    """Replay counts the first update after a snapshot as 0 (apache/kafka#21426, Kafka up to
    4.2.0): limit + 1 updates before the first limit snapshot."""

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        fresh = key not in self.update_counts
        super().replay_update(key, record)
        if fresh:
            self.update_counts[key] = 0


class ReadFencesUnsetEpoch(ShareShard):
    """A read with leader epoch -1 is fenced by any stored leader epoch (KAFKA-20694, Kafka up to
    4.3.0). Held to the 4.3 rule set: from 4.4 a -1 is refused before any fence."""

    kafka_version = "4.3"

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        stored = self.leader_epochs.get(key)
        if key in self.offsets and req["leader_epoch"] == NOT_SET and stored is not None and stored > NOT_SET:
            return [], self.response(req, "FENCED_LEADER_EPOCH",
                                     "The leader epoch in the request is older than the epoch on the broker.")
        return super().on_ReadRequest(key, req)


class NegativeEpochAccepted(ShareShard):
    """Negative epochs are taken as "not set" on a release whose rule set refuses them (4.4,
    KAFKA-20743)."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        return None


class UninitializedWriteAccepted(ShareShard):
    """A write to a key that was never initialized (or was deleted) creates its state, as Kafka
    4.0 did before InitializeShareGroupState existed (SHARE-INV-NO-UNINITIALIZED-ACCESS)."""

    def on_WriteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key in self.offsets or not self.hosts(key):
            return super().on_WriteRequest(key, req)
        record = self.snapshot(key, 0, req["state_epoch"], req["leader_epoch"], req["start_offset"],
                               self.combine(req["start_offset"], [], [[b["first_offset"], b["last_offset"],
                                                                      b["delivery_state"], b["delivery_count"]]
                                                                     for b in req["state_batches"]]))
        return [record], self.response(req)


class UnsetStartInSnapshot(ShareShard):
    """A limit snapshot takes the write's start offset as it is, -1 included, so the stored start
    offset moves back to -1 (SHARE-INV-START-MONOTONE)."""

    def limit_snapshot(self, key: Any, current: dict[str, Any], leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: list[list[int]]) -> dict[str, Any]:
        record = super().limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches)
        return {**record, "start_offset": start_offset}


# (name, class, bug class), in the order of mutants.CATALOGUE.
SHARE_MUTANTS: tuple[tuple[str, type[ShareShard], str], ...] = (
    ("share-write-moves-leader-epoch", WriteMovesLeaderEpoch, "a write records what only a read may (KAFKA-19456)"),
    ("share-snapshot-one-update-late", SnapshotOneUpdateLate, "off-by-one in a counter (apache/kafka#21426)"),
    ("share-read-fences-unset-epoch", ReadFencesUnsetEpoch, "a -1 sentinel compared as a number (KAFKA-20694)"),
    ("share-negative-epoch-accepted", NegativeEpochAccepted, "a hardened check missing (KAFKA-20743)"),
    ("share-uninitialized-write-accepted", UninitializedWriteAccepted, "a precondition of an API not checked"),
    ("share-unset-start-in-snapshot", UnsetStartInSnapshot, "a -1 sentinel written through"),
)
