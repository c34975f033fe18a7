"""Readers of TLC's error traces, -simulate traces and -dump files, on output real TLC wrote."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import tla_toy_model as toy

from kspec.model.core.explorer import reachable_states
from kspec.tla.readers import (
    TLCOutputError,
    read_dump_file,
    read_error_trace,
    read_simulation_file,
    read_simulation_trace,
    read_state_dump,
)
from kspec.tla.runner import Simulation, TLCResult, run_tlc
from kspec.tla.values import FrozenDict, ModelValue

TESTDATA = Path(__file__).with_name("testdata")
TOKENS = TESTDATA / "Tokens.tla"
p1, p2 = ModelValue("p1"), ModelValue("p2")
BOUNDS = {"procs": 2, "max_count": 2, "max_log": 2}


def tokens_cfg(invariants: list[str], **bounds: int) -> str:
    from kspec.tla.mappings import cfg_text

    b = {**BOUNDS, **bounds}
    procs = frozenset(toy.proc(p) for p in range(b["procs"]))
    return cfg_text({"Procs": procs, "MaxCount": b["max_count"], "MaxLog": b["max_log"]},
                    invariants=invariants, constraint="Bounded")


@pytest.fixture(scope="module")
def model_index() -> dict[Any, toy.State]:
    """Every state of the Python twin within bounds, by its TLA+ form."""
    model = toy.Tokens(**BOUNDS)
    return {toy.from_model(s): s for s in reachable_states(model) if model.within_bounds(s)}


def assert_legal_steps(states: list[dict[str, Any]], index: dict[Any, toy.State]) -> None:
    """Each TLC state is a model state and each step one the model can take."""
    model = toy.Tokens(**BOUNDS)
    mapped = [index[FrozenDict(s)] for s in states]
    for before, after in itertools.pairwise(mapped):
        successors = {model.next_state(before, a) for a in model.actions(before)}
        assert after in successors, f"{before} -> {after} is not a model step"


@pytest.fixture(scope="module")
def violation(tmp_path_factory: pytest.TempPathFactory) -> TLCResult:
    work = tmp_path_factory.mktemp("violation")
    return run_tlc(TOKENS, config_text=tokens_cfg(["TypeOK", "NotAllDone"]), timeout=60, workdir=work)


@pytest.fixture(scope="module")
def dumped(tmp_path_factory: pytest.TempPathFactory) -> TLCResult:
    work = tmp_path_factory.mktemp("dump")
    return run_tlc(TOKENS, config_text=tokens_cfg(["TypeOK"]), dump=True, check_deadlock=False, timeout=60,
                   workdir=work)


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory) -> TLCResult:
    work = tmp_path_factory.mktemp("simulate")
    return run_tlc(TOKENS, config_text=tokens_cfg(["TypeOK"]), simulate=Simulation(depth=6, seed=11, traces=5),
                   check_deadlock=False, timeout=60, workdir=work)


def workdir_of(result: TLCResult) -> Path:
    return Path(result.command[result.command.index("-metadir") + 1]).parent


# --- error traces -------------------------------------------------------------------------------

def test_invariant_violation_has_a_shortest_error_trace(violation: TLCResult, model_index: dict[Any, Any]) -> None:
    v = violation.violation
    assert v is not None and v.kind == "invariant" and v.name == "NotAllDone"
    assert v.trace is not None
    states = v.trace.values()
    assert states[0] == {"count": FrozenDict({p1: 0, p2: 0}), "done": frozenset(), "log": (),
                         "flags": FrozenDict({"seen": False, "last": "none"})}
    assert states[-1]["done"] == frozenset({p1, p2})
    assert len(states) == 3  # breadth-first: two Finish steps is the shortest way
    assert [s.action for s in v.trace.states] == [None, "Finish", "Finish"]
    assert v.trace.back_to is None and not v.trace.stuttering
    assert_legal_steps(states, model_index)


def test_error_trace_read_from_the_saved_output_matches(violation: TLCResult) -> None:
    text = (workdir_of(violation) / "tlc.out").read_text()
    trace = read_error_trace(text)
    assert trace is not None and violation.violation is not None
    assert trace.values() == violation.violation.trace.values()  # type: ignore[union-attr]
    assert read_error_trace("Model checking completed. No error has been found.\n") is None


def test_lasso_back_to_state() -> None:
    result = run_tlc(TESTDATA / "Lasso.tla", config_text="SPECIFICATION Fair\nPROPERTY Reaches5\n", timeout=60)
    v = result.violation
    assert v is not None and v.kind == "temporal" and v.trace is not None
    assert [s["x"] for s in v.trace.values()] == [0, 1, 2]
    assert {s["y"] for s in v.trace.values()} == {"a"}
    assert v.trace.back_to == 1 and not v.trace.stuttering


def test_lasso_stuttering() -> None:
    result = run_tlc(TESTDATA / "Lasso.tla", config_text="SPECIFICATION Unfair\nPROPERTY Moves\n", timeout=60)
    v = result.violation
    assert v is not None and v.kind == "temporal" and v.trace is not None
    assert v.trace.values() == [{"x": 0, "y": "a"}]
    assert v.trace.stuttering and v.trace.back_to is None


def test_deadlock_trace_of_a_one_variable_spec() -> None:
    """A spec with one variable prints ``x = 0`` without the ``/\\``."""
    result = run_tlc(TESTDATA / "Countdown.tla", timeout=60)
    v = result.violation
    assert v is not None and v.kind == "deadlock" and v.trace is not None
    assert v.trace.values() == [{"x": 3}, {"x": 2}, {"x": 1}, {"x": 0}]
    quiet = run_tlc(TESTDATA / "Countdown.tla", check_deadlock=False, dump=True, timeout=60)
    assert quiet.ok and quiet.complete and quiet.distinct_states == 4
    assert quiet.dump_states == [{"x": 3}, {"x": 2}, {"x": 1}, {"x": 0}]


# --- state dumps --------------------------------------------------------------------------------

def test_dump_has_as_many_states_as_tlc_found(dumped: TLCResult, model_index: dict[Any, Any]) -> None:
    assert dumped.complete and dumped.distinct_states is not None
    text_states = read_dump_file(workdir_of(dumped) / "states.dump")
    assert len(text_states) == dumped.distinct_states
    assert dumped.dump_states == text_states
    as_set = {FrozenDict(s) for s in text_states}
    assert len(as_set) == dumped.distinct_states  # distinct
    assert as_set == set(model_index)  # exactly the Python twin's states within bounds


def test_dump_counts_and_depth_are_read(dumped: TLCResult) -> None:
    assert dumped.states_generated is not None and dumped.states_generated >= (dumped.distinct_states or 0)
    assert dumped.depth is not None and dumped.depth > 3
    assert dumped.version.startswith("2.")
    assert dumped.tlc_seconds is not None and dumped.states_per_second is not None


# --- simulation traces --------------------------------------------------------------------------

def test_simulation_writes_the_asked_number_of_traces(simulated: TLCResult, model_index: dict[Any, Any]) -> None:
    assert simulated.mode == "simulate" and simulated.ok
    assert len(simulated.simulation_traces) == 5
    for trace in simulated.simulation_traces:
        states = trace.values()
        assert 1 <= len(states) <= 6
        assert states[0]["done"] == frozenset() and states[0]["log"] == ()
        assert_legal_steps(states, model_index)
    files = sorted((workdir_of(simulated) / "traces").glob("trace_*"))
    assert len(files) == 5
    assert read_simulation_file(files[0]).values() in [t.values() for t in simulated.simulation_traces]


def test_simulation_with_the_same_seed_repeats(simulated: TLCResult) -> None:
    again = run_tlc(TOKENS, config_text=tokens_cfg(["TypeOK"]), simulate=Simulation(depth=6, seed=11, traces=5),
                    check_deadlock=False, timeout=60)
    assert [t.values() for t in again.simulation_traces] == [t.values() for t in simulated.simulation_traces]


# --- malformed and truncated output -------------------------------------------------------------

def test_truncated_dump_mid_value_names_the_line(dumped: TLCResult) -> None:
    text = (workdir_of(dumped) / "states.dump").read_text()
    cut = text[: text.index("State 3:") + 40]  # inside the first variable of state 3
    with pytest.raises(TLCOutputError) as info:
        read_state_dump(cut, "states.dump")
    err = info.value
    assert err.line == cut.count("\n") + 1
    assert err.source == "states.dump" and "bad value" in err.message
    assert str(err).startswith(f"states.dump:{err.line}: ")


def test_truncated_dump_at_a_line_boundary_is_caught(dumped: TLCResult) -> None:
    text = (workdir_of(dumped) / "states.dump").read_text()
    lines = text.splitlines()
    start = lines.index("State 5:")
    cut = "\n".join(lines[: start + 3]) + "\n"  # state 5 lost its last variables
    with pytest.raises(TLCOutputError, match="other variables than the first state"):
        read_state_dump(cut)
    with pytest.raises(TLCOutputError, match="state 5 has no variables") as info:
        read_state_dump("\n".join(lines[: start + 1]))
    assert info.value.line == start + 2


def test_garbage_in_a_dump_names_line_and_text() -> None:
    with pytest.raises(TLCOutputError) as info:
        read_state_dump("State 1:\n/\\ x = 1\n\nhello there\n")
    assert info.value.line == 4 and info.value.text == "hello there"
    with pytest.raises(TLCOutputError, match="expected state 2"):
        read_state_dump("State 1:\n/\\ x = 1\n\nState 3:\n/\\ x = 2\n")
    with pytest.raises(TLCOutputError, match="given twice"):
        read_state_dump("State 1:\n/\\ x = 1\n/\\ x = 2\n")


def test_truncated_error_trace_is_caught(violation: TLCResult) -> None:
    text = (workdir_of(violation) / "tlc.out").read_text()
    at = text.index("State 2:")
    with pytest.raises(TLCOutputError) as info:
        read_error_trace(text[: at + text[at:].index("/\\ done") + 12], "tlc.out")
    assert info.value.source == "tlc.out" and info.value.line > 1
    with pytest.raises(TLCOutputError, match="expected state 3"):
        read_error_trace(text.replace("State 3:", "State 4:"))


def test_truncated_simulation_trace_is_caught(simulated: TLCResult) -> None:
    path = sorted((workdir_of(simulated) / "traces").glob("trace_*"))[0]
    text = path.read_text()
    with pytest.raises(TLCOutputError, match="without '===='"):
        read_simulation_trace(text[: text.index("\n====") + 1])
    with pytest.raises(TLCOutputError, match="expected '---- MODULE"):
        read_simulation_trace("STATE_1 ==\n/\\ x = 1\n")
    with pytest.raises(TLCOutputError, match="bad value of count"):
        read_simulation_trace(text.replace("/\\ count = (", "/\\ count = (("))
