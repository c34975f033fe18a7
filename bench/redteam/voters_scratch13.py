"""KRaft voter-set (KIP-853) bugs, session 21's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/voters.md,
spec/adapter-protocol.md, KIP-853 and the reference target alone (no driver, model or mutant
catalogue read before the first measurement). They are the slips of an implementer who knows the
KIP, each needing a voter change, a resignation, a disk replacement, a snapshot or a restart
before it shows: the catch-up check reading a replica the leader has not heard from in its
epoch as at the log end (a missing fetch offset defaulted), the resigning leader notifying the
voters it was elected with, a new voter re-entering its role as unattached (forgetting the
leader it follows), a removed leader's move to epoch + 1 not written to its quorum-state file,
auto-join's RemoveVoter naming the replica's own (new) directory, a replaced disk that stops
naming its directory in Fetch once it is a voter, a snapshot's records loaded at its end offset
on restart, and a snapshot's kraft.version loaded only when the snapshot carries a voter set.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch13:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch13:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet
from redteam._targets import register, subclass

# the targets of the two levels, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class AddUnknownReplicaCaughtUp(VoterReplica):
    """VOTERS-RULE-ADD step 7: the new voter must have caught up to the leader's log end, as the
    leader knows it from the replica's fetches *in this epoch*; a replica the leader has no
    fetch offset for (it has not fetched since the election, it is down, or it was never seen)
    has not caught up (``REQUEST_TIMED_OUT``). This one reads the missing offset with the
    leader's own log end as the default (``getOrElse(endOffset)``, the sentinel "no offset yet"
    taken for "nothing to catch up"), so an AddVoter naming a host that has not fetched from
    this leader is accepted. Needs kraft.version 1, a leader with a committed set whose end
    offsets do not yet hold some non-voter host (a fresh election, or that host down), then
    AddVoter for that host."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "AddVoter" and self.role == "leader" and inp["replica"] >= 0
                and inp["replica"] not in self.end_offsets):
            self.end_offsets[inp["replica"]] = self.end_offset
            try:
                return super().reconfigure(inp)
            finally:
                self.end_offsets.pop(inp["replica"], None)
        return super().reconfigure(inp)


