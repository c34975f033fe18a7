"""KIP-853 replicas (replica level) and control-record state machines (log level), session 11's
planted bugs, none of sessions 5-9's nor of the mutant catalogue: what an outsider implementing
the adapter API from spec/voters.md and spec/adapter-protocol.md gets wrong in a real KIP-853
implementation. Each bug overrides one method of the plain-dict reference classes
(``conformance/targets/reference/voters.py``: ``VoterReplica``, ``ControlRecords``), as a real
implementer slips there. Kinds not planted before: a leader removing itself (resigning at the
append, counting itself toward its new set's high watermark), check-quorum over the committed
set, the refusals' order and error codes (AddVoter of a lagging voter, UpdateVoter's range),
a caught-up replica added under another directory, an UpdateVoter that writes nothing,
kraft.version 0 taking a RemoveVoter, an upgrade without its VotersRecord, the set kept across
a truncation, a removed voter standing for election; at the log level reads at the bootstrap
offset -1, replica id 0 read as "none", directory ids dropped, the bootstrap entry lost in a
truncation, "no voters" written as an empty set, kraft.version inferred from a voter set.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch3:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch3:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import (
    ControlRecords,
    VoterReplica,
    VoterSet,
    VotersTarget,
    _entry,
    _ids,
)

# ---------------------------------------------------------------------- replica level


class RemoveSelfResignsAtAppend(VoterReplica):
    """A leader that removes itself resigns as soon as it appends the VotersRecord, not once it
    commits (VOTERS-RULE-REMOVED-LEADER): "I am no longer a voter, step down"."""

    def resign_if_removed(self) -> None:
        if self.role == "leader" and not self.is_voter and self.control.voter_history \
                and self.control.voter_history[-1][0] >= 0:
            self.resign()
            return
        super().resign_if_removed()


class HwCountsRemovedLeader(VoterReplica):
    """A leader outside its own voter set (it removed itself) still counts its own end offset
    toward the high watermark: the majority is taken over the set plus the leader."""

    def update_high_watermark(self) -> None:
        if self.role != "leader" or self.is_voter:
            return super().update_high_watermark()
        voters = self.voters
        self.voters = sorted({*voters, self.id})
        try:
            super().update_high_watermark()
        finally:
            self.voters = voters
        return None


class CheckQuorumOverCommittedSet(VoterReplica):
    """Check-quorum counts the fetches of the voter set in force at the high watermark (the
    committed one), not at the log end (VOTERS-RULE-EFFECT-ON-APPEND): a leader that just added a
    voter still thinks two of three is a majority."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        if self.role != "leader" or self.high_watermark is None:
            return super().on_CheckQuorumTimeout(inp)
        committed = self.control.value_at(self.control.voter_history, self.high_watermark - 1)
        if committed is None:
            return super().on_CheckQuorumTimeout(inp)
        voters = self.voters
        self.voters = _ids(committed)
        try:
            super().on_CheckQuorumTimeout(inp)
        finally:
            self.voters = voters
        return None


class AddCatchUpBeforeDuplicate(VoterReplica):
    """AddVoter checks that the replica caught up before it checks that it is already a voter:
    a voter behind the leader's log end is answered REQUEST_TIMED_OUT, not DUPLICATE_VOTER."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "AddVoter" and self.role == "leader" and self.high_watermark is not None \
                and self.valid_key(inp) and inp.get("endpoint", True) and self.control.kraft_version() >= 1 \
                and not self.change_pending() and inp["replica"] in _ids(self.control.voters_now()) \
                and self.end_offsets.get(inp["replica"]) != self.end_offset:
            return self.reject("add_voter", inp["replica"], "REQUEST_TIMED_OUT")
        return super().reconfigure(inp)


class AddVoterDirectoryUnchecked(VoterReplica):
    """The catch-up check looks the replica up by id alone: a caught-up replica is added under
    whatever directory the request names (one it does not have)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "AddVoter" and self.role == "leader" and self.high_watermark is not None \
                and self.valid_key(inp) and inp.get("endpoint", True) and self.control.kraft_version() >= 1 \
                and not self.change_pending() and inp["replica"] not in _ids(self.control.voters_now()) \
                and inp["directory"] != inp["replica"] and self.end_offsets.get(inp["replica"]) == self.end_offset:
            new = self.control.voters_now() | {(inp["replica"], inp["directory"])}
            self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
            return None
        return super().reconfigure(inp)


