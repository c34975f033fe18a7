"""A KRaft replica's state: the persisted election state, the log, and a role.

Roles are a closed union of frozen classes, so a field that belongs to the leader cannot
exist on a follower. ``Down`` is a crashed replica: only what Kafka persists survives.
"""

from __future__ import annotations

from dataclasses import dataclass

from kspec.model.core.memo import HashKept, keeps_hash
from kspec.model.raft.messages import Entry


@dataclass(frozen=True, slots=True)
class Election:
    """The quorum-state file (Kafka's ``ElectionState``): epoch, voted-for, leader."""

    epoch: int
    voted_for: int | None = None
    leader: int | None = None


@dataclass(frozen=True, slots=True)
class Unattached:
    """Knows the epoch but neither a leader nor a vote of its own (RAFT-ROLE-UNATTACHED).

    KIP-853: ``leader`` is a leader of ``epoch`` whose endpoint the replica does not know (it
    restarted with a persisted leader outside its voter set, RAFT-KIP853-LEADER-UNREACHABLE):
    kept in the election state and named in responses, but not fetched from. Always None
    without a dynamic voter set."""

    epoch: int
    leader: int | None = None


@dataclass(frozen=True, slots=True)
class Voted:
    """Granted its vote in ``epoch`` to ``voted_for`` and waits for a leader (RAFT-ROLE-VOTED).

    Kafka 3.8 and later fold this into Unattached with a voted key; the behaviour is the same.
    Under KIP-996 ``voted_for`` may be the replica itself: a candidate that lost and then lost
    its pre-vote is Unattached in its epoch with its own vote kept (RAFT-KIP996-LOSS).
    """

    epoch: int
    voted_for: int
    leader: int | None = None  # as Unattached.leader (KIP-996 keeps the vote with the leader)


@dataclass(frozen=True, slots=True)
class Prospective:
    """Pre-vote (KIP-996): asks for pre-votes for ``epoch + 1`` without bumping the epoch
    (RAFT-ROLE-PROSPECTIVE). ``prior`` is the election state it returns to if it loses;
    ``unreachable`` that its leader was one without a known endpoint (Unattached.leader)."""

    epoch: int
    prior: Election
    granted: frozenset[int] = frozenset()
    rejected: frozenset[int] = frozenset()
    unreachable: bool = False


@dataclass(frozen=True, slots=True)
class Candidate:
    """Voted for itself in ``epoch`` and collects votes (RAFT-ROLE-CANDIDATE)."""

    epoch: int
    granted: frozenset[int] = frozenset()
    rejected: frozenset[int] = frozenset()
    backing_off: bool = False
    # Backing off because its election timer expired (kip-595's ElectionTimeout), not because a
    # majority rejected it: that timer stays expired until the next election (RAFT-RULE-TIMER-KEPT).
    timed_out: bool = False


@dataclass(frozen=True, slots=True)
class Leader:
    """Won ``epoch``; the LeaderChange record sits at ``epoch_start`` (RAFT-ROLE-LEADER).

    ``end_offsets`` are the replicas' fetch offsets as the leader last saw them (sorted
    ``(replica, offset)`` pairs); ``fetched`` the voters that fetched since the check-quorum
    timer was last reset; ``renewed`` whether it was reset (a majority fetched) in the current
    check-quorum period, the one that began at the election or the last CheckQuorumTimeout
    (RAFT-RULE-CHECK-QUORUM-PERIOD); ``acknowledged the voters that acknowledged the epoch (a ``NONE``
    BeginQuorumEpochResponse or a fetch, Kafka's ``hasAcknowledgedLeader``): the others are
    sent BeginQuorumEpoch again (RAFT-RULE-RESEND). Kept only where a run can resend
    (``Node.resends``), else empty.
    """

    epoch: int
    epoch_start: int
    end_offsets: tuple[tuple[int, int], ...] = ()
    fetched: frozenset[int] = frozenset()
    acknowledged: frozenset[int] = frozenset()
    renewed: bool = False

    def end_offset_of(self, replica: int) -> int | None:
        for r, o in self.end_offsets:
            if r == replica:
                return o
        return None


@dataclass(frozen=True, slots=True)
class Follower:
    """Fetches from ``leader`` in ``epoch`` (RAFT-ROLE-FOLLOWER).

    Under KIP-996 (the rule set of Kafka 4.0+) a follower keeps the vote it gave in its epoch
    (``voted_for``, RAFT-KIP996-VOTE-KEPT) and knows whether it has fetched successfully from
    its leader since it became a follower (``fetched``, RAFT-KIP996-PRE-VOTE-GRANT). Under
    KIP-595 both stay at their defaults.
    """

    epoch: int
    leader: int
    voted_for: int | None = None
    fetched: bool = False
    # KIP-630: the snapshot id ``(end offset, epoch)`` the leader named in a FetchResponse; the
    # follower fetches it (FetchSnapshot) instead of records until it has it (Kafka's
    # ``FollowerState.fetchingSnapshot``, RAFT-RULE-FETCH-SNAPSHOT-ID). Volatile.
    fetching_snapshot: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Resigned:
    """A former leader of ``epoch`` that stopped serving and waits for a successor
    (RAFT-ROLE-RESIGNED). Not persisted: a leader restarts as Resigned. ``acknowledged``: the
    voters that answered its EndQuorumEpoch with ``NONE`` (Kafka's ``ResignedState.unackedVoters``
    are the others: sent it again, RAFT-RULE-RESEND); kept only where a run can resend."""

    epoch: int
    acknowledged: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Down:
    """A crashed replica: only ``election`` (and the log) survive."""

    election: Election

    @property
    def epoch(self) -> int:
        return self.election.epoch


