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

from kspec.model.core.protocol import Property, always, always_step, sometimes
from kspec.model.share.combiner import combine_oracle, per_offset
from kspec.model.share.records import (
    ACKNOWLEDGED,
    AVAILABLE,
    NOT_SET,
    STATE_NAMES,
    Record,
    SharePartitionKey,
    ShareSnapshot,
    ShareTombstone,
    ShareUpdate,
    StateBatch,
)
from kspec.model.share.shard import (
    FENCED_LEADER_EPOCH,
    FENCED_STATE_EPOCH,
    INVALID_REQUEST,
    NONE,
    REFERENCE,
    Flaws,
    InitializeRequest,
    ReadRequest,
    Request,
    ShardState,
    WriteRequest,
    load,
    observe,
    replay,
    response_error,
    step_with,
    unload,
)
from kspec.model.share.versions import LATEST_MINOR, Rules, rules_of, with_deviations

GROUP = "g"
TOPIC = "T"
KEY = SharePartitionKey(GROUP, TOPIC, 0)
IMAGE = frozenset({(TOPIC, 0)})


@dataclass(frozen=True, slots=True)
class Write:
    """The leader of epoch ``leader_epoch`` persists ``batches`` with ``start_offset``."""

    leader_epoch: int
    start_offset: int
    batches: tuple[StateBatch, ...]


@dataclass(frozen=True, slots=True)
class Read:
    """The current leader reads the state (recording its epoch when new)."""

    leader_epoch: int


@dataclass(frozen=True, slots=True)
class Elect:
    """A new share-partition leader is elected (leader epoch + 1)."""


@dataclass(frozen=True, slots=True)
class Initialize:
    """The group coordinator (re)initializes the share-partition with a new state epoch."""

    state_epoch: int
    start_offset: int


@dataclass(frozen=True, slots=True)
class Unload:
    """The broker hosting the coordinator partition loses it (fail-over begins)."""


@dataclass(frozen=True, slots=True)
class Load:
    """A new shard loads the coordinator partition by replaying its log (fail-over ends)."""


Action = Write | Read | Elect | Initialize | Unload | Load


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


def request_of(state: SysState, action: Action) -> Request | None:
    """The node-level request an action sends to the shard (None for environment actions)."""
    if isinstance(action, Write):
        return WriteRequest(GROUP, TOPIC, 0, action.leader_epoch, state.leader_state_epoch, action.start_offset,
                            action.batches)
    if isinstance(action, Read):
        return ReadRequest(GROUP, TOPIC, 0, action.leader_epoch)
    if isinstance(action, Initialize):
        return InitializeRequest(GROUP, TOPIC, 0, action.state_epoch, action.start_offset)
    return None


