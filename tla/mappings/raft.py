"""The KRaft system model's TLA+ spec (``tla/KRaft.tla``) and its Python model.

The spec's variables are the fields of :class:`kspec.model.raft.system.Raft`, and a model state
maps to TLC's values field by field (spec/raft.md, "TLA+ mapping"):

- ``nodes`` is a function on replicas 1..n (TLC prints it as a sequence); a replica is one
  record with every role's fields: ``role`` (the role's name), ``epoch``, ``voted_for``
  (Voted's, or a down replica's persisted vote), ``leader`` (Follower's, or a down replica's
  persisted leader), ``granted``/``rejected``/``backing_off`` (Candidate's; ``granted``,
  ``rejected`` and ``prior``, an election record, are Prospective's),
  ``epoch_start``/``end_offsets``/``fetched``/``renewed`` (Leader's; ``end_offsets`` a set of
  ``<<replica, offset>>``), ``acknowledged`` (Leader's and Resigned's: RAFT-RULE-RESEND),
  ``resends`` (every replica's ``Node.resends``: whether it keeps who answered),
  ``log`` and ``high_watermark``; a field the role lacks holds its
  default (``Nil``, ``{}``, ``FALSE``, ``0``). The static ``id``, ``voters``, ``pre_vote`` are
  not state.
- ``None`` is the model value ``Nil``; tuples are sequences; an entry is
  ``[epoch, kind, payload]``; a message is a record of its class's fields plus ``type`` (the
  class name).
- ``network`` is a bag: a function from messages to their number of copies (the empty one
  TLC prints as ``<<>>``).
- the counters (``resends`` too) and the ghost history (``resent``, the request types a resend
  sent; ``elected``, ``votes``, ``committed``, with 0-based offsets) are sets of tuples, as in
  Python.

The mapping is one to one, so equal sets of canonical states mean the same distinct states.
The Python side must run with ``symmetry=false`` (TLC has no SYMMETRY here): :func:`config`
refuses ``symmetry=true``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any

from kspec.model.raft import BOUNDS
from kspec.model.raft.messages import Entry, Message
from kspec.model.raft.state import (
    Candidate,
    Down,
    Election,
    Follower,
    Leader,
    Node,
    Prospective,
    Resigned,
    Unattached,
    Voted,
)
from kspec.model.raft.system import Raft
from kspec.tla.mappings import ReplayError as ReplayError  # re-exported for the tests and callers
from kspec.tla.mappings import TLAMapping, cfg_text
from kspec.tla.runner import TLCError
from kspec.tla.values import FrozenDict, ModelValue

SPEC = "KRaft.tla"
NIL = ModelValue("Nil")

# RaftModel's bound names -> the spec's CONSTANTS.
CONSTANT_OF_BOUND = {
    "voters": "NumVoters", "observers": "NumObservers", "max_epoch": "MaxEpoch", "max_appends": "MaxAppends",
    "max_crashes": "MaxCrashes", "pre_vote": "PreVote",
    "max_inflight": "MaxInflight", "max_duplicates": "MaxDuplicates", "max_fetches": "MaxFetches",
    "max_elections": "MaxElections", "reboot": "RebootAtOnce", "max_resends": "MaxResends",
}
# Bounds the spec (and Voters.tla, which INSTANCEs it) does not cover, with the only value it supports.
# kip853 changes only requests between non-voters, which no replica of the spec sends.
FIXED_BOUNDS: dict[str, int | bool] = {"symmetry": False, "kip853": False}
# Bounds KRaft.tla models at one value (Voters.tla shares FIXED_BOUNDS; its INSTANCE of KRaft
# runs without resends, as the voter-set model does).
# KRaft.tla has no snapshots (KIP-630): the model's max_snapshots is 0 there.
RAFT_FIXED_BOUNDS: dict[str, int | bool] = {**FIXED_BOUNDS, "max_snapshots": 0}
# The flaw flags of the spec, by the Python variant they copy (model/raft/variants.py).
VARIANT_FLAGS = {"vote-twice": "VoteTwice", "candidate-counts-rejections": "CandidateCountsRejections",
                 "vote-ignores-log": "VoteIgnoresLog"}

INVARIANTS = ("ElectionSafety", "VoteOnce", "CommittedLogsAgree", "LeaderCompleteness", "HighWatermarkDurable")
# The model's invariants KRaft.tla has no counterpart of: it has no snapshots (KIP-630,
# max_snapshots = 0 in every configuration it checks), where SnapshotCommitted holds trivially.
NOT_IN_SPEC = ("SnapshotCommitted",)
ACTION_PROPERTIES = ("HighWatermarkMonotonic", "EpochMonotonic", "ResendOnlyUnanswered", "CheckQuorumCounted")
# The state witnesses the spec defines (TLC reaches one by violating ``Not<name>``).
WITNESSES = ("LeaderElected", "SecondEpochLeader", "VoteGranted", "RecordCommitted", "LeaderAfterCommit",
             "BeginQuorumEpochResent")
DEFAULT_BOUNDS: dict[str, int | bool] = {**{b.name: b.default for b in BOUNDS}, "symmetry": False, "max_resends": 0}
VARIABLES = ("nodes", "network", "appends", "crashes", "duplicates", "fetches", "elections", "resends", "resent",
             "elected", "votes", "committed")


class UnsupportedBounds(TLCError):
    """Bounds the TLA+ spec does not model (symmetry reduction); a TLCError, so
    ``kspec tla check`` reports it in one line."""


def flagged_constants(spec: str, bounds: Mapping[str, int | bool], variant: str | None, *,
                      defaults: Mapping[str, int | bool], constant_of_bound: Mapping[str, str],
                      variant_flags: Mapping[str, str]) -> dict[str, Any]:
    """The CONSTANTS of a spec whose broken copies are flaw flags (KRaft.tla, Voters.tla): each
    bound under its constant's name (``defaults`` for any bound not given, a bool kept a bool),
    and every flag FALSE but the one of ``variant``; raises :class:`UnsupportedBounds` for a
    bound in FIXED_BOUNDS at another value, or a variant with no flag."""
    merged = {**defaults, **bounds}
    for name, only in FIXED_BOUNDS.items():
        # A bound the model does not have (voters has no kip853: it is KIP-853) is not fixed.
        if name in defaults and merged[name] != only:
            raise UnsupportedBounds(f"{spec} models {name}={str(only).lower()} only (got {merged[name]})")
    out: dict[str, Any] = {c: (bool(merged[b]) if isinstance(defaults[b], bool) else int(merged[b]))
                           for b, c in constant_of_bound.items()}
    if variant is not None and variant not in variant_flags:
        raise UnsupportedBounds(f"{spec} has no flaw flag for the variant {variant!r}")
    out.update({flag: variant_flags.get(variant or "") == flag for flag in variant_flags.values()})
    return out


def constants(bounds: Mapping[str, int | bool], variant: str | None = None) -> dict[str, Any]:
    """The spec's CONSTANTS for the model's bounds (defaults for any bound not given)."""
    if int(bounds.get("max_snapshots", 0)):
        raise UnsupportedBounds(f"{SPEC} models max_snapshots=0 only (got {bounds['max_snapshots']})")
    out = flagged_constants(SPEC, bounds, variant, defaults=DEFAULT_BOUNDS, constant_of_bound=CONSTANT_OF_BOUND,
                            variant_flags=VARIANT_FLAGS)
    out["LiveFlaw"] = "none"  # the liveness variants' step flaws: tla/KRaftLive.tla (kspec.tla.liveness)
    return out


def config_for(bounds: Mapping[str, int | bool], variant: str | None = None, *,
               invariants: Iterable[str] = INVARIANTS, properties: Iterable[str] = ACTION_PROPERTIES) -> str:
    """A .cfg for ``bounds`` (and a variant's flaw flag), checking the named invariants and
    action properties."""
    return cfg_text(constants(bounds, variant), invariants=invariants, properties=properties,
                    constraint="WithinBounds", model_values=("Nil",))


def config(bounds: Mapping[str, int | bool]) -> str:
    """The reference spec's .cfg at ``bounds``, checking the invariants (the check compares
    states, not verdicts; the action properties are in :func:`config_for`)."""
    return config_for(bounds, properties=())


def _opt(v: Any) -> Any:
    return NIL if v is None else v


def entry_value(e: Entry) -> FrozenDict:
    return FrozenDict({"epoch": e.epoch, "kind": e.kind, "payload": e.payload})


def _value(v: Any) -> Any:
    if v is None:
        return NIL
    if isinstance(v, Entry):
        return entry_value(v)
    if isinstance(v, tuple):
        return tuple(_value(x) for x in v)
    return v


# KIP-630's message fields, which KRaft.tla (no snapshots) has not: left out of its records
# (always None there: max_snapshots is 0 in every configuration the spec checks).
SNAPSHOT_ONLY_FIELDS = frozenset({"snapshot_id"})


def message_value(m: Message) -> FrozenDict:
    """A message as the spec's record: its fields plus ``type``."""
    out: dict[str, Any] = {"type": type(m).__name__}
    for f in fields(m):
        if f.name not in SNAPSHOT_ONLY_FIELDS:
            out[f.name] = _value(getattr(m, f.name))
    return FrozenDict(out)


