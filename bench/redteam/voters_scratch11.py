"""KRaft voter-set (KIP-853) bugs, session 19's blind round ("blindvs").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`), written from README.md,
CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, KIP-853 and Kafka's
``LeaderState`` / ``AddVoterHandler`` / ``RemoveVoterHandler`` / ``UpdateVoterHandler`` /
``KafkaRaftClient`` alone (no driver, model or mutant catalogue read before the first
measurement). They are the slips of an implementer who knows the KIP, each needing a voter
change, an upgrade, a disk replacement or a change of leader before it shows: a leader that
removed itself resigning without EndQuorumEpoch, "a change is pending" read as "the set in force
differs from the committed one" (an UpdateVoter's rewrite of the same set is none), a candidate
counting its votes over the committed voter set, a kraft.version-0 leader keeping the report of
an UpdateVoter it refused as VOTER_NOT_FOUND, auto-join adding the new disk before removing the
old one, an added replica acting as a voter only once its addition commits, a new leader taking
the high watermark it knew as a follower for its own before committing in its epoch, and the
upgrade's VotersRecord not counted as a pending voter change.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch11:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet, _ids
from redteam._targets import register, subclass

# the replica level's target, as session 15's voters module defines it
from redteam.voters_scratch7 import ReplicaTarget


def _committed_set(replica: VoterReplica) -> VoterSet | None:
    """The voter set in force at the replica's high watermark (None: no HW, or no set below it)."""
    hw = replica.high_watermark
    if hw is None:
        return None
    found: VoterSet | None = ControlRecords.value_at(replica.control.voter_history, hw - 1)
    return found


# ---------------------------------------------------------------------------- replica-level bugs


class RemovedLeaderResignsSilently(VoterReplica):
    """VOTERS-RULE-REMOVED-LEADER: a leader that removed itself resigns once the VotersRecord
    commits and sends EndQuorumEpoch to the remaining voters (``ResignedState``, as any
    resignation). This one moves to resigned without sending it ("EndQuorumEpoch is a voter's
    request, and I am no longer one"), so the remaining voters wait for their fetch timeout
    instead of electing a successor at once. Needs an accepted RemoveVoter of the leader itself,
    then the followers' fetches that commit it."""

    def resign_if_removed(self) -> None:
        size, was = len(self.out), self.role
        super().resign_if_removed()
        if was == "leader" and self.role == "resigned":
            self.out[size:] = [o for o in self.out[size:] if o["type"] != "EndQuorumEpochRequest"]


class PendingBySetDifference(VoterReplica):
    """VOTERS-RULE-ONE-CHANGE: a change is pending while the last VotersRecord is at or above the
    high watermark (``AddVoterHandler``: ``lastVoterSetOffset`` against the HW). This one calls a
    change pending while the set in force at the log end differs from the committed set ("an
    uncommitted change is a different set"), so an accepted UpdateVoter, which rewrites the same
    set, leaves no change pending and a second UpdateVoter, an AddVoter or a RemoveVoter is
    accepted before the first record commits. Needs a leader with followers at kraft.version 1,
    an accepted UpdateVoter, then another change before the followers fetch it."""

    def change_pending(self) -> bool:
        history = self.control.voter_history
        if not history:
            return True
        return _committed_set(self) != history[-1][1]


