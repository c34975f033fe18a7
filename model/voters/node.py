"""A KRaft replica that follows its voter set in the log (KIP-853), as a pure step function.

:class:`VoterNode` is the raft :class:`~kspec.model.raft.state.Node` plus the control-record
state machine, the latest snapshot and the static voter set. :func:`make_step` wraps the
raft step: after every raft step it feeds the appended and truncated records to the control
state, recomputes ``voters`` as the voter set in force at the log end (VOTERS-RULE-EFFECT-ON-
APPEND), and resigns a leader whose own removal has committed (VOTERS-RULE-REMOVED-LEADER).
It also handles the leader's AddVoter, RemoveVoter and kraft.version upgrade requests and a
replica's snapshot. Rule IDs refer to ``spec/voters.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, cast

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft import node as raft_node
from kspec.model.raft.messages import (
    AppendLog,
    CheckQuorumTimeout,
    ElectionTimeout,
    EndQuorumEpochRequest,
    Entry,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchTimeout,
    Input,
    Output,
    PersistElection,
    Restart,
    TruncateLog,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Down, Follower, Leader, Node, Resigned, Unattached, Voted, election_of
from kspec.model.voters.control import (
    ControlState,
    Snapshot,
    handle_records,
    initial,
    kraft_version_entry,
    load_snapshot,
    read_log,
    rebuild,
    take_snapshot,
    trim_to,
    voters_entry,
)
from kspec.model.voters.history import VoterSet, voter_ids

ReconfigError = Literal["NONE", "NOT_LEADER_OR_FOLLOWER", "REQUEST_TIMED_OUT", "UNSUPPORTED_VERSION",
                        "DUPLICATE_VOTER", "VOTER_NOT_FOUND", "INVALID_REQUEST", "FENCED_LEADER_EPOCH",
                        "UNKNOWN_LEADER_EPOCH", "INVALID_UPDATE_VERSION"]

# The listeners an UpdateVoter names (VOTERS-RULE-UPDATE-INPUT): "default", one listener under
# the cluster's (controller) name; "other", one under another name; "none", no listener;
# "duplicate", two under the cluster's name; "empty-host" and "port-0", the cluster's listener at
# an empty host or at port 0. The first two with "none" decide the answer: only "other" and
# "none" leave the leader without an address for the voter. (A port of -1 or 65536 is not
# expressible: the field is a uint16 on the wire, and Kafka's generated setter refuses it.)
Listeners = Literal["default", "other", "none", "duplicate", "empty-host", "port-0"]
LISTENERS: tuple[Listeners, ...] = ("default", "other", "none", "duplicate", "empty-host", "port-0")


_NO_CONTROL = initial(frozenset())


@dataclass(frozen=True, slots=True)
class VoterNode(Node):
    """A KRaft replica with its control-record state (VOTERS-STATE). ``static`` is the voter
    set from ``controller.quorum.voters`` (empty when the replica was formatted with a
    bootstrap checkpoint); ``snapshot`` the latest snapshot's control records."""

    control: ControlState = _NO_CONTROL
    snapshot: Snapshot | None = None
    static: VoterSet = frozenset()
    # Only under the K4 variant (Rules.add_caught_up_now off, Kafka's LeaderState.ReplicaState):
    # per replica (id, the leader's end offset at its last fetch, caught up at some fetch) in the
    # current leader epoch. Always () under the spec's rules.
    fetch_marks: tuple[tuple[int, int, bool], ...] = ()
    # controller.quorum.bootstrap.servers (VOTERS-RULE-OBSERVER-BOOTSTRAP): the replicas an
    # observer without a leader asks. Configuration, so fixed: the initial voters (the
    # --initial-controllers a cluster was formatted with, or controller.quorum.voters).
    bootstrap_servers: frozenset[int] = frozenset()
    # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: an observer follower whose fetch timer expired (no
    # successful fetch from its leader in time) and that no answer has named its leader to
    # since: it asks a bootstrap server, as an observer without a leader does.
    fetch_lapsed: bool = False
    # The kraft.version upgrade's rule set (VOTERS-RULE-UPGRADE-VOTERS): True from Kafka 4.1
    # (KIP-853's upgrade of a static quorum, KAFKA-16538), False for 3.9 and 4.0 (no upgrade).
    kraft_upgrade: bool = True
    # VOTERS-RULE-UPGRADE-VOTERS: a kraft.version-0 leader's in-memory voters (Kafka's
    # LeaderState kraftVersionUpgradeState): per static voter (id, the directory its last accepted
    # UpdateVoter named, or NO_DIRECTORY, whether that update's range holds kraft.version 1); the
    # leader itself known from its epoch start. () at any other replica, or once kraft.version is 1.
    upgrade_voters: tuple[tuple[int, int, bool], ...] = ()
    # controller.quorum.auto.join.enable (VOTERS-RULE-AUTO-JOIN): configuration, so fixed. Kafka
    # 4.2+ has it (KAFKA-19078; off by default, as here); a release before has no such setting.
    auto_join: bool = False
    # VOTERS-RULE-DISK-REPLACED: how many times this host's disk was replaced (ReplaceDisk); its
    # directory id is the host's first (``directory_of``) at 0, a fresh one after each.
    replaced: int = 0
    # VOTERS-RULE-FETCH-BY-KEY, at a leader: (replica, directory) of the replicas whose recorded
    # fetch offset came from a replaced disk's directory (Kafka keeps replica state by ReplicaKey).
    # Always () where no disk was replaced (a host's first directory is implied).
    fetch_dirs: tuple[tuple[int, int], ...] = ()

    @property
    def kraft_version(self) -> int:
        return self.control.last_kraft_version()

    @property
    def directory(self) -> int:
        """The directory id of the replica's current disk (VOTERS-MODEL-DIRS, VOTERS-RULE-DISK-REPLACED)."""
        return replaced_directory(self.id, self.replaced)


# ---------------------------------------------------------------- inputs and outputs


@dataclass(frozen=True, slots=True)
class AddVoter:
    """A client asks the leader to add replica ``(replica, directory)`` (AddRaftVoter).
    ``endpoint``: the request's listeners include one for the cluster's (controller) listener;
    without it the leader cannot reach the new voter (VOTERS-RULE-ADD-ENDPOINT)."""

    replica: int
    directory: int
    endpoint: bool = True


