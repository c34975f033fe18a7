"""The mutant catalogue: deliberately wrong targets, each one known bug class.

Every mutant subclasses a reference target and overrides one method with one bug; the
conformance suite must catch each within its default budget, and its counterexample must
replay to the same divergence (``tests/conformance``, ``bench/conformance_bench.py``).

The lockstep runs abstract time into timer events (``BackoffExpired`` means "the backoff
elapsed", whatever its length), so an election backoff without jitter conforms step for step;
the raft liveness mutants (``mutants_liveness.py``: no jitter, a saturating backoff, a timer
never scheduled) are caught by the timed suffix of ``conformance/drivers/raft_liveness.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kspec.conformance.adapters.base import Target
from kspec.conformance.targets import mm2_policies as mm2
from kspec.conformance.targets import streams_routers as streams
from kspec.conformance.targets.mutants_liveness import (
    LIVENESS_MUTANTS,
    SHARE_LIVENESS_MUTANTS,
    VOTERS_LIVENESS_MUTANTS,
)
from kspec.conformance.targets.mutants_raft import RAFT_MUTANTS
from kspec.conformance.targets.mutants_share import SHARE_MUTANTS
from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.share import NOT_SET, ShareShard
from kspec.conformance.targets.reference.voters import ControlRecords, VoterReplica, VoterSet, _entry, _ids

# ------------------------------------------------------------------------------ raft


class NeverResigns(RaftReplica):
    """A leader that never resigns when a majority stops fetching (no check-quorum)."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        pass


class SingleVoterResigns(RaftReplica):
    """Check-quorum counts only the followers that fetched, not the leader itself: a
    single-voter leader (and any leader with exactly a majority fetching) resigns."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and self.renewed:
            self.renewed = False  # a renewed period (RAFT-RULE-CHECK-QUORUM-PERIOD): as the reference
        elif self.role == "leader" and not self.majority(self.fetched):
            self.resign()


class CheckQuorumCountsLeaderTwice(RaftReplica):
    """Check-quorum counts the leader twice (a port that adds the leader to a majority whose
    size already left it out: Kafka's ``updateCheckQuorumForFollowingVoter`` lowers the
    majority by one for the leader instead): with four or five voters, a leader that one voter
    fetched from thinks a majority did and stays leader when its timer expires
    (RAFT-STEP-CHECK-QUORUM; with three voters the leader alone already counts as two)."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        heard = len((self.fetched | {self.id}) & set(self.voters)) + 1
        if self.role == "leader" and self.renewed:
            self.renewed = False  # a renewed period (RAFT-RULE-CHECK-QUORUM-PERIOD): as the reference
        elif self.role == "leader" and heard < len(self.voters) // 2 + 1:
            self.resign()


class HwBeforeEpochCommit(RaftReplica):
    """The leader exposes a high watermark before its epoch's LeaderChange record commits."""

    def update_high_watermark(self) -> None:
        majority = self.majority_offset()
        if self.high_watermark is None or majority > self.high_watermark:
            self.high_watermark = majority


class RestartVotesAgain(RaftReplica):
    """The vote is not read back on restart: a restarted voter may vote again in the same epoch."""

    def on_restart(self) -> None:
        if self.voted_for is not None and self.voted_for != self.id:
            self.voted_for = None
            self._written = self.election()
        super().on_restart()


class ObserverCandidate(RaftReplica):
    """A non-voter (observer) that stands for election when its timers expire."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if not self.is_voter and self.role in ("unattached", "follower"):
            self.become_candidate()
            return
        super().on_ElectionTimeout(inp)

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "follower":
            self.start_election()


class NoTruncate(RaftReplica):
    """A follower that ignores the diverging epoch in a fetch response and never truncates."""

    def truncate_to(self, div_epoch: int, div_end: int) -> None:
        pass


class VoteWithoutLogCheck(RaftReplica):
    """Votes are granted without checking that the candidate's log is at least as up to date."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        return super().grant_vote(req, True)


class VoteTwice(RaftReplica):
    """A voter that already voted in an epoch grants a second candidate too."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if self.role == "voted" and self.voted_for != req["src"] and up_to_date and req["src"] in self.voters:
            self.become_voted(req["epoch"], req["src"])
            return True
        return super().grant_vote(req, up_to_date)


class BeginEpochNeedsHigherEpoch(RaftReplica):
    """A replica follows a BeginQuorumEpoch only when it names a higher epoch, so the voters
    that elected the leader (already in its epoch) never learn they should follow it."""

    def on_BeginQuorumEpochRequest(self, req: dict[str, Any]) -> None:
        if req["epoch"] == self.epoch:
            self.send("BeginQuorumEpochResponse", req["src"], epoch=self.epoch, leader=self.leader, error="NONE")
            return
        super().on_BeginQuorumEpochRequest(req)


class PreVoteChangesState(RaftReplica):
    """A pre-vote request is handled like a real vote: the receiver moves to the epoch the
    prospective would stand in and grants its vote (KIP-996 says a pre-vote changes nothing)."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        if req.get("pre_vote") and req["epoch"] >= self.epoch and self.role in ("unattached", "voted", "candidate"):
            vote = dict(req, epoch=req["epoch"] + 1)
            self.become_unattached(vote["epoch"])
            granted = self.grant_vote(vote, self.log_is_up_to_date(req["last_epoch"], req["end_offset"]))
            self.persist()
            self.send("VoteResponse", req["src"], epoch=req["epoch"], granted=granted, leader=None,
                      pre_vote=True, error="NONE")
            return
        super().on_VoteRequest(req)


