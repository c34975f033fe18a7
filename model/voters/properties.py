"""The voter-set model's named properties: invariants, transition properties and witnesses.

Each carries its spec ID (``spec/voters.md``). KRaft's own safety properties are checked too,
under reconfiguration, with the voter-set spec IDs.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from kspec.model.core.memo import by_identity
from kspec.model.core.protocol import Property, always, always_step, sometimes, sometimes_step
from kspec.model.raft import properties as raft_props
from kspec.model.raft.messages import ElectionTimeout, FetchDue, FetchRequest, FetchResponse, VoteRequest, VoteResponse
from kspec.model.raft.state import Candidate, Down, Follower, Leader, Prospective, Resigned, Unattached, Voted
from kspec.model.raft.system import Deliver, Fire
from kspec.model.voters.control import KRAFT_VERSION, VOTERS, rebuild, view, voters_of
from kspec.model.voters.history import voter_ids
from kspec.model.voters.node import (
    AddVoter,
    AddVoterRequest,
    UpdateVoter,
    VoterNode,
    fetch_not_a_voters,
    removed_leader,
    seeks_leader,
    vote_not_for_me,
)


def _voter_records(log: Any) -> list[tuple[int, Any]]:
    return [(o, e) for o, e in enumerate(log) if e.kind == VOTERS]


def _committed(s: Any) -> set[tuple[int, Any]]:
    return {(o, e) for o, e, _ in s.committed}


@always("VOTERS-INV-ONE-VOTER-DIFF", "ConsecutiveVoterSetsDifferByOne",
        witnessed_by=("VoterAdded", "VoterRemoved"))
def consecutive_sets_differ_by_one(s: Any) -> bool:
    """In every replica's log, each voter set differs from the one before it (the initial set
    first) by at most one voter."""
    for n in s.nodes:
        prev = s.initial_voters
        for _, e in _voter_records(n.log):
            cur = voter_ids(voters_of(e))
            if len(cur ^ prev) > 1:
                return False
            prev = cur
    return True


@always("VOTERS-INV-ONE-UNCOMMITTED", "AtMostOneUncommittedChange",
        witnessed_by=("VoterAdded", "UncommittedChangeTruncated"))
def at_most_one_uncommitted(s: Any) -> bool:
    """No replica's log holds more than one VotersRecord that is not committed."""
    committed = _committed(s)
    return all(sum(1 for r in _voter_records(n.log) if r not in committed) <= 1 for n in s.nodes)


@always("VOTERS-INV-CURRENT-SET", "VotersFromLogEnd", witnessed_by=("VoterAdded", "VoterRemoved"))
def voters_from_log_end(s: Any) -> bool:
    """Every replica uses the voter set of the last VotersRecord in its log, committed or not
    (the initial set when its log has none)."""
    for n in s.nodes:
        records = _voter_records(n.log)
        expected = voter_ids(voters_of(records[-1][1])) if records else s.initial_voters
        if isinstance(n, VoterNode) and n.replaced:
            # VOTERS-RULE-DISK-REPLACED: a new disk's set comes from its own log (its bootstrap
            # checkpoint has none), and holds the replica itself only under its new key
            keys = voters_of(records[-1][1]) if records else frozenset()
            expected = voter_ids(keys) - ({n.id} if (n.id, n.directory) not in keys else set())
        if n.voters != expected:
            return False
    return True


@always("VOTERS-INV-REBUILD", "ControlStateRebuilds",
        witnessed_by=("SnapshotTaken", "UncommittedChangeTruncated", "VoterAdded"))
def control_state_rebuilds(s: Any) -> bool:
    """The control state a running replica keeps incrementally answers as the one rebuilt from
    its latest snapshot and its log: kraft.version and voter set at every offset from the
    snapshot's last offset to the log end, and the last values."""
    return all(_node_control_rebuilds(n) for n in s.nodes)