@dataclass(frozen=True, slots=True)
class RemoveVoter:
    """A client asks the leader to remove voter ``(replica, directory)`` (RemoveRaftVoter)."""

    replica: int
    directory: int


@dataclass(frozen=True, slots=True)
class UpdateVoter:
    """Voter ``(replica, directory)`` asks the leader of ``epoch`` to record its endpoints and
    supported kraft.version range ``[min_version, max_version]`` (UpdateRaftVoter, KIP-853;
    Kafka 3.9+ followers send it on their own). The model keeps no endpoints: an accepted
    update writes a VotersRecord with the same replica keys (VOTERS-RULE-UPDATE)."""

    replica: int
    directory: int
    epoch: int
    listeners: Listeners = "default"
    min_version: int = 0
    max_version: int = 1


@dataclass(frozen=True, slots=True)
class UpdateVoterSetDue:
    """The replica's update-voter-set period expired (Kafka's ``FollowerState``
    ``updateVoterSetPeriodTimer``): an observer follower with auto-join on asks its leader to
    change the voter set towards its own key (VOTERS-RULE-AUTO-JOIN). Time is abstracted: the
    timer firing is the input."""


@dataclass(frozen=True, slots=True)
class AddVoterRequest:
    """Auto-join's AddRaftVoter, a message from observer ``src`` to its leader ``dst`` naming
    the observer's own key (VOTERS-RULE-AUTO-JOIN; Kafka sends it with AckWhenCommitted false,
    KIP-1186). The leader judges it as a client's AddVoter (VOTERS-RULE-ADD)."""

    src: int
    dst: int
    replica: int
    directory: int


@dataclass(frozen=True, slots=True)
class RemoveVoterRequest:
    """Auto-join's RemoveRaftVoter, from observer ``src`` to its leader ``dst``: the voter with
    the observer's id and another directory (VOTERS-RULE-AUTO-JOIN, VOTERS-RULE-REMOVE)."""

    src: int
    dst: int
    replica: int
    directory: int


JoinRequest = AddVoterRequest | RemoveVoterRequest
JOIN_REQUEST_TYPES: tuple[type, ...] = (AddVoterRequest, RemoveVoterRequest)


@dataclass(frozen=True, slots=True)
class ReplaceDisk:
    """The operator replaces the replica's disk (KIP-853's motivating example): the replica
    stops, its log, snapshots and election state are lost, the new disk is formatted with a
    fresh directory id and no initial voters (``kafka-storage format --no-initial-controllers``)
    and the replica starts again with the same id and configuration (VOTERS-RULE-DISK-REPLACED).
    ``directory`` is the new disk's id (the format step draws it; the model's is
    ``replaced_directory``, VOTERS-MODEL-DIRS)."""

    directory: int


@dataclass(frozen=True, slots=True)
class KeyedFetchRequest(FetchRequest):
    """A Fetch from a replica on a replaced disk, naming its directory id (Fetch v17's
    ReplicaDirectoryId). A plain FetchRequest names the host's first directory
    (VOTERS-MODEL-DIRS); only a replaced disk's fetches carry the field on the wire."""

    directory: int = -1


@dataclass(frozen=True, slots=True)
class KeyedVoteRequest(VoteRequest):
    """A Vote naming the recipient's directory id as the candidate's voter set has it (Vote v1's
    VoterDirectoryId) where that is a replaced disk's; a plain VoteRequest names the host's
    first directory (VOTERS-MODEL-DIRS)."""

    voter_directory: int = -1


@dataclass(frozen=True, slots=True)
class UpgradeKRaftVersion:
    """The operator finalizes kraft.version 1 (``kafka-features upgrade``) at the leader."""


@dataclass(frozen=True, slots=True)
class TakeSnapshot:
    """The state machine takes a snapshot at the replica's high watermark."""


@dataclass(frozen=True, slots=True)
class ReconfigRejected:
    """The error response to a reconfiguration request the leader refused. (A request the
    leader accepts is answered once its record commits; the model does not emit that reply.)"""

    request: str
    replica: int
    error: ReconfigError


@dataclass(frozen=True, slots=True)
class SnapshotWritten:
    """Effect: a snapshot of the offsets below ``end_offset`` was written, with its control
    records."""

    snapshot: Snapshot


VoterInput = (Input | AddVoter | RemoveVoter | UpgradeKRaftVersion | TakeSnapshot | UpdateVoter | UpdateVoterSetDue
              | AddVoterRequest | RemoveVoterRequest | ReplaceDisk)
VoterOutput = Output | ReconfigRejected | SnapshotWritten | AddVoterRequest | RemoveVoterRequest
VOTER_INPUT_TYPES: tuple[type, ...] = (AddVoter, RemoveVoter, UpgradeKRaftVersion, TakeSnapshot)
# Inputs only the node level (the conformance driver) gives: the system model has no action for
# them (an accepted UpdateVoter changes no voter set; spec/voters.md VOTERS-RULE-UPDATE).
NODE_INPUT_TYPES: tuple[type, ...] = (UpdateVoter,)
# VOTERS-RULE-DISK-REPLACED: the system input and the messages of a replaced disk (sent only to a
# target that declares model_config {"disk_replacement": true}).
DISK_INPUT_TYPES: tuple[type, ...] = (ReplaceDisk, KeyedFetchRequest, KeyedVoteRequest)
VOTER_OUTPUT_TYPES: tuple[type, ...] = (ReconfigRejected, SnapshotWritten, *JOIN_REQUEST_TYPES)

RaftStep = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]
StepFn = Callable[[VoterNode, VoterInput], tuple[VoterNode, tuple[VoterOutput, ...]]]