class SilentResign(RaftReplica):
    """A leader that resigns without telling the voters (no EndQuorumEpoch)."""

    def resign(self) -> None:
        self._reset_role_state()
        self.role = "resigned"


# ------------------------------------------------------------------------------ share


class NewBatchesOnly(ShareShard):
    """Seed 004: the snapshot after the update limit keeps only the write's batches when the
    start offset moves, losing the delivery state of untouched offsets."""

    def limit_snapshot(self, key: Any, current: dict[str, Any], leader_epoch: int, state_epoch: int,
                       start_offset: int, batches: list[list[int]], count: int = NOT_SET) -> dict[str, Any]:
        if start_offset == NOT_SET:
            return super().limit_snapshot(key, current, leader_epoch, state_epoch, start_offset, batches, count)
        leader = current["leader_epoch"] if leader_epoch == NOT_SET else leader_epoch
        st_epoch = current["state_epoch"] if state_epoch == NOT_SET else state_epoch
        return self.snapshot(key, current["snapshot_epoch"] + 1, st_epoch, leader, start_offset,
                             self.combine(start_offset, [], batches), count)


class UpdateDropsStateEpoch(ShareShard):
    """Initialize of a known key writes a ShareUpdate, which has no state epoch: the new state
    epoch is lost."""

    def initialize_record(self, key: Any, req: dict[str, Any]) -> dict[str, Any]:
        current = self.offsets.get(key)
        if current is None:
            return super().initialize_record(key, req)
        return self.update(key, current["snapshot_epoch"], NOT_SET, req["start_offset"], [])


class ReadEpochNotPersisted(ShareShard):
    """A read carrying a higher leader epoch is answered but the epoch is not written, so the
    previous leader's writes are not fenced."""

    def read_records(self, key: Any, req: dict[str, Any], response: dict[str, Any],
                     stored_leader: int | None) -> list[Any]:
        return []


def _lower_count_wins(start_offset: int, current: list[list[int]], new: list[list[int]]) -> list[list[int]]:
    best: dict[int, tuple[int, int]] = {}
    for first, last, state, count in [*current, *new]:
        for o in range(max(first, start_offset) if start_offset != NOT_SET else first, last + 1):
            if o not in best or (count, state) < best[o]:
                best[o] = (count, state)
    out: list[list[int]] = []
    for o in sorted(best):
        count, state = best[o]
        if out and out[-1][1] == o - 1 and out[-1][2:] == [state, count]:
            out[-1][1] = o
        else:
            out.append([o, o, state, count])
    return out


class LowerCountWins(ShareShard):
    """The batch combiner lets the lower delivery count win where batches overlap."""

    combine = staticmethod(_lower_count_wins)


class UnfencedLeader(ShareShard):
    """A write from an older leader epoch is not fenced."""

    def write_fenced(self, key: Any, req: dict[str, Any]) -> tuple[str, str] | None:
        return super().write_fenced(key, {**req, "leader_epoch": NOT_SET})


class LoadSkipsUpdates(ShareShard):
    """A shard loading the coordinator partition replays only ShareSnapshot records."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]:
        if inp.get("type") == "Load":
            inp = {**inp, "records": [r for r in inp["records"] if r.get("type") != "ShareUpdate"]}
        return super().step(inp)


# ------------------------------------------------------------------------------ voters (KIP-853)
# Replica level: subclasses of VoterReplica. Log level (the control-record state machine
# alone, what Kafka's KRaftControlRecordStateMachine is driven with): subclasses of ControlRecords.


class HistoryNotTruncated(VoterReplica):
    """A diverging-epoch truncation leaves the truncated VotersRecords in the voter-set history
    (VOTERS-CTRL-TRUNCATE skipped)."""

    def follow_log(self, outputs: list[dict[str, Any]]) -> None:
        for out in outputs:
            if out["type"] == "TruncateLog":
                del self.control.records[out["offset"]:]
                self.control.next_offset = out["offset"]
            else:
                super().follow_log([out])


class AddVoterWithoutEndpoint(VoterReplica):
    """The leader takes an AddVoter whose listeners have no endpoint for the cluster's listener
    as if it had one (VOTERS-RULE-ADD-ENDPOINT missing: a voter nobody can reach)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        super().reconfigure({**inp, "endpoint": True})


class AddVoterWithoutKey(VoterReplica):
    """The leader hands an AddVoter or RemoveVoter to its handlers without checking that it
    names a replica key (VOTERS-RULE-KEY-VALID missing): a negative id or a missing directory
    id is answered as if it were a key (not caught up, not a voter) instead of INVALID_REQUEST."""

    @staticmethod
    def valid_key(inp: dict[str, Any]) -> bool:
        return True


