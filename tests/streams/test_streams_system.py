"""The Streams system model: explored at its default bounds, the broken router caught."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from kspec.model.catalog import get_protocol
from kspec.model.core.explorer import explore, simulate
from kspec.model.streams import PROTOCOL, make
from kspec.model.streams.metadata import NOT_AVAILABLE
from kspec.model.streams.system import Assign, Finish, Leave, Plan, Query, StreamsSystem

KSPEC = shutil.which("kspec") or "kspec-not-installed"  # a missing CLI fails the CLI test, loudly


def test_catalog_finds_streams() -> None:
    assert get_protocol("streams") is PROTOCOL


def test_defaults_hold_and_reach_every_witness() -> None:
    result = explore(make())
    assert result.complete and not result.violations
    assert result.witnesses and all(result.witnesses.values()), result.witnesses


@pytest.mark.parametrize("bounds", [{"standbys": 0}, {"instances": 1}, {"partitions": 4, "keys": 3},
                                    {"instances": 3, "standbys": 2}])
def test_other_bounds_hold(bounds: dict[str, int]) -> None:
    result = explore(make(**bounds))
    assert not result.violations and all(result.witnesses.values()), (bounds, result.witnesses)


def test_ignore_partition_count_is_caught() -> None:
    result = explore(PROTOCOL.variants["ignore-partition-count"]())
    assert [v.property for v in result.violations] == ["STREAMS-INV-KEY-PARTITION"]
    assert len(result.violations[0].trace) - 1 <= 3


def test_not_available_until_first_assignment_then_stale_during_rebalance() -> None:
    m = StreamsSystem(instances=2, partitions=3, standbys=1, keys=1)
    s = m.init_states()[0]
    s1 = m.next_state(s, Query("alice"))
    assert s1 is not None and s1.answer is not None and s1.answer.result == NOT_AVAILABLE
    plan = Plan((1, 1, 1), (frozenset({0}),) * 3, frozenset({0, 1}))
    s2 = m.next_state(m.next_state(s1, Assign(plan)), Finish())  # type: ignore[arg-type]
    assert s2 is not None and s2.published == plan
    s3 = m.next_state(m.next_state(s2, Leave(1)), Query("alice"))  # type: ignore[arg-type]
    # host1 has left, the rebalance has not finished: the metadata still names host1.
    assert s3 is not None and s3.answer is not None and s3.answer.result is not None
    assert s3.answer.result.active_host.host == "host1" and 1 not in s3.members
    for prop in m.properties():
        if prop.kind == "always":
            assert prop.holds(s3), prop.id


def test_simulate_clean() -> None:
    result = simulate(make(), seed=3, steps=40, traces=10)
    assert not result.violations and result.steps > 0


def test_cli_explore_json() -> None:
    out = subprocess.run([KSPEC, "explore", "streams", "--json"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["protocol"] == "streams" and doc["violations"] == [] and all(doc["witnesses"].values())


def test_events_of_query_carries_the_answer() -> None:
    from kspec.model.core.codec import encode

    m = make()
    s0 = m.init_states()[0]
    s1 = m.next_state(s0, Query("alice"))
    assert s1 is not None
    (ev,) = m.events_of(s0, Query("alice"), s1)
    assert ev["action"] == "query_metadata_for_key" and ev["outputs"] == [NOT_AVAILABLE]
    assert encode(ev["outputs"])[0]["partition"] == -1
