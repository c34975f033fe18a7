"""KRaft voter-set (KIP-853) bugs, session 27's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, CONTRIBUTING.md, docs/design.md, spec/voters.md, spec/adapter-protocol.md, KIP-853 and
the reference target alone (no driver, model, mutant catalogue or test read before the first
measurement; the earlier voters modules read for their bug names and docstrings only). They aim
at slips of Kafka's own code: ``LeaderState``'s kraft.version-upgrade state left in place after
the upgrade (``UpdateVoterHandler`` branching on "in-memory voters present" instead of the
finalized version), the leader's own id missing from the upgrade's voter map, the upgrade's
readiness checked before "has the epoch committed", an auto-joining observer that reads its
membership from the committed voter set, a lapsed observer's fetch-timer lapse ended by a stale
answer (epoch not compared), a removed leader that under KIP-996 goes straight to a pre-vote from
the epoch bump of ``pollResigned``, and a voter-set history that drops a VotersRecord repeating
the set before it.

BEFORE (committed before any kspec change; ``redteam_power.py --seeds 2``, split with ``--only``,
load 6-9 on 2 cores): caught at seeds 0 and 1: update-in-memory-after-upgrade (runs 238, 259),
upgrade-readiness-before-hw (44), removed-leader-prevotes-on-rejoin (119), history-skips-
repeated-set (84); escaped at seeds 0 and 1: upgrade-map-lacks-leader, auto-join-reads-
committed-set, lapse-ends-on-stale-answer.

AFTER (session 27, VOTERS-DRIVE-OWN-REPORT and VOTERS-DRIVE-REJOIN-FETCH: path-end steps only):
upgrade-map-lacks-leader caught at seeds 0 and 1 (guided run 10), auto-join-reads-committed-set
(guided run 32); the other five as before; lapse-ends-on-stale-answer still escapes (not reached:
it needs a stale answer naming the same leader, i.e. a leader re-elected in the next epoch while a
bootstrap server lags an epoch behind; diagnosed in /work/wt/R27-blindvoters.md, not fixed).

AFTER (session 28, VOTERS-DRIVE-STALE-LAPSE-ANSWER and VOTERS-DRIVE-FREE-REPEATED-SET: a path-end
probe that changes guided run 56 only, and the free-log script's last steps):
lapse-ends-on-stale-answer caught at seeds 0 and 1 (guided run 56), history-skips-repeated-set at
guided run 1 (random run 84 before); 7/7.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch16:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch16:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet
from redteam._targets import register, subclass

# the targets of the replica and log levels, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class UpdateInMemoryAfterUpgrade(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS with VOTERS-RULE-UPDATE (steps 6-10) and VOTERS-RULE-ONE-CHANGE:
    a kraft.version-0 leader keeps its voters' reports in memory (Kafka 4.1's
    ``KRaftVersionUpgrade.Voters`` in ``LeaderState``); the implementer clears that state only when
    the leadership ends, not when its own upgrade is appended, and the UpdateVoter handler takes
    the in-memory branch whenever the state is there ("in-memory voters present") instead of when
    the finalized kraft.version is 0. So, in the epoch that upgraded, an UpdateVoter of a voter
    is kept in memory and answered NONE with nothing written, where the protocol refuses it
    REQUEST_TIMED_OUT while the upgrade's VotersRecord is uncommitted and appends a VotersRecord
    once it has committed. Needs the kraft.version-0 configuration under 4.1+ rules, every
    voter's report, the upgrade accepted, then an UpdateVoter at that leader in the same epoch."""

    def track_upgrade_voters(self) -> None:
        if (self.role == "leader" and self.kraft_upgrade and self._upgrade_epoch == self.epoch
                and self.control.kraft_version() >= 1):
            return  # the slip: the in-memory voters outlive the upgrade within the epoch
        super().track_upgrade_voters()

    def update_voter(self, inp: dict[str, Any]) -> None:
        version = self.control.kraft_version()
        if not (self.role == "leader" and inp["epoch"] == self.epoch and self.upgrade_voters and version >= 1):
            return super().update_voter(inp)
        replica = inp["replica"]
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if not self.valid_key(inp) or inp.get("listeners", "default") in ("other", "none") or not 0 <= low <= high:
            return self.reject("update_voter", replica, "INVALID_REQUEST")
        if self.high_watermark is None:
            return self.reject("update_voter", replica, "REQUEST_TIMED_OUT")
        if not low <= version <= high:
            return self.reject("update_voter", replica, "INVALID_REQUEST")
        if replica not in self.upgrade_voters:
            return self.reject("update_voter", replica, "VOTER_NOT_FOUND")
        self.upgrade_voters[replica] = (inp["directory"], low <= 1 <= high)  # kept, not written
        return None