class RemoveByDirectory(VoterReplica):
    """The leader's RemoveVoter finds the voter by its directory id alone (VOTERS-KEY: a replica
    key is the id *and* the directory): a request pairing a voter's id with another voter's
    directory removes that other voter instead of answering VOTER_NOT_FOUND (red team, session
    18)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "RemoveVoter" and inp["directory"] != -1:
            found = [r for r, d in self.control.voters_now() if d == inp["directory"]]
            if found:
                inp = {**inp, "replica": found[0]}
        super().reconfigure(inp)


class TwoChangesInFlight(VoterReplica):
    """The leader accepts an AddVoter or RemoveVoter while the previous VotersRecord is still
    uncommitted (VOTERS-RULE-ONE-CHANGE missing)."""

    def change_pending(self) -> bool:
        return not self.control.voter_history


class ChangeOnCommit(VoterReplica):
    """A replica switches to a new voter set only once its VotersRecord commits, not when it is
    appended (VOTERS-RULE-EFFECT-ON-APPEND broken)."""

    def current_voters(self) -> VoterSet:
        hw = self.high_watermark or 0
        committed = [v for o, v in self.control.voter_history if o < hw]
        return committed[-1] if committed else self.control.static


class SnapshotWithoutVoters(VoterReplica):
    """A snapshot leaves out the VotersRecord in force at its last offset (VOTERS-SNAP-CONTENT)."""

    def snapshot(self) -> None:
        super().snapshot()
        if self.out and self.out[-1]["type"] == "SnapshotWritten":
            assert self.control.snapshot is not None
            self.control.snapshot["voters"] = None
            self.out[-1] = {"type": "SnapshotWritten", "snapshot": self.control.snapshot_json()}


class AddedVoterStateFresh(VoterReplica):
    """When its voter set grows, the leader starts the added voter's replica state afresh (no log
    end known) instead of carrying over the state it kept of that replica as an observer (Kafka's
    ``LeaderState.updateVoterAndObserverStates``): the added voter counts toward the high
    watermark, and shows in DescribeQuorum, only from its next fetch (VOTERS-DRIVE-DESCRIBE)."""

    def use_voters(self, voters: VoterSet) -> None:
        if self.role == "leader":
            for r in _ids(voters):
                if r not in self.voters:
                    self.end_offsets.pop(r, None)
        super().use_voters(voters)


class RemovedLeaderStays(VoterReplica):
    """A leader that removed itself keeps leading after the removal commits
    (VOTERS-RULE-REMOVED-LEADER missing)."""

    def resign_if_removed(self) -> None:
        pass


class RemovedLeaderStaysResigned(VoterReplica):
    """A leader that removed itself and resigned ignores its election timer, as a voter-only
    rule would (a non-voter never stands): it never asks for the next leader
    (VOTERS-RULE-REMOVED-LEADER-TIMER missing)."""

    def on_ElectionTimeout(self, inp: dict[str, Any]) -> None:
        if self.role == "resigned" and not self.is_voter:
            return
        super().on_ElectionTimeout(inp)


class UpgradeSupportLatched(VoterReplica):
    """A kraft.version-0 leader latches a voter's support for kraft.version 1 once reported: a
    later UpdateVoter of the same voter in the epoch with the range [0, 0] does not withdraw it,
    so the upgrade is written where it must be refused (VOTERS-RULE-UPGRADE-VOTERS: the voter's
    latest report counts; red team, session 18)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        before = self.upgrade_voters.get(inp["replica"])
        super().update_voter(inp)
        after = self.upgrade_voters.get(inp["replica"])
        if before is not None and after is not None and before[1] and not after[1]:
            self.upgrade_voters[inp["replica"]] = (after[0], True)


class UpgradeWithoutVoters(VoterReplica):
    """The kraft.version upgrade does not wait for the voters: a kraft.version-0 leader writes
    KRaftVersionRecord(1) and its static voters (each under its host's directory) before every
    voter has said, by UpdateVoter, that it supports kraft.version 1 (VOTERS-RULE-UPGRADE-VOTERS
    missing: a voter that cannot read the records would be cut off)."""

    def reconfigure(self, inp: dict[str, Any]) -> None:
        if inp["type"] == "UpgradeKRaftVersion" and self.role == "leader" and self.upgrade_voters:
            self.upgrade_voters = {v: (v, True) for v in self.upgrade_voters}
        super().reconfigure(inp)


class FirstLeaderSkipsVoters(VoterReplica):
    """A leader whose voter set came from the bootstrap checkpoint writes only its LeaderChange,
    not the KRaftVersionRecord and VotersRecord (VOTERS-RULE-FIRST-LEADER missing)."""

    def become_leader(self) -> None:
        RaftReplica.become_leader(self)


class VoterOnlyVotes(VoterReplica):
    """Only voters vote, and only for voters (KIP-595's rule kept under KIP-853; breaks
    VOTERS-RULE-OPEN-VOTE): a replica outside its own voter set, or asked by a candidate outside
    it, refuses the vote."""

    def may_vote(self, candidate: int) -> bool:
        return self.is_voter and candidate in self.voters


