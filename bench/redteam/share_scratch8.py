"""Session 16's blind red-team share shard ("outsidera"): eight slips over session 15's bug-free
shard (``share_scratch7.Shard7``, itself session 8's from-scratch ``share_scratch.Shard``),
written from spec/share.md, docs/adapter-guide.md and Kafka's ``ShareCoordinatorShard`` alone,
the driver, the model and the other red-team modules unread.

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks and why an implementer slips there. They favour deep or unusual sequences: both
fences stale at once, a summary after a re-initialize lowered the stored leader epoch, a zombie
leader after a delete and a fresh initialize, a new leader's read of a deleted topic, a pruned
log's first record, a write after a re-initialize, KIP-1226's count at a re-initialize at the
same start offset and after an initialize with an unknown start offset.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch8:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult
from redteam._targets import attribute_target, register
from redteam.share_scratch import FENCED_LEADER, FENCED_STATE, NONE, UNKNOWN, Batch, Key, Offset, Shard
from redteam.share_scratch7 import Correct as _Correct
from redteam.share_scratch7 import Node7, Shard7


class Shard8(Shard7):
    """The bug-free shard; ``replay_from`` is the hook of the pruned-load slip."""

    def replay_from(self, inp: dict[str, Any]) -> int:
        """The position in the log a fresh shard replays from at ``Load``: 0, as a target that
        never prunes (it replays the whole log; SHARE-RULE-PRUNE-INVISIBLE: the same answers)."""
        return 0


class Node8(Node7):
    """``share_scratch7.Node7`` whose ``Load`` replays from the shard's ``replay_from``."""

    def step(self, inp: dict[str, Any]) -> StepResult:
        s = self.shard
        if inp["type"] != "Load" or not isinstance(s, Shard8):
            return super().step(inp)
        fresh = type(s)(s.limit, s.image, s.minor)
        fresh.loading = True
        first = s.replay_from(inp)
        for i, rec in enumerate(s.log):
            fresh.log.append(rec)
            k = rec["key"]  # an update whose snapshot was not replayed has nothing to apply to
            orphan = (rec["type"] == "ShareUpdate"
                      and (k["group_id"], k["topic_id"], k["partition"]) not in fresh.offsets)
            if i >= first and not orphan:
                fresh.replay(rec)
        fresh.loading = False
        self.shard = fresh
        return StepResult(outputs=[], observation=fresh.observe())


class Correct(_Correct):
    """The bug-free target over :class:`Shard8` (judged by the newest rule set, 4.4)."""

    shard: type[Shard] = Shard8

    def start(self, node: Any, config: dict[str, Any]) -> Node8:
        base = super().start(node, config)
        return Node8(base.shard, base.config_image)


