"""The share coordinator shard, sans-IO: ``step(state, request) -> (state, outputs)`` and ``replay``.

This is Kafka's ``ShareCoordinatorShard`` (share-coordinator module): request handlers return the
records to append and a response, and a pure ``replay`` applies records to the state. As in the
coordinator runtime, ``step`` applies the records it returns through ``replay``, so the state a
handler keeps is by construction the state a fresh shard rebuilds from the log
(SHARE-INV-REPLAY-EQUALS-HANDLERS checks that this holds for the whole system).

The rules are those of one Kafka 4.N release (``ShardState.rules``, default the newest the
model knows); ``kspec.model.share.versions`` and spec/share.md ("Versions") say where they differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Any

from kspec.model.share import combiner as combiner_mod
from kspec.model.share.records import (
    DEFAULT_STATE_EPOCH,
    NOT_SET,
    UNINITIALIZED_START_OFFSET,
    UNKNOWN_COUNT,
    Record,
    SharePartitionKey,
    ShareSnapshot,
    ShareTombstone,
    ShareUpdate,
    StateBatch,
)
from kspec.model.share.routing import STATE_PARTITIONS, parse_coordinator_key, partition_for
from kspec.model.share.versions import LATEST, Rules

# Error names as in org.apache.kafka.common.protocol.Errors.
NONE = "NONE"
INVALID_REQUEST = "INVALID_REQUEST"
FENCED_LEADER_EPOCH = "FENCED_LEADER_EPOCH"
FENCED_STATE_EPOCH = "FENCED_STATE_EPOCH"
UNKNOWN_TOPIC_OR_PARTITION = "UNKNOWN_TOPIC_OR_PARTITION"
COORDINATOR_NOT_AVAILABLE = "COORDINATOR_NOT_AVAILABLE"
UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"

NULL_TOPIC_ID = "The topic id cannot be null."
NEGATIVE_PARTITION_ID = "The partition id cannot be a negative number."
WRITE_UNINITIALIZED = "Write operation on uninitialized share partition not allowed."
READ_UNINITIALIZED = "Read operation on uninitialized share partition not allowed."
NEGATIVE_LEADER_EPOCH = "The leader epoch cannot be a negative number."
NEGATIVE_STATE_EPOCH = "The state epoch cannot be a negative number."
# Errors.X.message(): the text Kafka's shard puts in a response when it has no message of its own.
MESSAGE_OF = {
    FENCED_LEADER_EPOCH: "The leader epoch in the request is older than the epoch on the broker.",
    FENCED_STATE_EPOCH: "The share coordinator rejected the request because the share-group state epoch did not match.",
    UNKNOWN_TOPIC_OR_PARTITION: "This server does not host this topic-partition.",
    COORDINATOR_NOT_AVAILABLE: "The coordinator is not available.",
    UNSUPPORTED_VERSION: "The version of API is not supported.",
}

DEFAULT_SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT = 500  # share.coordinator.snapshot.update.records.per.snapshot


# --- stored state -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShareGroupOffset:
    """Kafka's ``ShareGroupOffset``: the stored state of one share-partition."""

    snapshot_epoch: int
    state_epoch: int
    leader_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...]
    # KIP-1226 (4.2+): the share-partition's delivery-complete count, -1 when unknown
    # (SHARE-STATE-DELIVERY-COMPLETE-COUNT); -1 in the rule sets without it.
    delivery_complete_count: int = UNKNOWN_COUNT


Entries = tuple[tuple[SharePartitionKey, Any], ...]


def _get(entries: Entries, key: SharePartitionKey) -> Any:
    for k, v in entries:
        if k == key:
            return v
    return None


def _put(entries: Entries, key: SharePartitionKey, value: Any) -> Entries:
    rest = [(k, v) for k, v in entries if k != key]
    rest.append((key, value))
    return tuple(sorted(rest, key=lambda kv: kv[0]))


def _drop(entries: Entries, key: SharePartitionKey) -> Entries:
    return tuple((k, v) for k, v in entries if k != key)