class UpgradeMapLacksLeader(VoterReplica):
    """VOTERS-RULE-UPGRADE-VOTERS ("it starts its epoch knowing only itself ... the voter is found
    by id alone"): the in-memory map the kraft.version-0 UpdateVoter handler looks the voter up in
    is built from the leader's *follower* states (``LeaderState``'s voter states minus the local
    replica, which Kafka keeps apart), so an UpdateVoter naming the leader itself is answered
    VOTER_NOT_FOUND, where the protocol keeps it (its directory and supported range replace the
    leader's own entry). Needs a kraft.version-0 leader under 4.1+ rules that has committed in its
    epoch and an UpdateVoter of its own id."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        if not (self.role == "leader" and self.kraft_upgrade and self.control.kraft_version() < 1
                and inp["replica"] == self.id and self.id in self.upgrade_voters):
            return super().update_voter(inp)
        mine = self.upgrade_voters.pop(self.id)  # the slip: the followers' map has no entry for the leader
        try:
            return super().update_voter(inp)
        finally:
            self.upgrade_voters[self.id] = mine


class UpgradeReadinessBeforeHw(VoterReplica):
    """VOTERS-RULE-UPGRADE and VOTERS-RULE-UPGRADE-VOTERS (the upgrade "requires the leader to have
    committed in its epoch"; refused INVALID_UPDATE_VERSION "until every voter is known to support
    kraft.version 1"): the upgrade path checks the voters' readiness before the high watermark, so
    a kraft.version-0 leader asked to upgrade before its epoch commits answers
    INVALID_UPDATE_VERSION (it knows only itself) where the protocol answers REQUEST_TIMED_OUT.
    Needs a kraft.version-0 cluster of several voters, an election (a new epoch's leader: the
    first leader has committed before the run starts), then the upgrade at the new leader before
    a majority fetched in its epoch."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if (inp["type"] == "UpgradeKRaftVersion" and self.role == "leader" and self.high_watermark is None
                and self.control.kraft_version() < 1
                and (not self.upgrade_voters or not all(ok for _, ok in self.upgrade_voters.values()))):
            # the slip: readiness before "has the epoch committed"
            return self.reject("upgrade", inp.get("replica", self.id), "INVALID_UPDATE_VERSION")
        return super().reconfigure(inp)


