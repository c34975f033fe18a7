"""KRaft's named properties: safety invariants, transition properties and witnesses.

Each carries its spec ID (``spec/raft.md``); the TLA+ invariants, Z3 obligations and CLI
output use the same names. Every ``always`` property names the witnesses that show its
interesting states are reached.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kspec.model.core.protocol import Property, always, always_step, sometimes, sometimes_step
from kspec.model.raft.messages import (
    BeginQuorumEpochRequest,
    CheckQuorumTimeout,
    Crash,
    EndQuorumEpochRequest,
    FetchResponse,
    FetchSnapshotResponse,
    ResendDue,
    Restart,
    VoteRequest,
)
from kspec.model.raft.node import unanswered
from kspec.model.raft.rules import majority
from kspec.model.raft.state import Candidate, Follower, Leader, Node, Prospective, Resigned
from kspec.model.raft.system import Fire, Reboot


@always("RAFT-INV-ELECTION-SAFETY", "ElectionSafety", witnessed_by=("LeaderElected", "SecondEpochLeader"))
def election_safety(s: Any) -> bool:
    """At most one leader is ever elected in an epoch."""
    seen: dict[int, int] = {}
    for epoch, leader in s.elected:
        if seen.setdefault(epoch, leader) != leader:
            return False
    return True


@always("RAFT-INV-VOTE-ONCE", "VoteOnce", witnessed_by=("VoteGranted",))
def vote_once(s: Any) -> bool:
    """A voter grants at most one vote per epoch (counting its vote for itself)."""
    seen: dict[tuple[int, int], int] = {}
    for voter, epoch, candidate in s.votes:
        if seen.setdefault((voter, epoch), candidate) != candidate:
            return False
    return True


@always("RAFT-INV-COMMITTED-UNIQUE", "CommittedLogsAgree", witnessed_by=("RecordCommitted",))
def committed_logs_agree(s: Any) -> bool:
    """No two different records are ever committed at the same offset, and every replica's
    log agrees with every other's below both their high watermarks."""
    at: dict[int, Any] = {}
    for offset, entry, _ in s.committed:
        if at.setdefault(offset, entry) != entry:
            return False
    nodes = [n for n in s.nodes if n.high_watermark]
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            m = min(a.high_watermark, b.high_watermark)
            if a.log[:m] != b.log[:m]:
                return False
    return True


@always("RAFT-INV-LEADER-COMPLETENESS", "LeaderCompleteness", witnessed_by=("LeaderAfterCommit",))
def leader_completeness(s: Any) -> bool:
    """A record committed in some epoch is in the log of every leader of a later epoch."""
    for n in s.nodes:
        if not isinstance(n.role, Leader):
            continue
        for offset, entry, epoch in s.committed:
            if epoch < n.epoch and (offset >= len(n.log) or n.log[offset] != entry):
                return False
    return True


@always("RAFT-INV-HW-MAJORITY", "HighWatermarkDurable", witnessed_by=("RecordCommitted",))
def high_watermark_durable(s: Any) -> bool:
    """Every replica's high watermark is at most what a majority of voters hold: a majority of
    the voters' logs (crashed ones included: logs are durable) have the same prefix."""
    voters = [n for n in s.nodes if n.is_voter]
    need = majority(len(voters))
    for n in s.nodes:
        hw = n.high_watermark
        if not hw:
            continue
        prefix = n.log[:hw]
        if len(prefix) < hw or sum(1 for v in voters if v.log[:hw] == prefix) < need:
            return False
    return True


@always_step("RAFT-STEP-HW-MONOTONIC", "HighWatermarkMonotonic", witnessed_by=("HighWatermarkAdvances",))
def high_watermark_monotonic(before: Any, action: Any, after: Any) -> bool:
    """A replica's known high watermark never moves backwards while it runs (a restart forgets
    it; a new leader forgets it until it commits in its epoch; a resigning leader forgets it,
    as Kafka's ResignedState has none)."""
    for b, a in zip(before.nodes, after.nodes, strict=True):
        if a is b:
            continue  # a replica the step left alone (most of them: the explorer's speed)
        inp = getattr(action, "input", None)
        if isinstance(inp, Crash | Restart) and getattr(action, "node", None) == a.id:
            continue
        if b.high_watermark is not None and a.high_watermark is not None and a.high_watermark < b.high_watermark:
            return False
    return True


