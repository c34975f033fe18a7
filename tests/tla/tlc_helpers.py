"""The checks the raft, voters and share TLA+ tests share, with real TLC.

Each helper asserts all it says it checks and returns what a test needs to assert more; the
tests add what is particular to their protocol (bounds, flags, witnesses, action kinds).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

from kspec.tla.check import check_agreement
from kspec.tla.mappings import ReplayError, TLAMapping
from kspec.tla.mappings.raft import UnsupportedBounds
from kspec.tla.runner import TLCResult, run_tlc
from kspec.tla.values import FrozenDict


def tlc_on(spec: Path, *, timeout: float = 120) -> Callable[..., TLCResult]:
    """``tlc(cfg, **kwargs)``: TLC on ``spec`` with the .cfg text ``cfg``, no deadlock check
    (``kwargs`` go to :func:`run_tlc`, e.g. ``simulate``)."""

    def tlc(cfg: str, **kwargs: Any) -> TLCResult:
        return run_tlc(spec, config_text=cfg, check_deadlock=False, timeout=timeout, **kwargs)

    return tlc


def assert_cli_equal_state_sets(protocol: str, bounds: Mapping[str, int | bool], states: int,
                                capsys: pytest.CaptureFixture[str], *options: str) -> None:
    """``kspec tla check PROTOCOL BOUNDS [OPTIONS] --json`` exits 0 with equal sets of ``states``
    distinct states on both sides and no TLC violation."""
    args = [f"{k}={str(v).lower()}" for k, v in bounds.items()]
    code, out, err = run_cli(["tla", "check", protocol, *args, *options, "--json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["equal"] is True and doc["only_in_tlc"] == doc["only_in_model"] == 0
    assert doc["tlc_distinct_states"] == doc["model_distinct_states"] == states
    assert doc["tlc_violations"] == []


def assert_symmetry_refused(protocol: str, config: Callable[[Mapping[str, int | bool]], str],
                            bounds: Mapping[str, int | bool], capsys: pytest.CaptureFixture[str]) -> None:
    """A spec without symmetry reduction (KRaft.tla, Voters.tla) refuses ``symmetry=true``:
    ``config`` raises :class:`UnsupportedBounds`, and ``kspec tla check PROTOCOL symmetry=true``
    exits 2 with one line on stderr naming ``symmetry=false`` (its default is symmetry=false)."""
    with pytest.raises(UnsupportedBounds, match="symmetry=false"):
        config({**bounds, "symmetry": True})
    code, out, err = run_cli(["tla", "check", protocol, "max_epoch=1", "symmetry=true"], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "symmetry=false" in err, err


def assert_agreement(mapping: TLAMapping[Any], model: Any, bounds: Mapping[str, int | bool], *, more_than: int,
                     timeout: float) -> None:
    """TLC and the explorer find equal sets of more than ``more_than`` distinct states."""
    result = check_agreement(mapping, model, bounds, timeout=timeout)
    assert result.equal and result.tlc_distinct_states == result.model_distinct_states > more_than


def replay_simulation(mapping: TLAMapping[Any], model: Any, result: TLCResult,
                      traces: int) -> list[list[tuple[Any, Any]]]:
    """TLC ``-simulate`` ran clean and wrote ``traces`` behaviours, each replaying step by step
    through ``model`` to the same states; returns the replays ((action, state) per step)."""
    assert result.ok, result.violation
    assert len(result.simulation_traces) == traces
    replays = []
    for trace in result.simulation_traces:
        values = trace.values()
        replayed = mapping.replay(model, values)
        assert [mapping.from_model(s) for _, s in replayed] == [FrozenDict(v) for v in values]
        replays.append(replayed)
    return replays


def action_kinds(replays: Iterable[list[tuple[Any, Any]]]) -> set[str]:
    """The class names of the replays' actions (of the input, for an action that wraps one)."""
    return {type(getattr(a, "input", a)).__name__ for replayed in replays for a, _ in replayed[1:]}


