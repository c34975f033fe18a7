"""Session 19's blind red-team share shard ("sharezombie"): eight slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md, docs/adapter-guide.md, KIP-932 and Kafka's ``ShareCoordinatorShard`` /
``PersisterStateBatchCombiner`` (its KAFKA-20691 sweep-line rewrite too) alone, the driver, the
model and the mutant catalogue unread (the earlier red-team modules read for their bug names
only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what it needs to show. They aim at territory
the earlier rounds left alone: a sweep-line combiner that tracks the active priorities in a set,
contiguous batches merged by delivery count alone, a limit snapshot pruned at the stored start
offset, a read's new leader epoch lost when its record is the limit snapshot, the read fence
taken from the stored offset (which an initialize lowers) instead of the fence map, an
initialize held to the writes' monotone start offset, a state-epoch high-water mark that
outlives a delete (a group deleted and created again restarts its epochs), and the snapshot
cadence's counts kept across a fail-over.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch11:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_LEADER,
    FENCED_STATE,
    NOT_SET,
    READ_UNINITIALIZED,
    UNKNOWN_TP,
    ShareShard,
    ShareTarget,
    _batches_out,
    combine,
)

Key = tuple[str, str, int]
Batch = list[int]


# ---------------------------------------------------------------------------- bugs


def _combine_sweep_set(start: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
    """KAFKA-20691's sweep line (BEGIN at the first offset, END at last + 1, END before BEGIN at
    one offset, the highest active (count, state) wins each slice, equal slices coalesced, gaps
    kept) with the active priorities in a *set* where Kafka counts them: the END of one batch
    removes its priority although another batch of the same (count, state) is still open."""
    events: list[tuple[int, int, tuple[int, int]]] = []
    for first, last, state, count in [*current, *new]:
        if start != NOT_SET:
            if last < start:
                continue
            first = max(first, start)
        events.append((first, 1, (count, state)))
        events.append((last + 1, 0, (count, state)))
    events.sort()
    active: set[tuple[int, int]] = set()
    out: list[Batch] = []
    prev: int | None = None
    for offset, kind, priority in events:
        if prev is not None and offset > prev and active:
            count, state = max(active)
            if out and out[-1][1] == prev - 1 and out[-1][2] == state and out[-1][3] == count:
                out[-1][1] = offset - 1
            else:
                out.append([prev, offset - 1, state, count])
        if kind == 1:
            active.add(priority)
        else:
            active.discard(priority)
        prev = offset
    return out


class SweepSetPriorities(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY / SHARE-RULE-COMBINE-MERGE ("the result on each offset is the
    maximum over every batch covering it"): the combiner is the event-driven sweep line of
    KAFKA-20691 (apache/kafka#22572), which "tracks active (deliveryCount, deliveryState)
    priorities with a counted TreeMap"; the port keeps them in a set ("which priorities are
    open"), so where two batches of the same state and count overlap and one ends first, its END
    closes the priority for both and the rest of the longer one goes to a lower batch or is lost
    as a gap. A write that repeats the stored (state, count) of part of a longer stored run (a
    retried acknowledgement of one record of an acknowledged range) drops the run's tail. Needs a
    stored multi-offset run, then a write of the same state and count overlapping it and ending
    before it (or starting inside it and ending after)."""

    combine = staticmethod(_combine_sweep_set)


def _combine_merge_by_count(start: int, current: list[Batch], new: list[Batch]) -> list[Batch]:
    """``combine`` whose final merge of contiguous batches compares the delivery count only."""
    out: list[Batch] = []
    for b in combine(start, current, new):
        if out and out[-1][1] == b[0] - 1 and out[-1][3] == b[3]:
            out[-1][1] = b[1]
        else:
            out.append(list(b))
    return out


class MergeIgnoresState(ShareShard):
    """SHARE-RULE-COMBINE-MERGE ("overlapping or contiguous batches with equal state and count are
    merged"): the merge pass compares the delivery count alone (the priority is "mostly the
    count"), so an ACKNOWLEDGED or ARCHIVED batch contiguous to an AVAILABLE one of the same
    delivery count is swallowed into the earlier batch's state. Needs two contiguous batches of
    one count in different states (a release and an acknowledgement within one delivery)."""

    combine = staticmethod(_combine_merge_by_count)


class LimitSnapshotPrunesAtStoredStart(ShareShard):
    """SHARE-RULE-RECORD-LIMIT-SNAPSHOT ("the current batches combined with the new ones at the new
    start offset"): the limit snapshot combines at the *stored* start offset (the current batches
    were valid there, and the implementer prunes "what is stored" against "where it was stored")
    while its start offset field is the request's, so a batch between the old and the new start
    offset stays in the snapshot below its own start offset, and a read answers records the leader
    has moved past. An update is right (its replay prunes at the new start). Needs a stored batch,
    then a write that moves the start offset past it on the snapshot's turn."""

    def limit_snapshot(self, key: Key, current: dict[str, Any], leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: list[Batch], count: int = NOT_SET) -> dict[str, Any]:
        record = super().limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches, count)
        kept = combine(current["start_offset"], current["state_batches"], batches)
        return {**record, "state_batches": _batches_out(kept)}


