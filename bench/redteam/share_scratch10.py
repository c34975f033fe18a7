"""Session 18's blind red-team share shard ("blindshare"): eight slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``, which answers
FindCoordinator and reports its redundant offset), written from spec/share.md,
docs/adapter-guide.md and Kafka's ``ShareCoordinatorShard`` / ``PersisterStateBatchCombiner`` /
``SharePartitionKey`` alone, the driver, the model and the mutant catalogue unread (the earlier
red-team modules read for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks and why an implementer slips there. They aim at territory the earlier rounds left
alone: a higher-priority batch strictly inside a stored one (the combiner's three-way split),
ties on the delivery count between different states, an initialize of a deleted topic's stale
state epoch, a read of a never-initialized key of a topic the image lacks, the topic id re-encoded
on the FindCoordinator path, a snapshot epoch counted by the handler and lost at fail-over, the
leader-epoch fence rebuilt from snapshots only, and the redundant offset after the last stored
key's delete.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch10:Correct
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_STATE,
    NOT_SET,
    READ_UNINITIALIZED,
    STATE_PARTITIONS,
    UNKNOWN_TP,
    ShareShard,
    ShareTarget,
    combine,
    java_hash,
)

Key = tuple[str, str, int]
Batch = list[int]


def _per_offset(batches: list[Batch]) -> dict[int, tuple[int, int]]:
    """Offset -> (state, count) of already combined (non-overlapping) batches."""
    return {o: (s, c) for f, last, s, c in batches for o in range(f, last + 1)}


def _rebuild(per_offset: dict[int, tuple[int, int]]) -> list[Batch]:
    """Maximal runs again (the reference combiner with no start offset merges equal neighbours)."""
    return combine(NOT_SET, [[o, o, s, c] for o, (s, c) in sorted(per_offset.items())], [])


# ---------------------------------------------------------------------------- bugs


def _combine_drops_tail(start: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
    """``combine`` whose split of an outer batch by a higher-priority inner one keeps the head and
    the inner batch but not the outer batch's tail after it."""
    out = combine(start, current, new)
    batches = [*current, *new]
    lost: dict[int, tuple[int, int]] = {}
    for i, (f1, l1, s1, c1) in enumerate(batches):
        for f2, l2, s2, c2 in batches[i + 1:]:
            if f1 < f2 and l2 < l1 and (c2, s2) > (c1, s1):
                for o in range(l2 + 1, l1 + 1):
                    lost[o] = (s1, c1)
    if not lost:
        return out
    per = _per_offset(out)
    for o, value in lost.items():
        if per.get(o) == value:  # the tail came from the outer batch alone
            del per[o]
    return _rebuild(per)