@dataclass(frozen=True, slots=True)
class ShardState:
    """One coordinator partition's shard: the four timeline maps of ``ShareCoordinatorShard``.

    ``offsets`` is ``shareStateMap``; ``leader_epochs``, ``state_epochs`` and ``update_counts``
    are ``leaderEpochMap``, ``stateEpochMap`` and ``snapshotUpdateCount``. ``image`` is the
    metadata image's topic partitions (None: no image yet). ``active`` is false while the
    coordinator partition is not loaded here (requests get COORDINATOR_NOT_AVAILABLE). ``rules``
    are the Kafka release's (spec/share.md, "Versions").
    """

    snapshot_limit: int = DEFAULT_SNAPSHOT_UPDATE_RECORDS_PER_SNAPSHOT
    image: frozenset[tuple[str, int]] | None = None
    active: bool = True
    rules: Rules = LATEST
    offsets: Entries = ()
    leader_epochs: Entries = ()
    state_epochs: Entries = ()
    update_counts: Entries = ()
    # ``ShareCoordinatorOffsetsManager`` (SHARE-RULE-REDUNDANT-OFFSET): the coordinator partition
    # offset the next replayed record takes, per key the offset of its last ShareSnapshot (or
    # tombstone, until it is forgotten), and the lowest offset still needed to rebuild the state
    # (None: nothing replayed yet, Kafka's Long.MAX_VALUE). Functions of the replayed log, so no
    # new system states: the TLA+ mapping leaves them out.
    log_end: int = 0
    snapshot_offsets: Entries = ()
    redundant: int | None = None

    def offset(self, key: SharePartitionKey) -> ShareGroupOffset | None:
        """The stored ShareGroupOffset of ``key``, or None."""
        value: ShareGroupOffset | None = _get(self.offsets, key)
        return value

    def leader_epoch(self, key: SharePartitionKey) -> int | None:
        value: int | None = _get(self.leader_epochs, key)
        return value

    def state_epoch(self, key: SharePartitionKey) -> int | None:
        value: int | None = _get(self.state_epochs, key)
        return value

    def update_count(self, key: SharePartitionKey) -> int | None:
        value: int | None = _get(self.update_counts, key)
        return value


# --- requests and responses (closed unions) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class _RequestHead:
    """What every request names first: the share-partition it is for."""

    group_id: str
    topic_id: str | None
    partition: int


@dataclass(frozen=True, slots=True)
class WriteRequest(_RequestHead):
    """WriteShareGroupState for one share-partition (the service splits requests per key)."""

    leader_epoch: int
    state_epoch: int
    start_offset: int
    state_batches: tuple[StateBatch, ...] = ()
    # KIP-1226 (WriteShareGroupState v1, 4.2+): the leader's delivery-complete count, -1 unknown.
    delivery_complete_count: int = UNKNOWN_COUNT


@dataclass(frozen=True, slots=True)
class ReadRequest(_RequestHead):
    """ReadShareGroupState for one share-partition (readStateAndMaybeUpdateLeaderEpoch)."""

    leader_epoch: int


@dataclass(frozen=True, slots=True)
class InitializeRequest(_RequestHead):
    """InitializeShareGroupState (Kafka 4.1+), sent by the group coordinator."""

    state_epoch: int
    start_offset: int


@dataclass(frozen=True, slots=True)
class DeleteRequest(_RequestHead):
    """DeleteShareGroupState (Kafka 4.1+)."""


@dataclass(frozen=True, slots=True)
class ReadSummaryRequest(_RequestHead):
    """ReadShareGroupStateSummary (Kafka 4.1+)."""

    leader_epoch: int


@dataclass(frozen=True, slots=True)
class FindCoordinatorRequest(_RequestHead):
    """FindCoordinator with key type SHARE for one share-partition: the requester (a
    share-partition leader's persister, the group coordinator) sends the key's coordinator key
    string (SHARE-RULE-KEY), the broker parses it back (SHARE-RULE-KEY-PARSE) and answers the
    ``__share_group_state`` partition that owns it (SHARE-RULE-ROUTING). Answered from the key
    alone, whatever the shard holds, in every release."""


Request = WriteRequest | ReadRequest | InitializeRequest | DeleteRequest | ReadSummaryRequest | FindCoordinatorRequest


@dataclass(frozen=True, slots=True)
class _ResponseHead:
    """What every response carries first: the partition it answers, its error and message."""

    topic_id: str | None
    partition: int
    error: str = NONE
    message: str = ""


@dataclass(frozen=True, slots=True)
class WriteResponse(_ResponseHead):
    pass


@dataclass(frozen=True, slots=True)
class ReadResponse(_ResponseHead):
    state_epoch: int = DEFAULT_STATE_EPOCH
    start_offset: int = UNINITIALIZED_START_OFFSET
    state_batches: tuple[StateBatch, ...] = ()


@dataclass(frozen=True, slots=True)
class InitializeResponse(_ResponseHead):
    pass


@dataclass(frozen=True, slots=True)
class DeleteResponse(_ResponseHead):
    pass


@dataclass(frozen=True, slots=True)
class ReadSummaryResponse(_ResponseHead):
    state_epoch: int = DEFAULT_STATE_EPOCH
    leader_epoch: int = 0  # PartitionFactory.DEFAULT_LEADER_EPOCH
    start_offset: int = UNINITIALIZED_START_OFFSET
    # KIP-1226 (ReadShareGroupStateSummary v1, 4.2+): the stored count; -1 (the schema's default)
    # for a key with no state, in an error answer, and in the rule sets without the field.
    delivery_complete_count: int = UNKNOWN_COUNT


@dataclass(frozen=True, slots=True)
class FindCoordinatorResponse(_ResponseHead):
    """The coordinator FindCoordinator found for the share-partition: the ``__share_group_state``
    partition (its leader is the node the wire answer names), -1 with an error."""

    coordinator: int = -1


Response = (WriteResponse | ReadResponse | InitializeResponse | DeleteResponse | ReadSummaryResponse
            | FindCoordinatorResponse)
