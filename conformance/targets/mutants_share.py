"""Share coordinator mutants for the rules and inputs added with the known deviations
(spec/share.md, "Known deviations" and SHARE-VER-NEGATIVE-EPOCHS-REFUSED): each is the
reference shard (``kspec.conformance.targets.reference.share``) with one thing wrong, the way a
real implementation gets it wrong (three of them are bugs Kafka shipped). Registered in
``mutants.CATALOGUE``; each must be caught by ``kspec conform share --target mutant:NAME``.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_LEADER,
    FENCED_STATE,
    NOT_AVAILABLE,
    NOT_SET,
    READ_UNINITIALIZED,
    RESPONSE_OF,
    STATE_PARTITIONS,
    UNKNOWN_TP,
    ShareShard,
    _batches_in,
    _batches_out,
    combine,
    java_hash,
)


class WriteMovesLeaderEpoch(ShareShard):
    """A write's record carries the write's leader epoch (KAFKA-19456, Kafka 4.0-4.1), so a
    write moves the leader-epoch fence that only a read may move."""

    def state_record(self, key: Any, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is None or from_read or leader_epoch == NOT_SET:
            return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)
        return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read=True,
                                    count=count)


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


class KeyParsedFromLeft(ShareShard):
    """The coordinator key is split at every ':' into exactly three fields and the group id
    trimmed (KAFKA-20183, Kafka 4.0.0-4.2.0): a group id with ':' is refused, a padded one is
    routed as its trimmed twin."""

    @staticmethod
    def parse_key(key: str) -> tuple[str, str, int] | None:
        fields = key.split(":")
        if len(fields) != 3 or not fields[0].strip() or not fields[2].lstrip("+-").isdigit():
            return None
        return fields[0].strip(), fields[1], int(fields[2])


class RoutingMathAbs(ShareShard):
    """The coordinator key's hash made positive with ``Math.abs``, where Kafka's
    ``ShareCoordinatorService.partitionFor`` uses ``Utils.abs``: a key whose ``String.hashCode``
    is ``Integer.MIN_VALUE`` stays negative, and Java's ``%`` answers partition -48 of 50."""

    def route(self, key: str) -> int:
        h = java_hash(key)
        magnitude = h if h == -(2**31) else abs(h)  # Math.abs(Integer.MIN_VALUE) overflows to itself
        return -(-magnitude % STATE_PARTITIONS) if magnitude < 0 else magnitude % STATE_PARTITIONS


class FindCoordinatorNeedsLoad(ShareShard):
    """FindCoordinator answered behind the shard's ``isActive`` check: while the coordinator
    partition is unloaded the lookup is COORDINATOR_NOT_AVAILABLE, where the broker answers it
    from the key alone (SHARE-RULE-KEY-PARSE)."""

    def find_coordinator(self, req: dict[str, Any]) -> dict[str, Any]:
        if self.active:
            return super().find_coordinator(req)
        return {"type": "FindCoordinatorResponse", "topic_id": req["topic_id"], "partition": req["partition"],
                "error": NOT_AVAILABLE[0], "message": NOT_AVAILABLE[1], "coordinator": -1}


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
                       start_offset: int, batches: list[list[int]], count: int = NOT_SET) -> dict[str, Any]:
        record = super().limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches, count)
        return {**record, "start_offset": start_offset}


# -- bugs only the probe requests reach (conformance/drivers/share.py: epochs, delete, summary,
# keys); each is the kind of slip a new handler or a new map gets.


class DeleteKeepsFences(ShareShard):
    """A delete's replay forgets the stored state but not the epoch fences and update count (one
    of the four maps cleared, the others forgotten), so a re-initialized key is still fenced by
    the deleted one's epochs."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        if record["type"] != "ShareTombstone":
            super().replay_maps(record)
            return
        k = record["key"]
        self.offsets.pop((k["group_id"], k["topic_id"], k["partition"]), None)


class DeleteWithoutTombstone(ShareShard):
    """A delete drops the key from memory and appends no tombstone (the state changed outside
    replay), so the delete is lost when a new shard loads the log: the state comes back."""

    def on_DeleteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_DeleteRequest(key, req)
        for record in records:
            self.replay(record)
        return [], response


class LoadingShard(ShareShard):
    """A reference shard that knows, while it steps, whether the input is a Load (a new shard
    replaying the log after a fail-over): for mutants whose slip is on the load path alone."""

    loading = False

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self.loading = inp.get("type") == "Load"
        try:
            return super().step(inp)
        finally:
            self.loading = False


class ReplaySkipsTombstone(LoadingShard):
    """Replay ignores a tombstone (a record with a null value taken for "nothing to do"): the
    live shard forgets a deleted key, but a new shard loaded from the log resurrects it."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        if self.loading and record["type"] == "ShareTombstone":
            return
        super().replay_maps(record)


class SummaryLeaderEpochFromFence(ShareShard):
    """ReadShareGroupStateSummary answers the leader-epoch fence (the highest epoch ever seen)
    instead of the stored state's leader epoch, which initialize resets to 0."""

    def on_ReadSummaryRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                              ) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_ReadSummaryRequest(key, req)
        if response["error"] == "NONE" and key in self.leader_epochs:
            response = {**response, "leader_epoch": self.leader_epochs[key]}
        return records, response