def election_value(e: Election) -> FrozenDict:
    """A persisted election state as the spec's ``Election`` record."""
    return FrozenDict({"epoch": e.epoch, "voted_for": _opt(e.voted_for), "leader": _opt(e.leader)})


def node_value(n: Node) -> FrozenDict:
    """A replica as the spec's record (one field per role field, defaults elsewhere)."""
    role = n.role
    rec: dict[str, Any] = {
        "role": n.role_name, "epoch": n.epoch, "voted_for": NIL, "leader": NIL, "granted": frozenset(),
        "rejected": frozenset(), "backing_off": False, "timed_out": False, "epoch_start": 0, "end_offsets": frozenset(),
        "fetched": frozenset(), "renewed": False, "acknowledged": frozenset(), "resends": n.resends,
        "has_fetched": False, "prior": NIL, "log": tuple(entry_value(e) for e in n.log),
        "high_watermark": _opt(n.high_watermark),
    }
    match role:
        case Unattached(leader=leader):
            rec["leader"] = _opt(leader)  # RAFT-KIP853-LEADER-UNREACHABLE (voters only)
        case Voted(voted_for=v, leader=leader):
            rec.update(voted_for=v, leader=_opt(leader))
        case Follower(leader=leader, voted_for=v, fetched=f):
            rec.update(leader=leader, voted_for=_opt(v), has_fetched=f)
        case Candidate():
            rec.update(granted=role.granted, rejected=role.rejected, backing_off=role.backing_off,
                       timed_out=role.timed_out)
        case Leader():
            rec.update(epoch_start=role.epoch_start, end_offsets=frozenset(role.end_offsets), fetched=role.fetched,
                       renewed=role.renewed, acknowledged=role.acknowledged)
        case Resigned():
            rec.update(acknowledged=role.acknowledged)
        case Prospective():
            rec.update(granted=role.granted, rejected=role.rejected, prior=election_value(role.prior),
                       leader=_opt(role.prior.leader) if role.unreachable else NIL)
        case Down(election=e):
            rec.update(voted_for=_opt(e.voted_for), leader=_opt(e.leader))
    return FrozenDict(rec)


