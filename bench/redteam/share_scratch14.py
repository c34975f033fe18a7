"""Session 23's blind red-team share shard ("blindvs"): five slips over the plain-dict reference
shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from spec/share.md's
rule names, docs/adapter-guide.md, KIP-932/KIP-1226 and Kafka's ``ShareCoordinatorShard``
alone, the driver, the model and the mutant catalogue unread (the earlier red-team modules read
for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what it needs to show. They aim at inputs and
sequences the earlier rounds left alone: a write's delivery-complete count judged after its start
offset was resolved (-1 or an out-of-order one), a re-initialize that repeats the stored state
epoch and start offset taken for a retry, 4.4's refusal of negative epochs written against the
sentinel -1 only, the start-offset clamp kept as a high-water map that a re-initialize does not
lower, and a write's own overlapping batches indexed by first offset.

BEFORE (committed before any share change; ``redteam_power.py --seeds 2``): caught at seeds 0
and 1: initialize-retry-no-record (44 runs); at one seed: count-after-start-resolved (run 285);
escaped at both: negative-epoch-sentinel-only, start-clamp-survives-reinitialize,
write-batches-by-first-offset. AFTER (session 23, SHARE-DRIVE-MIN-EPOCH): negative-epoch-sentinel-only caught at
seeds 0 and 1 (run 14); count-after-start-resolved still at one seed (run 170).
AFTER (session 24, SHARE-DRIVE-REINIT-BELOW-WRITE, SHARE-DRIVE-COUNT-FROM-BELOW,
SHARE-DRIVE-SAME-FIRST-OFFSET): all five caught at seeds 0 and 1 (runs 112, 20, 14, 65, 88 in
the order of ``BUGS``; docs/performance.md) on session 24's merged head, which was reverted
(the lockstep catalogue lost share-count-unknown-start-kept).
AFTER (session 25, the same probes with COUNT-FROM-BELOW and REINIT-BELOW-WRITE ending guided
paths instead of riding the guide's graph): count-after-start-resolved and
start-clamp-survives-reinitialize caught at seeds 0 and 1 by guided run 1,
write-batches-by-first-offset by guided run 58 (docs/performance.md).

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch14:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import NOT_SET, ShareShard, ShareTarget

Key = tuple[str, str, int]
Batch = list[int]


# ---------------------------------------------------------------------------- bugs


class CountAfterStartResolved(ShareShard):
    """SHARE-RULE-WRITE-COUNT ("from *below* the stored start offset, or with start offset -1
    ('not being written'), the stored count stays"): the implementer resolves the write's start
    offset first, as the record does (-1 -> the stored one, an out-of-order lower one clamped up
    to the stored one, SHARE-RULE-WRITE-START-MONOTONE), and then applies KIP-1226's rule to the
    resolved offset, which is now *equal* to the stored one: the higher of the two counts stays.
    So a write with start offset -1, or an out-of-order write from below, whose count is above
    the stored one raises the stored count (a count measured from another start offset). Needs
    rule set 4.2+, an initialize or write storing a start offset and a count, then a write with
    start offset -1 (or below the stored one) carrying a higher count."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        if start_offset == NOT_SET or start_offset < current["start_offset"]:
            start_offset = current["start_offset"]  # the slip: resolved before the count is judged
        return super().write_count(current, start_offset, count)


class InitializeRetryNoRecord(ShareShard):
    """SHARE-RULE-INITIALIZE-SNAPSHOT ("appends a ShareSnapshot ... a fresh start, with no
    merging"): the implementer makes InitializeShareGroupState idempotent for the group
    coordinator's retries: a request whose state epoch and start offset equal the stored ones is
    taken as a retry of the initialize that stored them and answered NONE with no record. But the
    group coordinator also re-initializes at the same state epoch and start offset (an offsets
    reset to where the share-partition already starts), which must wipe the batches, reset the
    leader epoch to 0, the count to 0 and bump the snapshot epoch. Needs an initialize, writes
    (batches stored, or a read recording a leader epoch), then an initialize repeating the stored
    state epoch and start offset."""

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        current = self.offsets.get(key)
        if (current is not None and self.hosts(key) and current["state_epoch"] == req["state_epoch"]
                and current["start_offset"] == req["start_offset"]):
            return [], self.response(req)
        return super().on_InitializeRequest(key, req)


class NegativeEpochSentinelOnly(ShareShard):
    """SHARE-VER-NEGATIVE-EPOCHS-REFUSED ("a negative leader epoch in a write or read, or a
    negative state epoch in a write or initialize, is INVALID_REQUEST"): the 4.4 hardening was
    written against the sentinel it removes ("-1 is no longer 'not set'": ``epoch == -1``), so
    any other negative epoch (-2, ``Integer.MIN_VALUE``) passes the check and goes on to the
    fences: a write at leader epoch -2 is FENCED_LEADER_EPOCH (or accepted before any fence), an
    initialize at state epoch -2 stores it. Needs rule set 4.4 and a request carrying a negative
    epoch other than -1."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        if not self.negative_epochs_refused or req["type"] not in ("WriteRequest", "ReadRequest",
                                                                    "InitializeRequest"):
            return None
        if req["type"] != "InitializeRequest" and req["leader_epoch"] == NOT_SET:
            return "The leader epoch cannot be a negative number."
        if req["type"] != "ReadRequest" and req["state_epoch"] == NOT_SET:
            return "The state epoch cannot be a negative number."
        return None


class StartClampSurvivesReinitialize(ShareShard):
    """SHARE-RULE-WRITE-START-MONOTONE ("only initialize ... sets a lower one"): the fix for
    out-of-order writes (apache/kafka#23074) was written as a fifth timeline map beside the
    leader-epoch and state-epoch fences, the highest start offset replayed per key ("start
    offsets only grow", cleared by a tombstone like the other maps), and a write is clamped to
    it. An initialize lowers the stored start offset (the group coordinator resetting offsets to
    earlier) but not the map, so every write after it is clamped up to the old start offset: the
    reset is undone by the leader's next write, and the records in between are skipped. Needs a
    write moving the start offset up, an initialize with a lower start offset, then a write whose
    start offset lies between the two."""

    def reset(self) -> None:
        super().reset()
        self.start_high: dict[Key, int] = {}

    def replay_maps(self, record: dict[str, Any]) -> None:
        super().replay_maps(record)
        k = record["key"]
        key = (k["group_id"], k["topic_id"], k["partition"])
        if record["type"] == "ShareTombstone":
            self.start_high.pop(key, None)
        elif record["start_offset"] != NOT_SET:
            self.start_high[key] = max(self.start_high.get(key, NOT_SET), record["start_offset"])

    def state_record(self, key: Key, leader_epoch: int, state_epoch: int, start_offset: int,
                     batches: list[Batch], from_read: bool = False, count: int = NOT_SET) -> dict[str, Any]:
        high = self.start_high.get(key)
        if key in self.offsets and start_offset != NOT_SET and high is not None and start_offset < high:
            start_offset = high  # the slip: clamped to the highest ever, not the stored one
        return super().state_record(key, leader_epoch, state_epoch, start_offset, batches, from_read, count)


class WriteBatchesByFirstOffset(ShareShard):
    """SHARE-RULE-COMBINE-PRIORITY / SHARE-RULE-RECORD-UPDATE ("the new batches combined on their
    own": "the incoming partition data could have overlapping state batches, we must merge
    them"): the implementer dedupes the write's batch list by first offset before combining ("a
    retried acknowledgement repeats a batch: the later entry is the newer"), so of two batches of
    one write that start at the same offset only the last stays: a shorter one drops the tail of
    a longer one before it ([5, 9] ARCHIVED then [5, 6] AVAILABLE keeps only 5-6), and a later one
    with a lower count replaces a higher one. Needs a write whose batches overlap with one first
    offset."""

    def on_WriteRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        by_first: dict[int, dict[str, Any]] = {}
        for b in req["state_batches"]:
            by_first[b["first_offset"]] = b
        return super().on_WriteRequest(key, {**req, "state_batches": list(by_first.values())})


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch14:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "count-after-start-resolved": CountAfterStartResolved,
    "initialize-retry-no-record": InitializeRetryNoRecord,
    "negative-epoch-sentinel-only": NegativeEpochSentinelOnly,
    "start-clamp-survives-reinitialize": StartClampSurvivesReinitialize,
    "write-batches-by-first-offset": WriteBatchesByFirstOffset,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