@by_identity  # a pure function of one replica, which successor states share (explorer speed)
def _node_control_rebuilds(n: Any) -> bool:
    if isinstance(n.role, Down):
        return True
    start = n.snapshot.end_offset if n.snapshot is not None else 0
    if n.control.next_offset != len(n.log):
        return False
    return bool(view(n.control, start) == view(rebuild(n.static, n.snapshot, n.log), start))


@always("VOTERS-INV-HISTORY-ORDER", "HistoryOffsetsIncrease", witnessed_by=("VoterAdded",))
def history_offsets_increase(s: Any) -> bool:
    """Every replica's voter-set and kraft.version history offsets strictly increase and lie
    below its next offset."""
    for n in s.nodes:
        for entries in (n.control.voters.entries, n.control.kraft_versions.entries):
            offsets = [o for o, _ in entries]
            if any(a >= b for a, b in pairwise(offsets)):
                return False
            if offsets and offsets[-1] >= n.control.next_offset:
                return False
    return True


@always("VOTERS-INV-BOOTSTRAP-REPLICATED", "BootstrapVotersReplicated", witnessed_by=("BootstrapVotersCommitted",))
def bootstrap_voters_replicated(s: Any) -> bool:
    """VOTERS-RULE-FIRST-LEADER: a running replica with committed records never takes the voter
    set in force at its high watermark from the bootstrap checkpoint (offset -1), which other
    replicas may not have: a record of the log (or of a snapshot of it) holds it."""
    for n in s.nodes:
        hw = n.high_watermark
        if isinstance(n.role, Down) or not hw:
            continue
        below = [o for o, _ in n.control.voters.entries if o < hw]
        if below and below[-1] == -1:
            return False
    return True


@always_step("VOTERS-STEP-ADD-CAUGHT-UP", "AddedVoterCaughtUp", witnessed_by=("VoterAdded",))
def added_voter_caught_up(before: Any, action: Any, after: Any) -> bool:
    """VOTERS-RULE-ADD step 7: a leader appends the VotersRecord adding a replica only while that
    replica's fetch offset, as the leader knows it, is the leader's log end (KIP-853: "wait for
    the fetch offset of the replica to catch up to the log end offset of the leader")."""
    inp = getattr(action, "input", None)
    if not isinstance(inp, AddVoter):
        return True
    b, a = before.node(action.node), after.node(action.node)
    if len(a.log) == len(b.log) or not isinstance(b.role, Leader):
        return True
    return bool(b.role.end_offset_of(inp.replica) == b.end_offset)


election_safety: Property[Any, Any] = Property(
    "VOTERS-INV-ELECTION-SAFETY", "ElectionSafety", "always", raft_props.election_safety.check,
                           "At most one leader is ever elected in an epoch, under reconfiguration.",
                           ("LeaderElected", "AddedVoterVotes"))
committed_agree: Property[Any, Any] = Property("VOTERS-INV-COMMITTED-UNIQUE", "CommittedLogsAgree", "always",
                           raft_props.committed_logs_agree.check,
                           "No two different records are committed at one offset, under reconfiguration.",
                           ("VoterAdded",))
leader_completeness: Property[Any, Any] = Property("VOTERS-INV-LEADER-COMPLETENESS", "LeaderCompleteness", "always",
                               raft_props.leader_completeness.check,
                               "A committed record is in every later leader's log, under reconfiguration.",
                               ("LeaderElected",))


@sometimes("VOTERS-WIT-LEADER-ELECTED", "LeaderElected")
def leader_elected(s: Any) -> bool:
    """Some replica is leader."""
    return any(isinstance(n.role, Leader) for n in s.nodes)


@sometimes("VOTERS-WIT-ADDED", "VoterAdded")
def voter_added(s: Any) -> bool:
    """A VotersRecord adding a replica that was not an initial voter is committed."""
    return any(e.kind == VOTERS and voter_ids(voters_of(e)) - s.initial_voters for _, e, _ in s.committed)


@sometimes("VOTERS-WIT-ADDED-VOTES", "AddedVoterVotes")
def added_voter_votes(s: Any) -> bool:
    """A replica that was not an initial voter casts a vote (for itself or another)."""
    return any(v not in s.initial_voters for v, _, _ in s.votes)


