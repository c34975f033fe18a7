"""KRaft voter-set (KIP-853) bugs, session 29's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`, one also its control-record
state machine), written from README.md, CONTRIBUTING.md, spec/voters.md, spec/adapter-protocol.md,
KIP-853/KIP-996, the reference target and Kafka's raft/ source alone (no driver, model, mutant
catalogue or test read before the first measurement; the sixteen earlier voters modules read for
their bug names and docstrings only, so that none is repeated). They aim at corners the earlier
rounds left: UpdateVoter's listener check done inside the handler after its high-watermark and
pending-change checks, a leader whose check-quorum bookkeeping keeps an observer's fetch and
counts it once the observer is added, a second kraft.version upgrade judged by the *committed*
kraft.version while the first is uncommitted, a replica outside its own voter set that refuses
every pre-vote (KIP-996's "only voters answer pre-votes"), a removed leader that resigns only when
its high watermark lands exactly on its removal's end, a kraft.version-0 leader that keeps a voter's
UpdateVoter report before its epoch has committed, a replica whose finalized kraft.version is a
cache that a truncation of the upgrade does not roll back, and a KIP-853 replica that still refuses
a BeginQuorumEpoch from a leader outside its own voter set (the pre-KIP-853 ``validateVoterOnlyRequest``
kept for that one request, as its Javadoc still said in 3.7).

BEFORE (committed before any kspec change; ``PYTHONPATH=bench nice -n 10 python bench/redteam_power.py
--seeds 2 --protocols voters --modules voters_scratch17``, 00:10-00:29 UTC, load 4-6 on 2 cores):
caught at seeds 0 and 1: update-listeners-checked-late (guided run 54 at both), upgrade-report-
before-hw (guided run 44), begin-epoch-from-outsider-refused (guided run 134),
check-quorum-keeps-observer-fetch (random runs 155 and 214); escaped at seeds 0 and 1:
upgrade-judged-by-committed-version, pre-vote-refused-outside-set,
removed-leader-resigns-at-exact-commit, version-cached-over-truncation. 4/8.

AFTER (session 29, phase 2; ``--only upgrade-judged-by-committed-version
removed-leader-resigns-at-exact-commit``, 00:41-00:45 UTC): upgrade-judged-by-committed-version
caught at seeds 0 and 1 (guided run 10: VOTERS-DRIVE-UPGRADE-AGAIN, the upgrade again where
VOTERS-DRIVE-UPGRADE-DIRECTORY's batch is uncommitted; mutant ``voters-upgrade-written-twice``),
removed-leader-resigns-at-exact-commit (guided run 7: VOTERS-DRIVE-REMOVED-LEADER-APPEND, the tail
of the first-leader-again start path; mutant ``voters-removed-leader-resigns-on-committed-record``);
the other four as before. 6/8. Still escaping, not reached (R29-blindvoters.md):
pre-vote-refused-outside-set (every pre-vote-configuration path end has the election, crash or
fetch budget spent; the route from the started state, written and checked offline, needs a start
path of its own) and version-cached-over-truncation (two elections after an accepted upgrade,
which no kraft.version-0 path end leaves).

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch17:Correct
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet
from redteam._targets import register, subclass

# the replica level's target, as session 15's voters module defines it
from redteam.voters_scratch7 import ReplicaTarget

ODD_LISTENERS = ("other", "none")


def _range(inp: dict[str, Any]) -> tuple[int, int]:
    return inp.get("min_version", 0), inp.get("max_version", 1)


# ---------------------------------------------------------------------------- replica-level bugs


class UpdateListenersCheckedLate(VoterReplica):
    """VOTERS-RULE-UPDATE's order (check 3, "no listener of the cluster's name ->
    INVALID_REQUEST", before check 5, "high watermark unknown or a change pending ->
    REQUEST_TIMED_OUT", and check 7, the last VotersRecord uncommitted): the implementer moved the
    endpoint validation into the handler, where the new VotersRecord is built ("the endpoints are
    only needed when the record is written"), after the handler's wait-for-commit checks. So at
    kraft.version 1 an UpdateVoter whose listeners lack the cluster's (``other``, ``none``) is
    answered REQUEST_TIMED_OUT by a leader whose epoch has not committed yet or that has a voter
    change in flight, where Kafka (``handleUpdateVoterRequest`` checks ``newVoterEndpoints`` before
    it calls ``UpdateVoterHandler``) answers INVALID_REQUEST. Needs a malformed update at a fresh
    leader or while a change is uncommitted."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = _range(inp)
        if (inp.get("listeners", "default") in ODD_LISTENERS and inp["epoch"] == self.epoch
                and self.role == "leader" and self.valid_key(inp) and 0 <= low <= high
                and self.control.kraft_version() >= 1
                and (self.high_watermark is None or self.change_pending())):
            return self.reject("update_voter", inp["replica"], "REQUEST_TIMED_OUT")  # the slip
        return super().update_voter(inp)


class CheckQuorumKeepsObserverFetch(VoterReplica):
    """RAFT-RULE-CHECK-QUORUM over the set in force (VOTERS-RULE-EFFECT-ON-APPEND) with
    VOTERS-RULE-ADD: only a *voter's* Fetch counts toward the check-quorum period (Kafka's
    ``LeaderState.updateCheckQuorumForFollowingVoter`` is called for a fetching replica that is a
    voter at that moment). The implementer records every replica that fetched in the period
    ("the voter set may change before the timer fires, so filter when counting") and intersects
    with the voters only at count time: an observer's Fetch made before its AddVoter is appended
    counts as a voter's fetch once it is added, so the period renews (or the leader survives a
    CheckQuorumTimeout) on a fetch the protocol does not count. Needs an observer's Fetch, its
    AddVoter appended in the same check-quorum period, then the other voters' fetches short of a
    majority without it and a CheckQuorumTimeout."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        super().on_valid_fetch(replica, offset)
        if self.role == "leader" and replica not in self.voters:
            self.fetched.add(replica)  # the slip: kept, counted if it becomes a voter


class UpgradeJudgedByCommittedVersion(VoterReplica):
    """VOTERS-RULE-UPGRADE ("a no-op once the version is 1") with VOTERS-RULE-KRAFT-VERSION and
    VOTERS-RULE-EFFECT-ON-APPEND: whether kraft.version is already 1 is read at the leader's log
    end (``partitionState.lastKraftVersion()``, the upgrade batch included while uncommitted).
    This one asks the *finalized* feature as the controller publishes it, the version in force at
    the high watermark ("a feature is finalized once committed"), so a second UpgradeKRaftVersion
    arriving while the first one's batch is uncommitted goes to the readiness check again, whose
    in-memory voters went with the append (LeaderState's upgrade state moved on), and is refused
    INVALID_UPDATE_VERSION, where the protocol answers nothing. Needs the kraft.version-0
    configuration, an accepted upgrade and another upgrade before the batch commits."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "UpgradeKRaftVersion" and self.role == "leader" and self.high_watermark is not None
                and self.control.kraft_version() >= 1):
            committed = ControlRecords.value_at(self.control.version_history, self.high_watermark - 1) or 0
            if committed < 1 and (not self.upgrade_voters or not all(ok for _, ok in self.upgrade_voters.values())):
                return self.reject("upgrade", inp.get("replica", self.id), "INVALID_UPDATE_VERSION")  # the slip
        return super().reconfigure(inp)


class PreVoteRefusedOutsideSet(VoterReplica):
    """VOTERS-RULE-OPEN-VOTE under KIP-996 (RAFT-KIP853-OPEN-VOTE: "any replica handles a Vote
    from any replica and grants it by its role and the log check alone, whether or not the sender
    or the receiver is in the receiver's voter set"; Kafka 4.0's ``handleVoteRequest`` with
    ``preVote`` asks the state's ``canGrantVote`` and nothing about membership). The implementer
    grants standard votes openly, as KIP-853 says, but reads KIP-996's "a prospective asks the
    voters" as "only a voter answers a pre-vote": a replica outside its own voter set (an added
    voter that has not appended its addition, a removed voter or leader that has read its removal)
    refuses every pre-vote. Needs the pre-vote configuration and a pre-vote reaching a replica
    outside its own set in a role that may grant it (not a follower that has fetched)."""

    _judging_pre_vote = False

    def on_pre_vote_request(self, req: dict[str, Any]) -> None:
        self._judging_pre_vote = True
        try:
            super().on_pre_vote_request(req)
        finally:
            self._judging_pre_vote = False

    def may_vote(self, candidate: int) -> bool:
        if self._judging_pre_vote and not self.is_voter:
            return False  # the slip
        return super().may_vote(candidate)


class RemovedLeaderResignsAtExactCommit(VoterReplica):
    """VOTERS-RULE-REMOVED-LEADER ("keeps leading until the VotersRecord commits, then
    resigns"; Kafka's ``RemoveVoterHandler`` completes on ``highWatermark >= lastOffset + 1``):
    the implementer waits for the removal the way a commit future is completed, keyed on the
    record's end offset, and resigns when the high watermark *equals* it. A high watermark that
    jumps past it in one step (the leader appended a client record after removing itself and the
    followers fetch both at once) never equals it, so the removed leader leads on. Needs a leader's
    RemoveVoter of itself, a client append before its followers fetch, and a fetch that commits
    both."""

    def resign_if_removed(self) -> None:
        if self.role != "leader" or self.is_voter or self.high_watermark is None:
            return
        history = self.control.voter_history
        if history and history[-1][0] + 1 == self.high_watermark:  # the slip: == where >= is meant
            self.resign()


class UpgradeReportBeforeHw(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS ("an UpdateVoter of its epoch (after the checks of
    VOTERS-RULE-UPDATE up to the high watermark) is kept there") with VOTERS-RULE-UPDATE check 5:
    a kraft.version-0 leader (4.1+ rules) answers REQUEST_TIMED_OUT to an UpdateVoter until a
    record of its epoch commits, in-memory branch included (Kafka 4.1's ``UpdateVoterHandler``
    checks the high watermark first). The implementer branches on kraft.version 0 first ("nothing
    is written, so there is nothing to wait for") and keeps the report at once, answering NONE, so
    a voter's report reaches the upgrade state before the epoch has committed. Needs the
    kraft.version-0 configuration and a voter's UpdateVoter at a leader before its first fetch of
    the epoch."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = _range(inp)
        if (inp["epoch"] == self.epoch and self.role == "leader" and self.high_watermark is None
                and self.kraft_upgrade and self.control.kraft_version() < 1 and self.valid_key(inp)
                and inp.get("listeners", "default") not in ODD_LISTENERS and 0 <= low <= high):
            replica = inp["replica"]
            if not low <= 0 <= high:
                return self.reject("update_voter", replica, "INVALID_REQUEST")
            if replica not in self.upgrade_voters:
                return self.reject("update_voter", replica, "VOTER_NOT_FOUND")
            self.upgrade_voters[replica] = (inp["directory"], low <= 1 <= high)  # the slip: before the HW
            return None
        return super().update_voter(inp)


class FeatureCacheControl(ControlRecords):
    """The control-record state machine of :class:`VersionCachedOverTruncation`: the finalized
    kraft.version is a cache set by each KRaftVersionRecord read (and by a rebuild), which a
    truncation does not touch. The observation reports the history's own value."""

    cached: int | None = None

    def rebuild(self) -> None:
        super().rebuild()
        self.cached = ControlRecords.kraft_version(self)

    def add_version(self, offset: int, version: int) -> None:
        super().add_version(offset, version)
        self.cached = version

    def kraft_version(self) -> int:
        return ControlRecords.kraft_version(self) if self.cached is None else self.cached

    def observation(self, voters: VoterSet | None = None) -> dict[str, JSON]:
        return {**super().observation(voters), "kraft_version": ControlRecords.kraft_version(self)}


class VersionCachedOverTruncation(VoterReplica):
    """VOTERS-CTRL-TRUNCATE with VOTERS-RULE-KRAFT-VERSION ("the kraft.version at an offset is the
    value of the last KRaftVersionRecord at or before it") and VOTERS-RULE-UPGRADE-VOTERS: the
    replica's handlers read kraft.version from a feature cache that each KRaftVersionRecord it
    reads updates ("a finalized feature level only moves forward"), while the voter-set history
    drops its truncated entries. A kraft.version-0 leader whose uncommitted upgrade batch a new
    leader truncates away keeps acting at kraft.version 1 (its history, and so its observation,
    says 0): leading again, it answers AddVoter/RemoveVoter REQUEST_TIMED_OUT (no VotersRecord:
    "pending") instead of UNSUPPORTED_VERSION, refuses its voters' UpdateVoter reports instead of
    keeping them, and treats the upgrade as a no-op. Needs the kraft.version-0 configuration, an
    accepted upgrade that loses the leadership before it commits, the truncation, and that
    replica leading again."""

    def __init__(self, node_id: int, config: dict[str, Any],
                 control_class: type[ControlRecords] = ControlRecords) -> None:
        super().__init__(node_id, config, FeatureCacheControl)


class BeginEpochFromOutsiderRefused(VoterReplica):
    """VOTERS-RULE-OPEN-VOTE's counterpart for a new leader's announcement and
    VOTERS-RULE-EFFECT-ON-APPEND: under KIP-853 a replica takes BeginQuorumEpoch from the leader
    of its epoch whatever its own voter set says (the sets differ while a change replicates; Kafka
    3.8+ ``handleBeginQuorumEpochRequest`` no longer asks whether the sender or the receiver is a
    voter). The implementer opened Vote as the KIP says but kept the pre-KIP-853
    ``validateVoterOnlyRequest`` for BeginQuorumEpoch (its Javadoc in 3.7: "INCONSISTENT_VOTER_SET if
    this node or the sender is not one of the current known voters"): a replica that is not a voter
    of its own set, or whose set does not hold the sender, answers INCONSISTENT_VOTER_SET and does
    not follow. Needs a leader elected while the receiver's set differs from the leader's (an
    added voter that wins before a lagging voter appended its addition, or a new voter that is
    sent BeginQuorumEpoch before it appended its own addition)."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["src"] >= 0 and req["epoch"] >= self.epoch and (not self.is_voter or req["src"] not in self.voters):
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader,
                      error="INCONSISTENT_VOTER_SET")  # the slip: KIP-595's voter-only check kept
            return
        super().on_BeginQuorumEpochRequest(req)


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CORRECT = "Correct"
BASELINES = ("Correct",)

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "update-listeners-checked-late": UpdateListenersCheckedLate,
    "check-quorum-keeps-observer-fetch": CheckQuorumKeepsObserverFetch,
    "upgrade-judged-by-committed-version": UpgradeJudgedByCommittedVersion,
    "pre-vote-refused-outside-set": PreVoteRefusedOutsideSet,
    "removed-leader-resigns-at-exact-commit": RemovedLeaderResignsAtExactCommit,
    "upgrade-report-before-hw": UpgradeReportBeforeHw,
    "version-cached-over-truncation": VersionCachedOverTruncation,
    "begin-epoch-from-outsider-refused": BeginEpochFromOutsiderRefused,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


TARGETS = register(globals(), ReplicaTarget, REPLICA_BUGS, _replica)
