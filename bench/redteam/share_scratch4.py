"""Session 11's red-team share shard: new planted bugs (none of sessions 8-10 nor of the
catalogue) over session 9's from-scratch KIP-932 shard (``redteam.share_scratch2.Shard``, written
from spec/share.md and the adapter protocol alone), each a method override.

The slips of an outsider: a loader that starts each key afresh at its last snapshot (as a
compacted log would), Python's falsy ``0`` for "no state epoch", ``Integer.MAX_VALUE`` taken as
a "no epoch" sentinel, a combiner that lets the newer batch win an overlap, KIP-1226's tagged
count forgotten on the snapshot path, an image check on the topic alone, a write appended before
it is validated, "start offset -1 keeps the old one" on initialize, and a summary served from
the last snapshot record.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch4:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register
from redteam.share_scratch import FENCED_LEADER, FENCED_STATE, _batches_in, combine
from redteam.share_scratch2 import NONE, Key, Shard
from redteam.share_scratch2 import Correct as Correct2

Batch = tuple[int, int, int, int]
INT32_MAX = 2**31 - 1


def _key(rec: dict[str, Any]) -> Key:
    k = rec["key"]
    return k["group_id"], k["topic_id"], k["partition"]


class LoadFromLastSnapshot(Shard):
    """The loader treats each snapshot as the key's new beginning (what a compacted log holds):
    at Load a snapshot drops the key's fences and update count before it is replayed, so a
    re-initialize's leader epoch 0 becomes the fence and the updates before it stop counting."""

    def replay(self, rec: dict[str, Any]) -> None:
        if self.loading and rec["type"] == "ShareSnapshot":
            key = _key(rec)
            for m in (self.leader_fence, self.state_fence, self.count):
                m.pop(key, None)  # type: ignore[attr-defined]
        super().replay(rec)