class SummaryRecordsLeaderEpoch(ShareShard):
    """ReadShareGroupStateSummary was written from the read handler and records a new leader
    epoch as a read does, so a summary fences the share-partition leader."""

    def on_ReadSummaryRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                              ) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_ReadSummaryRequest(key, req)
        if response["error"] == "NONE" and key in self.offsets:
            records = self.read_records(key, req, {**response, "state_batches": []}, self.leader_epochs.get(key))
        return records, response


class WriteRecordsHigherStateEpoch(ShareShard):
    """A write above the stored state epoch writes a snapshot holding it (KAFKA-19456's second
    half, Kafka 4.1): a share-partition leader moves the state epoch only initialize may set."""

    def state_record(self, key: Any, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is None or from_read or state_epoch <= current["state_epoch"]:
            return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)
        return self.limit_snapshot(key, current, current["leader_epoch"], state_epoch, start_offset, batches,
                                   self.write_count(current, start_offset, count))


class StaleInitializeAccepted(ShareShard):
    """Initialize does not fence an older state epoch: a stale group coordinator's initialize
    (after the group moved on) resets the state and its epoch backwards."""

    def on_InitializeRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                             ) -> tuple[list[Any], dict[str, Any]]:
        if not self.hosts(key):
            return [], self.response(req, "UNKNOWN_TOPIC_OR_PARTITION",
                                     "This server does not host this topic-partition.")
        return [self.initialize_record(key, req)], self.response(req)


class InitializeUnknownPartition(ShareShard):
    """Initialize does not check the metadata image: state is created for a partition the
    cluster does not have (and never deleted, since no share-partition leader exists for it)."""

    def hosts(self, key: tuple[str, str, int]) -> bool:
        return True


