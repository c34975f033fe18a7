"""The KRaft system model: replicas, a bag of in-flight messages and the environment.

Actions are deliver, drop and duplicate a message, and fire an input at a replica (a timer
expiry, a client append, a crash, a restart). Every replica changes only through
``node.step``, so the system model adds no protocol rule of its own; it keeps ghost history
(leaders elected, votes granted, records committed) that the properties need.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard

from kspec.model.core.bag import Bag
from kspec.model.core.evolve import evolve as replace
from kspec.model.core.memo import by_identity, by_identity_and_value, by_value
from kspec.model.core.protocol import Property
from kspec.model.raft import node as node_mod
from kspec.model.raft.listener import ListenerRules, listening, notify
from kspec.model.raft.messages import (
    IN_FLIGHT_TYPES,
    BackoffExpired,
    BeginQuorumEpochRequest,
    BeginQuorumEpochResponse,
    CleanLog,
    ClientAppend,
    Crash,
    ElectionTimeout,
    EndQuorumEpochRequest,
    EndQuorumEpochResponse,
    Entry,
    FetchDue,
    FetchRequest,
    FetchResponse,
    FetchSnapshotRequest,
    FetchSnapshotResponse,
    FetchTimeout,
    Input,
    LeaderOnlyRequest,
    LeaderOnlyResponse,
    Message,
    Output,
    ResendDue,
    Restart,
    TakeSnapshot,
    VoteRequest,
    VoteResponse,
)
from kspec.model.raft.state import Down, Leader, Listener, Node, Resigned, election_of


@dataclass(frozen=True, slots=True)
class Deliver:
    """Deliver one copy of ``message`` to its destination."""

    message: Message


@dataclass(frozen=True, slots=True)
class Drop:
    """Lose one copy of ``message``."""

    message: Message


@dataclass(frozen=True, slots=True)
class Duplicate:
    """Add one more copy of ``message`` (the network may deliver it twice)."""

    message: Message


@dataclass(frozen=True, slots=True)
class Fire:
    """Give replica ``node`` a non-message input: a timer expiry, a client append, a crash or
    a restart."""

    node: int
    input: Input


@dataclass(frozen=True, slots=True)
class Reboot:
    """Replica ``node`` crashes and restarts at once (RAFT-MODEL-REBOOT): its volatile state
    and everything in flight to it are lost; it resumes from its persisted state."""

    node: int


Action = Deliver | Drop | Duplicate | Fire | Reboot
ACTION_TYPES: tuple[type, ...] = (Deliver, Drop, Duplicate, Fire, Reboot)


@dataclass(frozen=True, slots=True)
class Raft:
    """The system state. ``nodes[i]`` is replica ``i + 1``. The counters bound the environment;
    ``elected``, ``votes`` and ``committed`` are ghost history for properties."""

    nodes: tuple[Node, ...]
    network: Bag[Message] = field(default_factory=Bag)
    appends: int = 0
    crashes: int = 0
    duplicates: int = 0
    fetches: int = 0
    elections: int = 0
    resends: int = 0
    # ghost: the kinds of request a resend has sent in this run (RAFT-WIT-BEGIN-EPOCH-RESENT)
    resent: frozenset[str] = frozenset()
    elected: frozenset[tuple[int, int]] = frozenset()
    votes: frozenset[tuple[int, int, int]] = frozenset()
    committed: frozenset[tuple[int, Entry, int]] = frozenset()
    # snapshots taken in the run (``max_snapshots``; KIP-630, RAFT-RULE-SNAPSHOT-TAKE)
    snapshots_taken: int = 0
    # ghost: each snapshot taken, as (replica, end offset, the replica's high watermark when it
    # took it) (RAFT-INV-SNAPSHOT-COMMITTED)
    snapshot_marks: frozenset[tuple[int, int, int]] = frozenset()

    def node(self, replica: int) -> Node:
        # replicas are numbered in a row from the first one's id (RaftModel's first_id)
        return self.nodes[replica - self.nodes[0].id]


# The timer expiries that start (or back off) an election; ``max_elections`` bounds them.
ELECTION_TIMERS = (ElectionTimeout, FetchTimeout, BackoffExpired)
# The inputs a run may fire only so often, as data: (input classes, the Raft field that counts
# them, the bound on that count).
COUNTED_INPUTS: tuple[tuple[tuple[type, ...], str, str], ...] = (
    ((Crash,), "crashes", "max_crashes"),
    ((ClientAppend,), "appends", "max_appends"),
    ((FetchDue,), "fetches", "max_fetches"),
    (ELECTION_TIMERS, "elections", "max_elections"),
    ((ResendDue,), "resends", "max_resends"),
)
# KIP-630's inputs, fired only where the model takes snapshots (``max_snapshots`` above 0): the
# counter and bound are RaftModel's own (``snapshots_taken``, ``max_log_snapshots``), not
# COUNTED_INPUTS, so a model built on this one with a ``max_snapshots`` of its own (the voter-set
# model's) never fires them.
SNAPSHOT_INPUTS = (TakeSnapshot, CleanLog)

StepFn = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


class RaftModel:
    """The KRaft system model within bounds (see ``BOUNDS`` in ``kspec.model.raft``)."""

    name = "raft"

    def __init__(self, *, voters: int = 3, observers: int = 0, max_epoch: int = 2, max_appends: int = 1,
                 max_crashes: int = 1, max_inflight: int = 2, max_duplicates: int = 0, max_fetches: int = 2,
                 max_elections: int = 2, reboot: bool = True, symmetry: bool = True, pre_vote: bool = False,
                 kip853: bool = False, step: StepFn | None = None, listener: ListenerRules | None = None,
                 max_resends: int = 0, first_id: int = 1, max_snapshots: int = 0,
                 check_quorum_period: bool = True, memo: bool = False) -> None:
        self.bounds: dict[str, int | bool] = {
            "voters": voters, "observers": observers, "max_epoch": max_epoch, "max_appends": max_appends,
            "max_crashes": max_crashes, "max_inflight": max_inflight, "max_duplicates": max_duplicates,
            "max_fetches": max_fetches, "max_elections": max_elections, "reboot": reboot,
            "symmetry": symmetry, "pre_vote": pre_vote, "kip853": kip853, "max_resends": max_resends,
        }
        # KIP-630 (RAFT-RULE-SNAPSHOT-TAKE): snapshots a run may take. Reported as a bound only
        # when on, so the default bounds (explorer, TLA+) are those of a model without snapshots.
        self.max_log_snapshots = max_snapshots
        if max_snapshots:
            self.bounds["max_snapshots"] = max_snapshots
        # Replica ids from first_id (1 unless asked): the voters, then the observers. A
        # conformance configuration numbers from 0 too (RAFT-DRIVE-ID-ZERO), Kafka's usual
        # first node.id, which a port testing an id for truth mistakes for "none".
        self.voter_ids = frozenset(range(first_id, first_id + voters))
        self.replica_ids = tuple(range(first_id, first_id + voters + observers))
        self.pre_vote = pre_vote
        self.kip853 = kip853
        # RAFT-RULE-CHECK-QUORUM-PERIOD (Node.check_quorum_period): not a bound, a target's
        # contract; the conformance driver turns it off for a target that does not declare it.
        self.check_quorum_period = check_quorum_period
        self._step: StepFn = step or node_mod.step
        # The state machine's listener (RAFT-OBS-LISTENER): the conformance driver runs the model
        # with one, to predict the callbacks; the explorer and TLA+ without (it changes no rule).
        self.listener = listener
        if listener is not None:
            self._step = listening(self._step, listener)
        # ``memo`` (``make``'s models: the explorer's, TLA+'s): the node step and a replica's
        # enabled inputs, pure functions of a node that successor states share by reference,
        # are memoised on the node's identity (and the input's value); every later state that
        # holds the same node and gets the same input reuses the answer. Without the memo (the
        # conformance driver's models) every call goes to the plain functions, looked up at
        # the call as before: the voters driver swaps ``_step`` for a recording one while its
        # model starts up, so the memoised step is used only while ``_step`` is the step it
        # memoises. ``_step`` stays the plain step (the trace pipeline replays with it).
        self._memo = memo
        self._memo_of: StepFn | None = self._step if memo else None
        self._memo_step: StepFn = by_identity_and_value(self._step) if memo else self._step
        self._enabled_inputs: Callable[[Node], list[Input]] = by_identity(node_mod.enabled_inputs)
        self._voted_for: Callable[[Node], int | None] = by_identity(voted_for)
        # the network's messages in their order (sorted by repr), memoised on the bag's value
        # (its frozenset's hash is cached): the same few messages are in flight in many states
        self._distinct: Callable[[Bag[Message]], list[Message]] = by_value(Bag.distinct)
        from kspec.model.raft.properties import raft_properties

        self._properties = raft_properties()
        if symmetry and observers == 0:
            from kspec.model.raft.symmetry import make_canonical

            # Voters are interchangeable: explore one state per orbit (RAFT-MODEL-SYMMETRY).
            self.canonical = make_canonical(self.voter_ids)

    # ------------------------------------------------------------ Model protocol

    def init_states(self) -> Sequence[Raft]:
        state = Raft(tuple(node_mod.new_node(i, self.voter_ids, self.pre_vote, self.kip853) for i in self.replica_ids))
        if not self.check_quorum_period:
            state = replace(state, nodes=tuple(replace(n, check_quorum_period=False) for n in state.nodes))
        if self.resending:
            # the replicas keep who answered their requests only where a run can resend
            # (RAFT-RULE-RESEND, RAFT-MODEL-ONE-RESEND)
            state = replace(state, nodes=tuple(replace(n, resends=True) for n in state.nodes))
        if self.listener is not None:
            state = replace(state, nodes=tuple(replace(n, listener=Listener()) for n in state.nodes))
        for n in state.nodes:
            # Kafka's initialize() at the first start: a lone voter elects itself at once
            # (RAFT-RULE-LONE-VOTER). It has no one to send to; its effects are in the node.
            started, _ = node_mod.initialize(n)
            if self.listener is not None:
                # what the listener is told at the first start is no step either (it registers
                # after initialize(): no transition it would hear of)
                started, _ = notify(started, self.listener, transition=False)
            if started != n:
                nodes = list(state.nodes)
                nodes[n.id - self.replica_ids[0]] = started
                state = record_history(replace(state, nodes=tuple(nodes)), n, started)
        return [state]

    def actions(self, state: Raft) -> Iterator[Action]:
        b = self.bounds
        # (each bound read once a state: this runs for every state the explorer expands)
        duplicating = state.duplicates < int(b["max_duplicates"])
        for msg in (self._distinct(state.network) if self._memo else state.network.distinct()):
            if not isinstance(state.node(msg.dst).role, Down):
                yield Deliver(msg)
            yield Drop(msg)
            if duplicating:
                yield Duplicate(msg)
        appending = state.appends < int(b["max_appends"])
        electing = state.elections < int(b["max_elections"])
        fetching_allowed = state.fetches < int(b["max_fetches"])
        resending = state.resends < int(b.get("max_resends", 0))
        crashing = state.crashes < int(b["max_crashes"])
        for n in state.nodes:
            if isinstance(n.role, Down):
                yield Fire(n.id, Restart())
                continue
            fetching = None
            for inp in (self._enabled_inputs(n) if self._memo else node_mod.enabled_inputs(n)):
                if isinstance(inp, ClientAppend) and not appending:
                    continue
                if isinstance(inp, ELECTION_TIMERS) and not electing:
                    continue
                if isinstance(inp, FetchDue):
                    if not fetching_allowed:
                        continue
                    # Kafka keeps one fetch in flight per replica: the next one waits for the
                    # reply (or for the request to be lost).
                    if fetching is None:
                        fetching = fetch_in_flight(state, n.id)
                    if fetching:
                        continue
                if isinstance(inp, ResendDue) and (not resending or exchange_in_flight(state, n.id, inp.to)):
                    # RAFT-MODEL-ONE-RESEND: the next copy waits for the answer to the last one
                    # (or for either to be lost), as Kafka's request timeout without time.
                    continue
                yield Fire(n.id, inp)
            if self.max_log_snapshots:
                yield from (Fire(n.id, inp) for inp in self.snapshot_inputs(state, n))
            if crashing:
                yield Reboot(n.id) if b["reboot"] else Fire(n.id, Crash())

    def next_state(self, state: Raft, action: Action) -> Raft | None:
        match action:
            case Deliver(message=msg):
                if msg not in state.network:
                    return None
                target = state.node(msg.dst)
                if isinstance(target.role, Down):
                    return None
                # (the network without the message goes straight into the successor: no copy of
                # the state in between)
                return self._apply(state, msg.dst, msg, network=state.network.remove(msg))
            case Drop(message=msg):
                if msg not in state.network:
                    return None
                return replace(state, network=state.network.remove(msg))
            case Duplicate(message=msg):
                if msg not in state.network or state.duplicates >= int(self.bounds["max_duplicates"]):
                    return None
                return replace(state, network=state.network.add(msg), duplicates=state.duplicates + 1)
            case Fire(node=replica, input=inp) if isinstance(inp, SNAPSHOT_INPUTS):
                return self._snapshot_step(state, replica, inp)
            case Fire(node=replica, input=inp):
                for kinds, counter, bound in COUNTED_INPUTS:
                    if isinstance(inp, kinds):
                        used: int = getattr(state, counter)  # a field COUNTED_INPUTS names
                        if used >= int(self.bounds[bound]):
                            return None
                        state = replace(state, **{counter: used + 1})
                after = self._apply(state, replica, inp)
                if after is not None and isinstance(inp, ResendDue):
                    sent_again = {type(m).__name__ for m in after.network.distinct() if m not in state.network}
                    if not sent_again <= after.resent:
                        after = replace(after, resent=after.resent | sent_again)
                    if after.resends >= int(self.bounds["max_resends"]):
                        after = _forget_answers(after)
                return after
            case Reboot(node=replica):
                if state.crashes >= int(self.bounds["max_crashes"]) or isinstance(state.node(replica).role, Down):
                    return None
                down = self._apply(state, replica, Crash())
                up = None if down is None else self._apply(down, replica, Restart())
                if up is None or (up.nodes == state.nodes and up.network == state.network):
                    return None  # a reboot that loses nothing is not a new behaviour
                return replace(up, crashes=state.crashes + 1)
        return None

    def snapshot_inputs(self, state: Raft, n: Node) -> list[Input]:
        """KIP-630's inputs at live replica ``n``: a snapshot at its high watermark
        (RAFT-RULE-SNAPSHOT-TAKE; one offset a replica, so the state space stays small) and at
        its log end when that is past it (refused: nothing changes, so it is no action of the
        correct model, but a broken variant that takes it is caught), and cleaning its log below
        its latest snapshot (RAFT-RULE-SNAPSHOT-CLEAN). None unless ``max_snapshots`` is above 0."""
        if not self.max_log_snapshots:
            return []
        out: list[Input] = []
        hw = n.high_watermark
        if state.snapshots_taken < self.max_log_snapshots:
            if hw is not None and hw >= 1:
                out.append(TakeSnapshot(hw))
            if n.end_offset > (hw or 0):
                out.append(TakeSnapshot(n.end_offset))
        if n.snapshots and n.snapshots[-1][0] > n.log_start:
            out.append(CleanLog())
        return out

    def _snapshot_step(self, state: Raft, replica: int, inp: TakeSnapshot | CleanLog) -> Raft | None:
        """A TakeSnapshot or CleanLog fired at ``replica``; one that takes a snapshot is counted
        and marked with the replica's high watermark (the ghost ``snapshot_marks``,
        RAFT-INV-SNAPSHOT-COMMITTED). None where it changes nothing."""
        node = state.node(replica)
        if not self.max_log_snapshots or isinstance(node.role, Down):
            return None
        taking = isinstance(inp, TakeSnapshot)
        if taking and state.snapshots_taken >= self.max_log_snapshots:
            return None
        after = self._apply(state, replica, inp)
        if after is None or not taking:
            return after
        taken = after.node(replica).latest_snapshot
        if taken is None or taken == node.latest_snapshot:
            return after
        hw = -1 if node.high_watermark is None else node.high_watermark
        return replace(after, snapshots_taken=state.snapshots_taken + 1,
                       snapshot_marks=after.snapshot_marks | {(replica, taken[0], hw)})

    @property
    def resending(self) -> bool:
        """Whether a run may resend (RAFT-RULE-RESEND): the ``max_resends`` budget is not 0."""
        return int(self.bounds.get("max_resends", 0)) > 0

    def within_bounds(self, state: Raft, past_epochs: int = 0) -> bool:
        """Whether ``state`` lies within the bounds; ``past_epochs`` more epochs than
        ``max_epoch`` allowed (the bounds are the exploration's, not the protocol's: a caller may
        step past them on purpose)."""
        limit = int(self.bounds["max_epoch"]) + past_epochs
        for n in state.nodes:  # (a plain loop: every successor is asked)
            if n.epoch > limit:
                return False
        return len(state.network) <= int(self.bounds["max_inflight"])

    def properties(self) -> Sequence[Property[Raft, Action]]:
        return self._properties

    # ------------------------------------------------------------ helpers

    def _apply(self, state: Raft, replica: int, inp: Input, network: Bag[Message] | None = None) -> Raft | None:
        """``state`` after replica ``replica`` takes ``inp``, its messages put in flight (into
        ``network`` when given, else ``state.network``); None if it changes nothing."""
        before = state.node(replica)
        step = self._step
        after, outputs = (self._memo_step if step is self._memo_of else step)(before, inp)
        if not outputs and not isinstance(inp, Message) and (after is before or after == before):
            return None  # the input does nothing in this role: not an enabled action
        nodes = list(state.nodes)
        nodes[replica - self.replica_ids[0]] = after
        sent: list[Message] = [o for o in outputs if is_message(o) and not self._inert(o, state)]
        if isinstance(inp, REQUEST_TYPES) and inp.orphaned:
            # Its sender no longer expects the answer (RAFT-MODEL-IGNORED-RESPONSES).
            sent = [m for m in sent if not (m.dst == inp.src and isinstance(m, RESPONSE_TYPES))]
        network = _forget_ignored(state.network if network is None else network, before, after, inp, sent)
        return record_history(replace(state, nodes=tuple(nodes), network=network.add_all(sent)), before, after,
                              self._voted_for if self._memo else voted_for)

    def _inert(self, msg: Message, state: Raft) -> bool:
        """RAFT-MODEL-INERT-RESPONSES: a response that changes nothing at its destination now
        or later is not put in flight; with resends, one that still acknowledges is kept."""
        if not _inert(msg, state):
            return False
        if not self.resending or state.resends >= int(self.bounds["max_resends"]):
            return True
        return not acknowledges(msg, state.node(msg.dst))

    def node_events(self, state: Raft, action: Action) -> list[tuple[int, Input]]:
        """The node-level inputs an action gives, in order: one for a delivery or a fired
        input, two (Crash, Restart) for a reboot, none for a drop or a duplication."""
        match action:
            case Deliver(message=msg):
                return [(msg.dst, msg)]
            case Fire(node=replica, input=inp):
                return [(replica, inp)]
            case Reboot(node=replica):
                return [(replica, Crash()), (replica, Restart())]
        return []

    def node_event(self, state: Raft, action: Action) -> tuple[int, Input] | None:
        """The single node-level input of an action (None for drop and duplicate). A reboot
        gives two inputs: use ``node_events`` for it."""
        events = self.node_events(state, action)
        if len(events) > 1:
            raise ValueError(f"{describe_action(action)} gives {len(events)} node inputs: use node_events()")
        return events[0] if events else None

    def events_of(self, before: Raft, action: Action, after: Raft) -> list[dict[str, Any]]:
        """The node-level events of one system step, for JSON Lines event traces."""
        events = self.node_events(before, action)
        if not events:
            return [{"node": None, "action": type(action).__name__, "input": action, "outputs": [],
                     "observation": None}]
        out: list[dict[str, Any]] = []
        nodes = {n.id: n for n in before.nodes}
        for replica, inp in events:
            nodes[replica], outputs = self._step(nodes[replica], inp)
            out.append({"node": replica, "action": type(inp).__name__, "input": inp, "outputs": list(outputs),
                        "observation": node_mod.observe(nodes[replica])})
        return out

    def action_weight(self, action: Action) -> int:
        """Simulation weights: deliveries, fetches and appends are common; timeouts, losses
        and crashes rare (a random walk then gets past elections to commits)."""
        match action:
            case Deliver():
                return 20
            case Fire(input=FetchDue() | ClientAppend()):
                return 10
        return 1

    def describe_action(self, action: Action) -> str:
        return describe_action(action)

    def describe_state(self, state: Raft) -> str:
        return describe_state(state)


def is_message(output: Output) -> TypeGuard[Message]:
    """True for a message a replica puts in flight (as opposed to a persistence effect, or an
    answer to a leader-only request the driver injected, which ``_apply`` leaves out)."""
    return isinstance(output, IN_FLIGHT_TYPES)


def _inert(msg: Message, state: Raft) -> bool:
    """A BeginQuorumEpoch or EndQuorumEpoch response that names no newer epoch changes nothing
    at the (former) leader that receives it, now or later (epochs only grow): delivering it
    is the same as losing it, so the model does not put it in flight (spec/raft.md,
    RAFT-MODEL-INERT-RESPONSES)."""
    return (isinstance(msg, BeginQuorumEpochResponse | EndQuorumEpochResponse) and msg.error == "NONE"
            and msg.epoch <= state.node(msg.dst).epoch)


def acknowledges(msg: Message, dst: Node) -> bool:
    """Whether ``msg`` (a ``NONE`` BeginQuorumEpoch or EndQuorumEpoch response) would add its
    sender to what ``dst`` records as answered (RAFT-RULE-RESEND): ``dst`` leads (or resigned)
    in the response's epoch and has no acknowledgement from the sender yet."""
    role = dst.role
    if not dst.resends or msg.epoch != dst.epoch or msg.src not in dst.voters:
        return False
    if isinstance(msg, BeginQuorumEpochResponse) and isinstance(role, Leader):
        return msg.src not in role.acknowledged
    if isinstance(msg, EndQuorumEpochResponse) and isinstance(role, Resigned):
        return msg.src not in role.acknowledged
    return False


