"""Session 17's blind red-team share shard ("blindshare"): eight slips over session 16's bug-free
shard (``share_scratch8.Shard8``, itself session 8's from-scratch ``share_scratch.Shard``) with
session 14's FindCoordinator adapter (``share_scratch6.RoutingNode``) in front, written from
spec/share.md, docs/adapter-guide.md and Kafka's ``ShareCoordinatorShard`` /
``PersisterStateBatchCombiner`` alone, the driver, the model and the other red-team modules
unread (their bug names only, to stay off them).

Each bug is one subclass of the shard (or of the adapter) overriding one or two methods, its
docstring naming the rule it breaks and why an implementer slips there. They aim at territory
the earlier rounds left alone: a write that moves the start offset past stored batches and
carries none, a write with start offset -1 and batches below the stored start, a loader that
reads snapshots and updates as two tables, KIP-1226's count -1 in an update, the cadence at a
snapshot limit of 0 and per group, a redelivery of exactly a stored batch's range, and a group
id outside the Basic Multilingual Plane at FindCoordinator.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch9:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult
from redteam._targets import register
from redteam.share_scratch import Batch, Key, Node, Shard, _batches_in, _batches_json, combine
from redteam.share_scratch6 import STATE_PARTITIONS, RoutingNode, parse_key
from redteam.share_scratch8 import Correct as _Correct
from redteam.share_scratch8 import Node8, Shard8


class Shard9(Shard8):
    """The bug-free shard; ``load_order`` is the hook of the two-table loader slip."""

    def load_order(self, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The records a fresh shard replays at ``Load``, in the order it replays them: the log
        as written (SHARE-RULE-LOAD)."""
        return log


class Node9(RoutingNode, Node8):
    """``share_scratch8.Node8`` answering FindCoordinator (``share_scratch6.RoutingNode``), its
    ``Load`` replaying the shard's ``load_order`` of its log."""

    def step(self, inp: dict[str, Any]) -> StepResult:
        s = self.shard
        if inp["type"] == "Load" and isinstance(s, Shard9):
            s.log = s.load_order(s.log)
        return super().step(inp)


class Correct(_Correct):
    """The bug-free target over :class:`Shard9` and :class:`Node9` (judged by the newest rule
    set, 4.4), declaring FindCoordinator (``routing``)."""

    shard: type[Shard] = Shard9
    node: type[Node] = Node9

    def __init__(self) -> None:
        super().__init__()
        self.model_config = {**getattr(self, "model_config", {}), "routing": True}

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        base = super().start(node, config)
        return self.node(base.shard, base.config_image)


# ---------------------------------------------------------------------------- bugs


class EmptyUpdateSkipsPrune(Shard9):
    """SHARE-RULE-REPLAY-UPDATE ("the batches become ``combine(newStart, current, update)``"),
    SHARE-RULE-COMBINE-PRUNE: replaying a ShareUpdate without batches keeps the stored batches
    as they are (``if (newBatches.isEmpty()) return currentBatches``: "nothing to merge"), so a
    write that only moves the start offset past stored batches (the leader archived or
    acknowledged everything below it and has nothing in flight) leaves them below the new start.
    Needs a stored batch, then a write whose start offset passes it with an empty batch list."""

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        cur = self.offsets.get(key)
        if rec["type"] == "ShareUpdate" and not rec["state_batches"] and cur is not None:
            kept = list(cur.batches)
            super().replay(rec)
            cur.batches = kept
            return
        super().replay(rec)