Role = Unattached | Voted | Prospective | Candidate | Leader | Follower | Resigned | Down

ROLE_TYPES: tuple[type, ...] = (Unattached, Voted, Prospective, Candidate, Leader, Follower, Resigned, Down)

ROLE_NAMES: dict[type, str] = {
    Unattached: "unattached", Voted: "voted", Prospective: "prospective", Candidate: "candidate",
    Leader: "leader", Follower: "follower", Resigned: "resigned", Down: "down",
}


@dataclass(frozen=True, slots=True)
class Listener:
    """What the replica's state machine has been told (Kafka's ``ListenerContext``): the
    offset it reads next and the last ``LeaderAndEpoch`` it was given (``(0, None)`` is
    Kafka's ``LeaderAndEpoch.UNKNOWN``). Volatile: a restart registers a new listener
    (RAFT-OBS-LISTENER)."""

    next_offset: int = 0
    told_epoch: int = 0
    told_leader: int | None = None


@keeps_hash
@dataclass(frozen=True, slots=True)
class Node(HashKept):
    """One KRaft replica: its static configuration, its log, its role and high watermark.

    ``high_watermark`` is volatile (None while unknown, as Kafka's ``Optional``); the
    persisted state is the log and the election state derived from the role.
    """

    id: int
    voters: frozenset[int]
    log: tuple[Entry, ...]
    role: Role
    high_watermark: int | None = None
    pre_vote: bool = False
    # KIP-595's voter-only requests (rule set kip-595): Vote, BeginQuorumEpoch and
    # EndQuorumEpoch from a non-voter, or at a replica that is not a voter, are answered
    # INCONSISTENT_VOTER_SET and change nothing (RAFT-RULE-VOTER-ONLY).
    voter_only: bool = False
    # KIP-853's relaxed vote (rule sets kip-853 and kip-996): any replica handles a vote from
    # any replica and grants it by its role alone (RAFT-KIP853-OPEN-VOTE). With neither flag
    # (the voter-set model) only voters grant votes, and only to voters.
    open_votes: bool = False
    # The state machine's listener (RAFT-OBS-LISTENER), or None where the model runs without
    # one (the explorer, TLA+ and the voter-set model: it never changes what the protocol does).
    listener: Listener | None = None
    # Whether the replica keeps who answered its requests (Leader.acknowledged,
    # Resigned.acknowledged) and takes ResendDue (RAFT-RULE-RESEND): only where a run can
    # resend (the model's ``max_resends`` bound), since that record decides nothing else and
    # would multiply states elsewhere (the voter-set model, which runs without resends).
    resends: bool = False
    # KIP-630 (RAFT-STATE-SNAPSHOT), both persisted: the snapshot ids ``(end offset, epoch)`` the
    # replica holds, oldest first, and its log start offset. The records below ``log_start`` are
    # gone from the log: ``log`` keeps them only as the contents of the snapshot that ends at
    # ``log_start`` (a snapshot stands for the committed prefix it summarises), so no rule reads
    # them as records (a fetch below ``log_start`` is answered with the snapshot id).
    snapshots: tuple[tuple[int, int], ...] = ()
    log_start: int = 0
    # RAFT-RULE-CHECK-QUORUM-PERIOD: whether a CheckQuorumTimeout ends a check-quorum period
    # (a leader a majority fetched from in it leads on: ``Leader.renewed``). On in the model the
    # explorer and TLA+ check; off where the conformance driver runs a target that does not
    # declare the period (model_config {"check_quorum_period": true}): ``renewed`` then stays
    # false, and the timeout resigns wherever a majority has not fetched since the timer was
    # last reset, the contract adapters were written against before session 19.
    check_quorum_period: bool = True

    @property
    def latest_snapshot(self) -> tuple[int, int] | None:
        """The latest snapshot's id, or None (Kafka's ``latestSnapshotId``)."""
        return self.snapshots[-1] if self.snapshots else None

    @property
    def epoch(self) -> int:
        return self.role.epoch

    @property
    def is_voter(self) -> bool:
        return self.id in self.voters

    @property
    def end_offset(self) -> int:
        return len(self.log)

    @property
    def last_epoch(self) -> int:
        return self.log[-1].epoch if self.log else 0

    @property
    def role_name(self) -> str:
        return ROLE_NAMES[type(self.role)]


def election_of(node: Node) -> Election:
    """The election state a replica has persisted in its current role (RAFT-STATE-PERSISTED)."""
    role = node.role
    match role:
        case Unattached(epoch=e, leader=leader):
            return Election(e, leader=leader)
        case Voted(epoch=e, voted_for=v, leader=leader):
            return Election(e, voted_for=v, leader=leader)
        case Prospective(prior=prior):
            return prior
        case Candidate(epoch=e):
            return Election(e, voted_for=node.id)
        case Leader(epoch=e) | Resigned(epoch=e):
            return Election(e, leader=node.id)
        case Follower(epoch=e, leader=leader, voted_for=v):
            return Election(e, voted_for=v, leader=leader)
        case Down(election=election):
            return election
    raise TypeError(f"unknown role {role!r}")


def end_offset_for_epoch(log: tuple[Entry, ...], epoch: int) -> tuple[int, int]:
    """``(largest epoch <= epoch in the log, the end offset of that epoch)``, Kafka's
    ``endOffsetForEpoch``; ``(0, 0)`` when the log has no such epoch."""
    best_epoch, end = 0, 0
    for offset, entry in enumerate(log):
        if entry.epoch <= epoch:
            best_epoch, end = entry.epoch, offset + 1
        else:
            break
    return best_epoch, end
