"""KIP-932 share-group state coordinator shards with planted bugs, over the plain-dict
reference shard."""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_STATE,
    NOT_SET,
    ShareShard,
    ShareTarget,
)

Key = tuple[str, str, int]


class InitializeEqualEpochFenced(ShareShard):
    """Stale versus equal epoch: an InitializeRequest whose state epoch equals the stored one is
    fenced (``>=``), where only an older one is."""

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        stored_state = self.state_epochs.get(key)
        if req["state_epoch"] != NOT_SET and stored_state is not None and stored_state >= req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        return super().on_InitializeRequest(key, req)


class DeleteKeepsFence(ShareShard):
    """Cache not invalidated after delete: the tombstone removes the offsets but the fences
    (leader and state epoch) and the update count stay, so a re-initialized key is fenced by
    the deleted one's epochs."""

    def replay(self, record: dict[str, Any]) -> None:
        if record["type"] == "ShareTombstone":
            k = record["key"]
            self.offsets.pop((k["group_id"], k["topic_id"], k["partition"]), None)
            return
        super().replay(record)


class SummaryReportsFence(ShareShard):
    """ReadShareGroupStateSummary answers with the leader-epoch *fence* instead of the stored
    state's leader epoch (two fields of the same name)."""

    def on_ReadSummaryRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        records, response = super().on_ReadSummaryRequest(key, req)
        if response["error"] == "NONE" and key in self.leader_epochs:
            response = {**response, "leader_epoch": self.leader_epochs[key]}
        return records, response


class MergeIgnoresCount(ShareShard):
    """The batch combiner merges neighbouring offsets of the same delivery state whatever their
    delivery counts (the count of the first wins)."""

    @staticmethod
    def combine(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
        best: dict[int, tuple[int, int]] = {}
        for first, last, state, count in [*current, *new]:
            for o in range(first, last + 1):
                if start_offset != NOT_SET and o < start_offset:
                    continue
                if o not in best or (count, state) > best[o]:
                    best[o] = (count, state)
        out: list[list[int]] = []
        for o in sorted(best):
            count, state = best[o]
            if out and out[-1][1] == o - 1 and out[-1][2] == state:
                out[-1][1] = o
            else:
                out.append([o, o, state, count])
        return out


class UnknownPartitionAfterInit(ShareShard):
    """Order of checks: a write to a partition the metadata image does not hold is checked for
    initialization first, so it is answered INVALID_REQUEST instead of
    UNKNOWN_TOPIC_OR_PARTITION — and a read of such a partition is served from stored state."""

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key in self.offsets and not self.hosts(key):
            current = self.offsets[key]
            return [], self.response(req, state_epoch=current["state_epoch"], start_offset=current["start_offset"],
                                     state_batches=[])
        return super().on_ReadRequest(key, req)

    def hosts(self, key: Key) -> bool:
        return self.image is None or (key[1], key[2]) in self.image


class ReadUnsetEpochWrites(ShareShard):
    """A -1 sentinel taken as a value: a read with leader epoch -1 (not set) differs from the
    stored epoch, so it writes a record "recording" the new leader epoch."""

    # From 4.4 a read with -1 is refused before this code runs (SHARE-VER-NEGATIVE-EPOCHS-REFUSED),
    # so the bug can only show in a shard of the 4.1-4.3 rules: this one implements 4.3's.
    kafka_version = "4.3"

    def read_records(self, key: Key, req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        if stored_leader == req["leader_epoch"]:
            return []
        return [self.state_record(key, req["leader_epoch"], response["state_epoch"], response["start_offset"], [],
                                  from_read=True)]


class LoadKeepsUpdateCount(ShareShard):
    """Fail-over: Load replays the records onto the shard as it was (no reset), so update
    counts from before the Unload add up and the next snapshot comes too early."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] == "Load":
            counts = dict(self.update_counts)
            out = super().step(inp)
            for k, n in counts.items():
                if k in self.update_counts:
                    self.update_counts[k] += n
            return out
        return super().step(inp)


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    class T(ShareTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.share:{cls.__name__}Target", cls)

    T.__name__ = cls.__name__ + "Target"
    return T


Correct = _target(ShareShard)
CORRECT = "Correct"
BUGS: dict[str, type[ShareShard]] = {
    "initialize-equal-epoch-fenced": InitializeEqualEpochFenced,
    "delete-keeps-fence": DeleteKeepsFence,
    "summary-reports-fence": SummaryReportsFence,
    "merge-ignores-count": MergeIgnoresCount,
    "unknown-partition-served": UnknownPartitionAfterInit,
    "read-unset-epoch-writes": ReadUnsetEpochWrites,
    "load-keeps-update-count": LoadKeepsUpdateCount,
}
for _name, _cls in BUGS.items():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