class UpdateSkipsUnchangedSet(VoterReplica):
    """An accepted UpdateVoter writes no VotersRecord: the replica keys do not change (endpoints
    are not kept), so "nothing to write". KIP-853 writes the record (the endpoints are in it)."""

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        if self._updating and entries and entries[0]["kind"] == "voters":
            return
        super().leader_append(entries)

    _updating = False

    def update_voter(self, inp: dict[str, Any]) -> None:
        self._updating = True
        try:
            super().update_voter(inp)
        finally:
            self._updating = False


class UpdateRangeCheckedFirst(VoterReplica):
    """UpdateVoter checks the supported kraft.version range against the finalized version with
    the request's own checks, before the high watermark and pending-change checks: a range that
    leaves out the finalized version is INVALID_REQUEST while a change is pending, not
    REQUEST_TIMED_OUT (VOTERS-RULE-UPDATE checks 5-8 in Kafka's order)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if inp["epoch"] == self.epoch and self.role == "leader" and self.valid_key(inp) \
                and inp.get("listeners", "default") not in ("other", "none") and 0 <= low <= high \
                and not low <= self.control.kraft_version() <= high:
            return self.reject("update_voter", inp["replica"], "INVALID_REQUEST")
        return super().update_voter(inp)


class RemoveAtKRaftVersionZero(VoterReplica):
    """The kraft.version check sits in AddVoter's path only: with static voters (kraft.version 0)
    a RemoveVoter writes a VotersRecord of the static set less the voter, instead of answering
    UNSUPPORTED_VERSION (VOTERS-VERSION-0)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "RemoveVoter" and self.role == "leader" and self.high_watermark is not None \
                and self.valid_key(inp) and self.control.kraft_version() < 1:
            current = self.control.voters_now()
            key = (inp["replica"], inp["directory"])
            if key in current and len(current) > 1:
                new = current - {key}
                self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
                return None
        return super().reconfigure(inp)


class UpgradeWithoutVotersRecord(VoterReplica):
    """The kraft.version upgrade writes the KRaftVersionRecord alone; the voters are taken to be
    the static ones until a change writes a VotersRecord (VOTERS-RULE-UPGRADE: one batch, both)."""

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        if len(entries) == 2 and entries[0]["kind"] == "kraft_version":
            entries = entries[:1]
        super().leader_append(entries)


