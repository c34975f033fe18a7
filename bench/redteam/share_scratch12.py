"""Session 20's blind red-team share shard ("blindshare"): eight slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md's rule names as the reference quotes them, docs/adapter-guide.md, KIP-932 and
Kafka's ``ShareCoordinatorShard`` alone, the driver, the model and the mutant catalogue unread
(the earlier red-team modules read for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what it needs to show. They aim at territory
the earlier rounds left alone: the redundant offset moved by updates, a read's leader-epoch
record decided against the stored offset (which a re-initialize lowers) instead of the fence, a
limit snapshot that escapes the start-offset clamp of the update path, a snapshot cadence count
that outlives a delete, KIP-1226's count replaced at an equal start offset, the coordinator key
split at its first colons, a re-initialize at the stored state epoch fenced, and a snapshot's
replay that *puts* its leader epoch into the fence map (an initialize lowers the fence to 0).

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch12:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.targets.reference.share import (
    FENCED_STATE,
    NOT_SET,
    ShareShard,
    ShareTarget,
)

Key = tuple[str, str, int]
Batch = list[int]


# ---------------------------------------------------------------------------- bugs


class UpdateAdvancesRedundant(ShareShard):
    """SHARE-RULE-REDUNDANT-OFFSET ("a snapshot or tombstone makes its offset the key's; an update
    needs the snapshot before it"): the implementer tracks "the key's last record" rather than its
    last snapshot, so every ShareUpdate moves the key's offset up and the partition's redundant
    offset passes the snapshot the key's updates are applied to; pruning there loses the key's
    base state. Needs a key's snapshot, then one of its updates (a write), the redundant offset
    observed."""

    def track_redundant(self, key: Key, kind: str) -> None:
        if kind == "ShareUpdate":
            self.snapshot_at[key] = self.log_end
            self.redundant = min(self.snapshot_at.values())
            return
        super().track_redundant(key, kind)


class ReadRecordVsStoredOffset(ShareShard):
    """SHARE-RULE-READ-LEADER-EPOCH ("a read carrying a new leader epoch records it"): "new"
    decided against the stored offset's leader epoch (what the read answers from) instead of the
    leader-epoch map; the two agree until a re-initialize writes leader epoch 0 into the offset
    while the fence keeps its maximum, after which a read at the fence's epoch (the current leader
    reading again) writes a record it should not. Needs a read at a new leader epoch, an
    initialize of the stored key, then a read at the same leader epoch."""

    def read_records(self, key: Key, req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        return super().read_records(key, req, response, self.offsets[key]["leader_epoch"])


class LimitSnapshotStartMovesBack(ShareShard):
    """SHARE-RULE-WRITE-START-MONOTONE ("an out-of-order write never moves the start back"): the
    clamp (apache/kafka#23074) went into the ShareUpdate path only, so when an out-of-order write
    (a lower start offset than stored) is due as the limit snapshot, the snapshot carries the
    request's lower start offset and the start moves back. Needs snapshot limit reached by
    updates, a write that raised the start offset, then a write with a lower start offset on the
    snapshot's turn."""

    def state_record(self, key: Key, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[Batch], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        current = self.offsets.get(key)
        record = super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)
        if (current is not None and record["type"] == "ShareSnapshot" and start_offset != NOT_SET
                and start_offset < current["start_offset"]):
            return self.limit_snapshot(key, current, record["leader_epoch"], record["state_epoch"], start_offset,
                                       batches, record["delivery_complete_count"])
        return record


class UpdateCountSurvivesDelete(ShareShard):
    """SHARE-RULE-REPLAY-TOMBSTONE ("removes the key from all four maps"), SHARE-RULE-SNAPSHOT-
    CADENCE: the tombstone's replay clears the state and both fences but not the cadence's
    ``snapshotUpdateCount`` (bookkeeping of the log, not of the group), and the observation walks
    the state map, so nothing shows until the group is initialized again: its updates count on
    from the deleted key's and its limit snapshot comes early. Needs updates to a key, a delete,
    a re-initialize, then writes (a small snapshot limit)."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        k = record["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        kept = self.update_counts.get(key)
        super().replay_maps(record)
        if record["type"] == "ShareTombstone" and kept is not None:
            self.update_counts[key] = kept

    def observation(self) -> dict[str, JSON]:
        obs = super().observation()
        parts = obs["partitions"]
        assert isinstance(parts, dict)
        for name in [n for n, p in parts.items() if isinstance(p, dict) and p.get("offset") is None
                     and p.get("leader_epoch_fence") is None and p.get("state_epoch_fence") is None]:
            del parts[name]
        return obs


class SameStartCountReplaced(ShareShard):
    """KIP-1226 / SHARE-VER-DELIVERY-COMPLETE-COUNT ("a write's count only from a start offset
    above the stored one, the higher one at the same start offset"): the implementer takes the
    newest count whenever the start offset did not go back ("the latest write knows best"), so a
    delayed write at the same start offset with a lower count lowers the stored one. Needs a
    write with a count, then another write at the same start offset with a lower count."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if self.delivery_complete_count and start_offset == current["start_offset"]:
            return count
        return super().write_count(current, start_offset, count)


class FindCoordinatorSplitsFirstColon(ShareShard):
    """SHARE-RULE-ROUTING / FindCoordinator key type SHARE ("the group id is the rest, ':' and
    all"): the key is parsed with ``key.split(":")`` into exactly three fields (the way the key is
    built), so a group id holding a colon is an invalid key, INVALID_REQUEST where the broker
    answers its partition. Needs a FindCoordinator for a group id with ':' in it."""

    @staticmethod
    def parse_key(key: str) -> tuple[str, str, int] | None:
        parts = key.split(":")
        if len(parts) != 3 or not parts[0] or not parts[1] or not parts[2].lstrip("+-").isdigit():
            return None
        return parts[0], parts[1], int(parts[2])


class InitializeEqualStateEpochFenced(ShareShard):
    """SHARE-RULE-VALIDATE-STATE-FENCE (an initialize is fenced only by a *greater* stored state
    epoch): the implementer reads "a re-initialize starts a new state epoch" as "must raise it"
    and fences an initialize at the stored state epoch too, so the group coordinator's retried
    InitializeShareGroupState (the first one's response lost) is FENCED_STATE_EPOCH. Needs an
    initialize, then another at the same state epoch."""

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        stored = self.state_epochs.get(key)
        if req["state_epoch"] != NOT_SET and stored is not None and stored == req["state_epoch"]:
            return [], self.response(req, *FENCED_STATE)
        return super().on_InitializeRequest(key, req)


class SnapshotReplayPutsLeaderEpoch(ShareShard):
    """SHARE-RULE-INITIALIZE-SNAPSHOT ("the stored leader epoch can drop to 0 here, but the
    leader-epoch fence keeps its maximum"): a snapshot's replay *puts* its leader epoch into the
    fence map (a snapshot is the whole state, so "replace" looks right) where an update raises it,
    so after a re-initialize (leader epoch 0) a zombie leader below the fence writes and reads
    NONE. Needs a read at a new leader epoch, a re-initialize, then a write or read at an epoch
    below the first."""

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        super().replay_snapshot(key, record)
        self.leader_epochs[key] = record["leader_epoch"]


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch12:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "update-advances-redundant": UpdateAdvancesRedundant,
    "read-record-vs-stored-offset": ReadRecordVsStoredOffset,
    "limit-snapshot-start-moves-back": LimitSnapshotStartMovesBack,
    "update-count-survives-delete": UpdateCountSurvivesDelete,
    "same-start-count-replaced": SameStartCountReplaced,
    "find-coordinator-splits-first-colon": FindCoordinatorSplitsFirstColon,
    "initialize-equal-state-epoch-fenced": InitializeEqualStateEpochFenced,
    "snapshot-replay-puts-leader-epoch": SnapshotReplayPutsLeaderEpoch,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