def _forget_ignored(network: Bag[Message], before: Node, after: Node, inp: Input,
                    sent: list[Message]) -> Bag[Message]:
    """Mark what Kafka would never act on (RAFT-MODEL-IGNORED-RESPONSES).

    Kafka's request manager expects an answer only to the latest request a replica sent to
    each peer, only once, and only until the replica changes state (``resetConnections``); any
    other response is ignored on arrival. So, for the replica ``r`` that stepped:

    - a role or epoch change (a crash included) discards every response in flight to ``r`` and
      orphans every request ``r`` has in flight: its recipient still handles it, but the
      answer is not put in flight;
    - otherwise, sending a peer a new request, or taking a peer's response, does the same for
      that peer alone (its older answers, or the other copies of the one just taken);
    - a crash also loses everything in flight to ``r`` (its connections break).
    """
    me = after.id
    if isinstance(after.role, Down):
        def dropped(m: Message) -> bool:
            return m.dst == me

        def orphaned(m: Message) -> bool:
            return m.src == me
    elif type(before.role) is not type(after.role) or before.epoch != after.epoch:
        def dropped(m: Message) -> bool:
            return m.dst == me and isinstance(m, RESPONSE_TYPES)

        def orphaned(m: Message) -> bool:
            return m.src == me
    else:
        peers = {m.dst for m in sent if isinstance(m, REQUEST_TYPES)}
        if isinstance(inp, RESPONSE_TYPES):
            peers.add(inp.src)
        if not peers:
            return network

        def dropped(m: Message) -> bool:
            return m.dst == me and m.src in peers and isinstance(m, RESPONSE_TYPES)

        def orphaned(m: Message) -> bool:
            return m.src == me and m.dst in peers
    counts: dict[Message, int] = {}
    changed = False
    for m, c in network.items:
        if dropped(m):
            changed = True
            continue
        if isinstance(m, REQUEST_TYPES) and not m.orphaned and orphaned(m):
            changed = True
            m = replace(m, orphaned=True)
        counts[m] = counts.get(m, 0) + c
    if not changed:
        return network
    return Bag(frozenset(counts.items()))