class RestartDropsOutsiderVote(VoterReplica):
    """A restarted replica outside its own voter set forgets the vote it persisted: it comes back
    unattached, free to vote again in that epoch (VOTERS-RULE-OPEN-VOTE broken on the restart
    path: Kafka before KIP-853 refused such a quorum-state file, "a voted candidate ... indicates
    this node was previously a voter"; red team, session 16)."""

    def on_restart(self) -> None:
        super().on_restart()
        if self.role == "voted" and not self.is_voter:
            self.role, self.voted_for = "unattached", None
            self._written = self.election()


class VotedObserverStopsFetching(VoterReplica):
    """An observer that voted stops looking for the leader ("it waits for the election it voted
    in"): its fetch timer sends nothing, where an observer without a leader, voted or not, asks a
    bootstrap server (VOTERS-RULE-OBSERVER-BOOTSTRAP; red team, session 16)."""

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        if self.role == "voted" and not self.is_voter:
            return
        super().on_FetchDue(inp)


class RestartFollowsUnreachableLeader(VoterReplica):
    """A restarted replica follows its persisted leader even when that leader is outside its
    voter set, whose endpoint it cannot know (VOTERS-RULE-LEADER-UNREACHABLE broken)."""

    def on_restart(self) -> None:
        voters = self.voters
        epoch, _, leader = self.election()
        if leader is not None and leader != self.id and epoch >= self.last_epoch:
            self.voters = sorted({*voters, leader})  # as if the leader's endpoint were known
        try:
            super().on_restart()
        finally:
            self.voters = voters


class ObserverFetchesVoter(VoterReplica):
    """An observer that knows no leader fetches from a voter of the set in force, not from a
    bootstrap server (VOTERS-RULE-OBSERVER-BOOTSTRAP broken: the static quorum's rule, where the
    two lists are the same, kept under KIP-853). After AddVoter it asks a voter that is not in
    ``controller.quorum.bootstrap.servers``; after RemoveVoter it no longer asks a bootstrap
    server that left the set."""

    def on_FetchDue(self, inp: dict[str, Any]) -> None:
        RaftReplica.on_FetchDue(self, inp)


class ObserverStuckOnBootstrap(VoterReplica):
    """An observer whose fetch timer lapsed keeps asking bootstrap servers after one of them
    names its leader; only the leader's own answer ends the lapse (VOTERS-RULE-OBSERVER-FETCH-
    TIMEOUT broken: Kafka 3.9.0-4.1.2, KAFKA-19354, spec/voters.md K7)."""

    rediscovers_leader = False


class AutoJoinAsVoter(VoterReplica):
    """Auto-join without the membership check: a follower that already is a voter also asks its
    leader to add it when its update-voter-set period expires (VOTERS-RULE-AUTO-JOIN: only a
    replica whose key is not in the voter set in force sends; the leader answers
    DUPLICATE_VOTER)."""

    def joins(self) -> bool:
        return (self.auto_join and self.role == "follower" and self.control.kraft_version() >= 1)


class UpdateIgnoresDirectory(VoterReplica):
    """UpdateVoter finds the voter by id alone and writes the request's replica key: a request
    naming a voter under another directory id replaces the voter's directory (VOTERS-RULE-UPDATE:
    Kafka's VoterSet.updateVoter needs the same id and directory, else VOTER_NOT_FOUND)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        if self.role == "leader" and inp["epoch"] == self.epoch and not self.change_pending():
            current = self.control.voters_now()
            for rid, directory in current:
                if rid == inp["replica"] and directory != inp["directory"] and inp["directory"] >= 0:
                    new = (current - {(rid, directory)}) | {(rid, inp["directory"])}
                    self.leader_append([_entry(self.epoch, "voters", [x for k in sorted(new) for x in k])])
                    return
        super().update_voter(inp)


class DirectoryZeroIsNone(VoterReplica):
    """Directory id 0 taken for "no directory" (Kafka's ``Uuid.ZERO_UUID``; the adapter protocol's
    none is -1): AddVoter / RemoveVoter / UpdateVoter naming directory 0 are answered
    INVALID_REQUEST (VOTERS-RULE-KEY-VALID) where the leader's handlers answer
    (VOTERS-DRIVE-ODD-KEY-PROBE)."""

    @staticmethod
    def valid_key(inp: dict[str, Any]) -> bool:
        return bool(inp["replica"] >= 0 and inp["directory"] not in (-1, 0))


class UpdateFoundBeforeRange(VoterReplica):
    """UpdateVoter looks the voter up (VOTER_NOT_FOUND) before it checks the supported range
    against the finalized kraft.version (INVALID_REQUEST): VOTERS-RULE-UPDATE's checks 8 and 9 in
    the wrong order, seen only on a request that fails both (VOTERS-DRIVE-ODD-KEY-PROBE)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        low, high = inp.get("min_version", 0), inp.get("max_version", 1)
        if (inp["epoch"] == self.epoch and self.role == "leader" and self.valid_key(inp)
                and inp.get("listeners", "default") not in ("other", "none") and 0 <= low <= high
                and self.high_watermark is not None and self.control.kraft_version() >= 1
                and not self.change_pending()
                and (inp["replica"], inp["directory"]) not in self.control.voters_now()):
            return self.reject("update_voter", inp["replica"], "VOTER_NOT_FOUND")
        return super().update_voter(inp)


