"""The share coordinator as a system model: leaders writing and reading, the log, fail-over.

One share-partition key is served by one coordinator partition. The actors are the current
share-partition leader (epoch ``leader_epoch``), the previous leader (``leader_epoch - 1``, still
sending writes), the group coordinator (InitializeShareGroupState with a new state epoch), and the
broker hosting the coordinator partition, which can lose it (``unload``) and a new shard load it
by replaying the log (``load``). Next to the real state the model keeps a per-offset reference
(``oracle``) of what the accepted writes mean, built with :func:`combine_oracle`, so the
properties can say "nothing is lost" (SHARE-INV-NO-LOSS).

``kafka_minor`` chooses the Kafka 4.N release whose shard rules apply (``versions.py``; default the
newest). Kafka 4.0 has no InitializeShareGroupState, so there the group coordinator never
initializes and the first write creates the state; from 4.1 writes and reads before the first
initialize are refused.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from kspec.model.core.protocol import Property, always, always_step, sometimes, sometimes_step
from kspec.model.share.combiner import combine_oracle, per_offset
from kspec.model.share.records import (
    ACKNOWLEDGED,
    ARCHIVED,
    AVAILABLE,
    NOT_SET,
    STATE_NAMES,
    UNKNOWN_COUNT,
    Record,
    SharePartitionKey,
    ShareSnapshot,
    ShareTombstone,
    ShareUpdate,
    StateBatch,
)
from kspec.model.share.routing import STATE_PARTITIONS, partition_for
from kspec.model.share.shard import (
    FENCED_LEADER_EPOCH,
    FENCED_STATE_EPOCH,
    INVALID_REQUEST,
    NONE,
    REFERENCE,
    UNKNOWN_TOPIC_OR_PARTITION,
    DeleteRequest,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    Flaws,
    InitializeRequest,
    ReadRequest,
    ReadSummaryRequest,
    Request,
    ShardState,
    WriteRequest,
    load,
    load_pruned,
    observe,
    redundant_offset,
    replay,
    response_error,
    step_with,
    unload,
    update_image,
    with_partition,
    without_topic,
)
from kspec.model.share.versions import LATEST_MINOR, Rules, rules_of, with_deviations

GROUP = "g"
TOPIC = "T"
KEY = SharePartitionKey(GROUP, TOPIC, 0)
IMAGE = frozenset({(TOPIC, 0)})
# With probes: a second partition of the topic, a second group, and a partition (T, 2) that the
# metadata image does not have (SHARE-RULE-VALIDATE-UNKNOWN-TOPIC).
OTHER_PARTITION = SharePartitionKey(GROUP, TOPIC, 1)
OTHER_GROUP = SharePartitionKey("h", TOPIC, 0)
UNHOSTED = SharePartitionKey(GROUP, TOPIC, 2)
NEGATIVE = SharePartitionKey(GROUP, TOPIC, -1)  # INVALID_REQUEST in every handler
# With probes: a second topic, which the probes may delete (SHARE-RULE-METADATA-UPDATE). Its
# stored state outlives the topic, and every request for it is then UNKNOWN_TOPIC_OR_PARTITION.
DOOMED_TOPIC = "U"
DOOMED = SharePartitionKey(GROUP, DOOMED_TOPIC, 0)
# A group whose id differs from the key's only in case: group ids are case-sensitive, so its state
# is its own (a store that folds case would share one entry; red team, session 10).
CASE_TWIN = SharePartitionKey(GROUP.upper(), TOPIC, 0)
SIDE_KEYS = (OTHER_PARTITION, OTHER_GROUP, DOOMED, CASE_TWIN)
# The largest epoch an int32 field holds (Integer.MAX_VALUE): a store that takes it for a "no
# epoch" sentinel, as it does -1, records nothing where Kafka records it (red team, session 11).
MAX_EPOCH = 2**31 - 1
MAX_DELIVERY_COUNT = 2**15 - 1  # Short.MAX_VALUE: a state batch's DeliveryCount is an int16
MIN_EPOCH = -(2**31)  # Integer.MIN_VALUE: a negative epoch other than the old sentinel -1
# FindCoordinator probes (SHARE-DRIVE-ROUTING): group ids KIP-932 allows that a parser of the
# coordinator key string can get wrong: ':' inside, first and last; a group id that itself reads
# as a whole key; padded with spaces (a parser that trims finds another group); non-ASCII with a
# character outside the BMP (two UTF-16 code units in String.hashCode); long; one whose
# coordinator key `int-min-HMGRMVK:<topic>:0` hashes to Integer.MIN_VALUE, which Utils.abs maps
# to partition 0 (Java's Math.abs keeps it negative, Python's abs gives 2**31: partition 48;
# red team, session 14). The topic id is a Uuid's string form: the broker parses it as one (an
# adapter maps that name to that Uuid).
ROUTE_TOPIC = "y6cwZmhbJHOwKfrveLr4zw"
ROUTE_GROUPS = ("share-g", "a:b", ":lead", "trail:", "x::y", f"k:{ROUTE_TOPIC}:7", " padded ",
                "gr\u00fcppe-\u2603-\U0001F600", "long-" + "x" * 250, "int-min-HMGRMVK")
# SHARE-DRIVE-ROUTING-URLSAFE-TOPIC: a Uuid whose string form holds "-" and "_", the two characters
# base64url has where standard base64 has "+" and "/" (about half of all random Uuids hold one):
# a broker that formats the parsed Uuid again with the standard alphabet routes another string
# (red team, session 18). Last: the guide sends every routing probe once (``routing`` is
# stateless); the routing tail (``ROUTE_KEYS[k % len(ROUTE_KEYS)]``) takes it on paths 11, 23, ...
ROUTE_TOPIC_URLSAFE = "q-0RhV_hS9GyWkV3x_pXYw"
ROUTE_KEYS = (*(SharePartitionKey(g, ROUTE_TOPIC, 0) for g in ROUTE_GROUPS), SharePartitionKey("a:b", ROUTE_TOPIC, 3),
              SharePartitionKey("share-g", ROUTE_TOPIC_URLSAFE, 0))
PROBE_IMAGE = frozenset({(TOPIC, 0), (TOPIC, 1), (DOOMED_TOPIC, 0)})
# Writes of more than one offset (probes): a range batch; adjacent offsets in the same delivery
# state with different counts (they must not merge); a range overlapping the stored offsets with
# a lower count (the higher count wins per offset) reaching past the offsets the menu writes; an
# archived offset with a high count; no batch at all (a leader whose records are all
# acknowledged moves only its start offset: the write is still persisted and counted).
# SHARE-DRIVE-SAME-FIRST-OFFSET (session 23): one write's own batches share a first offset, the
# first one twice, the later longer and lower; per offset the higher (count, state) wins
# (SHARE-RULE-COMBINE-PRIORITY), whatever the order and however often a batch is repeated.
SAME_FIRST_OFFSET: tuple[StateBatch, ...] = (StateBatch(0, 0, AVAILABLE, 2), StateBatch(0, 0, AVAILABLE, 2),
                                             StateBatch(0, 1, ARCHIVED, 1))
BATCH_PROBES: tuple[tuple[StateBatch, ...], ...] = (
    (),
    (StateBatch(0, 1, AVAILABLE, 1),),
    (StateBatch(0, 0, AVAILABLE, 2), StateBatch(1, 1, AVAILABLE, 3)),
    (StateBatch(1, 2, ACKNOWLEDGED, 1),),
    (StateBatch(0, 0, ARCHIVED, 3),),
    SAME_FIRST_OFFSET,  # last, so the cut probe's first multi-offset batch is unchanged
)


@dataclass(frozen=True, slots=True)
class Write:
    """The leader of epoch ``leader_epoch`` persists ``batches`` with ``start_offset``.

    ``state_epoch`` None: the state epoch the leader read (a probe gives another one); ``key``:
    the share-partition (a probe may name another); ``delivery_complete_count``: KIP-1226's count
    (4.2+), -1 (unknown) in the actors' writes, others in the ``counts`` probes."""

    leader_epoch: int
    start_offset: int
    batches: tuple[StateBatch, ...]
    state_epoch: int | None = None
    key: SharePartitionKey = KEY
    delivery_complete_count: int = NOT_SET


