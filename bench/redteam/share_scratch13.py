"""Session 21's blind red-team share shard ("blindshare2"): six slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md's rule names, docs/adapter-guide.md, KIP-932 and Kafka's ``ShareCoordinatorShard``
alone, the driver, the model and the mutant catalogue unread (the earlier red-team modules read
for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one method, its docstring naming the rule it
breaks, why an implementer slips there and what it needs to show. They aim at edges the earlier
rounds left alone: a batch whose inclusive last offset *equals* the start offset, the cadence
count reset by any snapshot of a counted key (a re-initialize), an unloaded shard validating the
request before its ``isActive`` check, the redundant offset taken over the group's own keys
only (two groups in one shard), a delete of an unknown key still writing a tombstone, and a
re-loaded shard numbering the replayed log on from where the old one stopped.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch13:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import (
    NOT_AVAILABLE,
    NOT_SET,
    ShareShard,
    ShareTarget,
)
from kspec.conformance.targets.reference.share import combine as _combine

Key = tuple[str, str, int]
Batch = list[int]


# ---------------------------------------------------------------------------- bugs


class ClipDropsBatchEndingAtStart(ShareShard):
    """SHARE-RULE-COMBINE-CLIP ("a batch the start offset cuts keeps [start, last]"): the
    implementer reads the last offset as exclusive when pruning below the start offset and drops
    every batch with ``last_offset <= start_offset`` before combining, so a batch that ends
    exactly on the start offset loses its one offset that is still in flight (a delivery count of
    the first acquirable record forgotten). Needs a stored or written batch whose last offset is
    the (new or stored) start offset, e.g. batches [5, 9], then a write with start offset 9."""

    @staticmethod
    def combine(start_offset: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
        if start_offset != NOT_SET:
            current = [b for b in current if b[1] > start_offset]
            new = [b for b in new if b[1] > start_offset]
        return _combine(start_offset, current, new)


class ReinitializeResetsUpdateCount(ShareShard):
    """SHARE-RULE-REPLAY-SNAPSHOT / SHARE-RULE-SNAPSHOT-CADENCE ("the update count resets to 0
    only if it is present and at the limit"): the implementer reads "a snapshot starts a new
    run of updates" and zeroes a present count on every snapshot, so the snapshot of a
    re-initialize (below the limit) restarts the cadence and the limit snapshot comes late. Needs
    an initialize, some writes (fewer than the snapshot limit), a re-initialize of the same key,
    then the update count observed or writes up to the limit."""

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        counted = key in self.update_counts
        super().replay_snapshot(key, record)
        if counted:
            self.update_counts[key] = 0


class UnloadedValidatesFirst(ShareShard):
    """SHARE-RULE-COORDINATOR-NOT-AVAILABLE (the service's ``isActive`` check comes before any
    request validation): the implementer moved the cheap field checks (null topic id, negative
    partition; from 4.4 negative epochs) in front of the shard lookup, so an unloaded shard
    answers a malformed request INVALID_REQUEST instead of COORDINATOR_NOT_AVAILABLE. Needs an
    Unload, then a request with a null topic id, a negative partition or a negative epoch."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if not self.active and inp.get("type") in ("WriteRequest", "ReadRequest", "InitializeRequest",
                                                   "DeleteRequest", "ReadSummaryRequest"):
            error = self.basic_error(inp) or self.negative_epoch_error(inp)
            if error is not None:
                return [self.response(inp, "INVALID_REQUEST", error)]
            return [self.response(inp, *NOT_AVAILABLE)]
        return super().step(inp)


class RedundantPerGroup(ShareShard):
    """SHARE-RULE-REDUNDANT-OFFSET ("the lowest held offset is the redundant one", over every key
    of the coordinator partition): the implementer takes the minimum over the keys of the group
    whose record was just replayed ("a group's partitions are pruned together"), so with two
    groups in one shard a snapshot of the second group's key moves the redundant offset past the
    first group's snapshot that is still needed. Needs two groups hashed to the same shard, the
    first's initialize before the second's, then the redundant offset observed."""

    def track_redundant(self, key: Key, kind: str) -> None:
        if kind == "ShareUpdate":
            return
        self.snapshot_at[key] = self.log_end
        self.redundant = min(v for k, v in self.snapshot_at.items() if k[0] == key[0])
        if kind == "ShareTombstone":
            del self.snapshot_at[key]


class DeleteUnknownWritesTombstone(ShareShard):
    """SHARE-RULE-DELETE ("appends a tombstone when the key has state, and nothing otherwise"):
    the implementer makes delete idempotent by writing the tombstone unconditionally ("a
    tombstone for a missing key is harmless"), so a delete of a key never initialized, or a second
    delete of the same key, appends a record (and moves the redundant offset when no other key
    holds a snapshot). Needs a delete of a hosted key that has no state: a delete twice, or a
    delete before the initialize."""

    def on_DeleteRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_DeleteRequest(key, req)
        if not records and response["error"] == "NONE":
            records = [{"type": "ShareTombstone", "key": self.key_json(key)}]
        return records, response


class LoadContinuesLogEnd(ShareShard):
    """SHARE-RULE-LOAD ("a new shard starts empty and replays the partition's log in order"): the
    implementer clears the four maps on Load but keeps the log bookkeeping (the next offset, the
    per-key snapshot offsets), taking the offset as a counter of the broker rather than a position
    in the partition, so after a fail-over the replayed records are numbered on from where the old
    shard stopped and the redundant offset points past records still needed. Needs records, an
    Unload and a Load of the log, then the redundant offset observed (a snapshot after the Load)."""

    def reset(self) -> None:
        log_end = getattr(self, "log_end", 0)
        snapshot_at = dict(getattr(self, "snapshot_at", {}))
        super().reset()
        self.log_end = log_end
        self.snapshot_at = snapshot_at


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch13:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "clip-drops-batch-ending-at-start": ClipDropsBatchEndingAtStart,
    "reinitialize-resets-update-count": ReinitializeResetsUpdateCount,
    "unloaded-validates-first": UnloadedValidatesFirst,
    "redundant-per-group": RedundantPerGroup,
    "delete-unknown-writes-tombstone": DeleteUnknownWritesTombstone,
    "load-continues-log-end": LoadContinuesLogEnd,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
