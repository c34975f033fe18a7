"""The liveness checker's graph code against brute force on small random graphs.

Tarjan's components are compared with mutual reachability (a transitive closure), the fair
components with the definition applied to those sets, and every cycle ``fair_cycle`` builds
is checked to be a cycle of the component that is fair by itself.
"""

from __future__ import annotations

import random

import pytest

from kspec.model.core.liveness import Graph, component_is_fair, fair_components, fair_cycle, tarjan


def _random_graph(rng: random.Random) -> Graph:
    n = rng.randint(1, 8)
    classes = rng.randint(1, 4)
    labels = list(range(classes + 1))
    label_class = [c if c < classes else -1 for c in labels]  # the last label is unfair
    edges: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for v in range(n):
        for _ in range(rng.randint(0, 3)):
            edges[v].append((rng.randrange(n), rng.choice(labels)))
    enabled = []
    for v in range(n):
        en = {label_class[lab] for _, lab in edges[v] if label_class[lab] >= 0}
        # Classes enabled without an edge in the graph: escapes and deferred timers.
        en |= {c for c in range(classes) if rng.random() < 0.2}
        enabled.append(frozenset(en))
    return Graph(edges, enabled, label_class)


def _closure(g: Graph, keep: list[bool]) -> list[set[int]]:
    n = len(g.edges)
    reach = [{w for w, _ in g.edges[v] if keep[w]} if keep[v] else set() for v in range(n)]
    for k in range(n):
        for v in range(n):
            if k in reach[v]:
                reach[v] |= reach[k]
    return reach


def _brute_components(g: Graph, keep: list[bool]) -> list[frozenset[int]]:
    reach = _closure(g, keep)
    comps = set()
    for v in range(len(g.edges)):
        if keep[v]:
            comps.add(frozenset({v} | {w for w in reach[v] if v in reach[w]}))
    return sorted(comps, key=sorted)


def _brute_fair(g: Graph, comp: frozenset[int]) -> bool:
    always = set.intersection(*(set(g.enabled[v]) for v in comp))
    taken = {g.label_class[lab] for v in comp for w, lab in g.edges[v] if w in comp}
    return not (always - taken)


@pytest.mark.parametrize("seed", range(300))
def test_components_and_fairness_match_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    g = _random_graph(rng)
    n = len(g.edges)
    keep = [rng.random() < 0.8 for _ in range(n)] if seed % 2 else [True] * n

    def succ(v: int) -> list[int]:
        return [w for w, _ in g.edges[v] if keep[v] and keep[w]]

    found = sorted((frozenset(c) for c in tarjan(n, succ) if keep[c[0]]), key=sorted)
    assert found == _brute_components(g, keep)
    fair = sorted((frozenset(c) for c in fair_components(g, keep=lambda v: keep[v])), key=sorted)
    assert fair == [c for c in _brute_components(g, keep) if _brute_fair(g, c)]
    for comp in fair:
        assert component_is_fair(g, sorted(comp))
        start = min(comp)
        cycle = fair_cycle(g, sorted(comp), start)
        internal = any(w in comp for v in comp for w, _ in g.edges[v])
        assert bool(cycle) == internal
        if not cycle:
            continue
        here = start
        for v, k in cycle:
            assert v == here and v in comp
            here = g.edges[v][k][0]
            assert here in comp
        assert here == start
        visited = [start] + [g.edges[v][k][0] for v, k in cycle]
        always = set.intersection(*(set(g.enabled[v]) for v in visited))
        taken = {g.label_class[g.edges[v][k][1]] for v, k in cycle}
        assert not (always - taken), "the cycle is not fair by itself"


def test_a_class_enabled_everywhere_and_never_taken_makes_a_component_unfair() -> None:
    # 0 <-> 1 by class 0; class 1 (an escape, say) is enabled at both and taken nowhere.
    g = Graph([[(1, 0)], [(0, 0)]], [frozenset({0, 1}), frozenset({0, 1})], [0, 1])
    assert fair_components(g) == []
    g.enabled[1] = frozenset({0})
    assert [sorted(c) for c in fair_components(g)] == [[0, 1]]


def test_a_deadlock_is_a_fair_component_and_its_cycle_is_empty() -> None:
    g = Graph([[(1, 0)], []], [frozenset({0}), frozenset()], [0])
    assert [sorted(c) for c in fair_components(g)] == [[1]]
    assert fair_cycle(g, [1], 1) == []