Output = Record | Response

REQUEST_CLASSES: tuple[type, ...] = (WriteRequest, ReadRequest, InitializeRequest, DeleteRequest, ReadSummaryRequest,
                                     FindCoordinatorRequest)
RESPONSE_CLASSES: tuple[type, ...] = (WriteResponse, ReadResponse, InitializeResponse, DeleteResponse,
                                      ReadSummaryResponse, FindCoordinatorResponse)


def response_error(out: Output) -> str | None:
    """The error of a response output (None for a record)."""
    if isinstance(out, ShareSnapshot | ShareUpdate | ShareTombstone):
        return None
    return out.error


# --- replay (SHARE-RULE-REPLAY-*) -------------------------------------------------------------


def _max_epoch(entries: Entries, key: SharePartitionKey, epoch: int) -> Entries:
    """``maybeUpdateLeaderEpochMap`` / ``maybeUpdateStateEpochMap``: keep the maximum."""
    old = _get(entries, key)
    if old is None or old < epoch:
        return _put(entries, key, epoch)
    return entries


def merge_update(so_far: ShareGroupOffset, update: ShareUpdate,
                 combine: Any = combiner_mod.combine) -> ShareGroupOffset:
    """``ShareCoordinatorShard.merge``: a ShareUpdate applied to the current state.

    The snapshot and state epochs stay; start offset and leader epoch change unless -1; the
    batches are the current ones combined with the update's at the new start offset.
    """
    start = so_far.start_offset if update.start_offset == NOT_SET else update.start_offset
    leader = so_far.leader_epoch if update.leader_epoch == NOT_SET else update.leader_epoch
    # SHARE-RULE-REPLAY-UPDATE: the update's delivery-complete count replaces the stored one.
    return ShareGroupOffset(so_far.snapshot_epoch, so_far.state_epoch, leader, start,
                            combine(start, so_far.state_batches, update.state_batches),
                            update.delivery_complete_count)


def replay(state: ShardState, record: Record) -> ShardState:
    """Apply one record of ``__share_group_state`` to the shard (``ShareCoordinatorShard.replay``)."""
    return replay_with(state, record, combiner_mod.combine)


def replay_with(state: ShardState, record: Record, combine: Any) -> ShardState:
    """:func:`replay` with a given batch combiner (broken variants pass a wrong one)."""
    return track_redundant(_replay_maps(state, record, combine), record)


def track_redundant(state: ShardState, record: Record) -> ShardState:
    """SHARE-RULE-REDUNDANT-OFFSET: the offsets manager after ``record`` is replayed at offset
    ``state.log_end`` (``ShareCoordinatorOffsetsManager.updateState``). A ShareSnapshot or a
    tombstone makes its offset the key's; the redundant offset becomes the lowest offset held
    (the record's own included: what ``findRedundantOffset`` returns, its early exit only
    taken when that is the lowest); a tombstone's key is then forgotten, so a deleted
    share-partition holds nothing back. A ShareUpdate changes nothing: it needs the snapshot
    before it."""
    at = state.log_end
    if isinstance(record, ShareUpdate):
        return replace(state, log_end=at + 1)
    held = _put(state.snapshot_offsets, record.key, at)
    lowest = min(offset for _, offset in held)
    if isinstance(record, ShareTombstone) and not state.rules.deleted_key_pins_redundant:
        held = _drop(held, record.key)
    return replace(state, log_end=at + 1, snapshot_offsets=held, redundant=lowest)


def redundant_offset(state: ShardState) -> int | None:
    """``ShareCoordinatorShard.lastRedundantOffset()``: the offset below which every record of
    the coordinator partition is redundant, or None (Kafka's empty Optional) when none is: nothing
    replayed yet, or the offset is 0."""
    return state.redundant if state.redundant is not None and state.redundant > 0 else None


def _replay_maps(state: ShardState, record: Record, combine: Any) -> ShardState:
    """The four maps after ``record`` (``ShareCoordinatorShard.replay``'s handlers)."""
    key = record.key
    if isinstance(record, ShareTombstone):
        # SHARE-RULE-REPLAY-TOMBSTONE: every map forgets the key.
        return replace(state, offsets=_drop(state.offsets, key), leader_epochs=_drop(state.leader_epochs, key),
                       state_epochs=_drop(state.state_epochs, key), update_counts=_drop(state.update_counts, key))
    if isinstance(record, ShareSnapshot):
        # SHARE-RULE-REPLAY-SNAPSHOT: the snapshot replaces the state; epochs kept at their maximum;
        # the update count resets only when it had reached the limit.
        counts = state.update_counts
        old = _get(counts, key)
        if old is not None and old >= state.snapshot_limit:
            counts = _put(counts, key, 0)
        value = ShareGroupOffset(record.snapshot_epoch, record.state_epoch, record.leader_epoch,
                                 record.start_offset, record.state_batches, record.delivery_complete_count)
        return replace(state, offsets=_put(state.offsets, key, value),
                       leader_epochs=_max_epoch(state.leader_epochs, key, record.leader_epoch),
                       state_epochs=_max_epoch(state.state_epochs, key, record.state_epoch),
                       update_counts=counts)
    # SHARE-RULE-REPLAY-UPDATE: merged into the current state; the update count starts at 0 on the
    # first update after a snapshot that did not reset it (Kafka's `v == null ? 0 : v + 1`).
    current = state.offset(key)
    if current is None:
        merged = ShareGroupOffset(record.snapshot_epoch, NOT_SET, record.leader_epoch, record.start_offset,
                                  record.state_batches, record.delivery_complete_count)
    else:
        merged = merge_update(current, record, combine)
    # SHARE-VER-UPDATE-COUNT-FROM-ONE: from 4.3 an absent count becomes 1.
    old_count = state.update_count(key)
    first = 1 if state.rules.update_count_from_one else 0
    return replace(state, offsets=_put(state.offsets, key, merged),
                   leader_epochs=_max_epoch(state.leader_epochs, key, record.leader_epoch),
                   update_counts=_put(state.update_counts, key, first if old_count is None else old_count + 1))


