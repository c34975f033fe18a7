"""``kspec simulate PROTOCOL --seed S --steps N``: seeded random walks through a model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import (
    build_model,
    check_writable_dir,
    emit_json,
    json_option,
    on_terminal,
    progress_bar,
    protocol_info,
)
from kspec.conformance.render import render_trace, trace_json
from kspec.conformance.traces.writer import write_traces
from kspec.model.core.explorer import simulate


@cli.command("simulate")
@click.argument("protocol")
@click.argument("bounds", nargs=-1)
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed; same seed, same traces.")
@click.option("--steps", type=click.IntRange(min=1), default=100, show_default=True, help="Steps per trace.")
@click.option("--traces", type=click.IntRange(min=1), default=1, show_default=True, help="Number of walks.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Write the traces into this directory (JSON Lines events and ITF states).")
@click.option("--variant", "--mutant", "variant", default=None,
              help="Simulate a named deliberately broken variant of the model.")
@click.option("--keep-going", is_flag=True, help="Do not stop at the first violating trace.")
@click.option("--liveness-within", "within", type=click.IntRange(min=0), default=60, show_default=True,
              help="Bounded liveness: after each trace the faults stop and a fair random walk of twice this "
                   "many steps must satisfy each liveness property within this many (0: not checked).")
@json_option
def simulate_cmd(protocol: str, bounds: tuple[str, ...], seed: int, steps: int, traces: int, out: Path | None,
                 variant: str | None, keep_going: bool, within: int, as_json: bool) -> None:
    """Random walks through PROTOCOL within BOUNDS (name=value), checking every property.

    Exit 0 when no property is violated, 1 otherwise.
    """
    info = protocol_info(protocol)
    model, _ = build_model(info, bounds, variant, simulation=True)
    if out is not None:
        check_writable_dir(out)  # before the walks, not after
    with progress_bar(f"simulate {protocol}", traces, on_terminal() and not as_json) as update:
        result = simulate(model, seed=seed, steps=steps, traces=traces,
                          stop_on_violation=not (keep_going or out is not None),
                          progress=lambda k: update(completed=k))
    files: list[str] = []
    if out is not None:
        files = write_traces(out, model, result, variant=variant)
    live, live_bad = _bounded_liveness(info, model, result, seed, within)
    doc: dict[str, Any] = {
        "protocol": protocol,
        "variant": variant,
        "bounds": result.bounds,
        "seed": seed,
        "steps": result.steps,
        "traces": len(result.traces),
        "seconds": round(result.seconds, 3),
        "violations": [
            {"property": v.property, "name": v.name, "length": len(v.trace) - 1, "trace": trace_json(v.trace)}
            for v in result.violations
        ],
        "witnesses": result.witnesses,
        "liveness": live,
        "liveness_within": within,
        "liveness_violations": live_bad,
        "files": files,
    }
    if as_json:
        emit_json(doc)
    else:
        click.echo(f"simulated {protocol}{f' (variant {variant})' if variant else ''}: "
                   f"{len(result.traces)} traces, {result.steps} steps, seed {seed}, {result.seconds:.2f}s")
        reached = [n for n, r in result.witnesses.items() if r]
        click.echo(f"  witnesses reached: {', '.join(reached) or 'none'}")
        if files:
            click.echo(f"  wrote {len(files)} files to {out}")
        if live:
            click.echo(f"  liveness within {within} steps after the last fault: "
                       + ", ".join(f"{n} {v}" for n, v in live.items()))
            for name, bad in live_bad.items():
                click.echo(f"  VIOLATED {bad['property']} ({name}) after trace {bad['trace']}: {bad['detail']}")
                for k, line in enumerate(bad["suffix"][-12:], max(1, len(bad["suffix"]) - 11)):
                    click.echo(f"    +{k}. {line}")
        if not result.violations and not live_bad:
            click.echo("no property violated")
        for v in result.violations[:1]:
            click.echo(f"VIOLATED {v.property} ({v.name}) after {len(v.trace) - 1} steps")
            click.echo(render_trace(v.trace, model))
        if len(result.violations) > 1:
            click.echo(f"  and {len(result.violations) - 1} more violating traces")
    raise click.exceptions.Exit(1 if result.violations or live_bad else 0)


def _bounded_liveness(info: Any, model: Any, result: Any, seed: int,
                      within: int) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    """Bounded liveness after every trace (``kspec.model.core.bounded_liveness``): the
    verdicts by property name, and the first violation of each (trace, detail, suffix)."""
    if not within or info.liveness is None:
        return {}, {}
    import random

    from kspec.model.core.bounded_liveness import bounded_walk, merge

    suffix = info.liveness(model)
    ids = {p.name: p.id for p in suffix.properties()}
    verdicts: dict[str, str] = {p.name: "not-checked" for p in suffix.properties()}
    bad: dict[str, dict[str, Any]] = {}
    rng = random.Random(seed)
    for k, trace in enumerate(result.traces):
        walk = bounded_walk(suffix, trace[-1].state, rng, within, applies=model.bounds)
        merge(verdicts, walk.verdicts)
        for name, why in walk.detail.items():
            if walk.verdicts[name] == "violated" and name not in bad:
                bad[name] = {"property": ids[name], "trace": k, "detail": why,
                             "suffix": [suffix.describe_action(a) for a, _ in walk.steps]}
    return verdicts, bad
