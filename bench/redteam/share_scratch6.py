"""Session 14's red-team share shard ("outsider" round): eight planted bugs over session 9's
from-scratch KIP-932 shard (``redteam.share_scratch2.Shard``), each a method override, written
blind from spec/share.md, spec/adapter-protocol.md, docs/adapter-guide.md and Kafka's
``ShareCoordinatorShard`` / ``ShareCoordinatorService`` / ``SharePartitionKey`` (no driver, model
or mutant code). The baseline also answers FindCoordinator (key type SHARE) and declares
``model_config`` ``{"routing": true}``, as a coordinator that implements the broker's lookup does.

The slips of a contributor reimplementing the coordinator: Python's ``abs`` on a Java
``String.hashCode`` (``Utils.abs(Integer.MIN_VALUE)`` is 0), FindCoordinator answered by the
shard's own "not loaded" check, the read that records a leader epoch built without KIP-1226's
count and always as a ``ShareUpdate``, the limit snapshot taking the request's count, the write's
leader-epoch fence read from the stored offset (which an initialize lowers to 0), an initialize
with start offset -1 taken as "unchanged", and a state epoch that must equal the stored one (the
error text says "did not match").

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch6:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult
from redteam._targets import register
from redteam.share_scratch import FENCED_STATE, NOT_AVAILABLE, UNKNOWN, _batches_json, _key_json
from redteam.share_scratch2 import NONE, Key, Node, Shard
from redteam.share_scratch2 import Correct as Correct2

INVALID = "INVALID_REQUEST"
STATE_PARTITIONS = 50  # share.coordinator.state.topic.num.partitions, Kafka's default


def java_hash(s: str) -> int:
    """``String.hashCode``: 31-based over UTF-16 code units, 32-bit wrapping, signed."""
    h = 0
    raw = s.encode("utf-16-be")
    for i in range(0, len(raw), 2):
        h = (31 * h + int.from_bytes(raw[i:i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def parse_key(key: str) -> tuple[str, str, int] | None:
    """``SharePartitionKey.getInstance(String)`` as 4.2.1+ parses: the last two fields are the topic
    id and the partition, the group id is everything before them."""
    group, sep, rest = key.rpartition(":")
    if not sep:
        return None
    group, sep, topic = group.rpartition(":")
    if not sep or not group or not topic:
        return None
    try:
        partition = int(rest)
    except ValueError:
        return None
    if str(partition) != rest or not -(1 << 31) <= partition < (1 << 31):
        return None
    return group, topic, partition


class RoutingNode(Node):
    """The share adapter around one shard, answering FindCoordinator as the broker does."""

    def step(self, inp: dict[str, Any]) -> StepResult:
        if inp["type"] != "FindCoordinatorRequest":
            return super().step(inp)
        return StepResult(outputs=[self.find_coordinator(inp)], observation=self.shard.observe())

    def utils_abs(self, h: int) -> int:
        return 0 if h == -(1 << 31) else abs(h)

    def find_coordinator(self, req: dict[str, Any]) -> dict[str, Any]:
        resp = {"type": "FindCoordinatorResponse", "topic_id": req["topic_id"], "partition": req["partition"],
                "error": NONE, "message": "", "coordinator": -1}
        if req["topic_id"] is None:
            return resp | {"error": INVALID, "message": "The topic id cannot be null."}
        key = f"{req['group_id']}:{req['topic_id']}:{req['partition']}"
        parsed = parse_key(key)
        if parsed is None:
            return resp | {"error": INVALID, "message": f"Invalid key format: {key}"}
        g, t, p = parsed
        return resp | {"coordinator": self.utils_abs(java_hash(f"{g}:{t}:{p}")) % STATE_PARTITIONS}


# ---------------------------------------------------------------------------- bugs


class RoutingPythonAbs(RoutingNode):
    """FindCoordinator routes with Python's ``abs`` of the signed hash, where Kafka uses
    ``Utils.abs``: a coordinator key whose ``String.hashCode`` is ``Integer.MIN_VALUE`` goes to
    partition 2147483648 % 50 = 48, not 0 (the port of ``Math.abs`` that Utils.abs exists for)."""

    def utils_abs(self, h: int) -> int:
        return abs(h)


class FindCoordinatorNeedsLoad(RoutingNode):
    """FindCoordinator answered through the shard's ``isActive`` check: while the coordinator
    partition is unloaded (fail-over in progress) the lookup is COORDINATOR_NOT_AVAILABLE, though
    the broker answers it from the key alone whatever the shard holds."""

    def find_coordinator(self, req: dict[str, Any]) -> dict[str, Any]:
        if not self.shard.active:
            return {"type": "FindCoordinatorResponse", "topic_id": req["topic_id"], "partition": req["partition"],
                    "error": NOT_AVAILABLE, "message": "", "coordinator": -1}
        return super().find_coordinator(req)


class ReadRecordCountUnset(Shard):
    """The read that records a new leader epoch builds its record by hand with KIP-1226's count
    left at -1 (the read request has no count field), where Kafka writes the stored count: the
    share-partition's lag becomes unknown after every leader change."""

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_read(key, req)
        return [r | {"delivery_complete_count": -1} for r in recs], err