@dataclass(frozen=True, slots=True)
class Rules:
    """The switches the broken variants turn off; the defaults are the spec's rules. The last
    two off are what Kafka 3.8-4.4 do (spec/voters.md, Kafka deviations K1 and K2)."""

    one_change_at_a_time: bool = True        # VOTERS-RULE-ONE-CHANGE
    effect_on_append: bool = True            # VOTERS-RULE-EFFECT-ON-APPEND
    truncate_history: bool = True            # VOTERS-CTRL-TRUNCATE
    snapshot_has_voters: bool = True         # VOTERS-SNAP-CONTENT
    trim_before_snapshot_end: bool = True    # VOTERS-CTRL-TRIM (off: K1, trim at the end offset)
    truncate_moves_next_offset: bool = True  # VOTERS-CTRL-TRUNCATE (off: K2, nextOffset stays)
    first_leader_writes_voters: bool = True  # VOTERS-RULE-FIRST-LEADER
    add_caught_up_now: bool = True           # VOTERS-RULE-ADD step 7 (off: K4, caught up once)
    check_quorum_one_voter: bool = True      # RAFT check-quorum over the set (off: K3, never with one voter)
    # The last two are inputs a release cannot take at all (it throws): off, the model's step is
    # the same, and the conformance driver does not give that input (spec/voters.md K5, K6).
    update_names_leader: bool = True         # VOTERS-RULE-UPDATE (off: K6, never for the leader itself)
    history_takes_any_set: bool = True       # VOTERS-HIST-ADD-OVERLAP (off: K5, overlapping sets only)
    # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT (off: K7, KAFKA-19354: only a successful fetch from the
    # leader ends the lapse, an answer naming the leader does not)
    observer_rediscovers_leader: bool = True
    # RAFT-RULE-CHECK-QUORUM counts Fetch and FetchSnapshot only (off: K8, 4.1+: an accepted
    # UpdateVoter counts as its voter's fetch, UpdateVoterHandler's updateCheckQuorumForFollowingVoter)
    check_quorum_fetches_only: bool = True


# ---------------------------------------------------------------- construction


def new_voter_node(node_id: int, initial_voters: VoterSet, *, bootstrap: bool, pre_vote: bool = False,
                   kraft_upgrade: bool = True, auto_join: bool = False,
                   check_quorum_period: bool = True) -> VoterNode:
    """A replica's first start. With ``bootstrap`` (kraft.version 1) it was formatted with a
    bootstrap checkpoint holding KRaftVersionRecord(1) and the initial VotersRecord at offset -1
    and has no static voters; without (kraft.version 0) the initial voters are static. Votes
    are KIP-853's: any replica handles a vote from any replica (VOTERS-RULE-OPEN-VOTE, raft's
    RAFT-KIP853-OPEN-VOTE); a candidate counts only its voters' grants."""
    if bootstrap:
        snap = Snapshot(0, 1, initial_voters)
        control = load_snapshot(frozenset(), snap)
        return VoterNode(node_id, voter_ids(initial_voters), (), raft_node.new_node(node_id, frozenset()).role,
                         None, pre_vote, open_votes=True, control=control, snapshot=snap, static=frozenset(),
                         bootstrap_servers=voter_ids(initial_voters), kraft_upgrade=kraft_upgrade,
                         auto_join=auto_join, check_quorum_period=check_quorum_period)
    return VoterNode(node_id, voter_ids(initial_voters), (), raft_node.new_node(node_id, frozenset()).role,
                     None, pre_vote, open_votes=True, control=initial(initial_voters), snapshot=None,
                     static=initial_voters, bootstrap_servers=voter_ids(initial_voters), kraft_upgrade=kraft_upgrade,
                     auto_join=auto_join, check_quorum_period=check_quorum_period)


# A request's directory id when it names none (Kafka's Uuid.ZERO_UUID, ReplicaKey.NO_DIRECTORY_ID).
NO_DIRECTORY = -1


def directory_of(replica: int) -> int:
    """The model gives each host one log directory whose id is the host id (VOTERS-MODEL-DIRS)."""
    return replica


# VOTERS-MODEL-DIRS: the n-th replacement disk of host r has directory id r + n * DISK_BASE, an id
# no first directory (1..5) nor the driver's wrong directories (r + 100) take.
DISK_BASE = 1000


def replaced_directory(replica: int, replaced: int) -> int:
    """The directory id of host ``replica``'s disk after ``replaced`` replacements."""
    return directory_of(replica) + DISK_BASE * replaced


def is_replacement(directory: int) -> bool:
    """Whether ``directory`` is a replaced disk's (VOTERS-MODEL-DIRS)."""
    return directory >= DISK_BASE


# ---------------------------------------------------------------- the step function


def make_step(raft_step: RaftStep = raft_node.step, rules: Rules = Rules()) -> StepFn:
    """The voter-set replica's step function over ``raft_step`` under ``rules``."""

    def step(node: VoterNode, inp: VoterInput) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
        outputs: tuple[VoterOutput, ...]
        match inp:
            case AddVoter() | RemoveVoter() | UpgradeKRaftVersion():
                after, outputs = _reconfigure(node, inp, rules)
            case UpdateVoter():
                after, outputs = _update_voter(node, inp, rules)
            case UpdateVoterSetDue():
                after, outputs = node, auto_join_request(node)
            case AddVoterRequest(replica=r, directory=d):
                after, outputs = _reconfigure(node, AddVoter(r, d), rules)
            case RemoveVoterRequest(replica=r, directory=d):
                after, outputs = _reconfigure(node, RemoveVoter(r, d), rules)
            case TakeSnapshot():
                after, outputs = _take_snapshot(node, rules)
            case ReplaceDisk(directory=d):
                after, outputs = _replace_disk(node, d), ()
            case FetchDue(to=to) if seeks_leader(node):
                # VOTERS-RULE-OBSERVER-BOOTSTRAP: an observer without a leader asks a bootstrap
                # server (KIP-853; Kafka's maybeSendAnyVoterFetch, findReadyBootstrapServer),
                # not a voter of the set in force: the set changes, the configuration does not.
                after = node
                outputs = (FetchRequest(node.id, to, node.epoch, node.end_offset, node.last_epoch),) \
                    if to in node.bootstrap_servers else ()
            case FetchTimeout() if observer_follower(node):
                # VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: an observer does not stand for election;
                # it goes back to leader discovery (its next Fetch to a bootstrap server).
                after, outputs = replace(node, fetch_lapsed=True) if not node.fetch_lapsed else node, ()
            case FetchDue(to=to) if node.fetch_lapsed:
                after = node
                outputs = (FetchRequest(node.id, to, node.epoch, node.end_offset, node.last_epoch),) \
                    if to in node.bootstrap_servers else ()
            case ElectionTimeout() if removed_leader(node):
                after, outputs = _rejoin_as_observer(node)
            case CheckQuorumTimeout() if not rules.check_quorum_one_voter and len(node.voters) == 1:
                # K3: Kafka's timeUntilCheckQuorumExpires never expires with one voter, even a
                # voter that is not the leader.
                after, outputs = node, ()
            case _:
                if isinstance(inp, Restart) and isinstance(node.role, Down):
                    # Kafka reads the snapshot and the log before QuorumState.initialize, which
                    # decides with that voter set (VOTERS-CTRL-REBUILD, RAFT-KIP853-LEADER-UNREACHABLE).
                    node = _sync_voters(replace(node, control=rebuild(node.static, node.snapshot, node.log)), rules)
                after, raft_outputs = _raft_step_by_key(raft_step, node, inp, rules)
                control = _follow_log(node, after, inp, raft_outputs, rules)
                if control is not after.control:
                    after = replace(after, control=control)
                if rules.first_leader_writes_voters and isinstance(after.role, Leader) and not isinstance(
                        node.role, Leader):
                    after, raft_outputs = _write_bootstrap_voters(after, raft_outputs, rules)
                if not rules.add_caught_up_now:
                    after = _mark_fetch(node, after, inp, raft_outputs)
                if after.fetch_lapsed and not _still_lapsed(node, after, inp, rules):
                    after = replace(after, fetch_lapsed=False)
                outputs = raft_outputs
        after = _sync_voters(after, rules)
        after, more = _maybe_resign(after)
        after = _track_fetch_dirs(node, after, inp, outputs)
        return _track_upgrade_voters(node, after), _keyed(after, outputs + more, rules)

    return step


