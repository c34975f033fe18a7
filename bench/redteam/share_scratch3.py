"""Session 10's red-team share shard: new planted bugs (none of sessions 8 and 9 nor of the
catalogue) over session 9's from-scratch KIP-932 shard (``redteam.share_scratch2.Shard``, written
from spec/share.md and the adapter protocol alone), each a method override.

The slips of an outsider: a snapshot epoch kept in its own map that a tombstone does not clear,
an initialize that copies the stored leader epoch, a cadence snapshot that forgets to bump its
epoch, the response sent before the records it depends on, group ids in a case-insensitive store
(a SQL collation), an "empty" write or update not persisted or not counted, a retried write
taken as a duplicate, a summary cache a delete does not clear, and DeleteShareGroupState read as
"delete the whole group".

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch3:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import StepResult
from redteam._targets import attribute_target, register
from redteam.share_scratch2 import NONE, Key, Node, Shard, _key_json
from redteam.share_scratch2 import Correct as Correct2


class DeleteKeepsSnapshotEpoch(Shard):
    """The last snapshot epoch of each key kept in its own map, which a tombstone does not clear:
    a key initialized again after a delete starts at the old snapshot epoch + 1, not 0."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.epochs: dict[Key, int] = {}

    def replay(self, rec: dict[str, Any]) -> None:
        super().replay(rec)
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if rec["type"] == "ShareSnapshot":
            self.epochs[key] = rec["snapshot_epoch"]

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_initialize(key, req)
        if recs and key not in self.offsets and key in self.epochs:
            recs[0]["snapshot_epoch"] = self.epochs[key] + 1
        return recs, err


class InitializeKeepsLeaderEpoch(Shard):
    """Initialize's snapshot carries the stored leader epoch (a copy of the stored offset with
    the new state epoch and start), where Kafka writes 0."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_initialize(key, req)
        cur = self.offsets.get(key)
        if recs and cur is not None:
            recs[0]["leader_epoch"] = cur.leader_epoch
        return recs, err


class CadenceSnapshotKeepsEpoch(Shard):
    """The snapshot a write makes when the update count reaches the limit keeps the stored
    snapshot epoch (only initialize bumps it)."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Any], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        cur = self.offsets.get(key)
        if rec["type"] == "ShareSnapshot" and cur is not None:
            rec["snapshot_epoch"] = cur.snapshot_epoch
        return rec


class GroupCaseFolded(Shard):
    """State kept in a store whose keys compare case-insensitively (a SQL collation): group ``G``
    and group ``g`` share one entry, listed under the lower-case id."""

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        return super().request({**req, "group_id": str(req["group_id"]).lower()})


class EmptyWriteSkipped(Shard):
    """A write without state batches persists nothing ("nothing to write") yet answers NONE."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_write(key, req)
        if err == NONE and not req["state_batches"]:
            return [], NONE
        return recs, err


class EmptyUpdateNotCounted(Shard):
    """An update with no batches and no start offset (a read's leader-epoch record) is not
    counted towards the snapshot cadence."""

    def replay(self, rec: dict[str, Any]) -> None:
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        before = self.count.get(key)
        super().replay(rec)
        if rec["type"] == "ShareUpdate" and not rec["state_batches"] and rec["start_offset"] == -1:
            if before is None:
                self.count.pop(key, None)
            else:
                self.count[key] = before


class RetriedWriteIgnored(Shard):
    """A write equal to the last one accepted for its key is taken as a client retry and
    answered NONE without a record."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.last: dict[Key, tuple[Any, ...]] = {}

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        sig = (req["leader_epoch"], req["state_epoch"], req["start_offset"],
               tuple(tuple(sorted(b.items())) for b in req["state_batches"]))
        recs, err = super().on_write(key, req)
        if err == NONE:
            if self.last.get(key) == sig:
                return [], NONE
            self.last[key] = sig
        return recs, err


class SummaryCacheAfterDelete(Shard):
    """Read-summary answered from a cache filled by every state record and not cleared by a
    tombstone: after a delete it still answers the old epochs and start offset."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.cache: dict[Key, tuple[int, int, int]] = {}

    def replay(self, rec: dict[str, Any]) -> None:
        super().replay(rec)
        k = rec["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        cur = self.offsets.get(key)
        if cur is not None:
            self.cache[key] = (cur.state_epoch, cur.leader_epoch, cur.start_offset)

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().request(req)
        key = (req["group_id"], req["topic_id"], req["partition"])
        resp = out[-1]
        if resp["type"] == "ReadSummaryResponse" and resp["error"] == NONE and key not in self.offsets \
                and key in self.cache:
            se, le, start = self.cache[key]
            resp |= {"state_epoch": se, "leader_epoch": le, "start_offset": start}
        return out


class DeleteWholeGroup(Shard):
    """DeleteShareGroupState read as "delete the group's state": a tombstone for every stored
    partition of the group, not only the one named."""

    def on_delete(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_delete(key, req)
        if err == NONE and recs:
            others = [k for k in self.offsets if k[0] == key[0] and k != key]
            recs += [{"type": "ShareTombstone", "key": _key_json(k)} for k in others]
        return recs, err


class ResponseFirstNode(Node):
    """The adapter hands the response out before the records the shard appended for it."""

    def step(self, inp: dict[str, Any]) -> StepResult:
        res = super().step(inp)
        outs = list(res.outputs)
        if len(outs) > 1:
            outs = [outs[-1], *outs[:-1]]
        return StepResult(outputs=outs, observation=res.observation)


class Correct(Correct2):
    """The bug-free shard (session 9's), named after this module."""


class ResponseBeforeRecords(Correct):
    """The response is sent before the records it acknowledges (not persisted-before-sent)."""

    def start(self, node: Any, config: dict[str, Any]) -> Node:
        n = super().start(node, config)
        return ResponseFirstNode(n.shard, n.config_image)


CORRECT = "Correct"
BUGS: dict[str, type[Shard]] = {
    "delete-keeps-snapshot-epoch": DeleteKeepsSnapshotEpoch,
    "initialize-keeps-leader-epoch": InitializeKeepsLeaderEpoch,
    "cadence-snapshot-keeps-epoch": CadenceSnapshotKeepsEpoch,
    "group-case-folded": GroupCaseFolded,
    "empty-write-skipped": EmptyWriteSkipped,
    "empty-update-not-counted": EmptyUpdateNotCounted,
    "retried-write-ignored": RetriedWriteIgnored,
    "summary-cache-after-delete": SummaryCacheAfterDelete,
    "delete-whole-group": DeleteWholeGroup,
}
TARGETS: dict[str, str] = {"response-before-records": "ResponseBeforeRecords"}
TARGETS |= register(globals(), Correct, BUGS, attribute_target("shard"))
