"""KRaft voter-set (KIP-853) bugs, session 18's blind round ("blindvs").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, CONTRIBUTING.md, spec/voters.md, KIP-853 and Kafka's ``KafkaRaftClient`` /
``LeaderState`` / ``RemoveVoterHandler`` / ``RecordsSnapshotWriter`` alone (no driver, model or
mutant catalogue read before the first measurement). They are the slips of an implementer who
knows the KIP, most needing a reconfiguration, an upgrade or a change of leader before they
show: the first leader's bootstrap records written once per process (not again after a
truncation took them away), the upgrade batch written VotersRecord first, a voter's support for
kraft.version 1 latched once reported, a lone voter's high watermark left behind its accepted
UpdateVoter, DescribeQuorum answered over the committed voter set, a snapshot carrying the voter
set of the log end, RemoveVoter matching the directory id alone, and (log level) a snapshot
that trims the voter-set history but not the kraft.version history.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch10:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch10:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, _entry, _ids
from redteam._targets import register, subclass

# the two levels' targets, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class FirstLeaderWritesBootstrapOnce(VoterReplica):
    """VOTERS-RULE-FIRST-LEADER ("a leader that finds them truncated away writes them again"):
    the replica remembers, in a field of the client, that it wrote the bootstrap checkpoint's
    KRaftVersionRecord and VotersRecord after its first LeaderChange, and never writes them
    again. Kafka's ``LeaderState.appendStartOfEpochControlRecords`` looks at the voter-set
    history every epoch (is the set in force still the bootstrap entry at offset -1?). Needs a
    first leader whose uncommitted bootstrap records are truncated away by another leader's
    log, and then that replica elected again before it fetched the other leader's records."""

    wrote_bootstrap = False

    def become_leader(self) -> None:
        if self.wrote_bootstrap:
            RaftReplica.become_leader(self)
            return
        start = self.end_offset
        super().become_leader()
        if self.end_offset > start + 1:
            self.wrote_bootstrap = True


class UpgradeVotersBeforeVersion(VoterReplica):
    """VOTERS-RULE-UPGRADE: the upgrade batch is KRaftVersionRecord(1) then the VotersRecord
    (Kafka's ``maybeAppendUpgradedKRaftVersion`` appends the version first, so no offset holds a
    VotersRecord read at kraft.version 0); this one writes the VotersRecord first ("the voters
    must be in the log before the version that needs them"). Needs every voter's UpdateVoter at
    a kraft.version-0 leader, then the upgrade."""

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        if [e["kind"] for e in entries] == ["kraft_version", "voters"]:
            entries = [entries[1], entries[0]]
        super().leader_append(entries)


