"""KRaft voter-set (KIP-853) bugs, session 15's blind round ("outsiderb").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, spec/adapter-protocol.md and
KIP-853/KIP-595 alone (no driver, model or mutant catalogue read before the first measurement).
They are the slips of an implementer who knows the KIP: a leader's catch-up kept by replica id,
reachability of a persisted leader read from the bootstrap servers, UpdateVoter's voter looked up
before its version range, a directory id 0 taken for Kafka's ``Uuid.ZERO_UUID``, a removed
controller that never auto-joins again, the kraft.version upgrade writing the configured
directories, the static voter set forgotten once the log had a VotersRecord, and a lost pre-vote
that forgets the leader it came from had no endpoint.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch7:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch7:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import (
    ControlRecords,
    VoterReplica,
    VoterSet,
    VotersTarget,
    _entry,
    _ids,
)
from redteam._targets import SelfNamed, register, subclass

# ---------------------------------------------------------------------------- the targets


class ReplicaTarget(SelfNamed, VotersTarget):
    """The replica level over ``replica`` (and its control-record class ``control``)."""

    replica: type[VoterReplica] = VoterReplica
    control: type[ControlRecords] = ControlRecords
    driven_level = "replica"

    def __init__(self) -> None:
        VotersTarget.__init__(self, "", replica_class=self.replica, control_class=self.control,
                              level=self.driven_level)
        SelfNamed.__init__(self)


class LogTarget(ReplicaTarget):
    """The log level over ``control``."""

    driven_level = "log"


# ---------------------------------------------------------------------------- replica-level bugs


class AddCaughtUpById(VoterReplica):
    """VOTERS-RULE-ADD step 7 / VOTERS-KEY: the leader keeps its followers' fetch state by replica
    id (as raft does), so AddVoter(h, d) for a non-voter host h that fetched to the log end under
    its own directory is accepted with whatever directory the request names, and that (h, d) is
    written. KIP-853: "wait for the fetch offset of the replica (ID, UUID) to catch up"; a key
    that never fetched is never caught up (REQUEST_TIMED_OUT). An implementer slips here because
    the Fetch carries the directory but the leader's per-replica map was keyed by id long before
    KIP-853."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        r, d = inp.get("replica"), inp.get("directory")
        if (inp["type"] == "AddVoter" and self.role == "leader" and self.valid_key(inp)
                and inp.get("endpoint", True) and d != r and self.high_watermark is not None
                and self.control.kraft_version() >= 1 and not self.change_pending()):
            current = self.control.voters_now()
            if r not in _ids(current) and self.end_offsets.get(r) == self.end_offset:
                new = current | {(r, d)}
                self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
                return None
        return super().reconfigure(inp)


class RestartReachableByBootstrap(VoterReplica):
    """VOTERS-RULE-LEADER-UNREACHABLE: on restart, whether the persisted leader can be reached is
    decided by ``controller.quorum.bootstrap.servers`` (the initial voters) instead of the voter
    set in force at the log end. A replica whose leader is a voter added since restarts unattached
    (it could fetch from it), one whose leader removed itself but was an initial voter restarts as
    its follower. An implementer slips here because before KIP-853 the endpoints were the static
    configuration, and the bootstrap list still is configuration."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.leader is None or self.leader == self.id:
            return
        if self.role == "follower" and self.leader not in self.bootstrap_servers:
            self.role = "voted" if self.voted_for is not None else "unattached"
        elif self.role in ("unattached", "voted") and self.leader in self.bootstrap_servers:
            self.role = "follower"


class UpdateFoundBeforeRange(VoterReplica):
    """VOTERS-RULE-UPDATE checks 8 and 9 in the wrong order: the voter is looked up (VOTER_NOT_FOUND)
    before its supported range is checked against the finalized kraft.version (INVALID_REQUEST).
    Kafka (and the spec) check the range first; an UpdateVoter naming an unknown voter with a range
    that leaves out the finalized version is answered INVALID_REQUEST. An implementer slips here
    because "find the voter, then validate what it sends" reads naturally."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if (inp["epoch"] == self.epoch and self.role == "leader" and self.valid_key(inp)
                and inp.get("listeners", "default") not in ("other", "none") and 0 <= low <= high
                and self.high_watermark is not None and self.control.kraft_version() >= 1
                and not self.change_pending()
                and (inp["replica"], inp["directory"]) not in self.control.voters_now()):
            return self.reject("update_voter", inp["replica"], "VOTER_NOT_FOUND")
        return super().update_voter(inp)