@always_step("RAFT-STEP-EPOCH-MONOTONIC", "EpochMonotonic", witnessed_by=("SecondEpochLeader",))
def epoch_monotonic(before: Any, action: Any, after: Any) -> bool:
    """No replica's epoch (persisted or current) ever decreases, across restarts too."""
    for b, a in zip(before.nodes, after.nodes, strict=True):  # (a plain loop: every step is asked)
        if a is not b and a.epoch < b.epoch:
            return False
    return True


def resent(before: Any, action: Any, after: Any) -> list[Any]:
    """The messages a ResendDue step put in flight (none for any other step)."""
    if not (isinstance(action, Fire) and isinstance(action.input, ResendDue)):
        return []
    had = dict(before.network.items)
    out: list[Any] = []
    for m, c in after.network.items:
        out += [m] * max(0, c - had.get(m, 0))
    return out


def _resend_kind(node: Node, m: Any) -> bool:
    """Whether ``m`` is the request the replica's role sends (RAFT-RULE-RESEND)."""
    match node.role:
        case Leader():
            return isinstance(m, BeginQuorumEpochRequest)
        case Resigned():
            return isinstance(m, EndQuorumEpochRequest)
        case Candidate():
            return isinstance(m, VoteRequest) and not m.pre_vote
        case Prospective():
            return isinstance(m, VoteRequest) and m.pre_vote
    return False


@always_step("RAFT-STEP-RESEND", "ResendOnlyUnanswered", witnessed_by=("BeginQuorumEpochResent",))
def resend_only_unanswered(before: Any, action: Any, after: Any) -> bool:
    """A resend goes only where the rule set allows (RAFT-RULE-RESEND): to the one voter it is
    due to, which has not answered, as the request of the sender's role in its epoch (a
    leader's BeginQuorumEpoch, a resigned leader's EndQuorumEpoch, a candidate's Vote, a
    prospective's pre-vote); a replica in any other role resends nothing."""
    msgs = resent(before, action, after)
    if not msgs:
        return True
    sender = before.node(action.node)
    to = action.input.to
    return to in unanswered(sender) and all(
        m.src == sender.id and m.dst == to and m.epoch == sender.epoch and _resend_kind(sender, m) for m in msgs)


def _check_quorum_set_counted(n: Node) -> bool:
    """A leader's check-quorum record (``Leader.fetched``) as RAFT-RULE-CHECK-QUORUM keeps it:
    voters only, never the leader itself, and never with the leader a majority (the timer is
    reset, and the record cleared, the moment a majority fetched)."""
    role = n.role
    if not isinstance(role, Leader) or not role.fetched:
        return True
    return role.fetched <= n.voters - {n.id} and len(role.fetched | {n.id}) < majority(len(n.voters))


def _fetched_quorum(n: Node) -> bool:
    """Whether the voters that fetched from leader ``n`` since its check-quorum timer was last
    reset, with itself counted once and observers not at all, are a majority."""
    assert isinstance(n.role, Leader)
    heard = (n.role.fetched & n.voters) | ({n.id} & n.voters)
    return len(heard) >= majority(len(n.voters))


@always_step("RAFT-STEP-CHECK-QUORUM", "CheckQuorumCounted",
             witnessed_by=("LeaderResignsCheckQuorum", "CheckQuorumAfterFetch", "CheckQuorumRenewed"))
def check_quorum_counted(before: Any, action: Any, after: Any) -> bool:
    """Check-quorum counts right (RAFT-RULE-CHECK-QUORUM): a running leader resigns only on its
    own CheckQuorumTimeout, and only when the voters that fetched from it since its timer was
    last reset, itself counted once and observers not at all, are fewer than a majority, so it
    never resigns while a majority fetched, nor at the end of a period in which a majority
    fetched (RAFT-RULE-CHECK-QUORUM-PERIOD: the timer was reset within it); and after every step
    each leader's record of who fetched holds voters other than itself, never a majority with it
    (it is cleared, the timer reset, the moment a majority fetched)."""
    for b, a in zip(before.nodes, after.nodes, strict=True):
        role = a.role
        if isinstance(role, Leader) and role.fetched and not _check_quorum_set_counted(a):
            return False
        if a is b:
            continue  # neither resigned nor a leader's record changed (the explorer's speed)
        # Down is not a resignation: a crash, or a release's catalogued exception stopping the
        # replica (a deviation's Halt, RAFT-OBS-EXCEPTION), ends a leader without check-quorum.
        if not (isinstance(b.role, Leader) and isinstance(role, Resigned)):
            continue
        rebooted = action.node if isinstance(action, Reboot) or isinstance(getattr(action, "input", None),
                                                                             Crash | Restart) else None
        if a.id == rebooted:
            continue
        timeout = isinstance(action, Fire) and action.node == a.id and isinstance(action.input, CheckQuorumTimeout)
        if not timeout or _fetched_quorum(b) or b.role.renewed:
            return False
    return True