class FencesIgnoreGroup(ShareShard):
    """The leader-epoch fence is keyed by topic and partition only (the group id dropped from
    the key): a read in one share group fences the share-partition leader of another."""

    def read_records(self, key: Any, req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        return super().read_records(key, req, response, self._fence(key, stored_leader))

    def _fence(self, key: Any, own: int | None) -> int | None:
        shared = [e for k, e in self.leader_epochs.items() if k[1:] == key[1:]]
        return max(shared) if shared else own

    def write_fenced(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[str, str] | None:
        fence = self._fence(key, None)
        if req["leader_epoch"] != NOT_SET and fence is not None and fence > req["leader_epoch"]:
            return "FENCED_LEADER_EPOCH", "The leader epoch in the request is older than the epoch on the broker."
        return super().write_fenced(key, req)


class StartOffsetRegresses(ShareShard):
    """A write's start offset is taken as sent, so an out-of-order write from the share-partition
    leader moves the start offset back and records below it are delivered again (Kafka up to
    4.3.1; apache/kafka#23074)."""

    def state_record(self, key: Any, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is None or from_read or start_offset == NOT_SET or start_offset >= current["start_offset"]:
            return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)
        count = self.write_count(current, start_offset, count)
        if self.update_counts.get(key, 0) >= self.snapshot_limit:
            return self.snapshot(key, current["snapshot_epoch"] + 1, current["state_epoch"], current["leader_epoch"],
                                 start_offset, self.combine(start_offset, current["state_batches"], batches), count)
        return self.update(key, current["snapshot_epoch"], current["leader_epoch"], start_offset,
                           self.combine(start_offset, [], batches), count)


class MergeIgnoresCount(ShareShard):
    """The batch combiner merges adjacent offsets in the same delivery state whatever their
    delivery counts (the count left out of the equality test), so a count is lost."""

    @staticmethod
    def combine(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
        out: list[list[int]] = []
        for first, last, state, count in combine(start_offset, current, new):
            if out and out[-1][1] == first - 1 and out[-1][2] == state:
                out[-1][1] = last
            else:
                out.append([first, last, state, count])
        return out


class ImageBeforeFences(ShareShard):
    """A write checks the metadata image before the fences: a fenced write of a deleted topic's
    share-partition is answered UNKNOWN_TOPIC_OR_PARTITION, not FENCED_*_EPOCH."""

    def write_fenced(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[str, str] | None:
        if not self.hosts(key):
            return None  # on_WriteRequest answers UNKNOWN_TOPIC_OR_PARTITION next
        return super().write_fenced(key, req)


class NegativeInitializeAccepted(ShareShard):
    """4.4's refusal of negative epochs made for writes and reads only: an initialize at state
    epoch -1 is accepted (SHARE-VER-NEGATIVE-EPOCHS-REFUSED covers initialize too)."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        return None if req["type"] == "InitializeRequest" else super().negative_epoch_error(req)


# -- KIP-1226's delivery-complete count (4.2+; SHARE-VER-DELIVERY-COMPLETE-COUNT): the rules the
# driver's ``counts`` probes and every initialize reach.


class InitializeCountUnset(ShareShard):
    """Initialize leaves the delivery-complete count unknown (-1) even with a known start offset
    (KAFKA-20034, Kafka 4.2.0): the lag cannot be computed until the next write."""

    def initialize_count(self, start_offset: int) -> int:
        return NOT_SET


class WriteCountFromRequest(ShareShard):
    """A write's record takes the request's delivery-complete count whatever its start offset
    (apache/kafka#23112, Kafka 4.2.0 - 4.3.1): an out-of-order or lower count regresses it."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        return count if self.delivery_complete_count else NOT_SET


class SummaryCountUnset(ShareShard):
    """ReadShareGroupStateSummary answers the new field at its default (-1): v1's count added to
    the schema, not filled in."""

    def on_ReadSummaryRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                              ) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_ReadSummaryRequest(key, req)
        return records, {**response, "delivery_complete_count": NOT_SET}


class UpdateCountNotReplayed(ShareShard):
    """Replay of a ShareUpdate keeps the stored delivery-complete count (the new tagged field
    treated like the start offset's -1 "unchanged"): an update's count is lost."""

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        before = self.offsets.get(key, {}).get("delivery_complete_count", NOT_SET)
        super().replay_update(key, record)
        self.offsets[key]["delivery_complete_count"] = before


class RedundantPinnedByDelete(ShareShard):
    """The offsets manager keeps a deleted key's tombstone offset (KAFKA-19695, Kafka 4.1.0):
    the redundant offset never passes a deleted share-partition, so the coordinator partition
    is never pruned past it (SHARE-INV-REDUNDANT-RELEASED)."""

    def track_redundant(self, key: tuple[str, str, int], kind: str) -> None:
        super().track_redundant(key, "ShareSnapshot" if kind == "ShareTombstone" else kind)


class RedundantCountsUpdates(ShareShard):
    """A ShareUpdate moves its key's offset too, so the records the update is a delta against
    (the snapshot before it) count as redundant: a log pruned there loses the state
    (SHARE-INV-REDUNDANT-SAFE)."""

    def track_redundant(self, key: tuple[str, str, int], kind: str) -> None:
        super().track_redundant(key, "ShareSnapshot" if kind == "ShareUpdate" else kind)


# (name, class, bug class), in the order of mutants.CATALOGUE.
SHARE_MUTANTS: tuple[tuple[str, type[ShareShard], str], ...] = (
    ("share-write-moves-leader-epoch", WriteMovesLeaderEpoch, "a write records what only a read may (KAFKA-19456)"),
    ("share-snapshot-one-update-late", SnapshotOneUpdateLate, "off-by-one in a counter (apache/kafka#21426)"),
    ("share-read-fences-unset-epoch", ReadFencesUnsetEpoch, "a -1 sentinel compared as a number (KAFKA-20694)"),
    ("share-negative-epoch-accepted", NegativeEpochAccepted, "a hardened check missing (KAFKA-20743)"),
    ("share-uninitialized-write-accepted", UninitializedWriteAccepted, "a precondition of an API not checked"),
    ("share-unset-start-in-snapshot", UnsetStartInSnapshot, "a -1 sentinel written through"),
    ("share-delete-keeps-fences", DeleteKeepsFences, "a delete clears one map of four"),
    ("share-delete-without-tombstone", DeleteWithoutTombstone,
     "state changed outside replay: fail-over loses the delete"),
    ("share-replay-skips-tombstone", ReplaySkipsTombstone, "a null record value ignored on load"),
    ("share-summary-leader-epoch-from-fence", SummaryLeaderEpochFromFence, "a summary reads the wrong map"),
    ("share-summary-records-leader-epoch", SummaryRecordsLeaderEpoch, "a read-only API with a side effect"),
    ("share-write-records-higher-state-epoch", WriteRecordsHigherStateEpoch,
     "a write sets what only initialize may (KAFKA-19456, 4.1)"),
    ("share-stale-initialize-accepted", StaleInitializeAccepted, "a missing fence on a new API"),
    ("share-initialize-unknown-partition", InitializeUnknownPartition, "metadata validation missing"),
    ("share-fences-ignore-group", FencesIgnoreGroup, "a map keyed without the group: state bleeds across keys"),
    ("share-start-offset-regresses", StartOffsetRegresses, "an out-of-order request moves a position back"),
    ("share-merge-ignores-count", MergeIgnoresCount, "a field left out of an equality test"),
    ("share-image-before-fences", ImageBeforeFences, "two checks in the wrong order"),
    ("share-negative-initialize-accepted", NegativeInitializeAccepted, "a hardened check applied to two APIs of three"),
    ("share-initialize-count-unset", InitializeCountUnset, "a new field left at its default on one path (KAFKA-20034)"),
    ("share-write-count-from-request", WriteCountFromRequest,
     "an out-of-order request moves a counter back (apache/kafka#23112)"),
    ("share-summary-count-unset", SummaryCountUnset, "a new response field not filled in"),
    ("share-key-parsed-from-left", KeyParsedFromLeft,
     "a composite key split at the first separator, its free-text part trimmed (KAFKA-20183)"),
    ("share-routing-math-abs", RoutingMathAbs, "Math.abs of a hash: Integer.MIN_VALUE stays negative"),
    ("share-find-coordinator-needs-load", FindCoordinatorNeedsLoad,
     "a stateless lookup behind a stateful availability check"),
    ("share-update-count-not-replayed", UpdateCountNotReplayed, "a new record field not replayed"),
    ("share-redundant-pinned-by-delete", RedundantPinnedByDelete,
     "a deleted entry kept in a bookkeeping map (KAFKA-19695)"),
    ("share-redundant-counts-updates", RedundantCountsUpdates, "a delta taken for a full state in log pruning"),
)


# Red team session 15 (outsidera): the escapes of ``share_scratch7`` as reference-shard slips.


class UpdateTieNewerWins(ShareShard):
    """Replaying a ShareUpdate, the update's batch wins wherever its delivery count is at least
    the stored one's ("new batches win" on a tie), so at an equal count a lower delivery state
    replaces a higher one, where the higher (count, state) wins whichever list it came from
    (SHARE-RULE-COMBINE-PRIORITY). Reached by SHARE-DRIVE-TIE-UPDATE."""

    def replay_update(self, key: tuple[str, str, int], record: dict[str, Any]) -> None:
        current = self.offsets.get(key)
        if current is not None:
            new = _batches_in(record["state_batches"])
            taken = {o for first, last, _, count in new for o in range(first, last + 1)
                     if all(not f <= o <= last_ or c <= count for f, last_, _, c in current["state_batches"])}
            kept = [[o, o, state, count] for first, last, state, count in current["state_batches"]
                    for o in range(first, last + 1) if o not in taken]
            self.offsets[key] = {**current, "state_batches": combine(NOT_SET, kept, [])}
        super().replay_update(key, record)


class ReadImageBeforeFence(ShareShard):
    """A read checks the metadata image before the leader-epoch fence: a stale leader's read of
    a deleted topic's share-partition is answered UNKNOWN_TOPIC_OR_PARTITION, not
    FENCED_LEADER_EPOCH (SHARE-RULE-READ-FENCE, SHARE-RULE-METADATA-UPDATE: the fences first).
    Reached by SHARE-DRIVE-STALE-READ-WITHOUT-TOPIC."""

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key in self.offsets and not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        return super().on_ReadRequest(key, req)


class ImageDroppedWhileUnloaded(ShareShard):
    """A MetadataUpdate that arrives while the shard is unloaded is dropped, so the shard loaded
    after the fail-over validates against the image from before it (SHARE-RULE-METADATA-UPDATE,
    SHARE-STATE-IMAGE: a shard loaded later validates against the image as it is then).
    Reached by SHARE-DRIVE-IMAGE-WHILE-UNLOADED."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "MetadataUpdate" and not self.active:
            return []
        return super().step(inp)


class NewLeaderReadRecordsWithoutTopic(ShareShard):
    """A read at a new leader epoch records it before the metadata image is checked: a leader
    elected after its topic was deleted gets UNKNOWN_TOPIC_OR_PARTITION and still appends a
    record that raises the fence (SHARE-RULE-METADATA-UPDATE: a failed check appends nothing).
    Reached by SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC."""

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        fence = self.leader_epochs.get(key)
        if key in self.offsets and not self.hosts(key) and fence is not None and req["leader_epoch"] > fence:
            current = self.offsets[key]
            record = self.state_record(key, req["leader_epoch"], current["state_epoch"], current["start_offset"], [],
                                       from_read=True, count=current.get("delivery_complete_count", NOT_SET))
            return [record], self.response(req, *UNKNOWN_TP)
        return super().on_ReadRequest(key, req)


class CountUnknownStartKept(ShareShard):
    """A stored start offset of -1 (initialized with an unknown start) is read as "nothing to
    compare with": a write's delivery-complete count is never taken and the stored -1 stays
    (SHARE-RULE-WRITE-COUNT: -1 is below every known start offset, so the write's count is
    stored). Reached by SHARE-DRIVE-COUNT-FROM-UNKNOWN-START."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and current["start_offset"] == NOT_SET:
            return int(current["delivery_complete_count"])
        return super().write_count(current, start_offset, count)


class ReinitializeKeepsCountAtStart(ShareShard):
    """An initialize at the stored start offset keeps the higher of 0 and the stored
    delivery-complete count, the write's rule at the same start offset reused
    (SHARE-RULE-INITIALIZE-COUNT: an initialize with a known start offset stores 0). Reached by
    SHARE-DRIVE-REINIT-COUNTED-START."""

    def initialize_record(self, key: tuple[str, str, int], req: dict[str, Any]) -> dict[str, Any]:
        record = super().initialize_record(key, req)
        current = self.offsets.get(key)
        if current is not None and req["start_offset"] != NOT_SET and req["start_offset"] == current["start_offset"]:
            record["delivery_complete_count"] = max(0, int(record["delivery_complete_count"]),
                                                    int(current["delivery_complete_count"]))
        return record



class SameStartCountReplaced(ShareShard):
    """A write at the stored start offset replaces the stored delivery-complete count with its
    own, lower or not (SHARE-RULE-WRITE-COUNT: at the same start offset the higher of the two
    stays; writes of one leader can arrive out of order). Red team session 20's
    ``same-start-count-replaced``. Reached by SHARE-DRIVE-COUNT-KEPT-AT-START."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and start_offset == current["start_offset"]:
            return count
        return super().write_count(current, start_offset, count)

class FenceSurvivesDelete(ShareShard):
    """A zombie guard kept apart from the four maps: the highest leader epoch ever recorded for a
    key, which a delete does not clear, fences reads and writes, so after a delete and a fresh
    initialize a leader below the deleted key's fence is FENCED_LEADER_EPOCH where the fences
    were forgotten with the key (SHARE-RULE-REPLAY-TOMBSTONE; the new state starts at the
    initialize's leader epoch 0). Replay rebuilds the guard, so a reload agrees, and the
    observation shows the four maps only. Red team session 16's ``zombie-fence-survives-delete``.
    Reached by SHARE-DRIVE-FENCES-ACROSS-DELETE."""

    def reset(self) -> None:
        super().reset()
        self.highest_leader: dict[tuple[str, str, int], int] = {}

    def replay_maps(self, record: dict[str, Any]) -> None:
        super().replay_maps(record)
        if record["type"] != "ShareTombstone" and record["leader_epoch"] != NOT_SET:
            k = record["key"]
            self._raise_to(self.highest_leader, (k["group_id"], k["topic_id"], k["partition"]), record["leader_epoch"])

    def zombie(self, key: tuple[str, str, int], req: dict[str, Any]) -> bool:
        epoch = req["leader_epoch"]
        return key in self.offsets and epoch != NOT_SET and self.highest_leader.get(key, NOT_SET) > epoch

    def write_fenced(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[str, str] | None:
        return FENCED_LEADER if self.zombie(key, req) else super().write_fenced(key, req)

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if self.zombie(key, req):
            return [], self.response(req, *FENCED_LEADER)
        return super().on_ReadRequest(key, req)


class ReorderSnapshotCombinesAtRequestStart(ShareShard):
    """An out-of-order write (start offset below the stored one) that falls due for the limit
    snapshot keeps the stored start offset in the record, but its batches are combined at the
    request's start offset, so a batch below the stored start offset comes back
    (SHARE-RULE-WRITE-START-MONOTONE: combined and pruned at the higher one): the start offset
    clamped where the field is set, the raw one passed to the combiner. Red team session 15's
    ``reorder-limit-snapshot-keeps-low-batches``. Reached by SHARE-DRIVE-REORDER-SNAPSHOT."""

    def state_record(self, key: Any, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[list[int]], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        current = self.offsets.get(key)
        record = super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)
        if (record["type"] == "ShareSnapshot" and current is not None and start_offset != NOT_SET
                and start_offset < current["start_offset"]):
            record["state_batches"] = _batches_out(combine(start_offset, current["state_batches"], batches))
        return record


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-new-leader-read-records-without-topic", NewLeaderReadRecordsWithoutTopic,
     "a side effect made before the check that refuses the request"),
    ("share-count-unknown-start-kept", CountUnknownStartKept, "a -1 sentinel taken for \"no value\" in a comparison"),
    ("share-reinitialize-keeps-count-at-start", ReinitializeKeepsCountAtStart,
     "a reset that reuses an update's merge rule"),
    ("share-same-start-count-replaced", SameStartCountReplaced,
     "a newest-wins update where the rule keeps the maximum"),
    ("share-image-dropped-while-unloaded", ImageDroppedWhileUnloaded, "an update dropped by an inactive component"),
    ("share-update-tie-newer-wins", UpdateTieNewerWins, "a tie broken by recency, not by the rule's second key"),
    ("share-read-image-before-fence", ReadImageBeforeFence, "two checks in the wrong order on the read path"),
    ("share-fence-survives-delete", FenceSurvivesDelete, "a guard kept outside the state a delete clears"),
    ("share-reorder-snapshot-combines-at-request-start", ReorderSnapshotCombinesAtRequestStart,
     "a value clamped in one use and passed raw to the next"),
)


def _split_forgets_tail(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    """The reference combiner, then every offset past a higher-priority batch that lies strictly
    inside an earlier, wider one dropped where the wider batch alone held it (the split's third
    piece never emitted)."""
    out = combine(start_offset, current, new)
    listed = [*current, *new]
    dropped = {(o, outer[2], outer[3]) for i, outer in enumerate(listed) for inner in listed[i + 1:]
               if outer[0] < inner[0] and inner[1] < outer[1] and (inner[3], inner[2]) > (outer[3], outer[2])
               for o in range(inner[1] + 1, outer[1] + 1)}
    kept = [[o, o, st, n] for f, last, st, n in out for o in range(f, last + 1) if (o, st, n) not in dropped]
    return combine(NOT_SET, kept, [])


class InnerBatchDropsTail(ShareShard):
    """A batch of higher (count, state) strictly inside a stored wider one splits it into the
    head and the new batch, and the stored batch's tail past it is lost
    (SHARE-RULE-COMBINE-PRIORITY: per offset the maximum over every batch covering it). Red team
    session 18's ``inner-batch-drops-tail``. Reached by SHARE-DRIVE-INNER-BATCH."""

    combine = staticmethod(_split_forgets_tail)


class InitializeImageBeforeFence(ShareShard):
    """InitializeShareGroupState checks the metadata image before the state-epoch fence, so a
    stale initialize of a deleted topic's stored share-partition is UNKNOWN_TOPIC_OR_PARTITION,
    not FENCED_STATE_EPOCH (SHARE-RULE-METADATA-UPDATE: the fences come first). Red team session
    18's ``initialize-image-before-state-fence``. Reached by
    SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC."""

    def on_InitializeRequest(self, key: Any, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        return super().on_InitializeRequest(key, req)


def _standard_alphabet(key: str) -> str:
    """The coordinator key with its topic id (a Uuid's base64url form) written again in standard
    base64, unpadded: ``-`` becomes ``+`` and ``_`` becomes ``/``."""
    head, _, partition = key.rpartition(":")
    group, _, topic = head.rpartition(":")
    try:
        raw = base64.urlsafe_b64decode(topic + "==")
    except (binascii.Error, ValueError):
        return key
    if len(topic) != 22 or len(raw) != 16:
        return key
    return f"{group}:{base64.b64encode(raw).decode().rstrip('=')}:{partition}"


class RoutingStandardBase64(ShareShard):
    """The broker parses the coordinator key's topic id as a Uuid and formats it again with the
    standard base64 alphabet instead of ``Uuid.toString``'s base64url, so a topic id holding
    ``-`` or ``_`` is routed as another string (SHARE-RULE-KEY, SHARE-RULE-ROUTING). Red team
    session 18's ``routing-topic-id-std-alphabet``. Reached by
    SHARE-DRIVE-ROUTING-URLSAFE-TOPIC."""

    def route(self, key: str) -> int:
        return super().route(_standard_alphabet(key))


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-inner-batch-drops-tail", InnerBatchDropsTail, "an interval split that emits two of its three pieces"),
    ("share-initialize-image-before-fence", InitializeImageBeforeFence,
     "two checks in the wrong order on the group coordinator's path"),
    ("share-routing-standard-base64", RoutingStandardBase64, "an identifier re-encoded in a sibling alphabet"),
)


class ReadFenceFromStoredOffset(ShareShard):
    """The read path fences by the stored offset's leader epoch (what it is about to answer
    from), not by the leader-epoch fence: after an initialize writes leader epoch 0 below the
    fence, a leader between the two reads NONE and records its stale epoch
    (SHARE-RULE-READ-FENCE, SHARE-RULE-INITIALIZE-SNAPSHOT). Red team session 19's
    ``read-fence-from-stored-offset``. Reached by SHARE-DRIVE-REINIT-BELOW-STORED."""

    def on_ReadRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        current = self.offsets.get(key)
        if current is None:
            return [], self.response(req, *READ_UNINITIALIZED)
        if req["leader_epoch"] != NOT_SET and current["leader_epoch"] > req["leader_epoch"]:
            return [], self.response(req, *FENCED_LEADER)
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        response = self.response(req, state_epoch=current["state_epoch"], start_offset=current["start_offset"],
                                 state_batches=_batches_out(current["state_batches"]))
        return self.read_records(key, req, response, self.leader_epochs.get(key)), response


class InitializeStartMonotone(ShareShard):
    """SHARE-RULE-WRITE-START-MONOTONE applied to initialize too: a group coordinator's reset to
    an earlier start offset keeps the stored one, where only initialize may set a lower one. Red
    team session 19's ``initialize-start-monotone``. Reached by SHARE-DRIVE-REINIT-BELOW-STORED."""

    def initialize_record(self, key: tuple[str, str, int], req: dict[str, Any]) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is not None and req["start_offset"] != NOT_SET and req["start_offset"] < current["start_offset"]:
            req = {**req, "start_offset": current["start_offset"]}
        return super().initialize_record(key, req)


class StateFenceSurvivesDelete(ShareShard):
    """A state-epoch guard kept apart from the four maps (the highest state epoch a snapshot of
    the key carried, not cleared by a tombstone, rebuilt by replay) fences initializes, so a key
    deleted and initialized at a lower state epoch (a group created again under its id) is
    FENCED_STATE_EPOCH where the delete forgot the fence (SHARE-RULE-REPLAY-TOMBSTONE). Red team
    session 19's ``state-fence-survives-delete``. Reached by SHARE-DRIVE-STATE-EPOCH-ACROSS-DELETE."""

    def reset(self) -> None:
        super().reset()
        self.highest_state: dict[tuple[str, str, int], int] = {}

    def replay_maps(self, record: dict[str, Any]) -> None:
        super().replay_maps(record)
        if record["type"] == "ShareSnapshot":
            k = record["key"]
            self._raise_to(self.highest_state, (k["group_id"], k["topic_id"], k["partition"]), record["state_epoch"])

    def on_InitializeRequest(self, key: tuple[str, str, int], req: dict[str, Any]
                             ) -> tuple[list[Any], dict[str, Any]]:
        if req["state_epoch"] != NOT_SET and self.highest_state.get(key, NOT_SET) > req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        return super().on_InitializeRequest(key, req)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-read-fence-from-stored-offset", ReadFenceFromStoredOffset,
     "a guard read from the value it protects, not from its own record"),
    ("share-initialize-start-monotone", InitializeStartMonotone, "a fix applied to a path it was not for"),
    ("share-state-fence-survives-delete", StateFenceSurvivesDelete, "a guard kept outside the state a delete clears"),
)


class NegativeEpochSentinelOnly(ShareShard):
    """4.4's refusal of negative epochs written against the old sentinel alone (``epoch == -1``):
    any other negative epoch (Integer.MIN_VALUE) passes on to the fences, so a read or write at
    it is fenced or served and an initialize at it stores it (SHARE-VER-NEGATIVE-EPOCHS-REFUSED).
    Red team session 23's ``negative-epoch-sentinel-only``. Reached by SHARE-DRIVE-MIN-EPOCH."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        if not self.negative_epochs_refused or req["type"] not in ("WriteRequest", "ReadRequest",
                                                                    "InitializeRequest"):
            return None
        if req["type"] != "InitializeRequest" and req["leader_epoch"] == NOT_SET:
            return "The leader epoch cannot be a negative number."
        if req["type"] != "ReadRequest" and req["state_epoch"] == NOT_SET:
            return "The state epoch cannot be a negative number."
        return None


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-negative-epoch-sentinel-only", NegativeEpochSentinelOnly,
     "a range check written as an equality against the one value it used to mean"),
)


class ReorderDropsBatchesBelowHighest(ShareShard):
    """An out-of-order write taken for a late retry: a write whose start offset is below the
    highest start offset the key's records have carried (a map replayed like the fences, cleared
    by a tombstone) drops its batches that end below that offset ("acknowledged already: the
    newer write moved past them"). An initialize that lowers the start offset (an offsets reset
    to earlier) leaves the map, so the leader's first write from the new start offset loses its
    batches below the old one, while the start offset itself is stored right
    (SHARE-RULE-WRITE-START-MONOTONE, SHARE-RULE-INITIALIZE-SNAPSHOT). A slip beside red team
    session 23's ``start-clamp-survives-reinitialize``. Reached by SHARE-DRIVE-REINIT-BELOW-WRITE."""

    def reset(self) -> None:
        super().reset()
        self.start_high: dict[tuple[str, str, int], int] = {}

    def replay_maps(self, record: dict[str, Any]) -> None:
        super().replay_maps(record)
        k = record["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if record["type"] == "ShareTombstone":
            self.start_high.pop(key, None)
        elif record["start_offset"] != NOT_SET:
            self.start_high[key] = max(self.start_high.get(key, NOT_SET), record["start_offset"])

    def on_WriteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        high = self.start_high.get(key, NOT_SET)
        if req["start_offset"] != NOT_SET and req["start_offset"] < high:
            req = {**req, "state_batches": [b for b in req["state_batches"] if b["last_offset"] >= high]}
        return super().on_WriteRequest(key, req)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-reorder-drops-batches-below-highest", ReorderDropsBatchesBelowHighest,
     "a guard kept as a high-water mark that the one request allowed to lower it does not reset"),
)


class CountFromUnsetStartTaken(ShareShard):
    """KIP-1226's count from a write with start offset -1 ("not being written") judged as a
    count at the stored start offset, so the higher of the two stays: a count from -1 above the
    stored one is taken, where a count from below the stored start offset (and -1 is below every
    one) leaves it (SHARE-RULE-WRITE-COUNT). A slip beside red team session 23's
    ``count-after-start-resolved`` (which does the same for every start offset below the stored
    one, -1 resolved first). Reached by SHARE-DRIVE-COUNT-FROM-BELOW: only a stored count below
    the probe's 2 tells it from the reference (session 25: the first version, which took every
    count from -1, was caught without the probe by guided run 4)."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and start_offset == NOT_SET:
            return max(count, int(current["delivery_complete_count"]))
        return super().write_count(current, start_offset, count)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-count-from-unset-start-taken", CountFromUnsetStartTaken,
     "a sentinel read as 'the current value' instead of 'below every value'"),
)


class WriteBatchesLastWins(ShareShard):
    """One write's own overlapping batches combined in request order, the later batch taking an
    offset whatever its (count, state) ("a later entry of a request is the newer acknowledgement"),
    and only then combined with the stored batches by priority (SHARE-RULE-COMBINE-PRIORITY holds
    per offset within a write too). A slip beside red team session 23's
    ``write-batches-by-first-offset``. Reached by SHARE-DRIVE-SAME-FIRST-OFFSET."""

    def on_WriteRequest(self, key: tuple[str, str, int], req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        cells: dict[int, dict[str, Any]] = {}
        for b in req["state_batches"]:
            for o in range(b["first_offset"], b["last_offset"] + 1):
                cells[o] = {**b, "first_offset": o, "last_offset": o}
        batches = [cells[o] for o in sorted(cells)]
        return super().on_WriteRequest(key, {**req, "state_batches": batches})


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-write-batches-last-wins", WriteBatchesLastWins,
     "an order taken for a priority: the later entry of one request wins"),
)


class DeliveryCountInt8(ShareShard):
    """A state batch's delivery count narrowed to a signed byte (the int8 of ``DeliveryState``
    next to it) where the record's ``DeliveryCount`` is an int16: a count of 128 or more wraps
    negative and loses every offset it covers to a lower batch (SHARE-STATE-OFFSET,
    SHARE-INV-NO-LOSS). Red team session 24's ``delivery-count-as-int8``. Reached by
    SHARE-DRIVE-MAX-DELIVERY-COUNT."""

    def on_WriteRequest(self, key: Any, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        batches = [{**b, "delivery_count": (b["delivery_count"] + 128) % 256 - 128} for b in req["state_batches"]]
        return super().on_WriteRequest(key, {**req, "state_batches": batches})


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-delivery-count-int8", DeliveryCountInt8, "a field narrowed to the width of its neighbour"),
)


class UnsetStartNewestCount(ShareShard):
    """KIP-1226's count where the stored start offset and the write's are both -1 ("not being
    written"): the write's count taken as the newest ("nothing was measured from a start offset
    yet, so the latest word stands"), where the two start offsets are equal and the higher count
    stays (SHARE-RULE-WRITE-COUNT: writes of one leader may arrive out of order). A slip beside
    red team session 26's ``unset-start-count-short-circuit`` (the -1 case as an early exit that
    keeps the stored count). Reached by SHARE-DRIVE-COUNT-AT-UNKNOWN-START only: no other write
    sends a count with start offset -1 to a key stored with start offset -1."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and start_offset == NOT_SET == current["start_offset"]:
            return count
        return super().write_count(current, start_offset, count)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-unset-start-count-newest", UnsetStartNewestCount,
     "two sentinels taken for 'nothing measured' instead of equal values"),
)


