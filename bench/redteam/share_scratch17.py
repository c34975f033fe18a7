"""Session 28's blind red-team share shard ("blindshare"): eight slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md, docs/adapter-guide.md, KIP-932/KIP-1226 and Kafka's ``ShareCoordinatorShard`` /
``ShareCoordinatorService`` / ``SharePartitionKey`` / ``ShareCoordinatorOffsetsManager`` alone, the
driver, the model, the tests and the mutant catalogue unread (the earlier red-team modules read
for their bug names and docstrings only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what input sequence reaches it. They aim at
inputs the earlier rounds left alone: odd group ids in the state RPCs (not FindCoordinator),
Java ``int`` arithmetic at the top of the epoch range and in a 64-bit offset kept in an ``int``,
a metadata image that a fail-over rolls back, a tombstone that takes no log position, a summary
of an uninitialized share-partition, an empty snapshot batch list read as "unchanged", and a
delete that forgets the partition index.

BEFORE (module committed at 3ab3305 before any look at the driver, the model, the tests or the
catalogue; ``redteam_power.py --seeds 2`` split into four ``--only`` processes, load 10-30 on 2
cores): caught at seeds 0 and 1: snapshot-empty-batches-kept (run 1), summary-uninitialized-refused
(run 4), fence-epoch-plus-one-overflow (run 5), tombstone-takes-no-offset (run 15),
load-restores-initial-image (run 20), tombstone-drops-sibling-partitions (run 25); escaped at both
(320 runs each): state-key-parsed-from-string, start-offset-as-int32.

Diagnosis (session 28): both *not reached*. Every state RPC of the driver names group ``g``, ``h``
or ``G`` (the odd group ids of SHARE-DRIVE-ROUTING go to FindCoordinator only), and every offset
it sends is below 10 (Integer.MAX_VALUE appears as an epoch only). AFTER (the path-end probes
SHARE-DRIVE-ODD-GROUP-STATE and SHARE-DRIVE-WIDE-START-OFFSET; mutants
``share-group-id-from-key-string`` and ``share-start-offset-int32``): both caught at run 1 at
seeds 0 and 1; the other six unchanged (the guided plans are main's with steps appended).

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch17:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_LEADER,
    NOT_SET,
    RESPONSE_OF,
    ShareShard,
    ShareTarget,
)

Key = tuple[str, str, int]


def _int32(value: int) -> int:
    """Java's ``(int)`` narrowing / int arithmetic wrap-around."""
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


# ---------------------------------------------------------------------------- bugs