class ReadRecordAlwaysUpdate(Shard):
    """The read that records a new leader epoch always writes a ``ShareUpdate`` (it changes
    nothing but the epoch), never asking whether the update count has reached
    ``snapshot.update.records.per.snapshot``: at the limit Kafka's ``generateShareStateRecord``
    writes a snapshot, so the cadence breaks after a leader change."""

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_read(key, req)
        cur = self.offsets.get(key)
        if recs and cur is not None and recs[0]["type"] == "ShareSnapshot":
            recs = [{"type": "ShareUpdate", "key": _key_json(key), "snapshot_epoch": cur.snapshot_epoch,
                     "leader_epoch": req["leader_epoch"], "start_offset": -1, "state_batches": [],
                     "delivery_complete_count": cur.dcc}]
        return recs, err


class LimitSnapshotCountFromRequest(Shard):
    """KIP-1226's "a count replaces the stored one only from a higher start offset" applied where
    the ``ShareUpdate`` is built, not in the limit-snapshot branch: a limit snapshot carries the
    write's count whatever its start offset (-1 or below the stored one included)."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[tuple[int, int, int, int]],
                     write: bool, dcc: int = -1) -> dict[str, Any]:
        limit_snapshot = key in self.offsets and write
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if limit_snapshot and rec["type"] == "ShareSnapshot" and self.minor >= 2:
            rec = rec | {"delivery_complete_count": dcc}
        return rec


class WriteFenceFromStoredOffset(Shard):
    """The write's leader-epoch fence compares with the stored ``ShareGroupOffset``'s leader epoch
    instead of ``leaderEpochMap``: after a re-initialize (whose snapshot carries leader epoch 0)
    a stale share-partition leader's write is accepted."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        cur = self.offsets.get(key)
        if cur is None:
            return super().on_write(key, req)
        saved = self.leader_fence.get(key)
        self.leader_fence[key] = cur.leader_epoch
        try:
            return super().on_write(key, req)
        finally:
            if saved is None:
                self.leader_fence.pop(key, None)
            else:
                self.leader_fence[key] = saved


class InitializeUnsetStartKept(Shard):
    """Initialize treats start offset -1 as "unchanged", as a write does
    (SHARE-RULE-WRITE-MINUS-ONE): re-initializing a stored share-partition with -1 keeps the old
    start offset (and so counts the delivery-complete count from it), where Kafka's initialize
    takes the request's start offset as it is."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        cur = self.offsets.get(key)
        if cur is not None and req["start_offset"] == -1:
            req = req | {"start_offset": cur.start_offset}
        return super().on_initialize(key, req)


class WriteStateEpochMustMatch(Shard):
    """The write's state-epoch check reads FENCED_STATE_EPOCH's text ("the share-group state epoch
    did not match") literally: a write whose state epoch is above the stored one is fenced too,
    where Kafka fences only a stored state epoch greater than the request's."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_write(key, req)
        se = req["state_epoch"]
        if err in (NONE, UNKNOWN) and se >= 0 and key in self.state_fence and se != self.state_fence[key]:
            return [], FENCED_STATE
        return recs, err


# ---------------------------------------------------------------------------- targets


class Correct(Correct2):
    """The bug-free shard (session 9's) with FindCoordinator, declared by ``routing``."""

    node: type[Node] = RoutingNode

    def __init__(self) -> None:
        super().__init__()
        self.model_config = {**getattr(self, "model_config", {}), "routing": True}

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        base = super().start(node, config)
        return self.node(base.shard, base.config_image)


def _attrs(cls: type) -> tuple[str, dict[str, Any]]:
    slot = "node" if issubclass(cls, Node) else "shard"
    return cls.__name__ + "Target", {slot: cls, "__doc__": cls.__doc__}


CORRECT = "Correct"
BUGS: dict[str, type] = {
    "routing-python-abs": RoutingPythonAbs,
    "find-coordinator-needs-load": FindCoordinatorNeedsLoad,
    "read-record-count-unset": ReadRecordCountUnset,
    "read-record-always-update": ReadRecordAlwaysUpdate,
    "limit-snapshot-count-from-request": LimitSnapshotCountFromRequest,
    "write-fence-from-stored-offset": WriteFenceFromStoredOffset,
    "initialize-unset-start-kept": InitializeUnsetStartKept,
    "write-state-epoch-must-match": WriteStateEpochMustMatch,
}
TARGETS = register(globals(), Correct, BUGS, _attrs)
__all__ = ["CORRECT", "TARGETS", "Correct", "_batches_json"]