class ResignNotifiesElectionVoters(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND with VOTERS-RULE-REMOVED-LEADER: a resigning leader sends
    EndQuorumEpoch to the other voters of the set in force at its log end (its preferred
    successors among them). This one sends it to the voters it was elected with, a list kept in
    its leader state from the election ("the quorum this epoch started with"), so after a voter
    change in its epoch a removed voter is still told, and an added one is not. Needs a leader, an
    AddVoter or a RemoveVoter of another voter in its epoch, then its resignation (check-quorum,
    or its own removal committing after the first change)."""

    _elected: list[int] | None = None

    def become_leader(self) -> None:
        self._elected = list(self.voters)
        super().become_leader()

    def resign(self) -> None:
        now = self.voters
        if self._elected is not None:
            self.voters = self._elected
        try:
            super().resign()
        finally:
            self.voters = now


class NewVoterForgetsLeader(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND for the new voter itself: an observer following the leader
    that appends the VotersRecord holding its key is from then on a voter follower of the same
    leader in the same epoch (only its timer changes: a voter's fetch timeout starts an
    election). This one re-enters its role as a voter ("an observer's follower state has no
    election timer: start the voter's states afresh"): it becomes unattached in its epoch,
    forgets the leader and writes that quorum-state, then has to find the leader again. Needs
    kraft.version 1, a caught-up observer, its AddVoter accepted, then the observer fetching the
    VotersRecord."""

    def use_voters(self, voters: VoterSet) -> None:
        was_voter = self.is_voter
        super().use_voters(voters)
        if not was_voter and self.is_voter and self.role == "follower":
            self.become_unattached(self.epoch)
            self.persist()


class RemovedLeaderRejoinUnpersisted(VoterReplica):
    """VOTERS-RULE-REMOVED-LEADER-TIMER: when the election timer of a resigned leader outside its
    voter set expires it becomes unattached in epoch + 1, *persisted* (the quorum-state file holds
    the new epoch, as every transition writes it). This one moves its in-memory state only ("an
    observer's state is not an election: nothing to write"), so no PersistElection goes out for
    epoch + 1 (and a restart goes back to the old epoch). Needs kraft.version 1, the leader's
    RemoveVoter of itself, the record committed (the leader resigns), then its election timer."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and not self.is_voter:
            self.become_unattached(self.epoch + 1)
            self._written = self.election()  # the slip: nothing goes to the quorum-state file
            return
        super().on_ElectionTimeout(inp)


class AutoJoinRemovesOwnKey(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN: a replica whose id is a voter under another directory sends
    RemoveVoter for *that* voter's key (id, old directory). This one names its own key ("remove
    me, then add me": the request's directory taken from the local disk), so the leader answers
    VOTER_NOT_FOUND and the old disk's key is never removed. Needs the auto-join configuration,
    a disk replacement of a voter, then the replaced disk following the leader when its
    update-voter-set period expires."""

    def on_update_voter_set_due(self) -> None:
        if self.joins() and self.leader is not None and any(r == self.id for r, _ in self.voter_set):
            self.send("RemoveVoterRequest", self.leader, replica=self.id, directory=self.directory)
            return
        super().on_update_voter_set_due()


class KeyedFetchOnlyAsObserver(VoterReplica):
    """VOTERS-RULE-DISK-REPLACED / VOTERS-RULE-FETCH-BY-KEY (sending side): a replaced disk's
    Fetch names its directory (Fetch v17 ``ReplicaDirectoryId``) whatever its role. This one names
    it only while it is not a voter ("once the voter set holds my key, the leader knows my
    directory"), so after the new disk is added under its new key its plain Fetch is read as
    the old disk's (an observer's): not counted towards the high watermark. Needs a disk
    replacement, the old key removed and the new one added (AddVoter or auto-join), then a fetch
    of the new voter."""

    def send(self, kind: str, dst: int, **fields: Any) -> None:
        if kind == "FetchRequest" and self.is_voter:
            RaftReplica.send(self, kind, dst, **fields)
            return
        super().send(kind, dst, **fields)


# ---------------------------------------------------------------------------- log-level bugs


class RebuildSnapshotAtEndOffset(ControlRecords):
    """VOTERS-CTRL-SNAPSHOT / VOTERS-CTRL-REBUILD: a snapshot's control records are loaded at its
    last contained offset (``end offset - 1``; the bootstrap checkpoint's at -1). This one
    special-cases the bootstrap checkpoint (offset -1) and loads any other snapshot's records at
    its snapshot id's offset (the end offset, as written in its file name), so after a restart
    the history starts one offset late (a record read at that offset replaces it, as
    ``TreeMap.put`` does) and a read at the snapshot's last offset answers no voter set and
    kraft.version 0. Needs a snapshot past the bootstrap (a high watermark above 0), then a
    restart."""

    def rebuild(self) -> None:
        self.voter_history, self.version_history, self.next_offset = [], [], 0
        if self.snapshot is not None:
            end = self.snapshot["end_offset"]
            at = -1 if end == 0 else end
            if self.snapshot["kraft_version"] > 0:
                self.version_history.append((at, self.snapshot["kraft_version"]))
            if self.snapshot["voters"] is not None:
                self.voter_history.append((at, self.snapshot["voters"]))
            self.next_offset = end
            if end < len(self.records):
                first = self.records[end][1]["type"]
                if first == "Voters" and self.voter_history and self.voter_history[-1][0] == end:
                    self.voter_history.pop()
                if first == "KRaftVersion" and self.version_history and self.version_history[-1][0] == end:
                    self.version_history.pop()
        self.read(self.next_offset, self.records[self.next_offset:])


class RebuildVersionWithVoters(ControlRecords):
    """VOTERS-CTRL-SNAPSHOT / VOTERS-SNAP-CONTENT: a snapshot's KRaftVersionRecord and its
    VotersRecord are loaded independently (a snapshot of kraft.version 1 may carry no voter set:
    a disk formatted without initial controllers, or a snapshot before the first VotersRecord).
    This one loads the kraft.version inside the voter set's branch ("kraft.version 1 comes with
    voters"), so such a snapshot rebuilds to kraft.version 0. Needs a snapshot holding
    kraft.version 1 and no voter set (a replaced disk, or a free log's KRaftVersionRecord(1)
    snapshotted before any VotersRecord), then a rebuild (the replaced disk's start, a restart)."""

    def rebuild(self) -> None:
        self.voter_history, self.version_history, self.next_offset = [], [], 0
        if self.snapshot is not None:
            last = self.snapshot["end_offset"] - 1
            if self.snapshot["voters"] is not None:
                if self.snapshot["kraft_version"] > 0:
                    self.version_history.append((last, self.snapshot["kraft_version"]))
                self.voter_history.append((last, self.snapshot["voters"]))
            self.next_offset = self.snapshot["end_offset"]
        self.read(self.next_offset, self.records[self.next_offset:])


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "add-unknown-replica-caught-up": AddUnknownReplicaCaughtUp,
    "resign-notifies-election-voters": ResignNotifiesElectionVoters,
    "new-voter-forgets-leader": NewVoterForgetsLeader,
    "removed-leader-rejoin-unpersisted": RemovedLeaderRejoinUnpersisted,
    "auto-join-removes-own-key": AutoJoinRemovesOwnKey,
    "keyed-fetch-only-as-observer": KeyedFetchOnlyAsObserver,
}

LOG_BUGS: dict[str, type[ControlRecords]] = {
    "rebuild-snapshot-at-end-offset": RebuildSnapshotAtEndOffset,
    "rebuild-version-with-voters": RebuildVersionWithVoters,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