@sometimes("VOTERS-WIT-REMOVED", "VoterRemoved")
def voter_removed(s: Any) -> bool:
    """A VotersRecord removing an initial voter is committed."""
    return any(e.kind == VOTERS and s.initial_voters - voter_ids(voters_of(e)) for _, e, _ in s.committed)


@sometimes_step("VOTERS-WIT-REMOVED-LEADER-RESIGNS", "RemovedLeaderResigns")
def removed_leader_resigns(before: Any, action: Any, after: Any) -> bool:
    """A leader whose own removal committed resigns."""
    return any(isinstance(b.role, Leader) and isinstance(a.role, Resigned) and a.id not in a.voters
               for b, a in zip(before.nodes, after.nodes, strict=True))


@sometimes_step("VOTERS-WIT-REMOVED-LEADER-REJOINS", "RemovedLeaderRejoins")
def removed_leader_rejoins(before: Any, action: Any, after: Any) -> bool:
    """The election timer of a resigned leader outside its voter set makes it an unattached
    observer of the next epoch (VOTERS-RULE-REMOVED-LEADER-TIMER)."""
    if not isinstance(action, Fire) or not isinstance(action.input, ElectionTimeout):
        return False
    node, now = before.node(action.node), after.node(action.node)
    return removed_leader(node) and isinstance(now.role, Unattached) and now.epoch == node.epoch + 1


@sometimes_step("VOTERS-WIT-UNCOMMITTED-TRUNCATED", "UncommittedChangeTruncated")
def uncommitted_change_truncated(before: Any, action: Any, after: Any) -> bool:
    """A replica truncates a VotersRecord away on a diverging epoch."""
    msg = raft_props.diverging_response(action)
    if msg is None:
        return False
    b, a = before.node(msg.dst), after.node(msg.dst)
    return any(o >= len(a.log) for o, _ in _voter_records(b.log))


@sometimes_step("VOTERS-WIT-OBSERVER-BOOTSTRAP", "ObserverAsksBootstrap")
def observer_asks_bootstrap(before: Any, action: Any, after: Any) -> bool:
    """An observer without a leader sends its Fetch to a bootstrap server while the set in force
    is not the bootstrap servers (VOTERS-RULE-OBSERVER-BOOTSTRAP: the configuration's list, not
    the set, is where it asks; a voter removed from the set, now an observer, asks it too)."""
    if not isinstance(action, Fire) or not isinstance(action.input, FetchDue):
        return False
    node, to = before.node(action.node), action.input.to
    if not isinstance(node, VoterNode) or not seeks_leader(node) or node.voters == node.bootstrap_servers:
        return False
    return to in node.bootstrap_servers and any(
        isinstance(m, FetchRequest) and m.src == node.id and m.dst == to for m in after.network.distinct())


@sometimes_step("VOTERS-WIT-OBSERVER-REDISCOVERS", "ObserverRediscoversLeader")
def observer_rediscovers_leader(before: Any, action: Any, after: Any) -> bool:
    """An observer whose fetch timer lapsed hears its leader named by another replica's answer
    to its Fetch and goes back to that leader (VOTERS-RULE-OBSERVER-FETCH-TIMEOUT; Kafka 3.9-4.1
    kept asking bootstrap servers, KAFKA-19354)."""
    if not isinstance(action, Deliver) or not isinstance(action.message, FetchResponse):
        return False
    msg = action.message
    node, now = before.node(msg.dst), after.node(msg.dst)
    return (isinstance(node, VoterNode) and isinstance(now, VoterNode) and node.fetch_lapsed
            and not now.fetch_lapsed and msg.src != msg.leader and isinstance(now.role, Follower))


@sometimes("VOTERS-WIT-SNAPSHOT", "SnapshotTaken")
def snapshot_taken(s: Any) -> bool:
    """A replica took a snapshot past the bootstrap checkpoint, carrying a voter set."""
    return any(n.snapshot is not None and n.snapshot.end_offset > 0 and n.snapshot.voters is not None
               for n in s.nodes)