REQUEST_TYPES = (VoteRequest, BeginQuorumEpochRequest, EndQuorumEpochRequest, FetchRequest, FetchSnapshotRequest)
RESPONSE_TYPES = (VoteResponse, BeginQuorumEpochResponse, EndQuorumEpochResponse, FetchResponse,
                  FetchSnapshotResponse)


def fetch_in_flight(state: Raft, replica: int) -> bool:
    """Whether ``replica`` has a fetch out (a request it still expects an answer to) or an
    answer on its way to it."""
    for m, _ in state.network.items:  # (any order: ``distinct`` sorts, by repr)
        if (isinstance(m, FetchRequest | FetchSnapshotRequest) and m.src == replica and not m.orphaned) or (
                isinstance(m, FetchResponse | FetchSnapshotResponse) and m.dst == replica):
            return True
    return False


def _forget_answers(state: Raft) -> Raft:
    """The resend budget is spent: who answered decides nothing any more, so the replicas stop
    keeping it (``Node.resends``) and forget it; states that differ only there are one
    (RAFT-MODEL-ONE-RESEND)."""
    nodes = []
    for n in state.nodes:
        role = n.role
        if isinstance(role, Leader | Resigned) and role.acknowledged:
            role = replace(role, acknowledged=frozenset())
        nodes.append(replace(n, role=role, resends=False) if n.resends or role is not n.role else n)
    return replace(state, nodes=tuple(nodes))


