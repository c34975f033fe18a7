"""``kspec replay FILE [--target T]``: feed a counterexample's inputs to a fresh target.

The recorded model side is the expectation; the first divergence is reported with its step
and what differed, and whether it is the recorded one. Exit 0 when the target now conforms
on these inputs, 1 when it diverges, 2 on an input error or a target error.
"""

from __future__ import annotations

from pathlib import Path

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, finite_seconds, json_option
from kspec.conformance.commands.conform import check_protocol, target_for
from kspec.conformance.counterexample import CounterexampleError, read_counterexample
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, replay_steps
from kspec.conformance.targets.exec import harness_timeout
from kspec.conformance.targets.registry import UntrustedTarget, recorded_target


@cli.command("replay")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--target", "target_name", default=None,
              help="Target to replay against (default: the recorded one, only when it is built in: reference, "
                   "mutant:NAME or a cached kafka:VERSION; a recorded exec: or python: target is never started).")
@click.option("--timeout", type=click.FloatRange(min=0.01), default=DEFAULT_STEP_TIMEOUT, show_default=True,
              callback=finite_seconds, help="Seconds a target may take for one step (starting a node: at least 60 s).")
@json_option
def replay_cmd(file: Path, target_name: str | None, timeout: float, as_json: bool) -> None:
    """Replay counterexample FILE against a target, step for step."""
    try:
        meta, steps = read_counterexample(file)
    except CounterexampleError as err:
        raise InputError(str(err)) from None
    protocol = str(meta["protocol"])
    try:
        check_protocol(protocol)
    except InputError as err:
        raise InputError(f"{file}: #meta.protocol: {err}") from None
    if not steps:
        raise InputError(f"{file}: the counterexample has no steps, so there is nothing to replay")
    if target_name is None:
        try:
            name = recorded_target(str(meta["target"]), protocol, f"{file}: #meta.target")
        except UntrustedTarget as err:
            raise InputError(str(err)) from None
    else:
        name = target_name
    spec = PROTOCOLS[protocol]()
    try:
        driver = spec.driver(meta["config"])
    except Exception as err:  # e.g. an unknown level or model_variant, a count the driver refuses
        raise InputError(f"{file}: #meta.config: {type(err).__name__}: {err}") from None
    nodes = set(driver.nodes())
    for rec in steps:
        if rec.input is not None and rec.node not in nodes:
            raise InputError(f"{file}: step {rec.index}: node {rec.node!r} is not in the configuration "
                             f"(nodes: {', '.join(map(str, sorted(nodes, key=str)))})")
        problem = None if rec.input is None else driver.input_error(rec.input)
        if problem is not None:
            raise InputError(f"{file}: step {rec.index}: input.{problem}")
    recorded = meta.get("divergence")
    if recorded is not None and not isinstance(recorded, dict):
        raise InputError(f"{file}: #meta.divergence is not an object")
    # Everything read from the file is checked: only now is a target started.
    target = target_for(name, protocol, timeout)
    try:
        result = replay_steps(driver, target, steps, harness_timeout(timeout) if name.startswith("exec:") else timeout)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        # The model side of a step is read from the file; a step this protocol's driver cannot
        # take is the file's fault (a target's own exceptions are verdict error, not this).
        raise InputError(f"{file}: a recorded step is not a {protocol} step "
                         f"({type(err).__name__}: {str(err)[:120]})") from None
    finally:
        target.close()
    finding = result.finding
    verdict = "conforms" if finding is None else ("error" if finding.kind == "error" else "diverges")
    doc = {"file": str(file), "protocol": protocol, "target": name, "verdict": verdict, "steps": len(result.steps),
           "divergence": finding.to_json() if finding else None, "recorded": recorded,
           "reproduced": bool(finding and finding.same_as(recorded))}
    if as_json:
        emit_json(doc)
    else:
        click.echo(f"replay {file} --target {name}: {verdict} after {len(result.steps)} of {len(steps)} steps")
        if finding is not None:
            click.echo(f"  {finding.line()}")
        if recorded:
            click.echo(f"  recorded: step {recorded.get('step')}: {recorded.get('kind')} {recorded.get('field')} "
                       f"({'reproduced' if doc['reproduced'] else 'NOT reproduced'})")
        if recorded and recorded.get("kind") == "liveness":
            # RAFT-LIVE-TIMED: the steps are lockstep steps; what makes them a violation is the
            # target's timer durations, which only `kspec conform` (its timed suffixes) judges.
            click.echo("  a liveness finding depends on the target's timer durations: replay checks that its "
                       "steps still conform; `kspec conform` judges liveness again")
    if verdict == "error":
        assert finding is not None
        click.echo(f"kspec: error: target {name} failed at step {finding.step}: {finding.detail}", err=True)
        raise click.exceptions.Exit(2)
    raise click.exceptions.Exit(1 if verdict == "diverges" else 0)