@dataclass(frozen=True, slots=True)
class _ByLeaderEpoch:
    """What a read and a summary carry: the leader epoch they are made at and the share-partition."""

    leader_epoch: int
    key: SharePartitionKey = KEY


@dataclass(frozen=True, slots=True)
class Read(_ByLeaderEpoch):
    """The current leader reads the state (recording its epoch when new)."""


@dataclass(frozen=True, slots=True)
class Elect:
    """A new share-partition leader is elected (leader epoch + 1)."""


@dataclass(frozen=True, slots=True)
class Initialize:
    """The group coordinator (re)initializes the share-partition with a new state epoch."""

    state_epoch: int
    start_offset: int
    key: SharePartitionKey = KEY


@dataclass(frozen=True, slots=True)
class Delete:
    """The group coordinator deletes the share-partition's state (DeleteShareGroupState, 4.1+:
    the share group or the topic was deleted)."""

    key: SharePartitionKey = KEY


@dataclass(frozen=True, slots=True)
class Summary(_ByLeaderEpoch):
    """A ReadShareGroupStateSummary (4.1+: the group coordinator describing offsets)."""


@dataclass(frozen=True, slots=True)
class DeleteTopic:
    """The topic is deleted: the metadata image the shard sees next lacks its partitions
    (``onNewMetadataImage``, from 4.3 ``onMetadataUpdate``). Its stored state stays."""

    topic: str


@dataclass(frozen=True, slots=True)
class CreatePartition:
    """Partition ``partition`` of ``topic`` is created (``kafka-topics --create`` for partition 0,
    ``--alter --partitions`` for the next one): the metadata image the shard sees next has it
    (``onNewMetadataImage``, from 4.3 ``onMetadataUpdate``: the shard stores the new image), so
    requests for it pass the image check (SHARE-RULE-METADATA-UPDATE,
    SHARE-RULE-VALIDATE-UNKNOWN-TOPIC). Partitions are created in order: partition N only once
    N-1 is in the image (Kafka's check is ``partitionCount() > partition``). Not in
    ``actions``/``probe_actions``: only the driver's path-end probe SHARE-DRIVE-PARTITION-ADDED
    sends it."""

    topic: str
    partition: int


@dataclass(frozen=True, slots=True)
class Unload:
    """The broker hosting the coordinator partition loses it (fail-over begins)."""


@dataclass(frozen=True, slots=True)
class Load:
    """A new shard loads the coordinator partition by replaying its log (fail-over ends)."""


@dataclass(frozen=True, slots=True)
class PrunedLoad(Load):
    """The runtime deleted the coordinator partition's records below the redundant offset
    (``ShareCoordinatorService``'s pruning job: ``deleteRecords`` up to the shard's
    ``lastRedundantOffset()``), then a new shard loads what is left (a probe, category
    ``failover``; SHARE-RULE-PRUNE-INVISIBLE)."""


@dataclass(frozen=True, slots=True)
class FindCoordinator:
    """A requester looks up the share coordinator of ``key`` (FindCoordinator, key type SHARE; a
    probe, category ``routing``): the answer is the broker's, from the key alone, and changes
    nothing (SHARE-RULE-KEY-PARSE, SHARE-RULE-ROUTING)."""

    key: SharePartitionKey


Action = (Write | Read | Elect | Initialize | Unload | Load | PrunedLoad | Delete | Summary | DeleteTopic
          | CreatePartition | FindCoordinator)


@dataclass(frozen=True, slots=True)
class SysState:
    """The whole system: the shard, the log, the leaders, and the per-offset reference."""

    shard: ShardState
    log: tuple[Record, ...] = ()
    leader_epoch: int = 0
    leader_state_epoch: int = 0
    group_state_epoch: int = 0
    oracle_start: int = NOT_SET
    oracle: tuple[StateBatch, ...] = ()
    failovers: int = 0
    last_error: str = NONE
    # SHARE-WIT-IMAGE-FAILOVER's progress: 1 once a shard loaded (after a fail-over) with an
    # image that lacks the doomed topic while its state is stored, 2 once that shard then refused
    # the doomed key's request. A reload must validate against the image as it is now, not the
    # one the coordinator started with; only a request after such a load shows which it used.
    image_failover: int = 0
    # The coordinator partition's log start offset: the records below it were deleted by the
    # runtime's pruning (PrunedLoad); a new shard replays ``log[log_start:]``. The model keeps the
    # whole log (the properties read it); 0 in the protocol actors' state space (a probe).
    log_start: int = 0


def key_of(action: Action) -> SharePartitionKey | None:
    """The share-partition a request action is for (None: an environment action)."""
    if isinstance(action, Write | Read | Initialize | Delete | Summary | FindCoordinator):
        return action.key
    return None


def request_of(state: SysState, action: Action) -> Request | None:
    """The node-level request an action sends to the shard (None for environment actions)."""
    if isinstance(action, Write):
        k = action.key
        state_epoch = state.leader_state_epoch if action.state_epoch is None else action.state_epoch
        return WriteRequest(k.group_id, k.topic_id, k.partition, action.leader_epoch, state_epoch,
                            action.start_offset, action.batches, action.delivery_complete_count)
    if isinstance(action, Read):
        return ReadRequest(action.key.group_id, action.key.topic_id, action.key.partition, action.leader_epoch)
    if isinstance(action, Initialize):
        k = action.key
        return InitializeRequest(k.group_id, k.topic_id, k.partition, action.state_epoch, action.start_offset)
    if isinstance(action, Delete):
        return DeleteRequest(action.key.group_id, action.key.topic_id, action.key.partition)
    if isinstance(action, Summary):
        k = action.key
        return ReadSummaryRequest(k.group_id, k.topic_id, k.partition, action.leader_epoch)
    if isinstance(action, FindCoordinator):
        return FindCoordinatorRequest(action.key.group_id, action.key.topic_id, action.key.partition)
    return None


@functools.lru_cache(maxsize=1 << 16)
def loaded(log: tuple[Record, ...], snapshot_limit: int, rules: Rules,
           image: frozenset[tuple[str, int]] = IMAGE) -> ShardState:
    """:func:`load` of ``log``, memoised by prefix: the explorer replays many logs sharing prefixes."""
    if not log:
        return load((), snapshot_limit, image, rules)
    return replay(loaded(log[:-1], snapshot_limit, rules, image), log[-1])


def reloaded(log: tuple[Record, ...], log_start: int, snapshot_limit: int, rules: Rules,
             image: frozenset[tuple[str, int]] | None) -> ShardState:
    """SHARE-RULE-LOAD on a log pruned below ``log_start`` (SHARE-RULE-PRUNE-INVISIBLE): pruning is
    the coordinator's housekeeping, so the new shard answers as one that replayed the whole log:
    its fences too, which the records left may not carry (an initialize's snapshot holds leader
    epoch 0 while the fence keeps the maximum). The deviation ``share-prune-forgets-leader-fence``
    (Kafka 4.1-4.4) rebuilds from what is left (:func:`load_pruned`)."""
    if log_start > 0 and rules.prune_forgets_fences:
        return load_pruned(log, log_start, snapshot_limit, image, rules)
    return loaded(log, snapshot_limit, rules, IMAGE if image is None else image)


