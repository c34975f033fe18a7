"""How a protocol's TLA+ spec corresponds to its Python model (used by ``kspec tla check``).

Each protocol with a TLA+ spec has a module ``kspec.tla.mappings.<protocol>`` exposing
``MAPPING``, a :class:`TLAMapping`:

- ``spec``: the .tla file, relative to the ``tla/`` folder (or an absolute path);
- ``config(bounds) -> str``: the .cfg text for the model's bounds (CONSTANTS, INIT/NEXT,
  INVARIANTS, CONSTRAINT); :func:`cfg_text` writes one;
- ``from_model(state)`` and ``from_tlc(state)``: a model state and a TLC state (a dict of
  variable to value, see :mod:`kspec.tla.values`) to one canonical, hashable form. The
  simplest canonical form is TLC's own: ``from_tlc`` defaults to :func:`tlc_state`, so a
  mapping only writes ``from_model``, building the TLA+ variables from the model state;
- ``variables``: the spec's VARIABLES, for :meth:`TLAMapping.trace_module`.

``MAPPING.replay`` replays a TLC behaviour through the Python model and
``MAPPING.trace_module`` writes a module that lets TLC walk a Python trace; a protocol module
only writes what differs (its bounds to CONSTANTS, ``from_model``, its VARIABLES).

Two sets of distinct states are then compared. TLC 2.15 neither counts nor dumps a state
outside the ``CONSTRAINT`` (it does check invariants on it), so the model side is compared
over the states within the model's bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from kspec.model.core.declared import declared
from kspec.tla.values import FrozenDict, format_value

TLA_DIR = Path(__file__).resolve().parent.parent

S = TypeVar("S")  # a model state


class NoMapping(LookupError):
    """A protocol with no TLA+ mapping (yet)."""


def tlc_state(state: Mapping[str, Any]) -> FrozenDict:
    """The default canonical form of a TLC state: the variables as a hashable mapping."""
    return FrozenDict(state)


@dataclass(frozen=True, slots=True)
class TLAMapping(Generic[S]):
    """A protocol's TLA+ spec, its config for given bounds, and the state correspondence."""

    protocol: str
    spec: str | Path
    config: Callable[[Mapping[str, int | bool]], str]
    from_model: Callable[[S], Hashable]
    from_tlc: Callable[[Mapping[str, Any]], Hashable] = tlc_state
    check_deadlock: bool = False
    doc: str = ""
    variables: tuple[str, ...] = ()
    # Bounds the spec models at one value only (KRaft.tla has no SYMMETRY), with that value: a
    # check that does not name one runs at it, so the command works with its defaults.
    fixed_bounds: Mapping[str, int | bool] = field(default_factory=dict)
    # The shipped TLC config (under tla/, the one ``tlc`` on the spec checks) and the spec's
    # CONSTANT of each model bound: a check with no bounds named runs at the config's values.
    shipped_config: str = ""
    constant_of_bound: Mapping[str, str] = field(default_factory=dict)

    def shipped_bounds(self) -> dict[str, int | bool]:
        """The bounds of the shipped TLC config, by bound name ({} when there is none)."""
        if not self.shipped_config:
            return {}
        bound_of = {c: b for b, c in self.constant_of_bound.items()}
        out: dict[str, int | bool] = {}
        for line in (TLA_DIR / self.shipped_config).read_text(encoding="utf-8").splitlines():
            name, eq, value = (part.strip() for part in line.partition("="))
            if eq and name in bound_of:
                out[bound_of[name]] = value == "TRUE" if value in ("TRUE", "FALSE") else int(value)
        return out

    def spec_path(self) -> Path:
        """The spec file (a relative ``spec`` is under the ``tla/`` folder)."""
        p = Path(self.spec)
        return p if p.is_absolute() else TLA_DIR / p

    def replay(self, model: Any, states: Iterable[Mapping[str, Any]]) -> list[tuple[Any, S]]:
        """Replay a TLC behaviour through the Python model (see :func:`replay_through`); raises
        :class:`ReplayError` naming the step that does not replay."""
        return replay_through(model, states, self.from_model)

    def trace_module(self, name: str, states: Iterable[S]) -> str:
        """A module ``name`` extending the spec whose TraceInit/TraceNext allow exactly the steps
        of a Python trace that are also steps of the spec's Next: TLC on it shows whether a
        Python behaviour is a behaviour of the spec (or of a broken copy with a flaw flag set),
        as a step Next does not allow is never taken."""
        if not self.variables:
            raise ValueError(f"the mapping of {self.protocol} names no variables: no trace module")
        rows = [format_value(self.from_model(s)) for s in states]
        body = ",\n    ".join(rows)
        eq_now = " /\\ ".join(f"{v} = TraceStates[i].{v}" for v in self.variables)
        eq_next = " /\\ ".join(f"{v}' = TraceStates[i + 1].{v}" for v in self.variables)
        eq_init = " /\\ ".join(f"{v} = TraceStates[1].{v}" for v in self.variables)
        return (f"---- MODULE {name} ----\nEXTENDS {Path(self.spec).stem}, TLC\n"
                f"TraceStates == <<\n    {body}\n  >>\n"
                f"TraceInit == {eq_init}\n"
                f"TraceNext == \\E i \\in 1 .. Len(TraceStates) - 1 : ({eq_now}) /\\ Next /\\ ({eq_next})\n"
                "====\n")


