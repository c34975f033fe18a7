"""The driver interface: what the lockstep harness, the guided runs and the CLI know of a protocol.

A *driver* knows one protocol: its configurations, the model's enabled actions in a state, the
node-level event an action gives (which node, which input, the model's outputs and the model's
observation after it), and the safety checks that can be evaluated on observations alone.

:class:`Driver` is the base every protocol's driver subclasses: the abstract methods are what
each must provide, and every optional capability is a typed member with a default that
declares nothing (no weights, no forced opening, the protocol's own output order ...). A
driver overrides the ones it has; the harness, the lockstep machine (``drivers/__init__.py``),
the guided runs (``drivers/guide.py``) and ``kspec conform`` read them directly.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from kspec.conformance.adapters.base import JSON
from kspec.model.core.protocol import Model, Property

M = TypeVar("M", bound=Model[Any, Any])

# A partial order on a step's output types (drivers/ordering.py): (before, after, spec ID).
OrderRule = tuple[frozenset[str], frozenset[str], str]

# Abstract states a guided run explores per configuration (``guide_states``), spread over at
# most ``guide_depth`` levels (drivers/guide.py).
DEFAULT_GUIDE_STATES = 360
DEFAULT_GUIDE_DEPTH = 12


@dataclass(frozen=True)
class Event:
    """The node-level event of one model action, with the model's side of it."""

    node: Any
    input: JSON
    model_outputs: JSON
    model_observation: JSON
    # What gave the event within a composite action (a macro's model action), for the step label.
    label: str | None = None
    # Other outputs the protocol allows for this input (each a whole list, as model_outputs);
    # the state after is the same (raft: RAFT-RULE-VOTE-REASKED). The target may send any one.
    alternatives: tuple[JSON, ...] = ()


@dataclass(frozen=True, slots=True)
class StartProbe:
    """A probe that gets a guided path of its own (``Driver.start_probes``, ``guide.start_paths``):
    ``script(state)`` is the probe's steps from ``state`` (``[]`` where it does not fit), and the
    path is the guide graph's shortest path to the first state, breadth first, where it fits,
    then the script. A probe that spends a run's one crash or most of its election budget needs
    the budgets a path's end has seldom left; at the start of a path they are whole."""

    id: str  # the spec ID of the probe (VOTERS-DRIVE-ADDED-LEADER-RESTART)
    script: Callable[[Any], list[tuple[str, Any]]]