class LosingInnerCutsOuter(ShareShard):
    """The combiner's containment case (a batch strictly inside another) written for the winning
    inner batch only: the outer batch is cut at ``inner.first - 1`` and the inner batch kept or
    dropped by priority, but where the inner batch loses, the outer's remainder
    ``[inner.first, outer.last]`` is never put back (SHARE-RULE-COMBINE-PRIORITY,
    SHARE-INV-NO-LOSS). Red team session 26's ``losing-inner-batch-cuts-outer``. Reached by
    SHARE-DRIVE-INNER-LOSER only: SHARE-DRIVE-INNER-BATCH's inner batch wins."""

    @staticmethod
    def combine(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
        items = sorted([*current, *new], key=lambda b: (b[0], -b[1]))
        kept: list[list[int]] = []
        for b in items:
            for i, a in enumerate(kept):
                if a[0] < b[0] and b[1] < a[1] and (b[3], b[2]) < (a[3], a[2]):
                    kept[i] = [a[0], b[0] - 1, a[2], a[3]]
                    break
            else:
                kept.append(b)
        return combine(start_offset, [], kept)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-losing-inner-cuts-outer", LosingInnerCutsOuter,
     "one branch of a case split written for the other outcome"),
)


class ZeroDeliveryCountDropped(ShareShard):
    """A write's state batches with delivery count 0 dropped before they are combined ("never
    delivered: nothing to persist"), where AVAILABLE with count 0 is a state a leader persists
    (a record acquired and released before delivery, its count decremented back:
    SHARE-STATE-OFFSET, SHARE-INV-NO-LOSS). Beside red team session 26's
    ``zero-count-available-as-gap``. Reached by SHARE-DRIVE-ZERO-DELIVERY-COUNT only: every
    other batch the driver writes has a count of 1 or more."""

    def on_WriteRequest(self, key: Any, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        batches = [b for b in req["state_batches"] if b["delivery_count"] != 0]
        return super().on_WriteRequest(key, {**req, "state_batches": batches})


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-zero-delivery-count-dropped", ZeroDeliveryCountDropped,
     "a zero value read as 'absent'"),
)