def raft_variables(s: Raft, node: Callable[[Any], FrozenDict] = node_value) -> dict[str, Any]:
    """KRaft.tla's variables of a system state (Voters.tla's state adds to them), each replica
    mapped by ``node``."""
    network = FrozenDict({message_value(m): c for m, c in s.network.items}) if len(s.network) else ()
    return {
        "nodes": tuple(node(n) for n in s.nodes),
        "network": network,
        "appends": s.appends,
        "crashes": s.crashes,
        "duplicates": s.duplicates,
        "fetches": s.fetches,
        "elections": s.elections,
        "elected": frozenset(s.elected),
        "votes": frozenset(s.votes),
        "committed": frozenset((o, entry_value(e), ep) for o, e, ep in s.committed),
    }


def from_model(s: Raft) -> FrozenDict:
    """The TLA+ variables of a model state, as TLC prints them (parsed by kspec.tla.values): the
    shared ones plus KRaft.tla's resend count and its ghost (Voters.tla runs without resends).
    A replica's ``Node.resends`` flag is its record's ``resends`` field (KRaft.tla's Resending
    reads it, not the count, so that the replica step stays a constant-level operator)."""
    return FrozenDict({**raft_variables(s), "resends": s.resends, "resent": frozenset(s.resent)})


MAPPING = TLAMapping(
    "raft", SPEC, config, from_model, variables=VARIABLES, fixed_bounds=RAFT_FIXED_BOUNDS,
    shipped_config="KRaft.cfg", constant_of_bound=CONSTANT_OF_BOUND,
    doc="Raft fields are the spec's variables; a replica is one record with every role's fields, "
        "messages are records with a type, the network a bag, None the model value Nil.",
)
replay = MAPPING.replay
trace_module = MAPPING.trace_module