class UpdateSkipsEpochCheck(VoterReplica):
    """UpdateVoter's leader epoch is not checked (validateLeaderOnlyRequest left out): a leader
    takes a request for a stale or a future epoch, and any other replica answers
    NOT_LEADER_OR_FOLLOWER instead of FENCED_LEADER_EPOCH or UNKNOWN_LEADER_EPOCH
    (VOTERS-RULE-UPDATE-INPUT)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        super().update_voter({**inp, "epoch": self.epoch})


class UpdateWhilePending(VoterReplica):
    """UpdateVoter does not wait for an uncommitted VotersRecord (an update taken as harmless
    because it changes no majority): it writes a second uncommitted VotersRecord
    (VOTERS-RULE-UPDATE, VOTERS-RULE-ONE-CHANGE)."""

    def update_voter(self, inp: dict[str, Any]) -> None:
        pending = self.change_pending
        self.change_pending = lambda: False  # type: ignore[method-assign]
        try:
            super().update_voter(inp)
        finally:
            self.change_pending = pending  # type: ignore[method-assign]


class TruncateKeepsEntryAtEnd(ControlRecords):
    """Log level: a truncation to offset N keeps the history entry at N (off by one: only the
    entries after N go; VOTERS-HIST-TRUNCATE-NEW)."""

    def truncate(self, offset: int) -> None:
        kept = [(o, v) for o, v in self.voter_history if o <= offset]
        super().truncate(offset)
        if kept and kept[-1][0] == offset:
            self.voter_history.append(kept[-1])


class TrimDropsLast(ControlRecords):
    """Log level: trimming the history to a snapshot drops every entry at or before its last
    offset, the one still in force too (VOTERS-HIST-TRUNCATE-OLD)."""

    @staticmethod
    def trim(history: list[tuple[int, Any]], last: int) -> list[tuple[int, Any]]:
        return [e for e in history if e[0] > last]


class TrimSkipsVersionHistory(ControlRecords):
    """Log level: a snapshot trims the voter-set history but not the kraft.version history
    (VOTERS-CTRL-TRIM trims both), so a read below the snapshot's floor answers an older
    KRaftVersionRecord where none is kept (red team, session 18)."""

    def take_snapshot(self, end_offset: int) -> dict[str, Any]:
        versions = list(self.version_history)
        snapshot = super().take_snapshot(end_offset)
        self.version_history = versions
        return snapshot


class RestartIgnoresSnapshot(ControlRecords):
    """Log level: on restart the control state is rebuilt from the log alone, without the latest
    snapshot (or the bootstrap checkpoint) it starts from (VOTERS-CTRL-REBUILD)."""

    def restart(self) -> None:
        snapshot, self.snapshot = self.snapshot, None
        try:
            self.rebuild()
        finally:
            self.snapshot = snapshot


class ElectionCountsCommittedSet(VoterReplica):
    """A candidate (or prospective) counts its votes over the voter set before an uncommitted
    VotersRecord at its log end, not over the set that record puts in force
    (VOTERS-RULE-EFFECT-ON-APPEND: elections use the set at the log end, committed or not)."""

    def majority(self, members: set[int]) -> bool:
        history, hw = self.control.voter_history, self.high_watermark
        if self.role in ("candidate", "prospective") and hw is not None and len(history) > 1 \
                and history[-1][0] >= hw:
            ids = set(_ids(history[-2][1]))
            return len(members & ids) >= len(ids) // 2 + 1
        return super().majority(members)


class BootstrapWrittenOnce(VoterReplica):
    """The replica writes the bootstrap checkpoint's KRaftVersionRecord and VotersRecord at its
    first leadership only (a flag of the process), not at every leadership whose voter set is
    still the checkpoint's (VOTERS-RULE-FIRST-LEADER: a leader that finds them truncated away
    writes them again)."""

    bootstrap_written = False

    def become_leader(self) -> None:
        if self.bootstrap_written:
            RaftReplica.become_leader(self)
            return
        start = self.end_offset
        super().become_leader()
        self.bootstrap_written = self.end_offset > start + 1


# ------------------------------------------------------------------------------ the catalogue


@dataclass(frozen=True)
class Mutant:
    """One catalogue entry."""

    name: str
    protocol: str
    cls: type
    bug_class: str
    # False for a mutant the default budget does not reliably catch (see ``note``).
    default_budget: bool = True
    note: str = ""

    @property
    def doc(self) -> str:
        return " ".join((self.cls.__doc__ or "").split())

    def target(self) -> Target:
        """The target running the mutated class, as its protocol wraps one (conformance/protocols.py:
        ``mutant_target``); an unknown protocol is an error, never another protocol's target."""
        from kspec.conformance import protocols

        return protocols.get(self.protocol).target_of_mutant(f"mutant:{self.name}", self.cls)


