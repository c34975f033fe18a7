"""The system-level model protocol shared by every kspec protocol (as in stateright).

A model is a set of initial states, the actions enabled in a state (in a deterministic
order), a next-state function, a state constraint (the bounds) and named properties. The
explorer, the simulator, the TLC bridge and the conformance suite only ever talk to a model
through this protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar, runtime_checkable

S = TypeVar("S")
A = TypeVar("A")

Kind = Literal["always", "sometimes", "always_step", "sometimes_step"]


@dataclass(frozen=True, slots=True)
class Property(Generic[S, A]):
    """A named property carrying the spec ID it checks.

    ``always`` holds in every reachable state; ``sometimes`` is a witness that must hold in
    at least one reachable state (so a vacuous model fails loudly); ``always_step`` holds on
    every transition ``(before, action, after)``; ``sometimes_step`` is a witness that must
    hold on at least one transition (an event: a truncation, a resignation).
    """

    id: str
    name: str
    kind: Kind
    check: Callable[..., bool]
    doc: str = ""
    # For ``always`` / ``always_step`` properties: the names of the ``sometimes`` witnesses
    # that show the property is not vacuous (its interesting states are reached).
    witnessed_by: tuple[str, ...] = ()
    # The bound this property applies under only when it is 1 or more ("" when it applies at
    # every bound): a witness no run of smaller bounds can reach (raft's BeginQuorumEpochResent
    # needs a resend, and ``max_resends`` is 0 by default). At bounds where it cannot apply the
    # explorer leaves it out and reports it as not applicable (``split_properties``).
    needs: str = ""

    def applies_at(self, bounds: Mapping[str, int | bool]) -> bool:
        """Whether the property applies at ``bounds`` (its ``needs`` bound is 1 or more)."""
        return not self.needs or int(bounds.get(self.needs, 0)) >= 1

    def holds(self, state: S) -> bool:
        """Evaluate a state property (``always`` or ``sometimes``)."""
        return bool(self.check(state))

    def holds_step(self, before: S, action: A, after: S) -> bool:
        """Evaluate a transition property (``always_step`` or ``sometimes_step``)."""
        return bool(self.check(before, action, after))


def always(
    id: str, name: str, doc: str = "", witnessed_by: tuple[str, ...] = ()
) -> Callable[[Callable[[S], bool]], Property[S, Any]]:
    """Decorator: turn a state predicate into an ``always`` property."""

    def wrap(fn: Callable[[S], bool]) -> Property[S, Any]:
        return Property(id, name, "always", fn, doc or (fn.__doc__ or "").strip(), witnessed_by)

    return wrap


def sometimes(id: str, name: str, doc: str = "",
              needs: str = "") -> Callable[[Callable[[S], bool]], Property[S, Any]]:
    """Decorator: turn a state predicate into a ``sometimes`` witness (``needs``: see
    :attr:`Property.needs`)."""

    def wrap(fn: Callable[[S], bool]) -> Property[S, Any]:
        return Property(id, name, "sometimes", fn, doc or (fn.__doc__ or "").strip(), needs=needs)

    return wrap


def sometimes_step(
    id: str, name: str, doc: str = "", needs: str = ""
) -> Callable[[Callable[[S, A, S], bool]], Property[S, A]]:
    """Decorator: turn a transition predicate into a ``sometimes_step`` witness (``needs``: see
    :attr:`Property.needs`)."""

    def wrap(fn: Callable[[S, A, S], bool]) -> Property[S, A]:
        return Property(id, name, "sometimes_step", fn, doc or (fn.__doc__ or "").strip(), needs=needs)

    return wrap


def always_step(
    id: str, name: str, doc: str = "", witnessed_by: tuple[str, ...] = ()
) -> Callable[[Callable[[S, A, S], bool]], Property[S, A]]:
    """Decorator: turn a transition predicate into an ``always_step`` property."""

    def wrap(fn: Callable[[S, A, S], bool]) -> Property[S, A]:
        return Property(id, name, "always_step", fn, doc or (fn.__doc__ or "").strip(), witnessed_by)

    return wrap


@dataclass(frozen=True, slots=True)
class Bound:
    """One exploration bound a protocol accepts on the command line (``name=value``)."""

    name: str
    default: int | bool
    help: str
    minimum: int = 0
    maximum: int | None = None


class Model(Protocol[S, A]):
    """What every system-level model provides."""

    name: str
    bounds: dict[str, int | bool]

    def init_states(self) -> Sequence[S]:
        """The initial states, in a deterministic order."""
        ...

    def actions(self, state: S) -> Iterable[A]:
        """Candidate actions in ``state``, in a deterministic order (some may be disabled)."""
        ...

    def next_state(self, state: S, action: A) -> S | None:
        """The successor of ``state`` under ``action``, or None when the action is disabled."""
        ...

    def within_bounds(self, state: S) -> bool:
        """The state constraint: states outside the bounds are checked but not expanded."""
        ...

    def properties(self) -> Sequence[Property[S, A]]:
        """Named ``always`` / ``always_step`` properties and ``sometimes`` witnesses."""
        ...


# Optional capabilities of a model, each a typed protocol checked with ``isinstance`` (a model
# has the member or not; raft and voters have ``canonical`` only with symmetry on).


@runtime_checkable
class Symmetric(Protocol):
    """A model whose explorer keys states by their orbit's representative (TLC's SYMMETRY)."""

    def canonical(self, state: Any) -> Any: ...


@runtime_checkable
class WeighsActions(Protocol):
    """A model whose random walks take some actions more often (faults rarer than progress)."""

    def action_weight(self, action: Any) -> int: ...


@runtime_checkable
class DescribesActions(Protocol):
    """A model that names its actions in one line (traces, docs)."""

    def describe_action(self, action: Any) -> str: ...


@runtime_checkable
class DescribesStates(Protocol):
    """A model that shows a state in a few lines (traces)."""

    def describe_state(self, state: Any) -> str: ...


@runtime_checkable
class HasEvents(Protocol):
    """A model whose actions are node-level events (``events.jsonl`` for the pipeline)."""

    def events_of(self, before: Any, action: Any, after: Any) -> Iterable[dict[str, Any]]: ...


@dataclass(frozen=True, slots=True)
class ProtocolInfo:
    """How the CLI and the tests find a protocol's model, bounds and broken variants."""

    name: str
    make: Callable[..., Model[Any, Any]]
    bounds: tuple[Bound, ...]
    variants: Mapping[str, Callable[..., Model[Any, Any]]] = field(default_factory=dict)
    summary: str = ""
    # Looser defaults for ``simulate``: random walks go deep, where exhaustive search cannot.
    simulation_bounds: Mapping[str, int | bool] = field(default_factory=dict)
    # Liveness: the protocol's suffix once faults stop (``kspec.model.core.liveness.Suffix``),
    # built from a model; None for a protocol without liveness properties.
    liveness: Callable[[Any], Any] | None = None