class TruncateKeepsVoterSet(VoterReplica):
    """The replica refreshes the voter set it uses when it reads a VotersRecord, not when a
    truncation removes one: after an uncommitted change is truncated away it keeps the new set
    (VOTERS-RULE-EFFECT-ON-APPEND works both ways)."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        before = self.voter_set
        out = super().step(inp)
        if any(o["type"] == "TruncateLog" for o in out) and not any(o["type"] == "AppendLog" for o in out):
            self.voter_set = before
            self.voters = _ids(before)
        return out


class RemovedVoterStands(VoterReplica):
    """A follower decides whether it may stand from the voters it was configured with (the
    bootstrap servers): a removed voter still stands for election when its fetch timer expires."""

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "follower" and not self.is_voter and self.id in self.bootstrap_servers:
            voters = self.voters
            self.voters = sorted({*voters, self.id})
            try:
                RaftReplica.on_FetchTimeout(self, inp)
            finally:
                self.voters = voters
            return
        super().on_FetchTimeout(inp)


# ---------------------------------------------------------------------- log level


class ReadMinusOneRefused(ControlRecords):
    """A read at offset -1 is refused as a negative offset; -1 is the bootstrap checkpoint's
    offset, answered like any other below the next offset (VOTERS-CTRL-READ)."""

    def read_at(self, offset: int) -> dict[str, JSON]:
        if offset < 0:
            return {"type": "ReadRefused", "offset": offset}
        return super().read_at(offset)


class VoterIdZeroDropped(ControlRecords):
    """Replica ids read with a truthiness check (``if replica_id``): a voter whose id is 0 is
    dropped from the set read."""

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        super().add_voters(offset, frozenset((r, d) for r, d in voters if r))


class DirectoryDropped(ControlRecords):
    """The history keeps voter ids and takes a voter's directory to be its id (the default
    directory of a formatted host): a replaced disk (VOTERS-KEY) reads as the old voter."""

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        super().add_voters(offset, frozenset((r, r) for r, _ in voters))


class TruncateDropsBootstrap(ControlRecords):
    """A truncation keeps the history entries in ``[0, offset)``: the bootstrap checkpoint's
    entry at -1 goes with the truncated ones."""

    def truncate(self, offset: int) -> None:
        super().truncate(offset)
        self.voter_history = [(o, v) for o, v in self.voter_history if o >= 0]
        self.version_history = [(o, v) for o, v in self.version_history if o >= 0]


class SnapshotNoVotersAsEmpty(ControlRecords):
    """A snapshot with no voter set in force writes an empty VotersRecord (``voters: []``)
    instead of none (VOTERS-SNAP-CONTENT)."""

    def snapshot_json(self) -> dict[str, JSON]:
        out = super().snapshot_json()
        if out["voters"] is None:
            out["voters"] = []
        return out


class VersionInferredFromVoters(ControlRecords):
    """A read where no KRaftVersionRecord is in force but a voter set is answers kraft.version 1
    ("voters in the log means version 1"), not 0 (VOTERS-RULE-KRAFT-VERSION)."""

    def read_at(self, offset: int) -> dict[str, JSON]:
        out = super().read_at(offset)
        if out["type"] == "ReadAt" and out["kraft_version"] == 0 and out["voters"] is not None:
            out["kraft_version"] = 1
        return out


class ReadBoundByLogEnd(ControlRecords):
    """Reads are refused at or past the log end instead of the next offset to read.

    EQUIVALENT: in this class the next offset is the log end after every input (an append reads
    its records at once, a truncation sets both, a restart reads from the snapshot's end to the
    log end and the log never ends before its latest snapshot: truncations stay at or above the
    high watermark, and a snapshot is taken below it). Only a reader whose next offset lags
    (Kafka's K2) tells the two apart, and that is a second bug.
    """

    def read_at(self, offset: int) -> dict[str, JSON]:
        if offset >= len(self.records):
            return {"type": "ReadRefused", "offset": offset}
        return super().read_at(offset)


# ---------------------------------------------------------------------- targets


def _replica_target(cls: type[VoterReplica]) -> type[VotersTarget]:
    class T(VotersTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.voters_scratch3:{cls.__name__}Target", replica_class=cls)

    T.__name__ = cls.__name__ + "Target"
    T.__doc__ = cls.__doc__
    return T


def _log_target(cls: type[ControlRecords]) -> type[VotersTarget]:
    class T(VotersTarget):
        def __init__(self) -> None:
            super().__init__(f"python:redteam.voters_scratch3:{cls.__name__}Target", control_class=cls, level="log")

    T.__name__ = cls.__name__ + "Target"
    T.__doc__ = cls.__doc__
    return T


Correct = _replica_target(VoterReplica)
CorrectLog = _log_target(ControlRecords)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")
BUGS: dict[str, type] = {
    "remove-self-resigns-at-append": RemoveSelfResignsAtAppend,
    "hw-counts-removed-leader": HwCountsRemovedLeader,
    "check-quorum-over-committed-set": CheckQuorumOverCommittedSet,
    "add-catch-up-before-duplicate": AddCatchUpBeforeDuplicate,
    "add-voter-directory-unchecked": AddVoterDirectoryUnchecked,
    "update-skips-unchanged-set": UpdateSkipsUnchangedSet,
    "update-range-checked-first": UpdateRangeCheckedFirst,
    "remove-at-kraft-version-zero": RemoveAtKRaftVersionZero,
    "upgrade-without-voters-record": UpgradeWithoutVotersRecord,
    "truncate-keeps-voter-set": TruncateKeepsVoterSet,
    "removed-voter-stands": RemovedVoterStands,
    "log-read-minus-one-refused": ReadMinusOneRefused,
    "log-voter-id-zero-dropped": VoterIdZeroDropped,
    "log-directory-dropped": DirectoryDropped,
    "log-truncate-drops-bootstrap": TruncateDropsBootstrap,
    "log-snapshot-no-voters-as-empty": SnapshotNoVotersAsEmpty,
    "log-version-inferred-from-voters": VersionInferredFromVoters,
}
# Planted, but no input within the log level's contract tells them from the bug-free class
# (the argument in each class's docstring).
EQUIVALENT: dict[str, type] = {"log-read-bound-by-log-end": ReadBoundByLogEnd}
for _name, _cls in {**BUGS, **EQUIVALENT}.items():
    _make = _log_target if issubclass(_cls, ControlRecords) else _replica_target
    globals()[_cls.__name__ + "Target"] = _make(_cls)
TARGETS = {name: cls.__name__ + "Target" for name, cls in BUGS.items()}