class Driver(ABC, Generic[M]):
    """One protocol's lockstep driver (see the module docstring)."""

    protocol: ClassVar[str]
    config: dict[str, JSON]
    model: M
    # The action categories, one lockstep rule each (a class attribute or set per configuration).
    categories: tuple[str, ...]

    # -- optional capabilities (defaults declare nothing) ----------------------------------------
    # Rules per category: a category of weight w gets w rules, so Hypothesis draws it w times as often.
    weights: ClassVar[Mapping[str, int]] = {}
    # Categories forced at the start of every run, in order (voters: the quorum's start-up).
    opening: ClassVar[tuple[str, ...]] = ()
    # Categories whose answers do not depend on the state (mm2's policy calls): a guided run
    # counts such a transition once, not per state.
    stateless: ClassVar[tuple[str, ...]] = ()
    guide_states: ClassVar[int] = DEFAULT_GUIDE_STATES
    guide_depth: ClassVar[int] = DEFAULT_GUIDE_DEPTH
    # Categories a guided run leaves to the random runs (many actions per state that lead nowhere
    # deeper, as raft's injected requests): the guide's graph stays as deep as without them.
    unguided: ClassVar[tuple[str, ...]] = ()
    # Categories of inputs a target may not implement and may decline (``Target.unsupported``),
    # each with what it sends: a target that errors on one of their inputs is told how to
    # declare it unsupported (the error line; raft: the leader-only RPCs).
    declinable: ClassVar[Mapping[str, str]] = {}
    # Whether config["model_variant"] runs a model variant (--model-variant, --accept NAME).
    takes_model_variant: ClassVar[bool] = False
    # Configuration keys ``kspec conform --set KEY=VALUE`` may set, with their allowed values.
    settable: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # The value a settable key takes when neither the target (``model_config``) nor ``--set``
    # names one (share: ``kafka_version``, the newest rule set); the report says which judged.
    setting_defaults: ClassVar[Mapping[str, str]] = {}
    # The order the spec imposes on a step's outputs (rules in drivers/ordering.py); () : none,
    # outputs are compared as a multiset only (mm2 and streams answer in observations).
    output_order: ClassVar[tuple[OrderRule, ...]] = ()

    def __init__(self, config: dict[str, JSON]) -> None:
        self.config = config

    @abstractmethod
    def nodes(self) -> list[Any]:
        """The nodes of the configuration, one target instance each."""

    @abstractmethod
    def node_config(self, node: Any) -> dict[str, JSON]:
        """The configuration a target instance of ``node`` starts with."""

    @abstractmethod
    def init_state(self) -> Any:
        """The model's initial state."""

    @abstractmethod
    def candidates(self, state: Any) -> list[tuple[str, Any]]:
        """``(category, action)`` pairs worth trying in ``state`` (``resolve`` decides)."""

    @abstractmethod
    def resolve(self, state: Any, action: Any) -> Any | None:
        """The state after ``action``, or None when the model does not enable it (within bounds)."""

    @abstractmethod
    def events(self, before: Any, action: Any, after: Any) -> list[Event]:
        """The node-level events of ``action``, with the model's outputs and observations."""

    @abstractmethod
    def describe(self, action: Any) -> str:
        """One line naming ``action`` (the step label of a counterexample)."""

    @abstractmethod
    def model_violation(self, before: Any, action: Any, after: Any) -> str | None:
        """A property the model itself breaks on this step (a kspec bug), or None."""

    @abstractmethod
    def observed_violation(self, node: Any, inp: JSON, observations: dict[Any, JSON],
                           memory: dict[str, Any]) -> str | None:
        """``"NAME: detail"`` of a safety property the targets' observations break, or None."""

    def comparable(self, output: JSON) -> JSON:
        """The part of an output the comparison holds a target to (default: all of it)."""
        return output

    def comparable_at(self, model_outputs: JSON) -> Callable[[JSON], JSON]:
        """:meth:`comparable` for the outputs of one step whose model outputs are ``model_outputs``
        (default: the same at every step). A driver whose freedom in an output depends on the
        model's state at that step (raft: the order of a resigning leader's preferred successors,
        RAFT-RULE-PREFERRED-ORDER) reads it from what its events put in the model's outputs."""
        return self.comparable

    def output_kind(self, node: Any, output: JSON) -> Any:
        """The name ``output_order``'s rules match an output of ``node``'s step by (default: its
        ``type``; a driver may tell apart outputs of one type that the spec orders differently)."""
        return output.get("type") if isinstance(output, dict) else None

    def canonical_observation(self, inp: JSON, observation: JSON) -> JSON:
        """The observation with collections the spec does not order brought to one order
        (a Java ``Collection`` or ``Set`` answer); both sides are compared so. Default: as is."""
        return observation

    def input_error(self, inp: JSON) -> str | None:
        """Why ``inp``, an input read from a file (a replayed counterexample's step), is not one
        this driver could have sent: ``FIELD: what is wrong``, checked before a target sees it;
        None where it could. Default: None (a field no rule of the driver reads is the target's
        to judge)."""
        return None

    def guide_key(self, state: Any) -> Hashable:
        """The abstract state a guided run's graph is built over (it must keep everything that
        decides which actions are enabled); default: the state itself."""
        return state  # type: ignore[no-any-return]

    def input_cells(self, before: Any, action: Any) -> list[tuple[str, str]]:
        """The (role, input kind) cells of the coverage matrix this action exercises (raft: the
        receiver's role and the request or timer); default: none, the protocol has no matrix."""
        return []

    def request_grid(self) -> frozenset[tuple[str, str, str]]:
        """The (request kind, receiver role, epoch relation) cells this configuration's runs
        should feed (raft: RAFT-DRIVE-REQUEST-GRID); default: none, the protocol has no grid."""
        return frozenset()

    def request_cells(self, before: Any, action: Any) -> list[tuple[str, str, str, str]]:
        """The (request kind, receiver role, epoch relation, sender) cells of the requests this
        action feeds (:meth:`request_grid`'s cells with who sent them); default: none."""
        return []

    def probes(self, state: Any, k: int) -> list[tuple[str, Any]]:
        """``(category, action)`` pairs a guided path (the ``k``-th of its configuration) ends
        with, from ``state``, where it ends: inputs of the categories left to the random runs
        (``unguided``) that a receiver-side rule needs in every role, a few per path and
        rotated over the paths by ``k`` (raft: RAFT-DRIVE-PROBE). Each is resolved after the
        one before it; one the model does not enable is left out. Default: none."""
        return []

    def start_probes(self) -> Sequence[StartProbe]:
        """The probes that run at the start of a guided path, each on a path of its own (the
        shortest prefix of the guide graph to where it fits, nothing of the planned paths before
        it): a probe that needs the crash or election budgets whole, which the end of a path
        has spent (``probes`` run where the planned path ends). Default: none."""
        return ()

    def witnesses(self) -> Sequence[Property[Any, Any]]:
        """The model's ``sometimes`` witnesses, which guided runs plan paths to."""
        return [p for p in self.model.properties() if p.kind == "sometimes" and p.applies_at(self.model.bounds)]
