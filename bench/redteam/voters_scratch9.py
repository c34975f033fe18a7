"""KRaft voter-set (KIP-853) bugs, session 17's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, spec/adapter-protocol.md,
KIP-853 and Kafka's ``LeaderState`` / ``AddVoterHandler`` / ``UpdateVoterHandler`` alone (no
driver, model or mutant catalogue read before the first measurement). They are the slips of an
implementer who knows the KIP, each needing a reconfiguration, an epoch change or an unusual
moment before it shows: a high watermark taken as the upper median of an even-sized voter set
(one reconfiguration makes four voters), DUPLICATE_VOTER answered before the one-change check,
kraft.version checked before the unknown high watermark of a new leader, a kraft.version-0
UpdateVoter whose range leaves out version 0 taken, a kraft.version-0 leader that keeps the
voters' upgrade reports from an earlier epoch of its own, auto-join asked at kraft.version 0, a
snapshot trim that keeps the entry at the snapshot's last offset besides the floor, and a
log-level read that answers the latest kraft.version at every offset.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch9:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch9:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, _ids
from redteam._targets import register, subclass

# the two levels' targets, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class HwEvenSetUpperMedian(VoterReplica):
    """RAFT-RULE-HW-MAJORITY over the set in force (VOTERS-RULE-EFFECT-ON-APPEND): the leader takes
    the median of its voters' offsets, sorted ascending, ``offsets[n // 2]``, as the offset a
    majority holds. For the odd sets a cluster is formatted with (1, 3, 5) it is right; for the
    even ones a single AddVoter or RemoveVoter makes ({1, 2}, {1, 2, 3, 4}) it is the upper median,
    an offset only half the voters hold: leader 1 of {1, 2, 3, 4} with only 2 caught up commits.
    Kafka's ``LeaderState.maybeUpdateHighWatermark`` takes ``followersByDescendingFetchOffset``
    at ``voterStates.size() / 2`` (descending); an implementer who sorts ascending and keeps the
    index slips exactly on even sizes."""

    def majority_offset(self) -> int:
        known = {**self.end_offsets, self.id: self.end_offset}
        ordered = sorted(known.get(v, 0) for v in self.voters)
        return ordered[len(ordered) // 2] if ordered else 0


class AddDuplicateBeforePending(VoterReplica):
    """VOTERS-RULE-ADD's order: an AddVoter naming an id that is already a voter is answered
    DUPLICATE_VOTER even while a voter change is uncommitted, where the handler checks the pending
    change first (step 4, REQUEST_TIMED_OUT) and the duplicate after (step 5). An implementer
    slips here because "is it already a voter?" reads as the request's own validation, done
    before looking at the log."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "AddVoter" and self.role == "leader" and self.valid_key(inp)
                and inp.get("endpoint", True) and self.high_watermark is not None
                and self.control.kraft_version() >= 1 and self.change_pending()
                and inp["replica"] in _ids(self.control.voters_now())):
            return self.reject("add_voter", inp["replica"], "DUPLICATE_VOTER")
        return super().reconfigure(inp)


