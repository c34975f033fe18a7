"""KIP-853 replicas (replica level) and control-record state machines (log level), session 14's
out-of-sample bugs ("outsider").

Written from the user-facing material only (README.md, docs/adapter-guide.md, spec/voters.md,
spec/adapter-protocol.md, KIP-853 and Kafka's raft/ handlers) over the reference classes
(``conformance/targets/reference/voters.py``): no driver, model, mutant catalogue or earlier
round's bug read before the first measurement. Each bug overrides one method of
``VoterReplica`` or ``ControlRecords`` where someone porting ``RemoveVoterHandler``,
``LeaderState`` or ``KRaftControlRecordStateMachine`` slips. Kinds: RemoveVoter matched by
replica id alone, a leader that removed itself never resigning, the high watermark over every
replica that fetched, a resigned leader answering as the leader, the one-change check off by
one at the high watermark, an upgrade to the kraft.version in force writing its record again;
at the log level a snapshot read at its end offset instead of the offset before it, and a
truncation that leaves the next offset to read where it was. Bugs 9-14 were written (still
blind) after 1-8 were all caught, 15-20 after the driver's request candidates had been read;
four of them are equivalent within the model's assumptions or the log level's contract (the
argument in each docstring: ``EQUIVALENT``, not measured), one (``new-voter-state-fresh``)
escaped until the driver sent DescribeQuorum (VOTERS-DRIVE-DESCRIBE). Several repeat an earlier
round's or the catalogue's slip (REPORT of session 14): outsiders converge.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch6:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch6:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VotersTarget, _entry, _ids, _show
from redteam._targets import SelfNamed, register, subclass

# ---------------------------------------------------------------------- replica level


class RemoveById(VoterReplica):
    """RemoveVoter finds the voter by replica id alone and removes it under whatever directory
    it has (``voters.voterIds().contains(id)``), where the handler must match the whole
    ReplicaKey (id and directory id): a request naming a directory the voter does not have is
    VOTER_NOT_FOUND (VOTERS-RULE-REMOVE)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "RemoveVoter" and self.valid_key(inp):
            dirs = sorted(d for r, d in self.control.voters_now() if r == inp["replica"])
            if dirs:
                inp = {**inp, "directory": dirs[0]}
        return super().reconfigure(inp)


class RemovedLeaderStays(VoterReplica):
    """A leader that removed itself keeps leading after the removal commits ("the set changed,
    my leadership did not"): KIP-853 has it resign once the VotersRecord without it commits
    (VOTERS-RULE-REMOVED-LEADER)."""

    def resign_if_removed(self) -> None:
        return None


class HwCountsObservers(VoterReplica):
    """The high watermark is the offset a majority-sized number of the replicas the leader
    tracks hold: the (n//2+1)-th largest fetch offset over every replica that fetched,
    observers and removed voters included, where only the voters of the set in force count."""

    def majority_offset(self) -> int:
        offsets = sorted({**self.end_offsets, self.id: self.end_offset}.values(), reverse=True)
        need = len(self.voters) // 2 + 1
        return offsets[need - 1] if len(offsets) >= need else 0


class ResignedStillAccepts(VoterReplica):
    """The handlers ask "am I the leader?" as ``leader == self.id``, which a resigned leader
    still is in its epoch: a resigned replica answers AddVoter / RemoveVoter / UpdateVoter /
    the upgrade past the role check (REQUEST_TIMED_OUT, having no high watermark) instead of
    NOT_LEADER_OR_FOLLOWER."""

    def _as_leader(self, call: Any, inp: dict[str, Any]) -> None:
        if self.role != "resigned" or self.leader != self.id:
            return call(inp)  # type: ignore[no-any-return]
        self.role = "leader"
        try:
            return call(inp)  # type: ignore[no-any-return]
        finally:
            self.role = "resigned"

    def reconfigure(self, inp: dict[str, Any]) -> None:
        return self._as_leader(super().reconfigure, inp)

    def update_voter(self, inp: dict[str, Any]) -> None:
        return self._as_leader(super().update_voter, inp)


class PendingOffByOne(VoterReplica):
    """The one-uncommitted-change check compares the last VotersRecord's offset with the high
    watermark as if the high watermark were the last committed offset (``offset > hw``): a
    record sitting exactly at the high watermark (uncommitted: the high watermark is the first
    offset not committed) lets a second change through."""

    def change_pending(self) -> bool:
        history = self.control.voter_history
        assert self.high_watermark is not None
        return not history or history[-1][0] > self.high_watermark