step = make_step()
"""Kafka's rules: the node-level step the conformance suite drives."""


def seeks_leader(node: Node) -> bool:
    """An observer without a leader (unattached, or voted: KIP-853 lets it vote): it fetches
    from a bootstrap server (VOTERS-RULE-OBSERVER-BOOTSTRAP)."""
    return isinstance(node, VoterNode) and not node.is_voter and isinstance(node.role, Unattached | Voted)


def auto_join_request(node: VoterNode) -> tuple[JoinRequest, ...]:
    """VOTERS-RULE-AUTO-JOIN (KIP-853 auto-join, Kafka 4.2+): when its update-voter-set period
    expires, a replica with ``controller.quorum.auto.join.enable`` that follows a leader while
    its own key (id, directory) is not in the voter set in force, at kraft.version 1 or later,
    asks that leader to remove a voter with its id and another directory, else to add itself
    (Kafka's ``pollFollowerAsObserver``, ``shouldSendAddOrRemoveVoterRequest``). Nothing else
    changes: the period starts again (not modelled, the timer is an input)."""
    role = node.role
    if not node.auto_join or not isinstance(role, Follower) or node.kraft_version < 1:
        return ()
    me = (node.id, node.directory)
    current = node.control.last_voter_set()
    if me in current:
        return ()
    old = sorted(k for k in current if k[0] == node.id)
    if old:
        return (RemoveVoterRequest(node.id, role.leader, node.id, old[0][1]),)
    return (AddVoterRequest(node.id, role.leader, *me),)


def removed_leader(node: Node) -> bool:
    """A resigned leader outside its own voter set (it removed itself, VOTERS-RULE-REMOVED-LEADER)."""
    return isinstance(node, VoterNode) and not node.is_voter and isinstance(node.role, Resigned)


def _rejoin_as_observer(node: VoterNode) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-RULE-REMOVED-LEADER-TIMER: the election timer of a resigned leader outside its voter
    set moves it to unattached in epoch + 1 (persisted), an observer that asks a bootstrap server
    for the leader (VOTERS-RULE-OBSERVER-BOOTSTRAP). It cannot stand, no leader sends a non-voter
    BeginQuorumEpoch (KIP-853), and in its own epoch an answer to its Fetch would name itself the
    leader: Kafka 3.9.0-4.4.0 ``pollResigned`` (``transitionToUnattached(epoch + 1)``)."""
    after = cast(VoterNode, raft_node.to_unattached(node, node.epoch + 1))
    e = election_of(after)
    return after, (PersistElection(e.epoch, e.voted_for, e.leader),)


def observer_follower(node: Node) -> bool:
    """An observer that follows a leader: it has a fetch timer but stands for no election."""
    return isinstance(node, VoterNode) and not node.is_voter and isinstance(node.role, Follower)


def _still_lapsed(before: VoterNode, after: VoterNode, inp: VoterInput, rules: Rules) -> bool:
    """VOTERS-RULE-OBSERVER-FETCH-TIMEOUT: the lapse lasts while the replica is the same
    leader's observer follower in the same epoch and no Fetch answer named that leader: a
    bootstrap server's NOT_LEADER_OR_FOLLOWER carrying the leader (KIP-853 answers carry its
    endpoint), or the leader's own successful answer. Under K7 (Kafka 3.9-4.1, KAFKA-19354) only
    the leader's successful answer resets the fetch timer."""
    role, was = after.role, before.role
    if not isinstance(role, Follower) or not isinstance(was, Follower) or after.is_voter \
            or (after.epoch, role.leader) != (before.epoch, was.leader):
        return False
    if not isinstance(inp, FetchResponse) or inp.epoch != after.epoch:
        return True
    if inp.src == role.leader and inp.error == "NONE":
        return False
    return not (rules.observer_rediscovers_leader and inp.leader == role.leader)


def _follow_log(before: VoterNode, after: VoterNode, inp: VoterInput, outputs: tuple[Output, ...],
                rules: Rules) -> ControlState:
    """VOTERS-CTRL-APPEND / VOTERS-CTRL-TRUNCATE / VOTERS-CTRL-REBUILD: keep the control state
    in step with the log the raft step changed."""
    if isinstance(inp, Restart) and isinstance(before.role, Down) and not isinstance(after.role, Down):
        # A restarted replica reads its latest snapshot and then its log from scratch.
        return rebuild(after.static, after.snapshot, after.log)
    control = after.control
    for out in outputs:
        if isinstance(out, AppendLog):
            control = _read(control, out.offset, out.entries, rules)
        elif isinstance(out, TruncateLog):
            next_offset = out.offset if rules.truncate_moves_next_offset else control.next_offset
            if rules.truncate_history:
                control = ControlState(control.voters.truncate_new_entries(out.offset),
                                       control.kraft_versions.truncate_new_entries(out.offset), next_offset)
            else:
                control = replace(control, next_offset=next_offset)
    return control