class DirectoryZeroIsNone(VoterReplica):
    """VOTERS-RULE-KEY-VALID: directory id 0 is taken for "no directory" (Kafka's
    ``Uuid.ZERO_UUID``), so AddVoter / RemoveVoter / UpdateVoter naming directory 0 are answered
    INVALID_REQUEST. In the adapter protocol "no directory" is -1 (``NO_DIRECTORY``); 0 is a
    directory like any other (a replica id 0 is valid too, VOTERS-DRIVE-ODD-IDS). An implementer
    slips here because the Java side's zero Uuid is the sentinel and an int 0 looks like it."""

    @staticmethod
    def valid_key(inp: dict[str, Any]) -> bool:
        return bool(inp["replica"] >= 0 and inp["directory"] not in (-1, 0))


class AutoJoinNotAfterRemoval(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN: a controller that has been a voter never auto-joins again once it is
    removed ("an operator removed it on purpose"). KIP-853's rule, which Kafka 4.2+ follows and
    documented (KAFKA-19850's fix was closed): a replica with auto-join on whose key is not in the
    set asks to be added at every period, a removed one included. An implementer slips here because
    re-adding a controller the operator just removed looks like a bug (it was reported as one)."""

    def use_voters(self, voters: VoterSet) -> None:
        if (self.id, self.id) in voters:
            self.was_voter = True
        super().use_voters(voters)

    def joins(self) -> bool:
        return super().joins() and not getattr(self, "was_voter", False)


class UpgradeWritesStaticDirectories(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS: the kraft.version upgrade writes the static voters under the
    directories the leader assumes (each host's own) instead of the directories the voters named
    in their UpdateVoter. The rule: the VotersRecord holds "the voters *with the directories they
    named*". An implementer slips here because the in-memory UpdateVoter at kraft.version 0 looks
    like a support check only, and the directory is already "known"."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "UpgradeKRaftVersion":
            self.upgrade_voters = {r: (r, ok) for r, (_, ok) in self.upgrade_voters.items()}
        return super().reconfigure(inp)


class ProspectiveForgetsUnreachable(VoterReplica):
    """VOTERS-RULE-LEADER-UNREACHABLE (KIP-996 with KIP-853): a prospective that came from the
    unattached state with an unreachable leader (restarted with a persisted leader outside its
    voter set) and loses its pre-vote goes back as that leader's *follower*, as if it had come
    from following it. The rule: it returns to the state it came from, unattached with the leader
    kept (Kafka 4.0's ``prospectiveTransitionAfterElectionLoss``: the leader's endpoints are still
    unknown). An implementer slips here because "go back to the leader you knew" is the plain
    KIP-996 rule and the endpoint case is a corner of a corner."""

    def go_back(self, prior: tuple[int, int | None, int | None]) -> None:
        self.prior_unreachable = False
        super().go_back(prior)


# ---------------------------------------------------------------------------- log-level bugs


class ForgetsStaticSet(ControlRecords):
    """VOTERS-HIST-LAST: once the log has had a VotersRecord, the static voter set
    (``controller.quorum.voters``) is forgotten: when truncation removes every history entry the
    replica's set is empty instead of the static one (until a restart reads the configuration
    again). The rule: ``lastValue()`` is the last entry's value, or the static set when the history
    is empty. An implementer slips here because the static set looks like a start-up default that
    the log's first VotersRecord replaces for good."""

    def rebuild(self) -> None:
        self.fallback = self.static
        super().rebuild()

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        super().add_voters(offset, voters)
        self.fallback = frozenset()

    def voters_now(self) -> VoterSet:
        return self.voter_history[-1][1] if self.voter_history else self.fallback


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "add-caught-up-by-id": AddCaughtUpById,
    "restart-reachable-by-bootstrap": RestartReachableByBootstrap,
    "update-found-before-range": UpdateFoundBeforeRange,
    "directory-zero-is-none": DirectoryZeroIsNone,
    "auto-join-not-after-removal": AutoJoinNotAfterRemoval,
    "upgrade-writes-static-directories": UpgradeWritesStaticDirectories,
    "prospective-forgets-unreachable": ProspectiveForgetsUnreachable,
}
LOG_BUGS: dict[str, type[ControlRecords]] = {
    "forgets-static-set": ForgetsStaticSet,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