class UpgradeRewritesVersion(VoterReplica):
    """An upgrade to kraft.version 1 when the log already holds kraft.version 1 writes another
    KRaftVersionRecord (the handler writes the version it is asked for), where the upgrade to
    the version in force is a no-op with no output."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "UpgradeKRaftVersion" and self.role == "leader" and self.high_watermark is not None
                and self.control.kraft_version() >= 1):
            self.leader_append([_entry(self.epoch, "kraft_version", [1])])
            self.update_high_watermark()
            return None
        return super().reconfigure(inp)


# Bugs 9-14, written after the first measurement caught bugs 1-8 at every seed (still blind: no
# driver, model or catalogue read), aimed at what a path from the model reaches late.


class HwNotRecomputedOnSetChange(VoterReplica):
    """The leader recomputes its high watermark when a follower fetches or it appends data, not
    when its voter set changes: removing a voter from a set of two leaves the lone voter's
    VotersRecord uncommitted until the next fetch, where the new set's majority (the leader
    alone) commits it at the append (VOTERS-RULE-EFFECT-ON-APPEND)."""

    def use_voters(self, voters: frozenset[tuple[int, int]]) -> None:
        self.voter_set = voters
        self.voters = _ids(voters)


class ResendToElectionVoters(VoterReplica):
    """The leader's resend list (``nonAcknowledgingVoters``) is fixed when it is elected: a
    voter added later is never sent BeginQuorumEpoch again until it acknowledges by a fetch.

    Equivalent (not measured; escaped 0/2 at seeds 0-1 before it was classed so): the voters
    model runs without resends (``Node.resends``), so no ResendDue is ever sent at this
    protocol, and under Kafka's rules no input could tell it apart anyway: an added voter was
    caught up, so it fetched in this epoch, and ``ReplicaState.updateFollowerState`` sets
    ``hasAcknowledgedLeader`` on an observer's state too, which ``updateVoterAndObserverStates``
    carries into the voter set: Kafka never resends BeginQuorumEpoch to a voter added in its
    epoch either."""

    election_voters: frozenset[int] | None = None

    def become_leader(self) -> None:
        super().become_leader()
        self.election_voters = frozenset(self.voters)

    def on_ResendDue(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and self.election_voters is not None and inp["to"] not in self.election_voters:
            return
        super().on_ResendDue(inp)


class CheckQuorumCountsObservers(VoterReplica):
    """Check-quorum counts every replica that fetched in the period, observers and removed
    voters included, against the voters' majority size: a leader cut off from its voters but
    fetched from by an observer stays leader."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        super().on_valid_fetch(replica, offset)
        if replica not in self.voters:
            self.fetched.add(replica)

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and len(self.fetched | {self.id}) < len(self.voters) // 2 + 1:
            self.resign()


class SnapshotAtLogEnd(VoterReplica):
    """TakeSnapshot writes a snapshot of everything the replica has (its log end) instead of
    what is committed (its high watermark): a snapshot holds uncommitted records."""

    def snapshot(self) -> None:
        latest = self.control.snapshot["end_offset"] if self.control.snapshot else 0
        if self.role == "down" or self.high_watermark is None or self.end_offset <= latest:
            return
        self.control.take_snapshot(self.end_offset)
        self.out.append({"type": "SnapshotWritten", "snapshot": self.control.snapshot_json()})