def _write_bootstrap_voters(node: VoterNode, outputs: tuple[Output, ...],
                            rules: Rules) -> tuple[VoterNode, tuple[Output, ...]]:
    """VOTERS-RULE-FIRST-LEADER: a new leader whose voter set came from the bootstrap
    checkpoint (the history's last entry at offset -1) writes KRaftVersionRecord and that
    VotersRecord to the log, in the batch of its LeaderChange, so that the set is replicated
    (KIP-853; Kafka's ``LeaderState.appendStartOfEpochControlRecords``, KAFKA-16532)."""
    control = node.control
    last = control.voters.last_entry()
    if last is None or last[0] != -1 or control.last_kraft_version() < 1:
        return node, outputs
    extra = (kraft_version_entry(node.epoch, control.last_kraft_version()), voters_entry(node.epoch, last[1]))
    end = node.end_offset
    merged = tuple(AppendLog(o.offset, o.entries + extra) if isinstance(o, AppendLog) and o.offset + len(o.entries)
                   == end else o for o in outputs)
    if merged == outputs:  # no LeaderChange appended at the log end: a batch of its own
        merged = (*outputs, AppendLog(end, extra))
    after = replace(node, log=node.log + extra, control=_read(control, end, extra, rules))
    return raft_node.update_high_watermark(after), merged


def _track_upgrade_voters(before: VoterNode, after: VoterNode) -> VoterNode:
    """VOTERS-RULE-UPGRADE-VOTERS: a leader at kraft.version 0 (4.1+ rule set) starts its epoch
    knowing only itself among its static voters (Kafka's LeaderState: the static set, the local
    node updated with its directory and supported kraft.version range); the record goes with the
    leadership, and once kraft.version is 1."""
    keep = isinstance(after.role, Leader) and after.kraft_upgrade and after.kraft_version < 1
    if not keep:
        return replace(after, upgrade_voters=()) if after.upgrade_voters else after
    if isinstance(before.role, Leader) and before.epoch == after.epoch and after.upgrade_voters:
        return after  # the same leadership: the step kept (or updated) the record
    known = tuple((v, after.directory, True) if v == after.id else (v, NO_DIRECTORY, False)
                  for v in sorted(voter_ids(after.control.last_voter_set())))
    return replace(after, upgrade_voters=known)


def _mark_fetch(before: VoterNode, after: VoterNode, inp: VoterInput, outputs: tuple[Output, ...]) -> VoterNode:
    """K4 (Kafka's ``LeaderState.ReplicaState.updateFollowerState``): a valid fetch marks its
    replica caught up when it reached the leader's log end, or the log end the leader had at
    the replica's previous fetch; a new leadership starts with no marks."""
    if not isinstance(after.role, Leader):
        return after if not after.fetch_marks else replace(after, fetch_marks=())
    marks = {r: (end, caught) for r, end, caught in after.fetch_marks} if isinstance(before.role, Leader) else {}
    if isinstance(inp, FetchRequest) and any(isinstance(o, FetchResponse) and o.error == "NONE" and o.diverging
                                             is None for o in outputs):
        leader_end = before.end_offset
        prev_end, caught = marks.get(inp.src, (0, False))
        caught = caught or inp.fetch_offset >= leader_end or (prev_end > 0 and inp.fetch_offset >= prev_end)
        marks[inp.src] = (leader_end, caught)
    fetch_marks = tuple(sorted((r, end, caught) for r, (end, caught) in marks.items()))
    return after if fetch_marks == after.fetch_marks else replace(after, fetch_marks=fetch_marks)


def _read(control: ControlState, offset: int, entries: tuple[Entry, ...], rules: Rules) -> ControlState:
    """VOTERS-CTRL-APPEND; under K2 only the records from the (stale) next offset are read."""
    if rules.truncate_moves_next_offset:
        return handle_records(control, offset, entries)
    return read_log(control, offset, entries)


def _voter_keys(node: VoterNode, rules: Rules) -> VoterSet:
    """The voter set (keys) a replica's elections and high watermark use (VOTERS-RULE-EFFECT-ON-APPEND)."""
    return node.control.last_voter_set() if rules.effect_on_append else _committed_voter_set(node)


def _sync_voters(node: VoterNode, rules: Rules) -> VoterNode:
    """VOTERS-RULE-EFFECT-ON-APPEND: a replica's elections and high watermark use the voter set
    in force at its log end, committed or not. VOTERS-RULE-DISK-REPLACED: a replica on a
    replaced disk is a voter only where its own key (id, new directory) is in that set."""
    voters = _voter_keys(node, rules)
    ids = voter_ids(voters)
    if node.replaced and node.id in ids and (node.id, node.directory) not in voters:
        ids = ids - {node.id}
    if ids == node.voters:
        return node
    node = replace(node, voters=ids)
    if isinstance(node.role, Leader):
        node = raft_node.update_high_watermark(node)
    return node


def _committed_voter_set(node: VoterNode) -> VoterSet:
    """The broken rule: the voter set of the last VotersRecord below the high watermark."""
    hw = node.high_watermark or 0
    found: VoterSet | None = None
    for offset, voters in node.control.voters.entries:
        if offset < hw:
            found = voters
    return found if found is not None else node.control.voters.static