class AutoJoinReadsCommittedSet(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN with VOTERS-RULE-EFFECT-ON-APPEND ("whose own replica key is not in the
    voter set in force": the set at its log end, Kafka's ``partitionState.lastVoterSet()``): the
    auto-joining replica asks whether it is a voter of the set at its high watermark ("only a
    committed membership is a membership"). So right after it fetched the VotersRecord adding it
    (uncommitted in its log until the next fetch brings the high watermark) its period sends
    AddVoter again, and right after it fetched a VotersRecord removing it (the same) it sends
    nothing. Needs the auto-join configuration, a VotersRecord adding or removing that replica
    fetched by it, and its update-voter-set timer before its next fetch."""

    def committed_voters(self) -> VoterSet:
        hw = self.high_watermark
        found = ControlRecords.value_at(self.control.voter_history, hw - 1) if hw else None
        return self.voter_set if found is None else found

    def on_update_voter_set_due(self) -> None:
        committed = self.committed_voters()  # the slip: the committed set, not the one at the log end
        if not (self.auto_join and self.role == "follower" and self.control.kraft_version() >= 1
                and (self.id, self.directory) not in committed) or self.leader is None:
            return
        old = sorted(d for r, d in committed if r == self.id)
        if old:
            self.send("RemoveVoterRequest", self.leader, replica=self.id, directory=old[0])
        else:
            self.send("AddVoterRequest", self.leader, replica=self.id, directory=self.directory)


class LapseEndsOnStaleAnswer(VoterReplica):
    """VOTERS-RULE-OBSERVER-FETCH-TIMEOUT ("the lapse ends when an answer to its Fetch, *in its
    epoch*, names its leader"): the observer compares the answer's leader id with its own leader
    and not the answer's epoch, so a late answer of an older epoch that names the same replica (a
    replica that led that epoch too, or a bootstrap server still in the older epoch whose leader
    was that replica) ends the lapse, and the observer fetches its leader directly again before
    anyone of its epoch confirmed it. Needs an observer that follows a leader that led twice (or a
    bootstrap server behind by an epoch that names it), its fetch timer, then the stale answer
    delivered before a current one."""

    def _still_lapsed(self, following: tuple[str, int, int | None], inp: dict[str, Any]) -> bool:
        if (self.role, self.epoch, self.leader) != following or self.is_voter:
            return False
        if inp["type"] != "FetchResponse":
            return True
        if inp["src"] == self.leader and inp["error"] == "NONE" and inp["epoch"] == self.epoch:
            return False
        return not (self.rediscovers_leader and inp.get("leader") == self.leader)  # the slip: any epoch


class RemovedLeaderPrevotesOnRejoin(VoterReplica):
    """VOTERS-RULE-REMOVED-LEADER-TIMER under KIP-996: a resigned leader outside its voter set
    becomes unattached in epoch + 1 on its election timer, an observer. The implementer follows
    Kafka 4.0's ``pollResigned`` for every resigned replica ("unattached in epoch + 1, which
    inherits the expired timer, so the pre-vote starts now") and checks voter membership only in
    the ordinary unattached path, so a removed leader with pre-vote on goes on to a prospective
    and sends pre-votes to the voters of a set it is not in. Needs the pre-vote configuration, a
    leader's RemoveVoter of itself committed (it resigns), then its election timer."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and not self.is_voter and self.pre_vote:
            self.become_unattached(self.epoch + 1)
            self.persist()
            self.start_election()  # the slip: the inherited timer, no voter check
            return
        super().on_ElectionTimeout(inp)


# ---------------------------------------------------------------------------- log-level bugs


class HistorySkipsRepeatedSet(ControlRecords):
    """VOTERS-CTRL-APPEND ("adding each KRaftVersionRecord and VotersRecord at its own offset")
    and VOTERS-HIST-ADD-ORDER: the reader skips a VotersRecord from the log whose set equals the
    last one read from the log ("nothing changed"), so the history keeps the older offset: the
    answers stay the same set, but the history differs, and a truncation between the two offsets
    or a snapshot trim sees another entry. (The bootstrap entry at -1 is compared with nothing:
    the first leader's copy of it is added.) Needs two VotersRecords with the same set one after
    the other (an accepted UpdateVoter writes one at the replica level; the log level's free log
    must write the set in force again)."""

    def add_voters(self, offset: int, voters: VoterSet) -> None:
        if self.voter_history and self.voter_history[-1][0] >= 0 and self.voter_history[-1][1] == voters:
            return  # the slip: a repeated set is no change
        super().add_voters(offset, voters)


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "update-in-memory-after-upgrade": UpdateInMemoryAfterUpgrade,
    "upgrade-map-lacks-leader": UpgradeMapLacksLeader,
    "upgrade-readiness-before-hw": UpgradeReadinessBeforeHw,
    "auto-join-reads-committed-set": AutoJoinReadsCommittedSet,
    "lapse-ends-on-stale-answer": LapseEndsOnStaleAnswer,
    "removed-leader-prevotes-on-rejoin": RemovedLeaderPrevotesOnRejoin,
}
LOG_BUGS: dict[str, type[ControlRecords]] = {
    "history-skips-repeated-set": HistorySkipsRepeatedSet,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