@functools.lru_cache(maxsize=1 << 16)
def loaded(log: tuple[Record, ...], snapshot_limit: int, rules: Rules) -> ShardState:
    """:func:`load` of ``log``, memoised by prefix: the explorer replays many logs sharing prefixes."""
    if not log:
        return load((), snapshot_limit, IMAGE, rules)
    return replay(loaded(log[:-1], snapshot_limit, rules), log[-1])


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
                 kafka_minor: int = LATEST_MINOR, deviations: tuple[str, ...] = ()) -> None:
        self.bounds: dict[str, int | bool] = {
            "offsets": offsets, "max_records": max_records, "snapshot_every": snapshot_every,
            "max_leader_epoch": max_leader_epoch, "max_state_epoch": max_state_epoch,
            "max_failovers": max_failovers, "kafka_minor": kafka_minor,
        }
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
        return (SysState(shard=ShardState(snapshot_limit=self.snapshot_every, image=IMAGE, rules=self.rules)),)

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

    def next_state(self, state: SysState, action: Action) -> SysState | None:
        if isinstance(action, Elect):
            return replace(state, leader_epoch=state.leader_epoch + 1, last_error=NONE)
        if isinstance(action, Unload):
            return replace(state, shard=unload(state.shard), failovers=state.failovers + 1, last_error=NONE)
        if isinstance(action, Load):
            return replace(state, shard=loaded(state.log, self.snapshot_every, self.rules), last_error=NONE)
        request = request_of(state, action)
        assert request is not None
        shard, outputs = step_with(state.shard, request, self.flaws)
        records = tuple(o for o in outputs if isinstance(o, ShareSnapshot | ShareUpdate | ShareTombstone))
        response = outputs[-1]
        error = response_error(response) or NONE
        nxt = replace(state, shard=shard, log=state.log + records, last_error=error)
        if error != NONE:
            return nxt
        if isinstance(action, Write):
            start = state.oracle_start if action.start_offset == NOT_SET else action.start_offset
            nxt = replace(nxt, oracle_start=start, oracle=combine_oracle(start, state.oracle, action.batches))
        elif isinstance(action, Read):
            nxt = replace(nxt, leader_state_epoch=getattr(response, "state_epoch", state.leader_state_epoch))
        elif isinstance(action, Initialize):
            nxt = replace(nxt, group_state_epoch=action.state_epoch, oracle_start=action.start_offset, oracle=())
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
            fresh = loaded(s.log, snapshot_every, rules)
            return fresh == replace(s.shard, active=True)

        @always("SHARE-INV-STATE-EPOCH-RECORDED", "state_epoch_recorded")
        def state_epoch_recorded(s: SysState) -> bool:
            """Once the key is stored, its state epoch is the last one the group coordinator set."""
            fence = s.shard.state_epoch(KEY)
            return fence is None or fence == s.group_state_epoch

        @always_step("SHARE-INV-REJECTED-NO-CHANGE", "rejected_changes_nothing")
        def rejected(before: SysState, action: Action, after: SysState) -> bool:
            """A fenced or rejected request appends nothing and changes no stored state."""
            if after.last_error == NONE or isinstance(action, Elect | Unload | Load):
                return True
            return after.log == before.log and after.shard == before.shard

        @always_step("SHARE-INV-STALE-LEADER-FENCED", "stale_leader_fenced")
        def stale_fenced(before: SysState, action: Action, after: SysState) -> bool:
            """A write from a leader epoch older than the recorded one is FENCED_LEADER_EPOCH."""
            if not isinstance(action, Write) or not before.shard.active:
                return True
            fence = before.shard.leader_epoch(KEY)
            return fence is None or action.leader_epoch >= fence or after.last_error == FENCED_LEADER_EPOCH

        @always_step("SHARE-INV-EPOCHS-MONOTONE", "epochs_never_decrease")
        def monotone(before: SysState, action: Action, after: SysState) -> bool:
            """Snapshot, state and leader epochs of the stored key (and the fences) never decrease.

            Initialize writes a snapshot with leader epoch 0 (SHARE-RULE-INITIALIZE-SNAPSHOT), so the
            stored leader epoch may drop there; the leader-epoch fence still may not.
            """
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
            a, b = before.shard.offset(KEY), after.shard.offset(KEY)
            if not isinstance(action, Write) or a is None:
                return True  # 4.0: the first write creates the state (SHARE-RULE-RECORD-FIRST-SNAPSHOT)
            same_stored = b is None or a.leader_epoch == b.leader_epoch
            return same_stored and before.shard.leader_epoch(KEY) == after.shard.leader_epoch(KEY)

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
                    or before.shard.offset(KEY) is not None):
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
            run = 0
            for r in s.log:
                run = run + 1 if isinstance(r, ShareUpdate) else 0
                if run > snapshot_every:
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

        return (no_loss, replay_equals, state_epoch_recorded, rejected, stale_fenced, monotone, failover_reads,
                leader_epoch_from_read, unset_read, no_uninitialized, start_monotone, cadence, update_written,
                limit_snapshot, fenced, failover, read_recorded, start_moved, refused)

    # -- rendering and traces ------------------------------------------------------------------

    def describe_action(self, action: Action) -> str:
        if isinstance(action, Write):
            bs = ", ".join(f"[{b.first_offset}..{b.last_offset}] {STATE_NAMES.get(b.delivery_state)} "
                           f"x{b.delivery_count}" for b in action.batches)
            return f"leader@{action.leader_epoch} writes start={action.start_offset} {bs}"
        if isinstance(action, Read):
            return f"leader@{action.leader_epoch} reads"
        if isinstance(action, Initialize):
            return f"group coordinator initializes state_epoch={action.state_epoch} start={action.start_offset}"
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


def make(**bounds: Any) -> ShareSystem:
    """The reference share coordinator system model."""
    return ShareSystem(**bounds)
