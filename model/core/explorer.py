"""Bounded breadth-first exploration and seeded random simulation of any system model.

Breadth-first order makes the first trace found to a violating state a shortest one. States
outside the model's bounds are checked but neither counted nor expanded, which is TLC's
``CONSTRAINT`` semantics, so the explorer and TLC count the same distinct states for the same
bounds.
"""

from __future__ import annotations

import gc
import random
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from kspec.model.core.protocol import Model, Property, Symmetric, WeighsActions


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a trace: the action taken (None for the initial state) and the state after."""

    action: Any
    state: Any


@dataclass(frozen=True, slots=True)
class Violation:
    """A violated ``always`` property (or ``always_step``) and a shortest trace to it."""

    property: str
    name: str
    trace: tuple[Step, ...]


@dataclass(slots=True)
class ExploreResult:
    """What an exploration found; the keys of ``kspec explore --json``."""

    protocol: str
    bounds: dict[str, int | bool]
    distinct_states: int = 0
    transitions: int = 0
    max_depth: int = 0
    seconds: float = 0.0
    complete: bool = True
    violations: list[Violation] = field(default_factory=list)
    witnesses: dict[str, bool] = field(default_factory=dict)
    witness_ids: dict[str, str] = field(default_factory=dict)
    witness_traces: dict[str, tuple[Step, ...]] = field(default_factory=dict)
    # a parallel run's workers: each one's CPU seconds, and its wall seconds spent waiting for
    # the others at the level's two exchanges (bench/explore_bench.py prints them)
    worker_cpu: list[float] = field(default_factory=list)
    worker_wait: list[float] = field(default_factory=list)

    @property
    def states_per_second(self) -> float:
        return self.distinct_states / self.seconds if self.seconds > 0 else 0.0

    @property
    def ok(self) -> bool:
        """No violation and every witness reached."""
        return not self.violations and all(self.witnesses.values())


# ---------------------------------------------------------------- the search's public parts
# The serial explorer, the parallel one (parallel.py) and the liveness check (liveness.py)
# search the same way: states keyed by their hash, computed once, the cycle collector paused,
# properties split by kind. These are those shared parts.


class Hashed:
    """A state (or any value) with its hash computed once: the models' frozen dataclasses
    recompute theirs (recursively) on every set or dict operation, which a search does several
    times per state."""

    __slots__ = ("hash", "value")

    def __init__(self, value: Any) -> None:
        self.value = value
        self.hash = hash(value)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Hashed) and self.hash == other.hash and self.value == other.value


@contextmanager
def without_cycle_collection() -> Iterator[None]:
    """Pause Python's cycle collector. An exploration keeps every state it stores (acyclic,
    frozen values; garbage is freed by reference counting), and the collector's full passes
    over that growing heap cost about a seventh of the run; it resumes afterwards."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def split_properties(props: Sequence[Property[Any, Any]]) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """A model's properties by kind: (always, always_step, sometimes, sometimes_step)."""
    inv = [p for p in props if p.kind == "always"]
    step = [p for p in props if p.kind == "always_step"]
    wit = [p for p in props if p.kind == "sometimes"]
    step_wit = [p for p in props if p.kind == "sometimes_step"]
    return inv, step, wit, step_wit


def explore(
    model: Model[Any, Any],
    *,
    max_states: int | None = None,
    stop_on_violation: bool = True,
    keep_witness_traces: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
    stop_on: Collection[str] | None = None,
) -> ExploreResult:
    """Breadth-first search of every state reachable within the model's bounds.

    It stops at the first violation (``stop_on_violation``), or, with ``stop_on``, at the
    first violation of one of the properties named there.
    """
    with without_cycle_collection():
        return _explore(model, max_states=max_states, stop_on_violation=stop_on_violation,
                        keep_witness_traces=keep_witness_traces, progress=progress, stop_on=stop_on)


