"""KRaft voter-set (KIP-853) bugs, session 16's blind round ("outsiderb").

Each bug overrides one or a few methods of the reference replica
(:class:`~kspec.conformance.targets.reference.voters.VoterReplica`) or of its control-record
state machine (:class:`~kspec.conformance.targets.reference.voters.ControlRecords`), written from
README.md, docs/adapter-guide.md, docs/design.md, spec/voters.md, spec/adapter-protocol.md,
KIP-853/KIP-595 and Kafka's KIP-853 pull requests alone (no driver, model or mutant catalogue read
before the first measurement). They are the slips of an implementer who knows the KIP, each
needing a voter-set change (or a restart) before it shows: check-quorum that counts a leader
outside its own set (KAFKA-16531's slip), a tie taken for a majority in an even-sized set, a
DescribeQuorum that lists a removed leader among the voters, the lone-voter start decided by the
configured voters, a restart that replays only the committed log into the control records, a
replica outside its voter set that grants a vote without recording it, a leader whose high
watermark follows the new set's majority down (KAFKA-16530's slip), and a log-level read before
the first voter set answered with the static set.

    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch8:Correct
    PYTHONPATH=bench kspec conform voters --target python:redteam.voters_scratch8:CorrectLog
"""

from __future__ import annotations

from typing import Any

from kspec.conformance.adapters.base import JSON
from kspec.conformance.targets.reference.voters import (
    ControlRecords,
    VoterReplica,
    VoterSet,
    _ids,
    _show,
)
from redteam._targets import register, subclass

# the two levels' targets, as session 15's voters module defines them
from redteam.voters_scratch7 import LogTarget, ReplicaTarget

# ---------------------------------------------------------------------------- replica-level bugs


class CheckQuorumCountsRemovedLeader(VoterReplica):
    """RAFT-RULE-CHECK-QUORUM over the set in force (VOTERS-RULE-EFFECT-ON-APPEND): when its
    check-quorum timer expires the leader counts itself towards the majority "implicitly", as the
    pre-KIP-853 ``LeaderState.updateCheckQuorumForFollowingVoter`` did (``voterStates.size() / 2``
    followers), also while it is outside its own voter set (it appended its own removal, not yet
    committed). Leader 1 of {1, 2, 3} removes itself: the set is {2, 3}; after a fetch from 2 alone
    the protocol's leader has heard from one voter of two and resigns, this one counts 1 + 1 and
    leads on. KAFKA-16531 ("calculate check-quorum when leader is not in voter set") fixed this
    very slip in Kafka."""

    def on_CheckQuorumTimeout(self, inp: dict[str, Any]) -> None:
        if self.role != "leader":
            return super().on_CheckQuorumTimeout(inp)
        followers = len((self.fetched & set(self.voters)) - {self.id})
        if followers + 1 < len(self.voters) // 2 + 1:  # the leader counted, voter or not
            self.resign()
        return None


class TieCountsAsMajority(VoterReplica):
    """Majority as "at least half" (``2 * votes >= voters``) instead of "more than half": the same
    for the odd sets a cluster is configured with (1, 3), wrong for the even ones reconfiguration
    makes. A voter of {1, 2, 3, 4} (after AddVoter) wins with its own vote and one grant, a voter
    of {1, 2} (after RemoveVoter) with its own vote alone, and a leader of four passes
    check-quorum on one follower's fetch. An implementer slips here because every set they tested
    had an odd size."""

    def majority(self, members: set[int]) -> bool:
        return 2 * len(members & set(self.voters)) >= len(self.voters)


class DescribeListsRemovedLeader(VoterReplica):
    """RAFT-RULE-DESCRIBE-QUORUM with VOTERS-RULE-REMOVED-LEADER: the leader's DescribeQuorum
    answer lists the leader among the voters always ("the leader is a voter"), also while it leads
    a set it removed itself from (its removal appended, not yet committed). Kafka's
    ``LeaderState.describeQuorum`` lists ``voterStates``; a leader outside the set is an observer
    there. An implementer slips here because before KIP-853 the leader was always a voter."""

    def on_DescribeQuorumRequest(self, req: dict[str, Any]) -> None:
        if self.role != "leader" or self.is_voter:
            return super().on_DescribeQuorumRequest(req)
        voters = [[v, self.end_offset if v == self.id else self.end_offsets.get(v, -1)]
                  for v in sorted({*self.voters, self.id})]
        self.send("DescribeQuorumResponse", req["src"], error="NONE", leader=self.id, epoch=self.epoch,
                  high_watermark=self.high_watermark, voters=voters)
        return None


class LoneVoterFromConfiguration(VoterReplica):
    """VOTERS-MODEL-LONE-VOTER (RAFT-RULE-LONE-VOTER, ``KafkaRaftClient.initialize()``): whether the
    replica is the only voter, and so elects itself at once at start and restart, is decided by the
    voters it was configured with (``controller.quorum.bootstrap.servers`` /
    ``--initial-controllers``), not the voter set in force at its log end. A lone initial voter
    that added a second voter stands alone at its restart (it sends a Vote where it should resign
    and wait); a voter that became the last one by removals waits for its election timer. An
    implementer slips here because before KIP-853 the voters *were* the configuration."""

    def initialize(self) -> None:
        if sorted(self.bootstrap_servers) != [self.id] or self.role in ("leader", "down"):
            return
        if self.role == "candidate":
            self.become_leader()
        else:
            self.start_election()