CATALOGUE: dict[str, Mutant] = {m.name: m for m in (
    Mutant("raft-never-resigns", "raft", NeverResigns, "missing check-quorum"),
    Mutant("raft-single-voter-resigns", "raft", SingleVoterResigns, "quorum arithmetic leaves out self"),
    Mutant("raft-check-quorum-counts-leader-twice", "raft", CheckQuorumCountsLeaderTwice,
           "quorum arithmetic counts self twice"),
    Mutant("raft-hw-before-epoch-commit", "raft", HwBeforeEpochCommit, "commit rule without the epoch guard"),
    Mutant("raft-restart-votes-again", "raft", RestartVotesAgain, "volatile state that must be persisted"),
    Mutant("raft-observer-candidate", "raft", ObserverCandidate, "role confusion (non-voter acts as voter)"),
    Mutant("raft-no-truncate", "raft", NoTruncate, "log divergence not repaired",
           note="needs about 11 steps in one order (two leaders, an uncommitted append, a fetch with a "
                "diverging epoch): the raft driver's fault-free runs reach it"),
    Mutant("raft-vote-without-log-check", "raft", VoteWithoutLogCheck, "vote granting without the log check"),
    Mutant("raft-vote-twice", "raft", VoteTwice, "two votes in one epoch"),
    Mutant("raft-begin-epoch-needs-higher-epoch", "raft", BeginEpochNeedsHigherEpoch,
           "equal-epoch case of a cross-role rule missed"),
    Mutant("raft-pre-vote-changes-state", "raft", PreVoteChangesState, "pre-vote treated as a vote (KIP-996)"),
    Mutant("raft-silent-resign", "raft", SilentResign, "missing notification message"),
    *(Mutant(name, "raft", cls, bug, default_budget=caught, note=note)
      for name, cls, bug, caught, note in RAFT_MUTANTS + LIVENESS_MUTANTS),
    Mutant("share-new-batches-only", "share", NewBatchesOnly, "state lost on snapshot (seed 004)"),
    Mutant("share-update-drops-state-epoch", "share", UpdateDropsStateEpoch, "field missing from a record type"),
    Mutant("share-read-epoch-not-persisted", "share", ReadEpochNotPersisted, "fence not persisted"),
    Mutant("share-lower-count-wins", "share", LowerCountWins, "inverted merge priority"),
    Mutant("share-unfenced-leader", "share", UnfencedLeader, "missing epoch fence"),
    Mutant("share-load-skips-updates", "share", LoadSkipsUpdates, "replay differs from the handlers"),
    *(Mutant(name, "share", cls, bug) for name, cls, bug in SHARE_MUTANTS + SHARE_LIVENESS_MUTANTS),
    # mm2: user ReplicationPolicy classes (conformance/targets/mm2_policies.py, spec/mm2.md §5).
    Mutant("mm2-upstream-self", "mm2", mm2.UpstreamSelfPolicy, "inverse function returns its argument"),
    Mutant("mm2-internal-replicable", "mm2", mm2.InternalReplicablePolicy, "internal topics not recognised"),
    Mutant("mm2-dotted-alias", "mm2", mm2.DottedAliasPolicy, "parser hard-codes a delimiter"),
    Mutant("mm2-hardcoded-separator", "mm2", mm2.HardcodedSeparatorPolicy, "configuration ignored on one path"),
    Mutant("mm2-last-separator", "mm2", mm2.LastSeparatorPolicy, "split at the wrong occurrence"),
    Mutant("mm2-internal-names-ignore-separator", "mm2", mm2.InternalNamesIgnoreSeparatorPolicy,
           "naming and recognising disagree"),
    Mutant("mm2-connect-names-internal", "mm2", mm2.ConnectNamesInternalPolicy,
           "rule of an older release kept (KAFKA-17200)"),
    # streams: interactive-query routers (conformance/targets/streams_routers.py, spec/streams.md §4).
    Mutant("streams-ignore-partition-count", "streams", streams.IgnorePartitionCountRouter,
           "modulus taken over the wrong count"),
    Mutant("streams-abs-hash", "streams", streams.AbsHashRouter, "abs() of a hash (Integer.MIN_VALUE, sign)"),
    Mutant("streams-no-standbys", "streams", streams.NoStandbysRouter, "replicas left out of a lookup"),
    Mutant("streams-active-only-store-metadata", "streams", streams.ActiveOnlyStoreMetadataRouter,
           "two views of one state disagree"),
    Mutant("streams-available-before-assignment", "streams", streams.AvailableBeforeAssignmentRouter,
           "missing initialization check"),
    Mutant("streams-forgets-on-rebalance", "streams", streams.ForgetsOnRebalanceRouter,
           "state dropped during a reconfiguration"),
    Mutant("streams-drops-idle-members", "streams", streams.DropsIdleMembersRouter,
           "a member without work treated as absent"),
    Mutant("streams-one-standby", "streams", streams.OneStandbyRouter, "a set kept in a scalar"),
    Mutant("streams-modified-utf8-keys", "streams", streams.ModifiedUtf8KeysRouter,
           "a serializer's encoding outside the BMP (Java's modified UTF-8)"),
    Mutant("streams-trimmed-keys", "streams", streams.TrimmedKeysRouter, "input normalised before hashing"),
    Mutant("streams-standby-cache", "streams", streams.StandbyCacheRouter,
           "a cache invalidated by one of the two maps it depends on"),
    Mutant("streams-global-key-busy-host", "streams", streams.GlobalKeyBusyHostRouter,
           "a member without work treated as absent (one lookup)"),
    Mutant("streams-host-order-by-text", "streams", streams.HostOrderByTextRouter,
           "numbers compared as text"),
    Mutant("streams-store-metadata-cache", "streams", streams.StoreMetadataCacheRouter,
           "a cache invalidated by the members, not by what they hold"),
    Mutant("streams-standbys-by-host-name", "streams", streams.StandbysByHostNameRouter,
           "identity by one field of a composite key"),
    Mutant("streams-key-cache-from-rebalance-start", "streams", streams.KeyCacheFromRebalanceStartRouter,
           "a cache invalidated at the start of a change, refilled before its end"),
    Mutant("streams-partition-counts-merged", "streams", streams.PartitionCountsMergedRouter,
           "stale entries kept when a map is merged instead of replaced"),
    Mutant("voters-history-not-truncated", "voters", HistoryNotTruncated, "stale state kept across a truncation"),
    Mutant("voters-two-changes-in-flight", "voters", TwoChangesInFlight, "missing one-at-a-time guard"),
    Mutant("voters-change-on-commit", "voters", ChangeOnCommit, "configuration used from commit, not append"),
    Mutant("voters-snapshot-without-voters", "voters", SnapshotWithoutVoters, "field missing from a snapshot"),
    *(Mutant(name, "voters", cls, bug) for name, cls, bug in VOTERS_LIVENESS_MUTANTS),
    Mutant("voters-removed-leader-stays", "voters", RemovedLeaderStays, "missing step-down after self-removal",
           note="needs the leader's removal committed by the remaining voters: the driver's replicate "
                "macro (conformance/drivers/macros.py) does that in one step"),
    Mutant("voters-removed-leader-stays-resigned", "voters", RemovedLeaderStaysResigned,
           "rule of another role applied (a non-voter's timer ignored)",
           note="needs the leader's removal committed and its election timer fired before another "
                "message reaches it"),
    Mutant("voters-upgrade-without-voters", "voters", UpgradeWithoutVoters, "missing precondition check",
           note="needs a static quorum (kraft.version 0) whose leader is asked to upgrade"),
    Mutant("voters-added-voter-state-fresh", "voters", AddedVoterStateFresh,
           "state not carried across a reconfiguration",
           note="shows in DescribeQuorum at the leader after an AddVoter (VOTERS-DRIVE-DESCRIBE); before it, "
                "only in the high watermark of a two-voter set grown by a voter that fetched ahead"),
    Mutant("voters-first-leader-skips-voters", "voters", FirstLeaderSkipsVoters,
           "bootstrap configuration never written to the log"),
    Mutant("voters-add-voter-without-endpoint", "voters", AddVoterWithoutEndpoint, "missing input validation"),
    Mutant("voters-add-voter-without-key", "voters", AddVoterWithoutKey, "missing input validation"),
    Mutant("voters-remove-by-directory", "voters", RemoveByDirectory, "an identity matched on one of its two parts"),
    Mutant("voters-upgrade-support-latched", "voters", UpgradeSupportLatched, "a capability latched, not replaced"),
    Mutant("voters-voter-only-votes", "voters", VoterOnlyVotes, "rule of an older protocol version kept",
           default_budget=False,
           note="caught at seed 0 after 278 runs (about 5 minutes on the shared machine): a vote across voter "
                "sets needs a change replicated to some replicas and an election before the rest; the stored "
                "counterexample (tests/conformance/testdata/voters/voter-only-votes.itf.json) replays it"),
    Mutant("voters-restart-follows-unreachable-leader", "voters", RestartFollowsUnreachableLeader,
           "peer assumed reachable after a restart",
           note="needs a replica to restart while its leader is outside its voter set (a leader that removed "
                "itself, or a voter set truncated on a depose): VOTERS-DRIVE-UNREACHABLE-RESTART's, guided run 36 "
                "at seeds 0 and 1 (before it, random run 300 at seed 0 only)"),
    Mutant("voters-restart-drops-outsider-vote", "voters", RestartDropsOutsiderVote,
           "persisted state of a role the replica no longer has discarded on restart",
           note="needs a vote across voter sets and the voter's reboot in that epoch: "
                "VOTERS-DRIVE-OUTSIDER-VOTE-RESTART ends the guided paths whose budgets allow it with it"),
    Mutant("voters-voted-observer-stops-fetching", "voters", VotedObserverStopsFetching,
           "a waiting state that forgets its own timer",
           note="needs an observer that voted (VOTERS-DRIVE-OUTSIDER-VOTE-RESTART's last step)"),
    Mutant("voters-observer-fetches-voter", "voters", ObserverFetchesVoter,
           "configuration list confused with the live membership",
           note="needs an observer without a leader after a voter change (a restart, or an epoch learnt "
                "without its leader): the driver offers such an observer a Fetch to every host"),
    Mutant("voters-observer-stuck-on-bootstrap", "voters", ObserverStuckOnBootstrap,
           "leader hint ignored while a timer is expired"),
    Mutant("voters-auto-join-as-voter", "voters", AutoJoinAsVoter, "missing precondition check",
           note="needs the auto-join configuration (the last of the driver's) and a voter follower's "
                "update-voter-set timer (offered as an idle timer there)"),
    Mutant("voters-update-ignores-directory", "voters", UpdateIgnoresDirectory,
           "off-protocol input: a voter named with the wrong directory"),
    Mutant("voters-update-skips-epoch-check", "voters", UpdateSkipsEpochCheck, "missing epoch fence"),
    Mutant("voters-update-while-pending", "voters", UpdateWhilePending, "missing one-at-a-time guard"),
    Mutant("voters-directory-zero-is-none", "voters", DirectoryZeroIsNone,
           "a sentinel of another encoding (Uuid.ZERO_UUID) read into a valid value"),
    Mutant("voters-update-found-before-range", "voters", UpdateFoundBeforeRange,
           "validations in the wrong order"),
    Mutant("voters-log-truncate-keeps-entry-at-end", "voters", TruncateKeepsEntryAtEnd,
           "off-by-one in a truncation bound",
           note="needs a VotersRecord truncated away (a leader change before it replicates): the driver's "
                "depose macro (conformance/drivers/macros.py) does that in one step"),
    Mutant("voters-log-trim-drops-last", "voters", TrimDropsLast, "compaction drops the value still in force"),
    Mutant("voters-log-trim-skips-version-history", "voters", TrimSkipsVersionHistory,
           "compaction applied to one of two histories"),
    Mutant("voters-log-restart-ignores-snapshot", "voters", RestartIgnoresSnapshot,
           "recovery reads the log but not the snapshot"),
    Mutant("voters-election-counts-committed-set", "voters", ElectionCountsCommittedSet,
           "configuration used from commit, not append (one role's tally)",
           note="needs a voter that appended an uncommitted AddVoter's record to stand and get a grant: "
                "VOTERS-DRIVE-UNCOMMITTED-SET-ELECTION ends the kip-595 guided paths with it"),
    Mutant("voters-bootstrap-written-once", "voters", BootstrapWrittenOnce,
           "a once-per-process flag where the rule reads the log",
           note="needs the first leader's bootstrap records truncated away and that replica leading again: "
                "VOTERS-DRIVE-FIRST-LEADER-AGAIN's start path (the start-up commits them in every other run)"),
)}