def replay_all(state: ShardState, records: Iterable[Record]) -> ShardState:
    """Replay records in log order."""
    for r in records:
        state = replay(state, r)
    return state


def load(log: Iterable[Record], snapshot_limit: int, image: frozenset[tuple[str, int]] | None,
         rules: Rules = LATEST) -> ShardState:
    """A new shard after fail-over: empty maps, then the whole log replayed (SHARE-RULE-LOAD)."""
    return replay_all(ShardState(snapshot_limit=snapshot_limit, image=image, active=True, rules=rules), log)


def load_pruned(log: tuple[Record, ...], log_start: int, snapshot_limit: int,
                image: frozenset[tuple[str, int]] | None, rules: Rules = LATEST) -> ShardState:
    """A new shard loading a log whose records below ``log_start`` the runtime deleted
    (``ShareCoordinatorService``'s pruning: ``deleteRecords`` up to ``lastRedundantOffset()``):
    what is left replayed at its own offsets. What Kafka's shard rebuilds; the protocol's answer
    is :func:`kspec.model.share.system.reloaded` (SHARE-RULE-PRUNE-INVISIBLE)."""
    fresh = ShardState(snapshot_limit=snapshot_limit, image=image, active=True, rules=rules, log_end=log_start)
    return replay_all(fresh, log[log_start:])


def unload(state: ShardState) -> ShardState:
    """The shard on a broker that lost the coordinator partition: no longer answers."""
    return replace(state, active=False)


def update_image(state: ShardState, image: frozenset[tuple[str, int]] | None) -> ShardState:
    """SHARE-RULE-METADATA-UPDATE: a new metadata image replaces the one requests are validated
    against (``onNewMetadataImage``, from 4.3 ``onMetadataUpdate``); stored state is untouched."""
    return replace(state, image=image)


def without_topic(image: frozenset[tuple[str, int]] | None, topic: str) -> frozenset[tuple[str, int]] | None:
    """``image`` after ``topic`` is deleted (every partition of it gone)."""
    return None if image is None else frozenset(tp for tp in image if tp[0] != topic)


def with_partition(image: frozenset[tuple[str, int]] | None, topic: str,
                   partition: int) -> frozenset[tuple[str, int]] | None:
    """``image`` after partition ``partition`` of ``topic`` is created (None: not possible here:
    no image yet, the partition already there, or partition ``partition - 1`` missing; Kafka
    adds partitions in order, and the shard checks ``partitionCount() > partition``)."""
    if image is None or (topic, partition) in image or (partition > 0 and (topic, partition - 1) not in image):
        return None
    return image | {(topic, partition)}


# --- validation (SHARE-RULE-VALIDATE-*) -------------------------------------------------------


def _topic_error(state: ShardState, topic_id: str, partition: int) -> str | None:
    if state.image is None or (topic_id, partition) not in state.image:
        return UNKNOWN_TOPIC_OR_PARTITION
    return None


def _basic_error(topic_id: str | None, partition: int) -> str | None:
    if topic_id is None:
        return NULL_TOPIC_ID
    if partition < 0:
        return NEGATIVE_PARTITION_ID
    return None


def _negative_epoch_error(rules: Rules, leader_epoch: int | None, state_epoch: int | None) -> str | None:
    """SHARE-VER-NEGATIVE-EPOCHS-REFUSED (4.4+): the message for a negative epoch, or None."""
    if not rules.negative_epochs_refused:
        return None
    if leader_epoch is not None and leader_epoch < 0:
        return NEGATIVE_LEADER_EPOCH
    if state_epoch is not None and state_epoch < 0:
        return NEGATIVE_STATE_EPOCH
    return None