class StateFenceBeforeLeaderFence(Shard8):
    """SHARE-RULE-VALIDATE-LEADER-FENCE, SHARE-RULE-VALIDATE-STATE-FENCE ("checks run in this
    order"): a write stale in both epochs is answered FENCED_STATE_EPOCH, where Kafka's
    ``maybeGetWriteStateError`` checks the leader epoch first and answers FENCED_LEADER_EPOCH.
    The implementer checked the state epoch first because the group coordinator's re-initialize
    is "the bigger event". Needs a leader-epoch fence above the write's leader epoch (a read at
    a new epoch) and a state-epoch fence above its state epoch (a re-initialize), one write."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        le, se = req["leader_epoch"], req["state_epoch"]
        if (key in self.offsets and not (self.minor >= 4 and (le < 0 or se < 0)) and se != -1
                and self.state_fence.get(key, -1) > se and le != -1 and self.leader_fence.get(key, -1) > le):
            return [], FENCED_STATE
        return super().on_write(key, req)


class SummaryLeaderEpochFromFence(Shard8):
    """SHARE-RULE-READ-SUMMARY ("answers the state epoch, leader epoch and start offset" of the
    stored offset), SHARE-RULE-INITIALIZE-SNAPSHOT (the stored leader epoch drops to 0 while the
    fence keeps its maximum): a summary answers the leader-epoch fence (``leaderEpochMap``), not
    the stored offset's leader epoch. The implementer took "the leader epoch" for the map the read
    fences with. Needs a read at a new leader epoch, then a re-initialize, then a summary."""

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().request(req)
        key = (req["group_id"], req["topic_id"], req["partition"])
        resp = out[-1]
        if resp["type"] == "ReadSummaryResponse" and resp["error"] == NONE and key in self.leader_fence:
            resp["leader_epoch"] = self.leader_fence[key]
        return out


class ZombieFenceSurvivesDelete(Shard8):
    """SHARE-RULE-REPLAY-TOMBSTONE ("the fences are forgotten too"), SHARE-RULE-VALIDATE-LEADER-FENCE:
    the shard keeps, apart from the four maps, the highest leader epoch it has ever seen per
    key and fences with it, so after a delete and a fresh initialize the stale leader's write (or
    read) is FENCED_LEADER_EPOCH where Kafka's fence was dropped with the key. The implementer
    wanted zombie leaders fenced across a delete. Replay rebuilds the extra map, so a reload
    agrees with it. Needs a read at a new epoch, delete, initialize, then a write or read at
    an epoch between 0 and the old fence."""

    def __init__(self, limit: int, image: set[tuple[str, int]] | None, minor: int) -> None:
        super().__init__(limit, image, minor)
        self.ever_leader: dict[Key, int] = {}

    def replay(self, rec: dict[str, Any]) -> None:
        super().replay(rec)
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if rec["type"] != "ShareTombstone" and rec["leader_epoch"] != -1:
            self.ever_leader[key] = max(self.ever_leader.get(key, -1), rec["leader_epoch"])

    def zombie(self, key: Key, le: int) -> bool:
        return key in self.offsets and le >= 0 and self.ever_leader.get(key, -1) > le

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.zombie(key, req["leader_epoch"]) and (self.minor < 4 or req["state_epoch"] >= 0):
            return [], FENCED_LEADER
        return super().on_write(key, req)

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if self.zombie(key, req["leader_epoch"]):
            return [], FENCED_LEADER
        return super().on_read(key, req)


class NewLeaderReadRecordsWithoutTopic(Shard8):
    """SHARE-RULE-METADATA-UPDATE ("a failed check returns the error with no records"),
    SHARE-RULE-READ-LEADER-EPOCH: a read at a new leader epoch records it before the metadata
    image is checked, so a new leader's read of a share-partition whose topic was deleted answers
    UNKNOWN_TOPIC_OR_PARTITION and still appends a ShareUpdate that raises the fence. The
    implementer put the fencing of the predecessor first ("a new leader has arrived"). Needs
    ``g:U:0`` stored, ``U`` deleted, then a read above its fence."""

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        le = req["leader_epoch"]
        cur = self.offsets.get(key)
        if cur is not None and le >= 0 and le > self.leader_fence.get(key, -1) and not self.known(req):
            return [self.state_record(key, le, -1, -1, [], write=False, dcc=cur.dcc)], UNKNOWN
        return super().on_read(key, req)


class PrunedLoadSkipsStartRecord(Shard8):
    """SHARE-RULE-PRUNE-INVISIBLE ("the records below N were deleted, and a target that prunes
    replays from N"), SHARE-RULE-REDUNDANT-OFFSET: a shard loaded from a pruned log replays from
    the record after ``log_start_offset``, as if the record at the redundant offset were deleted
    too (``deleteRecords`` read as "up to and including"). That record is a stored key's last
    snapshot, so the key comes back without it (its updates have nothing to apply to). Needs a
    ``Load`` with a ``log_start_offset`` above 0 (a pruned log)."""

    def replay_from(self, inp: dict[str, Any]) -> int:
        start = int(inp.get("log_start_offset", 0))
        return start + 1 if start > 0 else 0


class WriteRecordsLeaderFence(Shard8):
    """SHARE-RULE-WRITE-KEEPS-EPOCHS ("its record carries the stored leader epoch"),
    SHARE-RULE-INITIALIZE-SNAPSHOT: a write's record carries the leader-epoch fence
    (``leaderEpochMap``) where Kafka's carries the stored offset's leader epoch
    (``currentState.leaderEpoch()``). They differ only after a re-initialize lowered the stored
    leader epoch to 0 under a fence a read had raised. The implementer read "stored leader
    epoch" as the map. Needs a read at a new epoch, a re-initialize, then a write."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if write and key in self.offsets and key in self.leader_fence:
            rec["leader_epoch"] = self.leader_fence[key]
        return rec


class ReinitializeSameStartKeepsCount(Shard8):
    """SHARE-RULE-INITIALIZE-COUNT ("0 when the request's start offset is known"),
    SHARE-RULE-WRITE-COUNT: a re-initialize at the stored start offset keeps the higher of 0 and
    the stored count, as a write at the same start offset does: the implementer reused the
    write's count rule for the initialize's snapshot ("at one start offset the count only
    grows"). Initialize is a reset: 0. Needs, on 4.2+, an initialize at start S, a write at S
    with a count above 0, then a re-initialize at S."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        cur: Offset | None = self.offsets.get(key)
        records, err = super().on_initialize(key, req)
        if (err == NONE and records and cur is not None and self.minor >= 2 and req["start_offset"] != -1
                and req["start_offset"] == cur.start_offset):
            records[0]["delivery_complete_count"] = max(0, cur.dcc)
        return records, err


class CountUnknownStartNeverTaken(Shard8):
    """SHARE-RULE-WRITE-COUNT ("it replaces the stored one only from a start offset above the
    stored one"), SHARE-RULE-INITIALIZE-COUNT: with a stored start offset of -1 (initialized with
    an unknown start) the shard keeps the stored count -1 whatever the write's start offset:
    the implementer read the stored -1 as "no start offset to compare with" and kept the stored
    count, where -1 is below every known start offset, so a write at one takes its count. Needs,
    on 4.2+, an initialize with start offset -1, then a write with a count (its start known)."""

    def write_count(self, cur: Offset, start: int, dcc: int) -> int:
        if self.minor >= 2 and cur.start_offset == -1:
            return cur.dcc
        return super().write_count(cur, start, dcc)


CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[Shard8]] = {
    "state-fence-before-leader-fence": StateFenceBeforeLeaderFence,
    "summary-leader-epoch-from-fence": SummaryLeaderEpochFromFence,
    "zombie-fence-survives-delete": ZombieFenceSurvivesDelete,
    "new-leader-read-records-without-topic": NewLeaderReadRecordsWithoutTopic,
    "pruned-load-skips-start-record": PrunedLoadSkipsStartRecord,
    "write-records-leader-fence": WriteRecordsLeaderFence,
    "reinitialize-same-start-keeps-count": ReinitializeSameStartKeepsCount,
    "count-unknown-start-never-taken": CountUnknownStartNeverTaken,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("shard"))