# The search-power mutants (issue #19): deep runs, output order, off-protocol inputs, rare
# vocabulary, the listener contract.
from kspec.conformance.targets.mutants_power import ENTRIES as _POWER  # noqa: E402
from kspec.conformance.targets.mutants_power import RAFT_ENTRIES as _POWER_RAFT  # noqa: E402

CATALOGUE.update({n: Mutant(n, p, c, b) for n, p, c, b in _POWER})
CATALOGUE.update({n: Mutant(n, "raft", c, b, default_budget=caught, note=note)
                  for n, c, b, caught, note in _POWER_RAFT})

# The voters and share drivers' probe mutants (session 15, issue #17/#18): one per probe, each
# entry's note names its probe (mutants_probes.py; bench/voters_probe_mutants.py,
# bench/share_probe_mutants.py).
from kspec.conformance.targets.mutants_probes import ENTRIES as _PROBES  # noqa: E402

CATALOGUE.update({n: Mutant(n, p, c, b, default_budget=caught, note=note) for n, p, c, b, caught, note in _PROBES})

# The disk-replacement mutants (session 18, issue #18): caught by VOTERS-DRIVE-DISK-REPLACED's start
# probes only (mutants_disk.py).
from kspec.conformance.targets.mutants_disk import ENTRIES as _DISK  # noqa: E402

CATALOGUE.update({n: Mutant(n, p, c, b, default_budget=caught, note=note) for n, p, c, b, caught, note in _DISK})

NOT_IN_CATALOGUE: dict[str, str] = {}


def catalogue() -> dict[str, Mutant]:
    """The built-in catalogue and the mutants the registered protocols bring
    (conformance/protocols.py: ``mutants``); a name taken twice is an error."""
    from kspec.conformance import protocols

    found = dict(CATALOGUE)
    for p in protocols.protocols():
        for m in p.extra_mutants():
            if m.name in found:
                raise ValueError(f"mutant {m.name!r} of protocol {p.name!r} is already in the catalogue")
            if m.protocol != p.name:
                raise ValueError(f"mutant {m.name!r} brought by protocol {p.name!r} says it is a {m.protocol} mutant")
            found[m.name] = m
    return found
