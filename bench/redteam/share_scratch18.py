"""Session 29's blind red-team share shard ("blindshare"): eight slips over the plain-dict
reference shard (``conformance/targets/reference/share.py``'s ``ShareShard``), written from
spec/share.md, README/CONTRIBUTING, KIP-932/KIP-1226 and Kafka's ``ShareCoordinatorShard`` /
``PersisterStateBatchCombiner`` / ``ShareCoordinatorService`` alone, the driver, the model, the
tests and the mutant catalogue unread (the earlier red-team modules read for their bug names and
docstrings only, to stay off them).

Each bug is one subclass of the shard overriding one or two methods, its docstring naming the
rule it breaks, why an implementer slips there and what input sequence reaches it. They aim at
corners the earlier rounds left alone: the metadata image's partition count at its boundary,
a merge pass that bridges gaps between equal batches, the snapshot cadence reset kept by the
write handler instead of the replay, a leader-epoch fence shared by the groups of one
topic-partition, the service's own COORDINATOR_NOT_AVAILABLE answer given a handler's defaults,
a Go-style ``hashCode`` over UTF-8 bytes, an update's replay that puts its (stored, possibly
lowered) leader epoch into the fence, and KIP-1226's initialize count keyed on a positive start
offset.

BEFORE (module committed at 81e1bbb before any look at the driver, the model, the tests or the
catalogue; ``PYTHONPATH=bench nice -n 10 python bench/redteam_power.py --seeds 2 --protocols share
--modules share_scratch18 --no-correct --only ...`` split into three processes, load 4-6 on 2
cores; ``Correct`` conforms at seed 0, 320 runs): caught at seeds 0 and 1 (runs to detection,
median/max): routing-hash-utf8 (1, 1), update-replay-sets-leader-fence (1, 1),
initialize-count-positive-start (1, 1), cadence-reset-in-write-handler (1, 1),
leader-fence-by-topic-partition (1, 1), partition-count-off-by-one (35, 35),
unavailable-answers-handler-defaults (155, 157); escaped at both (320 runs each):
equal-neighbours-bridge-gap.

Diagnosis (session 29, driver and model read after BEFORE): *not reached*. The model's write menu
is one single-offset batch per write (offsets 0 and 1), and the driver's probes write one batch or
batches that touch or overlap (``INNER_SPLIT``, ``INNER_LOSER``, the zero-count probe at the next
free offset), so no combine ever saw two batches of one (state, count) with a gap between them;
the model judges it once sent (``combine`` keeps gaps; SHARE-OBS-BATCHES coalesces only touching
batches). AFTER (the path-end probe SHARE-DRIVE-GAPPED-BATCHES: ``h:T:0`` initialized, written
``[0,0]`` and ``[2,2]`` ACKNOWLEDGED x1 in one write, read; ``PATH_END_RECORDS`` 12 -> 14 so its two
records fit after the other path-end probes; mutant ``share-merge-bridges-gap``;
``PYTHONPATH=bench nice -n 10 python bench/redteam_power.py --seeds 2 --protocols share --modules
share_scratch18 --no-correct --only equal-neighbours-bridge-gap``): caught at run 1 at seeds 0
and 1 (counterexample 2 steps). The others re-run after the change (same command, ``--only`` the
six): partition-count-off-by-one (35, 35), cadence-reset-in-write-handler,
leader-fence-by-topic-partition, routing-hash-utf8, update-replay-sets-leader-fence and
initialize-count-positive-start (1, 1), and unavailable-answers-handler-defaults (155, 157,
random runs), all as before: 8/8 caught at seeds 0 and 1.

    PYTHONPATH=bench kspec conform share --target python:redteam.share_scratch18:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.share import (
    FENCED_LEADER,
    NOT_AVAILABLE,
    NOT_SET,
    RESPONSE_OF,
    STATE_PARTITIONS,
    ShareShard,
    ShareTarget,
)

Key = tuple[str, str, int]


def _int32(value: int) -> int:
    """Java/Go ``int32`` wrap-around."""
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


# ---------------------------------------------------------------------------- bugs


class PartitionCountOffByOne(ShareShard):
    """SHARE-RULE-VALIDATE-UNKNOWN-TOPIC / SHARE-RULE-METADATA-UPDATE ("partitions are added in
    order, as Kafka's check is ``partitionCount() > partition``"): the implementer keeps the
    image as topic id -> partition count and writes the check as ``partition <= count`` (the
    count read as "the highest partition"), so the partition one past a topic's last one is
    taken as hosted: an initialize of ``g:T:1`` while ``T`` has one partition answers NONE and
    stores state where Kafka answers UNKNOWN_TOPIC_OR_PARTITION. A topic absent from the image
    is still unknown. Needs a request for the first partition a topic does not (yet) have."""

    def hosts(self, key: Key) -> bool:
        if self.image is None:
            return False
        parts = [p for t, p in self.image if t == key[1]]
        if not parts:
            return False
        return 0 <= key[2] <= max(parts) + 1


def _combine_bridging(start: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    """The reference combiner, then a merge pass that joins each batch to the one before it when
    their (state, count) are equal, without looking at whether the offsets touch."""
    out: list[list[int]] = []
    for b in ShareShard.combine(start, current, new):
        if out and out[-1][2] == b[2] and out[-1][3] == b[3]:
            out[-1][1] = max(out[-1][1], b[1])
        else:
            out.append(list(b))
    return out


class EqualNeighboursBridgeGap(ShareShard):
    """SHARE-RULE-COMBINE-MERGE ("overlapping or contiguous batches with equal state and count
    are merged"), SHARE-OBS-BATCHES / SHARE-INV-NO-LOSS: the merge pass of the combiner walks
    the sorted batches and folds a batch into its predecessor whenever the two have the same
    delivery state and count, testing the (state, count) but not ``prev.last + 1 >= cur.first``
    (the overlap test lived in the priority pass before it, and the implementer took every pair
    reaching the merge pass for touching). So two equal batches with a gap between them become
    one, and the offsets of the gap, which no batch covered (records the leader never acquired,
    still AVAILABLE at count 0 by the leader's own reckoning), are stored as delivered with that
    state and count. Needs a write (or a write combined with the stored batches) holding two
    batches of one (state, count) with a gap of at least one offset between them and nothing
    in the gap, e.g. ``[0,0]`` ACKNOWLEDGED x1 and ``[2,2]`` ACKNOWLEDGED x1."""

    combine = staticmethod(_combine_bridging)


class CadenceResetInWriteHandler(ShareShard):
    """SHARE-RULE-REPLAY-SNAPSHOT ("the update count resets to 0 only if it is present and at
    the limit": a *replay* rule, so every snapshot at the limit resets it, an initialize's and
    a replayed one at Load alike), SHARE-INV-REPLAY-EQUALS-HANDLERS, SHARE-RULE-SNAPSHOT-CADENCE:
    the implementer resets the cadence where it decides it, in ``generateShareStateRecord``:
    when a write or a read's leader-epoch record comes out as the limit snapshot, the handler
    zeroes ``snapshotUpdateCount`` after appending it; the replay of a snapshot never touches
    the count. So a re-initialize of a key whose update count is at the limit leaves it there
    (the next write is a snapshot again where Kafka writes an update), and a shard loaded after
    a fail-over counts every update since the key's first snapshot (its limit snapshots
    replayed without a reset), so after a limit snapshot and a Load the next write is a snapshot
    too early. Needs updates up to the snapshot limit, then an initialize of the key (or a
    limit snapshot, Unload, Load), then a write."""

    _reset_after: Key | None = None

    def replay_snapshot(self, key: Key, record: dict[str, Any]) -> None:
        saved = self.update_counts.get(key)
        super().replay_snapshot(key, record)
        if saved is not None:
            self.update_counts[key] = saved

    def limit_snapshot(self, key: Key, current: dict[str, Any], leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: list[list[int]], count: int = NOT_SET) -> dict[str, Any]:
        self._reset_after = key
        return super().limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches, count)

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        self._reset_after = None
        out = super().step(inp)
        if self._reset_after is not None and self._reset_after in self.update_counts:
            self.update_counts[self._reset_after] = 0
        self._reset_after = None
        return out


class LeaderFenceByTopicPartition(ShareShard):
    """SHARE-RULE-KEY ("a share-partition key is (group id, topic id, partition)"),
    SHARE-RULE-VALIDATE-LEADER-FENCE / SHARE-RULE-READ-FENCE, SHARE-INV-KEY-ISOLATION: the
    leader epoch is the topic-partition's (one partition leader serves every share group of
    it), so the implementer fences by the highest leader epoch stored for the topic-partition
    across all groups: a share-partition leader of group ``h`` at epoch 2 is fenced because
    group ``g``'s leader read ``T:0`` at epoch 5. In the protocol each share-partition's fence
    is its own (the groups' leaders, epochs and fail-overs are independent in the model and in
    Kafka's ``leaderEpochMap``). The stored fences themselves stay per key. Needs two groups
    initialized on one topic-partition, a read of one at a leader epoch above the other's, then
    a write or read of the other below it."""

    def _tp_fence(self, key: Key) -> int | None:
        epochs = [e for k, e in self.leader_epochs.items() if k[1] == key[1] and k[2] == key[2]]
        return max(epochs) if epochs else None

    def write_fenced(self, key: Key, req: dict[str, Any]) -> tuple[str, str] | None:
        fence = self._tp_fence(key)
        if req["leader_epoch"] != NOT_SET and fence is not None and fence > req["leader_epoch"]:
            return FENCED_LEADER
        return super().write_fenced(key, req)

    def on_ReadRequest(self, key: Key, req: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        fence = self._tp_fence(key)
        if key in self.offsets and req["leader_epoch"] != NOT_SET and fence is not None and fence > req["leader_epoch"]:
            return [], self.response(req, *FENCED_LEADER)
        return super().on_ReadRequest(key, req)


class UnavailableAnswersHandlerDefaults(ShareShard):
    """SHARE-RULE-ERROR-RESPONSE ("A read or read-summary error response of a handler sets only
    the error, so its numbers are the message's defaults: 0. The service's own answers
    (COORDINATOR_NOT_AVAILABLE, ...) carry the response's defaults instead: ... start offset
    -1"), SHARE-RULE-COORDINATOR-NOT-AVAILABLE: the implementer builds every error answer with
    one helper (``toErrorResponseData``), so the service's COORDINATOR_NOT_AVAILABLE for a read
    or a read-summary of an unloaded shard carries start offset 0 like a handler's FENCED or
    UNKNOWN_TOPIC answer. Needs a read or read-summary between an Unload and the Load."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        out = super().step(inp)
        if inp["type"] in RESPONSE_OF and not self.active:
            return [{**r, "start_offset": 0} if r.get("error") == NOT_AVAILABLE[0] and "start_offset" in r else r
                    for r in out]
        return out


def _hash_utf8(text: str) -> int:
    """Go's ``for i := 0; i < len(s); i++ { h = 31*h + int32(s[i]) }``: over UTF-8 bytes."""
    h = 0
    for byte in text.encode("utf-8"):
        h = _int32(h * 31 + byte)
    return h


class RoutingHashUtf8(ShareShard):
    """SHARE-RULE-ROUTING ("``hashCode`` is Java's ``String.hashCode``, computed over UTF-16
    code units in 32-bit wrapping arithmetic"), SHARE-INV-KEY-FINDS-COORDINATOR: a Go port of
    the coordinator (Go strings are UTF-8 byte slices) computes the hash with the byte loop
    ``h = 31*h + int32(s[i])``, which is Java's for ASCII and differs for every other character
    (``é`` is one UTF-16 unit, two UTF-8 bytes), not only for characters beyond the BMP. So
    FindCoordinator for a group id with an accented letter, a CJK character or any non-ASCII
    text names another ``__share_group_state`` partition than the one Kafka's clients ask.
    Needs a FindCoordinator whose key holds a non-ASCII character."""

    def route(self, key: str) -> int:
        h = _hash_utf8(key)
        return (0 if h == -(2**31) else abs(h)) % STATE_PARTITIONS


class UpdateReplaySetsLeaderFence(ShareShard):
    """SHARE-RULE-REPLAY-UPDATE ("the leader-epoch fence takes the maximum"),
    SHARE-INV-STALE-LEADER-FENCED / SHARE-INV-EPOCHS-MONOTONE: the replay of a ShareUpdate puts
    the record's leader epoch into ``leaderEpochMap`` (``put``, where Kafka's
    ``maybeUpdateLeaderEpochMap`` keeps the maximum); the snapshot replay has it right. An
    update's leader epoch is the stored offset's (SHARE-RULE-WRITE-KEEPS-EPOCHS), and an
    initialize lowers the stored offset's to 0 while the fence keeps the read's epoch, so the
    first write after a re-initialize drops the fence to 0 and a zombie leader at a stale epoch
    is accepted again. Needs a read at a new leader epoch (fence e), an initialize of the same
    key, a write (its update carries 0), then a write or read at an epoch below e."""

    def replay_update(self, key: Key, record: dict[str, Any]) -> None:
        super().replay_update(key, record)
        if record["leader_epoch"] != NOT_SET:
            self.leader_epochs[key] = record["leader_epoch"]


class InitializeCountPositiveStart(ShareShard):
    """SHARE-RULE-INITIALIZE-COUNT ("the initialize's snapshot holds the delivery-complete
    count 0 when the request's start offset is known ... and -1 when it is -1"), KAFKA-20034's
    fix written as ``startOffset > 0 ? 0 : -1``: the implementer reads "a known start offset"
    as "one the group coordinator reset or altered to", and an offsets reset to the earliest
    offset 0 is taken for "nothing consumed yet". So an initialize at start offset 0 stores and
    answers count -1 (no lag) where Kafka stores 0. Needs an initialize at start offset 0 (rule
    set 4.2 or later)."""

    def initialize_count(self, start_offset: int) -> int:
        return 0 if self.delivery_complete_count and start_offset > 0 else NOT_SET


# ---------------------------------------------------------------------------- targets


def _target(cls: type[ShareShard]) -> type[ShareTarget]:
    name = "Correct" if cls is ShareShard else cls.__name__ + "Target"

    def __init__(self: ShareTarget) -> None:
        ShareTarget.__init__(self, f"python:redteam.share_scratch18:{name}", cls)

    return type(name, (ShareTarget,), {"__module__": __name__, "__init__": __init__, "__doc__": cls.__doc__})


Correct = _target(ShareShard)
CORRECT = "Correct"
BASELINES = ("Correct",)
BUGS: dict[str, type[ShareShard]] = {
    "partition-count-off-by-one": PartitionCountOffByOne,
    "equal-neighbours-bridge-gap": EqualNeighboursBridgeGap,
    "cadence-reset-in-write-handler": CadenceResetInWriteHandler,
    "leader-fence-by-topic-partition": LeaderFenceByTopicPartition,
    "unavailable-answers-handler-defaults": UnavailableAnswersHandlerDefaults,
    "routing-hash-utf8": RoutingHashUtf8,
    "update-replay-sets-leader-fence": UpdateReplaySetsLeaderFence,
    "initialize-count-positive-start": InitializeCountPositiveStart,
}
for _cls in BUGS.values():
    globals()[_cls.__name__ + "Target"] = _target(_cls)
TARGETS = {bug: cls.__name__ + "Target" for bug, cls in BUGS.items()}
