"""KRaft voter-set (KIP-853) bugs, session 24's blind round ("blindvoters").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`), written from README.md,
CONTRIBUTING.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, spec/adapter-protocol.md,
KIP-853 and the reference target alone (no driver, model or mutant catalogue read before the
first measurement; the earlier voters modules read for their bug names only). They aim at slips
of Kafka's own handlers (AddVoterHandler, RemoveVoterHandler, UpdateVoterHandler, LeaderState,
QuorumState): the "epoch committed" check read from the log's high watermark instead of the
leader state's, a pending change kept in the client instead of the leader state (so it outlives
the leadership whose record was truncated), a voter/observer role latched when the replica
started following, a replaced disk's auto-join AddVoter naming the host's first directory, a
Vote's key compared with the host id, and a "caught up" flag set at a fetch that later appends
do not clear.

BEFORE (committed before any kspec change; ``redteam_power.py --seeds 2``, a machine at load
25-31 on 2 cores, where the guard's per-call time limit fired in some runs: "error"): caught at
seeds 0 and 1: vote-key-checked-against-host-id (run 4), add-caught-up-at-last-fetch (8),
auto-join-adds-host-directory (27), voter-role-latched-at-epoch (1); reconfig-before-epoch-commit-
by-log-hw caught at one seed (run 261), the other an error (time limit), and re-run per seed (no
kspec change in between): runs 261 and 180; pending-change-kept-across-leaderships escaped one
seed, the other an error, and re-run per seed: escaped at seeds 0 and 1 (not reached: no run
truncates a leader's uncommitted VotersRecord and lets that replica lead again). No AFTER: no
kspec change this session (see /work/wt/R24-blindvoters.md).

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch15:Correct
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from kspec.conformance.targets.reference.raft import RaftReplica
from kspec.conformance.targets.reference.voters import VoterReplica
from redteam._targets import register, subclass

# the targets of the replica level, as session 15's voters module defines them
from redteam.voters_scratch7 import ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class ReconfigBeforeEpochCommitByLogHw(VoterReplica):
    """VOTERS-RULE-ADD step 2, VOTERS-RULE-REMOVE and VOTERS-RULE-UPDATE step 5 ("high watermark
    unknown (the leader has not committed in its epoch, so earlier changes may be unfenced) ->
    REQUEST_TIMED_OUT"): the handlers ask the replicated log for its high watermark
    (``log.highWatermark()``, which a new leader carries over from its follower days) instead of
    the leader state's (``leaderState.highWatermark()``, empty until a record of the epoch
    commits). So a new leader with followers, asked AddVoter / RemoveVoter / UpdateVoter before
    its LeaderChange commits, finds the last VotersRecord below that old high watermark and
    appends a change. Needs a leader elected with followers (a lone voter commits at once), at
    kraft.version 1, and a reconfiguration request (a RemoveVoter or UpdateVoter, or an AddVoter
    of an observer that fetched to the new log end) before a majority fetched in the new epoch."""

    _log_hw: int | None = None

    def become_leader(self) -> None:
        carried = self.high_watermark
        super().become_leader()
        self._log_hw = carried

    def _with_log_hw(self, handler: Callable[[dict[str, Any]], None], inp: dict[str, Any]) -> None:
        if self.role == "leader" and self.high_watermark is None and self._log_hw is not None:
            self.high_watermark = self._log_hw  # the slip: the log's high watermark, not the leader's
            try:
                return handler(inp)
            finally:
                self.high_watermark = None
        return handler(inp)

    def reconfigure(self, inp: dict[str, Any]) -> None:
        return self._with_log_hw(super().reconfigure, inp)

    def update_voter(self, inp: dict[str, Any]) -> None:
        return self._with_log_hw(super().update_voter, inp)


class PendingChangeKeptAcrossLeaderships(VoterReplica):
    """VOTERS-RULE-ONE-CHANGE ("the leader accepts a change only when the last VotersRecord is
    below its high watermark"): besides that check, the implementer keeps "the offset my change
    commits at" in the client (not in the leader state, which a new leadership creates afresh),
    cleared only when the high watermark reaches it. Within one leadership that is the same
    check; but when the leader loses its leadership before the change commits and the new leader
    truncates the VotersRecord away, the mark stays, and when the replica leads again later, with
    a log shorter than the mark, every AddVoter / RemoveVoter / UpdateVoter is refused
    REQUEST_TIMED_OUT until its high watermark passes the dead offset. Needs a leader's
    uncommitted VotersRecord, its loss of leadership (another voter elected without that record,
    which truncates it), then the replica elected again and a reconfiguration before its high
    watermark passes the old record's offset."""

    _pending_end: int | None = None

    def leader_append(self, entries: list[dict[str, Any]]) -> None:
        super().leader_append(entries)
        if any(e["kind"] == "voters" for e in entries):
            self._pending_end = self.end_offset

    def change_pending(self) -> bool:
        if super().change_pending():
            return True
        if self._pending_end is not None:
            assert self.high_watermark is not None
            if self.high_watermark < self._pending_end:
                return True  # the slip: a mark of an earlier leadership
            self._pending_end = None
        return False

    def on_Crash(self, inp: dict[str, Any]) -> None:
        self._pending_end = None  # in memory only
        super().on_Crash(inp)


class VoterRoleLatchedAtEpoch(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND with VOTERS-RULE-OBSERVER-FETCH-TIMEOUT ("a voter follower's
    fetch timeout starts an election; an observer's goes back to leader discovery"): the follower
    state records whether the replica is a voter when it is created (``FollowerState`` built with
    ``isVoter`` of that moment) and its fetch timer reads that, not the set in force now. So a
    follower removed from the set in the epoch (RemoveVoter of a follower) still stands for
    election when its fetch timer expires, and an observer added in the epoch (AddVoter) only
    goes back to leader discovery. Needs a follower whose membership changes by a VotersRecord
    appended in the same epoch, then its FetchTimeout before the epoch changes."""

    _latched: tuple[int, bool] | None = None

    def become_follower(self, epoch: int, leader: int) -> None:
        super().become_follower(epoch, leader)
        self._latched = (epoch, self.is_voter)

    def on_FetchTimeout(self, inp: dict[str, Any]) -> None:
        latched = self._latched
        if self.role == "follower" and latched is not None and latched[0] == self.epoch:
            if latched[1]:
                self.start_election()
            else:
                self.fetch_lapsed = True
            return
        super().on_FetchTimeout(inp)


class AutoJoinAddsHostDirectory(VoterReplica):
    """VOTERS-RULE-AUTO-JOIN ("else AddVoter for itself with its own endpoints", its own key (id,
    directory)) with VOTERS-RULE-DISK-REPLACED: the auto-join AddVoter takes its directory id
    from the host's configuration (the first directory, which for the driver's hosts is the host
    id) rather than from the disk's meta.properties. A host's first disk never notices; a replaced
    disk, once its RemoveVoter of the old key committed, asks AddVoter(id, id) at each period,
    which the leader refuses (that key never fetched: REQUEST_TIMED_OUT), so it never joins.
    Needs auto-join on, a voter's disk replaced, the new disk following the leader at
    kraft.version 1, two update-voter-set periods (the RemoveVoter, then the AddVoter) with the
    removal committed between them."""

    def on_update_voter_set_due(self) -> None:
        if not self.joins() or self.leader is None:
            return
        old = sorted(d for r, d in self.voter_set if r == self.id)
        if old:
            self.send("RemoveVoterRequest", self.leader, replica=self.id, directory=old[0])
        else:
            self.send("AddVoterRequest", self.leader, replica=self.id, directory=self.id)  # the slip


class VoteKeyCheckedAgainstHostId(VoterReplica):
    """VOTERS-RULE-VOTE-BY-KEY ("a replica whose own directory is another answers ...
    INVALID_VOTER_KEY"): the receiver compares the Vote's voter key with (its id, its first
    directory), a key built from the configuration, not with the directory of the disk it runs
    on. So a replaced disk grants a Vote that names no directory (a candidate whose set holds the
    host's old key) by the log check alone, and refuses, INVALID_VOTER_KEY, every Vote naming
    its new directory once that key is a voter. Needs a voter's disk replaced, then an election
    in which a candidate asks that host: before the old key is removed (plain Vote) or after the
    new key was added (KeyedVoteRequest)."""

    def on_VoteRequest(self, req: dict[str, Any]) -> None:
        named = req.get("voter_directory", self.id)
        if named != self.id:  # the slip: the host's first directory, not this disk's
            pre_vote = bool(req.get("pre_vote"))
            if self.refuse_vote(req, pre_vote=pre_vote) or self.refuse_non_voter(req):
                return
            if req["epoch"] > self.epoch:
                self.become_unattached(req["epoch"])
                self.persist()
            self.answer_vote(req, False, pre_vote=pre_vote, error="INVALID_VOTER_KEY")
            return
        RaftReplica.on_VoteRequest(self, req)

    on_KeyedVoteRequest = on_VoteRequest


class AddCaughtUpAtLastFetch(VoterReplica):
    """VOTERS-RULE-ADD step 7 ("the new voter has caught up to the leader's log end"): the leader
    state marks a replica caught up when a Fetch arrives at the leader's log end of that moment
    (Kafka's ``lastCaughtUpTimestamp`` bookkeeping), and AddVoter reads the mark; records the
    leader appends after that Fetch (client data, an UpdateVoter's VotersRecord) do not clear it.
    So an observer that fetched to the end, followed by a ClientAppend at the leader, is added
    before it has fetched the new records. Needs kraft.version 1, an observer's Fetch at the
    leader's log end, an append at the leader, then AddVoter for the observer before its next
    Fetch."""

    def on_valid_fetch(self, replica: int, offset: int) -> None:
        super().on_valid_fetch(replica, offset)
        if self.role != "leader":
            return
        marks = self.__dict__.setdefault("_caught", {})
        if self.end_offsets.get(replica) == offset and offset == self.end_offset:
            marks[replica] = (self.epoch, offset)
        elif self.end_offsets.get(replica) == offset:
            marks.pop(replica, None)

    def reconfigure(self, inp: dict[str, Any]) -> None:
        replica = inp.get("replica", -1)
        mark = self.__dict__.get("_caught", {}).get(replica)
        if (inp["type"] == "AddVoter" and self.role == "leader" and mark is not None
                and mark == (self.epoch, self.end_offsets.get(replica))):
            before = self.end_offsets[replica]
            self.end_offsets[replica] = self.end_offset  # the slip: caught up at its last fetch
            try:
                return super().reconfigure(inp)
            finally:
                if replica in self.end_offsets:
                    self.end_offsets[replica] = before
        return super().reconfigure(inp)


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CORRECT = "Correct"
BASELINES = ("Correct",)

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "reconfig-before-epoch-commit-by-log-hw": ReconfigBeforeEpochCommitByLogHw,
    "pending-change-kept-across-leaderships": PendingChangeKeptAcrossLeaderships,
    "voter-role-latched-at-epoch": VoterRoleLatchedAtEpoch,
    "auto-join-adds-host-directory": AutoJoinAddsHostDirectory,
    "vote-key-checked-against-host-id": VoteKeyCheckedAgainstHostId,
    "add-caught-up-at-last-fetch": AddCaughtUpAtLastFetch,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


TARGETS = register(globals(), ReplicaTarget, REPLICA_BUGS, _replica)