def _explore(
    model: Model[Any, Any],
    *,
    max_states: int | None,
    stop_on_violation: bool,
    keep_witness_traces: bool,
    progress: Callable[[int, int, int], None] | None,
    stop_on: Collection[str] | None,
) -> ExploreResult:
    started = time.perf_counter()
    invariants, step_props, witnesses, step_witnesses = split_properties(model.properties())
    result = ExploreResult(protocol=model.name, bounds=dict(model.bounds))
    result.witnesses = {p.name: False for p in witnesses + step_witnesses}
    result.witness_ids = {p.name: p.id for p in witnesses + step_witnesses}
    pending_step_witnesses = list(step_witnesses)
    pending_witnesses = list(witnesses)
    violated: set[str] = set()

    # The index maps a state's fingerprint (the hash of its key) to the state's number; the
    # rare keys whose fingerprint another key has already taken go to ``collided``, keyed by
    # the whole key, so the search stays exact. Fingerprints avoid a wrapper object per
    # successor and a Python-level ``__hash__`` call on every lookup.
    index: dict[int, int] = {}
    keys: list[Any] = []
    collided: dict[Hashed, int] = {}
    states: list[Any] = []
    parent: list[int] = []
    via: list[Any] = []
    depth: list[int] = []
    queue: deque[int] = deque()
    # the properties' predicates themselves (``Property.holds`` only wraps them in ``bool``)
    inv_checks = [(p.name, p.id, p.check) for p in invariants]
    step_checks = [(p.name, p.id, p.check) for p in step_props]

    def trace_to(i: int) -> tuple[Step, ...]:
        steps: list[Step] = []
        while i >= 0:
            steps.append(Step(via[i], states[i]))
            i = parent[i]
        return tuple(reversed(steps))

    def check(state: Any, p: int, action: Any, i: int | None) -> None:
        """The state properties on a new state: stored as number ``i``, or (``i`` None) outside
        the bounds, reached from state ``p`` by ``action``."""
        nonlocal pending_witnesses

        def trace() -> tuple[Step, ...]:
            if i is not None:
                return trace_to(i)
            return (*(trace_to(p) if p >= 0 else ()), Step(action, state))

        for name, pid, holds in inv_checks:
            if name not in violated and not holds(state):
                violated.add(name)
                result.violations.append(Violation(pid, name, trace()))
        if pending_witnesses:
            still = []
            for prop in pending_witnesses:
                if prop.holds(state):
                    result.witnesses[prop.name] = True
                    if keep_witness_traces:
                        result.witness_traces[prop.name] = trace()
                else:
                    still.append(prop)
            pending_witnesses = still

    canonical = model.canonical if isinstance(model, Symmetric) else None
    within_bounds = model.within_bounds
    # with symmetry: the states met as themselves, by hash (a state there needs no canonical form)
    raw_seen: dict[int, Any] = {}

    def known(key: Any, h: int) -> bool:
        j = index.get(h)
        if j is None:
            return False
        other = keys[j]
        return other is key or other == key or Hashed(key) in collided

    def visit(state: Any, p: int, action: Any) -> int | None:
        """Record a new state. A state outside the bounds is checked but neither stored nor
        expanded (TLC's CONSTRAINT: it is not counted among the distinct states either).
        With symmetry, states are keyed by their orbit's representative (TLC's SYMMETRY)."""
        h = hash(state)
        if canonical is None:
            key = state
        else:
            # A state met before (as itself) needs no canonical form: it is known.
            met = raw_seen.get(h)
            if met is not None and (met is state or met == state):
                return None
            if met is None:
                raw_seen[h] = state
            key = canonical(state)
            if key is not state:
                h = hash(key)
        if known(key, h):
            return None
        if not within_bounds(state):
            check(state, p, action, None)
            return None
        i = len(states)
        if h in index:
            collided[Hashed(key)] = i
        else:
            index[h] = i
        keys.append(key)
        states.append(state)
        parent.append(p)
        via.append(action)
        d = 0 if p < 0 else depth[p] + 1
        depth.append(d)
        if d > result.max_depth:
            result.max_depth = d
        check(state, p, action, i)
        queue.append(i)
        return i

    for init in model.init_states():
        visit(init, -1, None)
    actions = model.actions
    next_state = model.next_state
    while queue:
        if stop_on is not None:
            if any(v.name in stop_on for v in result.violations):
                result.complete = False
                break
        elif stop_on_violation and result.violations:
            result.complete = False
            break
        if max_states is not None and len(states) >= max_states:
            result.complete = False
            break
        i = queue.popleft()
        state = states[i]
        for action in actions(state):
            nxt = next_state(state, action)
            if nxt is None:
                continue
            result.transitions += 1
            if pending_step_witnesses:
                for prop in list(pending_step_witnesses):
                    if prop.holds_step(state, action, nxt):
                        result.witnesses[prop.name] = True
                        pending_step_witnesses.remove(prop)
                        if keep_witness_traces:
                            result.witness_traces[prop.name] = (*trace_to(i), Step(action, nxt))
            for name, pid, holds_step in step_checks:
                if name not in violated and not holds_step(state, action, nxt):
                    violated.add(name)
                    result.violations.append(Violation(pid, name, (*trace_to(i), Step(action, nxt))))
            visit(nxt, i, action)
        if progress is not None and len(states) % 1000 < 5:
            progress(len(states), result.transitions, result.max_depth)
    result.distinct_states = len(states)
    result.seconds = time.perf_counter() - started
    return result


