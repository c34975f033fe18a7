"""The share coordinator's TLA+ spec (``tla/ShareCoordinator.tla``) and its Python model.

The spec's variables are the fields of :class:`kspec.model.share.system.SysState`, so a model
state maps to TLC's values field by field:

- a ``StateBatch``, ``ShareGroupOffset`` or ``ShardState`` is a TLA+ record with the same field
  names; a record of the log is a record with its fields plus ``type`` (the class name);
- a ``SharePartitionKey`` is ``[group_id, topic_id, partition]``; the shard's maps (tuples of
  (key, value) pairs) are TLA+ functions from keys (the empty one TLC prints as ``<<>>``);
- tuples are sequences; ``image`` is a set of ``<<topic, partition>>`` pairs.

The mapping is one to one (every field is kept; ``ShardState.rules`` is the constant
``KafkaMinor``), so equal sets of canonical states mean the same distinct states.
``config(bounds)`` writes the CONSTANTS from the model's bounds;
:func:`config_for` also sets the flaw flags of a broken variant and chooses what TLC checks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kspec.model.share.records import SharePartitionKey, ShareSnapshot, ShareTombstone, ShareUpdate, StateBatch
from kspec.model.share.shard import REFERENCE, Flaws, ShardState, ShareGroupOffset
from kspec.model.share.system import SysState
from kspec.model.share.versions import LATEST_MINOR
from kspec.tla.mappings import ReplayError as ReplayError  # re-exported for the tests and callers
from kspec.tla.mappings import TLAMapping, cfg_text
from kspec.tla.values import FrozenDict

SPEC = "ShareCoordinator.tla"

# ShareSystem's bound names -> the spec's CONSTANTS.
CONSTANT_OF_BOUND = {
    "offsets": "Offsets", "max_records": "MaxRecords", "snapshot_every": "SnapshotEvery",
    "max_leader_epoch": "MaxLeaderEpoch", "max_state_epoch": "MaxStateEpoch", "max_failovers": "MaxFailovers",
    "kafka_minor": "KafkaMinor",
}
# Flaws fields (model/share/shard.py) -> the spec's flaw flags.
CONSTANT_OF_FLAW = {
    "seed_bug": "SeedBug", "lower_count_wins": "LowerCountWins", "init_as_update": "InitAsUpdate",
    "no_leader_fence": "NoLeaderFence",
}
# The flaws of each broken variant in model/share/variants.py.
VARIANT_FLAWS = {
    "new-batches-only-on-start-move": Flaws(seed_bug=True),
    "lower-count-wins": Flaws(lower_count_wins=True),
    "update-drops-state-epoch": Flaws(init_as_update=True),
    "unfenced-stale-leader": Flaws(no_leader_fence=True),
}
# The Python properties, by kind, under the names the spec gives them.
INVARIANTS = ("no_loss", "replay_equals_handlers", "state_epoch_recorded", "snapshot_cadence")
ACTION_PROPERTIES = ("rejected_changes_nothing", "stale_leader_fenced", "epochs_never_decrease",
                     "failover_preserves_reads", "leader_epoch_only_from_read", "unset_read_not_fenced",
                     "no_uninitialized_access", "start_offset_never_backwards")
WITNESSES = ("share_update_written", "snapshot_after_update_limit", "fenced_write", "failover_with_state",
             "read_recorded_leader_epoch", "start_offset_moved", "uninitialized_refused")
VARIABLES = ("shard", "log", "leader_epoch", "leader_state_epoch", "group_state_epoch", "oracle_start", "oracle",
             "failovers", "last_error")
DEFAULT_BOUNDS = {"offsets": 2, "max_records": 4, "snapshot_every": 1, "max_leader_epoch": 1,
                  "max_state_epoch": 2, "max_failovers": 1, "kafka_minor": LATEST_MINOR}


def constants(bounds: Mapping[str, int | bool], flaws: Flaws = REFERENCE) -> dict[str, Any]:
    """The spec's CONSTANTS for the model's bounds (defaults for any bound not given) and flaws."""
    out: dict[str, Any] = {CONSTANT_OF_BOUND[k]: int(v) for k, v in {**DEFAULT_BOUNDS, **bounds}.items()}
    out.update({c: bool(getattr(flaws, f)) for f, c in CONSTANT_OF_FLAW.items()})
    return out


def config_for(bounds: Mapping[str, int | bool], flaws: Flaws = REFERENCE, *,
               invariants: Iterable[str] = INVARIANTS, properties: Iterable[str] = ACTION_PROPERTIES) -> str:
    """A .cfg for ``bounds`` and ``flaws``, checking the named invariants and action properties."""
    return cfg_text(constants(bounds, flaws), invariants=invariants, properties=properties,
                    constraint="WithinBounds")


def config(bounds: Mapping[str, int | bool]) -> str:
    """The reference spec's .cfg at ``bounds``, checking the state invariants.

    The action properties are left to :func:`config_for` (and the committed .cfg): they make
    TLC about 1.6 times slower at the defaults, and the check compares states, not verdicts.
    """
    return config_for(bounds, properties=())


def key_value(key: SharePartitionKey) -> FrozenDict:
    return FrozenDict({"group_id": key.group_id, "topic_id": key.topic_id, "partition": key.partition})


def batch_value(b: StateBatch) -> FrozenDict:
    return FrozenDict({"first_offset": b.first_offset, "last_offset": b.last_offset,
                       "delivery_state": b.delivery_state, "delivery_count": b.delivery_count})


def batches_value(bs: tuple[StateBatch, ...]) -> tuple[FrozenDict, ...]:
    return tuple(batch_value(b) for b in bs)


def offset_value(o: ShareGroupOffset) -> FrozenDict:
    return FrozenDict({"snapshot_epoch": o.snapshot_epoch, "state_epoch": o.state_epoch,
                       "leader_epoch": o.leader_epoch, "start_offset": o.start_offset,
                       "state_batches": batches_value(o.state_batches)})


def map_value(entries: tuple[tuple[SharePartitionKey, Any], ...], value: Any = lambda v: v) -> Any:
    """A shard map as a TLA+ function from keys; TLC prints the empty function as ``<<>>``."""
    if not entries:
        return ()
    return FrozenDict({key_value(k): value(v) for k, v in entries})


def shard_value(s: ShardState) -> FrozenDict:
    # ``rules`` is left out: it is the constant KafkaMinor, the same in every state of a run.
    return FrozenDict({
        "snapshot_limit": s.snapshot_limit,
        "image": frozenset(s.image or ()),
        "active": s.active,
        "offsets": map_value(s.offsets, offset_value),
        "leader_epochs": map_value(s.leader_epochs),
        "state_epochs": map_value(s.state_epochs),
        "update_counts": map_value(s.update_counts),
    })


def record_value(r: ShareSnapshot | ShareUpdate | ShareTombstone) -> FrozenDict:
    if isinstance(r, ShareTombstone):
        return FrozenDict({"type": "ShareTombstone", "key": key_value(r.key)})
    fields: dict[str, Any] = {"type": type(r).__name__, "key": key_value(r.key), "snapshot_epoch": r.snapshot_epoch}
    if isinstance(r, ShareSnapshot):
        fields["state_epoch"] = r.state_epoch
    fields.update({"leader_epoch": r.leader_epoch, "start_offset": r.start_offset,
                   "state_batches": batches_value(r.state_batches)})
    return FrozenDict(fields)


def from_model(s: SysState) -> FrozenDict:
    """The TLA+ variables of a model state, as TLC prints them (parsed by kspec.tla.values)."""
    return FrozenDict({
        "shard": shard_value(s.shard),
        "log": tuple(record_value(r) for r in s.log),
        "leader_epoch": s.leader_epoch,
        "leader_state_epoch": s.leader_state_epoch,
        "group_state_epoch": s.group_state_epoch,
        "oracle_start": s.oracle_start,
        "oracle": batches_value(s.oracle),
        "failovers": s.failovers,
        "last_error": s.last_error,
    })


MAPPING = TLAMapping(
    "share", SPEC, config, from_model, variables=VARIABLES,
    doc="SysState fields are the spec's variables; dataclasses are records, shard maps functions from keys.",
)
replay = MAPPING.replay
trace_module = MAPPING.trace_module