@sometimes_step("RAFT-WIT-CHECK-QUORUM-RENEWED", "CheckQuorumRenewed")
def check_quorum_renewed(before: Any, action: Any, after: Any) -> bool:
    """A leader's CheckQuorumTimeout ends a period in which a majority fetched and the leader
    leads on (RAFT-RULE-CHECK-QUORUM-PERIOD): the timer reset by that majority has not expired."""
    if not (isinstance(action, Fire) and isinstance(action.input, CheckQuorumTimeout)):
        return False
    b, a = before.node(action.node), after.node(action.node)
    return isinstance(b.role, Leader) and b.role.renewed and isinstance(a.role, Leader)


@sometimes_step("RAFT-WIT-CHECK-QUORUM-AFTER-FETCH", "CheckQuorumAfterFetch")
def check_quorum_after_fetch(before: Any, action: Any, after: Any) -> bool:
    """A leader that a voter fetched from in its epoch resigns on CheckQuorumTimeout: its timer
    was reset by fetches and expired again, so RAFT-STEP-CHECK-QUORUM is checked on a leader
    whose followers were counted."""
    if not (isinstance(action, Fire) and isinstance(action.input, CheckQuorumTimeout)):
        return False
    b = before.node(action.node)
    return (isinstance(b.role, Leader) and isinstance(after.node(action.node).role, Resigned)
            and any(r in b.voters and r != b.id for r, _ in b.role.end_offsets))


@sometimes("RAFT-WIT-BEGIN-EPOCH-RESENT", "BeginQuorumEpochResent", needs="max_resends")
def begin_quorum_epoch_resent(s: Any) -> bool:
    """A leader has sent BeginQuorumEpoch again to a voter that had not acknowledged it (its
    first copy, or the answer, was lost). A state witness (the run's ghost ``resent``), so
    guided runs plan a path to it (conformance/drivers/guide.py). It needs a resend: at
    ``max_resends`` 0 (the default, as ``max_duplicates``) no run can reach it, and the
    explorer reports it as not applicable there."""
    return "BeginQuorumEpochRequest" in s.resent


@sometimes("RAFT-WIT-LEADER-ELECTED", "LeaderElected")
def leader_elected(s: Any) -> bool:
    """Some replica is leader."""
    return any(isinstance(n.role, Leader) for n in s.nodes)


@sometimes("RAFT-WIT-SECOND-EPOCH-LEADER", "SecondEpochLeader")
def second_epoch_leader(s: Any) -> bool:
    """A leader of an epoch after the first is elected."""
    return any(isinstance(n.role, Leader) and n.epoch >= 2 for n in s.nodes)


@sometimes("RAFT-WIT-VOTE-GRANTED", "VoteGranted")
def vote_granted(s: Any) -> bool:
    """A voter granted its vote to another replica."""
    return any(voter != candidate for voter, _, candidate in s.votes)


@sometimes("RAFT-WIT-RECORD-COMMITTED", "RecordCommitted")
def record_committed(s: Any) -> bool:
    """A client record is committed."""
    return any(entry.kind == "data" for _, entry, _ in s.committed)


@sometimes("RAFT-WIT-LEADER-AFTER-COMMIT", "LeaderAfterCommit")
def leader_after_commit(s: Any) -> bool:
    """A leader of a later epoch than a committed record's exists (completeness is tested)."""
    return any(isinstance(n.role, Leader) and any(e < n.epoch for _, _, e in s.committed) for n in s.nodes)


@sometimes_step("RAFT-WIT-HW-ADVANCES", "HighWatermarkAdvances")
def high_watermark_advances(before: Any, action: Any, after: Any) -> bool:
    """A follower's high watermark moves forward."""
    return any(a is not b and isinstance(a.role, Follower) and (a.high_watermark or 0) > (b.high_watermark or 0)
               for b, a in zip(before.nodes, after.nodes, strict=True))


@sometimes_step("RAFT-WIT-TRUNCATION", "FollowerTruncates")
def follower_truncates(before: Any, action: Any, after: Any) -> bool:
    """A follower truncates its log on a diverging epoch in a fetch response."""
    msg = diverging_response(action)
    return msg is not None and len(after.node(msg.dst).log) < len(before.node(msg.dst).log)