def assert_replay_rejects(mapping: TLAMapping[Any], model: Any, trace: list[dict[str, Any]],
                          second: Mapping[str, Any], first: Mapping[str, Any]) -> None:
    """Replay through ``model`` refuses a TLC ``trace`` (of three states or more) whose second
    state is changed by ``second`` (no action reaches it), and one whose first state is changed
    by ``first`` (not an initial state), naming the step."""
    assert len(trace) >= 3
    with pytest.raises(ReplayError, match="state 2 of the TLC trace"):
        mapping.replay(model, [trace[0], {**trace[1], **second}])
    with pytest.raises(ReplayError, match="not an initial state"):
        mapping.replay(model, [{**trace[0], **first}])


def assert_witness_reached(mapping: TLAMapping[Any], result: TLCResult, model: Any, witness: str,
                           negated: str) -> list[tuple[Any, Any]]:
    """TLC, checking ``negated`` (the witness's negation), stopped where ``witness`` holds: its
    counterexample replays through ``model`` to the first state where the model's witness
    holds. Returns the replay."""
    assert result.violation is not None and result.violation.name == negated
    assert result.violation.trace is not None
    replayed = mapping.replay(model, result.violation.trace.values())
    prop = next(p for p in model.properties() if p.name == witness)
    assert prop.check(replayed[-1][1]) and not any(prop.check(s) for _, s in replayed[:-1])
    return replayed


def assert_counterexample_replays(mapping: TLAMapping[Any], broken: TLCResult, variant: Any, shortest: int,
                                  reference: Any) -> None:
    """TLC's counterexample on a broken copy of the spec is a behaviour of the Python
    ``variant``, of ``shortest`` states (the explorer's), ending at the first state where the
    property TLC names fails; and it is not a behaviour of the ``reference`` model."""
    assert broken.violation is not None and broken.violation.trace is not None
    replayed = mapping.replay(variant, broken.violation.trace.values())
    prop = next(p for p in variant.properties() if p.name == broken.violation.name)
    assert not prop.check(replayed[-1][1]) and all(prop.check(s) for _, s in replayed[:-1])
    assert len(replayed) == shortest
    with pytest.raises(ReplayError):
        mapping.replay(reference, broken.violation.trace.values())


def trace_tlc(where: Path, mapping: TLAMapping[Any], states: list[Any], cfg: str,
              extends: Iterable[str] = ()) -> TLCResult:
    """TLC on a module allowing only the steps of the Python trace ``states`` that the spec's
    Next allows (``mapping.trace_module``), written in ``where`` next to copies of the spec and
    of the ``extends`` specs it needs; ``cfg`` is the spec's, run from TraceInit by TraceNext."""
    where.mkdir(parents=True, exist_ok=True)
    spec = mapping.spec_path()
    for name in (*extends, spec.name):
        (where / name).write_text((spec.parent / name).read_text())
    module = where / f"{spec.stem}Trace.tla"
    module.write_text(mapping.trace_module(module.stem, states))
    cfg = cfg.replace("INIT Init", "INIT TraceInit").replace("NEXT Next", "NEXT TraceNext")
    return run_tlc(module, config_text=cfg, check_deadlock=False, timeout=120)


def assert_only_the_broken_spec_allows(where: Path, mapping: TLAMapping[Any], states: list[Any], broken_cfg: str,
                                       reference_cfg: str, violated: tuple[str, str],
                                       extends: Iterable[str] = ()) -> TLCResult:
    """The Python trace ``states`` (a variant's counterexample) is a behaviour of the broken
    copy of the spec (``broken_cfg``): TLC walks all of it and finds ``violated`` (kind, name)
    at its end; and not of the reference spec (``reference_cfg``): TLC stops short of its last
    state. Returns TLC's result on the reference spec."""
    broken = trace_tlc(where / "broken", mapping, states, broken_cfg, extends)
    assert broken.violation is not None and broken.violation.trace is not None
    assert (broken.violation.kind, broken.violation.name) == violated
    assert [FrozenDict(v) for v in broken.violation.trace.values()] == [mapping.from_model(s) for s in states]
    reference = trace_tlc(where / "reference", mapping, states, reference_cfg, extends)
    assert reference.ok and reference.distinct_states < len(states)
    return reference