class UpgradeSupportLatched(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS: a kraft.version-0 leader keeps what each voter last told it
    (``updateVoterIgnoringDirectoryId`` replaces the voter's node and its supported range); this
    one latches "supports kraft.version 1" once a voter reported it, so a later UpdateVoter of
    the same voter in the same epoch with the range [0, 0] (a voter rolled back to an older
    binary) does not withdraw it, and the upgrade is written where it must be refused
    (INVALID_UPDATE_VERSION). Needs two updates of one voter in one epoch, the second without 1,
    the other voters' updates, then the upgrade."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        before = self.upgrade_voters.get(inp["replica"])
        super().update_voter(inp)
        after = self.upgrade_voters.get(inp["replica"])
        if before is not None and after is not None and before[1] and not after[1]:
            self.upgrade_voters[inp["replica"]] = (after[0], True)


class UpdateLoneVoterHwStale(VoterReplica):
    """VOTERS-RULE-UPDATE (10: append the VotersRecord) with RAFT-RULE-HW-MAJORITY: after
    appending an accepted UpdateVoter's record the leader does not look at its high watermark;
    with followers it moves on their next fetch anyway, but a lone voter is its own majority and
    commits the record at once, which this one leaves to the next append. An implementer slips
    here because "the set stays the same, so the majority does"."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        hw, size = self.high_watermark, len(self.out)
        super().update_voter(inp)
        if any(o["type"] == "AppendLog" for o in self.out[size:]) and self.control.kraft_version() >= 1:
            self.high_watermark = hw


class DescribeCommittedSet(VoterReplica):
    """RAFT-RULE-DESCRIBE-QUORUM with VOTERS-RULE-EFFECT-ON-APPEND: the leader lists in its
    DescribeQuorum answer the voters of the *committed* voter set (the one in force at its high
    watermark), where ``LeaderState.describeQuorum`` lists its ``voterStates``, which follow the
    set in force at its log end (updated when the VotersRecord is appended). An implementer
    slips here because an operator "should see the quorum that is settled". Needs an accepted
    AddVoter or RemoveVoter, then DescribeQuorum before it commits."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        hw = self.high_watermark
        committed = None if hw is None else ControlRecords.value_at(self.control.voter_history, hw - 1)
        if self.role != "leader" or committed is None:
            return super().on_DescribeQuorumRequest(req)
        in_force = self.voters
        self.voters = _ids(committed)
        try:
            super().on_DescribeQuorumRequest(req)
        finally:
            self.voters = in_force
        return None


class SnapshotVotersAtLogEnd(VoterReplica):
    """VOTERS-SNAP-CONTENT: a snapshot ending at the high watermark carries the VotersRecord in
    force at its last contained offset (``voterSetAtOffset(lastContainedLogOffset)``); this one
    hands the snapshot writer the voter set in force at the log end (``lastVoterSet()``), which
    is the same unless a voter change is still uncommitted. Needs an accepted AddVoter or
    RemoveVoter, then a snapshot before it commits."""

    def snapshot(self) -> None:
        size = len(self.out)
        super().snapshot()
        if len(self.out) > size and self.control.voter_history and self.control.snapshot is not None:
            self.control.snapshot["voters"] = self.control.voter_history[-1][1]
            self.out[-1] = {"type": "SnapshotWritten", "snapshot": self.control.snapshot_json()}


class RemoveByDirectory(VoterReplica):
    """VOTERS-RULE-REMOVE / VOTERS-KEY: RemoveVoter finds the voter by directory id alone
    ("directory ids are random UUIDs, unique in the cluster"), so a request naming voter r under
    the directory of another voter s removes s, where the handler matches the whole replica key
    and answers VOTER_NOT_FOUND. Needs a RemoveVoter whose (id, directory) pairs a voter's id
    with another voter's directory, at a leader with its high watermark known."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "RemoveVoter" and self.role == "leader" and self.valid_key(inp)
                and self.high_watermark is not None and self.control.kraft_version() >= 1
                and not self.change_pending()):
            current = self.control.voters_now()
            same_dir = [k for k in current if k[1] == inp["directory"]]
            if (inp["replica"], inp["directory"]) not in current and same_dir and len(current) > 1:
                new = current - {same_dir[0]}
                self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
                return None
        return super().reconfigure(inp)


# ---------------------------------------------------------------------------- log-level bug


class TrimSkipsVersionHistory(ControlRecords):
    """VOTERS-CTRL-TRIM: a snapshot trims both histories (``truncateOldEntries(lastContained)``
    on the voter-set history *and* the kraft.version history); this one trims only the voter
    sets ("kraft.version is one finalized value"), so a read below the snapshot's floor entry
    answers an older KRaftVersionRecord where the trimmed history has none (0). Needs two
    KRaftVersionRecords below a snapshot, then a read between them."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        versions = list(self.version_history)
        snapshot = super().take_snapshot(end_offset)
        self.version_history = versions
        return snapshot


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "first-leader-writes-bootstrap-once": FirstLeaderWritesBootstrapOnce,
    "upgrade-voters-before-version": UpgradeVotersBeforeVersion,
    "upgrade-support-latched": UpgradeSupportLatched,
    "update-lone-voter-hw-stale": UpdateLoneVoterHwStale,
    "describe-committed-set": DescribeCommittedSet,
    "snapshot-voters-at-log-end": SnapshotVotersAtLogEnd,
    "remove-by-directory": RemoveByDirectory,
}
LOG_BUGS: dict[str, type[ControlRecords]] = {
    "trim-skips-version-history": TrimSkipsVersionHistory,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
