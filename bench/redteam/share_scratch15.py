"""Session 24's blind red-team share shard ("blindshare"): six slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md's rule names, docs/adapter-guide.md, KIP-932/KIP-1226 and Kafka's
``ShareCoordinatorShard`` alone, the driver, the model and the mutant catalogue unread (the
earlier red-team modules read for their bug names only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what it needs to show. They aim at inputs
and sequences the earlier rounds left alone: a leader epoch compared by identity (equal only in
the small-int cache), a read-summary served from memory before the metadata image is asked, a
snapshot limit of 0 read as "never compact", 4.4's refusal of negative epochs appended after the
fences and the image check, a known delivery-complete count held monotone across start offsets,
and a delivery count narrowed to a signed byte.

BEFORE (committed before any share change; ``redteam_power.py --seeds 2``, split per bug/seed
under a load of ~28 on 2 cores): caught at seeds 0 and 1: limit-zero-disables-snapshots (run 2),
summary-stored-before-image (run 35), negative-epoch-checked-last (run 86),
known-count-never-decreases (run 111); at seed 0 only: same-epoch-read-boxed-compare (random run
228, 4 steps); escaped at both: delivery-count-as-int8. With
SHARE-DRIVE-MAX-DELIVERY-COUNT (commit 48ed5a6, reverted in 3fb8df5: the lockstep catalogue
could not be run in time) delivery-count-as-int8 is caught at seed 0, guided run 110, 2 steps.
AFTER (session 25, SHARE-DRIVE-MAX-DELIVERY-COUNT restored, its write also ending guided
paths): delivery-count-as-int8 caught at seeds 0 and 1 by guided run 5, 2 steps
(docs/performance.md).

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch15:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import NONE, NOT_SET, ShareShard, ShareTarget

Key = tuple[str, str, int]
Batch = list[int]
INT_MAX = 2**31 - 1


# ---------------------------------------------------------------------------- bugs


class SameEpochReadBoxedCompare(ShareShard):
    """SHARE-RULE-READ-LEADER-EPOCH ("a read whose leader epoch is neither -1 nor the stored
    leader-epoch fence also appends a record"): the port of ``readStateAndMaybeUpdateLeaderEpoch``'s
    "optimization in case leaderEpoch update is not required" compares the request's leader
    epoch with the fence by identity (Python's ``is``, Java's ``Integer == Integer`` on two boxed
    values), which is equality only inside the small-integer cache (CPython -5..256; Java's
    Integer cache -128..127). A leader whose epoch is above it and that reads again at its own
    epoch (a share-partition reloaded by the same leader) writes a ShareUpdate each time: an
    extra record, an update count that reaches the snapshot limit early. Needs a read at a
    leader epoch above 256 that records it, then another read at the same epoch."""

    def read_records(self, key: Key, req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        le = req["leader_epoch"]
        if stored_leader == le and not -5 <= le <= 256:
            stored_leader = None  # the slip: ``stored_leader is le`` fails outside the int cache
        return super().read_records(key, req, response, stored_leader)


class SummaryStoredBeforeImage(ShareShard):
    """SHARE-RULE-READ-SUMMARY with SHARE-RULE-VALIDATE-UNKNOWN-TOPIC ("if the topic or partition
    is not in the image, the result is UNKNOWN_TOPIC_OR_PARTITION. This applies to every
    handler") and SHARE-RULE-METADATA-UPDATE (a deleted topic's state stays stored): the
    implementer takes ReadShareGroupStateSummary for a read-only lookup and answers a stored
    key straight from memory, asking the metadata image only for a key it does not hold (to tell
    UNKNOWN_TOPIC_OR_PARTITION from "no state yet"). After a topic is deleted while its
    share-partition is still stored, the group coordinator's summary of it is answered NONE
    with the stored epochs, start offset and count. Needs a stored key, a MetadataUpdate that
    drops its topic, then a read-summary of it."""

    def on_ReadSummaryRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        current = self.offsets.get(key)
        if current is not None:
            return [], self.response(req, state_epoch=current["state_epoch"], leader_epoch=current["leader_epoch"],
                                     start_offset=current["start_offset"],
                                     delivery_complete_count=current["delivery_complete_count"])
        return super().on_ReadSummaryRequest(key, req)


class LimitZeroDisablesSnapshots(ShareShard):
    """SHARE-RULE-SNAPSHOT-CADENCE / SHARE-NOTE-CADENCE ("with limit 0, every write after the
    first is a snapshot"): ``share.coordinator.snapshot.update.records.per.snapshot`` is read the
    way many Kafka settings read 0 ("0 disables"), as "never compact": the shard keeps the limit
    as ``limit or Integer.MAX_VALUE``, so at limit 0 every write and every recording read is a
    ShareUpdate and no limit snapshot is ever written (the replay's reset at the limit never
    fires either). Needs a coordinator configured with snapshot limit 0 and a write (or a read
    at a new leader epoch) to a stored key."""

    def __init__(self, snapshot_limit: int, image: list[list[Any]] | None) -> None:
        super().__init__(snapshot_limit or INT_MAX, image)  # the slip: 0 taken for "unset"


class NegativeEpochCheckedLast(ShareShard):
    """SHARE-VER-NEGATIVE-EPOCHS-REFUSED ("checked right after the partition check"): the 4.4
    hardening (KAFKA-20743) was appended at the *end* of each handler's validation, after the
    uninitialized check, the fences and the metadata image, where a reviewer reads "one more
    check" as harmless. The fences still skip -1 as before, so a -1 epoch reaches the new check
    and is refused, but any other negative epoch is compared with the fence first: a write or
    read at leader epoch -2 or Integer.MIN_VALUE on a key with a fence is FENCED_LEADER_EPOCH,
    an initialize at state epoch MIN_VALUE on a stored key FENCED_STATE_EPOCH, and a negative
    epoch for a topic the image lacks UNKNOWN_TOPIC_OR_PARTITION, where 4.4 answers
    INVALID_REQUEST. Needs rule set 4.4 and a request with a negative epoch on a stored key (an
    epoch other than -1, or a topic deleted from the image)."""

    def negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        return None  # not in front any more: see late_negative_epoch_error

    def late_negative_epoch_error(self, req: dict[str, Any]) -> str | None:
        return ShareShard.negative_epoch_error(self, req)

    def _last(self, req: dict[str, Any], result: tuple[list[Any], dict[str, Any]]
              ) -> tuple[list[Any], dict[str, Any]]:
        records, response = result
        if response["error"] == NONE:
            error = self.late_negative_epoch_error(req)
            if error is not None:
                return [], self.response(req, "INVALID_REQUEST", error)
        return records, response

    def on_WriteRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        return self._last(req, super().on_WriteRequest(key, req))

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        return self._last(req, super().on_ReadRequest(key, req))

    def on_InitializeRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        return self._last(req, super().on_InitializeRequest(key, req))


class KnownCountNeverDecreases(ShareShard):
    """SHARE-RULE-WRITE-COUNT ("it replaces the stored one only from a start offset *above* the
    stored one; at the *same* start offset the higher of the two stays"): the implementer
    generalised "the count only grows" from one start offset to the share-partition: a known
    count (not -1) never goes below the stored known count, whatever the start offset, "since
    completed deliveries cannot un-complete". But a count is measured from its start offset, and
    a leader that moved the start offset past completed records reports fewer of them: from a
    higher start offset a lower count must replace the stored one. An unknown count (-1) from
    above still replaces it, so the actors' writes (count -1) are judged right. Needs rule set
    4.2+, a stored known count, then a write from a higher start offset carrying a lower known
    count."""

    def write_count(self, current: dict[str, Any], start_offset: int, count: int) -> int:
        out = super().write_count(current, start_offset, count)
        stored = int(current["delivery_complete_count"])
        if out != NOT_SET and stored != NOT_SET and out < stored:
            return stored  # the slip: monotone across start offsets
        return out


class DeliveryCountAsInt8(ShareShard):
    """SHARE-STATE-OFFSET / SHARE-INV-NO-LOSS (a state batch's delivery count is the schema's
    int16 ``DeliveryCount``; the coordinator stores what the leader wrote): the port packs a
    batch as the record's bytes and gives the delivery count the int8 of the field next to it
    (``DeliveryState``), "a delivery count is bounded by ``group.share.delivery.count.limit``
    anyway". A count of 128 or more wraps to a negative number (200 becomes -56), which the
    combiner then ranks below every other batch: the count is lost and a lower-count batch wins
    the offset. Needs a write carrying a batch with delivery count 128 or more."""

    @staticmethod
    def int8(value: int) -> int:
        return (value + 128) % 256 - 128

    def on_WriteRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        batches = [{**b, "delivery_count": self.int8(b["delivery_count"])} for b in req["state_batches"]]
        return super().on_WriteRequest(key, {**req, "state_batches": batches})


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch15:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "same-epoch-read-boxed-compare": SameEpochReadBoxedCompare,
    "summary-stored-before-image": SummaryStoredBeforeImage,
    "limit-zero-disables-snapshots": LimitZeroDisablesSnapshots,
    "negative-epoch-checked-last": NegativeEpochCheckedLast,
    "known-count-never-decreases": KnownCountNeverDecreases,
    "delivery-count-as-int8": DeliveryCountAsInt8,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