class AddDuplicateByKey(VoterReplica):
    """AddVoter's duplicate check looks for the whole ReplicaKey (``voters.contains(key)``)
    where Kafka looks for the id (``voterIds().contains(id)``): a voter's id under another
    directory passes it and is refused later as not caught up (REQUEST_TIMED_OUT) instead of
    DUPLICATE_VOTER."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "AddVoter" and self.role == "leader" and self.valid_key(inp) and inp.get("endpoint", True)
                and self.high_watermark is not None and self.control.kraft_version() >= 1
                and not self.change_pending()):
            current = self.control.voters_now()
            if inp["replica"] in _ids(current) and (inp["replica"], inp["directory"]) not in current:
                return self.reject("add_voter", inp["replica"], "REQUEST_TIMED_OUT")
        return super().reconfigure(inp)


# Bugs 15-20, written after bugs 9-14 were measured (the voters driver's request candidates read
# by then, not the model): state-dependent slips of KIP-853's voter-set bookkeeping.


class NewVoterStateFresh(VoterReplica):
    """When its voter set grows, the leader starts the new voter's replica state afresh (no
    fetch offset known) instead of carrying over what it knew of that replica as an observer
    (``LeaderState.updateVoterAndObserverStates`` moves the observer's ``ReplicaState``): the
    new voter counts toward the high watermark only from its next fetch."""

    def use_voters(self, voters: frozenset[tuple[int, int]]) -> None:
        if self.role == "leader":
            for r in _ids(voters):
                if r not in self.voters:
                    self.end_offsets.pop(r, None)
        super().use_voters(voters)


class VoterRoleFromConfiguration(VoterReplica):
    """Whether the replica acts as a voter is read from its configuration at start (a host that
    was not an initial voter is "an observer") as well as from the voter set: a replica added
    later replicates but never stands for election nor counts itself a voter."""

    configured_voter = True

    def __init__(self, node_id: int, config: dict[str, Any],
                 control_class: type[ControlRecords] = ControlRecords) -> None:
        super().__init__(node_id, config, control_class)
        self.configured_voter = node_id in self.voters

    @property
    def is_voter(self) -> bool:
        return self.id in self.voters and self.configured_voter


class UpgradeDirectoryIsId(VoterReplica):
    """The upgrade to kraft.version 1 writes each voter under the directory id it is assumed to
    have (its own id, as the static configuration knows no directories), not the directory id
    the voter reported in its UpdateVoter (VOTERS-RULE-UPGRADE-VOTERS).

    Equivalent under VOTERS-MODEL-DIRS (not measured; escaped 0/2 at seeds 0-1 before it was
    classed so): a host's one directory id is its host id, so a voter's own UpdateVoter reports
    exactly the id this bug assumes; an UpdateVoter naming another directory is sent only where
    the model refuses it, and one a kraft.version-0 leader would keep changes the state, so the
    driver does not send it (a voter whose Kafka directory is not in the set it writes would
    stop being a voter in Kafka, by ``ReplicaKey``, and stay one in the model, by id)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "UpgradeKRaftVersion":
            self.upgrade_voters = {r: (r, ok) for r, (_, ok) in self.upgrade_voters.items()}
        return super().reconfigure(inp)


# ---------------------------------------------------------------------- log level


class SnapshotReadsAtEndOffset(ControlRecords):
    """A snapshot ending at N takes the voter set and kraft.version at offset N (and trims the
    histories at N), where it holds the state after the offsets below N: ``voterSetAtOffset(N-1)``
    (VOTERS-SNAP-CONTENT, VOTERS-CTRL-TRIM). A record at offset N leaks into the snapshot."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        last = end_offset
        version = self.value_at(self.version_history, last)
        self.snapshot = {"end_offset": end_offset, "kraft_version": version or 0,
                         "voters": self.value_at(self.voter_history, last)}
        self.voter_history = self.trim(self.voter_history, last)
        self.version_history = self.trim(self.version_history, last)
        return self.snapshot


class TruncateKeepsNextOffset(ControlRecords):
    """A truncation drops the history entries at or past its offset but leaves the next offset
    to read where it was: a Read at an offset the log no longer has is answered from the
    trimmed history instead of refused (VOTERS-CTRL-TRUNCATE, VOTERS-CTRL-READ)."""

    def truncate(self, offset: int) -> None:
        kept = self.next_offset
        super().truncate(offset)
        self.next_offset = kept


class RestartIgnoresSnapshot(ControlRecords):
    """A restart replays the whole log from the bootstrap checkpoint (the log is still there)
    instead of reading the latest snapshot and the log after it: the history comes back with
    the entries the snapshot had trimmed (VOTERS-CTRL-REBUILD)."""

    def __init__(self, static: frozenset[tuple[int, int]], bootstrap: dict[str, Any] | None) -> None:
        self.first: dict[str, Any] | None = None
        if bootstrap is not None:
            self.first = {"end_offset": 0, "kraft_version": int(bootstrap["kraft_version"]),
                          "voters": frozenset((int(r), int(d)) for r, d in bootstrap["voters"])}
        super().__init__(static, bootstrap)

    def rebuild(self) -> None:
        latest, self.snapshot = self.snapshot, self.first
        super().rebuild()
        self.snapshot = latest


class KRaftVersionMax(ControlRecords):
    """The kraft.version in force is the highest one read ("the feature level never goes
    down") instead of the last KRaftVersionRecord's (VOTERS-RULE-KRAFT-VERSION).

    Equivalent within the log level's contract (not measured; escaped 0/2 at seeds 0-1): KIP-853
    never downgrades kraft.version, so the free log writes a KRaftVersionRecord only at or above
    the version in force, and a truncation drops the higher entries from the history, which this
    bug's maximum reads too: the last and the highest are always the same."""

    def kraft_version(self) -> int:
        return max((v for _, v in self.version_history), default=0)


class SnapshotVotersOnlyAtVersion1(ControlRecords):
    """A snapshot holds the voter set only at kraft.version 1 (VotersRecords "exist only from
    kraft.version 1"), where it holds ``voterSetAtOffset(N-1)`` whatever the version
    (VOTERS-SNAP-CONTENT).

    Equivalent within the log level's contract (not measured; escaped 0/2 at seeds 0-1): a
    snapshot where a voter set is in force at kraft.version 0 is never asked for, since Kafka's
    ``RecordsSnapshotWriter.Builder`` throws on one (spec/voters.md, VOTERS-DRIVE-ODD-IDS'
    false alarms); at the replica level a kraft.version-0 replica's history is empty."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        snapshot = super().take_snapshot(end_offset)
        if snapshot["kraft_version"] < 1:
            snapshot["voters"] = None
        return snapshot


class ReadBelowHistoryClamped(ControlRecords):
    """A Read below the history's first entry (one the snapshot's trim kept, or the first
    VotersRecord of a log without a bootstrap set) is answered with that entry ("the earliest
    set known holds for every earlier offset"), where the history has nothing there and the
    answer's voters are null (VOTERS-CTRL-READ)."""

    def read_at(self, offset: int) -> dict[str, Any]:
        answer = super().read_at(offset)
        if answer["type"] == "ReadAt" and answer["voters"] is None and self.voter_history:
            answer["voters"] = _show(self.voter_history[0][1])
        return answer

class Correct(SelfNamed, VotersTarget):
    """The bug-free replica (the reference ``VoterReplica`` / ``ControlRecords``), named after
    this module; ``level`` is the level ``kspec conform`` drives."""

    replica: type[VoterReplica] = VoterReplica
    control: type[ControlRecords] = ControlRecords
    drives = "replica"

    def __init__(self) -> None:
        VotersTarget.__init__(self, replica_class=self.replica, control_class=self.control, level=self.drives)
        SelfNamed.__init__(self)


CorrectLog = subclass(globals(), "CorrectLog", Correct, drives="log",
                      __doc__="The bug-free control-record state machine, driven at the log level.")
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")
BUGS: dict[str, type[VoterReplica] | type[ControlRecords]] = {
    "remove-by-id": RemoveById,
    "removed-leader-stays": RemovedLeaderStays,
    "hw-counts-observers": HwCountsObservers,
    "resigned-still-accepts": ResignedStillAccepts,
    "pending-off-by-one": PendingOffByOne,
    "upgrade-rewrites-version": UpgradeRewritesVersion,
    "log-snapshot-reads-at-end-offset": SnapshotReadsAtEndOffset,
    "log-truncate-keeps-next-offset": TruncateKeepsNextOffset,
    # 9-14: after the first measurement (see above)
    "hw-not-recomputed-on-set-change": HwNotRecomputedOnSetChange,
    "check-quorum-counts-observers": CheckQuorumCountsObservers,
    "snapshot-at-log-end": SnapshotAtLogEnd,
    "add-duplicate-by-key": AddDuplicateByKey,
    "log-restart-ignores-snapshot": RestartIgnoresSnapshot,
    # 15-20: after bugs 9-14 were measured (see above)
    "new-voter-state-fresh": NewVoterStateFresh,
    "voter-role-from-configuration": VoterRoleFromConfiguration,
    "log-read-below-history-clamped": ReadBelowHistoryClamped,
}


def _slot(cls: type[VoterReplica] | type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    if issubclass(cls, ControlRecords):
        return cls.__name__ + "Target", {"control": cls, "drives": "log", "__doc__": cls.__doc__}
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


TARGETS = register(globals(), Correct, BUGS, _slot)
# Planted, but no input tells them from the bug-free class (the argument in the docstring):
# targets too (``python:redteam.voters_scratch6:ResendToElectionVotersTarget``), not in TARGETS.
EQUIVALENT: dict[str, type[VoterReplica] | type[ControlRecords]] = {
    "resend-to-election-voters": ResendToElectionVoters,
    "upgrade-directory-is-id": UpgradeDirectoryIsId,
    "log-kraft-version-max": KRaftVersionMax,
    "log-snapshot-voters-only-at-version-1": SnapshotVotersOnlyAtVersion1,
}
EQUIVALENT_TARGETS = register(globals(), Correct, EQUIVALENT, _slot)