@sometimes("VOTERS-WIT-BOOTSTRAP-COMMITTED", "BootstrapVotersCommitted")
def bootstrap_voters_committed(s: Any) -> bool:
    """A VotersRecord holding the initial voters is committed (the first leader's copy of the
    bootstrap checkpoint's set, or the upgrade's)."""
    return any(e.kind == VOTERS and voter_ids(voters_of(e)) == s.initial_voters for _, e, _ in s.committed)


@sometimes("VOTERS-WIT-OPEN-VOTE", "VoteAcrossSets")
def vote_across_sets(s: Any) -> bool:
    """A replica has voted while outside its own voter set, or for a candidate outside it
    (VOTERS-RULE-OPEN-VOTE: the replicas' sets differ while a change replicates)."""
    return any(isinstance(n.role, Voted) and (n.id not in n.voters or n.role.voted_for not in n.voters)
               for n in s.nodes)


@sometimes("VOTERS-WIT-LEADER-UNREACHABLE", "LeaderUnreachable")
def leader_unreachable(s: Any) -> bool:
    """A restarted replica is unattached (or voted) knowing its epoch's leader, which is outside
    its voter set (VOTERS-RULE-LEADER-UNREACHABLE; only with crashes)."""
    return any(isinstance(n.role, Unattached | Voted) and n.role.leader is not None for n in s.nodes)


@sometimes_step("VOTERS-WIT-UPGRADE-VOTER-KNOWN", "UpgradeVoterKnown")
def upgrade_voter_known(before: Any, action: Any, after: Any) -> bool:
    """A kraft.version-0 leader learns from a voter's UpdateVoter that it supports kraft.version 1,
    kept in memory, nothing written (VOTERS-RULE-UPGRADE-VOTERS, Kafka 4.1+)."""
    if not isinstance(action, Fire) or not isinstance(action.input, UpdateVoter):
        return False
    b, a = before.node(action.node), after.node(action.node)
    return (isinstance(b, VoterNode) and isinstance(a, VoterNode) and a.log == b.log
            and sum(k for _, _, k in a.upgrade_voters) > sum(k for _, _, k in b.upgrade_voters))


@sometimes("VOTERS-WIT-UPGRADED", "KRaftVersionUpgraded")
def kraft_version_upgraded(s: Any) -> bool:
    """The KRaftVersionRecord of the upgrade to kraft.version 1 is committed."""
    return any(e.kind == KRAFT_VERSION for _, e, _ in s.committed)


@sometimes_step("VOTERS-WIT-AUTO-JOINED", "ObserverAutoJoins")
def observer_auto_joins(before: Any, action: Any, after: Any) -> bool:
    """A leader appends the VotersRecord adding an observer that asked for it itself
    (VOTERS-RULE-AUTO-JOIN: its AddVoterRequest delivered and accepted)."""
    if not isinstance(action, Deliver) or not isinstance(action.message, AddVoterRequest):
        return False
    msg = action.message
    return msg.src not in before.node(msg.dst).voters and msg.src in after.node(msg.dst).voters


@always("VOTERS-INV-REPLACED-NOT-VOTER", "ReplacedDiskStandsOnlyByKey", witnessed_by=("ReplacedDiskFollows",))
def replaced_disk_stands_only_by_key(s: Any) -> bool:
    """A replica on a replaced disk stands for election or leads only once its own key (id, new
    directory) is in its voter set: the old voter's id does not make it one
    (VOTERS-RULE-DISK-REPLACED)."""
    for n in s.nodes:
        if isinstance(n, VoterNode) and n.replaced and isinstance(n.role, Candidate | Prospective | Leader) \
                and (n.id, n.directory) not in n.control.last_voter_set():
            return False
    return True