class ImageDeletionsOnly(ShareShard):
    """A MetadataUpdate applied as deletions only: the shard keeps the topic-partitions of the
    image it started with and drops those the new image lacks, but never takes one the new image
    adds (a topic created, or a partition added, after the coordinator started), so every request
    for it is UNKNOWN_TOPIC_OR_PARTITION (SHARE-RULE-METADATA-UPDATE: the new image replaces the
    one requests are validated against). Red team session 26's ``metadata-update-deletions-only``.
    Reached by SHARE-DRIVE-PARTITION-ADDED only: every other MetadataUpdate the driver sends
    deletes topic ``U``."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "MetadataUpdate" and self.image is not None:
            self.image &= {(t, p) for t, p in inp["image"]}
            return []
        return super().step(inp)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-image-deletions-only", ImageDeletionsOnly,
     "an update applied only in the direction the author had in mind"),
)


class GroupIdFromKeyString(ShareShard):
    """The state RPCs key their share-partition by the coordinator key string parsed back the
    way Kafka 4.0-4.2's ``SharePartitionKey.getInstance(String)`` did: ``split(":")``, exactly
    three fields, the group id trimmed. A group id holding ':' is refused as INVALID_REQUEST and
    a padded one stored as another group (SHARE-RULE-KEY: any non-empty group id, untrimmed).
    Red team session 28's ``state-key-parsed-from-string``; reached by
    SHARE-DRIVE-ODD-GROUP-STATE only: the routing probes send such group ids to FindCoordinator
    alone."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] in RESPONSE_OF and self.active and self.basic_error(inp) is None:
            tokens = f"{inp['group_id']}:{inp['topic_id']}:{inp['partition']}".split(":")
            if len(tokens) != 3:
                return [self.response(inp, "INVALID_REQUEST", "Invalid key format")]
            inp = {**inp, "group_id": tokens[0].strip()}
        return super().step(inp)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-group-id-from-key-string", GroupIdFromKeyString,
     "the key rebuilt from its string form by a parser that splits at every ':'"),
)


