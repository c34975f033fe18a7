"""The state machine's listener: what a replica tells the layer above it (spec/raft.md,
RAFT-OBS-LISTENER).

Kafka's ``RaftClient.Listener`` is told committed records (``handleCommit``), each change of
leader and epoch (``handleLeaderChange``) and snapshots to load (``handleLoadSnapshot``). What
it is told is a function of the replica's states, not a rule of the protocol between
replicas, so it is a layer around any step function (:func:`listening`): after each step it
compares the replica's high watermark and leader with what the listener was last told and
emits the notifications that are due, in Kafka's order (``pollListeners``: commits first, then
the leader change). The protocol's states and messages are the same with or without it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kspec.model.core.evolve import evolve as replace
from kspec.model.raft.messages import HandleCommit, HandleLeaderChange, HandleLoadSnapshot, Input, Output
from kspec.model.raft.state import Down, Leader, Listener, Node, Resigned, election_of

StepFn = Callable[[Node, Input], tuple[Node, tuple[Output, ...]]]


@dataclass(frozen=True, slots=True)
class ListenerRules:
    """The listener layer's rules. ``data_only`` is the listener API of Kafka 3.3-3.5, a rule
    chosen by the release; the other flags are catalogued deviations, not rules:

    - ``data_only``: Kafka 3.3-3.5's ``handleCommit`` carries the committed data records only
      (their ``RecordsBatchReader`` skips control batches; KAFKA-15345 added control records to
      the 3.6 API as a feature), so a HandleCommit names the committed range's start and its
      data records (none when it holds none: Kafka still calls ``handleCommit``);
    - ``resigned_told``: Kafka 3.3-3.8 tell a resigned replica's listener that it leads its
      epoch (KAFKA-17333, ``raft-resigned-told-leader``; ``transitionToResigned`` fires the
      change in every one, reached in the lockstep from 3.7, the first with check-quorum);
    - ``told_at_transition``: Kafka 3.3-3.7.0 tell a listener the leader and epoch only when
      the replica changes state (``transitionTo*``) or leads (``pollLeader``), never at its
      registration, so a listener registered after ``initialize()`` of a non-leader (every
      restart) is told nothing until the next transition (KAFKA-16286,
      ``raft-new-listener-untold``);
    - ``leader_told_at_epoch_start``: Kafka 3.3-3.5 tell a leader it leads once its listener
      has read *to* its epoch start offset (``nextOffset() >= epochStartOffset``), so before its
      LeaderChange record is committed (a leader of an empty log at once); KAFKA-15345 (3.6.0)
      waits until it has read *past* it (``raft-leader-told-before-epoch-commits``)."""

    resigned_told: bool = False
    told_at_transition: bool = False
    leader_told_at_epoch_start: bool = False
    data_only: bool = False
    # KIP-630 allows either (an efficiency choice, not a deviation): Kafka 3.6+ also gives a
    # listener at offset 0 the latest snapshot when one exists (KAFKA-15076,
    # ``updateListenersProgress``); 3.3-3.5 only one whose next offset is below the log start.
    # Chosen by the release, as ``data_only`` (RAFT-OBS-LISTENER-SNAPSHOT).
    snapshot_below_start_only: bool = False


def leader_and_epoch(node: Node, rules: ListenerRules = ListenerRules()) -> tuple[int, int | None] | None:
    """The ``LeaderAndEpoch`` a listener of ``node`` may be told now, or None when it must not
    be told anything (RAFT-OBS-LISTENER-LEADER):

    - a leader only once its listener has read past its epoch start offset (its LeaderChange
      record and everything before it is committed and delivered: Kafka's
      ``maybeFireLeaderChange(leaderAndEpoch, epochStartOffset)``, KAFKA-15345);
    - a resigned replica never: it leads no epoch any more, and any write it would make fails
      (KAFKA-17333);
    - any other role: its epoch and the leader it knows (a prospective's known leader too)."""
    role = node.role
    listener = node.listener
    if isinstance(role, Down) or listener is None:
        return None
    if isinstance(role, Leader):
        caught_up = listener.next_offset >= role.epoch_start if rules.leader_told_at_epoch_start \
            else listener.next_offset > role.epoch_start
        return (role.epoch, node.id) if caught_up else None
    if isinstance(role, Resigned):
        return (role.epoch, node.id) if rules.resigned_told else None
    return (role.epoch, election_of(node).leader)


def _should_tell(told: Listener, epoch: int, leader: int | None) -> bool:
    """Kafka's ``shouldFireLeaderChange``: a later epoch, or a leader in the epoch told
    without one. Never an earlier epoch, never the same twice, never "no leader" after a
    leader in one epoch (RAFT-OBS-LISTENER-LEADER)."""
    if (epoch, leader) == (told.told_epoch, told.told_leader):
        return False
    if epoch > told.told_epoch:
        return True
    return epoch == told.told_epoch and leader is not None and told.told_leader is None


def transitioned(before: Node, after: Node) -> bool:
    """Whether a step changed the replica's state as Kafka's ``transitionTo*`` do (role,
    epoch or persisted election); a restart is not one: the new listener registers after it."""
    if isinstance(before.role, Down) or isinstance(after.role, Down):
        return False
    return (type(before.role), before.role.epoch, election_of(before)) != \
        (type(after.role), after.role.epoch, election_of(after))


def notify(node: Node, rules: ListenerRules = ListenerRules(),
           transition: bool = True) -> tuple[Node, tuple[Output, ...]]:
    """The notifications due at ``node`` after a step, and the node with its listener updated.
    ``transition``: whether the step was a state transition (only ``told_at_transition``
    reads it).

    RAFT-OBS-LISTENER-COMMIT: records below the high watermark not yet delivered are delivered,
    once, in offset order, never past the high watermark. RAFT-OBS-LISTENER-LEADER: then the
    leader and epoch, if it is news. A down replica's listener is gone: the restart registers a
    fresh one, which reads from offset 0 and knows no leader. RAFT-OBS-LISTENER-SNAPSHOT: before
    the commits, a listener whose next offset is below the high watermark and below the log
    start (or at 0 while a snapshot exists, unless ``snapshot_below_start_only``) is given the
    latest snapshot and reads on from its end."""
    listener = node.listener
    if listener is None:
        return node, ()
    if isinstance(node.role, Down):
        return (node, ()) if listener == Listener() else (replace(node, listener=Listener()), ())
    out: list[Output] = []
    hw = node.high_watermark
    latest = node.latest_snapshot
    if hw is not None and latest is not None and listener.next_offset < hw and (
            listener.next_offset < node.log_start
            or (listener.next_offset == 0 and not rules.snapshot_below_start_only)):
        out.append(HandleLoadSnapshot(latest[0]))
        listener = replace(listener, next_offset=latest[0])
        node = replace(node, listener=listener)
    if hw is not None and hw > listener.next_offset:
        committed = node.log[listener.next_offset:hw]
        if rules.data_only:  # Kafka 3.3-3.5's API: data records only
            committed = tuple(e for e in committed if e.kind == "data")
        out.append(HandleCommit(listener.next_offset, tuple((e.epoch, e.kind) for e in committed)))
        listener = replace(listener, next_offset=hw)
        node = replace(node, listener=listener)
    news = leader_and_epoch(node, rules)
    if rules.told_at_transition and not transition and not isinstance(node.role, Leader):
        news = None  # Kafka fires only in transitionTo* and pollLeader: a new listener waits
    if news is not None and _should_tell(listener, *news):
        out.append(HandleLeaderChange(*news))
        node = replace(node, listener=replace(listener, told_epoch=news[0], told_leader=news[1]))
    return node, tuple(out)


def listening(step: StepFn, rules: ListenerRules = ListenerRules()) -> StepFn:
    """``step`` with the listener layer around it: the step's outputs, then the notifications
    due after it (a replica without a listener is stepped as before)."""

    def stepped(node: Node, inp: Input) -> tuple[Node, tuple[Output, ...]]:
        after, outputs = step(node, inp)
        if node.listener is None:
            return after, outputs
        if after.listener is None:  # a step function that rebuilt the node keeps the listener
            after = replace(after, listener=node.listener)
        after, told = notify(after, rules, transitioned(node, after))
        return after, outputs + told

    return stepped