@always_step("VOTERS-STEP-FETCH-BY-KEY", "FetchCountsOnlyByKey", witnessed_by=("ReplacedDiskFetchNotCounted",))
def fetch_counts_only_by_key(before: Any, action: Any, after: Any) -> bool:
    """A leader's high watermark and its record of a voter's fetch offset do not move on a fetch
    from that voter's id under another directory (a replaced disk's): VOTERS-RULE-FETCH-BY-KEY."""
    if not isinstance(action, Deliver) or not isinstance(action.message, FetchRequest):
        return True
    msg = action.message
    b, a = before.node(msg.dst), after.node(msg.dst)
    if not isinstance(b, VoterNode) or not fetch_not_a_voters(b, msg) or not isinstance(a.role, Leader):
        return True
    assert isinstance(b.role, Leader)
    return a.high_watermark == b.high_watermark and a.role.end_offset_of(msg.src) == b.role.end_offset_of(msg.src)


@always_step("VOTERS-STEP-VOTE-BY-KEY", "VoteOnlyByKey", witnessed_by=("ReplacedDiskFollows",))
def vote_only_by_key(before: Any, action: Any, after: Any) -> bool:
    """A replica grants no vote (nor pre-vote) asked of another directory id than its own: a
    replaced disk is not the voter the candidate's set names (VOTERS-RULE-VOTE-BY-KEY)."""
    if not isinstance(action, Deliver) or not isinstance(action.message, VoteRequest):
        return True
    msg = action.message
    node = before.node(msg.dst)
    if not isinstance(node, VoterNode) or not vote_not_for_me(node, msg):
        return True
    return not any(isinstance(m, VoteResponse) and m.granted and m.src == msg.dst and m.dst == msg.src
                   and before.network.count(m) < after.network.count(m) for m in after.network.distinct())


@sometimes("VOTERS-WIT-DISK-REPLACED", "ReplacedDiskFollows")
def replaced_disk_follows(s: Any) -> bool:
    """A replica on a replaced disk follows the leader (as an observer, or as a voter again)."""
    return any(isinstance(n, VoterNode) and n.replaced and isinstance(n.role, Follower) for n in s.nodes)


@sometimes_step("VOTERS-WIT-FETCH-NOT-COUNTED", "ReplacedDiskFetchNotCounted")
def replaced_disk_fetch_not_counted(before: Any, action: Any, after: Any) -> bool:
    """A leader serves a fetch from a voter's id under another directory without counting it."""
    if not isinstance(action, Deliver) or not isinstance(action.message, FetchRequest):
        return False
    msg = action.message
    b = before.node(msg.dst)
    return isinstance(b, VoterNode) and fetch_not_a_voters(b, msg) and any(
        isinstance(m, FetchResponse) and m.src == msg.dst and m.error == "NONE" for m in after.network.distinct())


def voters_properties(*, upgrade: bool, crashes: bool = False, open_vote: bool = True,
                      rejoin: bool = True, auto_join: bool = False,
                      disk_swaps: bool = False) -> Sequence[Property[Any, Any]]:
    """Every voter-set property, invariants first; the upgrade witness when the model starts at
    kraft.version 0, the unreachable-leader witness when replicas may crash, the open-vote and
    removed-leader-rejoins witnesses when reachable (``open_vote``, ``rejoin``: VotersModel
    decides)."""
    props: list[Property[Any, Any]] = [
        consecutive_sets_differ_by_one, at_most_one_uncommitted, voters_from_log_end, control_state_rebuilds,
        history_offsets_increase, bootstrap_voters_replicated, added_voter_caught_up, election_safety, committed_agree,
        leader_completeness, leader_elected, bootstrap_voters_committed, voter_added, added_voter_votes,
        voter_removed, removed_leader_resigns, uncommitted_change_truncated,
        observer_asks_bootstrap, observer_rediscovers_leader, snapshot_taken,
    ]
    if rejoin:
        props.append(removed_leader_rejoins)
    if open_vote:
        props.append(vote_across_sets)
    if upgrade:
        props += [upgrade_voter_known, kraft_version_upgraded]
    if crashes:
        props.append(leader_unreachable)
    if auto_join:
        props.append(observer_auto_joins)
    if disk_swaps:
        props += [replaced_disk_stands_only_by_key, fetch_counts_only_by_key, vote_only_by_key,
                  replaced_disk_follows, replaced_disk_fetch_not_counted]
    return tuple(props)
