"""Model-guided runs (Mocket-style): paths through the driver's state graph that together take
every transition and reach every witness, fed to the target in lockstep.

Random walks rarely keep the order a deep state needs (a log that diverged under one leader
and is truncated under the next, a voter change lost to an election): the shorter path is to
compute where to go. :func:`explore` walks the driver's graph breadth first from its initial
state (the driver's candidates resolved as a run resolves them, so every path is one a run
could take) up to ``max_states`` abstract states; :func:`plan` picks paths greedily: the
uncovered transition whose source is deepest first, reached by its shortest path, then
extended from where it ends to the nearest uncovered transitions until the path is
``max_len`` steps long. Every path is a list of ``(category, action)`` pairs that
``Lockstep.take`` replays, so a path that diverges is a counterexample like any other (same
file, same minimiser).

Two driver hooks keep the graph small enough to be deep (both optional):

* ``guide_key(state)``: the abstract state the graph is built over (one concrete
  representative per abstract state is explored). It must keep everything that decides which
  actions are enabled, or a path through representatives would not replay. For the KRaft
  drivers the default leaves out the ghost history (states that differ only in the past elections
  and votes the properties remember are one), so the search goes deeper for the same number
  of states; otherwise the default is the state itself.
* ``stateless``: the categories whose answers do not depend on the state (mm2's policy calls):
  such a transition is the same wherever it is taken, so it is counted once, not per state
  (and a path may take it wherever it is offered).

A driver's probes (``Driver.probes``) end each planned path where it ends, its budgets (one
crash, a few elections, the epoch bound) mostly spent; a probe that needs them whole is a start
probe (``Driver.start_probes``): :func:`start_paths` gives each a path of its own, the shortest
to the first state, breadth first, where it fits, then its script; a run takes a
configuration's start paths before its planned ones (``runner._guided_plans``).

Witnesses are the model's ``sometimes`` properties (``driver.model.properties()``), evaluated
on the explored states; a path to the first state reaching each is planned before the
transitions. Nothing is cached on disk: the graph of a configuration is computed once per
process (:func:`graph_for`) and depends only on the driver's code.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from collections import Counter, deque
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from kspec.conformance.driver import DEFAULT_GUIDE_DEPTH, DEFAULT_GUIDE_STATES, Driver

Step = tuple[str, Any]  # (category, action), as Lockstep.take replays it


class PartsProbe(ABC):
    """A probe step (``Driver.probes``) made of parts of other categories (share's
    ``PathEndProbe``): :func:`with_probes` leaves it out where the target declines one of
    ``needs``, as it leaves out a probe of a declined category."""

    __slots__ = ()

    @property
    @abstractmethod
    def needs(self) -> tuple[str, ...]:
        """The categories of its parts."""


# Abstract states explored per configuration (the drivers may change it: ``guide_states``),
# spread over at most ``guide_depth`` levels: a level keeps the first states the breadth-first
# order reaches (a beam), so the graph goes deep instead of wide (defaults: conformance/driver.py).
# How far (in transitions) a path looks for its next uncovered transition before it ends.
EXTEND_RADIUS = 2


def abstract(driver: Driver[Any], state: Any) -> Hashable:
    """The abstract state of ``state``: ``driver.guide_key(state)`` (the KRaft drivers leave
    out the ghost history: ``drivers/macros.py``)."""
    return driver.guide_key(state)


def _hashable(action: Any) -> Hashable:
    try:
        hash(action)
        return action  # type: ignore[no-any-return]
    except TypeError:
        return repr(action)


@dataclass
class Graph:
    """The explored part of a driver's state graph."""

    states: list[Any] = field(default_factory=list)  # a concrete representative per abstract state
    index: dict[Hashable, int] = field(default_factory=dict)  # abstract state -> index
    depth: list[int] = field(default_factory=list)
    parent: list[tuple[int, str, Any, Hashable] | None] = field(default_factory=list)  # shortest-path tree
    out: list[list[tuple[str, Any, int | None, Hashable]]] = field(default_factory=list)  # (cat, action, dst, key)
    edges: set[Hashable] = field(default_factory=set)
    witnesses: dict[str, int] = field(default_factory=dict)  # witness id -> first state reaching it
    witness_ids: tuple[str, ...] = ()  # every witness the model declares (reached or not)
    stateless: frozenset[str] = frozenset()
    complete: bool = False  # the whole reachable graph fitted within max_states

    def edge_key(self, src: int | None, category: str, action: Any) -> Hashable | None:
        """The transition's key (None when its source is outside the explored graph)."""
        if category in self.stateless:
            return (category, _hashable(action))
        if src is None:
            return None
        return (src, category, _hashable(action))

    def path_to(self, i: int) -> list[Step]:
        """The shortest path from the initial state to state ``i``."""
        out: list[Step] = []
        while (p := self.parent[i]) is not None:
            i, category, action, _ = p
            out.append((category, action))
        out.reverse()
        return out

    def path_keys(self, i: int) -> list[Hashable]:
        """The transition keys of :meth:`path_to`."""
        out: list[Hashable] = []
        while (p := self.parent[i]) is not None:
            i = p[0]
            out.append(p[3])
        return out

    def kinds(self) -> Counter[str]:
        """Transitions per category."""
        return Counter(k[0] if len(k) == 2 else k[1] for k in self.edges)  # type: ignore[arg-type, index]