def write_error(state: ShardState, req: WriteRequest, fence_leader: bool = True) -> tuple[str, str] | None:
    """``maybeGetWriteStateError``: (error, message) or None, checks in Kafka's order."""
    msg = _basic_error(req.topic_id, req.partition) or _negative_epoch_error(state.rules, req.leader_epoch,
                                                                             req.state_epoch)
    if msg is not None:
        return INVALID_REQUEST, msg
    assert req.topic_id is not None
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    # SHARE-VER-UNINITIALIZED-REFUSED: from 4.1, before the fences and the metadata image.
    if state.rules.uninitialized_refused and state.offset(key) is None:
        return INVALID_REQUEST, WRITE_UNINITIALIZED
    stored_leader = state.leader_epoch(key)
    if fence_leader and req.leader_epoch != NOT_SET and stored_leader is not None and stored_leader > req.leader_epoch:
        return FENCED_LEADER_EPOCH, MESSAGE_OF[FENCED_LEADER_EPOCH]
    stored_state = state.state_epoch(key)
    if req.state_epoch != NOT_SET and stored_state is not None and stored_state > req.state_epoch:
        return FENCED_STATE_EPOCH, MESSAGE_OF[FENCED_STATE_EPOCH]
    err = _topic_error(state, req.topic_id, req.partition)
    if err is not None:
        return err, MESSAGE_OF[err]
    return None


# --- record generation (SHARE-RULE-RECORD-*) --------------------------------------------------


def share_state_record(state: ShardState, key: SharePartitionKey, leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: tuple[StateBatch, ...],
                       combine: Any = combiner_mod.combine, seed_bug: bool = False,
                       from_read: bool = False, count: int = UNKNOWN_COUNT) -> Record:
    """``generateShareStateRecord``: a ShareSnapshot or a ShareUpdate for one write (or for a
    read that records a new leader epoch: ``from_read``).

    - no state yet (4.0 only; later releases refuse the write): ShareSnapshot, snapshot epoch 0
      (SHARE-RULE-RECORD-FIRST-SNAPSHOT);
    - update count at the limit, or in 4.1 a state epoch above the stored one: ShareSnapshot
      with snapshot epoch + 1 and the current batches combined with the new ones at the new start
      offset (SHARE-RULE-RECORD-LIMIT-SNAPSHOT, SHARE-VER-STATE-EPOCH-SNAPSHOT);
    - otherwise a ShareUpdate with the same snapshot epoch and only the new batches
      (SHARE-RULE-RECORD-UPDATE); replay merges it into the current state.
    A write's record keeps the stored leader and state epochs (SHARE-RULE-WRITE-KEEPS-EPOCHS),
    never moves the start offset back (SHARE-RULE-WRITE-START-MONOTONE), and carries the
    delivery-complete count SHARE-RULE-WRITE-COUNT chooses from ``count`` (the request's) and
    the stored one.
    ``seed_bug`` reproduces the code reviewed in seed 004: on the limit snapshot, when the start
    offset is given, only the new batches are kept.
    """
    current = state.offset(key)
    rules = state.rules
    if not rules.delivery_complete_count:
        count = UNKNOWN_COUNT  # SHARE-VER-DELIVERY-COMPLETE-COUNT: no such field before 4.2
    if current is None:
        return ShareSnapshot(key, 0, state_epoch, leader_epoch, start_offset, combine(start_offset, (), batches),
                             count)
    if rules.delivery_complete_count and rules.write_count_by_start:
        count = write_count(current, start_offset, count)
    if rules.write_start_monotone and start_offset != NOT_SET and start_offset < current.start_offset:
        # SHARE-RULE-WRITE-START-MONOTONE: a start offset below the stored one (an out-of-order
        # write) does not move it back; the batches are combined and pruned at the stored one.
        start_offset = current.start_offset
    if rules.write_keeps_epochs:
        leader_epoch = leader_epoch if from_read and leader_epoch != NOT_SET else current.leader_epoch
        state_epoch = current.state_epoch
    updates = state.update_count(key) or 0
    if updates >= state.snapshot_limit or (rules.state_epoch_snapshot and state_epoch > current.state_epoch):
        leader = current.leader_epoch if leader_epoch == NOT_SET else leader_epoch
        st_epoch = current.state_epoch if state_epoch == NOT_SET else state_epoch
        start = current.start_offset if start_offset == NOT_SET else start_offset
        if seed_bug and start_offset != NOT_SET:
            merged = combine(start, (), batches)
        else:
            merged = combine(start, current.state_batches, batches)
        return ShareSnapshot(key, current.snapshot_epoch + 1, st_epoch, leader, start, merged, count)
    return ShareUpdate(key, current.snapshot_epoch, leader_epoch, start_offset, combine(start_offset, (), batches),
                       count)


def write_count(current: ShareGroupOffset, start_offset: int, count: int) -> int:
    """SHARE-RULE-WRITE-COUNT (KIP-1226; apache/kafka#23112): the delivery-complete count a write
    stores. Its count is measured from its own start offset, so it replaces the stored one only
    when that start offset is above the stored one; at the same start offset the higher count
    wins (writes of one leader may arrive out of order), and a write from below the stored start
    offset (or -1, "not written") leaves the stored count."""
    if start_offset > current.start_offset:
        return count
    if start_offset == current.start_offset:
        return max(current.delivery_complete_count, count)
    return current.delivery_complete_count


