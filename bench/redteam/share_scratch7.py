"""Session 15's blind red-team share shard ("outsidera"): eight slips over session 8's from-scratch
shard (``share_scratch.Shard``, ``Node``, ``Correct``), written from spec/share.md,
docs/adapter-guide.md and Kafka's ``ShareCoordinatorShard`` / ``PersisterStateBatchCombiner``
alone, the driver, the model and the other red-team modules unread.

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks and why an implementer slips there. They favour inputs a well-behaved actor
rarely sends and long sequences: ties in the combiner, a topic deleted while the shard is
unloaded, stale requests for a deleted topic's state, several keys' snapshot epochs, a
re-initialize with an unknown start offset, KIP-1226's count through a read's limit snapshot,
an out-of-order write's batches at a limit snapshot.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch7:Correct
"""

from __future__ import annotations

import itertools
from typing import Any

from kspec.conformance.adapters.base import StepResult
from redteam._targets import attribute_target, register
from redteam.share_scratch import NONE, UNKNOWN, Batch, Key, Node, Shard, _batches_in, _batches_json, _key_json, combine
from redteam.share_scratch import Correct as _Correct


class Shard7(Shard):
    """The bug-free shard; ``takes_image`` is the hook the unloaded-image slip overrides."""

    def takes_image(self) -> bool:
        """Whether a MetadataUpdate reaches this shard now (always: SHARE-RULE-METADATA-UPDATE)."""
        return True


class Node7(Node):
    """``share_scratch.Node`` asking its shard whether it takes a MetadataUpdate."""

    def step(self, inp: dict[str, Any]) -> StepResult:
        shard = self.shard
        if inp["type"] == "MetadataUpdate" and isinstance(shard, Shard7) and not shard.takes_image():
            return StepResult(outputs=[], observation=shard.observe())
        return super().step(inp)


class Correct(_Correct):
    """The bug-free target over :class:`Shard7` (judged by the newest rule set, 4.4)."""

    shard: type[Shard] = Shard7

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        base = super().start(node, config)
        return Node7(base.shard, base.config_image)


def _newer_wins(start: int, old: list[Batch], new: list[Batch]) -> list[Batch]:
    """Per offset: the new batches' best (count, state) wherever its count is at least the old
    one's, else the old one's; then the ordinary combine for pruning and maximal runs."""
    every = old + new
    cuts = sorted({f for f, _, _, _ in every} | {last + 1 for _, last, _, _ in every})
    pieces: list[Batch] = []
    for lo, hi in itertools.pairwise(cuts):
        o = [(c, s) for f, last, s, c in old if f <= lo and hi - 1 <= last]
        n = [(c, s) for f, last, s, c in new if f <= lo and hi - 1 <= last]
        if not o and not n:
            continue
        c, s = max(n) if n and (not o or max(n)[0] >= max(o)[0]) else max(o)
        pieces.append((lo, hi - 1, s, c))
    return combine(start, pieces)


class EqualCountNewerWins(Shard7):
    """SHARE-RULE-COMBINE-PRIORITY: replaying a ShareUpdate, an update batch wins wherever its
    delivery count is at least the stored one's, so at an equal count a lower delivery state
    (AVAILABLE over ACKNOWLEDGED or ARCHIVED) replaces a higher one. The implementer followed
    the brief's "new batches win" and broke ties by recency, where Kafka's
    ``compareBatchDeliveryInfo`` orders by count, then state, whichever list a batch came from.
    Needs an update (snapshot limit >= 1) whose batch overlaps a stored one at the same count
    in a lower state: the actors' menu pairs AVAILABLE with count 1 and ACKNOWLEDGED with 2."""

    def replay(self, rec: dict[str, Any]) -> None:
        if rec["type"] != "ShareUpdate":
            super().replay(rec)
            return
        k = rec["key"]
        cur = self.offsets[(k["group_id"], k["topic_id"], k["partition"])]
        start = cur.start_offset if rec["start_offset"] == -1 else rec["start_offset"]
        cur.batches = _newer_wins(start, cur.batches, _batches_in(rec["state_batches"]))
        super().replay({**rec, "state_batches": []})  # epochs, start, count, update count as usual


