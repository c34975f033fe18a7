"""The node-level target interface every conformance target implements.

The harness drives one *instance* per protocol node (a KRaft replica, a share coordinator
shard, ...). Everything crossing the interface is plain JSON as produced by
``kspec.model.core.codec.encode``: an input is an object with a ``type`` naming the model's
input class (``VoteRequest``, ``ElectionTimeout``, ``WriteRequest`` ...) and its fields; the
target answers with its outputs (messages, effects, records, responses; same encoding) and an
observation (the protocol's observation dict, as the model's ``observe`` returns it). Because
the interface is JSON, an in-process Python target and an out-of-process program speaking
JSON Lines (``spec/adapter-protocol.md``) are interchangeable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

JSON = Any


@dataclass(frozen=True, slots=True)
class StepResult:
    """What a target returns for one input."""

    outputs: list[JSON] = field(default_factory=list)
    observation: dict[str, JSON] = field(default_factory=dict)


class TargetError(Exception):
    """The target crashed, hung, raised or answered something malformed.

    The harness turns it into verdict ``error`` naming the step and this reason.
    """


class Instance(Protocol):
    """One running node of a target (one replica, one shard)."""

    def step(self, inp: JSON) -> StepResult:
        """Apply one input; return the outputs in order and the observation after it."""
        ...

    def close(self) -> None:
        """Release the node's resources."""
        ...


class SteppingNode(Protocol):
    """An in-process node that answers an input with its outputs and shows its observation."""

    def step(self, inp: dict[str, Any]) -> list[dict[str, Any]]: ...

    def observation(self) -> dict[str, JSON]: ...


class NodeInstance:
    """The :class:`Instance` of a :class:`SteppingNode` (a Python target's replica or shard):
    each input's outputs with the observation after it; nothing to release."""

    def __init__(self, node: SteppingNode) -> None:
        self.node = node

    def step(self, inp: JSON) -> StepResult:
        return StepResult(self.node.step(inp), self.node.observation())

    def close(self) -> None:
        pass


@runtime_checkable
class TimedInstance(Protocol):
    """An instance whose timers have durations (raft's bounded liveness, RAFT-LIVE-TIMED): the
    driver runs one clock for every instance, fires the timer whose deadline comes first, and
    judges whether the target's election timeouts and backoffs let a leader be elected.

    ``timers`` names each running timer by the model input that ends it (``ElectionTimeout``,
    ``BackoffExpired``, ``FetchTimeout``, ``CheckQuorumTimeout``) with the milliseconds left on
    the instance's clock; ``elapse`` lets ``ms`` pass on that clock without acting on it (the
    next ``step`` of the expiring timer's input does)."""

    def timers(self) -> dict[str, int]:
        ...

    def elapse(self, ms: int) -> None:
        ...


class Target:
    """A target implementation of one protocol: a factory of node instances.

    Subclass it and implement :meth:`start` (and :meth:`close` when there is something to
    release). The optional capabilities below are typed members with defaults that declare
    nothing; a target overrides the ones it has (as a class attribute, an instance attribute
    or a property). The lockstep machine reads them directly, never by probing.
    """

    name: str = ""
    protocol: str = ""
    # The driver's action categories the target does not implement (Kafka 4.0's share
    # coordinator has no InitializeRequest, for instance): the lockstep machine never chooses
    # an action of those categories.
    unsupported: frozenset[str] = frozenset()
    # A driver level the target is driven at (voters: ``replica`` or ``log``); None: the default.
    level: str | None = None
    # Settings added to every configuration the run draws (share: ``kafka_version`` runs the
    # model with this release's rules); the counterexample file records them.
    model_config: Mapping[str, JSON] = MappingProxyType({})
    # What the target's adapter holds back without judging it, by catalogued deviation name:
    # why. A release behaviour no model variant predicts step for step (Kafka 3.9+'s
    # BeginQuorumEpoch heartbeat) is held, never silently: ``kspec conform`` and the Kafka
    # matrix list it, so a verdict says what it did not judge.
    unjudged: Mapping[str, str] = MappingProxyType({})

    def supports(self, config: dict[str, JSON]) -> bool:
        """Whether the target takes this configuration (mm2: a Kafka release keeps its own
        internal-topic rule); a run draws only configurations it takes."""
        return True

    def start(self, node: Any, config: dict[str, JSON]) -> Instance:
        """Start node ``node`` with the protocol's configuration (for raft: ``voters``,
        ``pre_vote``; for share: the shard's settings). The instance begins in the model's
        initial node state."""
        raise NotImplementedError(f"{type(self).__name__}.start")

    def close(self) -> None:
        """Stop every instance and release shared resources (a JVM, a child process)."""


class TargetWrapper(Target):
    """A target that wraps another (a time limit, extra model settings, a user's code guarded):
    every declared member is the inner target's unless the wrapper overrides it."""

    def __init__(self, inner: Target) -> None:
        self.inner = inner
        self.name = inner.name
        self.protocol = inner.protocol
        self.unsupported = inner.unsupported
        self.level = inner.level
        self.model_config = inner.model_config
        self.unjudged = inner.unjudged

    def supports(self, config: dict[str, JSON]) -> bool:
        return self.inner.supports(config)

    def start(self, node: Any, config: dict[str, JSON]) -> Instance:
        return self.inner.start(node, config)

    def close(self) -> None:
        self.inner.close()


class _DuckTarget(Target):
    """A user's target written before the ``Target`` base existed (any object with
    ``start(node, config)``, as the adapter guide of earlier releases showed): its optional
    members are read once, here, at the boundary with code kspec does not type; inside kspec
    it is a typed ``Target`` like any other."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.name = str(getattr(user, "name", "") or "")
        self.protocol = str(getattr(user, "protocol", "") or "")
        self.unsupported = frozenset(getattr(user, "unsupported", ()) or ())
        level = getattr(user, "level", None)
        self.level = None if level is None else str(level)
        self.model_config = dict(getattr(user, "model_config", None) or {})
        self._supports = getattr(user, "supports", None)
        self._close = getattr(user, "close", None)

    def supports(self, config: dict[str, JSON]) -> bool:
        return True if self._supports is None else bool(self._supports(config))

    def start(self, node: Any, config: dict[str, JSON]) -> Instance:
        started: Instance = self.user.start(node, config)
        return started

    def close(self) -> None:
        if callable(self._close):
            self._close()


def as_target(obj: Any) -> Target:
    """``obj`` as a typed :class:`Target`: itself when it subclasses ``Target``; otherwise any
    object with ``start(node, config)`` (targets written before the base class existed keep
    working), its optional members read once here."""
    if isinstance(obj, Target):
        return obj
    if not callable(getattr(obj, "start", None)):
        raise TypeError(f"{type(obj).__name__} is not a target: it has no start(node, config)")
    return _DuckTarget(obj)