# --- the handlers -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Flaws:
    """Deliberate deviations for broken variants (all off in the reference model)."""

    seed_bug: bool = False          # seed 004: limit snapshot keeps only the new batches
    lower_count_wins: bool = False  # the combiner lets the lower delivery count win
    init_as_update: bool = False    # initialize of a known key writes a ShareUpdate (state epoch lost)
    no_leader_fence: bool = False   # writes are not fenced by an older leader epoch


REFERENCE = Flaws()


def step(state: ShardState, request: Request) -> tuple[ShardState, tuple[Output, ...]]:
    """Handle one request: the records appended (already applied to the state) and the response."""
    return step_with(state, request, REFERENCE)


def step_with(state: ShardState, request: Request, flaws: Flaws) -> tuple[ShardState, tuple[Output, ...]]:
    """:func:`step` with deliberate flaws (used by ``kspec.model.share.variants``)."""
    combine = combiner_mod.combine
    if flaws.lower_count_wins:
        from kspec.model.share.variants import combine_lower_count_wins
        combine = combine_lower_count_wins
    rule = SHARD_RULES[(shard_kind(state), type(request))]
    if rule in (COORDINATOR_NOT_AVAILABLE, UNSUPPORTED_VERSION):
        return state, (_unavailable(request, rule),)
    records, response = _HANDLERS[rule](state, request, flaws, combine)
    for r in records:
        state = replay_with(state, r, combine)
    return state, (*records, response)


# ---------------------------------------------------------------- the shard's rules as data

UNLOADED, LOADED_4_0, LOADED = "unloaded", "loaded-4.0", "loaded"
REQUEST_KINDS: tuple[type, ...] = (WriteRequest, ReadRequest, InitializeRequest, DeleteRequest, ReadSummaryRequest,
                                   FindCoordinatorRequest)


def shard_kind(state: ShardState) -> str:
    """What a request meets: a shard not loaded here, a loaded 4.0 shard (which has no
    initialize, delete or read-summary API: SHARE-VER-INITIALIZE), or a loaded shard."""
    if not state.active:
        return UNLOADED
    return LOADED if state.rules.initialize else LOADED_4_0


# Per (shard kind, request kind): the handler that answers it, or the error every such request
# gets. :func:`step_with` dispatches through this table (a pair not listed is a KeyError, never
# a fallback); the docs draw :data:`TRANSITIONS` from it and tests/share check it against the
# explored transitions (every row taken, no other pair met).
SHARD_RULES: dict[tuple[str, type], str] = {
    **{(UNLOADED, kind): COORDINATOR_NOT_AVAILABLE for kind in REQUEST_KINDS},  # SHARE-RULE-COORDINATOR-NOT-AVAILABLE
    (LOADED_4_0, WriteRequest): "write",
    (LOADED_4_0, ReadRequest): "read",
    **{(LOADED_4_0, kind): UNSUPPORTED_VERSION for kind in REQUEST_KINDS[2:5]},  # SHARE-VER-INITIALIZE
    (LOADED, WriteRequest): "write",
    (LOADED, ReadRequest): "read",
    (LOADED, InitializeRequest): "initialize",
    (LOADED, DeleteRequest): "delete",
    (LOADED, ReadSummaryRequest): "read_summary",
    # SHARE-RULE-KEY-PARSE, SHARE-RULE-ROUTING: the broker answers from the key alone.
    **{(kind, FindCoordinatorRequest): "find_coordinator" for kind in (UNLOADED, LOADED_4_0, LOADED)},
}

Handler = Any  # (state, request, flaws, combine) -> (records, response)
_HANDLERS: dict[str, Handler] = {
    "write": lambda st, req, flaws, combine: _write(st, req, flaws, combine),
    "read": lambda st, req, flaws, combine: _read(st, req, combine),
    "initialize": lambda st, req, flaws, combine: _initialize(st, req, flaws),
    "delete": lambda st, req, flaws, combine: _delete(st, req),
    "read_summary": lambda st, req, flaws, combine: ((), _read_summary(st, req)),
    "find_coordinator": lambda st, req, flaws, combine: ((), find_coordinator(st.rules, req)),
}


def _transitions() -> dict[tuple[str, str], str]:
    """(shard kind, shard kind) -> what takes it: the requests a kind answers (a request never
    changes the kind) and the coordinator's load and unload, which the system model drives."""
    table: dict[tuple[str, str], list[str]] = {}
    for (kind, request), rule in SHARD_RULES.items():
        name = request.__name__.removesuffix("Request")
        how = f"{name}: {rule}" if rule in (COORDINATOR_NOT_AVAILABLE, UNSUPPORTED_VERSION) else name
        table.setdefault((kind, kind), []).append(how)
    for loaded in (LOADED_4_0, LOADED):
        table[(loaded, UNLOADED)] = ["the coordinator partition is unloaded (failover)"]
        table[(UNLOADED, loaded)] = ["it is loaded again (replay of the log)"]
    return {edge: "; ".join(whys) for edge, whys in table.items()}


