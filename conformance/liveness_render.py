"""Liveness results for ``kspec explore``: verdicts, witnesses and lassos as text and JSON.

A lasso is one trace: the fault phase, the suffix after the last fault, then the cycle; its
JSON names ``faults_stop`` (the step after which no fault happens) and ``loop_back`` (the
step the last step returns to: the cycle is ``loop_back+1 .. end``, and from the end the
behaviour goes back to ``loop_back``). ``kspec explain`` draws that as "↺ back to step k".
"""

from __future__ import annotations

from typing import Any

import click

from kspec.conformance.render import render_trace, trace_json
from kspec.model.core.explorer import Step
from kspec.model.core.liveness import Lasso, LivenessResult, Suffix, check_liveness
from kspec.model.core.protocol import Model, ProtocolInfo


def lasso_steps(lasso: Lasso) -> tuple[Step, ...]:
    """The lasso as one trace (stem, then the loop)."""
    return (*lasso.stem, *lasso.loop)


def loop_back(lasso: Lasso) -> int | None:
    """The step the trace returns to after its last step; None for a bounded (escape)
    counterexample, which has no cycle."""
    return None if lasso.escape else len(lasso.stem) - 1


def run_liveness(info: ProtocolInfo, model: Model[Any, Any],
                 max_states: int | None = None) -> tuple[LivenessResult, Suffix[Any, Any]] | None:
    """Check the protocol's liveness properties on ``model`` (None: it declares none)."""
    if info.liveness is None:
        return None
    suffix = info.liveness(model)
    return check_liveness(model, suffix, max_states=max_states), suffix


def unchecked_json(info: ProtocolInfo, model: Model[Any, Any]) -> dict[str, Any]:
    """The liveness keys of ``kspec explore --json`` when nothing was checked (``--no-liveness``,
    or a safety violation stopped the run): every property the protocol declares is
    ``not-checked``; a protocol that declares none reports ``{}``."""
    if info.liveness is None:
        return {"liveness": {}, "liveness_ids": {}}
    props = info.liveness(model).properties()
    return {"liveness": {p.name: "not-checked" for p in props}, "liveness_ids": {p.name: p.id for p in props}}


def liveness_json(result: LivenessResult) -> dict[str, Any]:
    """The liveness keys of ``kspec explore --json``."""
    return {
        "liveness": dict(result.verdicts),
        "liveness_ids": dict(result.ids),
        "liveness_witnesses": dict(result.witnesses),
        "liveness_stats": {"fault_states": result.fault_states, "suffix_states": result.suffix_states,
                           "suffix_edges": result.suffix_edges, "escapes": result.escapes,
                           "fair_components": result.fair_components, "seconds": round(result.seconds, 3),
                           "cpu_seconds": round(result.cpu_seconds, 3),
                           "complete": result.complete},
        "liveness_counterexamples": {
            name: {"property": result.ids[name], "name": name, "key": None if cx.key is None else str(cx.key),
                   "faults_stop": cx.faults_stop, "loop_back": loop_back(cx), "bounded": cx.escape,
                   "length": len(cx.stem) + len(cx.loop) - 1, "trace": trace_json(lasso_steps(cx))}
            for name, cx in result.counterexamples.items()},
    }


def print_liveness(result: LivenessResult, suffix: Suffix[Any, Any]) -> None:
    """The human-readable liveness summary, with each lasso drawn (the suffix describes both
    its own states and the fault phase's)."""
    click.echo(f"liveness (weak fairness once faults stop): {result.suffix_states} suffix states from "
               f"{result.fault_states} fault-phase states, {result.fair_components} fair components, "
               f"{result.seconds:.2f}s" + ("" if result.complete else ", stopped early"))
    if result.escapes:
        click.echo(f"  {result.escapes} suffix steps leave the suffix bounds (what follows them is not judged)")
    for name, verdict in result.verdicts.items():
        witness = result.witnesses.get(name)
        extra = "" if witness is None or witness else " (NOT WITNESSED: vacuous at these bounds)"
        click.echo(f"  {verdict:12} {result.ids[name]} ({name}){extra}")
    for name, lasso in result.counterexamples.items():
        steps = lasso_steps(lasso)
        what = "bounded counterexample" if lasso.escape else "lasso"
        key = "" if lasso.key is None else f", stuck: {lasso.key}"
        click.echo(f"VIOLATED {result.ids[name]} ({name}): {what} of {len(steps) - 1} steps, faults stop after "
                   f"step {lasso.faults_stop}{key}")
        click.echo(render_trace(steps, suffix))
        back = loop_back(lasso)
        if back is not None:
            if not lasso.loop:
                note = " (it stutters there: nothing fair is enabled)"
            elif lasso.loop[-1].state != lasso.stem[-1].state:
                note = " (the same state up to renumbering epochs: the cycle repeats forever)"
            else:
                note = ""
            click.echo(f"         ↺ back to step {back}{note}")