class VersionBeforeUnknownHw(VoterReplica):
    """VOTERS-RULE-ADD / -REMOVE order: a kraft.version-0 leader answers AddVoter and RemoveVoter
    UNSUPPORTED_VERSION at once, also in the first moments of its epoch before anything it wrote
    committed, where the handlers answer REQUEST_TIMED_OUT while the high watermark is unknown
    (step 2) and look at kraft.version only after (step 3). An implementer slips here because the
    feature check looks cheaper and more fundamental than the high watermark's."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] in ("AddVoter", "RemoveVoter") and self.role == "leader" and self.valid_key(inp)
                and (inp["type"] != "AddVoter" or inp.get("endpoint", True))
                and self.high_watermark is None and self.control.kraft_version() < 1):
            request = "add_voter" if inp["type"] == "AddVoter" else "remove_voter"
            return self.reject(request, inp["replica"], "UNSUPPORTED_VERSION")
        return super().reconfigure(inp)


class UpgradeUpdateRangeUnchecked(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS (4.1+): at kraft.version 0 the leader keeps a voter's
    UpdateVoter report (its directory, whether it supports 1) in memory, but only when the
    reported range holds the finalized version 0; this one skips that check, so a voter reporting
    [1, 1] is kept (as supporting the upgrade) where the protocol answers INVALID_REQUEST. An
    implementer slips here because at version 0 the range "only matters for the upgrade", which
    [1, 1] supports."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if (self.role == "leader" and inp["epoch"] == self.epoch and self.kraft_upgrade
                and self.control.kraft_version() < 1 and self.high_watermark is not None
                and self.valid_key(inp) and inp.get("listeners", "default") not in ("other", "none")
                and 0 <= low <= high and not low <= 0 <= high and inp["replica"] in self.upgrade_voters):
            self.upgrade_voters[inp["replica"]] = (inp["directory"], low <= 1 <= high)
            return None
        return super().update_voter(inp)


class UpgradeReportsKeptAcrossEpochs(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS: the kraft.version-0 leader's view of its voters (directory,
    supports kraft.version 1) belongs to its epoch (Kafka's ``LeaderState``, rebuilt at every
    election); this replica keeps the reports in a field of the client, so when it leads again in
    a later epoch it starts from what the voters told it last time, and an UpgradeKRaftVersion is
    accepted before any voter reported in this epoch. An implementer slips here because "the
    voters' supported versions do not change between epochs"."""

    remembered: dict[int, tuple[int, bool]] | None = None

    def track_upgrade_voters(self) -> None:
        epoch_before = self._upgrade_epoch
        super().track_upgrade_voters()
        if self.upgrade_voters:
            if self._upgrade_epoch != epoch_before and self.remembered:
                for r, report in self.remembered.items():
                    if r in self.upgrade_voters and r != self.id:
                        self.upgrade_voters[r] = report
            self.remembered = dict(self.upgrade_voters)


class AutoJoinAtVersionZero(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN: the observer asks to join when its update-voter-set period expires
    whatever the cluster's kraft.version, where only a cluster at kraft.version 1 can change its
    voters (Kafka's ``shouldSendAddOrRemoveVoterRequest`` checks ``isReconfigSupported`` first).
    An implementer slips here because the leader refuses the AddVoter anyway (UNSUPPORTED_VERSION),
    so the check looks redundant."""

    def joins(self) -> bool:
        return (self.auto_join and self.role == "follower"
                and (self.id, self.id) not in self.voter_set)


# ---------------------------------------------------------------------------- log-level bugs


class TrimKeepsEntryAtBoundary(ControlRecords):
    """VOTERS-SNAP-TRIM (``TreeMapLogHistory.truncateOldEntries``): a snapshot ending at
    ``end_offset`` keeps of the entries at or before its last offset only the latest; this one
    takes "older" as strictly before the last offset, so a VotersRecord written exactly at the
    snapshot's last offset is kept *besides* the older floor (two entries at or below the
    snapshot). An implementer slips here because ``headMap(offset)`` is exclusive by default."""

    @staticmethod
    def trim(history: list[tuple[int, Any]], last: int) -> list[tuple[int, Any]]:
        older = [e for e in history if e[0] < last]
        return older[-1:] + [e for e in history if e[0] >= last]


class ReadVersionLatest(ControlRecords):
    """VOTERS-CTRL-READ: ``kraftVersionAtOffset(o)`` is answered with the latest kraft.version
    (``lastKraftVersion``), not the one in force at ``o``: an offset before the KRaftVersion
    record reads 1. An implementer slips here because kraft.version is a finalized feature "of the
    cluster", one value, where the state machine keeps it as a history like the voter set."""

    def read_at(self, offset: int) -> dict[str, JSON]:
        answer = super().read_at(offset)
        if answer["type"] == "ReadAt":
            answer["kraft_version"] = self.kraft_version()
        return answer


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "hw-even-set-upper-median": HwEvenSetUpperMedian,
    "add-duplicate-before-pending": AddDuplicateBeforePending,
    "version-before-unknown-hw": VersionBeforeUnknownHw,
    "upgrade-update-range-unchecked": UpgradeUpdateRangeUnchecked,
    "upgrade-reports-kept-across-epochs": UpgradeReportsKeptAcrossEpochs,
    "auto-join-at-version-zero": AutoJoinAtVersionZero,
}
LOG_BUGS: dict[str, type[ControlRecords]] = {
    "trim-keeps-entry-at-boundary": TrimKeepsEntryAtBoundary,
    "read-version-latest": ReadVersionLatest,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