TRANSITIONS = _transitions()


def _unavailable(request: Request, err: str = COORDINATOR_NOT_AVAILABLE) -> Response:
    """SHARE-RULE-COORDINATOR-NOT-AVAILABLE: the service answers for a shard that is not loaded
    (and SHARE-VER-INITIALIZE: a release without the API answers UNSUPPORTED_VERSION)."""
    msg = MESSAGE_OF[err]
    if isinstance(request, WriteRequest):
        return WriteResponse(request.topic_id, request.partition, err, msg)
    if isinstance(request, ReadRequest):
        return ReadResponse(request.topic_id, request.partition, err, msg)
    if isinstance(request, InitializeRequest):
        return InitializeResponse(request.topic_id, request.partition, err, msg)
    if isinstance(request, DeleteRequest):
        return DeleteResponse(request.topic_id, request.partition, err, msg)
    return ReadSummaryResponse(request.topic_id, request.partition, err, msg)


def _write(state: ShardState, req: WriteRequest, flaws: Flaws, combine: Any) -> tuple[tuple[Record, ...], Response]:
    err = write_error(state, req, fence_leader=not flaws.no_leader_fence)
    if err is not None:
        return (), WriteResponse(req.topic_id, req.partition, err[0], err[1])
    assert req.topic_id is not None
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    record = share_state_record(state, key, req.leader_epoch, req.state_epoch, req.start_offset,
                                req.state_batches, combine, flaws.seed_bug, count=req.delivery_complete_count)
    return (record,), WriteResponse(req.topic_id, req.partition)


def _read(state: ShardState, req: ReadRequest, combine: Any) -> tuple[tuple[Record, ...], Response]:
    msg = _basic_error(req.topic_id, req.partition) or _negative_epoch_error(state.rules, req.leader_epoch, None)
    if msg is not None:
        return (), _read_error(req, INVALID_REQUEST, msg)
    assert req.topic_id is not None
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    if state.rules.uninitialized_refused and state.offset(key) is None:
        return (), _read_error(req, INVALID_REQUEST, READ_UNINITIALIZED)  # SHARE-VER-UNINITIALIZED-REFUSED
    stored_leader = state.leader_epoch(key)
    # SHARE-RULE-READ-FENCE: up to 4.2 even a request epoch of -1 is compared here
    # (SHARE-VER-READ-FENCE-UNSET).
    exempt = state.rules.read_fence_skips_unset and req.leader_epoch == NOT_SET
    if stored_leader is not None and stored_leader > req.leader_epoch and not exempt:
        return (), _read_error(req, FENCED_LEADER_EPOCH, MESSAGE_OF[FENCED_LEADER_EPOCH])
    err = _topic_error(state, req.topic_id, req.partition)
    if err is not None:
        return (), _read_error(req, err, MESSAGE_OF[err])
    current = state.offset(key)
    if current is None:
        response = ReadResponse(req.topic_id, req.partition)
    else:
        response = ReadResponse(req.topic_id, req.partition, NONE, "", current.state_epoch, current.start_offset,
                                current.state_batches)
    # SHARE-RULE-READ-LEADER-EPOCH: a read with a new leader epoch records it.
    if req.leader_epoch == NOT_SET or stored_leader == req.leader_epoch:
        return (), response
    # The record of the read carries the stored count (readStateAndMaybeUpdateLeaderEpoch).
    count = UNKNOWN_COUNT if current is None else current.delivery_complete_count
    record = share_state_record(state, key, req.leader_epoch, response.state_epoch, response.start_offset, (),
                                combine, from_read=True, count=count)
    return (record,), response


def _read_error(req: ReadRequest, err: str, msg: str) -> ReadResponse:
    """A read error response: Kafka sets only the error, so the numbers are the message's defaults (0)."""
    return ReadResponse(req.topic_id, req.partition, err, msg, 0, 0)


def _initialize(state: ShardState, req: InitializeRequest, flaws: Flaws) -> tuple[tuple[Record, ...], Response]:
    msg = _basic_error(req.topic_id, req.partition) or _negative_epoch_error(state.rules, None, req.state_epoch)
    if msg is not None:
        return (), InitializeResponse(req.topic_id, req.partition, INVALID_REQUEST, msg)
    assert req.topic_id is not None
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    stored_state = state.state_epoch(key)
    if req.state_epoch != NOT_SET and stored_state is not None and stored_state > req.state_epoch:
        return (), InitializeResponse(req.topic_id, req.partition, FENCED_STATE_EPOCH, MESSAGE_OF[FENCED_STATE_EPOCH])
    err = _topic_error(state, req.topic_id, req.partition)
    if err is not None:
        return (), InitializeResponse(req.topic_id, req.partition, err, MESSAGE_OF[err])
    current = state.offset(key)
    record: Record
    if flaws.init_as_update and current is not None:
        record = ShareUpdate(key, current.snapshot_epoch, NOT_SET, req.start_offset, ())
    else:
        # SHARE-RULE-INITIALIZE-SNAPSHOT: a fresh snapshot, no batches, next snapshot epoch.
        snapshot_epoch = 0 if current is None else current.snapshot_epoch + 1
        record = ShareSnapshot(key, snapshot_epoch, req.state_epoch, 0, req.start_offset, (),
                               initialize_count(state.rules, req.start_offset))
    return (record,), InitializeResponse(req.topic_id, req.partition)


