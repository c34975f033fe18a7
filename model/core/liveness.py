"""Liveness under weak fairness once faults stop: fair strongly connected components.

A liveness property of a kspec model says what every *fair* behaviour does after the
environment stops injecting faults (drops, duplicates, crashes). The checker:

1. explores the model's states within its bounds (the fault phase: faults may still happen);
2. from each of them, lets the protocol's :class:`Suffix` continue with the faults disabled
   and its timing assumptions applied (the suffix graph; its states are canonical, e.g. with
   epochs renumbered so that a livelock whose epochs grow forever closes a cycle);
3. computes the strongly connected components of that graph (iterative Tarjan) and keeps
   the *fair* ones: under weak fairness every action class enabled in all states of the
   component is taken by an edge inside it (a state with no fair action enabled is a fair
   component by itself: the behaviour stutters there);
4. a fair component in which the property's goal never holds is a violation, reported as a
   lasso: a path to the component and a cycle through it that takes every fair action the
   component needs (a deadlock's cycle is empty: it stutters).

Weak fairness is enough here: if a maximal component is unfair because a class is enabled
in all of its states and never taken, every sub-cycle is unfair for the same reason, so the
maximal components decide. Suffix states that leave the suffix bounds are *escapes*: the
action to them counts as enabled and never taken, so a component with an escape always
enabled is not fair (no false alarm from a bound), and reaching one at all is reported as a
bounded-liveness violation where the property declares a bound (``escape_violates``).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

from kspec.model.core.explorer import Hashed, Step, without_cycle_collection
from kspec.model.core.protocol import Model, Symmetric

S = TypeVar("S")
A = TypeVar("A")

LiveKind = Literal["eventually_always", "eventually_never_step", "not_stuck"]
Verdict = Literal["holds", "violated", "not-checked"]


@dataclass(frozen=True, slots=True)
class LivenessProperty(Generic[S, A]):
    """A named liveness property carrying the spec ID it checks.

    - ``eventually_always``: ``check(state) -> bool`` is a goal that every fair behaviour
      eventually reaches and then keeps (``<>[]goal``);
    - ``eventually_never_step``: ``check(before, action, after) -> bool`` is an event every
      fair behaviour eventually stops having (``<>[]~event``; e.g. a new election);
    - ``not_stuck``: ``check(state) -> frozenset`` names the keys (replicas, operations) in
      a waiting condition in ``state``; no fair behaviour keeps one key waiting forever
      (``waiting(k) ~> ~waiting(k)`` for every ``k``).

    ``escape_violates``: leaving the suffix bounds (e.g. more elections after the last fault
    than the bound allows) is a bounded-liveness violation of this property.
    ``applies`` says whether the property is checked at the given bounds (e.g. the pre-vote
    property only with ``pre_vote=true``).
    """

    id: str
    name: str
    kind: LiveKind
    check: Callable[..., Any]
    doc: str = ""
    escape_violates: bool = False
    applies: Callable[[dict[str, int | bool]], bool] = lambda _bounds: True

    def goal(self, state: S) -> bool:
        return bool(self.check(state))

    def waiting(self, state: S) -> frozenset[Hashable]:
        return frozenset(self.check(state))

    def event(self, before: S, action: A, after: S) -> bool:
        return bool(self.check(before, action, after))


class Suffix(Protocol[S, A]):
    """How a protocol continues once faults stop (what ``ProtocolInfo.liveness`` builds)."""

    def enter(self, state: S) -> S:
        """A fault-phase state as a suffix state (environment counters dropped)."""
        ...

    def actions(self, state: S) -> Iterable[A]:
        """Candidate actions after faults stop (no faults; the timing assumptions applied)."""
        ...

    def next_state(self, state: S, action: A) -> S | None:
        """The successor, or None when the action is disabled."""
        ...

    def within_bounds(self, state: S) -> bool:
        """The suffix bound; a successor outside it is an escape."""
        ...

    def canonical(self, state: S) -> S:
        """The representative of ``state``'s class (e.g. epochs renumbered from the lowest)."""
        ...

    def fair_class(self, action: A) -> Hashable | None:
        """The weak-fairness class of ``action``; None for an action fairness does not force."""
        ...

    def deferred(self, state: S) -> Iterable[A]:
        """Actions enabled in ``state`` that the timing assumptions make wait (a timer while
        messages are in flight): they count as enabled for fairness but are not taken here."""
        ...

    def properties(self) -> Sequence[LivenessProperty[S, A]]:
        """The protocol's liveness properties."""
        ...

    def describe_state(self, state: Any) -> str:
        """A suffix state (or a fault-phase state: a lasso holds both) for the CLI."""
        ...

    def describe_action(self, action: Any) -> str:
        """A suffix action (or a fault-phase one) for the CLI."""
        ...