def diverging_response(action: Any) -> FetchResponse | None:
    """The fetch response with a diverging epoch that ``action`` delivers, if any (the step
    where a replica may truncate its log)."""
    msg = getattr(action, "message", None)  # a Deliver's message; other actions have none
    return msg if isinstance(msg, FetchResponse) and msg.diverging is not None else None


@sometimes_step("RAFT-WIT-CHECK-QUORUM-RESIGN", "LeaderResignsCheckQuorum")
def leader_resigns_check_quorum(before: Any, action: Any, after: Any) -> bool:
    """A leader resigns because a majority did not fetch within the check-quorum timeout."""
    if not isinstance(getattr(action, "input", None), CheckQuorumTimeout):
        return False
    return isinstance(after.node(action.node).role, Resigned)


@sometimes_step("RAFT-WIT-RESTART-REJOIN", "RestartRejoins")
def restart_rejoins(before: Any, action: Any, after: Any) -> bool:
    """A replica restarts and rejoins: it comes back following the current leader."""
    if isinstance(action, Reboot) or isinstance(getattr(action, "input", None), Restart):
        replica = action.node
    else:
        return False
    node = after.node(replica)
    if not isinstance(node.role, Follower):
        return False
    leader = after.node(node.role.leader)
    return isinstance(leader.role, Leader) and leader.epoch == node.epoch


@always("RAFT-INV-SNAPSHOT-COMMITTED", "SnapshotCommitted", witnessed_by=("SnapshotTaken", "SnapshotLoaded"))
def snapshot_committed(s: Any) -> bool:
    """KIP-630: a snapshot holds committed records only. Every snapshot taken ended at or below
    the high watermark of the replica that took it (the ghost ``snapshot_marks``), and every
    snapshot a replica holds, taken or fetched, has the id of its last record (end offset and
    that record's epoch) and contents that were committed (each record is in the ghost
    ``committed``, so, with RAFT-INV-COMMITTED-UNIQUE, a prefix of every replica's committed
    log); a replica's log starts at its earliest snapshot's end at most."""
    if any(end > hw for _, end, hw in s.snapshot_marks):
        return False
    committed = {(o, e) for o, e, _ in s.committed}
    for n in s.nodes:
        if not n.snapshots:
            if n.log_start:
                return False
            continue
        if n.log_start > n.snapshots[0][0]:
            return False
        for end, epoch in n.snapshots:
            if end > len(n.log) or n.log[end - 1].epoch != epoch:
                return False
            if any((o, n.log[o]) not in committed for o in range(end)):
                return False
    return True


@sometimes("RAFT-WIT-SNAPSHOT-TAKEN", "SnapshotTaken", needs="max_snapshots")
def snapshot_taken(s: Any) -> bool:
    """A replica cleaned its log below a snapshot it took: its log starts past offset 0."""
    return any(n.log_start > 0 for n in s.nodes)


@sometimes_step("RAFT-WIT-SNAPSHOT-LOADED", "SnapshotLoaded", needs="max_snapshots")
def snapshot_loaded(before: Any, action: Any, after: Any) -> bool:
    """A follower fetched its leader's snapshot (KIP-630's FetchSnapshot) and truncated its log
    to it: the records below the snapshot's end reached it as a snapshot, not as records."""
    msg = getattr(action, "message", None)
    if not isinstance(msg, FetchSnapshotResponse) or msg.error != "NONE" or msg.snapshot_id is None:
        return False
    start: int = after.node(msg.dst).log_start
    return bool(start == msg.snapshot_id[0] != before.node(msg.dst).log_start)


def raft_properties() -> Sequence[Property[Any, Any]]:
    """Every KRaft property, invariants first."""
    return (
        election_safety, vote_once, committed_logs_agree, leader_completeness, high_watermark_durable,
        high_watermark_monotonic, epoch_monotonic, resend_only_unanswered, check_quorum_counted,
        leader_elected, second_epoch_leader, vote_granted, record_committed, leader_after_commit,
        high_watermark_advances, follower_truncates, leader_resigns_check_quorum, restart_rejoins,
        begin_quorum_epoch_resent, check_quorum_after_fetch, check_quorum_renewed,
        snapshot_committed, snapshot_taken, snapshot_loaded,
    )


def by_name() -> dict[str, Property[Any, Any]]:
    """The properties keyed by name."""
    return {p.name: p for p in raft_properties()}