def _maybe_resign(node: VoterNode) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-RULE-REMOVED-LEADER: once the VotersRecord that removed the leader commits, the
    leader resigns (``LeaderState.requestResign``) and tells the remaining voters."""
    if not isinstance(node.role, Leader) or node.id in node.voters or node.high_watermark is None:
        return node, ()
    last = node.control.voters.last_entry()
    if last is None or last[0] >= node.high_watermark:
        return node, ()
    after = cast(VoterNode, raft_node.to_resigned(node))
    return after, tuple(EndQuorumEpochRequest(node.id, v, node.epoch) for v in sorted(node.voters) if v != node.id)


def _reject(request: str, replica: int, error: ReconfigError) -> tuple[VoterOutput, ...]:
    return (ReconfigRejected(request, replica, error),)


def _reconfigure(node: VoterNode, inp: AddVoter | RemoveVoter | UpgradeKRaftVersion,
                 rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-RULE-ADD / VOTERS-RULE-REMOVE / VOTERS-RULE-UPGRADE: the leader's validations in
    Kafka's order (AddVoterHandler, RemoveVoterHandler), then one VotersRecord appended."""
    name = {AddVoter: "add_voter", RemoveVoter: "remove_voter", UpgradeKRaftVersion: "upgrade"}[type(inp)]
    replica = getattr(inp, "replica", node.id)
    role = node.role
    if not isinstance(role, Leader):
        return node, _reject(name, replica, "NOT_LEADER_OR_FOLLOWER")
    if isinstance(inp, AddVoter | RemoveVoter) and (inp.replica < 0 or inp.directory == NO_DIRECTORY):
        # VOTERS-RULE-KEY-VALID: a replica key with a negative id or no directory id is no voter
        # (KafkaRaftClient.handleAdd/RemoveVoterRequest: RaftUtil.add/removeVoterRequestVoterKey
        # empty, or directoryId() empty -> INVALID_REQUEST), checked before the endpoint.
        return node, _reject(name, replica, "INVALID_REQUEST")
    if isinstance(inp, AddVoter) and not inp.endpoint:
        # VOTERS-RULE-ADD-ENDPOINT: checked before the handler's rules (KafkaRaftClient.
        # handleAddVoterRequest: no address for the default listener -> INVALID_REQUEST).
        return node, _reject(name, replica, "INVALID_REQUEST")
    hw = node.high_watermark
    if hw is None:
        # The leader has not committed in its epoch: earlier changes may not be fenced yet.
        return node, _reject(name, replica, "REQUEST_TIMED_OUT")
    control = node.control
    if isinstance(inp, UpgradeKRaftVersion):
        if control.last_kraft_version() >= 1:
            return node, ()  # already finalized: nothing to write
        if not node.kraft_upgrade or not node.upgrade_voters or not all(s for _, _, s in node.upgrade_voters):
            # VOTERS-RULE-UPGRADE-VOTERS: 3.9 and 4.0 have no upgrade; from 4.1 every voter must
            # have told the leader (UpdateVoter) that it supports kraft.version 1
            # (LeaderState.maybeAppendUpgradedKRaftVersion: InvalidUpdateVersionException).
            return node, _reject(name, replica, "INVALID_UPDATE_VERSION")
        # The upgrade writes KRaftVersionRecord(1) and the voters with the directories their
        # updates named, in one batch (VOTERS-RULE-UPGRADE).
        voters = frozenset((v, d) for v, d, _ in node.upgrade_voters)
        return _append_same_set(node, (kraft_version_entry(node.epoch, 1), voters_entry(node.epoch, voters)), rules)
    if control.last_kraft_version() < 1:
        return node, _reject(name, replica, "UNSUPPORTED_VERSION")
    last = control.voters.last_entry()
    if rules.one_change_at_a_time and (last is None or last[0] >= hw):
        return node, _reject(name, replica, "REQUEST_TIMED_OUT")
    current = control.last_voter_set()
    key = (inp.replica, inp.directory)
    if isinstance(inp, AddVoter):
        if inp.replica in voter_ids(current):
            return node, _reject(name, replica, "DUPLICATE_VOTER")
        if not _caught_up(node, inp.replica, inp.directory, rules):
            return node, _reject(name, replica, "REQUEST_TIMED_OUT")
        return _append(node, (voters_entry(node.epoch, current | {key}),), rules)
    if key not in current or len(current) == 1:
        return node, _reject(name, replica, "VOTER_NOT_FOUND")
    return _append(node, (voters_entry(node.epoch, current - {key}),), rules)