@dataclass(frozen=True, slots=True)
class Lasso:
    """A counterexample: ``stem`` (fault phase then suffix) reaches the loop's first state;
    ``loop`` returns to it (empty: the behaviour stutters there, nothing fair is enabled).
    ``faults_stop`` is the index in ``stem`` of the state where faults stopped; ``key`` the
    stuck key of a ``not_stuck`` property; ``escape`` is True for a bounded-liveness
    counterexample (the stem leaves the suffix bounds; there is no loop)."""

    stem: tuple[Step, ...]
    loop: tuple[Step, ...]
    faults_stop: int
    key: Hashable | None = None
    escape: bool = False


@dataclass(slots=True)
class LivenessResult:
    """What the liveness check found; ``kspec explore --json`` reports ``verdicts``."""

    protocol: str
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)
    counterexamples: dict[str, Lasso] = field(default_factory=dict)
    # Non-vacuity: the goal is missed somewhere and reached in a fair component; the waiting
    # condition occurs; the event happens after faults stop.
    witnesses: dict[str, bool] = field(default_factory=dict)
    fault_states: int = 0
    suffix_states: int = 0
    suffix_edges: int = 0
    escapes: int = 0
    fair_components: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0  # the process's CPU time in the check (a loaded machine's wall time says little)
    complete: bool = True

    @property
    def ok(self) -> bool:
        return all(v != "violated" for v in self.verdicts.values()) and all(self.witnesses.values())


# ---------------------------------------------------------------- strongly connected components