class StartOffsetInt32(ShareShard):
    """The stored start offset kept in a Java ``int``: the replay narrows a record's start offset
    (an int64, as every Kafka offset) to 32 bits, so a share-partition past 2^31 records stores a
    negative start offset (SHARE-STATE-OFFSET). Red team session 28's ``start-offset-as-int32``;
    reached by SHARE-DRIVE-WIDE-START-OFFSET only: every other offset the driver sends is small."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        start = record.get("start_offset", NOT_SET)
        if record["type"] in ("ShareSnapshot", "ShareUpdate") and start != NOT_SET:
            narrowed = start & 0xFFFFFFFF
            record = {**record, "start_offset": narrowed - 2**32 if narrowed >= 2**31 else narrowed}
        super().replay_maps(record)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-start-offset-int32", StartOffsetInt32,
     "a 64-bit offset kept in a 32-bit field"),
)


def _combine_bridging_gaps(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    """``combine``, then a merge pass that joins each batch to the one before it when their
    (state, count) are equal, without testing that their offsets touch."""
    out: list[list[int]] = []
    for batch in ShareShard.combine(start_offset, current, new):
        if out and out[-1][2:] == batch[2:]:
            out[-1][1] = max(out[-1][1], batch[1])
        else:
            out.append(list(batch))
    return out


class MergeBridgesGap(ShareShard):
    """The combiner's merge pass joins neighbours of one delivery state and count whether or not
    their offsets touch, so two equal batches with a gap between them are stored as one and the
    gap's offsets, which no batch covered, as delivered (SHARE-RULE-COMBINE-MERGE: only
    overlapping or contiguous batches merge). Red team session 29's
    ``equal-neighbours-bridge-gap``; reached by SHARE-DRIVE-GAPPED-BATCHES only: every other write
    of the driver is one batch or batches that touch."""

    combine = staticmethod(_combine_bridging_gaps)


SHARE_MUTANTS = (
    *SHARE_MUTANTS,
    ("share-merge-bridges-gap", MergeBridgesGap,
     "a merge that tests the values it joins but not that the ranges touch"),
)