def prune_offset(state: SysState) -> int | None:
    """Where the runtime's pruning cuts the log for a :class:`PrunedLoad` from ``state`` (None:
    not offered): the unloaded shard's redundant offset, above the log start, where the records
    left rebuild every stored share-partition, the offsets manager and what the update counts
    decide as the whole log does (a count the replay leaves absent where the whole log has 0
    chooses the same next record from 4.2.1 on: SHARE-RULE-SNAPSHOT-CADENCE), so only the
    fences can tell the two apart and a target that never prunes answers as the model does."""
    shard = state.shard
    r = redundant_offset(shard)
    if shard.active or r is None or r <= state.log_start:
        return None
    full = loaded(state.log, shard.snapshot_limit, shard.rules, shard.image)
    left = load_pruned(state.log, r, shard.snapshot_limit, shard.image, shard.rules)
    if (left.offsets, left.snapshot_offsets, left.redundant) != (full.offsets, full.snapshot_offsets, full.redundant):
        return None
    same = {0, None} if shard.rules.update_count_from_one else set()
    for key, _ in full.offsets:
        a, b = full.update_count(key), left.update_count(key)
        if a != b and not {a, b} <= same:
            return None
    return r


def read_view(shard: ShardState) -> tuple[Any, ...]:
    """What a read of the key returns (state epoch, start offset, batches) plus the fences."""
    off = shard.offset(KEY)
    if off is None:
        return (None, shard.leader_epoch(KEY), shard.state_epoch(KEY))
    return (off.state_epoch, off.start_offset, off.state_batches, shard.leader_epoch(KEY), shard.state_epoch(KEY))


