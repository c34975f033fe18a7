"""The MM2 system model: explored at its default bounds, each broken variant caught."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kspec.model.catalog import get_protocol
from kspec.model.core.explorer import explore, simulate
from kspec.model.mm2 import PROTOCOL, make
from kspec.model.mm2.system import CreateTopic, Sync

KSPEC = shutil.which("kspec") or "kspec-not-installed"  # a missing CLI fails the CLI tests, loudly

# The property each variant must violate, and the longest shortest-trace allowed.
EXPECTED = {
    "identity": ({"MM2-INV-NO-CYCLE", "MM2-INV-NO-MERGE"}, 3),
    "default-dotted-aliases": ({"MM2-INV-NAMES-RESOLVE", "MM2-INV-NO-CYCLE"}, 2),
    "upstream-self": ({"MM2-INV-NAMES-RESOLVE", "MM2-INV-NO-CYCLE"}, 3),
    "internal-replicable": ({"MM2-INV-INTERNAL-NOT-REPLICATED"}, 1),
    "period-split": ({"MM2-INV-NAMES-RESOLVE", "MM2-INV-NO-CYCLE"}, 2),
}


def test_catalog_finds_mm2() -> None:
    assert get_protocol("mm2") is PROTOCOL


def test_defaults_hold_and_reach_every_witness() -> None:
    result = explore(make())
    assert result.complete and not result.violations
    assert result.witnesses and all(result.witnesses.values()), result.witnesses
    assert result.distinct_states > 100


@pytest.mark.parametrize("bounds", [{"clusters": 2}, {"dotted_aliases": True}, {"hops": 1}])
def test_other_bounds_hold(bounds: dict[str, int | bool]) -> None:
    result = explore(make(**bounds))  # type: ignore[arg-type]
    assert not result.violations and all(result.witnesses.values()), (bounds, result.witnesses)


def test_every_variant_is_listed() -> None:
    assert set(PROTOCOL.variants) == set(EXPECTED)


@pytest.mark.parametrize("variant", sorted(EXPECTED))
def test_variant_is_caught_with_a_short_trace(variant: str) -> None:
    expected, longest = EXPECTED[variant]
    # Keep going past the first violation, but only through the shallow states.
    result = explore(PROTOCOL.variants[variant](), stop_on_violation=False, max_states=3000)
    found = {v.property: len(v.trace) - 1 for v in result.violations}
    assert expected <= set(found), (variant, found)
    assert min(found[p] for p in expected) <= longest, found


def test_identity_cycle_counterexample() -> None:
    # The law Kafka's identity policy cannot meet, shown by a trace: "orders" goes A->B and
    # comes back to A under the same name.
    result = explore(make(identity=True))
    assert result.violations[0].property == "MM2-INV-NO-CYCLE"  # the first thing explore reports
    cycle = result.violations[0]
    actions = [s.action for s in cycle.trace[1:]]
    assert actions == [CreateTopic("A", "orders"), Sync("A", "B"), Sync("B", "A")]
    last = cycle.trace[-1].state
    assert any(r.cluster == "A" and r.name == "orders" and r.path == ("A", "B", "A") for r in last.replicas)


def test_simulate_is_deterministic_and_clean() -> None:
    a = simulate(make(), seed=7, steps=30, traces=5)
    b = simulate(make(), seed=7, steps=30, traces=5)
    assert not a.violations
    assert [tuple(s.action for s in t) for t in a.traces] == [tuple(s.action for s in t) for t in b.traces]
    assert a.steps > 0


def test_cli_explore_json() -> None:
    out = subprocess.run([KSPEC, "explore", "mm2", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["protocol"] == "mm2" and doc["violations"] == [] and all(doc["witnesses"].values())


def test_cli_identity_exits_1() -> None:
    out = subprocess.run([KSPEC, "explore", "mm2", "identity=true", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert json.loads(out.stdout)["violations"]


def test_events_of_names_created_topics() -> None:
    m = make()
    s0 = m.init_states()[0]
    s1 = m.next_state(s0, CreateTopic("A", "orders"))
    s2 = m.next_state(s1, Sync("A", "B"))  # type: ignore[arg-type]
    assert s1 is not None and s2 is not None
    (ev,) = m.events_of(s1, Sync("A", "B"), s2)
    assert ev["node"] == "A->B" and ev["action"] == "sync"
    assert {"create_topic": "A.orders"} in ev["outputs"] and {"create_topic": "A.heartbeats"} in ev["outputs"]
    assert "orders" in ev["input"]["source_topics"]