def get_mapping(protocol: str, module_name: str | None = None) -> TLAMapping[Any]:
    """The mapping of ``protocol`` (in ``module_name``, by default ``kspec.tla.mappings.<protocol>``);
    raises :class:`NoMapping` with a one-line reason."""
    if not protocol.isidentifier():
        raise NoMapping(f"{protocol!r} is not a protocol name")
    module_name = module_name or f"{__name__}.{protocol}"
    mapping: TLAMapping[Any] = declared(
        module_name, "MAPPING", TLAMapping, NoMapping,
        absent=f"protocol {protocol!r} has no TLA+ mapping yet ({module_name})",
        wrong=f"{module_name} has no MAPPING (a kspec.tla.mappings.TLAMapping)")
    return mapping


def _constant(value: Any) -> str:
    """A constant's value in .cfg syntax (model values are bare names)."""
    if isinstance(value, list | set):
        value = frozenset(value)
    return format_value(value)


def cfg_text(
    constants: Mapping[str, Any] | None = None,
    *,
    init: str = "Init",
    next: str = "Next",
    invariants: Iterable[str] = (),
    constraint: str | None = None,
    properties: Iterable[str] = (),
    symmetry: str | None = None,
    model_values: Iterable[str] = (),
) -> str:
    """A TLC .cfg: ``constants`` maps each CONSTANT to a Python value (a :class:`ModelValue`
    or a set of them becomes model values); ``model_values`` names constants bound to
    themselves (``p1 = p1``)."""
    def section(keyword: str, names: Iterable[str]) -> list[str]:  # a keyword over indented lines, if any
        listed = [f"  {name}" for name in names]
        return [keyword, *listed] if listed else []

    items = [f"{name} = {_constant(v)}" for name, v in (constants or {}).items()]
    items += [f"{name} = {name}" for name in model_values]
    lines = [*section("CONSTANTS", items), f"INIT {init}", f"NEXT {next}", *section("INVARIANTS", invariants)]
    lines += [f"CONSTRAINT {constraint}"] if constraint else []
    lines += section("PROPERTIES", properties)
    lines += [f"SYMMETRY {symmetry}"] if symmetry else []
    return "\n".join(lines) + "\n"


class ReplayError(AssertionError):
    """A TLC state that no Python action reaches from the previous state (one line)."""


def replay_through(model: Any, states: Iterable[Mapping[str, Any]],
                   from_model: Callable[[Any], Hashable]) -> list[tuple[Any, Any]]:
    """Replay a TLC behaviour (states as dicts of variable to value) through the Python model.

    The first state must map (by ``from_model``) to an initial state, and every next one to
    the state one Python action reaches from the previous Python state. Returns (action,
    state) per step (action None for the first); raises :class:`ReplayError` naming the step
    that does not replay.
    """
    steps: list[tuple[Any, Any]] = []
    for n, values in enumerate(states, start=1):
        target = FrozenDict(values)
        if not steps:
            found = [s for s in model.init_states() if from_model(s) == target]
            if not found:
                raise ReplayError(f"state 1 of the TLC trace is not an initial state of the model: {target!r:.300}")
            steps.append((None, found[0]))
            continue
        before = steps[-1][1]
        for action in model.actions(before):
            after = model.next_state(before, action)
            if after is not None and from_model(after) == target:
                steps.append((action, after))
                break
        else:
            raise ReplayError(f"state {n} of the TLC trace is not one model action away from state {n - 1}: "
                              f"{target!r:.300}")
    return steps