def tarjan(n: int, succ: Callable[[int], Iterable[int]]) -> list[list[int]]:
    """The strongly connected components of the graph on ``0..n-1`` (iterative Tarjan; in
    reverse topological order: a component comes before those that reach it)."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    stack: list[int] = []
    comps: list[list[int]] = []
    counter = 0
    for root in range(n):
        if index[root] >= 0:
            continue
        work: list[tuple[int, Iterator[int]]] = [(root, iter(succ(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, iter(succ(w))))
                    advanced = True
                    break
                if on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
            if advanced:
                continue
            work.pop()
            if work:
                u = work[-1][0]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    comp.append(w)
                    if w == v:
                        break
                comps.append(comp)
    return comps


@dataclass(slots=True)
class Graph:
    """A finite graph with labelled edges: ``edges[v]`` are ``(w, label)`` pairs; ``enabled[v]``
    the fair classes enabled at ``v`` (escapes included); ``label_class`` maps an edge label
    to its fair class (or -1 for none)."""

    edges: list[list[tuple[int, int]]]
    enabled: list[frozenset[int]]
    label_class: list[int]


def fair_components(g: Graph, keep: Callable[[int], bool] | None = None) -> list[list[int]]:
    """The fair SCCs of the subgraph induced by the vertices ``keep`` accepts (all by
    default): every class enabled at all of a component's vertices (in the whole graph) is
    the class of an edge inside the component."""
    n = len(g.edges)
    inside = [True] * n if keep is None else [keep(v) for v in range(n)]

    def succ(v: int) -> Iterator[int]:
        if not inside[v]:
            return iter(())
        return (w for w, _ in g.edges[v] if inside[w])

    out = []
    for comp in tarjan(n, succ):
        if not inside[comp[0]]:
            continue
        if component_is_fair(g, comp):
            out.append(comp)
    return out


def component_is_fair(g: Graph, comp: Sequence[int]) -> bool:
    """Weak fairness: no class is enabled everywhere in ``comp`` and never taken inside it."""
    always_enabled = set(g.enabled[comp[0]])
    for v in comp[1:]:
        if not always_enabled:
            return True
        always_enabled &= g.enabled[v]
    if not always_enabled:
        return True
    members = set(comp)
    for v in comp:
        for w, label in g.edges[v]:
            if w in members:
                always_enabled.discard(g.label_class[label])
        if not always_enabled:
            return True
    return not always_enabled


def fair_cycle(g: Graph, comp: Sequence[int], start: int, must_visit: Iterable[int] = (),
               must_take: Iterable[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """A cycle from ``start`` through the fair component ``comp`` that takes one edge of every
    class enabled at all of its vertices, visits ``must_visit`` and takes the ``must_take``
    edges ``(v, index in edges[v])``; as ``(vertex, edge index)`` steps. Empty for a
    component without an internal edge (a stuttering state)."""
    members = set(comp)
    if not any(w in members for v in comp for w, _ in g.edges[v]):
        return []
    always_enabled = set(g.enabled[comp[0]])
    for v in comp[1:]:
        always_enabled &= g.enabled[v]
    targets: list[tuple[int, int]] = list(must_take)
    covered = set()
    for v in comp:
        for k, (w, label) in enumerate(g.edges[v]):
            cls = g.label_class[label]
            if w in members and cls in always_enabled and cls not in covered:
                covered.add(cls)
                targets.append((v, k))
    route: list[tuple[int, int]] = []
    here = start

    def walk_to(goal: int) -> None:
        nonlocal here
        if here == goal:
            return
        prev: dict[int, tuple[int, int]] = {here: (-1, -1)}
        queue = deque([here])
        while queue:
            v = queue.popleft()
            if v == goal:
                break
            for k, (w, _) in enumerate(g.edges[v]):
                if w in members and w not in prev:
                    prev[w] = (v, k)
                    queue.append(w)
        path = []
        v = goal
        while v != here:
            p, k = prev[v]
            path.append((p, k))
            v = p
        route.extend(reversed(path))
        here = goal

    for v in must_visit:
        walk_to(v)
    for v, k in targets:
        walk_to(v)
        route.append((v, k))
        here = g.edges[v][k][0]
    if not route:
        # A component with an internal edge but nothing required: take any edge.
        for k, (w, _) in enumerate(g.edges[start]):
            if w in members:
                route.append((start, k))
                here = w
                break
        else:
            for v in comp:
                for w, _ in g.edges[v]:
                    if w in members:
                        walk_to(v)
                        break
                if route or here != start:
                    break
            k = next(k for k, (w, _) in enumerate(g.edges[here]) if w in members)
            route.append((here, k))
            here = g.edges[here][k][0]
    walk_to(start)
    # The cycle must be fair by itself: a class enabled at every state it visits must be
    # taken on it. The component is fair, so such a class is taken on some edge inside it,
    # or disabled at some state of it; go there and back (each round fixes one class).
    while True:
        visited = [start] + [g.edges[v][k][0] for v, k in route]
        missing = set(g.enabled[visited[0]])
        for v in visited[1:]:
            missing &= g.enabled[v]
        missing -= {g.label_class[g.edges[v][k][1]] for v, k in route}
        if not missing:
            return route
        cls = min(missing)
        edge = next(((v, k) for v in comp for k, (w, lab) in enumerate(g.edges[v])
                     if w in members and g.label_class[lab] == cls), None)
        if edge is not None:
            walk_to(edge[0])
            route.append(edge)
            here = g.edges[edge[0]][edge[1]][0]
        else:
            walk_to(next(v for v in comp if cls not in g.enabled[v]))
        walk_to(start)


# ---------------------------------------------------------------- the check


def check_liveness(model: Model[Any, Any], suffix: Suffix[Any, Any], *,
                   only: Sequence[str] | None = None, max_states: int | None = None) -> LivenessResult:
    """Check ``suffix``'s liveness properties from every state ``model`` reaches within its
    bounds (faults may stop at any of them). ``only`` limits the properties by name."""
    with without_cycle_collection():
        return _check(model, suffix, only, max_states)


def _breadth_first(queue: deque[int], states: list[Any], max_states: int | None,
                   result: LivenessResult) -> Iterator[tuple[int, Any]]:
    """The queued state indices in order with their states, while the caller's visits append
    to ``queue``; stops once ``states`` holds ``max_states`` and marks ``result`` incomplete."""
    while queue:
        if max_states is not None and len(states) >= max_states:
            result.complete = False
            return
        i = queue.popleft()
        yield i, states[i]


def _check(model: Model[Any, Any], suffix: Suffix[Any, Any], only: Sequence[str] | None,
           max_states: int | None) -> LivenessResult:
    started, cpu = time.perf_counter(), time.process_time()
    props = [p for p in suffix.properties() if only is None or p.name in only]
    result = LivenessResult(protocol=model.name)
    for p in suffix.properties():
        result.ids[p.name] = p.id
        result.verdicts[p.name] = "not-checked"
    props = [p for p in props if p.applies(dict(model.bounds))]
    if not props:  # nothing applies at these bounds: every verdict stays not-checked
        result.seconds = time.perf_counter() - started
        return result

    # 1. The fault phase: every state within the bounds, with a shortest trace to each.
    canonical = model.canonical if isinstance(model, Symmetric) else None
    f_index: dict[Hashed, int] = {}
    f_states: list[Any] = []
    f_parent: list[int] = []
    f_via: list[Any] = []
    queue: deque[int] = deque()

    def f_visit(state: Any, p: int, action: Any) -> None:
        key = Hashed(state if canonical is None else canonical(state))
        if key in f_index or not model.within_bounds(state):
            return
        f_index[key] = len(f_states)
        f_states.append(state)
        f_parent.append(p)
        f_via.append(action)
        queue.append(len(f_states) - 1)

    for init in model.init_states():
        f_visit(init, -1, None)
    for i, s in _breadth_first(queue, f_states, max_states, result):
        for a in model.actions(s):
            nxt = model.next_state(s, a)
            if nxt is not None:
                f_visit(nxt, i, a)
    result.fault_states = len(f_states)

    # 2. The suffix graph, from every fault-phase state.
    index: dict[Hashed, int] = {}
    states: list[Any] = []
    entry: list[int] = []  # the fault-phase state a suffix state was first entered from (-1: none)
    parent: list[int] = []  # BFS tree inside the suffix
    parent_edge: list[int] = []
    edges: list[list[tuple[int, int]]] = []
    enabled: list[frozenset[int]] = []
    labels: dict[Hashed, int] = {}
    label_actions: list[Any] = []
    label_class: list[int] = []
    classes: dict[Hashable, int] = {}
    escape_from: list[tuple[int, int]] = []  # (state, label) of each escaping action
    s_queue: deque[int] = deque()

    def s_add(state: Any, from_fault: int, p: int, edge: int) -> int:
        key = Hashed(suffix.canonical(state))
        found = index.get(key)
        if found is not None:
            return found
        i = len(states)
        index[key] = i
        states.append(key.value)
        entry.append(from_fault)
        parent.append(p)
        parent_edge.append(edge)
        edges.append([])
        enabled.append(frozenset())
        s_queue.append(i)
        return i

    def label_of(action: Any) -> int:
        key = Hashed(action)
        found = labels.get(key)
        if found is not None:
            return found
        labels[key] = len(label_actions)
        label_actions.append(action)
        cls = suffix.fair_class(action)
        if cls is None:
            label_class.append(-1)
        else:
            label_class.append(classes.setdefault(cls, len(classes)))
        return labels[key]

    starts: list[int] = []
    for fi, fs in enumerate(f_states):
        starts.append(s_add(suffix.enter(fs), fi, -1, -1))
    step_props = [p for p in props if p.kind == "eventually_never_step"]
    event_edges: dict[str, list[tuple[int, int]]] = {p.name: [] for p in step_props}
    for i, s in _breadth_first(s_queue, states, max_states, result):
        en: set[int] = set()
        out = edges[i]
        for a in suffix.actions(s):
            nxt = suffix.next_state(s, a)
            if nxt is None:
                continue
            lab = label_of(a)
            if label_class[lab] >= 0:
                en.add(label_class[lab])
            if not suffix.within_bounds(nxt):
                escape_from.append((i, lab))
                continue
            j = s_add(nxt, -1, i, len(out))
            for p in step_props:
                if p.event(s, a, nxt):
                    event_edges[p.name].append((i, len(out)))
            out.append((j, lab))
        for a in suffix.deferred(s):
            if suffix.next_state(s, a) is not None:
                deferred_class = suffix.fair_class(a)
                if deferred_class is not None:
                    en.add(classes.setdefault(deferred_class, len(classes)))
        enabled[i] = frozenset(en)
    result.suffix_states = len(states)
    result.suffix_edges = sum(len(e) for e in edges)
    result.escapes = len(escape_from)
    g = Graph(edges, enabled, label_class)

    # 3. Fair components and verdicts.
    def stem(target: int) -> tuple[list[Step], int, _Concrete]:
        stem_idx = _suffix_path(target, parent, parent_edge)
        root = stem_idx[0][0]
        fi = entry[root]
        fault: list[Step] = []
        while fi >= 0:
            fault.append(Step(f_via[fi], f_states[fi]))
            fi = f_parent[fi]
        fault.reverse()
        walk = _Concrete(suffix, suffix.enter(f_states[entry[root]]))
        steps = list(fault)
        steps += [walk.to(states[g.edges[v][k][0]], label_actions[g.edges[v][k][1]]) for v, k in stem_idx[1:]]
        return steps, len(fault) - 1, walk

    def lasso(target: int, comp: Sequence[int], key: Hashable | None = None,
              must_take: Iterable[tuple[int, int]] = ()) -> Lasso:
        steps, faults_stop, walk = stem(target)
        loop = [walk.to(states[g.edges[v][k][0]], label_actions[g.edges[v][k][1]])
                for v, k in fair_cycle(g, comp, target, must_take=must_take)]
        return Lasso(tuple(steps), tuple(loop), faults_stop, key)

    all_fair: list[list[int]] | None = None
    if props:
        all_fair = fair_components(g)
        result.fair_components = len(all_fair)
    for p in props:
        verdict: Verdict = "holds"
        if p.kind == "eventually_always":
            if all_fair is None:
                all_fair = fair_components(g)
                result.fair_components = len(all_fair)
            goal = [p.goal(s) for s in states]
            result.witnesses[p.name] = (not all(goal)) and any(all(goal[v] for v in c) for c in all_fair)
            for comp in all_fair:
                bad = next((v for v in comp if not goal[v]), None)
                if bad is not None:
                    verdict = "violated"
                    result.counterexamples[p.name] = lasso(bad, comp)
                    break
        elif p.kind == "eventually_never_step":
            if all_fair is None:
                all_fair = fair_components(g)
                result.fair_components = len(all_fair)
            result.witnesses[p.name] = bool(event_edges[p.name])
            where: dict[int, list[tuple[int, int]]] = {}
            for v, k in event_edges[p.name]:
                where.setdefault(v, []).append((v, k))
            for comp in all_fair:
                members = set(comp)
                hit = next(((v, k) for v in comp for (v2, k) in where.get(v, ())
                            if g.edges[v2][k][0] in members), None)
                if hit is not None:
                    verdict = "violated"
                    result.counterexamples[p.name] = lasso(hit[0], comp, must_take=[hit])
                    break
        else:  # not_stuck
            waiting = [p.waiting(s) for s in states]
            keys = sorted({key for w in waiting for key in w}, key=repr)
            result.witnesses[p.name] = bool(keys)
            for key in keys:
                comps = fair_components(g, keep=lambda v, key=key, waiting=waiting: key in waiting[v])  # type: ignore[misc]
                if comps:
                    verdict = "violated"
                    result.counterexamples[p.name] = lasso(comps[0][0], comps[0], key=key)
                    break
        if verdict == "holds" and p.escape_violates and escape_from:
            verdict = "violated"
            v, lab = escape_from[0]
            steps, faults_stop, walk = stem(v)
            last = walk.escape(label_actions[lab])
            result.counterexamples[p.name] = Lasso((*steps, last), (), faults_stop, escape=True)
        result.verdicts[p.name] = verdict
    result.seconds = time.perf_counter() - started
    result.cpu_seconds = time.process_time() - cpu
    return result


class _Concrete:
    """Replays a path of canonical suffix states from a concrete state, so a counterexample
    shows the states as they are (epochs not renumbered): at each step, an action of the
    concrete state whose successor has the next canonical form."""

    def __init__(self, suffix: Suffix[Any, Any], state: Any) -> None:
        self.suffix = suffix
        self.state = state

    def to(self, target: Any, hint: Any) -> Step:
        key = Hashed(target)
        for a in (hint, *self.suffix.actions(self.state)):
            nxt = self.suffix.next_state(self.state, a)
            if nxt is not None and Hashed(self.suffix.canonical(nxt)) == key:
                self.state = nxt
                return Step(a, nxt)
        raise AssertionError(f"no step of the concrete state reaches {target!r}")

    def escape(self, hint: Any) -> Step:
        for a in (hint, *self.suffix.actions(self.state)):
            nxt = self.suffix.next_state(self.state, a)
            if nxt is not None and not self.suffix.within_bounds(nxt):
                self.state = nxt
                return Step(a, nxt)
        raise AssertionError("no step of the concrete state leaves the bounds")


def _suffix_path(target: int, parent: list[int], parent_edge: list[int]) -> list[tuple[int, int]]:
    """``[(root, -1), (v0, k0), ...]``: the BFS tree path to ``target`` as (vertex, edge index
    taken from it) steps after the root."""
    path: list[tuple[int, int]] = []
    v = target
    while parent[v] >= 0:
        path.append((parent[v], parent_edge[v]))
        v = parent[v]
    path.append((v, -1))
    path.reverse()
    return path