class DeleteSkipsImageForStored(Shard7):
    """SHARE-RULE-VALIDATE-UNKNOWN-TOPIC (every handler), SHARE-RULE-METADATA-UPDATE: a delete of
    a key with stored state skips the metadata-image check, so once its topic is deleted from
    the image the group coordinator's delete writes a tombstone and answers NONE where Kafka's
    ``maybeGetDeleteStateError`` answers UNKNOWN_TOPIC_OR_PARTITION and keeps the state. The
    implementer reasoned that cleaning up after a deleted topic must always work. Needs a
    stored ``g:U:0``, the MetadataUpdate deleting ``U``, then a delete of ``g:U:0``."""

    def on_delete(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.minor >= 1 and key in self.offsets:
            return [{"type": "ShareTombstone", "key": _key_json(key)}], NONE
        return super().on_delete(key, req)


class ImageDroppedWhileUnloaded(Shard7):
    """SHARE-RULE-METADATA-UPDATE, SHARE-STATE-IMAGE: a MetadataUpdate that arrives while the
    shard is unloaded is dropped (an inactive shard "processes nothing"), so the shard loaded
    after the fail-over validates against the image from before it: a topic deleted meanwhile is
    still known and its stored state answered, where a shard loaded later validates against the
    image as it is then. Needs ``Unload``, the MetadataUpdate deleting ``U``, ``Load``, then a
    request for ``g:U:0`` (the observation holds no image)."""

    def takes_image(self) -> bool:
        return self.active


class SnapshotEpochShardWide(Shard7):
    """SHARE-RULE-RECORD-LIMIT-SNAPSHOT, SHARE-INV-KEY-ISOLATION: a limit snapshot's snapshot
    epoch is one above the highest snapshot epoch of *any* stored share-partition, not of its
    own key: the implementer took the snapshot epoch for a counter of the coordinator partition
    (it is "snapshot epoch + 1" of the key's ShareGroupOffset). Initialize still counts per
    key. Needs two keys whose snapshot epochs differ and a limit snapshot of the one behind."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if rec["type"] == "ShareSnapshot" and key in self.offsets:
            rec["snapshot_epoch"] = 1 + max(o.snapshot_epoch for o in self.offsets.values())
        return rec


class InitializeUnsetStartKeepsStored(Shard7):
    """SHARE-RULE-INITIALIZE-SNAPSHOT (the start offset is the request's), SHARE-RULE-INITIALIZE-COUNT:
    re-initializing a stored key with start offset -1 keeps the stored start offset (and so
    counts from it: count 0), because the implementer read -1 as "not being written" as in a
    write (SHARE-RULE-WRITE-MINUS-ONE). Initialize is a fresh start: start offset -1 and count
    -1. Needs a key initialized with a known start offset, then initialized again with -1 (the
    driver's -1 initialize is for ``g:T:1``)."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        records, err = super().on_initialize(key, req)
        cur = self.offsets.get(key)
        if err == NONE and req["start_offset"] == -1 and cur is not None and cur.start_offset != -1:
            records[0] |= {"start_offset": cur.start_offset,
                           "delivery_complete_count": 0 if self.minor >= 2 else -1}
        return records, err


class ReadLimitSnapshotCountUnset(Shard7):
    """SHARE-RULE-WRITE-COUNT ("a read that records a leader epoch writes the stored count"),
    SHARE-REC-DELIVERY-COMPLETE-COUNT: when a read that records a new leader epoch falls due for
    a limit snapshot, the snapshot is built from the request, and ReadShareGroupState carries no
    count, so the snapshot holds -1 and the stored count (0 after an initialize with a known
    start offset) is lost. The update path copies the stored count; only the snapshot slips.
    Needs a recording read at the snapshot cadence's limit (every one at limit 0) on 4.2+."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if not write and rec["type"] == "ShareSnapshot":
            rec["delivery_complete_count"] = -1
        return rec


class ReorderLimitSnapshotKeepsLowBatches(Shard7):
    """SHARE-RULE-WRITE-START-MONOTONE ("the batches are combined and pruned at" the higher start
    offset), SHARE-RULE-COMBINE-PRUNE: an out-of-order write whose start offset is below the
    stored one keeps the stored start offset, but when it falls due for a limit snapshot its
    batches are combined at the *request's* start offset, so batches below the stored start
    offset come back into the snapshot (and the observed state). The implementer clamped the
    start offset where the record's field is set and passed the raw one to the combiner. Needs
    the reorder write at a snapshot's turn carrying a batch below the stored start offset."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        cur = self.offsets.get(key)
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if (write and cur is not None and rec["type"] == "ShareSnapshot" and start != -1
                and start < cur.start_offset):
            rec["state_batches"] = _batches_json(combine(start, cur.batches, new))
        return rec


class ReadImageBeforeLeaderFence(Shard7):
    """SHARE-RULE-METADATA-UPDATE ("UNKNOWN_TOPIC_OR_PARTITION after the checks that come first
    (uninitialized, fences)"), SHARE-RULE-READ-FENCE: a read checks the metadata image before the
    leader-epoch fence, so a stale leader's read of a share-partition whose topic was deleted is
    answered UNKNOWN_TOPIC_OR_PARTITION, not FENCED_LEADER_EPOCH. The write path has the order
    right (its stale-state-epoch case is the one the docs list); the implementer wrote the read
    path apart. Needs ``g:U:0`` stored with a leader-epoch fence above the read's epoch, ``U``
    deleted, then the stale read."""

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        le = req["leader_epoch"]
        unset_ok = self.minor < 4 or le >= 0
        if (unset_ok and key in self.offsets and le != -1 and self.leader_fence.get(key, -1) > le
                and not self.known(req)):
            return [], UNKNOWN
        return super().on_read(key, req)


CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[Shard7]] = {
    "equal-count-newer-wins": EqualCountNewerWins,
    "delete-skips-image-for-stored": DeleteSkipsImageForStored,
    "image-dropped-while-unloaded": ImageDroppedWhileUnloaded,
    "snapshot-epoch-shard-wide": SnapshotEpochShardWide,
    "initialize-unset-start-keeps-stored": InitializeUnsetStartKeepsStored,
    "read-limit-snapshot-count-unset": ReadLimitSnapshotCountUnset,
    "reorder-limit-snapshot-keeps-low-batches": ReorderLimitSnapshotKeepsLowBatches,
    "read-image-before-leader-fence": ReadImageBeforeLeaderFence,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("shard"))