class ShareSystem:
    """The share coordinator system model (see the module docstring)."""

    name = "share"

    def __init__(self, offsets: int = 2, max_records: int = 4, snapshot_every: int = 1, max_leader_epoch: int = 1,
                 max_state_epoch: int = 2, max_failovers: int = 1, flaws: Flaws = REFERENCE,
                 kafka_minor: int = LATEST_MINOR, deviations: tuple[str, ...] = (), probes: bool = False) -> None:
        self.bounds: dict[str, int | bool] = {
            "offsets": offsets, "max_records": max_records, "snapshot_every": snapshot_every,
            "max_leader_epoch": max_leader_epoch, "max_state_epoch": max_state_epoch,
            "max_failovers": max_failovers, "kafka_minor": kafka_minor,
        }
        if probes:  # only when on: the TLA+ spec has no such constant (it models the protocol actors)
            self.bounds["probes"] = True
        self.probes = probes
        self.image = PROBE_IMAGE if probes else IMAGE
        # The release's rule set, with the switches of the known deviations a variant allows.
        self.rules = with_deviations(rules_of(kafka_minor), deviations)
        self.offsets = offsets
        self.max_records = max_records
        self.snapshot_every = snapshot_every
        self.max_leader_epoch = max_leader_epoch
        self.max_state_epoch = max_state_epoch
        self.max_failovers = max_failovers
        self.flaws = flaws
        # The write menu: one offset, a delivery (state, count) of two kinds, the start offset
        # kept (-1) or moved to 1. Two kinds of count are enough to tell which batch won.
        kinds = ((AVAILABLE, 1), (ACKNOWLEDGED, 2))
        starts = (NOT_SET, 1) if offsets > 1 else (NOT_SET,)
        self.menu: tuple[tuple[int, tuple[StateBatch, ...]], ...] = tuple(
            (start, (StateBatch(o, o, st, cnt),)) for start in starts for o in range(offsets) for st, cnt in kinds)

    # -- the Model protocol --------------------------------------------------------------------

    def init_states(self) -> Sequence[SysState]:
        return (SysState(shard=ShardState(snapshot_limit=self.snapshot_every, image=self.image, rules=self.rules)),)

    def actions(self, state: SysState) -> Iterator[Action]:
        for start, batches in self.menu:
            yield Write(state.leader_epoch, start, batches)
        if state.leader_epoch > 0:
            start, batches = self.menu[-1]
            yield Write(state.leader_epoch - 1, start, batches)
        yield Read(state.leader_epoch)
        yield Read(NOT_SET)  # a read that records no leader epoch (SHARE-RULE-READ-FENCE)
        if state.leader_epoch < self.max_leader_epoch:
            yield Elect()
        if self.rules.initialize and state.group_state_epoch < self.max_state_epoch:
            yield Initialize(state.group_state_epoch + 1, 0)
        if state.shard.active and state.failovers < self.max_failovers:
            yield Unload()
        if not state.shard.active:
            yield Load()
        if self.probes:
            for _, action in self.probe_actions(state):
                yield action

    def probe_actions(self, state: SysState) -> Iterator[tuple[str, Action]]:
        """The requests beyond the protocol actors' (``probes``), each with its category. Every
        initialize, delete and read-summary is in the category of its request kind (``initialize``,
        ``delete``, ``summary``), so a target that declares one unsupported never gets it:

        - ``epochs``: on the key, a write at the leader's epoch with a state epoch of -1, one below
          and one above the group coordinator's; a write with leader epoch -1 and one from a
          leader not yet read (epoch + 1); reads with epoch + 1 and epoch - 1;
        - ``initialize``: initialize at the group's state epoch again and at the one before (a
          stale group coordinator), and of the other keys below; from 4.4 one at state epoch -1
          (refused);
        - ``reorder``: once a write moved the stored start offset past 0, a write with start
          offset 0 (an out-of-order write of the leader);
        - ``counts`` (KIP-1226's delivery-complete count; sent to every release, which ignore it
          before 4.2): once the key is stored, writes by the current leader with counts 0 and 2
          at the stored start offset, 2 with start offset -1 and one below the stored one, 1 one
          above it (the initialize of ``g:T:1`` with start offset -1, whose count stays -1, is
          in ``initialize``); while ``g:T:1`` is stored with start offset -1, a write to it with
          a known start offset and count 1 (SHARE-DRIVE-COUNT-FROM-UNKNOWN-START);
        - ``batches``: writes by the current leader of multi-offset batches (BATCH_PROBES), and
          once a multi-offset batch is stored, a write whose start offset cuts it (no batches);
        - ``delete``, ``summary``: DeleteShareGroupState, ReadShareGroupStateSummary (with the
          leader's epoch and with -1) of the key and of the other keys below;
        - ``keys``: writes and reads of another partition of the topic (``g:T:1``), of the same
          partition in another group (``h:T:0``), of a partition the metadata image does not
          have (``g:T:2``, a write) and of partition -1 (their initialize, delete and
          read-summary are in those categories);
        - ``image``: topic ``U`` deleted from the metadata image (``DeleteTopic``), then, while
          ``g:U:0``'s state is still stored, its leader's read and write (both must fail), a
          write at a stale state epoch (fenced before the image is checked) and a read one epoch
          above its fence (a leader elected after the deletion: refused, nothing recorded); the
          group coordinator's initialize at a stale state epoch (category ``initialize``: fenced
          before the image is checked too);
        - ``epochs`` also: a read and a write of ``h:T:0`` at leader epoch ``MAX_EPOCH``
          (Integer.MAX_VALUE; the write at that state epoch too).
        - ``epochs`` from 4.4 (SHARE-DRIVE-MIN-EPOCH): a read and a write of ``h:T:0`` at leader
          epoch ``MIN_EPOCH`` (Integer.MIN_VALUE), a write and an initialize at that state epoch.
        Requests a release has no API for (SHARE-VER-INITIALIZE) are not sent to it.
        """
        le, ge, api = state.leader_epoch, state.group_state_epoch, self.rules.initialize
        if prune_offset(state) is not None:
            yield "failover", PrunedLoad()  # SHARE-RULE-PRUNE-INVISIBLE
        start, batches = self.menu[1] if len(self.menu) > 1 else self.menu[0]
        for se in sorted({NOT_SET, ge - 1, ge + 1} - {state.leader_state_epoch}):
            if se >= NOT_SET:
                yield "epochs", Write(le, start, batches, state_epoch=se)
        yield "epochs", Write(NOT_SET, start, batches)
        yield "epochs", Write(le + 1, start, batches)
        stored = state.shard.offset(KEY)
        if stored is not None and stored.start_offset > 0:
            # An out-of-order write: start 0 arrives after a write moved the start past it.
            yield "reorder", Write(le, 0, self.menu[-1][1])
        if stored is not None:
            # SHARE-RULE-WRITE-COUNT: a count at the same start offset (higher, then lower), from
            # below it (-1 and one less) and from above it.
            s0, last = stored.start_offset, self.menu[-1][1]
            wanted = ((s0, 2), (s0, 0), (NOT_SET, 2), (s0 - 1, 2), (s0 + 1, 1))
            for start, count in dict.fromkeys(w for w in wanted if NOT_SET <= w[0] <= self.offsets):
                yield "counts", Write(le, start, last, delivery_complete_count=count)
        if api:
            # SHARE-RULE-INITIALIZE-COUNT: a start offset not yet known leaves the count unknown
            # (in the category of its kind, like every initialize).
            yield "initialize", Initialize(1, NOT_SET, key=OTHER_PARTITION)
            unknown = state.shard.offset(OTHER_PARTITION)
            if unknown is not None and unknown.start_offset == NOT_SET:
                # SHARE-DRIVE-COUNT-FROM-UNKNOWN-START: its first write with a known start offset
                # and a count: -1 is below every start offset, so the count is taken
                # (SHARE-RULE-WRITE-COUNT). The side keys' writes carry -1, which the stored -1
                # could not tell from a count left unknown.
                known, batches = self.menu[-1]
                yield "counts", Write(0, max(known, 0), batches, state_epoch=1, key=OTHER_PARTITION,
                                      delivery_complete_count=1)
        yield "epochs", Read(le + 1)
        if le > 0:
            yield "epochs", Read(le - 1)
        if api:
            yield "initialize", Initialize(ge, 0)
            if ge > 0:
                yield "initialize", Initialize(ge - 1, 0)
            if self.rules.negative_epochs_refused:
                # 4.4 refuses a negative state epoch in initialize too, not only in writes and
                # reads (SHARE-VER-NEGATIVE-EPOCHS-REFUSED). Sent for another key, so the actors'
                # epochs stay the key's.
                yield "initialize", Initialize(NOT_SET, 0, key=OTHER_PARTITION)
            yield "delete", Delete()
            yield "summary", Summary(le)
            yield "summary", Summary(NOT_SET)
        for probe in BATCH_PROBES:
            yield "batches", Write(le, NOT_SET, probe)
        if stored is not None:
            # SHARE-DRIVE-CUT-BATCH: a start offset inside a stored multi-offset batch (the batch is
            # clipped to [start, last], SHARE-RULE-COMBINE-CLIP), with no batches of its own, so
            # whether a ShareUpdate or a limit snapshot carries it, the clip is the replay's.
            for cut in sorted({b.first_offset + 1 for b in stored.state_batches
                               if b.first_offset < b.last_offset and b.first_offset + 1 > stored.start_offset}):
                yield "batches", Write(le, cut, ())
        side_start, side_batches = self.menu[-1]
        for key in SIDE_KEYS:
            if api:
                yield "initialize", Initialize(1, 0, key=key)
            yield "keys", Write(0, side_start, side_batches, state_epoch=1, key=key)
            yield "keys", Read(0, key=key)
            if api:
                yield "delete", Delete(key)
                yield "summary", Summary(0, key)
        # Epochs at the int32 limit, for another group's key (the actors' epochs stay the key's): a
        # read records MAX_EPOCH as its leader epoch, a write at it is fenced by nothing.
        yield "epochs", Read(MAX_EPOCH, key=OTHER_GROUP)
        # SHARE-DRIVE-MAX-DELIVERY-COUNT: that write's batch carries the largest delivery count the
        # record's int16 DeliveryCount holds (every other count the driver writes is 1-3, so a
        # store that narrows it to a byte kept each one; red team session 24).
        yield "epochs", Write(MAX_EPOCH, side_start,
                              tuple(replace(b, delivery_count=MAX_DELIVERY_COUNT) for b in side_batches),
                              state_epoch=MAX_EPOCH, key=OTHER_GROUP)
        if self.rules.negative_epochs_refused:
            # SHARE-DRIVE-MIN-EPOCH: 4.4 refuses every negative epoch, not only the old sentinel -1
            # (SHARE-VER-NEGATIVE-EPOCHS-REFUSED): Integer.MIN_VALUE as the leader epoch of a read
            # and a write, and as the state epoch of a write and an initialize (another group's key).
            yield "epochs", Read(MIN_EPOCH, key=OTHER_GROUP)
            yield "epochs", Write(MIN_EPOCH, side_start, side_batches, state_epoch=1, key=OTHER_GROUP)
            yield "epochs", Write(0, side_start, side_batches, state_epoch=MIN_EPOCH, key=OTHER_GROUP)
            if api:
                yield "initialize", Initialize(MIN_EPOCH, 0, key=OTHER_GROUP)
        if api:
            yield "initialize", Initialize(1, 0, key=UNHOSTED)
            yield "delete", Delete(UNHOSTED)
            yield "summary", Summary(0, UNHOSTED)
        if state.shard.image is not None and any(t == DOOMED_TOPIC for t, _ in state.shard.image):
            yield "image", DeleteTopic(DOOMED_TOPIC)
        elif state.shard.offset(DOOMED) is not None:
            # The deleted topic's state is still stored: its leader's requests must now fail.
            yield "image", Read(0, key=DOOMED)
            yield "image", Write(0, side_start, side_batches, state_epoch=1, key=DOOMED)
            # A stale group coordinator's state epoch: the fences come before the image, so it is
            # FENCED_STATE_EPOCH, not UNKNOWN_TOPIC_OR_PARTITION (SHARE-RULE-METADATA-UPDATE).
            yield "image", Write(0, side_start, side_batches, state_epoch=0, key=DOOMED)
            if api:
                # SHARE-DRIVE-STALE-INITIALIZE-WITHOUT-TOPIC: a stale group coordinator's
                # initialize (state epoch 0, below the side keys' 1) is fenced before the image
                # too (SHARE-RULE-VALIDATE-STATE-FENCE); in the category of its kind.
                yield "initialize", Initialize(0, 0, key=DOOMED)
            # SHARE-DRIVE-NEW-LEADER-WITHOUT-TOPIC: a leader elected after the topic went away
            # (one epoch above the fence) reads: UNKNOWN_TOPIC_OR_PARTITION and no record, the
            # image before the leader epoch is recorded (SHARE-RULE-METADATA-UPDATE: a failed
            # check appends nothing). The read at 0 never carries a new epoch (the fence is 0 or
            # above), so a read that records before it checks the image was not told apart.
            fence = state.shard.leader_epoch(DOOMED)
            yield "image", Read((0 if fence is None else fence) + 1, key=DOOMED)
        for route in ROUTE_KEYS:
            yield "routing", FindCoordinator(route)  # SHARE-DRIVE-ROUTING
        yield "keys", Write(0, side_start, side_batches, state_epoch=1, key=UNHOSTED)
        yield "keys", Write(0, side_start, side_batches, state_epoch=1, key=NEGATIVE)
        yield "keys", Read(0, key=NEGATIVE)
        if api:
            yield "initialize", Initialize(1, 0, key=NEGATIVE)
            yield "delete", Delete(NEGATIVE)
            yield "summary", Summary(0, NEGATIVE)

    def next_state(self, state: SysState, action: Action) -> SysState | None:
        if isinstance(action, FindCoordinator):
            return state  # the broker answers from the key alone: nothing changes
        if isinstance(action, Elect):
            return replace(state, leader_epoch=state.leader_epoch + 1, last_error=NONE)
        if isinstance(action, Unload):
            return replace(state, shard=unload(state.shard), failovers=state.failovers + 1, last_error=NONE)
        if isinstance(action, Load):
            # The new shard gets the image as it is now (a topic deleted meanwhile stays deleted).
            log_start = state.log_start
            if isinstance(action, PrunedLoad):
                cut = prune_offset(state)
                if cut is None:
                    return None
                log_start = cut
            shard = reloaded(state.log, log_start, self.snapshot_every, self.rules, state.shard.image)
            state = replace(state, log_start=log_start)
            doomed_gone = (shard.image is not None and all(t != DOOMED_TOPIC for t, _ in shard.image)
                           and shard.offset(DOOMED) is not None)
            return replace(state, shard=shard, last_error=NONE, image_failover=1 if doomed_gone else 0)
        if isinstance(action, DeleteTopic):
            return replace(state, shard=update_image(state.shard, without_topic(state.shard.image, action.topic)),
                           last_error=NONE)
        if isinstance(action, CreatePartition):
            image = with_partition(state.shard.image, action.topic, action.partition)
            return None if image is None else replace(state, shard=update_image(state.shard, image), last_error=NONE)
        request = request_of(state, action)
        assert request is not None
        shard, outputs = step_with(state.shard, request, self.flaws)
        records = tuple(o for o in outputs if isinstance(o, ShareSnapshot | ShareUpdate | ShareTombstone))
        response = outputs[-1]
        error = response_error(response) or NONE
        nxt = replace(state, shard=shard, log=state.log + records, last_error=error)
        if state.image_failover == 1 and key_of(action) == DOOMED and error == UNKNOWN_TOPIC_OR_PARTITION:
            nxt = replace(nxt, image_failover=2)
        if error != NONE or key_of(action) != KEY:
            return nxt  # the reference (oracle) and the actors' epochs are the key's
        if isinstance(action, Write):
            if state.shard.offset(KEY) is None and not self.rules.initialize:
                # 4.0: the first write creates the state with its state epoch (no group coordinator
                # initializes it), which is then the one every later write is fenced by.
                assert request is not None and isinstance(request, WriteRequest)
                nxt = replace(nxt, group_state_epoch=request.state_epoch)
            start = state.oracle_start if action.start_offset == NOT_SET else action.start_offset
            if self.rules.write_start_monotone and state.shard.offset(KEY) is not None:
                start = max(start, state.oracle_start)  # SHARE-RULE-WRITE-START-MONOTONE
            nxt = replace(nxt, oracle_start=start, oracle=combine_oracle(start, state.oracle, action.batches))
        elif isinstance(action, Read):
            if action.leader_epoch in (state.leader_epoch, NOT_SET):  # the current leader's (a probe is not)
                nxt = replace(nxt, leader_state_epoch=getattr(response, "state_epoch", state.leader_state_epoch))
        elif isinstance(action, Initialize):
            nxt = replace(nxt, group_state_epoch=action.state_epoch, oracle_start=action.start_offset, oracle=())
        elif isinstance(action, Delete):
            nxt = replace(nxt, oracle_start=NOT_SET, oracle=())
        return nxt

    def within_bounds(self, state: SysState) -> bool:
        return len(state.log) < self.max_records

    def properties(self) -> Sequence[Property[Any, Any]]:
        snapshot_every, rules = self.snapshot_every, self.rules

        @always("SHARE-INV-NO-LOSS", "no_loss")
        def no_loss(s: SysState) -> bool:
            """Per offset, the stored delivery state and count equal the reference's."""
            off = s.shard.offset(KEY)
            if off is None:
                return not s.oracle
            return off.start_offset == s.oracle_start and per_offset(off.state_batches) == per_offset(s.oracle)

        @always("SHARE-INV-REPLAY-EQUALS-HANDLERS", "replay_equals_handlers")
        def replay_equals(s: SysState) -> bool:
            """Replaying the log into a fresh shard gives the state the handlers kept."""
            fresh = loaded(s.log, snapshot_every, rules, s.shard.image)
            return fresh == replace(s.shard, active=True)

        @always("SHARE-INV-STATE-EPOCH-RECORDED", "state_epoch_recorded")
        def state_epoch_recorded(s: SysState) -> bool:
            """Once the key is stored, its state epoch is the last one the group coordinator set."""
            fence = s.shard.state_epoch(KEY)
            return fence is None or fence == s.group_state_epoch

        @always_step("SHARE-INV-REJECTED-NO-CHANGE", "rejected_changes_nothing")
        def rejected(before: SysState, action: Action, after: SysState) -> bool:
            """A fenced or rejected request appends nothing and changes no stored state."""
            if after.last_error == NONE or isinstance(action, Elect | Unload | Load | DeleteTopic | CreatePartition):
                return True
            return after.log == before.log and after.shard == before.shard

        @always_step("SHARE-INV-STALE-LEADER-FENCED", "stale_leader_fenced")
        def stale_fenced(before: SysState, action: Action, after: SysState) -> bool:
            """A write from a leader epoch older than the recorded one is FENCED_LEADER_EPOCH
            (-1 is "not set", and refused as INVALID_REQUEST from 4.4)."""
            if not isinstance(action, Write) or not before.shard.active or action.leader_epoch == NOT_SET:
                return True
            fence = before.shard.leader_epoch(action.key)
            return (fence is None or action.leader_epoch >= fence
                    or after.last_error in (FENCED_LEADER_EPOCH, INVALID_REQUEST))

        @always_step("SHARE-INV-EPOCHS-MONOTONE", "epochs_never_decrease")
        def monotone(before: SysState, action: Action, after: SysState) -> bool:
            """Snapshot, state and leader epochs of the stored key (and the fences) never decrease.

            Initialize writes a snapshot with leader epoch 0 (SHARE-RULE-INITIALIZE-SNAPSHOT), so the
            stored leader epoch may drop there; the leader-epoch fence still may not.
            """
            if isinstance(action, Delete) and after.last_error == NONE:
                return True  # a delete forgets the key (SHARE-INV-DELETE-FORGETS)
            a, b = before.shard.offset(KEY), after.shard.offset(KEY)
            if a is not None and b is None:
                return False
            if a is not None and b is not None and (
                    b.snapshot_epoch < a.snapshot_epoch or b.state_epoch < a.state_epoch
                    or (b.leader_epoch < a.leader_epoch and not isinstance(action, Initialize))):
                return False
            for getter in (ShardState.leader_epoch, ShardState.state_epoch):
                x, y = getter(before.shard, KEY), getter(after.shard, KEY)
                if x is not None and (y is None or y < x):
                    return False
            return True

        @always_step("SHARE-INV-FAILOVER-PRESERVES-READS", "failover_preserves_reads")
        def failover_reads(before: SysState, action: Action, after: SysState) -> bool:
            """A read after fail-over returns what a read before it returned."""
            if not isinstance(action, Load):
                return True
            return read_view(before.shard) == read_view(after.shard)

        @always_step("SHARE-INV-LEADER-EPOCH-FROM-READ", "leader_epoch_only_from_read")
        def leader_epoch_from_read(before: SysState, action: Action, after: SysState) -> bool:
            """A write never moves the leader-epoch fence or the stored leader epoch: only a read
            records a new leader (SHARE-RULE-WRITE-KEEPS-EPOCHS, KAFKA-19456)."""
            if not isinstance(action, Write):
                return True
            k = action.key
            a, b = before.shard.offset(k), after.shard.offset(k)
            if a is None:
                return True  # 4.0: the first write creates the state (SHARE-RULE-RECORD-FIRST-SNAPSHOT)
            same_stored = b is None or a.leader_epoch == b.leader_epoch
            return same_stored and before.shard.leader_epoch(k) == after.shard.leader_epoch(k)

        @always_step("SHARE-INV-UNSET-READ-NOT-FENCED", "unset_read_not_fenced")
        def unset_read(before: SysState, action: Action, after: SysState) -> bool:
            """A read with leader epoch -1 is never FENCED_LEADER_EPOCH (KAFKA-20694)."""
            if not isinstance(action, Read) or action.leader_epoch != NOT_SET or not before.shard.active:
                return True
            return after.last_error != FENCED_LEADER_EPOCH

        @always_step("SHARE-INV-NO-UNINITIALIZED-ACCESS", "no_uninitialized_access")
        def no_uninitialized(before: SysState, action: Action, after: SysState) -> bool:
            """From 4.1, a write or read of a key with no stored state (never initialized, or
            deleted) is refused and appends nothing (SHARE-VER-UNINITIALIZED-REFUSED)."""
            if (not rules.uninitialized_refused or not isinstance(action, Write | Read) or not before.shard.active
                    or before.shard.offset(action.key) is not None):
                return True
            return after.last_error == INVALID_REQUEST and after.log == before.log

        @always_step("SHARE-INV-START-MONOTONE", "start_offset_never_backwards")
        def start_monotone(before: SysState, action: Action, after: SysState) -> bool:
            """The stored start offset never moves backwards; only initialize (the group
            coordinator resetting or altering the offsets) may set a lower one."""
            a, b = before.shard.offset(KEY), after.shard.offset(KEY)
            return isinstance(action, Initialize) or a is None or b is None or b.start_offset >= a.start_offset

        @sometimes("SHARE-WIT-START-MOVED", "start_offset_moved")
        def start_moved(s: SysState) -> bool:
            """A write moved the stored start offset above the initialized one."""
            off = s.shard.offset(KEY)
            return off is not None and off.start_offset > 0

        @sometimes("SHARE-WIT-UNINITIALIZED-REFUSED", "uninitialized_refused")
        def refused(s: SysState) -> bool:
            """A request was refused as INVALID_REQUEST (4.1+: no state yet; 4.4: a -1 epoch)."""
            return s.last_error == INVALID_REQUEST

        @always("SHARE-INV-SNAPSHOT-CADENCE", "snapshot_cadence")
        def cadence(s: SysState) -> bool:
            """No more than ``snapshot_every`` ShareUpdates follow a ShareSnapshot in the log before
            the next snapshot (SHARE-RULE-SNAPSHOT-CADENCE)."""
            runs: dict[SharePartitionKey, int] = {}  # per key: the updates since its last snapshot
            for r in s.log:
                runs[r.key] = runs.get(r.key, 0) + 1 if isinstance(r, ShareUpdate) else 0
                if runs[r.key] > snapshot_every:
                    return False
            return True

        @sometimes("SHARE-WIT-LEADER-EPOCH-READ", "read_recorded_leader_epoch")
        def read_recorded(s: SysState) -> bool:
            """A read recorded a new leader epoch: the stored leader epoch is above 0."""
            off = s.shard.offset(KEY)
            return off is not None and off.leader_epoch > 0

        @sometimes("SHARE-WIT-UPDATE-WRITTEN", "share_update_written")
        def update_written(s: SysState) -> bool:
            """A ShareUpdate record is in the log."""
            return any(isinstance(r, ShareUpdate) for r in s.log)

        @sometimes("SHARE-WIT-LIMIT-SNAPSHOT", "snapshot_after_update_limit")
        def limit_snapshot(s: SysState) -> bool:
            """A ShareSnapshot with a new snapshot epoch follows ShareUpdates in the log."""
            seen_update = False
            for r in s.log:
                if isinstance(r, ShareUpdate):
                    seen_update = True
                elif isinstance(r, ShareSnapshot) and seen_update and r.snapshot_epoch > 0:
                    return True
            return False

        @sometimes("SHARE-WIT-FENCED-WRITE", "fenced_write")
        def fenced(s: SysState) -> bool:
            """A write or read was fenced (leader epoch or state epoch)."""
            return s.last_error in (FENCED_LEADER_EPOCH, FENCED_STATE_EPOCH)

        @sometimes("SHARE-WIT-FAILOVER-READS", "failover_with_state")
        def failover(s: SysState) -> bool:
            """A new shard has loaded a log holding delivery state (reads checked by the step property)."""
            off = s.shard.offset(KEY)
            return s.failovers > 0 and s.shard.active and off is not None and bool(off.state_batches)

        protocol = (no_loss, replay_equals, state_epoch_recorded, rejected, stale_fenced, monotone, failover_reads,
                    leader_epoch_from_read, unset_read, no_uninitialized, start_monotone, cadence, update_written,
                    limit_snapshot, fenced, failover, read_recorded, start_moved, refused)
        return (*protocol, *self._probe_properties()) if self.probes else protocol

    def _probe_properties(self) -> tuple[Property[Any, Any], ...]:
        """The properties only the probe requests can break, and their witnesses."""

        @always_step("SHARE-INV-KEY-ISOLATION", "key_isolation")
        def isolation(before: SysState, action: Action, after: SysState) -> bool:
            """A request for one share-partition changes no other share-partition's stored state or
            fences (SHARE-RULE-KEYS: the shard keeps one entry per key)."""
            key = key_of(action)
            return key is None or _others(before.shard, key) == _others(after.shard, key)

        @always_step("SHARE-INV-DELETE-FORGETS", "delete_forgets")
        def delete_forgets(before: SysState, action: Action, after: SysState) -> bool:
            """A delete answered NONE leaves the key with no state and no fences, and appends a
            tombstone exactly when the key had state (SHARE-RULE-DELETE)."""
            if not isinstance(action, Delete) or after.last_error != NONE:
                return True
            k = action.key
            gone = (after.shard.offset(k) is None and after.shard.leader_epoch(k) is None
                    and after.shard.state_epoch(k) is None and after.shard.update_count(k) is None)
            appended = after.log[len(before.log):]
            had = before.shard.offset(k) is not None
            return gone and appended == ((ShareTombstone(k),) if had else ())

        @always_step("SHARE-INV-SUMMARY-READS-ONLY", "summary_changes_nothing")
        def summary_only_reads(before: SysState, action: Action, after: SysState) -> bool:
            """ReadShareGroupStateSummary appends nothing and changes no state, not even the
            leader-epoch fence (SHARE-RULE-READ-SUMMARY)."""
            return not isinstance(action, Summary) or (after.log == before.log and after.shard == before.shard)

        @sometimes("SHARE-WIT-DELETE-WRITTEN", "delete_written")
        def deleted(s: SysState) -> bool:
            """A delete wrote a tombstone for the key, and the key was initialized again after it."""
            at = [i for i, r in enumerate(s.log) if isinstance(r, ShareTombstone) and r.key == KEY]
            return bool(at) and s.shard.offset(KEY) is not None

        @sometimes("SHARE-WIT-FENCE-RESTARTED", "fence_restarted_after_delete")
        def fence_restarted(s: SysState) -> bool:
            """After the key's last tombstone it was initialized again and a request was answered
            with a record (a write, or a read that recorded its epoch) while its leader-epoch fence is
            below the one the tombstone forgot: the new state's fences start again
            (SHARE-RULE-REPLAY-TOMBSTONE; SHARE-DRIVE-FENCES-ACROSS-DELETE)."""
            at = [i for i, r in enumerate(s.log) if isinstance(r, ShareTombstone) and r.key == KEY]
            if not at:
                return False
            before = [r.leader_epoch for r in s.log[:at[-1]] if not isinstance(r, ShareTombstone) and r.key == KEY]
            after = [r for r in s.log[at[-1] + 1:] if r.key == KEY]
            fence = s.shard.leader_epoch(KEY)
            return bool(before) and len(after) > 1 and fence is not None and fence < max(before)

        @sometimes("SHARE-WIT-DELETED-REFUSED", "deleted_key_refused")
        def deleted_refused(s: SysState) -> bool:
            """A request for the key after its delete was refused as uninitialized (4.1+: a deleted
            share-partition is one with no state, SHARE-VER-UNINITIALIZED-REFUSED)."""
            return (s.last_error == INVALID_REQUEST and s.shard.offset(KEY) is None and s.shard.active
                    and any(isinstance(r, ShareTombstone) and r.key == KEY for r in s.log))

        @sometimes("SHARE-WIT-DELETE-FAILOVER", "delete_survives_failover")
        def delete_failover(s: SysState) -> bool:
            """A new shard loaded a log holding a tombstone."""
            return s.failovers > 0 and s.shard.active and any(isinstance(r, ShareTombstone) for r in s.log)

        @sometimes("SHARE-WIT-KEYS", "several_keys_stored")
        def keys(s: SysState) -> bool:
            """The shard stores state for the key and another share-partition at once."""
            return s.shard.offset(KEY) is not None and any(s.shard.offset(k) is not None for k in SIDE_KEYS)

        @sometimes("SHARE-WIT-IMAGE-FAILOVER", "image_survives_failover")
        def image_failover(s: SysState) -> bool:
            """A shard loaded after a fail-over, while a topic with stored state was gone from the
            metadata image, refused that topic's request (SHARE-STATE-IMAGE: a reload validates
            against the image as it is now)."""
            return s.image_failover == 2

        snapshot_every, rules = self.snapshot_every, self.rules
        # 4.0 has no delete: there the redundant offset moves only with the key's own snapshots.
        released_seen = ("delete_releases_log",) if rules.initialize else ("updates_redundant",)

        @always("SHARE-INV-REDUNDANT-SAFE", "redundant_records_superseded", witnessed_by=("updates_redundant",))
        def redundant_safe(s: SysState) -> bool:
            """Every record below the redundant offset is superseded: replaying the log from it
            rebuilds every stored share-partition state (SHARE-RULE-REDUNDANT-OFFSET)."""
            r = s.shard.redundant
            return r is None or loaded(s.log[r:], snapshot_every, rules, s.shard.image).offsets == s.shard.offsets

        @always("SHARE-INV-REDUNDANT-RELEASED", "redundant_offset_released", witnessed_by=released_seen)
        def released(s: SysState) -> bool:
            """Only a stored share-partition holds the redundant offset back: it is the lowest
            offset of a stored share-partition's last ShareSnapshot, and with none stored the last
            tombstone's (SHARE-RULE-REDUNDANT-OFFSET; KAFKA-19695)."""
            return s.shard.redundant == needed_from(s.log, s.shard)

        @sometimes("SHARE-WIT-UPDATE-CUTS-BATCH", "update_cuts_batch")
        def update_cuts(s: SysState) -> bool:
            """The last record is a ShareUpdate whose start offset cuts a batch stored before it
            (SHARE-RULE-COMBINE-CLIP on replay; SHARE-DRIVE-CUT-BATCH)."""
            if not s.log or not isinstance(s.log[-1], ShareUpdate) or s.log[-1].key != KEY:
                return False
            cut = s.log[-1].start_offset
            before = loaded(s.log[:-1], snapshot_every, rules, s.shard.image).offset(KEY)
            return before is not None and any(b.first_offset < cut <= b.last_offset for b in before.state_batches)

        @sometimes("SHARE-WIT-REDUNDANT-UPDATES", "updates_redundant")
        def updates_redundant(s: SysState) -> bool:
            """A ShareUpdate lies below the redundant offset: a later snapshot superseded it."""
            r = s.shard.redundant
            return r is not None and any(isinstance(rec, ShareUpdate) for rec in s.log[:r])

        @sometimes("SHARE-WIT-REDUNDANT-DELETE", "delete_releases_log")
        def delete_releases(s: SysState) -> bool:
            """A tombstone lies below the redundant offset while a share-partition is stored: the
            deleted share-partition holds the log back no more."""
            r = s.shard.redundant
            return (r is not None and bool(s.shard.offsets)
                    and any(isinstance(rec, ShareTombstone) for rec in s.log[:r]))

        @always_step("SHARE-INV-PRUNE-KEEPS-FENCES", "prune_keeps_fences", witnessed_by=("prune_restores_fence",))
        def prune_keeps_fences(before: SysState, action: Action, after: SysState) -> bool:
            """A shard loaded from a log pruned below the redundant offset holds the leader-epoch
            and state-epoch fences a replay of the whole log gives (SHARE-RULE-PRUNE-INVISIBLE):
            pruning never lets a stale leader or group coordinator in again."""
            if not isinstance(action, Load) or after.log_start == 0 or not after.shard.active:
                return True
            whole = loaded(after.log, snapshot_every, rules, after.shard.image)
            return (whole.leader_epochs, whole.state_epochs) == (after.shard.leader_epochs, after.shard.state_epochs)

        @sometimes("SHARE-WIT-PRUNE-FENCE", "prune_restores_fence")
        def prune_restores(s: SysState) -> bool:
            """A shard loaded from a pruned log holds a leader-epoch fence the records left alone
            do not rebuild (an initialize's snapshot after a read recorded a leader epoch)."""
            if s.log_start == 0 or not s.shard.active:
                return False
            left = load_pruned(s.log, s.log_start, snapshot_every, s.shard.image, rules)
            return left.leader_epochs != loaded(s.log, snapshot_every, rules, s.shard.image).leader_epochs

        flaws = self.flaws

        @always_step("SHARE-INV-KEY-FINDS-COORDINATOR", "key_finds_coordinator", witnessed_by=("odd_group_found",))
        def finds(before: SysState, action: Action, after: SysState) -> bool:
            """FindCoordinator for a share-partition finds the ``__share_group_state`` partition
            its own coordinator key routes to, for every group id KIP-932 allows: the parse of
            the formatted key gives back the group, topic and partition (SHARE-RULE-KEY-PARSE,
            SHARE-RULE-ROUTING)."""
            if not isinstance(action, FindCoordinator):
                return True
            response = _found(before, action, flaws)
            return response.error == NONE and response.coordinator == partition_for(action.key, STATE_PARTITIONS)

        @sometimes_step("SHARE-WIT-ODD-GROUP-FOUND", "odd_group_found")
        def odd_found(before: SysState, action: Action, after: SysState) -> bool:
            """FindCoordinator found the coordinator of a group id holding ':'."""
            return (isinstance(action, FindCoordinator) and ":" in action.key.group_id
                    and _found(before, action, flaws).error == NONE)

        deletes = ((deleted, delete_failover, delete_releases, deleted_refused, fence_restarted)
                   if self.rules.initialize else ())  # 4.0: no delete
        counts = self._count_properties() if self.rules.delivery_complete_count else ()
        return (isolation, delete_forgets, summary_only_reads, *deletes, keys, image_failover,
                redundant_safe, released, updates_redundant, prune_keeps_fences, prune_restores, update_cuts,
                finds, odd_found, *counts)

    @staticmethod
    def _count_properties() -> tuple[Property[Any, Any], ...]:
        """KIP-1226's delivery-complete count (4.2+; SHARE-VER-DELIVERY-COMPLETE-COUNT). Checked
        with the probes on: the actors' writes carry no count (-1), the ``counts`` probes do, and
        the TLA+ spec (the actors' state space) has no count."""

        @always_step("SHARE-INV-COUNT-INITIALIZED", "initialize_sets_count")
        def initialized(before: SysState, action: Action, after: SysState) -> bool:
            """An initialize answered NONE stores the delivery-complete count 0 when its start
            offset is known and -1 when it is -1 (SHARE-RULE-INITIALIZE-COUNT, KAFKA-20034)."""
            if not isinstance(action, Initialize) or after.last_error != NONE:
                return True
            off = after.shard.offset(action.key)
            want = UNKNOWN_COUNT if action.start_offset == NOT_SET else 0
            return off is not None and off.delivery_complete_count == want

        @always_step("SHARE-INV-COUNT-BY-START", "count_follows_start_offset")
        def by_start(before: SysState, action: Action, after: SysState) -> bool:
            """A write answered NONE stores its delivery-complete count only from a start offset
            above the stored one; at the stored start offset the higher count stays, and from
            below it (or -1) the stored count stays (SHARE-RULE-WRITE-COUNT, apache/kafka#23112)."""
            if not isinstance(action, Write) or after.last_error != NONE:
                return True
            a, b = before.shard.offset(action.key), after.shard.offset(action.key)
            if a is None or b is None:
                return True
            count, start = action.delivery_complete_count, action.start_offset
            want = (count if start > a.start_offset else max(count, a.delivery_complete_count)
                    if start == a.start_offset else a.delivery_complete_count)
            return b.delivery_complete_count == want

        @sometimes_step("SHARE-WIT-COUNT-KEPT", "count_kept")
        def kept(before: SysState, action: Action, after: SysState) -> bool:
            """A write answered NONE whose count is below the stored one kept the stored count."""
            if not isinstance(action, Write) or after.last_error != NONE:
                return False
            a, b = before.shard.offset(action.key), after.shard.offset(action.key)
            return (a is not None and b is not None and action.delivery_complete_count < a.delivery_complete_count
                    and b.delivery_complete_count == a.delivery_complete_count)

        @sometimes_step("SHARE-WIT-COUNT-RESET", "initialize_resets_count")
        def reset(before: SysState, action: Action, after: SysState) -> bool:
            """An initialize with a known start offset set a stored count other than 0 back to 0."""
            if not isinstance(action, Initialize) or after.last_error != NONE:
                return False
            a, b = before.shard.offset(action.key), after.shard.offset(action.key)
            return (a is not None and b is not None and a.delivery_complete_count != 0
                    and b.delivery_complete_count == 0)

        @sometimes("SHARE-WIT-COUNT-FROM-UNKNOWN-START", "count_from_unknown_start")
        def from_unknown(s: SysState) -> bool:
            """``g:T:1``, initialized with start offset -1 (count -1), holds a count a write stored
            from a known start offset (SHARE-DRIVE-COUNT-FROM-UNKNOWN-START: -1 is below every
            start offset, SHARE-RULE-WRITE-COUNT)."""
            off = s.shard.offset(OTHER_PARTITION)
            return (off is not None and off.delivery_complete_count > 0
                    and any(isinstance(r, ShareSnapshot) and r.key == OTHER_PARTITION and r.start_offset == NOT_SET
                            for r in s.log))

        return (initialized, by_start, kept, reset, from_unknown)

    # -- rendering and traces ------------------------------------------------------------------

    def describe_action(self, action: Action) -> str:
        key = key_of(action)
        on = "" if key is None or key == KEY else f" [{key.coordinator_key()}]"
        if isinstance(action, Write):
            bs = ", ".join(f"[{b.first_offset}..{b.last_offset}] {STATE_NAMES.get(b.delivery_state)} "
                           f"x{b.delivery_count}" for b in action.batches)
            se = "" if action.state_epoch is None else f" state_epoch={action.state_epoch}"
            dc = "" if action.delivery_complete_count == NOT_SET else f" count={action.delivery_complete_count}"
            return f"leader@{action.leader_epoch} writes{se} start={action.start_offset}{dc} {bs}{on}"
        if isinstance(action, Read):
            return f"leader@{action.leader_epoch} reads{on}"
        if isinstance(action, Initialize):
            return f"group coordinator initializes state_epoch={action.state_epoch} start={action.start_offset}{on}"
        if isinstance(action, Delete):
            return f"group coordinator deletes the state{on}"
        if isinstance(action, Summary):
            return f"read-summary leader_epoch={action.leader_epoch}{on}"
        if isinstance(action, DeleteTopic):
            return f"topic {action.topic} is deleted (metadata update)"
        if isinstance(action, CreatePartition):
            return f"partition {action.partition} of topic {action.topic} is created (metadata update)"
        if isinstance(action, PrunedLoad):
            return "the log is pruned below the redundant offset; a new shard loads what is left"
        if isinstance(action, FindCoordinator):
            return f"find the share coordinator of {action.key.coordinator_key()!r}"
        return type(action).__name__.lower()

    def describe_state(self, state: SysState) -> str:
        off = state.shard.offset(KEY)
        rows = [f"shard {'active' if state.shard.active else 'UNLOADED'}, last response {state.last_error}"]
        if off is None:
            rows.append("stored: nothing")
        else:
            bs = " ".join(f"[{b.first_offset}..{b.last_offset}]{STATE_NAMES.get(b.delivery_state, '?')[:5]}x"
                          f"{b.delivery_count}" for b in off.state_batches)
            rows.append(f"stored: snap_epoch={off.snapshot_epoch} state_epoch={off.state_epoch} "
                        f"leader_epoch={off.leader_epoch} start={off.start_offset} batches: {bs or '-'}")
        ref = " ".join(f"[{b.first_offset}..{b.last_offset}]x{b.delivery_count}" for b in state.oracle)
        rows.append(f"reference: start={state.oracle_start} batches: {ref or '-'}")
        rows.append("log: " + (" ".join(type(r).__name__.replace("Share", "") for r in state.log) or "-"))
        return "\n".join(rows)

    def events_of(self, before: SysState, action: Action, after: SysState) -> Iterator[dict[str, Any]]:
        """Node-level events for trace files: the coordinator shard's input, outputs, observation."""
        request = request_of(before, action)
        if request is not None:
            _, outputs = step_with(before.shard, request, self.flaws)
            yield {"node": "coordinator", "action": type(request).__name__, "input": request,
                   "outputs": list(outputs), "observation": observe(after.shard)}
        elif isinstance(action, Unload | Load):
            yield {"node": "coordinator", "action": type(action).__name__.lower(), "input": None,
                   "outputs": [], "observation": observe(after.shard)}