def _update_voter(node: VoterNode, inp: UpdateVoter, rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-RULE-UPDATE: KafkaRaftClient.handleUpdateVoterRequest's checks, then
    UpdateVoterHandler's, in Kafka's order (3.9-4.4 at kraft.version 1); an accepted update is
    answered at once (NONE, not an output) and appends the VotersRecord."""
    reject = ReconfigRejected
    name, replica = "update_voter", inp.replica
    # validateLeaderOnlyRequest: the request's leader epoch first, then the role.
    if inp.epoch < node.epoch:
        return node, (reject(name, replica, "FENCED_LEADER_EPOCH"),)
    if inp.epoch > node.epoch:
        return node, (reject(name, replica, "UNKNOWN_LEADER_EPOCH"),)
    if not isinstance(node.role, Leader):
        return node, (reject(name, replica, "NOT_LEADER_OR_FOLLOWER"),)
    if inp.replica < 0 or inp.directory == NO_DIRECTORY:
        return node, (reject(name, replica, "INVALID_REQUEST"),)  # no replica key (VOTERS-RULE-KEY-VALID)
    if inp.listeners in ("other", "none"):
        return node, (reject(name, replica, "INVALID_REQUEST"),)  # no address on the cluster's listener
    if inp.min_version < 0 or inp.max_version < 0 or inp.max_version < inp.min_version:
        return node, (reject(name, replica, "INVALID_REQUEST"),)  # not a version range
    hw = node.high_watermark
    if hw is None:
        return node, (reject(name, replica, "REQUEST_TIMED_OUT"),)
    control = node.control
    finalized = control.last_kraft_version()
    if finalized < 1:
        return _update_in_memory(node, inp, rules)
    last = control.voters.last_entry()
    if rules.one_change_at_a_time and (last is None or last[0] >= hw):
        return node, (reject(name, replica, "REQUEST_TIMED_OUT"),)
    if not inp.min_version <= finalized <= inp.max_version:
        return node, (reject(name, replica, "INVALID_REQUEST"),)  # would not support the finalized version
    current = control.last_voter_set()
    if (inp.replica, inp.directory) not in current:
        return node, (reject(name, replica, "VOTER_NOT_FOUND"),)  # VoterSet.updateVoter: same id and directory
    after, outputs = _append_same_set(node, (voters_entry(node.epoch, current),), rules)
    return _update_counted(after, inp.replica, rules), outputs


def _update_counted(node: VoterNode, replica: int, rules: Rules) -> VoterNode:
    """VOTERS-KAFKA-K8: from 4.1 the leader counts an accepted UpdateVoter as its voter's fetch
    for check-quorum (RAFT-RULE-CHECK-QUORUM counts Fetch and FetchSnapshot only)."""
    role = node.role
    if rules.check_quorum_fetches_only or not isinstance(role, Leader) or replica == node.id:
        return node
    return replace(node, role=raft_node.count_fetched(role, replica, node))


def _update_in_memory(node: VoterNode, inp: UpdateVoter, rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-RULE-UPGRADE-VOTERS: UpdateVoter at kraft.version 0. 3.9 and 4.0 refuse it
    (UNSUPPORTED_VERSION); from 4.1 (KAFKA-16538) the leader keeps it in memory for the upgrade:
    the range must hold the finalized version (0), the voter is found by id alone (the static set
    has no directory ids: VoterSet.updateVoterIgnoringDirectoryId), and the answer is NONE at once;
    nothing is written."""
    name, replica = "update_voter", inp.replica
    if not node.kraft_upgrade:
        return node, (ReconfigRejected(name, replica, "UNSUPPORTED_VERSION"),)
    if not inp.min_version <= 0 <= inp.max_version:
        return node, (ReconfigRejected(name, replica, "INVALID_REQUEST"),)
    if all(v != inp.replica for v, _, _ in node.upgrade_voters):
        return node, (ReconfigRejected(name, replica, "VOTER_NOT_FOUND"),)
    known = tuple((v, inp.directory, inp.min_version <= 1 <= inp.max_version) if v == inp.replica else (v, d, s)
                  for v, d, s in node.upgrade_voters)
    after = node if known == node.upgrade_voters else replace(node, upgrade_voters=known)
    return _update_counted(after, inp.replica, rules), ()


def _caught_up(node: VoterNode, replica: int, directory: int, rules: Rules) -> bool:
    """VOTERS-RULE-ADD step 7: the new voter's fetch offset is the leader's log end (KIP-853);
    under K4, it was caught up at some fetch of this leadership (Kafka's isReplicaCaughtUp)."""
    role = node.role
    assert isinstance(role, Leader)
    if directory != dict(node.fetch_dirs).get(replica, directory_of(replica)):
        # no replica (id, directory) fetches: the replica's offset came from the directory it
        # fetched with, its host's first one unless its disk was replaced (VOTERS-MODEL-DIRS,
        # VOTERS-RULE-FETCH-BY-KEY)
        return False
    if rules.add_caught_up_now:
        return role.end_offset_of(replica) == node.end_offset
    return any(r == replica and caught for r, _, caught in node.fetch_marks)


def _append(node: VoterNode, entries: tuple[Entry, ...], rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """The leader appends control records; the control state reads them at once."""
    offset = node.end_offset
    after = replace(node, log=node.log + entries, control=_read(node.control, offset, entries, rules))
    return after, (AppendLog(offset, entries),)


def _append_same_set(node: VoterNode, entries: tuple[Entry, ...],
                     rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """An append that keeps the voter set (UpdateVoter, the upgrade): the high watermark moves
    as for any append, so a lone voter commits it at once. (A change of the set moves it once the
    new set is in force, ``_sync_voters``.)"""
    after, outputs = _append(node, entries, rules)
    return raft_node.update_high_watermark(after), outputs


def _take_snapshot(node: VoterNode, rules: Rules) -> tuple[VoterNode, tuple[VoterOutput, ...]]:
    """VOTERS-SNAP-TAKE: a snapshot at the high watermark carries the control records in force
    at its last offset, and trims the history's old entries (VOTERS-CTRL-TRIM)."""
    hw = node.high_watermark
    if isinstance(node.role, Down) or hw is None or hw <= 0 or (
            node.snapshot is not None and hw <= node.snapshot.end_offset):
        return node, ()
    snap = take_snapshot(node.control, hw)
    if not rules.snapshot_has_voters:
        snap = replace(snap, voters=None)
    after = replace(node, snapshot=snap,
                    control=trim_to(node.control, snap, at_end_offset=not rules.trim_before_snapshot_end))
    return after, (SnapshotWritten(snap),)


def observe(node: VoterNode) -> dict[str, object]:
    """What the conformance suite compares after every step: raft's observation, the voter
    ids in force and the voter-set history (VOTERS-OBS)."""
    out = raft_node.observe(node)
    out["voters"] = sorted(node.voters)
    out["kraft_version"] = node.kraft_version
    out["history"] = [[o, sorted(voter_ids(v))] for o, v in node.control.voters.entries]
    return out


# ---------------------------------------------------------------- disk replacement (KIP-853)


def _replace_disk(node: VoterNode, directory: int) -> VoterNode:
    """VOTERS-RULE-DISK-REPLACED: the same host (id, configuration: bootstrap servers, pre-vote,
    auto-join) on a new disk: a fresh directory id, no log, no snapshot but the bootstrap
    checkpoint of a disk formatted with ``--no-initial-controllers`` (the cluster's kraft.version,
    no voters), no election state. It knows no voter set: an observer that asks a bootstrap
    server for the leader (VOTERS-RULE-OBSERVER-BOOTSTRAP)."""
    if directory != replaced_directory(node.id, node.replaced + 1):
        raise ValueError(f"replica {node.id}: ReplaceDisk({directory}) is not its next directory id "
                         f"{replaced_directory(node.id, node.replaced + 1)} (VOTERS-MODEL-DIRS)")
    snap = Snapshot(0, max(node.kraft_version, 1), None)
    fresh = raft_node.new_node(node.id, frozenset())
    return replace(node, voters=frozenset(), log=(), role=fresh.role, high_watermark=None,
                   control=load_snapshot(frozenset(), snap), snapshot=snap, static=frozenset(), fetch_marks=(),
                   fetch_lapsed=False, upgrade_voters=(), fetch_dirs=(), replaced=node.replaced + 1)


def fetch_directory(msg: FetchRequest) -> int:
    """The directory id a Fetch names (Fetch v17 ReplicaDirectoryId; VOTERS-MODEL-DIRS)."""
    return msg.directory if isinstance(msg, KeyedFetchRequest) else directory_of(msg.src)


def vote_directory(msg: VoteRequest) -> int:
    """The recipient's directory id a Vote names (Vote v1 VoterDirectoryId; VOTERS-MODEL-DIRS)."""
    return msg.voter_directory if isinstance(msg, KeyedVoteRequest) else directory_of(msg.dst)


def fetch_not_a_voters(node: VoterNode, msg: object, rules: Rules = Rules()) -> bool:
    """VOTERS-RULE-FETCH-BY-KEY: ``msg`` is a Fetch at a leader from a replica whose id is in the
    leader's voter set under another directory id (a replaced disk's fetch, or the old disk's
    after the new one was added). Only where a replaced disk is one of the two."""
    if not isinstance(msg, FetchRequest) or not isinstance(node.role, Leader) or msg.src not in node.voters:
        return False
    keys = _voter_keys(node, rules)
    if (msg.src, fetch_directory(msg)) in keys:
        return False
    return isinstance(msg, KeyedFetchRequest) or any(r == msg.src and is_replacement(d) for r, d in keys)


def vote_not_for_me(node: VoterNode, msg: object) -> bool:
    """VOTERS-RULE-VOTE-BY-KEY: ``msg`` is a Vote naming another directory id than the replica's
    own (only where a replaced disk is one of the two)."""
    return isinstance(msg, VoteRequest) and (node.replaced > 0 or isinstance(msg, KeyedVoteRequest)) \
        and vote_directory(msg) != node.directory


def _plain(msg: Input) -> Input:
    """A keyed message as raft's own class (raft's step keeps no directory ids)."""
    if isinstance(msg, KeyedFetchRequest):
        return FetchRequest(msg.src, msg.dst, msg.epoch, msg.fetch_offset, msg.last_fetched_epoch, msg.orphaned)
    if isinstance(msg, KeyedVoteRequest):
        return VoteRequest(msg.src, msg.dst, msg.epoch, msg.last_epoch, msg.end_offset, msg.pre_vote, msg.orphaned)
    return msg


def _raft_step_by_key(raft_step: RaftStep, node: VoterNode, inp: VoterInput,
                      rules: Rules) -> tuple[VoterNode, tuple[Output, ...]]:
    """Raft's step, with KIP-853's replica keys where a replaced disk is involved.

    VOTERS-RULE-VOTE-BY-KEY (Kafka's ``handleVoteRequest``: after the stale-epoch and malformed
    checks and the move to a higher epoch, ``isValidVoterKey``): a Vote naming another directory
    than the replica's is refused with INVALID_VOTER_KEY and grants nothing.
    VOTERS-RULE-FETCH-BY-KEY (``LeaderState.updateReplicaState``: a fetch whose key is not the
    voter's is an observer's): the fetch is served, but the voter's fetch offset, the check-quorum
    and acknowledgement records and the high watermark stay as they were."""
    plain = _plain(cast(Input, inp))
    if vote_not_for_me(node, inp):
        stepped, outputs = raft_step(replace(node, open_votes=False, voters=frozenset()), plain)
        after = replace(cast(VoterNode, stepped), open_votes=node.open_votes, voters=node.voters)
        return after, tuple(replace(o, error="INVALID_VOTER_KEY") if isinstance(o, VoteResponse) and o.error == "NONE"
                            else o for o in outputs)
    stepped, outputs = raft_step(node, plain)
    after = cast(VoterNode, stepped)
    before_role, role = node.role, after.role
    if fetch_not_a_voters(node, inp, rules) and isinstance(before_role, Leader) and isinstance(role, Leader) \
            and isinstance(inp, FetchRequest):
        table = dict(role.end_offsets)
        was = before_role.end_offset_of(inp.src)
        if was is None:
            table.pop(inp.src, None)
        else:
            table[inp.src] = was
        role = replace(role, end_offsets=tuple(sorted(table.items())), fetched=before_role.fetched,
                       renewed=before_role.renewed, acknowledged=before_role.acknowledged)
        hw = node.high_watermark
        after = replace(after, role=role, high_watermark=hw)
        outputs = tuple(replace(o, high_watermark=hw) if isinstance(o, FetchResponse) and o.error == "NONE"
                        and o.diverging is None else o for o in outputs)
    return after, outputs


def _track_fetch_dirs(before: VoterNode, after: VoterNode, inp: VoterInput,
                      outputs: tuple[VoterOutput, ...]) -> VoterNode:
    """VOTERS-RULE-FETCH-BY-KEY at a leader: the directory a replica's recorded fetch offset came
    from, where it is not its host's first (``fetch_dirs``); a new leadership starts with none."""
    if not isinstance(after.role, Leader):
        return replace(after, fetch_dirs=()) if after.fetch_dirs else after
    dirs = dict(after.fetch_dirs) if isinstance(before.role, Leader) else {}
    if isinstance(inp, FetchRequest) and not fetch_not_a_voters(before, inp) and any(
            isinstance(o, FetchResponse) and o.error == "NONE" and o.diverging is None for o in outputs):
        d = fetch_directory(inp)
        if d == directory_of(inp.src):
            dirs.pop(inp.src, None)
        else:
            dirs[inp.src] = d
    fetch_dirs = tuple(sorted(dirs.items()))
    return after if fetch_dirs == after.fetch_dirs else replace(after, fetch_dirs=fetch_dirs)


def _keyed(node: VoterNode, outputs: tuple[VoterOutput, ...], rules: Rules) -> tuple[VoterOutput, ...]:
    """The replica's requests with the directory ids the wire carries where a replaced disk is
    one of the keys: a replaced disk's Fetch names its directory, a Vote names the recipient's
    replaced directory as the voter set has it."""
    if not node.replaced and not any(is_replacement(d) for _, d in _voter_keys(node, rules)):
        return outputs
    keys = dict(_voter_keys(node, rules))
    out: list[VoterOutput] = []
    for o in outputs:
        if type(o) is FetchRequest and o.src == node.id and node.replaced:
            o = KeyedFetchRequest(o.src, o.dst, o.epoch, o.fetch_offset, o.last_fetched_epoch, o.orphaned,
                                  node.directory)
        elif type(o) is VoteRequest and o.src == node.id and is_replacement(keys.get(o.dst, 0)):
            o = KeyedVoteRequest(o.src, o.dst, o.epoch, o.last_epoch, o.end_offset, o.pre_vote, o.orphaned,
                                 keys[o.dst])
        out.append(o)
    return tuple(out)