class BoundsError(ValueError):
    """A bound that does not exist or has a bad value (a usage error)."""


def parse_bounds(info: ProtocolInfo, pairs: Iterable[str], simulation: bool = False) -> dict[str, int | bool]:
    """Parse ``name=value`` pairs against a protocol's bounds, filling in the defaults (the
    simulation defaults when ``simulation``)."""
    known = {b.name: b for b in info.bounds}
    values: dict[str, int | bool] = {b.name: b.default for b in info.bounds}
    if simulation:
        values.update(info.simulation_bounds)
    for pair in pairs:
        if "=" not in pair:
            raise BoundsError(f"bound {pair!r} is not name=value (known: {', '.join(known)})")
        key, _, raw = pair.partition("=")
        key = key.strip().replace("-", "_")
        if key not in known:
            raise BoundsError(f"unknown bound {key!r} for {info.name} (known: {', '.join(known)})")
        bound = known[key]
        if isinstance(bound.default, bool):
            if raw.lower() not in ("true", "false", "1", "0", "yes", "no", "on", "off"):
                raise BoundsError(f"bound {key}={raw!r} is not a boolean")
            values[key] = raw.lower() in ("true", "1", "yes", "on")
            continue
        try:
            number = int(raw)
        except ValueError:
            raise BoundsError(f"bound {key}={raw!r} is not an integer") from None
        if number < bound.minimum or (bound.maximum is not None and number > bound.maximum):
            hi = "" if bound.maximum is None else f"..{bound.maximum}"
            raise BoundsError(f"bound {key}={number} is out of range {bound.minimum}{hi}")
        values[key] = number
    return values


def first_violated(properties: Iterable[Property[Any, Any]], before: Any, action: Any, after: Any) -> str | None:
    """``"ID (Name)"`` of the first ``always`` property false in ``after`` or ``always_step``
    property false on the step, in the given order; None when every one holds."""
    props = list(properties)
    for p in props:
        if p.kind == "always" and not p.holds(after):
            return f"{p.id} ({p.name})"
    for p in props:
        if p.kind == "always_step" and not p.holds_step(before, action, after):
            return f"{p.id} ({p.name})"
    return None