class UnsetStartUpdateNotPruned(Shard9):
    """SHARE-RULE-RECORD-UPDATE ("the request's start offset (-1 kept ...)"), SHARE-RULE-REPLAY-UPDATE
    (the start offset "changes unless -1": the batches are combined at the stored one): a write with
    start offset -1 ("not being written") combines its batches with no pruning at all, in its
    record and on replay, so batches it carries below the stored start offset (a late
    acknowledgement from before the start moved) are stored below the start. The implementer read
    -1 as "no start offset, nothing to prune". Needs a write that moves the start offset, then a
    write with start offset -1 and a batch below it."""

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        cur = self.offsets.get(key)
        if rec["type"] == "ShareUpdate" and rec["start_offset"] == -1 and cur is not None:
            merged = combine(-1, cur.batches, _batches_in(rec["state_batches"]), bugs=self.bugs)
            super().replay(rec)
            cur.batches = merged
            return
        super().replay(rec)

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if rec["type"] == "ShareUpdate" and rec["start_offset"] == -1:
            rec["state_batches"] = _batches_json(combine(-1, new, bugs=self.bugs))
        return rec


class LoadSnapshotsThenUpdates(Shard9):
    """SHARE-RULE-LOAD ("replays the partition's log in order"): the loader reads the partition as
    two tables, the records of the snapshot key (snapshots and tombstones, key version 0) and
    then those of the update key (version 1), each in log order, as a store that keeps them in
    two tables does; an update written before a later snapshot of its key (a re-initialize, a
    limit snapshot) is replayed after it, moving the start offset, leader epoch and count back.
    Needs a write, then a snapshot of the same key, then a fail-over."""

    def load_order(self, log: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return ([r for r in log if r["type"] != "ShareUpdate"]
                + [r for r in log if r["type"] == "ShareUpdate"])


class UpdateUnsetCountKept(Shard9):
    """SHARE-REC-DELIVERY-COMPLETE-COUNT ("an update's count replaces the stored one: it is not a
    delta and has no 'unchanged' value"): replaying a ShareUpdate whose count is -1 keeps the
    stored count, as -1 keeps the start offset and the leader epoch of an update. The implementer
    treated every -1 of the update record alike. A write at a higher start offset with count -1
    (the leader lost track of it) stores the old count, measured from the old start. Needs, on
    4.2+, a stored count, then a write at a higher start offset with count -1."""

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        cur = self.offsets.get(key)
        kept = cur.dcc if cur is not None else -1
        super().replay(rec)
        if rec["type"] == "ShareUpdate" and rec.get("delivery_complete_count", -1) == -1 and cur is not None:
            cur.dcc = kept


class AbsentCountNeverDue(Shard9):
    """SHARE-RULE-RECORD-LIMIT-SNAPSHOT ("the update count (absent counts as 0) has reached" the
    limit), SHARE-NOTE-CADENCE ("with limit 0, every write after the first is a snapshot"): a
    limit snapshot is due only when the key has an update count (``count != null && count >=
    limit``), so at ``snapshot_limit`` 0 the first write after an initialize (or after a
    fail-over, whose replay leaves the count absent) is a ShareUpdate. The implementer guarded
    the null the way Java forces one to. Needs snapshot limit 0 and a write."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        if key in self.offsets and key not in self.count and self.limit <= 0:
            self.limit += 1  # "not due": an update, counted from absent to 1 by its replay
            try:
                return super().state_record(key, le, se, start, new, write, dcc)
            finally:
                self.limit -= 1
        return super().state_record(key, le, se, start, new, write, dcc)


class UpdateCountPerGroup(Shard9):
    """SHARE-RULE-SNAPSHOT-CADENCE (``snapshotUpdateCount`` is per share-partition key),
    SHARE-INV-KEY-ISOLATION: the cadence counts the updates of a whole share group (the
    implementer read "share-group state" as the group's), so the updates of ``g:T:1`` bring
    ``g:T:0``'s limit snapshot early. Needs two share-partitions of one group written, more
    updates than the snapshot limit between them."""

    def __init__(self, limit: int, image: set[tuple[str, int]] | None, minor: int) -> None:
        super().__init__(limit, image, minor)
        self.group_count: dict[str, int] = {}

    def replay(self, rec: dict[str, Any]) -> None:
        super().replay(rec)
        group = rec["key"]["group_id"]
        if rec["type"] == "ShareUpdate":
            self.group_count[group] = self.group_count.get(group, 0) + 1
        elif rec["type"] == "ShareSnapshot" and self.group_count.get(group, 0) >= self.limit:
            self.group_count[group] = 0

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        had, own = key in self.count, self.count.get(key)
        self.count[key] = self.group_count.get(key[0], 0)
        try:
            return super().state_record(key, le, se, start, new, write, dcc)
        finally:
            if had:
                self.count[key] = own  # type: ignore[assignment]
            else:
                del self.count[key]


def _same_range_dropped(current: list[Batch], new: list[Batch]) -> list[Batch]:
    """The new batches a ``TreeSet`` ordered by (first offset, last offset), filled with the
    current batches first, does not add: those with a stored batch's exact range."""
    ranges = {(f, last) for f, last, _, _ in current}
    return [b for b in new if (b[0], b[1]) not in ranges]


class SameRangeStoredKept(Shard9):
    """SHARE-RULE-COMBINE-PRIORITY ("the batch with the higher (delivery count, delivery state)
    wins ... from either list"): the merge collects the current batches, then the new ones, in a
    sorted set ordered by first and last offset, whose ``add`` ignores an element equal by the
    comparator, so a new batch with exactly a stored batch's range (a redelivery of the same
    records: count + 1, or their acknowledgement) is dropped and the stored one stays. Java's
    ``TreeSet`` with a comparator inconsistent with ``equals``. Needs a stored batch, then a write
    of a batch with the same first and last offset and a higher count or state."""

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        cur = self.offsets.get(key)
        if rec["type"] == "ShareUpdate" and cur is not None:
            rec = {**rec, "state_batches": _batches_json(_same_range_dropped(cur.batches,
                                                                             _batches_in(rec["state_batches"])))}
        super().replay(rec)

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Batch], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        cur = self.offsets.get(key)
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if rec["type"] == "ShareSnapshot" and cur is not None and write:  # a limit snapshot's merge
            kept = _same_range_dropped(cur.batches, new)
            rec = super().state_record(key, le, se, start, kept, write, dcc)
        return rec


def _hash_code_points(text: str) -> int:
    """``String.hashCode`` ported over Python's code points (``ord``), not UTF-16 code units."""
    h = 0
    for ch in text:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


class RoutingHashCodePoints(Node9):
    """SHARE-RULE-ROUTING ("computed over UTF-16 code units"): FindCoordinator hashes the
    coordinator key over Python's code points, where ``String.hashCode`` sees a character outside
    the Basic Multilingual Plane (an emoji in a group id) as two surrogates, so such a group's
    share-partitions are routed to another ``__share_group_state`` partition. The implementer
    ported the 31-polynomial and took ``ord`` for ``charAt``. Needs a FindCoordinator whose group
    id holds a supplementary character."""

    def find_coordinator(self, req: dict[str, Any]) -> dict[str, Any]:
        resp = super().find_coordinator(req)
        parsed = parse_key(f"{req['group_id']}:{req['topic_id']}:{req['partition']}") if req["topic_id"] else None
        if resp["error"] == "NONE" and parsed is not None:
            g, t, p = parsed
            resp["coordinator"] = self.utils_abs(_hash_code_points(f"{g}:{t}:{p}")) % STATE_PARTITIONS
        return resp


def _attrs(cls: type) -> tuple[str, dict[str, Any]]:
    slot = "node" if issubclass(cls, Node) else "shard"
    return cls.__name__ + "Target", {slot: cls, "__doc__": cls.__doc__}


CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type] = {
    "empty-update-skips-prune": EmptyUpdateSkipsPrune,
    "unset-start-update-not-pruned": UnsetStartUpdateNotPruned,
    "load-snapshots-then-updates": LoadSnapshotsThenUpdates,
    "update-unset-count-kept": UpdateUnsetCountKept,
    "absent-count-never-due": AbsentCountNeverDue,
    "update-count-per-group": UpdateCountPerGroup,
    "same-range-stored-kept": SameRangeStoredKept,
    "routing-hash-code-points": RoutingHashCodePoints,
}
TARGETS = register(globals(), Correct, BUGS, _attrs)