class CommittedReplayControl(ControlRecords):
    """The control-record state machine of :class:`RestartReplaysCommittedOnly`: a rebuild reads
    the log only below ``committed`` (the replica's high watermark when it went down)."""

    committed: int | None = None

    def restart(self) -> None:
        records = self.records
        self.records = records[:self.committed or 0]
        try:
            self.rebuild()
        finally:
            self.records = records


class RestartReplaysCommittedOnly(VoterReplica):
    """VOTERS-CTRL-REBUILD / VOTERS-RULE-EFFECT-ON-APPEND: on restart the replica rebuilds its
    control records from the snapshot and the log up to the high watermark it knew when it went
    down (kept with its quorum state), as it replays committed records into its state machine; an
    uncommitted VotersRecord in its log (a follower holds one for a fetch round before it learns it
    committed) is never read, so the restarted replica uses the voter set before it. The rule:
    snapshot, then the whole log to its end, committed or not. An implementer slips here because
    "replay only what is committed" is the state machine's rule."""

    def __init__(self, node_id: int, config: dict[str, Any],
                 control_class: type[ControlRecords] = ControlRecords) -> None:
        super().__init__(node_id, config, CommittedReplayControl)

    def on_Crash(self, inp: dict[str, Any]) -> None:
        if isinstance(self.control, CommittedReplayControl):
            self.control.committed = self.high_watermark
        super().on_Crash(inp)


class ObserverVoteUnrecorded(VoterReplica):
    """VOTERS-RULE-OPEN-VOTE: a replica outside its own voter set (an observer the candidate
    already counts as added, a voter that already read its removal) grants a vote by role and log,
    but does not record it: it stays unattached with no voted-for, so nothing is written and it
    would grant again to another candidate in the same epoch. The rule: KIP-853 replicas accept
    Vote requests from all replicas and a granted vote is a vote (persisted, one per epoch),
    whoever casts it. An implementer slips here because before KIP-853 an observer with a voted
    candidate in its quorum state was an error (``QuorumState``: "indicates this node was
    previously a voter"), so the vote of a non-voter is answered and forgotten."""

    def grant_vote(self, req: dict[str, Any], up_to_date: bool) -> bool:
        if (not self.is_voter and self.may_vote(req["src"]) and up_to_date
                and self.role == "unattached" and self.leader is None):
            return True
        return super().grant_vote(req, up_to_date)


class HwFollowsNewMajority(VoterReplica):
    """VOTERS-RULE-EFFECT-ON-APPEND with RAFT-RULE-HW-MAJORITY: when its voter set changes the
    leader takes the new set's majority offset as its high watermark, even when it is lower than the
    one it had (leader 1 of {1, 2, 3}, with 2 caught up and 3 a record behind, removes 2: the
    majority of {1, 3} is 3's offset). The high watermark never goes back; KAFKA-16530 ("Fix
    high-watermark calculation to not assume the leader is in the voter set") kept it from
    decreasing on a reconfiguration. An implementer slips here because "recompute the high
    watermark for the new set" reads as an assignment."""

    def use_voters(self, voters: VoterSet) -> None:
        changed = _ids(voters) != self.voters
        super().use_voters(voters)
        if changed and self.role == "leader" and self.high_watermark is not None:
            majority = self.majority_offset()
            if majority > self.epoch_start:
                self.high_watermark = majority


# ---------------------------------------------------------------------------- log-level bugs


class ReadFallsBackToStatic(ControlRecords):
    """VOTERS-HIST-AT / VOTERS-CTRL-READ: ``voterSetAtOffset(o)`` answers, where no VotersRecord is
    at or before ``o``, what ``lastVoterSet()`` answers for an empty history: the static voter set
    (``controller.quorum.voters``; empty for a cluster formatted with ``--initial-controllers``).
    The rule: the floor entry, none when there is none; the static set is ``lastValue``'s fallback
    only. An implementer slips here because both methods read the same history and one helper with
    one fallback serves both."""

    def read_at(self, offset: int) -> dict[str, JSON]:
        answer = super().read_at(offset)
        if answer["type"] == "ReadAt" and answer["voters"] is None:
            answer["voters"] = _show(self.static)
        return answer


# ---------------------------------------------------------------------------- registration

Correct = subclass(globals(), "Correct", ReplicaTarget)
CorrectLog = subclass(globals(), "CorrectLog", LogTarget)
CORRECT = "Correct"
BASELINES = ("Correct", "CorrectLog")

REPLICA_BUGS: dict[str, type[VoterReplica]] = {
    "check-quorum-counts-removed-leader": CheckQuorumCountsRemovedLeader,
    "tie-counts-as-majority": TieCountsAsMajority,
    "describe-lists-removed-leader": DescribeListsRemovedLeader,
    "lone-voter-from-configuration": LoneVoterFromConfiguration,
    "restart-replays-committed-only": RestartReplaysCommittedOnly,
    "observer-vote-unrecorded": ObserverVoteUnrecorded,
    "hw-follows-new-majority": HwFollowsNewMajority,
}
LOG_BUGS: dict[str, type[ControlRecords]] = {
    "read-falls-back-to-static": ReadFallsBackToStatic,
}


def _replica(cls: type[VoterReplica]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"replica": cls, "__doc__": cls.__doc__}


def _log(cls: type[ControlRecords]) -> tuple[str, dict[str, Any]]:
    return cls.__name__ + "Target", {"control": cls, "__doc__": cls.__doc__}


TARGETS = {**register(globals(), ReplicaTarget, REPLICA_BUGS, _replica),
           **register(globals(), LogTarget, LOG_BUGS, _log)}