class InnerBatchDropsTail(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY ("the result on each offset is the maximum over every batch
    covering it"): where a batch of higher (count, state) lies strictly inside a stored one (a
    redelivery or acknowledgement of a few records in the middle of a larger AVAILABLE range),
    the combiner splits the outer batch into its head and the inner batch and forgets the outer
    batch's tail after the inner one, as a TreeSet walk that emits ``[outer.first, inner.first -
    1]`` and then moves on to the next batch does. Only a range of three or more offsets with a
    write inside it tells it apart: an overlap at either end leaves nothing after the inner
    batch. Needs a stored multi-offset batch, then a write strictly inside it."""

    combine = staticmethod(_combine_drops_tail)


def _combine_equal_count_first_wins(start: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
    """``combine`` comparing delivery counts only: on equal counts the batch listed first (the
    stored one, then the request's in order) keeps the offset."""
    best: dict[int, tuple[int, int]] = {}
    for first, last, state, count in [*current, *new]:
        for o in range(first, last + 1):
            if start != NOT_SET and o < start:
                continue
            if o not in best or count > best[o][1]:
                best[o] = (state, count)
    return _rebuild(best)


class EqualCountFirstWins(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY ("the higher (delivery count, delivery state) wins, compared
    lexicographically"): the combiner compares delivery counts only ("a record delivered more often
    is newer") and on a tie keeps the batch it saw first, the stored one. So an acknowledgement or
    archive of records at the count they were delivered with (AVAILABLE x1 stored, then
    ACKNOWLEDGED x1 or ARCHIVED x1 written: a leader that releases and acknowledges within one
    delivery) is lost, where the terminal state wins in Kafka's ``compareBatchDeliveryInfo``. An
    implementer slips here because counts grow with every delivery, so a tie looks impossible.
    Needs a stored batch, then a write of its offsets at the same count in a higher state."""

    combine = staticmethod(_combine_equal_count_first_wins)


class InitializeImageBeforeStateFence(ShareShard):
    """SHARE-RULE-VALIDATE-STATE-FENCE before SHARE-RULE-VALIDATE-UNKNOWN-TOPIC (a deleted
    topic's stored state stays, and "every request for it is UNKNOWN_TOPIC_OR_PARTITION after the
    checks that come first (uninitialized, fences)"): InitializeShareGroupState checks the metadata
    image first, so a stale initialize (a state epoch below the stored fence, a group coordinator
    that lost an offsets reset race) of a share-partition whose topic was deleted is answered
    UNKNOWN_TOPIC_OR_PARTITION instead of FENCED_STATE_EPOCH. The implementer validated "does the
    partition exist" up front, as a group coordinator request, not a leader's. Needs a key stored
    at a state epoch above another, its topic deleted, then an initialize at the lower epoch."""

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if not self.hosts(key):
            return [], self.response(req, *UNKNOWN_TP)
        stored_state = self.state_epochs.get(key)
        if req["state_epoch"] != NOT_SET and stored_state is not None and stored_state > req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        return [self.initialize_record(key, req)], self.response(req)


class ReadImageBeforeUninitialized(ShareShard):
    """SHARE-VER-UNINITIALIZED-REFUSED ("checked after the null-topic and negative-partition checks
    and before the fences and the metadata image"): a read of a key with no state first asks
    whether the image has the topic-partition (a friendlier error, "there is nothing to
    initialize"), so a read of a never-initialized or deleted share-partition whose topic is gone
    (or whose partition never existed) is answered UNKNOWN_TOPIC_OR_PARTITION instead of
    INVALID_REQUEST. Stored keys keep the fence-first order. Needs a read of a key with no state
    whose topic-partition the image lacks."""

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key not in self.offsets:
            if not self.hosts(key):
                return [], self.response(req, *UNKNOWN_TP)
            return [], self.response(req, *READ_UNINITIALIZED)
        return super().on_ReadRequest(key, req)


def _std_alphabet(topic_id: str) -> str:
    """A ``Uuid`` string decoded and written again with the standard base64 alphabet (``+/``),
    unpadded, where ``Uuid.toString`` uses the URL-safe one (``-_``)."""
    if len(topic_id) != 22:
        return topic_id
    try:
        raw = base64.urlsafe_b64decode(topic_id + "==")
    except (binascii.Error, ValueError):
        return topic_id
    return base64.b64encode(raw).decode().rstrip("=") if len(raw) == 16 else topic_id


class RoutingTopicIdStdAlphabet(ShareShard):
    """SHARE-RULE-KEY ("the topic id is written as the Uuid string form (base64url)"),
    SHARE-RULE-ROUTING: the broker recovers the share-partition from the key string
    (``SharePartitionKey.getInstance``: ``Uuid.fromString``) and routes the key it formats again
    (``topicId.toString()``); the port decodes the topic id and formats it back with Python's
    ``base64.b64encode`` (``+`` and ``/``) minus the padding, so a topic id holding ``-`` or ``_``
    (about half of all random Uuids) hashes as another string and its share-partitions are routed
    to another ``__share_group_state`` partition. Equal for every Uuid whose string has neither
    character. Needs FindCoordinator for a topic id holding ``-`` or ``_``."""

    def route(self, key: str) -> int:
        found = self.parse_key(key)
        if found is None:
            return super().route(key)
        group, topic, partition = found
        h = java_hash(f"{group}:{_std_alphabet(topic)}:{partition}")
        return (0 if h == -(2**31) else abs(h)) % STATE_PARTITIONS


class SnapshotEpochNotReplayed(ShareShard):
    """SHARE-REC-SNAPSHOT / SHARE-RULE-RECORD-LIMIT-SNAPSHOT ("snapshot epoch + 1"),
    SHARE-RULE-INITIALIZE-SNAPSHOT ("the next one"), SHARE-RULE-LOAD: the handler numbers the
    snapshots of a key from a counter of its own (the next snapshot epoch per key, bumped each
    time it writes one, dropped with the key at a delete), not from the stored offset, and replay
    does not rebuild the counter. Before a fail-over every epoch is right; after it the next limit
    snapshot or re-initialize of a key whose snapshot epoch had passed 0 starts again at 1. An
    implementer slips here because the counter is "handler bookkeeping", like the update count's
    cadence. Needs a key's second snapshot (a limit snapshot or a re-initialize), a fail-over,
    then another snapshot of that key."""

    def reset(self) -> None:
        super().reset()
        self.next_snapshot_epoch: dict[Key, int] = {}

    def renumber(self, key: Key, record: dict[str, Any]) -> dict[str, Any]:
        if record["type"] == "ShareSnapshot" and key in self.offsets:
            epoch = self.next_snapshot_epoch.get(key, 1)
            self.next_snapshot_epoch[key] = epoch + 1
            return {**record, "snapshot_epoch": epoch}
        if record["type"] == "ShareSnapshot":
            self.next_snapshot_epoch[key] = record["snapshot_epoch"] + 1
        return record

    def state_record(self, key: Key, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[Batch], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        return self.renumber(key, super().state_record(key, leader_epoch, state_epoch, start_offset, batches,
                                                       from_read, count))

    def initialize_record(self, key: Key, req: dict[str, Any]) -> dict[str, Any]:
        return self.renumber(key, super().initialize_record(key, req))

    def on_DeleteRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_DeleteRequest(key, req)
        if records:
            self.next_snapshot_epoch.pop(key, None)
        return records, response


class UpdateFenceNotReplayed(ShareShard):
    """SHARE-RULE-REPLAY-UPDATE ("the leader-epoch fence takes the maximum"), SHARE-RULE-LOAD: the
    read handler raises the leader-epoch fence itself when it records a new leader epoch, and the
    loader rebuilds the fence from ShareSnapshots only ("the fence is the zombie guard of the live
    shard; a snapshot holds the epochs"), so a read's ShareUpdate replayed at fail-over leaves the
    fence at the last snapshot's leader epoch: the new shard accepts the fenced leader's writes.
    Live, every answer is right. Needs a read at a new leader epoch written as a ShareUpdate, then
    a fail-over (and a stale leader's request)."""

    loading = False

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "Load":
            self.loading = True
            try:
                return super().step(inp)
            finally:
                self.loading = False
        return super().step(inp)

    def replay_update(self, key: Key, record: dict[str, Any]) -> None:
        had, fence = key in self.leader_epochs, self.leader_epochs.get(key)
        super().replay_update(key, record)
        if self.loading:
            if had and fence is not None:
                self.leader_epochs[key] = fence
            else:
                self.leader_epochs.pop(key, None)


class RedundantForgetBeforeMin(ShareShard):
    """SHARE-RULE-REDUNDANT-OFFSET ("the redundant offset becomes the lowest offset held, the
    record's own included; a tombstone's key is then forgotten ... with no share-partition stored,
    the last tombstone's"): the offsets manager forgets a tombstone's key first and then takes the
    lowest offset still held, keeping the previous value when none is held, so a delete of the
    last stored share-partition leaves the redundant offset at that key's snapshot instead of
    passing it to the tombstone (everything below it is superseded). While another key is stored
    the two orders agree. Needs every stored share-partition deleted (the last one with a
    snapshot past the previous redundant offset)."""

    def track_redundant(self, key: Key, kind: str) -> None:
        if kind == "ShareUpdate":
            return
        if kind == "ShareTombstone":
            self.snapshot_at.pop(key, None)
            if self.snapshot_at:
                self.redundant = min(self.snapshot_at.values())
            return
        self.snapshot_at[key] = self.log_end
        self.redundant = min(self.snapshot_at.values())


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch10:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "inner-batch-drops-tail": InnerBatchDropsTail,
    "equal-count-first-wins": EqualCountFirstWins,
    "initialize-image-before-state-fence": InitializeImageBeforeStateFence,
    "read-image-before-uninitialized": ReadImageBeforeUninitialized,
    "routing-topic-id-std-alphabet": RoutingTopicIdStdAlphabet,
    "snapshot-epoch-not-replayed": SnapshotEpochNotReplayed,
    "update-fence-not-replayed": UpdateFenceNotReplayed,
    "redundant-forget-before-min": RedundantForgetBeforeMin,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