def exchange_in_flight(state: Raft, replica: int, peer: int) -> bool:
    """Whether ``replica`` has a request out to ``peer`` (one it still expects an answer to) or
    an answer from ``peer`` on its way to it: Kafka's connection to ``peer`` is not ready, so
    no new request to it leaves (RAFT-MODEL-ONE-RESEND)."""
    for m, _ in state.network.items:  # (any order: ``distinct`` sorts, by repr)
        if (isinstance(m, REQUEST_TYPES) and m.src == replica and m.dst == peer and not m.orphaned) or (
                isinstance(m, RESPONSE_TYPES) and m.src == peer and m.dst == replica):
            return True
    return False


def voted_for(node: Node) -> int | None:
    """The replica's persisted vote (its election state's ``voted_for``)."""
    return election_of(node).voted_for


def record_history(state: Raft, before: Node, after: Node,
                   vote_of: Callable[[Node], int | None] = voted_for) -> Raft:
    """Update the ghost history after replica ``after.id`` moved from ``before`` to ``after``
    (``vote_of``: ``voted_for``, or a memo of it)."""
    elected, votes, committed = state.elected, state.votes, state.committed
    if isinstance(after.role, Leader) and not isinstance(before.role, Leader):
        elected = elected | {(after.epoch, after.id)}
    vote = vote_of(after)
    if vote is not None and (after.id, after.epoch, vote) not in votes:
        votes = votes | {(after.id, after.epoch, vote)}
    hw_after = after.high_watermark or 0
    if hw_after > (before.high_watermark or 0):
        known = {(o, e) for o, e, _ in committed}
        new = {(o, after.log[o], after.epoch) for o in range(hw_after) if (o, after.log[o]) not in known}
        if new:
            committed = committed | new
    # Forget history that can no longer conflict with anything (it keeps the state space
    # small): a vote of an epoch below the voter's current one, and a leader of an epoch below
    # every replica's current one. A second vote or leader in such an epoch would need an epoch
    # to go backwards, which RAFT-STEP-EPOCH-MONOTONIC catches on the step where it happens.
    # (Plain loops, each set rebuilt only when something in it is forgotten: this runs on
    # every step the explorer takes.) Only an epoch that moved can make something forgettable:
    # ``state`` comes from a state whose history was kept this way, with the same epochs when
    # this replica's did not move, and what this step added is of its current epoch.
    if (votes or elected) and after.epoch != before.epoch:
        current: dict[int, int] = {}
        low = after.epoch
        for n in state.nodes:
            e = n.epoch
            current[n.id] = e
            if e < low:
                low = e
        current[after.id] = after.epoch
        for v in votes:
            if v[1] < current[v[0]]:
                votes = frozenset(v for v in votes if v[1] >= current[v[0]])
                break
        for x in elected:
            if x[0] < low:
                elected = frozenset(x for x in elected if x[0] >= low)
                break
    if ((elected is state.elected or elected == state.elected) and (votes is state.votes or votes == state.votes)
            and committed is state.committed):
        return state
    return replace(state, elected=elected, votes=votes, committed=committed)


