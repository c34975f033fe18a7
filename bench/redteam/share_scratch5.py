"""Session 12's red-team share shard: eight new planted bugs (none of sessions 8-11 nor of the
catalogue) over session 9's from-scratch KIP-932 shard (``redteam.share_scratch2.Shard``), each a
method override, written blind (from spec/share.md's rule text, not from the driver's probes).

The slips of a contributor reimplementing the shard: "-1 = unchanged" honoured in the handler but
not on replay, a start offset that cuts a batch keeping it whole, the coordinator counting a
re-delivery itself, a summary that skips the delivered head, a loader that skips the update
"the next snapshot holds", a leader epoch of -1 compared like any epoch, a deleted key answered
like a never-written one, and a state-epoch fence looked up by topic-partition only.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch5:Correct
"""

from __future__ import annotations

from typing import Any

from redteam._targets import attribute_target, register
from redteam.share_scratch import FENCED_LEADER, FENCED_STATE, _batches_in
from redteam.share_scratch2 import NONE, Key, Shard
from redteam.share_scratch2 import Correct as Correct2

INVALID = "INVALID_REQUEST"
AVAILABLE, ACKNOWLEDGED, ARCHIVED = 0, 2, 4


def _key(rec: dict[str, Any]) -> Key:
    k = rec["key"]
    return k["group_id"], k["topic_id"], k["partition"]


class UpdateUnsetStartReplayed(Shard):
    """Replay takes a ShareUpdate's start offset literally: the -1 ("not being written") a write
    leaves in the update becomes the stored start offset, and nothing is pruned."""

    def replay(self, rec: dict[str, Any]) -> None:
        key = _key(rec)
        unset = rec["type"] == "ShareUpdate" and rec["start_offset"] == -1 and key in self.offsets
        super().replay(rec)
        if unset:
            self.offsets[key].start_offset = -1


class ClipKeepsStraddlingBatch(Shard):
    """A batch the new start offset cuts is kept whole (only batches wholly below it are
    dropped): its offsets below the start offset stay stored."""

    def replay(self, rec: dict[str, Any]) -> None:
        key = _key(rec)
        before = list(self.offsets[key].batches) if rec["type"] == "ShareUpdate" and key in self.offsets else []
        super().replay(rec)
        cur = self.offsets.get(key)
        if not before or cur is None:
            return
        s = cur.start_offset
        whole = {(last, st, c): f for f, last, st, c in before if f < s <= last}
        cur.batches = [(whole.get((last, st, c), f) if f == s else f, last, st, c) for f, last, st, c in cur.batches]


class AvailableCountBumped(Shard):
    """The coordinator counts a re-delivery itself: an AVAILABLE batch written with a delivery
    count above 0 (a record released for re-acquisition) is stored with one more."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        bumped = [{**b, "delivery_count": b["delivery_count"] + 1}
                  if b["delivery_state"] == AVAILABLE and b["delivery_count"] > 0 else b
                  for b in req["state_batches"]]
        return super().on_write(key, {**req, "state_batches": bumped})


class SummarySkipsDelivered(Shard):
    """ReadShareGroupStateSummary answers the first offset still to deliver: acknowledged or
    archived batches at the start offset are skipped in the start offset it reports."""

    def request(self, req: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().request(req)
        resp = out[-1]
        cur = self.offsets.get((req["group_id"], req["topic_id"], req["partition"]))
        if resp["type"] == "ReadSummaryResponse" and resp["error"] == NONE and cur is not None:
            start = cur.start_offset
            for f, last, st, _ in sorted(cur.batches):
                if f <= start <= last and st in (ACKNOWLEDGED, ARCHIVED):
                    start = last + 1
            resp["start_offset"] = start
        return out


class LoadDropsUpdateAtLimit(Shard):
    """At Load, the ShareUpdate that brings the update count to the limit is only counted: the
    loader assumes the limit snapshot that follows it holds its batches (it does not when the
    shard fails over before the next write)."""

    def replay(self, rec: dict[str, Any]) -> None:
        key = _key(rec)
        if (self.loading and rec["type"] == "ShareUpdate" and key in self.offsets and self.limit > 0
                and self.count.get(key, 0) + 1 == self.limit):
            self.count[key] = self.count.get(key, 0) + 1
            return
        super().replay(rec)


class UnsetLeaderEpochFencesWrite(Shard):
    """A write's leader epoch is compared with the fence even when it is -1 ("not set", 4.0-4.3):
    such a write is FENCED_LEADER_EPOCH once a leader epoch is stored."""

    def on_write(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if req["leader_epoch"] == -1 and key in self.offsets and self.leader_fence.get(key, -1) > -1:
            return [], FENCED_LEADER
        return super().on_write(key, req)


class DeletedKeyReadAnswers(Shard):
    """A read of a deleted share-partition answers NONE with the defaults (start offset -1, no
    batches), as for a key never written in 4.0, instead of refusing it as uninitialized."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.deleted: set[Key] = set()

    def on_delete(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_delete(key, req)
        if err == NONE and recs:
            self.deleted.add(key)
        return recs, err

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        recs, err = super().on_initialize(key, req)
        if err == NONE:
            self.deleted.discard(key)
        return recs, err

    def on_read(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        if key in self.deleted and key not in self.offsets and self.known(req):
            return [], NONE
        return super().on_read(key, req)


class StateFenceByTopicPartition(Shard):
    """Initialize looks the state-epoch fence up by topic and partition (the group left out of
    the lookup): another group's higher state epoch fences it."""

    def on_initialize(self, key: Key, req: dict[str, Any]) -> tuple[list[dict[str, Any]], str]:
        others = [se for k, se in self.state_fence.items() if k[1:] == key[1:] and k != key]
        if others and max(others) > req["state_epoch"] and self.minor >= 1:
            return [], FENCED_STATE
        return super().on_initialize(key, req)


class Correct(Correct2):
    """The bug-free shard (session 9's), named after this module."""


CORRECT = "Correct"
BUGS: dict[str, type[Shard]] = {
    "update-unset-start-replayed": UpdateUnsetStartReplayed,
    "clip-keeps-straddling-batch": ClipKeepsStraddlingBatch,
    "available-count-bumped": AvailableCountBumped,
    "summary-skips-delivered": SummarySkipsDelivered,
    "load-drops-update-at-limit": LoadDropsUpdateAtLimit,
    "unset-leader-epoch-fences-write": UnsetLeaderEpochFencesWrite,
    "deleted-key-read-answers": DeletedKeyReadAnswers,
    "state-fence-by-topic-partition": StateFenceByTopicPartition,
}
# The release a bug's target claims (its model_config): -1 is "not set" only before 4.4.
CLAIMS = {UnsetLeaderEpochFencesWrite: "4.3"}
TARGETS = register(globals(), Correct, BUGS, attribute_target("shard", version=CLAIMS.get))
__all__ = ["CORRECT", "TARGETS", "Correct", "_batches_in"]
