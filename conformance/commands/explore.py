"""``kspec explore PROTOCOL [name=value ...]``: bounded breadth-first search of a model."""

from __future__ import annotations

from typing import Any

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import (
    InputError,
    build_model,
    emit_json,
    json_option,
    on_terminal,
    progress_bar,
    protocol_info,
)
from kspec.conformance.liveness_render import liveness_json, print_liveness, run_liveness, unchecked_json
from kspec.conformance.render import render_trace, trace_json
from kspec.model.core.explorer import ExploreResult
from kspec.model.core.parallel import explore_parallel


@cli.command("explore")
@click.argument("protocol")
@click.argument("bounds", nargs=-1)
@click.option("--variant", "--mutant", "variant", default=None,
              help="Explore a named deliberately broken variant of the model.")
@click.option("--max-states", type=click.IntRange(min=1), default=None,
              help="Stop after this many distinct states (the result is then incomplete).")
@click.option("--keep-going", is_flag=True, help="Do not stop at the first violation.")
@click.option("--workers", type=click.IntRange(min=1), default=None,
              help="Processes to explore with (default: every core); the same counts either way (the "
                   "workers dedupe by 64-bit fingerprint: a collision, under N²/2⁶⁵ for N states, "
                   "would merge two states).")
@click.option("--liveness/--no-liveness", default=True,
              help="Also check the liveness properties under fairness once faults stop (default on).")
@json_option
def explore_cmd(protocol: str, bounds: tuple[str, ...], variant: str | None, max_states: int | None,
                keep_going: bool, workers: int | None, liveness: bool, as_json: bool) -> None:
    """Explore every state of PROTOCOL within BOUNDS (name=value, e.g. max_epoch=3).

    Exit 0 when every property holds and every witness is reached, 1 otherwise.
    """
    info = protocol_info(protocol)
    model, _values = build_model(info, bounds, variant)
    with progress_bar(f"explore {protocol}", None, on_terminal() and not as_json) as update:
        result = explore_parallel(
            model,
            workers=workers,
            max_states=max_states,
            stop_on_violation=not keep_going,
            progress=lambda n, t, d: update(info=f"{n} states, {t} transitions, depth {d}"),
        )
    # Like TLC, a run that stopped at a safety violation reports that violation and checks no
    # liveness (that check explores the whole graph again, minutes at the default bounds);
    # --keep-going checks both.
    stopped = bool(result.violations) and not keep_going
    live = run_liveness(info, model, max_states) if liveness and not stopped else None
    if as_json:
        emit_json({**result_json(result, variant),
                   **(liveness_json(live[0]) if live else unchecked_json(info, model))})
    else:
        print_result(result, model, variant)
        if live is not None:
            print_liveness(*live)
        elif liveness and stopped and info.liveness is not None:
            click.echo("liveness not checked: a safety property is violated (--keep-going checks it too)")
    if max_states is not None and not result.complete and not result.violations:
        raise InputError(f"exploration stopped at --max-states {max_states} before it was complete")
    raise click.exceptions.Exit(0 if result.ok and (live is None or live[0].ok) else 1)


def result_json(result: ExploreResult, variant: str | None) -> dict[str, Any]:
    """The ``--json`` document of ``kspec explore``."""
    return {
        "protocol": result.protocol,
        "variant": variant,
        "bounds": result.bounds,
        "distinct_states": result.distinct_states,
        "transitions": result.transitions,
        "max_depth": result.max_depth,
        "seconds": round(result.seconds, 3),
        "states_per_second": round(result.states_per_second, 1),
        "complete": result.complete,
        "violations": [
            {"property": v.property, "name": v.name, "length": len(v.trace) - 1, "trace": trace_json(v.trace)}
            for v in result.violations
        ],
        "witnesses": dict(result.witnesses),
        "witness_ids": dict(result.witness_ids),
    }


def print_result(result: ExploreResult, model: Any, variant: str | None) -> None:
    """The human-readable summary."""
    title = result.protocol + (f" (variant {variant})" if variant else "")
    bounds = " ".join(f"{k}={v}" for k, v in result.bounds.items())
    click.echo(f"explored {title} with {bounds}")
    click.echo(
        f"  {result.distinct_states} distinct states, {result.transitions} transitions, "
        f"depth {result.max_depth}, {result.seconds:.2f}s ({result.states_per_second:.0f} states/s)"
        + ("" if result.complete else ", stopped early")
    )
    click.echo("witnesses:")
    for name, reached in result.witnesses.items():
        mark = "reached" if reached else "NOT REACHED"
        click.echo(f"  {mark:12} {result.witness_ids[name]} ({name})")
    if not result.violations:
        click.echo("every property holds")
    for v in result.violations:
        click.echo(f"VIOLATED {v.property} ({v.name}): shortest trace has {len(v.trace) - 1} steps")
        click.echo(render_trace(v.trace, model))
