"""The KRaft replica as a pure, sans-IO state machine: ``step(node, input) -> (node, outputs)``.

All transition rules are in this one file (as h11's ``_state.py``). A step applies the
cross-role rules first (a higher epoch moves any role on; a stale epoch is refused), then
dispatches on the role. Role changes go through one checked constructor each, which refuses
a transition that ``TRANSITIONS`` does not list.

Rule IDs refer to ``spec/raft.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft.messages import (
    OWN_PARTITION,
    AppendLog,
    BackoffExpired,
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    CheckQuorumTimeout,
    CleanLog,
    ClientAppend,
    Crash,
    DescribeQuorumRequest,
    DescribeQuorumResponse,
    ElectionTimeout,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    Entry,
    ErrorCode,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    FetchTimeout,
    Input,
    Message,
    Output,
    PersistElection,
    QuorumMessage,
    ResendDue,
    Restart,
    TakeSnapshot,
    TruncateLog,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.rules import is_quorum, log_up_to_date, majority_end_offset, next_high_watermark
from kspec.model.raft.state import (
    ROLE_NAMES,
    Candidate,
    Down,
    Election,
    Follower,
    Leader,
    Node,
    Prospective,
    Resigned,
    Role,
    Unattached,
    Voted,
    election_of,
    end_offset_for_epoch,
)

Step = tuple[Node, tuple[Output, ...]]
# A node of the raft model or of a model built on it (the voters node): a rule over the raft
# fields keeps the caller's class.
N = TypeVar("N", bound=Node)

# The role transition table (from-role, to-role), as data: the checked constructors refuse
# any pair not listed, and the docs draw the role diagram from it. Kafka's QuorumState
# documents the same table; "prospective" only exists with pre-vote (KIP-996).
TRANSITIONS: dict[tuple[str, str], str] = {
    ("unattached", "unattached"): "learns a higher epoch",
    ("unattached", "voted"): "grants a vote",
    ("unattached", "candidate"): "election timeout",
    ("unattached", "prospective"): "election timeout (pre-vote)",
    ("unattached", "follower"): "learns the leader of an equal or higher epoch",
    ("voted", "unattached"): "learns a higher epoch",
    ("voted", "candidate"): "election timeout",
    ("voted", "prospective"): "election timeout (pre-vote)",
    ("voted", "follower"): "learns the leader of an equal or higher epoch",
    ("prospective", "unattached"): "learns a higher epoch, or loses the pre-vote",
    ("prospective", "voted"): "loses the pre-vote, restoring its vote",
    ("prospective", "follower"): "learns the leader, or loses the pre-vote to a known leader",
    ("prospective", "candidate"): "wins the pre-vote",
    ("prospective", "prospective"): "grants a standard vote (KIP-996: prospectiveAddVotedState)",
    ("candidate", "unattached"): "learns a higher epoch",
    ("candidate", "candidate"): "backoff expired: a new election",
    ("candidate", "prospective"): "backoff expired (pre-vote)",
    ("candidate", "follower"): "learns the leader of an equal or higher epoch",
    ("candidate", "leader"): "wins a majority of votes",
    ("leader", "unattached"): "learns a higher epoch",
    ("leader", "follower"): "learns the leader of a higher epoch",
    ("leader", "resigned"): "check-quorum fails (or graceful shutdown)",
    ("follower", "unattached"): "learns a higher epoch",
    ("follower", "follower"): "learns the leader of a higher epoch",
    ("follower", "candidate"): "fetch timeout",
    ("follower", "prospective"): "fetch timeout (pre-vote)",
    ("resigned", "unattached"): "learns a higher epoch",
    ("resigned", "follower"): "learns the leader of a higher epoch",
    ("resigned", "candidate"): "election timeout",
    ("resigned", "prospective"): "a lone voter's restart (KIP-996)",
}


class IllegalTransition(ValueError):
    """A role change the protocol does not allow; names from-state, to-state and arguments."""

    def __init__(self, node: Node, to: str, **args: object) -> None:
        shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
        super().__init__(
            f"replica {node.id}: illegal transition {node.role_name}(epoch={node.epoch}) -> {to}({shown})"
        )
        self.from_role = node.role_name
        self.to_role = to
        self.arguments = args


def _check(node: Node, to: str, **args: object) -> None:
    if (node.role_name, to) not in TRANSITIONS:
        raise IllegalTransition(node, to, **args)


def _persist(before: Node, after: Node) -> tuple[Output, ...]:
    old, new = election_of(before), election_of(after)
    if old == new or isinstance(after.role, Resigned):
        # Resigned is a soft state: Kafka does not write it (the file already says leader).
        return ()
    return (PersistElection(new.epoch, new.voted_for, new.leader),)


# ---------------------------------------------------------------- checked constructors


def to_unattached(node: Node, epoch: int) -> Node:
    """RAFT-TRANS-UNATTACHED: a higher epoch without a known leader (or a lost pre-vote)."""
    if epoch < node.epoch or (epoch == node.epoch and not isinstance(node.role, Prospective)):
        raise IllegalTransition(node, "unattached", epoch=epoch)
    _check(node, "unattached", epoch=epoch)
    return replace(node, role=Unattached(epoch))


def to_voted(node: Node, epoch: int, candidate: int) -> Node:
    """RAFT-TRANS-VOTED: grant the vote of ``epoch`` to ``candidate``. Under KIP-996 a prospective
    that loses its pre-vote keeps the vote it had, its own included (RAFT-KIP996-LOSS)."""
    own_vote_kept = node.pre_vote and isinstance(node.role, Prospective) and epoch == node.epoch
    if ((candidate == node.id and not own_vote_kept) or not _may_vote(node, candidate)
            or epoch < node.epoch or (epoch == node.epoch and not isinstance(node.role, Unattached | Prospective))):
        raise IllegalTransition(node, "voted", epoch=epoch, candidate=candidate)
    _check(node, "voted", epoch=epoch, candidate=candidate)
    return replace(node, role=Voted(epoch, candidate))


def to_follower(node: Node, epoch: int, leader: int) -> Node:
    """RAFT-TRANS-FOLLOWER: learn the leader of an equal or higher epoch. Under KIP-996 the vote
    of the same epoch is kept (RAFT-KIP996-VOTE-KEPT: "State transitions within the same epoch
    should preserve voted key", Kafka 4.0+ ``QuorumState.transitionToFollower``)."""
    if leader == node.id or epoch < node.epoch or (
            epoch == node.epoch and isinstance(node.role, Follower | Leader)):
        raise IllegalTransition(node, "follower", epoch=epoch, leader=leader)
    _check(node, "follower", epoch=epoch, leader=leader)
    voted = election_of(node).voted_for if node.pre_vote and epoch == node.epoch else None
    return replace(node, role=Follower(epoch, leader, voted))


def prospective_add_vote(node: Node, candidate: int) -> Node:
    """RAFT-KIP996-PROSPECTIVE-VOTES: a prospective without a vote or a leader grants a standard
    vote of its epoch and stays prospective, its pre-vote round started again: the answers it
    had are forgotten (Kafka 4.0+ ``prospectiveAddVotedState`` makes a new ``ProspectiveState``
    with a new ``EpochElection`` and a new election timer)."""
    role = node.role
    if (not isinstance(role, Prospective) or role.prior.voted_for is not None or role.prior.leader is not None
            or candidate == node.id or not _may_vote(node, candidate)):
        raise IllegalTransition(node, "prospective", candidate=candidate)
    _check(node, "prospective", candidate=candidate)
    return replace(node, role=replace(role, prior=replace(role.prior, voted_for=candidate),
                                      granted=frozenset({node.id}), rejected=frozenset()))


def to_prospective(node: Node) -> Node:
    """RAFT-TRANS-PROSPECTIVE: with pre-vote, ask for pre-votes before bumping the epoch."""
    if not node.is_voter or not node.pre_vote:
        raise IllegalTransition(node, "prospective")
    _check(node, "prospective")
    return replace(node, role=Prospective(node.epoch, election_of(node), granted=frozenset({node.id}),
                                          unreachable=_unreachable_leader(node) is not None))


def to_candidate(node: Node) -> Node:
    """RAFT-TRANS-CANDIDATE: bump the epoch and vote for itself."""
    # KIP-996: only a prospective that won its pre-vote becomes a candidate
    # (QuorumState.checkValidTransitionToCandidate).
    if not node.is_voter or (node.pre_vote and not isinstance(node.role, Prospective)):
        raise IllegalTransition(node, "candidate", epoch=node.epoch + 1)
    _check(node, "candidate", epoch=node.epoch + 1)
    return replace(node, role=Candidate(node.epoch + 1, granted=frozenset({node.id})))


def to_leader(node: Node) -> Node:
    """RAFT-TRANS-LEADER: a candidate with a majority of votes; the epoch starts at the log end."""
    role = node.role
    if not isinstance(role, Candidate) or not is_quorum(role.granted, node.voters):
        raise IllegalTransition(node, "leader", epoch=node.epoch)
    _check(node, "leader", epoch=node.epoch)
    # Kafka's leader does not keep the high watermark it knew as a follower (QuorumState).
    return replace(node, role=Leader(role.epoch, epoch_start=node.end_offset), high_watermark=None)


def to_resigned(node: Node) -> Node:
    """RAFT-TRANS-RESIGNED: a leader stops serving its epoch and forgets its high watermark."""
    if not isinstance(node.role, Leader):
        raise IllegalTransition(node, "resigned", epoch=node.epoch)
    _check(node, "resigned", epoch=node.epoch)
    # Kafka's ResignedState has no high watermark (EpochState's default: empty), so the
    # roles a resigned replica moves to next start without one too (RAFT-TRANS-HW-CARRIED).
    return replace(node, role=Resigned(node.epoch), high_watermark=None)


# ---------------------------------------------------------------- helpers


def _may_vote(node: Node, candidate: int) -> bool:
    """Whether this replica may vote for ``candidate`` at all: KIP-853 lets any replica vote for
    any replica (RAFT-KIP853-OPEN-VOTE); before it only a voter votes, and only for a voter."""
    return node.open_votes or (node.is_voter and candidate in node.voters)


def _voter_only_refused(node: Node, sender: int) -> bool:
    """RAFT-RULE-VOTER-ONLY (rule set kip-595, Kafka's ``validateVoterOnlyRequest`` to 3.7): a
    Vote, BeginQuorumEpoch or EndQuorumEpoch of the receiver's epoch or later from a replica
    that is not a voter, or at a replica that is not one, is answered INCONSISTENT_VOTER_SET
    and changes nothing."""
    return node.voter_only and not (node.is_voter and sender in node.voters)


def _others(node: Node) -> list[int]:
    return sorted(v for v in node.voters if v != node.id)


def _leader_hint(node: Node) -> int | None:
    return election_of(node).leader


def _unreachable_leader(node: Node) -> int | None:
    """RAFT-KIP853-LEADER-UNREACHABLE: the leader an unattached (or voted) replica knows without
    its endpoint, else None."""
    role = node.role
    return role.leader if isinstance(role, Unattached | Voted) else None


def _follows_named_leader(node: Node) -> bool:
    """Whether a message naming the leader of the replica's epoch makes it that leader's
    follower: when it knows no leader, or knows one without its endpoint (Kafka's
    ``maybeTransition``: ``!quorum.hasLeader() || leaderEndpoints.size() >
    quorum.leaderEndpoints().size()``; every message naming a leader carries its endpoint)."""
    return _leader_hint(node) is None or _unreachable_leader(node) is not None


def _vote_requests(node: Node, epoch: int, pre_vote: bool) -> tuple[Output, ...]:
    return tuple(
        VoteRequest(node.id, v, epoch, node.last_epoch, node.end_offset, pre_vote) for v in _others(node)
    )


def _start_election(node: Node) -> Step:
    """Fetch or election timeout of a voter: pre-vote first when enabled (RAFT-RULE-ELECTION)."""
    if node.pre_vote:
        after = to_prospective(node)
        if is_quorum(frozenset({node.id}), node.voters):
            return _become_candidate(after)
        # KIP-996: a pre-vote carries the prospective's current epoch (RAFT-KIP996-PRE-VOTE-EPOCH).
        return after, _vote_requests(after, after.epoch, True)
    return _become_candidate(node)


def _become_candidate(node: Node) -> Step:
    after = to_candidate(node)
    outputs: tuple[Output, ...] = _persist(node, after)
    if is_quorum(frozenset({node.id}), node.voters):
        leader, more = _become_leader(after)
        return leader, outputs + more
    return after, outputs + _vote_requests(after, after.epoch, False)


def _become_leader(node: Node) -> Step:
    """RAFT-RULE-LEADER-CHANGE: a new leader appends a LeaderChange record at its epoch start
    and announces itself with BeginQuorumEpoch."""
    after = to_leader(node)
    record = Entry(after.epoch, "leader_change")
    after = replace(after, log=(*after.log, record))
    outputs: list[Output] = [*_persist(node, after), AppendLog(node.end_offset, (record,))]
    outputs += [BeginQuorumEpochRequest(node.id, v, after.epoch) for v in _others(node)]
    return update_high_watermark(after), tuple(outputs)


def update_high_watermark(node: N) -> N:
    """RAFT-RULE-HW: the leader's high watermark is the offset a majority of voters hold,
    once that passes the epoch start offset, and never moves back. ``node.voters`` is the
    voter set in force, so the voters node (KIP-853), which keeps it in step with its log,
    uses this same rule; a leader that is not a voter does not count itself."""
    role = node.role
    assert isinstance(role, Leader)
    offsets = dict(role.end_offsets)
    offsets[node.id] = node.end_offset
    majority = majority_end_offset(offsets, node.voters)
    return replace(node, high_watermark=next_high_watermark(node.high_watermark, majority, role.epoch_start))


def _with_end_offset(role: Leader, replica: int, offset: int) -> Leader:
    table = dict(role.end_offsets)
    table[replica] = offset
    return replace(role, end_offsets=tuple(sorted(table.items())))


def _observe_epoch(node: Node, epoch: int, leader: int | None) -> Node:
    """Cross-role rule RAFT-RULE-HIGHER-EPOCH: a message from a higher epoch moves any role to
    that epoch, as follower when the leader is known, else unattached."""
    if epoch <= node.epoch:
        return node
    if leader is not None and leader != node.id:
        return to_follower(node, epoch, leader)
    return to_unattached(node, epoch)


# ---------------------------------------------------------------- the step function


def step(node: Node, inp: Input) -> Step:
    """Apply one input to a replica; returns the new state and the outputs in order.

    Writes of the election state with no other output between them are one output, the last
    (RAFT-OBS-PERSIST): what a peer can rely on is the durable state when the next message
    leaves, and Kafka writes the file again at each durable transition of one step."""
    after, outputs = _step(node, inp)
    return after, coalesce_writes(outputs)


def coalesce_writes(outputs: tuple[Output, ...]) -> tuple[Output, ...]:
    """RAFT-OBS-PERSIST: adjacent PersistElection outputs merged into the last of them."""
    if sum(isinstance(o, PersistElection) for o in outputs) < 2:
        return outputs
    merged: list[Output] = []
    for o in outputs:
        if isinstance(o, PersistElection) and merged and isinstance(merged[-1], PersistElection):
            merged[-1] = o
        else:
            merged.append(o)
    return tuple(merged)


def _step(node: Node, inp: Input) -> Step:
    if isinstance(node.role, Down):
        if isinstance(inp, Restart):
            return restart(node)
        return node, ()
    match inp:
        case Crash():
            return replace(node, role=Down(election_of(node)), high_watermark=None), ()
        case Restart():
            return node, ()
        case FetchSnapshotRequest():
            return node, (on_fetch_snapshot(node, inp),)
        case DescribeQuorumRequest():
            return node, (on_describe_quorum(node, inp),)
        case FetchSnapshotResponse():
            return on_fetch_snapshot_response(node, inp)
        case DescribeQuorumResponse():
            return node, ()  # never asked for by a replica of the model (RAFT-RULE-LEADER-ONLY)
        case TakeSnapshot(end_offset=end):
            return take_snapshot(node, end), ()
        case CleanLog():
            return clean_log(node), ()
        case (VoteRequest() | BeginQuorumEpochRequest() | EndQuorumEpochRequest() | FetchRequest()
              | VoteResponse() | BeginQuorumEpochResponse() | EndQuorumEpochResponse() | FetchResponse()):
            # The cross-role rules first, once for every role (as etcd's raft.go Step): a stale
            # epoch is fenced, a voter-only request from or at a non-voter refused, a higher
            # epoch moves the replica on; then the message's handler for the role it is in.
            fenced = _fenced(node, inp)
            if fenced is not None:
                return fenced
            moved = _higher_epoch(node, inp)
            return _timer_kept(node, *HANDLERS[type(inp)](node, moved, inp))
        case ElectionTimeout():
            return _on_election_timeout(node)
        case BackoffExpired():
            if isinstance(node.role, Candidate) and node.role.backing_off:
                return _start_election(node)
            return node, ()
        case FetchTimeout():
            if isinstance(node.role, Follower) and node.is_voter:
                return _start_election(node)
            return node, ()
        case CheckQuorumTimeout():
            return _on_check_quorum_timeout(node)
        case FetchDue(to=to):
            return _on_fetch_due(node, to)
        case ResendDue(to=to):
            return _on_resend_due(node, to)
        case ClientAppend(payload=payload):
            return _on_client_append(node, payload)
    raise TypeError(f"not a KRaft input: {inp!r}")


def _fenced(node: Node, msg: QuorumMessage) -> Step | None:
    """The cross-role rules that answer a message without a handler, or None.

    RAFT-RULE-STALE-EPOCH: a request of a lower epoch is answered FENCED_LEADER_EPOCH with the
    receiver's epoch and leader, a response of a lower epoch is ignored. RAFT-RULE-VOTER-ONLY
    (kip-595): a Vote, BeginQuorumEpoch or EndQuorumEpoch from or at a non-voter is answered
    INCONSISTENT_VOTER_SET; a pre-vote is never voter-only (KIP-996 came after KIP-853)."""
    invalid = _malformed(node, msg)
    if invalid is not None:
        return invalid
    if msg.epoch < node.epoch:
        if isinstance(msg, FetchRequest):
            return _fetch_error(node, msg, "FENCED_LEADER_EPOCH")
        return node, _refusal(node, msg, "FENCED_LEADER_EPOCH")
    pre_vote = isinstance(msg, VoteRequest) and msg.pre_vote
    if msg.src < 0 and not pre_vote:
        # RAFT-RULE-INVALID-REQUEST: a voter-only request names its sender; a negative id
        # (Kafka's -1, "no replica") is malformed once the epoch is not stale
        invalid_sender = _refusal(node, msg, "INVALID_REQUEST")
        if invalid_sender:
            return node, invalid_sender
    if not _voter_only_refused(node, msg.src) or pre_vote:
        return None
    refusal = _refusal(node, msg, "INCONSISTENT_VOTER_SET")
    return (node, refusal) if refusal else None


def _refusal(node: Node, msg: Any, error: ErrorCode) -> tuple[Output, ...]:
    """The answer of a Vote, BeginQuorumEpoch or EndQuorumEpoch request refused with ``error``
    (the receiver's epoch and leader hint); nothing for any other message."""
    hint = _leader_hint(node)
    match msg:
        case VoteRequest(pre_vote=pre_vote):
            return (VoteResponse(node.id, msg.src, node.epoch, False, hint, pre_vote, error),)
        case BeginQuorumEpochRequest():
            return (BeginQuorumEpochResponse(node.id, msg.src, node.epoch, hint, error),)
        case EndQuorumEpochRequest():
            return (EndQuorumEpochResponse(node.id, msg.src, node.epoch, hint, error),)
    return ()


def _malformed(node: Node, msg: Message) -> Step | None:
    """RAFT-RULE-INVALID-REQUEST: a request whose positions contradict its epoch is answered
    INVALID_REQUEST with the receiver's epoch and leader, before any epoch check, and changes
    nothing (Kafka ``handleVoteRequest``, ``handleFetchRequest``): a vote whose last epoch is
    not below its epoch, or negative; a fetch whose last fetched epoch is above its epoch, or
    whose offset or last fetched epoch is negative. A pre-vote carries the prospective's own
    epoch, which its last epoch may equal: one is malformed when its last epoch is above its
    epoch, or negative (RAFT-KIP996-PRE-VOTE-INVALID, Kafka 4.0+ ``handleVoteRequest``:
    ``preVote ? lastEpoch > replicaEpoch : lastEpoch >= replicaEpoch``)."""
    hint = _leader_hint(node)
    match msg:
        case VoteRequest(pre_vote=False) if msg.end_offset < 0 or msg.last_epoch < 0 or msg.last_epoch >= msg.epoch:
            return node, (VoteResponse(node.id, msg.src, node.epoch, False, hint, False, "INVALID_REQUEST"),)
        case VoteRequest(pre_vote=True) if msg.end_offset < 0 or msg.last_epoch < 0 or msg.last_epoch > msg.epoch:
            return node, (VoteResponse(node.id, msg.src, node.epoch, False, hint, True, "INVALID_REQUEST"),)
        case FetchRequest() if (msg.fetch_offset < 0 or msg.last_fetched_epoch < 0
                                or msg.last_fetched_epoch > msg.epoch):
            return _fetch_error(node, msg, "INVALID_REQUEST")
    return None


def is_malformed(node: Node, msg: QuorumMessage) -> bool:
    """Whether ``node`` answers ``msg`` INVALID_REQUEST for its positions (RAFT-RULE-INVALID-REQUEST)."""
    return _malformed(node, msg) is not None


def _higher_epoch(node: Node, msg: QuorumMessage) -> Node:
    """RAFT-RULE-HIGHER-EPOCH, once for every role: a message of a higher epoch moves the
    replica to it, as the follower of the leader the message names (a BeginQuorumEpoch's or
    EndQuorumEpoch's sender, a response's leader), else unattached (a vote or pre-vote, a
    response naming no leader). A Fetch names no leader and moves nothing: it is answered
    UNKNOWN_LEADER_EPOCH (RAFT-RULE-FETCH)."""
    if msg.epoch <= node.epoch:
        return node
    match msg:
        case VoteRequest():
            return to_unattached(node, msg.epoch)
        case BeginQuorumEpochRequest(src=src):
            # a leader's own announcement never reaches it from a later epoch it does not know
            return to_follower(node, msg.epoch, src) if src != node.id else node
        case EndQuorumEpochRequest(src=src):
            return _observe_epoch(node, msg.epoch, src)
        case FetchRequest():
            return node
        case VoteResponse(leader=leader) | BeginQuorumEpochResponse(leader=leader) \
                | EndQuorumEpochResponse(leader=leader) | FetchResponse(leader=leader):
            return _observe_epoch(node, msg.epoch, leader)
    raise TypeError(f"not a KRaft message: {msg!r}")


def _timer_kept(before: Node, after: Node, outputs: tuple[Output, ...]) -> Step:
    """RAFT-RULE-TIMER-KEPT: a replica that a higher epoch makes unattached keeps its election
    timer (Raft resets the timer only on a vote granted or a leader heard; Kafka's
    ``transitionToUnattached`` passes on the remaining election time). A candidate whose timer
    had already expired (it backs off after ElectionTimeout) therefore starts the next election
    in the same step."""
    role = before.role
    if (isinstance(role, Candidate) and role.timed_out and isinstance(after.role, Unattached)
            and after.epoch > before.epoch):
        later, more = _start_election(after)
        return later, outputs + more
    return after, outputs


def restart(node: Node) -> Step:
    """RAFT-RULE-RESTART: a restarted replica resumes from its persisted state, as Kafka's
    ``QuorumState.initialize``: a former leader is Resigned, a former candidate is a candidate
    again (and asks for votes), a vote is kept, a known leader is followed."""
    role = node.role
    assert isinstance(role, Down)
    e = role.election
    new_role: Role
    outputs: tuple[Output, ...] = ()
    if e.epoch < node.last_epoch:
        new_role = Unattached(node.last_epoch)
    elif e.leader == node.id:
        new_role = Resigned(e.epoch)
    elif e.voted_for == node.id:
        new_role = Candidate(e.epoch, granted=frozenset({node.id}))
    elif e.leader is not None and e.leader not in node.voters:
        # RAFT-KIP853-LEADER-UNREACHABLE: the leader's endpoint comes from the voter set; one
        # outside it cannot be fetched from, so the replica is unattached and keeps the leader
        # (and, under KIP-996, the vote) until a message from or naming it brings the endpoint
        # (Kafka 3.9+ QuorumState.initialize, UnattachedState's documented case).
        new_role = Voted(e.epoch, e.voted_for, e.leader) if e.voted_for is not None else Unattached(e.epoch, e.leader)
    elif e.leader is not None:
        # Kafka 4.0+ persists the vote with the leader and restores both (RAFT-KIP996-VOTE-KEPT).
        new_role = Follower(e.epoch, e.leader, e.voted_for)
    elif e.voted_for is not None:
        new_role = Voted(e.epoch, e.voted_for)
    else:
        new_role = Unattached(e.epoch)
    after = replace(node, role=new_role, high_watermark=None)
    if isinstance(new_role, Candidate):
        outputs = _vote_requests(after, new_role.epoch, False)
    elif isinstance(new_role, Resigned):
        outputs = _end_epoch_requests(after)
    after, more = initialize(after)
    return after, outputs + more


def initialize(node: Node) -> Step:
    """RAFT-RULE-LONE-VOTER: what Kafka's ``KafkaRaftClient.initialize`` does after
    ``QuorumState.initialize``, at the first start and at every restart. A lone voter waits for
    no timer: a restarted candidate wins its own vote at once, any other role becomes a
    candidate of the next epoch and so leader. Any other replica is unchanged."""
    role = node.role
    if not node.is_voter or not is_quorum(frozenset({node.id}), node.voters) or isinstance(role, Down | Leader):
        return node, ()
    if isinstance(role, Candidate):
        return _become_leader(node)
    return _start_election(node)


def _end_epoch_requests(node: Node, preferred: tuple[int, ...] = ()) -> tuple[Output, ...]:
    return tuple(EndQuorumEpochRequest(node.id, v, node.epoch, preferred) for v in _others(node))


def _on_vote_request(before: Node, node: Node, req: VoteRequest) -> Step:
    """RAFT-RULE-VOTE-GRANT: grant at most one vote per epoch, to a candidate whose log is at
    least as up to date; a pre-vote never changes the receiver's state (KIP-996)."""
    if req.pre_vote:
        return _on_pre_vote_request(before, node, req)
    up_to_date = log_up_to_date(req.last_epoch, req.end_offset, node.last_epoch, node.end_offset)
    role = node.role
    granted = False
    if _may_vote(node, req.src) and up_to_date:
        if isinstance(role, Unattached) and role.leader is None:
            # (an unattached replica that knows its epoch's leader refuses as a follower does,
            # RAFT-KIP853-LEADER-UNREACHABLE)
            granted = True
            node = to_voted(node, req.epoch, req.src)
        elif isinstance(role, Voted):
            granted = role.voted_for == req.src
        elif isinstance(role, Prospective) and node.pre_vote:
            granted = role.prior.voted_for == req.src
            if role.prior.voted_for is None and role.prior.leader is None:
                granted = True
                node = prospective_add_vote(node, req.src)
                # the new round asks again the voters whose answers it forgot (those it has
                # not heard from still have its request: their answers count in the new round)
                asked = sorted((role.granted | role.rejected) - {node.id})
                again = tuple(VoteRequest(node.id, v, node.epoch, node.last_epoch, node.end_offset, True)
                              for v in asked)
                return node, (*_persist(before, node),
                              VoteResponse(node.id, req.src, node.epoch, True, _leader_hint(node)), *again)
    outputs = (*_persist(before, node), VoteResponse(node.id, req.src, node.epoch, granted, _leader_hint(node)))
    return node, outputs


def other_answers(before: Node, inp: Input, outputs: tuple[Output, ...]) -> tuple[tuple[Output, ...], ...]:
    """The answers to ``inp`` the protocol allows besides ``outputs`` (the model's own answer
    from ``before``), each as a whole step's outputs; the state after is the same.

    RAFT-RULE-VOTE-REASKED: a replica asked again, in the epoch of its vote, by the candidate
    it voted for may answer granted whatever its log holds now. The vote is cast and stays
    cast (RAFT-RULE-VOTE-GRANT's one vote per epoch); the candidate counts a voter once, so a
    second grant elects no one the first did not. Kafka answers so (``canGrantVote`` matches
    the voted key before any log check; 3.x ``VotedState``, 4.x ``UnattachedState`` and the
    prospective state that keeps the vote, RAFT-KIP996-VOTE-KEPT). The model itself applies
    RAFT-RULE-VOTE-LOG-UP-TO-DATE first, as the Raft paper's RequestVote rule (§5.2, §5.4.1)
    and etcd do; the answers differ only once the voter's log grew after it voted.
    """
    if not isinstance(inp, VoteRequest) or inp.pre_vote or inp.epoch != before.epoch:
        return ()
    role = before.role
    voted = (role.voted_for if isinstance(role, Voted)
             else role.prior.voted_for if isinstance(role, Prospective) else None)
    if voted is None or voted != inp.src:
        return ()
    regranted = tuple(replace(o, granted=True) if isinstance(o, VoteResponse) and o.dst == inp.src
                      and not o.granted and not o.pre_vote and o.error == "NONE" else o for o in outputs)
    return () if regranted == outputs else (regranted,)


def _on_pre_vote_request(before: Node, node: Node, req: VoteRequest) -> Step:
    """RAFT-KIP996-PRE-VOTE-GRANT (Kafka 4.0+ ``handleVoteRequest`` with ``preVote``): a pre-vote
    of a lower epoch is fenced; one of a higher epoch first moves the receiver to that epoch
    (unattached, persisted) as any request does; then the receiver grants when the sender's log
    is up to date and its role allows: unattached, voted, prospective, candidate and resigned
    replicas do, a follower only until it has fetched from its leader, a leader never. A grant
    changes no state: the receiver does not vote."""
    up_to_date = log_up_to_date(req.last_epoch, req.end_offset, node.last_epoch, node.end_offset)
    role = node.role
    allowed = (isinstance(role, Unattached | Voted | Prospective | Candidate | Resigned)
               or (isinstance(role, Follower) and not role.fetched))
    granted = _may_vote(node, req.src) and up_to_date and allowed
    return node, (*_persist(before, node),
                  VoteResponse(node.id, req.src, node.epoch, granted, _leader_hint(node), True))


def _on_begin_epoch(before: Node, node: Node, req: BeginQuorumEpochRequest) -> Step:
    """RAFT-RULE-BEGIN-EPOCH: a leader of an equal or higher epoch is followed (a higher one
    by RAFT-RULE-HIGHER-EPOCH already)."""
    # At an equal epoch only a replica that knows no leader follows the sender (Kafka's
    # maybeTransition: ``!quorum.hasLeader()``).
    if req.src != node.id and req.epoch == node.epoch and _follows_named_leader(node):
        node = to_follower(node, req.epoch, req.src)
    return node, (*_persist(before, node),
                  BeginQuorumEpochResponse(node.id, req.src, node.epoch, _leader_hint(node)))


def _on_end_epoch(before: Node, node: Node, req: EndQuorumEpochRequest) -> Step:
    """RAFT-RULE-END-EPOCH: a resigning leader's notice. In Kafka it shortens the recipient's
    fetch timeout; with time abstracted into timer events that changes no state."""
    if (req.epoch == node.epoch and req.src != node.id and req.src in node.voters
            and isinstance(node.role, Unattached | Voted | Candidate | Prospective) and _follows_named_leader(node)):
        # Kafka's maybeTransition: a replica without a leader in this epoch follows the sender.
        node = to_follower(node, req.epoch, req.src)
    return node, (*_persist(before, node),
                  EndQuorumEpochResponse(node.id, req.src, node.epoch, _leader_hint(node)))


def _fetch_error(node: Node, req: FetchRequest, error: ErrorCode) -> Step:
    return node, (FetchResponse(node.id, req.src, node.epoch, _leader_hint(node), error, req.fetch_offset),)


def _on_fetch_request(before: Node, node: Node, req: FetchRequest) -> Step:
    """RAFT-RULE-FETCH: only the leader of the request's epoch serves a fetch. A fetch whose
    (offset, last fetched epoch) is not in the leader's log gets the diverging epoch; a valid
    one updates the replica's end offset, the check-quorum set and the high watermark."""
    role = node.role
    if req.epoch > node.epoch:
        return _fetch_error(node, req, "UNKNOWN_LEADER_EPOCH")
    if not isinstance(role, Leader):
        return _fetch_error(node, req, "NOT_LEADER_OR_FOLLOWER")
    if node.snapshots and fetch_needs_snapshot(node, req.fetch_offset, req.last_fetched_epoch):
        # KIP-630: the records asked for are in a snapshot only; the answer names the latest
        # snapshot and carries no records, and, as a diverging answer, moves no replica's offset.
        return node, (FetchResponse(node.id, req.src, node.epoch, node.id, "NONE", req.fetch_offset, (),
                                    node.high_watermark, snapshot_id=node.latest_snapshot),)
    epoch_found, end = end_offset_for_epoch(node.log, req.last_fetched_epoch)
    valid = (req.fetch_offset == 0 and req.last_fetched_epoch == 0) or (
        epoch_found == req.last_fetched_epoch and end >= req.fetch_offset and req.fetch_offset <= node.end_offset)
    if not valid:
        return node, (FetchResponse(node.id, req.src, node.epoch, node.id, "NONE", req.fetch_offset,
                                    (), node.high_watermark, (epoch_found, end)),)
    if req.src < 0:
        # RAFT-RULE-FETCH-NO-REPLICA: replica id -1 is a fetch from outside the quorum (a
        # consumer): served, but it is no replica's position (Kafka's updateReplicaState ignores
        # a negative id), so neither the high watermark nor check-quorum hears of it.
        return node, (FetchResponse(node.id, req.src, node.epoch, node.id, "NONE", req.fetch_offset,
                                    node.log[req.fetch_offset:], node.high_watermark),)
    new_role = _with_end_offset(role, req.src, req.fetch_offset)
    if req.src in node.voters:
        if node.resends:
            # a valid fetch acknowledges the leader too (Kafka's ReplicaState.updateFollowerState
            # sets hasAcknowledgedLeader): RAFT-RULE-RESEND
            new_role = replace(new_role, acknowledged=new_role.acknowledged | {req.src})
        new_role = count_fetched(new_role, req.src, node)
    node = update_high_watermark(replace(node, role=new_role))
    entries = node.log[req.fetch_offset:]
    return node, (FetchResponse(node.id, req.src, node.epoch, node.id, "NONE", req.fetch_offset, entries,
                                node.high_watermark),)


# ---------------------------------------------------------------- leader-only requests


def leader_only_error(node: Node, epoch: int) -> ErrorCode | None:
    """RAFT-RULE-LEADER-ONLY: the error of a leader-only request of ``epoch`` (the leader epoch
    the sender believes current), or None where the leader of that epoch serves it: a lower
    epoch is fenced, a higher one unknown, an equal one at any other role is not the leader's
    (Kafka's ``validateLeaderOnlyRequest``, as for Fetch: RAFT-RULE-STALE-EPOCH, RAFT-RULE-FETCH)."""
    if epoch < node.epoch:
        return "FENCED_LEADER_EPOCH"
    if epoch > node.epoch:
        return "UNKNOWN_LEADER_EPOCH"
    if not isinstance(node.role, Leader):
        return "NOT_LEADER_OR_FOLLOWER"
    return None


def snapshot_answer(node: Node, req: FetchSnapshotRequest) -> FetchSnapshotResponse:
    """RAFT-RULE-FETCH-SNAPSHOT-LEADER: a FetchSnapshot of the replica's own partition, answered
    by the leader-only rule and, at the leader of its epoch, SNAPSHOT_NOT_FOUND: the model's
    replicas hold no snapshot (their logs start at offset 0), so none has the one asked for.
    The answer names the responder's epoch and leader."""
    error = leader_only_error(node, req.epoch)
    if error is None and req.snapshot_id in node.snapshots and req.position == 0:
        # KIP-630 (RAFT-RULE-FETCH-SNAPSHOT-DATA): the leader holds it and sends it whole.
        return FetchSnapshotResponse(node.id, req.src, node.epoch, node.id, "NONE", req.snapshot_id,
                                     node.log[:req.snapshot_id[0]])
    return FetchSnapshotResponse(node.id, req.src, node.epoch, _leader_hint(node), error or "SNAPSHOT_NOT_FOUND")


def fetch_needs_snapshot(node: Node, offset: int, last_epoch: int) -> bool:
    """RAFT-RULE-FETCH-SNAPSHOT-ID (KIP-630; Kafka's ``ReplicatedLog.validateOffsetAndEpoch``,
    kind ``SNAPSHOT``): a leader holding snapshots answers a fetch with its latest snapshot's id
    when the fetch is below its log start, at its log start with another last epoch than the
    earliest snapshot's, or with a last epoch below that snapshot's (the diverging epoch would
    lie below the log start). A fetch at offset 0 of a log that starts at 0 is always valid."""
    if not node.snapshots or (node.log_start == 0 and offset == 0):
        return False
    earliest_epoch = node.snapshots[0][1]
    return (offset < node.log_start or (offset == node.log_start and last_epoch != earliest_epoch)
            or last_epoch < earliest_epoch)


def snapshot_id_at(node: Node, end_offset: int) -> tuple[int, int] | None:
    """The id a snapshot of ``node``'s log up to ``end_offset`` takes, or None where the
    replica may not take one (RAFT-RULE-SNAPSHOT-TAKE, Kafka's ``createNewSnapshot``): only
    committed records (``end_offset`` at most its high watermark), not below its log start, and
    not one it holds or one older than its latest (which changes nothing). The epoch is the
    log's at ``end_offset - 1``; every record is a batch of its own in the model (a leader
    appends one record per batch), so every offset is a batch boundary (KAFKA-14619)."""
    hw = node.high_watermark
    latest = node.latest_snapshot
    if (isinstance(node.role, Down) or hw is None or end_offset < 1 or end_offset > hw
            or end_offset > node.end_offset or end_offset < node.log_start
            or (latest is not None and end_offset <= latest[0])):
        return None
    return end_offset, node.log[end_offset - 1].epoch


def take_snapshot(node: Node, end_offset: int) -> Node:
    """RAFT-RULE-SNAPSHOT-TAKE: the state machine snapshots the committed log up to
    ``end_offset``; an id it may not take changes nothing (Kafka throws to the caller, or
    returns no writer)."""
    snapshot = snapshot_id_at(node, end_offset)
    if snapshot is None:
        return node
    return replace(node, snapshots=(*node.snapshots, snapshot))


def clean_log(node: Node) -> Node:
    """RAFT-RULE-SNAPSHOT-CLEAN (Kafka's ``deleteBeforeSnapshot(latestSnapshotId)``): the
    records below the latest snapshot are deleted and the older snapshots with them; the log
    then starts at the snapshot's end. Only below the high watermark (Kafka refuses above it)."""
    latest = node.latest_snapshot
    hw = node.high_watermark
    if latest is None or latest[0] <= node.log_start or hw is None or latest[0] > hw or isinstance(node.role, Down):
        return node
    return replace(node, snapshots=(latest,), log_start=latest[0])


def on_fetch_snapshot_response(node: Node, resp: FetchSnapshotResponse) -> Step:
    """RAFT-RULE-FETCH-SNAPSHOT-LOAD (KIP-630): a follower fetching the snapshot its leader named
    takes the whole snapshot in one answer and truncates its log to it (Kafka's
    ``truncateToLatestSnapshot``): the snapshot's records are the log's prefix, the log starts
    and ends at its end, it holds that snapshot only, and its high watermark is at least the
    snapshot's end. SNAPSHOT_NOT_FOUND sends it back to fetching records; a higher epoch moves it
    on (RAFT-RULE-HIGHER-EPOCH); any other answer changes nothing."""
    role = node.role
    if resp.epoch is not None and resp.epoch > node.epoch:
        after = _observe_epoch(node, resp.epoch, resp.leader)
        return after, _persist(node, after)
    if (not isinstance(role, Follower) or role.fetching_snapshot is None or resp.src != role.leader
            or resp.epoch != node.epoch):
        return node, ()
    if resp.error == "SNAPSHOT_NOT_FOUND":
        return replace(node, role=replace(role, fetching_snapshot=None)), ()
    if resp.error != "NONE" or resp.snapshot_id != role.fetching_snapshot:
        return node, ()
    end = resp.snapshot_id[0]
    hw = end if node.high_watermark is None else max(node.high_watermark, end)
    after = replace(node, role=replace(role, fetching_snapshot=None), log=resp.entries, log_start=end,
                    snapshots=(resp.snapshot_id,), high_watermark=hw)
    return after, (TruncateLog(end),) if after.log != node.log else ()


def on_fetch_snapshot(node: Node, req: FetchSnapshotRequest) -> FetchSnapshotResponse:
    """RAFT-RULE-FETCH-SNAPSHOT: every role answers a FetchSnapshot and none changes state (its
    epoch is a leader-only request's, which moves no replica: RAFT-RULE-LEADER-ONLY). In
    Kafka's order: a request that does not name exactly one topic with exactly one partition
    is INVALID_REQUEST (RAFT-RULE-FETCH-SNAPSHOT-SHAPE, before any epoch check, with no
    partition in the answer); one naming another topic or partition is
    UNKNOWN_TOPIC_OR_PARTITION (RAFT-RULE-FETCH-SNAPSHOT-PARTITION, no leader or epoch in the
    answer); else ``snapshot_answer``."""
    if len(req.topics) != 1 or len(req.topics[0][1]) != 1:
        return FetchSnapshotResponse(node.id, req.src, None, None, "INVALID_REQUEST")
    if req.topics != OWN_PARTITION:
        return FetchSnapshotResponse(node.id, req.src, None, None, "UNKNOWN_TOPIC_OR_PARTITION")
    return snapshot_answer(node, req)


def on_describe_quorum(node: Node, req: DescribeQuorumRequest) -> DescribeQuorumResponse:
    """RAFT-RULE-DESCRIBE-QUORUM: only the leader describes the quorum (KIP-595; KAFKA-13940
    made Kafka's non-leaders answer NOT_LEADER_OR_FOLLOWER, a retriable error, as for every
    other leader-only request): its id, epoch, high watermark (None: not yet known) and each
    voter's log end offset, its own included, as it last saw it (-1: not fetched yet in its
    epoch). The request carries no epoch; the answer changes nothing."""
    role = node.role
    if not isinstance(role, Leader):
        return DescribeQuorumResponse(node.id, req.src, "NOT_LEADER_OR_FOLLOWER")
    seen = dict(role.end_offsets)
    offsets = tuple((v, node.end_offset if v == node.id else seen.get(v, -1)) for v in sorted(node.voters))
    return DescribeQuorumResponse(node.id, req.src, "NONE", node.id, node.epoch, node.high_watermark, offsets)


def _on_response(before: Node, node: Node, resp: Message) -> Step:
    """RAFT-RULE-RESPONSE: a response from a higher epoch moves the replica on and is done
    (RAFT-RULE-HIGHER-EPOCH; a stale one was ignored by RAFT-RULE-STALE-EPOCH); a response
    naming the leader of our epoch makes a replica without a leader follow it."""
    assert isinstance(resp, VoteResponse | BeginQuorumEpochResponse | EndQuorumEpochResponse | FetchResponse)
    if node.epoch > before.epoch:
        return node, _persist(before, node)
    role = node.role
    if (resp.leader is not None and resp.leader != node.id and _follows_named_leader(node)
            and isinstance(role, Unattached | Voted | Candidate | Prospective)):
        node = to_follower(node, resp.epoch, resp.leader)
        if isinstance(resp, FetchResponse):
            # Kafka handles the fetch in the same step: an observer (or a replica that missed
            # BeginQuorumEpoch) discovers the leader and appends from one response.
            node, more = _on_fetch_response(node, resp)
            return node, (*_persist(before, node), *more)
        return node, _persist(before, node)
    if isinstance(resp, VoteResponse):
        if resp.pre_vote:
            return _on_pre_vote_response(node, resp) if isinstance(role, Prospective) else (node, ())
        return _on_vote_response(node, resp)
    if isinstance(resp, FetchResponse):
        return _on_fetch_response(node, resp)
    return _acknowledge(node, resp), ()


def _acknowledge(node: Node, resp: BeginQuorumEpochResponse | EndQuorumEpochResponse) -> Node:
    """RAFT-RULE-RESEND: a ``NONE`` BeginQuorumEpochResponse of the leader's epoch acknowledges
    the leader (Kafka's ``LeaderState.addAcknowledgementFrom``), a ``NONE``
    EndQuorumEpochResponse the resignation (``ResignedState.acknowledgeResignation``); neither
    is sent again to that voter. Any other answer changes nothing (its epoch was handled by the
    cross-role rules)."""
    role = node.role
    if not node.resends or resp.error != "NONE" or resp.epoch != node.epoch or resp.src not in node.voters:
        return node
    if isinstance(resp, BeginQuorumEpochResponse) and isinstance(role, Leader):
        return replace(node, role=replace(role, acknowledged=role.acknowledged | {resp.src}))
    if isinstance(resp, EndQuorumEpochResponse) and isinstance(role, Resigned):
        return replace(node, role=replace(role, acknowledged=role.acknowledged | {resp.src}))
    return node


_Ballot = TypeVar("_Ballot", Candidate, Prospective)


def _tally(node: Node, role: _Ballot, resp: VoteResponse) -> tuple[Node, _Ballot]:
    """Count one answer to a (pre-)vote request: ``resp.src`` granted or rejected.
    RAFT-RULE-VOTE-ERROR: an answer with an error is no ballot: neither counted (the caller
    tallies only ``NONE`` answers)."""
    assert resp.error == "NONE"
    if resp.granted:
        role = replace(role, granted=role.granted | {resp.src})
    else:
        role = replace(role, rejected=role.rejected | {resp.src})
    return replace(node, role=role), role


def _on_vote_response(node: Node, resp: VoteResponse) -> Step:
    """RAFT-RULE-CANDIDATE: a majority of grants makes the candidate leader; once a majority
    can no longer grant, it backs off (RAFT-RULE-BACKOFF)."""
    role = node.role
    if not isinstance(role, Candidate) or resp.src not in node.voters or resp.error != "NONE":
        # RAFT-RULE-VOTE-ERROR: an error answer is no vote; the voter stays unanswered and the
        # request may be sent again (RAFT-RULE-RESEND)
        return node, ()
    node, role = _tally(node, role, resp)
    if resp.granted and is_quorum(role.granted, node.voters):
        return _become_leader(node)
    if not is_quorum(node.voters - role.rejected, node.voters):
        node = replace(node, role=replace(role, backing_off=True))
    return node, ()


def _on_pre_vote_response(node: Node, resp: VoteResponse) -> Step:
    """RAFT-RULE-PRE-VOTE: a majority of pre-votes starts a real election; a majority of
    rejections returns the replica to the state it came from."""
    role = node.role
    assert isinstance(role, Prospective)
    if resp.src not in node.voters or resp.error != "NONE":
        return node, ()  # RAFT-RULE-VOTE-ERROR, as for a candidate
    node, role = _tally(node, role, resp)
    if is_quorum(role.granted, node.voters):
        return _become_candidate(node)
    if not is_quorum(node.voters - role.rejected, node.voters):
        return _restore(node, role.prior, role.unreachable), ()
    return node, ()


def _restore(node: Node, prior: Election, unreachable: bool = False) -> Node:
    """RAFT-KIP996-LOSS: a prospective that loses (a majority rejects, or its election timer
    expires) follows the leader it knew, else is unattached in its epoch with the vote it had
    (Kafka 4.0+ ``prospectiveTransitionAfterElectionLoss``; ``transitionToUnattached`` keeps the
    voted key within the epoch, the replica's own vote of a lost candidacy included). A leader
    it knew without an endpoint is kept, unattached (RAFT-KIP853-LEADER-UNREACHABLE)."""
    if unreachable and prior.leader is not None:
        role: Role = (Voted(prior.epoch, prior.voted_for, prior.leader) if prior.voted_for is not None
                      else Unattached(prior.epoch, prior.leader))
        _check(node, ROLE_NAMES[type(role)], epoch=prior.epoch)
        return replace(node, role=role)
    if prior.leader is not None and prior.leader != node.id:
        return to_follower(node, prior.epoch, prior.leader)
    if prior.voted_for is not None:
        return to_voted(node, prior.epoch, prior.voted_for)
    return to_unattached(node, prior.epoch)


def _on_fetch_response(node: Node, resp: FetchResponse) -> Step:
    """RAFT-RULE-FOLLOWER-FETCH: append the leader's records, or truncate to the diverging
    epoch's end offset (RAFT-RULE-TRUNCATE); the follower's high watermark is the leader's,
    capped at its own log end, and never moves back."""
    role = node.role
    if not isinstance(role, Follower) or resp.src != role.leader or resp.error != "NONE":
        return node, ()
    if node.pre_vote and not role.fetched and (resp.diverging is not None or resp.snapshot_id is not None
                                               or resp.offset == node.end_offset):
        # Kafka 4.0+ resetFetchTimeoutForSuccessfulFetch, after a truncation or an append: from
        # now on this follower grants no pre-vote (RAFT-KIP996-PRE-VOTE-GRANT).
        node = replace(node, role=replace(role, fetched=True))
    if resp.diverging is not None:
        div_epoch, div_end = resp.diverging
        local_epoch, local_end = end_offset_for_epoch(node.log, div_epoch)
        target = min(local_end, div_end) if local_epoch == div_epoch else local_end
        if target >= node.end_offset:
            return node, ()
        return replace(node, log=node.log[:target]), (TruncateLog(target),)
    if resp.snapshot_id is not None:
        # KIP-630: fetch that snapshot next (RAFT-RULE-FETCH-SNAPSHOT-ID); nothing else changes.
        return replace(node, role=replace(node.role, fetching_snapshot=resp.snapshot_id)), ()
    if resp.offset != node.end_offset:
        # A reply to an older fetch; Kafka matches replies to the one fetch in flight.
        return node, ()
    outputs: tuple[Output, ...] = ()
    if resp.entries:
        outputs = (AppendLog(node.end_offset, resp.entries),)
        node = replace(node, log=node.log + resp.entries)
    if resp.high_watermark is not None:
        hw = min(resp.high_watermark, node.end_offset)
        if node.high_watermark is None or hw > node.high_watermark:
            node = replace(node, high_watermark=hw)
    return node, outputs


def _on_election_timeout(node: Node) -> Step:
    """RAFT-RULE-ELECTION: a voter with no leader starts an election when its timer expires;
    a candidate whose election times out backs off first (RAFT-RULE-BACKOFF)."""
    role = node.role
    if not node.is_voter:
        return node, ()
    if isinstance(role, Unattached | Voted):
        return _start_election(node)
    if isinstance(role, Resigned):
        if node.pre_vote:
            # KIP-996 (Kafka 4.0+ pollResigned): the epoch moves on without a vote; the next
            # timeout starts a pre-vote (RAFT-KIP996-RESIGNED).
            after = to_unattached(node, node.epoch + 1)
            # The unattached state inherits the resigned state's expired timer: the pre-vote
            # starts in the same step (transitionToUnattached: resignedState.remainingElectionTimeMs).
            later, more = _start_election(after)
            return later, _persist(node, after) + more
        return _become_candidate(node)
    if isinstance(role, Candidate) and not role.backing_off:
        if node.pre_vote:
            # Kafka 4.0+ pollCandidate: an expired election goes to prospective at once.
            return _start_election(node)
        return replace(node, role=replace(role, backing_off=True, timed_out=True)), ()
    if isinstance(role, Prospective):
        after = _restore(node, role.prior, role.unreachable)
        if isinstance(after.role, Follower):
            return after, ()
        # RAFT-KIP996-TIMEOUT: Kafka's transitionToUnattached gives the unattached state the
        # prospective's expired timer, so the next pre-vote starts in the same step.
        return _start_election(after)
    return node, ()


def count_fetched(role: Leader, voter: int, leader: Node) -> Leader:
    """RAFT-RULE-CHECK-QUORUM: a valid fetch from ``voter`` at ``leader`` (whose new role is
    ``role``) is counted; the moment the voters that fetched, the leader with them, are a
    majority, the set is cleared and the check-quorum timer reset (Kafka's
    ``updateCheckQuorumForFollowingVoter``), which renews the current period
    (RAFT-RULE-CHECK-QUORUM-PERIOD; not where the model runs without it, ``Node.check_quorum_period``)."""
    fetched = role.fetched | {voter}
    if is_quorum(fetched | {leader.id}, leader.voters):
        return replace(role, fetched=frozenset(), renewed=leader.check_quorum_period)
    return replace(role, fetched=fetched)


def _on_check_quorum_timeout(node: Node) -> Step:
    """RAFT-RULE-CHECK-QUORUM: a leader that has not heard a fetch from a majority of voters
    within the fetch timeout resigns and tells the voters so. RAFT-RULE-CHECK-QUORUM-PERIOD: the
    timeout ends the period that began at the election or the last CheckQuorumTimeout; where a
    majority fetched within it, the timer was reset then and runs on (a new period, the count
    since the reset kept)."""
    role = node.role
    if isinstance(role, Leader) and role.renewed:
        return replace(node, role=replace(role, renewed=False)), ()
    if not isinstance(role, Leader) or is_quorum(role.fetched | {node.id}, node.voters):
        return node, ()
    after = to_resigned(node)
    # Kafka names preferred successors (by descending fetch offset); they only shorten the
    # successors' timers, which are abstract here, so the model names none (D-CHECK-QUORUM-
    # SUCCESSORS): a tie broken by replica id would also break the voters' symmetry.
    return after, _end_epoch_requests(after)


def _on_fetch_due(node: Node, to: int) -> Step:
    """A follower fetches from its leader; an unattached observer asks any voter."""
    role = node.role
    if isinstance(role, Follower) and to == role.leader and role.fetching_snapshot is not None:
        return node, (FetchSnapshotRequest(node.id, to, node.epoch, role.fetching_snapshot),)
    if isinstance(role, Follower) and to == role.leader:
        return node, (FetchRequest(node.id, to, node.epoch, node.end_offset, node.last_epoch),)
    if isinstance(role, Unattached | Voted) and not node.is_voter and to in node.voters:
        # An observer without a leader asks any voter; one that voted (KIP-853 lets it) is
        # still an observer (RAFT-KIP853-OPEN-VOTE).
        return node, (FetchRequest(node.id, to, node.epoch, node.end_offset, node.last_epoch),)
    return node, ()


def unanswered(node: Node) -> list[int]:
    """RAFT-RULE-RESEND: the voters this replica may send its role's request again, because they
    have not answered it: a leader's voters that have not acknowledged its epoch (Kafka 3.3-3.8
    ``nonAcknowledgingVoters``), a resigned leader's that have not acknowledged its resignation
    (``unackedVoters``), a candidate's or prospective's that neither granted nor rejected its
    (pre-)vote (``unrecordedVoters``; none while a candidate backs off, as ``pollCandidate``
    sends nothing then). Empty in every other role, and where the replica keeps no record of
    answers (``Node.resends``)."""
    role = node.role
    if not node.resends or not node.is_voter:
        return []
    answered: frozenset[int]
    match role:
        case Leader(acknowledged=acked) | Resigned(acknowledged=acked):
            answered = acked
        case Candidate(backing_off=False) | Prospective():
            answered = role.granted | role.rejected
        case _:
            return []
    return [v for v in _others(node) if v not in answered]


def _on_resend_due(node: Node, to: int) -> Step:
    """RAFT-RULE-RESEND: the role's request again, to one voter that has not answered it (KIP-595:
    the leader keeps sending BeginQuorumEpoch until each voter has acknowledged it; the Raft
    paper's servers retry RPCs that are not answered in time, §5.1). Anywhere else it does
    nothing: the rule set allows no resend to a voter that answered, nor from any other role."""
    if to not in unanswered(node):
        return node, ()
    role = node.role
    match role:
        case Leader():
            return node, (BeginQuorumEpochRequest(node.id, to, node.epoch),)
        case Resigned():
            return node, (EndQuorumEpochRequest(node.id, to, node.epoch, ()),)
        case Candidate():
            return node, (VoteRequest(node.id, to, node.epoch, node.last_epoch, node.end_offset, False),)
        case Prospective():
            return node, (VoteRequest(node.id, to, node.epoch, node.last_epoch, node.end_offset, True),)
    return node, ()


def _on_client_append(node: Node, payload: tuple[int, ...]) -> Step:
    """The leader appends a client record in its epoch."""
    if not isinstance(node.role, Leader):
        return node, ()
    entry = Entry(node.epoch, "data", payload)
    after = update_high_watermark(replace(node, log=(*node.log, entry)))
    return after, (AppendLog(node.end_offset, (entry,)),)


# The role handlers of each message kind, after the cross-role rules (``_fenced``,
# ``_higher_epoch``): each takes the replica before the step, the replica after the cross-role
# rules, and the message.
HANDLERS: dict[type, Callable[[Node, Node, Any], Step]] = {
    VoteRequest: _on_vote_request, BeginQuorumEpochRequest: _on_begin_epoch, EndQuorumEpochRequest: _on_end_epoch,
    FetchRequest: _on_fetch_request, VoteResponse: _on_response, BeginQuorumEpochResponse: _on_response,
    EndQuorumEpochResponse: _on_response, FetchResponse: _on_response,
}


def enabled_inputs(node: Node) -> list[Input]:
    """The timer and client inputs that can change this replica now (not messages, crash or
    restart, which the system model adds): what a harness may fire."""
    role = node.role
    out: list[Input] = []
    match role:
        case Down():
            return out
        case Unattached() | Voted() if not node.is_voter:
            out += [FetchDue(v) for v in sorted(node.voters)]
        case Unattached() | Voted() | Resigned() | Prospective():
            out.append(ElectionTimeout())
        case Candidate(backing_off=False):
            out.append(ElectionTimeout())
        case Candidate(backing_off=True):
            out.append(BackoffExpired())
        case Follower(leader=leader):
            out.append(FetchDue(leader))
            if node.is_voter:
                out.append(FetchTimeout())
        case Leader(fetched=fetched, renewed=renewed):
            if renewed or not is_quorum(fetched | {node.id}, node.voters):
                out.append(CheckQuorumTimeout())
            out.append(ClientAppend())
    out += [ResendDue(v) for v in unanswered(node)]
    return out


def new_node(node_id: int, voters: frozenset[int], pre_vote: bool = False, kip853: bool | None = None) -> Node:
    """A replica's first start: epoch 0, empty log, unattached. ``kip853`` picks the rules for
    requests between non-voters: KIP-595's voter-only checks (False), KIP-853's open vote
    (True), or neither (None: the voter-set model, where only voters vote)."""
    return Node(node_id, voters, (), Unattached(0), None, pre_vote, voter_only=kip853 is False,
                open_votes=kip853 is True)


def observe(node: Node) -> dict[str, object]:
    """What the conformance suite compares after every step (RAFT-OBS)."""
    election = election_of(node)
    return {
        "role": node.role_name,
        "epoch": node.epoch,
        "leader": election.leader,
        "voted_for": election.voted_for,
        "log": [[e.epoch, e.kind] for e in node.log[node.log_start:]],
        "high_watermark": node.high_watermark,
    } | snapshot_observation(node)


def snapshot_observation(node: Node) -> dict[str, object]:
    """RAFT-OBS-SNAPSHOT: once a replica holds a snapshot, its log start offset and its
    snapshot ids are compared too, and ``log`` is the records from the log start on (the ones
    below it are gone). Nothing is added before: a target without snapshots reports as before."""
    if not node.snapshots:
        return {}
    return {"log_start": node.log_start, "snapshots": [list(s) for s in node.snapshots]}