class FalsyZeroStateEpoch(Shard):
    """``if state_epoch and fence > state_epoch`` (Python's falsy 0 standing in for "unset"): a
    write with state epoch 0 is never fenced by the state epoch."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_write(key, req)
        if err == FENCED_STATE and req["state_epoch"] == 0:
            return super().on_write(key, {**req, "state_epoch": self.state_fence[key]})
        return recs, err


class MaxLeaderEpochUnset(Shard):
    """``Integer.MAX_VALUE`` used as the "no leader epoch" sentinel (like -1): a read with that
    epoch records nothing (and moves no fence), where Kafka records it like any epoch."""

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if req["leader_epoch"] == INT32_MAX:
            req = {**req, "leader_epoch": -1}
        return super().on_read(key, req)


def _subtract(old: list[Batch], new: list[Batch]) -> list[Batch]:
    """The parts of ``old`` no batch of ``new`` covers."""
    out: list[Batch] = []
    for f, last, s, c in old:
        pieces = [(f, last)]
        for nf, nl, _, _ in new:
            pieces = [p for lo, hi in pieces for p in ((lo, min(hi, nf - 1)), (max(lo, nl + 1), hi)) if p[0] <= p[1]]
        out += [(lo, hi, s, c) for lo, hi in pieces]
    return out


class _UpdateCombiner(Shard):
    """Replays a ShareUpdate, then recomputes the stored batches with :meth:`merge`."""

    def merge(self, start: int, old: list[Batch], new: list[Batch]) -> list[Batch]:
        raise NotImplementedError

    def replay(self, rec: dict[str, Any]) -> None:
        if rec["type"] != "ShareUpdate":
            super().replay(rec)
            return
        cur = self.offsets[_key(rec)]
        old = list(cur.batches)
        start = cur.start_offset if rec["start_offset"] == -1 else rec["start_offset"]
        super().replay(rec)
        cur.batches = self.merge(start, old, _batches_in(rec["state_batches"]))


class AdjacentNotMerged(_UpdateCombiner):
    """The combiner merges overlapping batches of one state and count, not touching ones:
    ``[0-2 AVAILABLE 1]`` and ``[3-5 AVAILABLE 1]`` stay two batches."""

    def merge(self, start: int, old: list[Batch], new: list[Batch]) -> list[Batch]:
        return combine(start, old, new, bugs=frozenset({"touching-apart"}))


class OverlapLastWriterWins(_UpdateCombiner):
    """An overlap is settled by recency (the write's batch replaces the stored one), not by the
    higher delivery count: a late write with a lower count lowers it."""

    def merge(self, start: int, old: list[Batch], new: list[Batch]) -> list[Batch]:
        return combine(start, _subtract(old, new), new)


class DisjointAppendedUnsorted(_UpdateCombiner):
    """A fast path: batches wholly below every stored batch are appended after them without
    sorting (the combiner runs only when ranges overlap or touch)."""

    def merge(self, start: int, old: list[Batch], new: list[Batch]) -> list[Batch]:
        kept, fresh = combine(start, old), combine(start, new)
        if kept and fresh and fresh[-1][1] + 1 < kept[0][0]:
            return kept + fresh
        return combine(start, old, new)


class CadenceSnapshotDropsCount(Shard):
    """KIP-1226's tagged count written on the update path only: the snapshot a write makes at
    the update limit carries -1 (the field's default)."""

    def state_record(self, key: Key, le: int, se: int, start: int, new: list[Any], write: bool,
                     dcc: int = -1) -> dict[str, Any]:
        rec = super().state_record(key, le, se, start, new, write, dcc)
        if rec["type"] == "ShareSnapshot" and key in self.offsets:
            rec["delivery_complete_count"] = -1
        return rec


class ImageTopicOnly(Shard):
    """The metadata image checked by topic id alone: a partition the topic does not have passes."""

    def known(self, req: dict[str, Any]) -> bool:
        return self.image is not None and req["topic_id"] in {t for t, _ in self.image}


class FencedWritePersisted(Shard):
    """The write's record is appended before the fences are checked (append, then validate): a
    fenced write answers FENCED_* but its batches are stored."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_write(key, req)
        if err in (FENCED_LEADER, FENCED_STATE) and key in self.offsets:
            rec = self.state_record(key, req["leader_epoch"], req["state_epoch"], req["start_offset"],
                                    _batches_in(req["state_batches"]), write=True,
                                    dcc=req.get("delivery_complete_count", -1))
            return [rec], err
        return recs, err


class InitializeUnsetStartKeepsOld(Shard):
    """Re-initializing a stored key with start offset -1 keeps the stored start offset ("-1 means
    unchanged", as in a write), where Kafka's snapshot carries -1."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_initialize(key, req)
        cur = self.offsets.get(key)
        if recs and cur is not None and req["start_offset"] == -1:
            recs[0]["start_offset"] = cur.start_offset
        return recs, err


class SummaryFromLastSnapshot(Shard):
    """Read-summary served from the key's last snapshot record (kept aside for the purpose): the
    start offset and count that later updates moved are not seen."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.snap: dict[Key, dict[str, Any]] = {}

    def replay(self, rec: dict[str, Any]) -> None:
        super().replay(rec)
        if rec["type"] == "ShareSnapshot":
            self.snap[_key(rec)] = rec
        elif rec["type"] == "ShareTombstone":
            self.snap.pop(_key(rec), None)

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().request(req)
        resp = out[-1]
        snap = self.snap.get((req["group_id"], req["topic_id"], req["partition"]))
        if resp["type"] == "ReadSummaryResponse" and resp["error"] == NONE and snap is not None:
            resp |= {"start_offset": snap["start_offset"],
                     "delivery_complete_count": snap.get("delivery_complete_count", -1)}
        return out


class Correct(Correct2):
    """The bug-free shard (session 9's), named after this module."""


CORRECT = "Correct"
BUGS: dict[str, type[Shard]] = {
    "load-from-last-snapshot": LoadFromLastSnapshot,
    "falsy-zero-state-epoch": FalsyZeroStateEpoch,
    "max-leader-epoch-unset": MaxLeaderEpochUnset,
    "overlap-last-writer-wins": OverlapLastWriterWins,
    "cadence-snapshot-drops-count": CadenceSnapshotDropsCount,
    "image-topic-only": ImageTopicOnly,
    "fenced-write-persisted": FencedWritePersisted,
    "initialize-unset-start-keeps-old": InitializeUnsetStartKeepsOld,
    "summary-from-last-snapshot": SummaryFromLastSnapshot,
}
# Written, then found equivalent by design: where a run of offsets with one (state, count) is cut,
# and the order batches are listed in, are layout (SHARE-OBS-BATCHES: Kafka's own combiner leaves
# touching equal batches apart, SHARE-NOTE-COMBINE-UNMERGED, and its readers key batches by first
# offset), so the driver compares batch lists coalesced. Not measured.
EQUIVALENT: dict[str, type[Shard]] = {
    "adjacent-not-merged": AdjacentNotMerged,
    "disjoint-appended-unsorted": DisjointAppendedUnsorted,
}
TARGETS = register(globals(), Correct, BUGS, attribute_target("shard"))