def describe_action(action: Action) -> str:
    """One line: what happened."""
    match action:
        case Deliver(message=m):
            return f"deliver {_msg(m)}"
        case Drop(message=m):
            return f"drop {_msg(m)}"
        case Duplicate(message=m):
            return f"duplicate {_msg(m)}"
        case Fire(node=n, input=inp):
            return f"replica {n}: {type(inp).__name__}" + (
                f"(to={inp.to})" if isinstance(inp, FetchDue | ResendDue)
                else f"(end_offset={inp.end_offset})" if isinstance(inp, TakeSnapshot) else "")
        case Reboot(node=n):
            return f"replica {n}: crash and restart"
    return repr(action)


def _msg(m: Message | LeaderOnlyRequest | LeaderOnlyResponse) -> str:
    fields = {k: getattr(m, k) for k in m.__dataclass_fields__ if k not in ("src", "dst")}
    shown = ", ".join(f"{k}={_short(v)}" for k, v in fields.items()
                      if not (v is None or v is False or v == () or v == "NONE"))
    return f"{type(m).__name__} {m.src}->{m.dst} ({shown})"


def _short(v: object) -> str:
    if isinstance(v, tuple) and v and isinstance(v[0], Entry):
        return "[" + ",".join(_entry(e) for e in v) + "]"
    return str(v)


