"""The parallel explorer (``kspec.model.core.parallel``) against the serial one on small
bounds: the same distinct states, transitions, depth and witnesses; a violating variant gives
the serial result (its shortest trace); ``kspec explore --workers`` uses it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from kspec.model.catalog import get_protocol
from kspec.model.core.explorer import explore
from kspec.model.core.parallel import explore_parallel


def _key(result: Any) -> tuple[Any, ...]:
    return (result.distinct_states, result.transitions, result.max_depth, result.witnesses, result.complete,
            [(v.property, v.name, len(v.trace)) for v in result.violations])


@pytest.mark.parametrize(("protocol", "bounds", "workers"), [
    ("raft", {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}, 2),
    ("raft", {"max_epoch": 1, "max_crashes": 0, "max_appends": 0}, 3),
    ("raft", {"max_epoch": 1, "max_crashes": 0, "max_appends": 0, "pre_vote": True}, 2),
    ("raft", {"max_epoch": 1, "max_crashes": 0, "max_appends": 0, "symmetry": False}, 4),
    ("share", {}, 2),
    ("voters", {"max_epoch": 1, "max_fetches": 2}, 2),
    ("mm2", {}, 2),
    ("streams", {}, 3),
])
def test_parallel_explorer_counts_what_the_serial_one_counts(protocol: str, bounds: dict[str, Any],
                                                             workers: int) -> None:
    info = get_protocol(protocol)
    serial = explore(info.make(**bounds))
    parallel = explore_parallel(info.make(**bounds), workers=workers)
    assert serial.distinct_states > 100 and serial.complete
    assert _key(parallel) == _key(serial)


def test_every_protocol_is_held_to_the_serial_explorer() -> None:
    from kspec.model.catalog import available_protocols

    tested = {"raft", "share", "voters", "mm2", "streams"}
    assert set(available_protocols()) <= tested, "add the new protocol's small bounds above"


def test_a_violating_variant_gives_the_serial_result() -> None:
    from kspec.conformance.clikit import build_model

    bounds = ["max_epoch=1", "max_crashes=0", "max_appends=0"]
    serial = explore(build_model(get_protocol("raft"), bounds, "vote-twice")[0])
    parallel = explore_parallel(build_model(get_protocol("raft"), bounds, "vote-twice")[0], workers=2)
    assert serial.violations and _key(parallel) == _key(serial)


def test_cli_workers_flag_gives_the_same_counts() -> None:
    from click.testing import CliRunner

    from kspec.conformance.cli import _load_commands, cli

    _load_commands()
    docs = []
    for workers in ("1", "2"):
        result = CliRunner().invoke(cli, ["explore", "raft", "max_epoch=1", "max_crashes=0", "max_appends=0",
                                          "--workers", workers, "--json"])
        assert result.exit_code in (0, 1), result.output
        docs.append(json.loads(result.stdout))
    keys = ("distinct_states", "transitions", "max_depth", "witnesses", "complete")
    one, two = ({k: d[k] for k in keys} for d in docs)
    assert one == two and one["distinct_states"] > 100


# ------------------------------------------------------------ fingerprints and their collisions


class _Grid:
    """A toy model: points (x, y) of a 12 x 12 grid, stepping right or up; states outside the
    bounds (x or y at 12) are reached but not stored. Its states hash to one of three values
    (``_Point.__hash__``), so nearly every key collides with another's fingerprint."""

    name = "grid"
    bounds: dict[str, int | bool] = {"size": 12}

    def init_states(self) -> list[Any]:
        return [_Point(0, 0)]

    def actions(self, state: Any) -> list[str]:
        return ["right", "up"]

    def next_state(self, state: Any, action: str) -> Any:
        return _Point(state.x + 1, state.y) if action == "right" else _Point(state.x, state.y + 1)

    def within_bounds(self, state: Any) -> bool:
        return state.x < 12 and state.y < 12

    def properties(self) -> list[Any]:
        from kspec.model.core.protocol import always, sometimes

        @always("GRID-DIAGONAL", "NotBothEleven")
        def not_corner(s: Any) -> bool:
            return not (s.x == 11 and s.y == 11)

        @sometimes("GRID-WIT-EDGE", "Edge")
        def edge(s: Any) -> bool:
            return s.x == 12

        return [not_corner, edge]


class _Point:
    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int) -> None:
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Point) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self) -> int:
        return (self.x + self.y) % 3


def test_the_serial_explorer_stays_exact_when_fingerprints_collide() -> None:
    """The serial explorer indexes states by their hash and keeps the keys whose hash another
    key took aside: every one of the 144 points is stored once, however their hashes collide;
    the first violation found is at the corner, 22 steps away."""
    result = explore(_Grid(), stop_on_violation=False)
    assert (result.distinct_states, result.transitions, result.max_depth) == (144, 288, 22)
    assert result.witnesses == {"Edge": True}
    assert [(v.name, len(v.trace) - 1) for v in result.violations] == [("NotBothEleven", 22)]


# ------------------------------------------------------------ reports from workers that have exited


class _LateQueue:
    """A report queue whose first ``get`` times out and whose report arrives only after: the
    order a loaded machine produced in CI (the worker put its report and exited meanwhile)."""

    def __init__(self, reports: list[dict[str, Any]], timeouts: int) -> None:
        self.reports = reports
        self.timeouts = timeouts

    def get(self, timeout: float) -> dict[str, Any]:
        import queue

        if self.timeouts:
            self.timeouts -= 1
            raise queue.Empty
        return self.reports.pop(0)


class _Exited:
    def __init__(self, name: str, exitcode: int | None) -> None:
        self.name = name
        self.exitcode = exitcode

    def is_alive(self) -> bool:
        return self.exitcode is None


def test_a_worker_that_exited_cleanly_is_waited_for_once_more() -> None:
    from kspec.model.core.parallel import _report

    late = {"worker": 1, "stored": 3}
    procs = [_Exited("w0", None), _Exited("w1", 0)]
    assert _report(_LateQueue([late], timeouts=1), procs) == late


def test_a_clean_exit_with_no_report_and_a_crash_are_deaths() -> None:
    from kspec.model.core.parallel import _report

    with pytest.raises(RuntimeError, match=r"w1 died \(exit code 0\)"):
        _report(_LateQueue([], timeouts=2), [_Exited("w0", None), _Exited("w1", 0)])
    with pytest.raises(RuntimeError, match=r"w0 died \(exit code -9\)"):
        _report(_LateQueue([], timeouts=1), [_Exited("w0", -9), _Exited("w1", None)])
    # a worker whose final report arrived is not waited for
    assert _report(_LateQueue([{"progress": 1}], timeouts=3), [_Exited("w0", 0)], finished={0}) == {"progress": 1}