def explore(driver: Driver[Any], max_states: int = DEFAULT_GUIDE_STATES, skipped: frozenset[str] = frozenset(),
            max_depth: int = DEFAULT_GUIDE_DEPTH) -> Graph:
    """Level by level over ``driver``'s graph (categories in ``skipped`` left out), at most
    ``max_depth`` levels of at most ``max_states // max_depth`` new states each. A level too
    wide keeps states spread evenly over its successors in the order they were found (each
    state's successors by category), so the beam keeps states of every kind of step, not only
    the first replica's."""
    width = max(1, max_states // max(1, max_depth))
    g = Graph(stateless=frozenset(driver.stateless))
    witnesses = driver.witnesses()
    g.witness_ids = tuple(p.id for p in witnesses)
    init = driver.init_state()
    g.states.append(init)
    g.index[abstract(driver, init)] = 0
    g.depth.append(0)
    g.parent.append(None)
    g.out.append([])
    level = [0]
    truncated = False
    depth = 0
    while level:
        found: dict[Hashable, tuple[Any, int, str, Any]] = {}  # new abstract state -> (state, src, cat, action)
        pending: list[tuple[int, str, Any, Hashable, Hashable]] = []  # (src, cat, action, edge, dst key)
        for i in level:
            state = g.states[i]
            for p in witnesses:
                if p.id not in g.witnesses:
                    try:
                        if p.holds(state):
                            g.witnesses[p.id] = i
                    except Exception:  # a driver state the model's predicate does not read (an opening)
                        pass
            for category, action in driver.candidates(state):
                if category in skipped:
                    continue
                after = driver.resolve(state, action)
                if after is None:
                    continue
                edge = g.edge_key(i, category, action)
                key = abstract(driver, after)
                if key not in g.index and key not in found:
                    found[key] = (after, i, category, action)
                pending.append((i, category, action, edge, key))
        depth += 1
        keys = list(found)
        if depth > max_depth:
            keys, truncated = [], truncated or bool(found)
        elif len(keys) > width:
            keys, truncated = [keys[(k * len(keys)) // width] for k in range(width)], True
        level = []
        for key in keys:
            after, src, category, action = found[key]
            dst = len(g.states)
            g.index[key] = dst
            g.states.append(after)
            g.depth.append(depth)
            g.parent.append((src, category, action, g.edge_key(src, category, action)))
            g.out.append([])
            level.append(dst)
        for src, category, action, edge, key in pending:
            g.edges.add(edge)
            g.out[src].append((category, action, g.index.get(key), edge))
    g.complete = not truncated
    return g


Edge = tuple[str, Any, int | None, Hashable]  # (category, action, destination state, key)


def _nearest(g: Graph, start: int, uncovered: set[Hashable], radius: int) -> list[Edge]:
    """The shortest run of transitions from ``start`` ending with an uncovered one (within
    ``radius`` transitions), or []."""
    frontier: deque[tuple[int, list[tuple[str, Any, int | None, Hashable]]]] = deque([(start, [])])
    visited = {start}
    while frontier:
        i, route = frontier.popleft()
        for edge in g.out[i]:
            if edge[3] in uncovered:
                return [*route, edge]
        if len(route) + 1 >= radius:
            continue
        for edge in g.out[i]:
            dst = edge[2]
            if dst is not None and dst not in visited:
                visited.add(dst)
                frontier.append((dst, [*route, edge]))
    return []


def _spread(edges: list[Edge]) -> list[Edge]:
    """``edges`` in a stride order (every 13th, say, around the list): a path that can take only
    some of a state's many self-loops (mm2: seven calls on each of fifty names, then the
    formats) takes a sample across all of them rather than the first names' calls."""
    n = len(edges)
    stride = 13
    while n > 1 and math.gcd(stride, n) != 1:
        stride += 1
    return [edges[(k * stride) % n] for k in range(n)]


def plan(g: Graph, max_len: int, max_paths: int) -> list[list[Step]]:
    """At most ``max_paths`` paths of at most ``max_len`` steps that cover the witnesses and
    then as many transitions as they can (greedy; see the module docstring). With a budget
    that covers every transition the paths do: every uncovered one is some round's choice."""
    uncovered = set(g.edges)
    paths: list[list[Step]] = []

    def build(src: int, route: list[tuple[str, Any, int | None, Hashable]]) -> None:
        path = g.path_to(src)
        uncovered.difference_update(g.path_keys(src))  # the prefix's transitions are covered too
        cur: int | None = src
        # The uncovered self-loops here first (a query, a refused request): the chosen
        # transition may leave the explored graph, and nothing could be taken after it.
        loops = [e for e in g.out[src] if e[2] == src and e[3] in uncovered and e not in route]
        for edge in _spread(loops):
            if len(path) + len(route) >= max_len:
                break
            path.append((edge[0], edge[1]))
            uncovered.discard(edge[3])
        for edge in route:
            path.append((edge[0], edge[1]))
            uncovered.discard(edge[3])
            cur = edge[2]
        while cur is not None and len(path) < max_len:
            more = _nearest(g, cur, uncovered, EXTEND_RADIUS)
            if not more or len(path) + len(more) > max_len:
                break
            for edge in more:
                path.append((edge[0], edge[1]))
                uncovered.discard(edge[3])
                cur = edge[2]
        paths.append(path)

    for wid in g.witness_ids:
        i = g.witnesses.get(wid)
        if i is not None and g.depth[i] <= max_len and len(paths) < max_paths:
            build(i, [])
    # Rounds over the states, deepest first, one uncovered transition per state and round (of
    # the category taken least so far): a small budget reaches many deep states in many ways
    # rather than every sibling transition of the first deep state.
    order = [i for i in sorted(range(len(g.states)), key=lambda i: (-g.depth[i], i)) if g.depth[i] + 1 <= max_len]
    taken: Counter[str] = Counter()
    while len(paths) < max_paths and uncovered:
        progressed = False
        for i in order:
            if len(paths) >= max_paths:
                break
            left = [e for e in g.out[i] if e[3] in uncovered]
            if not left:
                continue
            edge = min(left, key=lambda e: taken[e[0]])
            taken[edge[0]] += 1
            build(i, [edge])
            progressed = True
        if not progressed:
            break
    return paths


def with_probes(driver: Driver[Any], path: list[Step], k: int, skipped: frozenset[str] = frozenset()) -> list[Step]:
    """``path`` followed by the driver's probes (``Driver.probes``) at the state it ends in,
    each kept only where the model enables it after the ones before (and its category is not
    in ``skipped``, the categories the target declines). A path that does not
    replay (it never happens: the graph's representatives enable the same actions) is
    returned as it is."""
    state = driver.init_state()
    for _category, action in path:
        state = driver.resolve(state, action)
        if state is None:
            return path
    out = list(path)
    wanted = driver.probes(state, k)
    for category, action in wanted:
        # a probe made of parts of a declined category too (PartsProbe: share's PathEndProbe)
        if category in skipped or (isinstance(action, PartsProbe) and skipped.intersection(action.needs)):
            continue
        after = driver.resolve(state, action)
        if after is not None:
            out.append((category, action))
            state = after
    return out


def replay(driver: Driver[Any], state: Any, path: list[Step]) -> Any | None:
    """The state after ``path`` from ``state`` where a guided run takes every step (each offered
    in its category by ``driver.candidates`` and enabled by the model after the ones before,
    ``Lockstep.take``); else None."""
    for category, action in path:
        after = driver.resolve(state, action) if (category, action) in driver.candidates(state) else None
        if after is None:
            return None
        state = after
    return state


def offered(driver: Driver[Any], path: list[Step]) -> bool:
    """Whether a guided run takes every step of ``path`` from the initial state (``replay``)."""
    return replay(driver, driver.init_state(), path) is not None


def start_paths(driver: Driver[Any], g: Graph, skipped: frozenset[str] = frozenset()) -> list[list[Step]]:
    """One guided path per start probe of the driver (``Driver.start_probes``) that fits
    somewhere in ``g``: the shortest path to the first state, breadth first (the least of the
    crash, election and epoch budgets spent), where its script is not empty and takes no
    category in ``skipped`` (the target declines them) and the whole path replays, then the
    script. The planned paths' probes run where a path ends, its budgets mostly spent; these
    run where they are whole."""
    out: list[list[Step]] = []
    for probe in driver.start_probes():
        for i in sorted(range(len(g.states)), key=lambda i: (g.depth[i], i)):
            script = probe.script(g.states[i])
            if not script or any(category in skipped for category, _ in script):
                continue
            path = g.path_to(i) + script
            if offered(driver, path):
                out.append(path)
                break
    return out


# The graphs a process keeps, least recently used first. A ``kspec conform`` run needs one per
# configuration (up to 14); a long-lived process (the test suite, bench sweeps) meets many more
# (each target's configurations, listener on or off), and one that cleared them all at the cap
# rebuilt every graph again (raft's 14 cost ~20 CPU-s). 64 graphs are a few hundred MB.
_GRAPHS: dict[str, Graph] = {}
MAX_GRAPHS = 64


def graph_for(driver: Driver[Any], skipped: frozenset[str] = frozenset(), max_states: int | None = None) -> Graph:
    """The explored graph of ``driver``'s configuration (computed once per process)."""
    limit = max_states if max_states is not None else driver.guide_states
    # Categories a driver leaves to the random runs (Driver.unguided): the graph stays as deep
    # as without them.
    skipped = skipped | frozenset(driver.unguided)
    depth = driver.guide_depth
    key = json.dumps([driver.protocol, driver.config, sorted(skipped), limit, depth], sort_keys=True, default=str)
    found = _GRAPHS.pop(key, None)
    if found is None:
        while len(_GRAPHS) >= MAX_GRAPHS:
            del _GRAPHS[next(iter(_GRAPHS))]  # the least recently used
        found = explore(driver, limit, skipped, depth)
    _GRAPHS[key] = found  # now the most recently used
    return found


class Coverage:
    """What a conformance run took: transitions of the explored graphs, witnesses reached,
    node-level inputs per kind and actions per category (guided and random runs alike)."""

    def __init__(self) -> None:
        self.graphs: dict[str, Graph] = {}
        self.covered: dict[str, set[Hashable]] = {}
        self.reached: dict[str, set[str]] = {}
        self.inputs: Counter[str] = Counter()
        self.categories: Counter[str] = Counter()
        # (role, input kind) -> inputs fed, for drivers that name cells (``input_cells``).
        self.cells: Counter[tuple[str, str]] = Counter()
        # (request kind, role, epoch relation, sender) -> requests fed, and the union of the
        # configurations' grids (``Driver.request_grid``, RAFT-DRIVE-REQUEST-GRID)
        self.requests: Counter[tuple[str, str, str, str]] = Counter()
        self.grid: set[tuple[str, str, str]] = set()
        self.guided_runs = 0
        self.random_runs = 0

    def add_graph(self, config_key: str, graph: Graph) -> None:
        self.graphs[config_key] = graph
        self.covered.setdefault(config_key, set())
        self.reached.setdefault(config_key, set())

    def drop(self, config_key: str) -> None:
        """Leave a configuration out of the totals (the target refused it)."""
        for table in (self.graphs, self.covered, self.reached):
            table.pop(config_key, None)

    def on_step(self, driver: Driver[Any], config_key: str, before: Any, category: str, action: Any,
                after: Any) -> None:
        """Record one action of a session (Lockstep calls it before the action's events)."""
        self.categories[category] += 1
        self.cells.update(driver.input_cells(before, action))
        self.requests.update(driver.request_cells(before, action))
        self.grid |= driver.request_grid()
        g = self.graphs.get(config_key)
        if g is None:
            return
        src = g.index.get(abstract(driver, before))
        edge = g.edge_key(src, category, action)
        if edge is not None and edge in g.edges:
            self.covered[config_key].add(edge)
        dst = g.index.get(abstract(driver, after))
        if dst is not None:
            for wid, i in g.witnesses.items():
                if i == dst:
                    self.reached[config_key].add(wid)

    def on_input(self, inp: Any) -> None:
        kind = inp.get("type") if isinstance(inp, dict) else None
        self.inputs[str(kind)] += 1

    def to_json(self) -> dict[str, Any]:
        total = sum(len(g.edges) for g in self.graphs.values())
        covered = sum(len(c) for c in self.covered.values())
        wtotal = sum(len(g.witnesses) for g in self.graphs.values())
        wreached = sum(len(r) for r in self.reached.values())
        return {"edges_covered": covered, "edges_total": total,
                "witnesses_reached": wreached, "witnesses_total": wtotal,
                "graph_states": sum(len(g.states) for g in self.graphs.values()),
                "guided_runs": self.guided_runs, "random_runs": self.random_runs,
                "inputs": dict(sorted(self.inputs.items())), "categories": dict(sorted(self.categories.items())),
                **({"matrix": self.matrix()} if self.cells else {}),
                **({"requests": self.request_grid()} if self.grid else {})}

    def request_grid(self) -> dict[str, Any]:
        """The request grid (RAFT-DRIVE-REQUEST-GRID): how many of its (request kind, receiver
        role, epoch relation) cells a request from a replica of the cluster reached, and the
        cells it did not, as ``KIND REL @ ROLE``, with the senders that did reach them (an
        unknown replica id, the -1 sentinel) or ``-`` where no request at all did."""
        by_cell: dict[tuple[str, str, str], set[str]] = {}
        for (kind, role, rel, sender), n in self.requests.items():
            if n:
                by_cell.setdefault((kind, role, rel), set()).add(sender)
        reached = {c for c, senders in by_cell.items() if "replica" in senders}
        empty = {f"{kind} {rel} @ {role}": ", ".join(sorted(by_cell.get((kind, role, rel), set()))) or "-"
                 for kind, role, rel in sorted(self.grid - reached)}
        return {"cells": len(self.grid & reached), "total": len(self.grid), "empty": empty}

    def matrix(self) -> dict[str, dict[str, int]]:
        """Inputs fed per receiver role and input kind: ``{role: {kind: count}}``."""
        out: dict[str, dict[str, int]] = {}
        for (role, kind), n in sorted(self.cells.items()):
            out.setdefault(role, {})[kind] = n
        return out

    def matrix_lines(self) -> list[str]:
        """The role x input-kind matrix as text: one row per role, one column per input kind
        (``.`` where none was fed)."""
        table = self.matrix()
        kinds = sorted({k for row in table.values() for k in row})
        width = max((len(r) for r in table), default=4)
        lines = [f"role x input ({len(self.cells)} cells): " + " | ".join(kinds)]
        for role, row in table.items():
            lines.append(f"  {role:<{width}}  " + " ".join(f"{kind}:{row[kind]}" for kind in kinds if kind in row))
        return lines

    def line(self) -> str:
        doc = self.to_json()
        pct = 100.0 * doc["edges_covered"] / doc["edges_total"] if doc["edges_total"] else 100.0
        kinds = ", ".join(f"{k} {v}" for k, v in doc["inputs"].items())
        return (f"coverage: {doc['edges_covered']}/{doc['edges_total']} transitions ({pct:.0f}%) of "
                f"{doc['graph_states']} explored states, {doc['witnesses_reached']}/{doc['witnesses_total']} "
                f"witnesses; {doc['guided_runs']} guided + {doc['random_runs']} random runs; inputs: {kinds}"
                + "".join("\n  " + row for row in (self.matrix_lines() if self.cells else []))
                + ("\n  " + self.grid_line() if self.grid else ""))

    def grid_line(self) -> str:
        """The request grid as one line: the cells reached and the empty ones."""
        grid = self.request_grid()
        empty = "; ".join(f"{cell} ({senders})" for cell, senders in grid["empty"].items())
        return (f"request x role x epoch: {grid['cells']}/{grid['total']} cells reached by a replica's request; "
                f"empty (reached only by): {empty or 'none'}")