def reachable_states(model: Model[Any, Any], max_states: int | None = None) -> set[Any]:
    """The set of distinct reachable states within bounds (for comparison with TLC); with
    symmetry, one representative per orbit."""
    with without_cycle_collection():
        return _reachable_states(model, max_states)


def _reachable_states(model: Model[Any, Any], max_states: int | None) -> set[Any]:
    canonical: Callable[[Any], Any] = model.canonical if isinstance(model, Symmetric) else (lambda s: s)
    seen: set[Any] = set()
    queue: deque[Any] = deque()
    for init in model.init_states():
        key = canonical(init)
        if key not in seen and model.within_bounds(init):
            seen.add(key)
            queue.append(init)
    actions, next_state, within_bounds = model.actions, model.next_state, model.within_bounds
    while queue and (max_states is None or len(seen) < max_states):
        state = queue.popleft()
        for action in actions(state):
            nxt = next_state(state, action)
            if nxt is None or not within_bounds(nxt):
                continue
            # one set operation (a state's hash is recomputed, recursively, on each)
            size = len(seen)
            seen.add(canonical(nxt))
            if len(seen) != size:
                queue.append(nxt)
    return seen


@dataclass(slots=True)
class SimulationResult:
    """What a seeded random simulation found; the keys of ``kspec simulate --json``."""

    protocol: str
    bounds: dict[str, int | bool]
    seed: int
    steps: int = 0
    traces: list[tuple[Step, ...]] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    witnesses: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0


def simulate(
    model: Model[Any, Any],
    *,
    seed: int,
    steps: int,
    traces: int = 1,
    stop_on_violation: bool = True,
    progress: Callable[[int], None] | None = None,
) -> SimulationResult:
    """Random walks of at most ``steps`` steps each, checking every property on the way.

    The walk picks among the enabled actions with a ``random.Random(seed)`` (uniformly, or by
    the model's ``action_weight``), so the same seed gives the same traces. A walk ends early
    when no action is enabled or the state leaves the bounds.
    """
    started = time.perf_counter()
    rng = random.Random(seed)
    invariants, step_props, witnesses, step_witnesses = split_properties(model.properties())
    result = SimulationResult(protocol=model.name, bounds=dict(model.bounds), seed=seed)
    result.witnesses = {p.name: False for p in witnesses + step_witnesses}
    inits = list(model.init_states())
    # A model may make the environment's faults rarer than progress (``action_weight``), so
    # that walks reach deep states instead of timing out over and over.
    weight = model.action_weight if isinstance(model, WeighsActions) else None
    for k in range(traces):
        state = inits[rng.randrange(len(inits))]
        trace: list[Step] = [Step(None, state)]
        failed = False
        # The walk checks every state it reaches, the last one included, and extends all
        # but the last.
        for taken in range(steps + 1):
            for prop in witnesses:
                if not result.witnesses[prop.name] and prop.holds(state):
                    result.witnesses[prop.name] = True
            bad = [p for p in invariants if not p.holds(state)]
            if bad:
                result.violations.append(Violation(bad[0].id, bad[0].name, tuple(trace)))
                failed = True
                break
            if taken == steps or not model.within_bounds(state):
                break
            enabled = []
            for action in model.actions(state):
                nxt = model.next_state(state, action)
                if nxt is not None:
                    enabled.append((action, nxt))
            if not enabled:
                break
            if weight is None:
                action, nxt = enabled[rng.randrange(len(enabled))]
            else:
                action, nxt = rng.choices(enabled, weights=[weight(a) for a, _ in enabled])[0]
            result.steps += 1
            for prop in step_witnesses:
                if not result.witnesses[prop.name] and prop.holds_step(state, action, nxt):
                    result.witnesses[prop.name] = True
            bad_step = [p for p in step_props if not p.holds_step(state, action, nxt)]
            trace.append(Step(action, nxt))
            state = nxt
            if bad_step:
                result.violations.append(Violation(bad_step[0].id, bad_step[0].name, tuple(trace)))
                failed = True
                break
        result.traces.append(tuple(trace))
        if progress is not None:
            progress(k + 1)
        if failed and stop_on_violation:
            break
    result.seconds = time.perf_counter() - started
    return result