class StateKeyParsedFromString(ShareShard):
    """SHARE-RULE-KEY ("a share-partition key is (group id, topic id, partition)") and
    SHARE-RULE-KEY-PARSE ("for every group id KIP-932 allows (any non-empty string, ':' and
    spaces included) ... the group id is everything before them, untrimmed"): the service routes
    every state RPC by its coordinator key string and the implementer's shard rebuilds the
    ``SharePartitionKey`` from that string (``SharePartitionKey.getInstance(String)``) with the
    old 4.0 parse: ``key.split(":")``, exactly three fields, ``tokens[0].trim()``. FindCoordinator
    (fixed separately, KAFKA-20183) is right; the slip is on the Initialize/Write/Read/Delete/
    ReadSummary path. A group id holding ':' is refused as INVALID_REQUEST ("Invalid key
    format"), and a padded group id ``" g "`` is stored, fenced and answered as ``"g"`` (two
    groups share one state). Needs a state RPC for a group id holding ':' or a leading/trailing
    blank (an initialize of it)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp["type"] in RESPONSE_OF and self.active and self.basic_error(inp) is None:
            tokens = f"{inp['group_id']}:{inp['topic_id']}:{inp['partition']}".split(":")
            if len(tokens) != 3:
                return [self.response(inp, "INVALID_REQUEST", "Invalid key format")]
            inp = {**inp, "group_id": tokens[0].strip()}
        return super().step(inp)


class LoadRestoresInitialImage(ShareShard):
    """SHARE-RULE-METADATA-UPDATE ("A shard loaded later (fail-over) validates against the image
    as it is then") and SHARE-RULE-LOAD: the implementer builds a shard's metadata from the
    broker's image captured when the coordinator was created (the node's start configuration)
    and the fail-over path constructs a fresh shard the same way, so a Load throws away every
    MetadataUpdate seen since start: a topic deleted before the fail-over is hosted again (its
    stale leader's write is answered NONE), a partition added before it is unknown again. The
    MetadataUpdate while unloaded is not the slip (it is taken); the *active* one before the
    Unload is lost. Needs a MetadataUpdate that changes a topic-partition, then ``Unload`` and
    ``Load``, then a request on that topic-partition."""

    def __init__(self, snapshot_limit: int, image: list[list[Any]] | None) -> None:
        super().__init__(snapshot_limit, image)
        self.initial_image = None if self.image is None else set(self.image)

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        if inp["type"] == "Load":
            self.image = None if self.initial_image is None else set(self.initial_image)
        return out


class FenceEpochPlusOneOverflow(ShareShard):
    """SHARE-RULE-VALIDATE-LEADER-FENCE / SHARE-RULE-READ-FENCE ("if the stored leaderEpochMap
    value is greater, the result is FENCED_LEADER_EPOCH"): the implementer writes the staleness
    test as "the request is not at least the stored epoch", ``requestEpoch + 1 <= storedEpoch``
    in Java ``int`` arithmetic (copied from an offsets check of the form ``next <= last``). At
    ``Integer.MAX_VALUE`` the ``+ 1`` wraps to ``Integer.MIN_VALUE``, so a leader at the highest
    epoch is fenced by every stored epoch (0 after an initialize) in writes and reads. Needs a
    write or read at leader epoch 2147483647 on a key with a leader-epoch fence."""

    @staticmethod
    def stale(request_epoch: int, stored: int | None) -> bool:
        return request_epoch != NOT_SET and stored is not None and _int32(request_epoch + 1) <= stored

    def write_fenced(self, key: Key, req: dict[str, Any]) -> tuple[str, str] | None:
        if key in self.offsets and self.stale(req["leader_epoch"], self.leader_epochs.get(key)):
            return FENCED_LEADER
        return super().write_fenced(key, req)

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key in self.offsets and self.stale(req["leader_epoch"], self.leader_epochs.get(key)):
            return [], self.response(req, *FENCED_LEADER)
        return super().on_ReadRequest(key, req)


class StartOffsetAsInt32(ShareShard):
    """SHARE-STATE-OFFSET (the stored start offset is the request's ``StartOffset``, an int64
    like every Kafka offset): the implementer's ``ShareGroupOffset`` keeps ``int startOffset``
    (the neighbouring epochs are ints) and the replay narrows the record's value with a cast, so
    a share-partition of a topic past 2^31 records stores a start offset wrapped to a negative
    number: reads, summaries and the next records carry it, and the combiner prunes nothing.
    The records written by the handler still carry the right 64-bit value. Needs an initialize
    or write with a start offset of 2^31 or more."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        if record["type"] in ("ShareSnapshot", "ShareUpdate") and record["start_offset"] != NOT_SET:
            record = {**record, "start_offset": _int32(record["start_offset"])}
        super().replay_maps(record)


class TombstoneTakesNoOffset(ShareShard):
    """SHARE-RULE-REDUNDANT-OFFSET ("Replay hands it each ShareSnapshot and tombstone with its log
    offset"): the implementer numbers the replayed records with a counter advanced at the end of
    the value-record branch, and the tombstone (a null value) returns early from the replay, so
    it takes the position of the record after it: every record after a delete is numbered one
    too low and the redundant offset lags one behind the snapshot holding it. Needs a delete of
    a stored key, then a snapshot that moves the redundant offset (an initialize, a limit
    snapshot), e.g. initialize, delete, initialize again."""

    def replay(self, record: dict[str, Any]) -> None:
        if record["type"] == "ShareTombstone":
            self.replay_maps(record)
            k = record["key"]
            self.track_redundant((k["group_id"], k["topic_id"], k["partition"]), record["type"])
            return  # the slip: no ``self.log_end += 1`` for a null-value record
        super().replay(record)


class SummaryUninitializedRefused(ShareShard):
    """SHARE-RULE-READ-SUMMARY ("For a key with no state it answers PartitionFactory's defaults:
    state epoch 0, leader epoch 0, start offset -1, count -1") against
    SHARE-VER-UNINITIALIZED-REFUSED, which covers only writes and reads: the implementer copies
    the read handler's 4.1 guard into ReadShareGroupStateSummary ("Read summary operation on
    uninitialized share partition not allowed."), first after the basic checks, so the group
    coordinator's summary of a share-partition it has not initialized yet (or has deleted) is
    INVALID_REQUEST. Needs a read-summary of a key with no state."""

    def on_ReadSummaryRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if key not in self.offsets:
            return [], self.response(req, "INVALID_REQUEST",
                                     "Read summary operation on uninitialized share partition not allowed.")
        return super().on_ReadSummaryRequest(key, req)


class SnapshotEmptyBatchesKept(ShareShard):
    """SHARE-REC-SNAPSHOT ("the complete state of one key"), SHARE-RULE-REPLAY-SNAPSHOT ("A
    snapshot replaces the stored offset") and SHARE-RULE-INITIALIZE-SNAPSHOT ("there are no
    batches: a fresh start"): the implementer shares one "apply value" path between snapshots and
    updates and reads an empty ``StateBatches`` list as "no batches in this record, keep what is
    stored", the way an update's empty list means. So the initialize of a stored key (the group
    coordinator resetting the share-partition's offsets) keeps the delivery state of every
    record written before it, and a limit snapshot whose combined batches came out empty keeps
    the old ones. Needs writes with batches, then an initialize of the same key."""

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        kept = self.offsets.get(key)
        super().replay_snapshot(key, record)
        if kept is not None and not record["state_batches"]:
            self.offsets[key]["state_batches"] = [list(b) for b in kept["state_batches"]]


class TombstoneDropsSiblingPartitions(ShareShard):
    """SHARE-RULE-REPLAY-TOMBSTONE ("A tombstone removes the key from all four maps") and
    SHARE-RULE-KEY (the key is group, topic *and partition*): DeleteShareGroupState arrives as
    group -> topics -> partitions, and the implementer's replay of a tombstone removes the state
    of every stored key of the tombstone's (group, topic), the partition loop lost in the
    clean-up helper. The handler still writes one tombstone for the named partition, so the log
    is right and so is every answer until the sibling is used: its write or read is refused as
    uninitialized, its summary answers the defaults. Needs two stored partitions of one topic in
    one group, a delete of one, then a request on the other."""

    def replay_maps(self, record: dict[str, Any]) -> None:
        super().replay_maps(record)
        if record["type"] == "ShareTombstone":
            k = record["key"]
            for table in (self.offsets, self.leader_epochs, self.state_epochs, self.update_counts):
                for key in [key for key in table if key[0] == k["group_id"] and key[1] == k["topic_id"]]:
                    del table[key]


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch17:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "state-key-parsed-from-string": StateKeyParsedFromString,
    "load-restores-initial-image": LoadRestoresInitialImage,
    "fence-epoch-plus-one-overflow": FenceEpochPlusOneOverflow,
    "start-offset-as-int32": StartOffsetAsInt32,
    "tombstone-takes-no-offset": TombstoneTakesNoOffset,
    "summary-uninitialized-refused": SummaryUninitializedRefused,
    "snapshot-empty-batches-kept": SnapshotEmptyBatchesKept,
    "tombstone-drops-sibling-partitions": TombstoneDropsSiblingPartitions,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