def needed_from(log: tuple[Record, ...], shard: ShardState) -> int | None:
    """SHARE-RULE-REDUNDANT-OFFSET from the log alone: the lowest offset of the last
    ShareSnapshot of a share-partition ``shard`` stores; with none stored, the last tombstone's
    (the records before it are all redundant); None before any snapshot."""
    last: dict[SharePartitionKey, int] = {}
    tombstone: int | None = None
    for at, rec in enumerate(log):
        if isinstance(rec, ShareSnapshot):
            last[rec.key] = at
        elif isinstance(rec, ShareTombstone):
            tombstone = at
    stored = [at for key, at in last.items() if shard.offset(key) is not None]
    return min(stored) if stored else tombstone


def _found(state: SysState, action: FindCoordinator, flaws: Flaws) -> FindCoordinatorResponse:
    """The broker's answer to ``action`` (what the step sends back)."""
    _, outputs = step_with(state.shard, FindCoordinatorRequest(action.key.group_id, action.key.topic_id,
                                                               action.key.partition), flaws)
    response = outputs[-1]
    assert isinstance(response, FindCoordinatorResponse)
    return response


def _others(shard: ShardState, key: SharePartitionKey) -> tuple[Any, ...]:
    """The shard's four maps without ``key``'s entries."""
    return tuple(tuple(kv for kv in entries if kv[0] != key)
                 for entries in (shard.offsets, shard.leader_epochs, shard.state_epochs, shard.update_counts))


def make(**bounds: Any) -> ShareSystem:
    """The reference share coordinator system model."""
    return ShareSystem(**bounds)