class ElectionOverCommittedSet(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND: a candidate (or prospective) counts its votes over the voter
    set in force at its log end, committed or not. This one counts them over the set in force at
    its high watermark ("an election must use a settled quorum"), so a replica that has appended
    an uncommitted AddVoter's record wins with a majority of the smaller, older set. Needs an
    accepted AddVoter fetched by a follower whose HW is still below it, then that follower's
    election."""

    def majority(self, members: set[int]) -> bool:
        if self.role in ("candidate", "prospective"):
            committed = _committed_set(self)
            if committed is not None:
                ids = set(_ids(committed))
                return len(members & ids) >= len(ids) // 2 + 1
        return super().majority(members)


class UpgradeKeepsRefusedReport(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS: a kraft.version-0 leader (4.1+) replaces the report of a voter
    it knows by id (``updateVoterIgnoringDirectoryId`` finds nothing for another id, and the
    request is answered VOTER_NOT_FOUND). This one stores every well-formed report before the
    lookup (a map ``put``), answering VOTER_NOT_FOUND but keeping the non-voter's entry, so the
    upgrade's VotersRecord names that replica as a voter. Needs an UpdateVoter from a non-voter
    at a kraft.version-0 leader, every voter's UpdateVoter, then the upgrade, in one epoch."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        size = len(self.out)
        super().update_voter(inp)
        answer = self.out[size:]
        if (self.role == "leader" and self.kraft_upgrade and self.control.kraft_version() < 1
                and self._upgrade_epoch == self.epoch and answer and answer[-1].get("error") == "VOTER_NOT_FOUND"):
            low, high = inp.get("min_version", 0), inp.get("max_version", 1)
            self.upgrade_voters[inp["replica"]] = (inp["directory"], low <= 1 <= high)


class AutoJoinAddsFirst(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN: a replica whose id is a voter under another directory first asks
    to remove that key (KIP-853: "remove any voter ... that matches its replica id but doesn't
    match its directory id"), then to add itself. This one asks to add its new key first ("add,
    then remove, as one replaces a node without losing a voter"), which the leader refuses as
    DUPLICATE_VOTER every period, so the replaced disk never joins. Needs auto-join on, a disk
    replacement of a voter, then the replaced disk following a leader at kraft.version 1."""

    def on_update_voter_set_due(self) -> None:
        if not self.joins() or self.leader is None:
            return
        self.send("AddVoterRequest", self.leader, replica=self.id, directory=self.directory)


class VoterOnceAddCommits(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND for the replica itself: a replica is a voter once it has
    appended the VotersRecord that adds it. This one acts as a voter (stands on its fetch timeout,
    grants and counts itself) only once that record is below its high watermark ("I am added when
    the addition commits"); until then it is an observer, so its fetch timeout sends it back to
    the bootstrap servers instead of to an election. Needs an accepted AddVoter, the new voter's
    fetch of the record (the leader's HW still below it), then the new voter's fetch timeout."""

    def use_voters(self, voters: VoterSet) -> None:
        super().use_voters(voters)
        committed = _committed_set(self)
        if (self.role != "leader" and committed is not None and self.id in self.voters
                and self.id not in _ids(committed)):
            self.voters = [v for v in self.voters if v != self.id]


class ReconfigOnFollowerHw(VoterReplica):
    """VOTERS-RULE-ADD step 2 / VOTERS-RULE-REMOVE: a leader whose high watermark is unknown (it has
    not committed a record of its epoch, so an earlier leader's change may be uncommitted and
    unfenced) answers REQUEST_TIMED_OUT. This one judges a reconfiguration before its first commit
    against the high watermark it knew as a follower ("what was committed is still committed"),
    so a RemoveVoter right after the election is appended. Needs a follower with a known HW that
    wins an election, then a RemoveVoter before any follower fetches in the new epoch."""

    follower_hw: int | None = None

    def become_leader(self) -> None:
        self.follower_hw = self.high_watermark
        super().become_leader()

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (self.role == "leader" and self.high_watermark is None and self.follower_hw is not None
                and inp["type"] != "UpgradeKRaftVersion"):
            self.high_watermark = self.follower_hw
            try:
                super().reconfigure(inp)
            finally:
                self.high_watermark = None
            return None
        return super().reconfigure(inp)


class UpgradeNotPending(VoterReplica):
    """VOTERS-RULE-ONE-CHANGE with VOTERS-RULE-UPGRADE: the upgrade's VotersRecord is a voter change
    like any other, pending until it commits. This one keeps "pending" as the state of its
    Add/Remove/Update handlers (Kafka's ``addVoterHandlerState`` / ``removeVoterHandlerState``),
    which the upgrade never sets, so an AddVoter, RemoveVoter or UpdateVoter right after an
    accepted upgrade is accepted over the uncommitted VotersRecord. Needs a kraft.version-0
    cluster of several voters, every voter's UpdateVoter, the upgrade, then a voter change before
    the followers fetch it."""

    upgrade_voters_at: int | None = None

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        if [e["kind"] for e in entries] == ["kraft_version", "voters"]:
            self.upgrade_voters_at = self.end_offset + 1
        super().leader_append(entries)

    def change_pending(self) -> bool:
        history = self.control.voter_history
        if history and history[-1][0] == self.upgrade_voters_at:
            return False
        return super().change_pending()


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CORRECT = "Correct"
BASELINES = ("Correct",)

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "removed-leader-resigns-silently": RemovedLeaderResignsSilently,
    "pending-by-set-difference": PendingBySetDifference,
    "election-over-committed-set": ElectionOverCommittedSet,
    "upgrade-keeps-refused-report": UpgradeKeepsRefusedReport,
    "auto-join-adds-first": AutoJoinAddsFirst,
    "voter-once-add-commits": VoterOnceAddCommits,
    "reconfig-on-follower-hw": ReconfigOnFollowerHw,
    "upgrade-not-pending": UpgradeNotPending,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


TARGETS = register(globals(), ReplicaTarget, REPLICA_BUGS, _replica)