def _entry(e: Entry) -> str:
    return {"leader_change": "LC", "data": "D"}.get(e.kind, e.kind) + str(e.epoch)


def describe_node(n: Node) -> str:
    """One line: role, epoch, vote or leader, log and high watermark."""
    e = election_of(n)
    extra = ""
    if e.voted_for is not None:
        extra += f" voted={e.voted_for}"
    if e.leader is not None and not isinstance(n.role, Leader):
        extra += f" leader={e.leader}"
    log = " ".join(_entry(x) for x in n.log[n.log_start:]) or "-"
    hw = "-" if n.high_watermark is None else n.high_watermark
    if n.snapshots:  # KIP-630 (RAFT-STATE-SNAPSHOT): the log is shown from its start
        extra += f" snapshots={','.join(f'{o}@{e}' for o, e in n.snapshots)} start={n.log_start}"
    return f"r{n.id} {n.role_name:<11} epoch={n.epoch}{extra} log=[{log}] hw={hw}"


def describe_message(m: Message | LeaderOnlyRequest | LeaderOnlyResponse) -> str:
    """One line: type, direction and the fields that are set."""
    return _msg(m)


def describe_state(state: Raft) -> str:
    """One line per replica, then the messages in flight."""
    rows = [describe_node(n) for n in state.nodes]
    if len(state.network):
        rows.append("in flight: " + "; ".join(_msg(m) for m in state.network))
    return "\n".join(rows)
