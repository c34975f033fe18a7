"""The voter-set system model's TLA+ spec (``tla/Voters.tla``) and its Python model.

``Voters.tla`` INSTANCEs ``KRaft.tla``, so a state maps as raft's does (spec/raft.md, "TLA+
mapping"; :mod:`kspec.tla.mappings.raft`) plus what the voter set adds (spec/voters.md,
"TLA+ mapping"):

- a replica's record has raft's fields and ``voters`` (its current voter ids: state here, as
  they follow the log), ``control``, ``snapshot`` and ``static``;
- ``control`` is ``[voters, kraft_versions, next_offset]``: the two histories' entries as
  sequences of ``<<offset, value>>`` (a voter set is a set of ``<<id, directory>>``); the voter
  history's static set is the replica's ``static`` (they are the same value);
- ``snapshot`` is ``Nil`` or ``[end_offset, kraft_version, voters]`` (``voters`` Nil or a set);
- the counters ``adds``, ``removes``, ``snapshots``, ``upgrades`` and the ghost ``joins`` are
  variables; the ghost ``initial_voters`` is the constant ``1..NumVoters`` (``InitialVoters``),
  not a variable;
- auto-join's requests (``AddVoterRequest``, ``RemoveVoterRequest``) are messages like raft's:
  records of their fields plus ``type``; a replica's ``auto_join`` flag is the constant
  ``AutoJoin`` (every host has the same configuration), not a field.

The mapping keeps every field, so it is one to one. The Python side must run with
``symmetry=false``: :func:`config` refuses ``symmetry=true``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kspec.model.voters import BOUNDS
from kspec.model.voters.control import ControlState, Snapshot
from kspec.model.voters.history import VoterSet
from kspec.model.voters.node import VoterNode
from kspec.model.voters.system import Voters
from kspec.tla.mappings import ReplayError as ReplayError  # re-exported for the tests and callers
from kspec.tla.mappings import TLAMapping, cfg_text
from kspec.tla.mappings.raft import FIXED_BOUNDS as RAFT_FIXED_BOUNDS
from kspec.tla.mappings.raft import NIL, flagged_constants, node_value, raft_variables
from kspec.tla.mappings.raft import VARIABLES as RAFT_VARIABLES
from kspec.tla.mappings.raft import UnsupportedBounds as UnsupportedBounds  # re-exported for the tests
from kspec.tla.values import FrozenDict

SPEC = "Voters.tla"

# VotersModel's bound names -> the spec's CONSTANTS ("hosts" is NumHosts; the observers are
# the hosts after NumVoters).
CONSTANT_OF_BOUND = {
    "hosts": "NumHosts", "voters": "NumVoters", "started": "Started", "max_adds": "MaxAdds",
    "max_removes": "MaxRemoves", "max_snapshots": "MaxSnapshots", "kraft_version": "KRaftVersion",
    "max_epoch": "MaxEpoch", "max_appends": "MaxAppends", "max_crashes": "MaxCrashes",
    "max_inflight": "MaxInflight", "max_duplicates": "MaxDuplicates", "max_fetches": "MaxFetches",
    "max_elections": "MaxElections", "pre_vote": "PreVote", "reboot": "RebootAtOnce", "auto_join": "AutoJoin",
}
# The flaw flags of the spec, by the Python variant they copy (model/voters/variants.py).
VARIANT_FLAGS = {
    "two-changes-in-flight": "TwoChangesInFlight",
    "effect-on-commit": "EffectOnCommit",
    "history-not-truncated": "HistoryNotTruncated",
    "snapshot-without-voters": "SnapshotWithoutVoters",
    "first-leader-skips-voters": "FirstLeaderSkipsVoters",
    # Kafka's own behaviour (spec/voters.md §12): breaks no safety property, so its test is
    # agreement of the broken spec's states with the variant's, not a shared violation.
    "kafka-no-check-quorum-with-one-voter": "NoCheckQuorumWithOneVoter",
    "kafka-observer-stuck-on-bootstrap": "ObserverStuckOnBootstrap",
}

INVARIANTS = ("ConsecutiveVoterSetsDifferByOne", "AtMostOneUncommittedChange", "VotersFromLogEnd",
              "ControlStateRebuilds", "HistoryOffsetsIncrease", "BootstrapVotersReplicated", "ElectionSafety",
              "CommittedLogsAgree", "LeaderCompleteness")
# The state witnesses the spec defines (TLC reaches one by violating ``Not<name>``).
WITNESSES = ("LeaderElected", "VoterAdded", "AddedVoterVotes", "VoterRemoved", "SnapshotTaken",
             "KRaftVersionUpgraded", "BootstrapVotersCommitted", "VoteAcrossSets", "LeaderUnreachable")
DEFAULT_BOUNDS: dict[str, int | bool] = {**{b.name: b.default for b in BOUNDS}, "reboot": True,
                                         "symmetry": False}
VARIABLES = (*(v for v in RAFT_VARIABLES if v not in ("resends", "resent")), "adds", "removes", "snapshots", "upgrades",
             "joins")


def constants(bounds: Mapping[str, int | bool], variant: str | None = None) -> dict[str, Any]:
    """The spec's CONSTANTS for the model's bounds (defaults for any bound not given)."""
    return flagged_constants(SPEC, bounds, variant, defaults=DEFAULT_BOUNDS, constant_of_bound=CONSTANT_OF_BOUND,
                             variant_flags=VARIANT_FLAGS)


def config_for(bounds: Mapping[str, int | bool], variant: str | None = None, *,
               invariants: Iterable[str] = INVARIANTS, properties: Iterable[str] = ()) -> str:
    """A .cfg for ``bounds`` (and a variant's flaw flag), checking the named invariants."""
    return cfg_text(constants(bounds, variant), invariants=invariants, properties=properties,
                    constraint="WithinBounds", model_values=("Nil",))


def config(bounds: Mapping[str, int | bool]) -> str:
    """The reference spec's .cfg at ``bounds``, checking the invariants."""
    return config_for(bounds)


def voter_set_value(vs: VoterSet) -> frozenset[tuple[int, int]]:
    return frozenset(vs)


def control_value(c: ControlState) -> FrozenDict:
    """A control state as the spec's ``[voters, kraft_versions, next_offset]``."""
    return FrozenDict({
        "voters": tuple((o, voter_set_value(v)) for o, v in c.voters.entries),
        "kraft_versions": tuple((o, v) for o, v in c.kraft_versions.entries),
        "next_offset": c.next_offset,
    })


def snapshot_value(s: Snapshot | None) -> Any:
    if s is None:
        return NIL
    return FrozenDict({"end_offset": s.end_offset, "kraft_version": s.kraft_version,
                       "voters": NIL if s.voters is None else voter_set_value(s.voters)})


def voter_node_value(n: VoterNode) -> FrozenDict:
    """A replica as the spec's record: raft's fields plus voters, control, snapshot, static,
    fetch_lapsed (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT) and upgrade_voters (VOTERS-RULE-UPGRADE-VOTERS,
    a set of <<id, directory, supports 1>>)."""
    if n.control.voters.static != n.static:
        raise ValueError(f"replica {n.id}: the history's static set differs from the replica's")
    rec = dict(node_value(n))
    # KRaft.tla's resend record and flag: the voter-set model runs without resends
    del rec["acknowledged"], rec["resends"]
    rec.update(voters=frozenset(n.voters), control=control_value(n.control), snapshot=snapshot_value(n.snapshot),
               static=voter_set_value(n.static), fetch_lapsed=n.fetch_lapsed,
               upgrade_voters=frozenset(n.upgrade_voters))
    return FrozenDict(rec)


def from_model(s: Voters) -> FrozenDict:
    """The TLA+ variables of a model state, as TLC prints them (parsed by kspec.tla.values)."""
    return FrozenDict({
        **raft_variables(s, voter_node_value),
        "adds": s.adds,
        "removes": s.removes,
        "snapshots": s.snapshots,
        "upgrades": s.upgrades,
        "joins": s.joins,
    })


# Voters.tla INSTANCEs KRaft.tla, so it fixes raft's bounds but kip853: the voter-set model is KIP-853 itself.
# Voters.tla has no disk replacement (VOTERS-RULE-DISK-REPLACED): the explorer alone checks it.
FIXED_BOUNDS: dict[str, int | bool] = {**{k: v for k, v in RAFT_FIXED_BOUNDS.items() if k != "kip853"},
                                       "max_disk_swaps": 0}

MAPPING = TLAMapping(
    "voters", SPEC, config, from_model, variables=VARIABLES, fixed_bounds=FIXED_BOUNDS,
    doc="Raft's mapping (Voters.tla INSTANCEs KRaft.tla) plus each replica's voters, control state "
        "(histories as <<offset, value>> sequences), snapshot and static set, the reconfiguration counters "
        "and auto-join's requests.",
)
replay = MAPPING.replay
trace_module = MAPPING.trace_module