def initialize_count(rules: Rules, start_offset: int) -> int:
    """SHARE-RULE-INITIALIZE-COUNT (KIP-1226; KAFKA-20034): the delivery-complete count of an
    initialize's snapshot: 0 when the start offset is known (consumption, and the lag, count
    from there), -1 when it is -1 (nothing consumed yet: no lag to compute)."""
    if not rules.delivery_complete_count or rules.initialize_count_unset or start_offset == UNINITIALIZED_START_OFFSET:
        return UNKNOWN_COUNT
    return 0


def _delete(state: ShardState, req: DeleteRequest) -> tuple[tuple[Record, ...], Response]:
    msg = _basic_error(req.topic_id, req.partition)
    if msg is not None:
        return (), DeleteResponse(req.topic_id, req.partition, INVALID_REQUEST, msg)
    assert req.topic_id is not None
    err = _topic_error(state, req.topic_id, req.partition)
    if err is not None:
        return (), DeleteResponse(req.topic_id, req.partition, err, MESSAGE_OF[err])
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    if state.offset(key) is None:
        return (), DeleteResponse(req.topic_id, req.partition)
    return (ShareTombstone(key),), DeleteResponse(req.topic_id, req.partition)


def _read_summary(state: ShardState, req: ReadSummaryRequest) -> Response:
    # An error response carries the message's defaults (0) in its numbers, as in a read.
    msg = _basic_error(req.topic_id, req.partition)
    if msg is not None:
        return ReadSummaryResponse(req.topic_id, req.partition, INVALID_REQUEST, msg, 0, 0, 0)
    assert req.topic_id is not None
    err = _topic_error(state, req.topic_id, req.partition)
    if err is not None:
        return ReadSummaryResponse(req.topic_id, req.partition, err, MESSAGE_OF[err], 0, 0, 0)
    key = SharePartitionKey(req.group_id, req.topic_id, req.partition)
    current = state.offset(key)
    if current is None:
        # SHARE-RULE-READ-SUMMARY: PartitionFactory's defaults (start -1, leader epoch 0, state epoch 0).
        return ReadSummaryResponse(req.topic_id, req.partition)
    return ReadSummaryResponse(req.topic_id, req.partition, NONE, "", current.state_epoch, current.leader_epoch,
                               current.start_offset, current.delivery_complete_count)


def find_coordinator(rules: Rules, req: FindCoordinatorRequest) -> FindCoordinatorResponse:
    """FindCoordinator (key type SHARE): the key string formatted (SHARE-RULE-KEY), parsed back
    (SHARE-RULE-KEY-PARSE; from the left under ``share-key-parsed-from-left``) and the parsed
    share-partition routed (SHARE-RULE-ROUTING). A string that names no share-partition is
    INVALID_REQUEST (KafkaApis: ``SharePartitionKey.validate`` threw)."""
    if req.topic_id is None:
        return FindCoordinatorResponse(req.topic_id, req.partition, INVALID_REQUEST, NULL_TOPIC_ID)
    text = SharePartitionKey(req.group_id, req.topic_id, req.partition).coordinator_key()
    found = parse_coordinator_key(text, from_left=rules.key_parsed_from_left)
    if found is None:
        return FindCoordinatorResponse(req.topic_id, req.partition, INVALID_REQUEST, f"Invalid key format: {text}")
    return FindCoordinatorResponse(req.topic_id, req.partition, coordinator=partition_for(found, STATE_PARTITIONS))


# --- observation ------------------------------------------------------------------------------


def observe(state: ShardState) -> dict[str, Any]:
    """The stored state per share-partition key, as JSON (what the conformance suite compares)."""
    keys = sorted({k for k, _ in state.offsets} | {k for k, _ in state.leader_epochs}
                  | {k for k, _ in state.state_epochs} | {k for k, _ in state.update_counts})
    parts: dict[str, Any] = {}
    for key in keys:
        off = state.offset(key)
        parts[key.coordinator_key()] = {
            "offset": None if off is None else {
                "snapshot_epoch": off.snapshot_epoch, "state_epoch": off.state_epoch,
                "leader_epoch": off.leader_epoch, "start_offset": off.start_offset,
                "state_batches": [[b.first_offset, b.last_offset, b.delivery_state, b.delivery_count]
                                  for b in off.state_batches],
                "delivery_complete_count": off.delivery_complete_count,
            },
            "leader_epoch_fence": state.leader_epoch(key),
            "state_epoch_fence": state.state_epoch(key),
            "update_count": state.update_count(key),
        }
    return {"active": state.active, "partitions": parts, "redundant_offset": redundant_offset(state)}