class ReadAtLimitKeepsLeaderEpoch(ShareShard):
    """SHARE-RULE-READ-LEADER-EPOCH with SHARE-RULE-RECORD-LIMIT-SNAPSHOT: the implementer read
    SHARE-RULE-WRITE-KEEPS-EPOCHS ("a limit snapshot the stored state epoch") as a property of the
    limit snapshot and builds it from the stored offset's epochs, so when a new leader's read is
    due as the limit snapshot (the update count at the limit) its record carries the stored leader
    epoch: the new epoch is neither stored nor fenced, and the previous leader's writes are
    accepted. As a ShareUpdate the read's record is right. Needs updates up to the limit, then a
    read at a new leader epoch (and the old leader's write)."""

    def limit_snapshot(self, key: Key, current: dict[str, Any], leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: list[Batch], count: int = NOT_SET) -> dict[str, Any]:
        return super().limit_snapshot(key, current, current["leader_epoch"], state_epoch, start_offset, batches,
                                      count)


class ReadFenceFromStoredOffset(ShareShard):
    """SHARE-RULE-READ-FENCE ("the stored leader epoch is greater"), SHARE-RULE-INITIALIZE-SNAPSHOT
    ("the stored leader epoch can drop to 0 here, but the leader-epoch fence keeps its maximum"):
    the read handler fences against the stored offset's leader epoch (what it is about to answer
    from) instead of ``leaderEpochMap``; the two agree until a re-initialize writes leader epoch 0,
    after which a zombie leader below the fence reads the state NONE and records its stale epoch in
    the stored offset (the fence itself stays). Writes are fenced by the map. Needs a read at a new
    leader epoch, an initialize of the stored key, then a read at an epoch between 0 and the
    fence."""

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
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
    """SHARE-RULE-WRITE-START-MONOTONE ("only initialize ... sets a lower one"): the fix of
    apache/kafka#23074 put in the one place every state record passes, the initialize included, so
    a group coordinator's reset of a share-partition to an earlier offset (alter offsets to
    earliest, after the leader moved the start offset on) keeps the stored start offset. Its
    count follows the start offset kept. Needs a write that moves the start offset, then an
    initialize at a lower start offset."""

    def initialize_record(self, key: Key, req: dict[str, Any]) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is not None and req["start_offset"] != NOT_SET and req["start_offset"] < current["start_offset"]:
            req = {**req, "start_offset": current["start_offset"]}
        return super().initialize_record(key, req)


class StateFenceSurvivesDelete(ShareShard):
    """SHARE-RULE-VALIDATE-STATE-FENCE with SHARE-RULE-REPLAY-TOMBSTONE ("removes the key from all
    four maps, so the fences are forgotten too"): the shard guards initializes with the highest
    state epoch it ever recorded per key, kept apart from the four maps (a tombstone does not
    clear it; replay rebuilds it), so after DeleteShareGroupState a share group deleted and
    created again under the same id (its group epoch, the state epoch, restarting low) cannot
    initialize: FENCED_STATE_EPOCH. The fence maps and the observation are right. Needs an
    initialize at a state epoch, a delete, then an initialize at a lower state epoch."""

    def reset(self) -> None:
        super().reset()
        self.state_high: dict[Key, int] = {}

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        super().replay_snapshot(key, record)
        self.state_high[key] = max(self.state_high.get(key, record["state_epoch"]), record["state_epoch"])

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        high = self.state_high.get(key)
        if req["state_epoch"] != NOT_SET and high is not None and high > req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        return super().on_InitializeRequest(key, req)


class LoadKeepsUpdateCounts(ShareShard):
    """SHARE-RULE-LOAD ("a new shard starts empty and replays the partition's log"),
    SHARE-RULE-SNAPSHOT-CADENCE: the shard clears its state at Load but keeps the cadence's
    ``snapshotUpdateCount`` (bookkeeping, "not state", and not in the observation), and the replay
    counts each update on top of it, so after a fail-over a key's count is the old one plus the
    replayed one and its limit snapshot comes early (a snapshot's replay resets the count only at
    the limit). Needs snapshot limit 2 or more, a key with updates since its last snapshot, a
    fail-over, then a write."""

    def reset(self) -> None:
        kept = getattr(self, "update_counts", {})
        super().reset()
        self.update_counts = kept


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch11:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "sweep-set-priorities": SweepSetPriorities,
    "merge-ignores-state": MergeIgnoresState,
    "limit-snapshot-prunes-at-stored-start": LimitSnapshotPrunesAtStoredStart,
    "read-at-limit-keeps-leader-epoch": ReadAtLimitKeepsLeaderEpoch,
    "read-fence-from-stored-offset": ReadFenceFromStoredOffset,
    "initialize-start-monotone": InitializeStartMonotone,
    "state-fence-survives-delete": StateFenceSurvivesDelete,
    "load-keeps-update-counts": LoadKeepsUpdateCounts,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
