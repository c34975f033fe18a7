"""``kspec conform PROTOCOL --target T``: hold a target to the model, in lockstep.

Exit codes: 0 the target conforms; 1 it diverges (a counterexample file is written); 2 an
input error, or verdict ``error`` (the target crashed, hung or answered malformed output: a
one-line reason on stderr, and the partial counterexample is still written).
"""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from kspec.conformance.adapters.base import JSON, Target, TargetWrapper
from kspec.conformance.cli import cli
from kspec.conformance.clikit import (
    InputError,
    check_writable_dir,
    emit_json,
    finite_seconds,
    json_option,
    on_terminal,
    progress_bar,
    protocol_info,
)
from kspec.conformance.deviations import Deviation, DeviationError, accepted_names, catalogue, resolve_accepted
from kspec.conformance.drivers import PROTOCOLS
from kspec.conformance.drivers.runner import (
    COVER_MODES,
    DEFAULT_EXAMPLES,
    DEFAULT_OUT,
    DEFAULT_STEPS,
    run_conformance,
)
from kspec.conformance.harness import DEFAULT_STEP_TIMEOUT, Finding
from kspec.conformance.targets.exec import harness_timeout
from kspec.conformance.targets.registry import UnknownTarget, resolve_target
from kspec.conformance.timelimit import DEFAULT_TIME_LIMIT, TimeLimited


def check_protocol(protocol: str) -> None:
    """An InputError unless ``protocol`` has a conformance driver."""
    protocol_info(protocol)  # an unknown protocol name is reported the same way everywhere
    if protocol not in PROTOCOLS:
        raise InputError(f"no conformance suite for protocol {protocol!r} yet (available: {', '.join(PROTOCOLS)})")


def model_variant_of(protocol: str, names: tuple[str, ...]) -> str:
    """``--model-variant`` values (each may join several names with ``+`` or ``,``) as one
    ``+``-joined variant name; an InputError for a protocol whose driver runs only the reference
    model or an unknown name."""
    parts = [n.strip() for v in names for n in v.replace(",", "+").split("+") if n.strip()]
    if not parts:
        return ""
    if not PROTOCOLS[protocol]().driver.takes_model_variant:
        raise InputError(f"--model-variant: the {protocol} conformance driver runs only the reference model")
    known = protocol_info(protocol).variants
    for name in parts:
        if name not in known:
            raise InputError(f"--model-variant: unknown {protocol} variant {name!r} "
                             f"(known: {', '.join(sorted(known))})")
    return "+".join(parts)


def accepted_of(protocol: str, values: tuple[str, ...]) -> tuple[Deviation, ...]:
    """``--accept`` values as catalogued deviations of ``protocol`` (InputError otherwise)."""
    try:
        found = resolve_accepted(protocol, accepted_names(values))
    except DeviationError as err:
        raise InputError(str(err)) from None
    if found and not PROTOCOLS[protocol]().driver.takes_model_variant:
        raise InputError(f"--accept: the {protocol} conformance driver runs only the reference model")
    return found


def deviation_candidates(protocol: str, accepted: tuple[Deviation, ...]) -> tuple[tuple[str, str], ...]:
    """The catalogued deviations a divergence may be named after: the protocol's, not accepted,
    for a driver that can run their model variants."""
    if not PROTOCOLS[protocol]().driver.takes_model_variant:
        return ()
    taken = {d.name for d in accepted}
    known = protocol_info(protocol).variants
    return tuple((d.name, d.model_variant) for d in catalogue(protocol).values()
                 if d.name not in taken and all(v in known for v in d.model_variant.split("+")))


def settings_of(protocol: str, pairs: tuple[str, ...]) -> dict[str, str]:
    """``--set KEY=VALUE`` values as a configuration, checked against what the protocol's driver
    declares settable (``settable``: key -> allowed values); an InputError otherwise."""
    settable = PROTOCOLS[protocol]().driver.settable
    fixed: dict[str, str] = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise InputError(f"--set: {pair!r} is not KEY=VALUE")
        if key not in settable:
            known = ", ".join(f"{k} ({'|'.join(v)})" for k, v in settable.items()) or "none"
            raise InputError(f"--set: the {protocol} driver has no setting {key!r} (settable: {known})")
        if value not in settable[key]:
            raise InputError(f"--set: {key} takes {'|'.join(settable[key])}, not {value!r}")
        fixed[key] = value
    return fixed


def judged_by(protocol: str, target: Target, fixed: dict[str, str]) -> dict[str, dict[str, str]]:
    """Which value of each settable key held the target, and who chose it: ``--set``, the
    target (its ``model_config``: a ``kafka:`` target names its release's rule set, a python: or
    exec: target may name one) or the driver's default (share: the newest rule set)."""
    driver = PROTOCOLS[protocol]().driver
    out: dict[str, dict[str, str]] = {}
    for key in driver.settable:
        if key in fixed:
            out[key] = {"value": fixed[key], "from": "--set"}
        elif key in target.model_config:
            value = target.model_config[key]
            try:  # a target's own value (model_config, an exec hello's) is input too: one line, exit 2
                driver({key: value})
            except ValueError as err:
                raise InputError(f"--target {target.name}: model_config {key}={value!r}: {err}") from None
            out[key] = {"value": str(value), "from": "target"}
        elif key in driver.setting_defaults:
            out[key] = {"value": driver.setting_defaults[key], "from": "default"}
    return out


class _WithModelConfig(TargetWrapper):
    """``target`` whose runs draw their configurations with ``extra`` added (the
    ``model_config`` mechanism of ``kspec.conformance.drivers``: a model variant, ``--set``
    values); everything else is the target's."""

    def __init__(self, target: Target, extra: dict[str, JSON]) -> None:
        super().__init__(target)
        self.model_config = {**target.model_config, **extra}


def target_for(name: str, protocol: str, timeout: float) -> Target:
    try:
        return resolve_target(name, protocol, timeout)
    except UnknownTarget as err:
        raise InputError(f"--target: {err}") from None


@cli.command("conform")
@click.argument("protocol")
@click.option("--target", "target_name", required=True,
              help="reference, mutant:NAME, python:module:Class or exec:COMMAND (see 'kspec targets').")
@click.option("--examples", type=click.IntRange(min=1), default=DEFAULT_EXAMPLES, show_default=True,
              help="Hypothesis examples (runs from the initial state).")
@click.option("--steps", type=click.IntRange(min=1), default=DEFAULT_STEPS, show_default=True,
              help="Largest number of steps per example.")
@click.option("--seed", type=int, default=0, show_default=True, help="Random seed; same seed, same run.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=DEFAULT_OUT, show_default=True,
              help="Directory for the counterexample file.")
@click.option("--timeout", type=click.FloatRange(min=0.01), default=DEFAULT_STEP_TIMEOUT, show_default=True,
              callback=finite_seconds,
              help="Seconds a target may take for one step before the run ends with verdict error "
                   "(starting a node may take at least 60 s).")
@click.option("--time-limit", type=float, default=DEFAULT_TIME_LIMIT, show_default=True, callback=finite_seconds,
              help="Seconds the whole run may take; then it ends with 'error: time limit' and the partial "
                   "counterexample saved.")
@click.option("--model-variant", "model_variants", multiple=True, metavar="NAME[+NAME]",
              help="Hold the target to a named broken variant of the model instead (voters; see "
                   "'kspec explore PROTOCOL --variant'), e.g. Kafka's own behaviour: "
                   "kafka-trim-at-snapshot-end+kafka-truncate-keeps-next-offset.")
@click.option("--accept", "accepts", multiple=True, metavar="NAME|@FILE",
              help="Accept a catalogued deviation (see 'kspec deviations PROTOCOL'): the target is held to the "
                   "model with that deviation allowed, and the report lists it. Repeatable; @FILE reads names, "
                   "one per line.")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="Fix a configuration key for every run, e.g. mm2: contract=default holds the identity "
                   "policy to the default policy's laws (spec/mm2.md §3).")
@click.option("--minimise/--no-minimise", "minimal", default=True, show_default=True,
              help="After shrinking, leave out single actions while the run still diverges the same way "
                   "(up to 4 replays per step; --no-minimise for a slow target).")
@click.option("--cover", type=click.Choice(COVER_MODES), default="mixed", show_default=True,
              help="transitions: model-guided paths that take the explored transitions and reach the "
                   "witnesses; random: Hypothesis's random walks; mixed: guided paths for up to half of "
                   "--examples, random walks for the rest.")
@click.option("--liveness/--no-liveness", default=True, show_default=True,
              help="raft: when the runs conform, check the liveness properties on timed fault-free suffixes "
                   "(spec/raft.md §Liveness, RAFT-LIVE-TIMED); a target whose instances report no timers is "
                   "not checked. voters (replica level): every accepted AddVoter/RemoveVoter completes on "
                   "fair fault-free suffixes (spec/voters.md §Liveness).")
@json_option
def conform_cmd(protocol: str, target_name: str, examples: int, steps: int, seed: int, out: Path, timeout: float,
                time_limit: float, model_variants: tuple[str, ...], accepts: tuple[str, ...],
                settings: tuple[str, ...], minimal: bool, cover: str, liveness: bool, as_json: bool) -> None:
    """Run PROTOCOL's model and the target side by side; report the first divergence, shrunk."""
    check_protocol(protocol)
    accepted = accepted_of(protocol, accepts)
    variant = model_variant_of(protocol, model_variants)
    variant = "+".join(dict.fromkeys(v for v in (*variant.split("+"), *(d.model_variant for d in accepted)) if v))
    fixed = settings_of(protocol, settings)
    check_writable_dir(out)  # before the run: a counterexample must not be lost at the end
    limited = TimeLimited(target_for(target_name, protocol, timeout), time_limit)
    judged = judged_by(protocol, limited, fixed)
    target: Target = limited
    if variant or fixed:
        target = _WithModelConfig(target, {**({"model_variant": variant} if variant else {}), **fixed})
    with progress_bar(f"conform {protocol} {target_name}", examples, on_terminal() and not as_json) as update:
        result = run_conformance(protocol, target, examples=examples, steps=steps, seed_value=seed, out_dir=out,
                                 step_timeout=harness_timeout(timeout) if target_name.startswith("exec:") else timeout,
                                 progress=lambda k: update(completed=min(k, examples), info=f"{k} runs"),
                                 minimal=minimal, cover=cover, deviations=deviation_candidates(protocol, accepted),
                                 liveness=liveness)
    result.target = target_name
    if result.verdict == "error" and limited.expired:
        # Once the limit passes every replay fails at once, so Hypothesis may end the run with
        # its own complaint (FlakyStrategyDefinition): the JSON names the time limit instead.
        at = result.finding.step if result.finding is not None and result.finding.field != "hypothesis" else 0
        result.finding = Finding("error", at, "target", f"time limit: {time_limit:g} s reached")
    doc = result.to_json()
    doc["target"] = target_name
    doc["time_limit"] = {"seconds": time_limit, "reached": limited.expired}
    level = limited.level  # the driver level a target declares (voters: replica, log)
    if level is not None:
        doc["level"] = str(level)
    if variant:
        doc["model_variant"] = variant
    doc["accepted"] = [d.name for d in accepted]
    doc["unjudged"] = dict(limited.unjudged)
    if fixed:
        doc["settings"] = fixed
    if judged:
        doc["judged_by"] = judged
    if as_json:
        emit_json(doc)
    else:
        click.echo(f"conform {protocol} --target {target_name}"
                   + (f" ({level} level)" if level is not None else "")
                   + (f" --model-variant {variant}" if variant else "") + f": {result.verdict} "
                   f"({result.examples} runs, seed {seed}, {result.seconds:.2f}s)")
        for key, how in judged.items():
            click.echo(f"  judged by {key}={how['value']} ({how['from']}"
                       + (f"; --set {key}=... for another" if how["from"] == "default" else "") + ")")
        for dev in accepted:
            click.echo(f"  accepted deviation: {dev.line()}")
        for name, why in limited.unjudged.items():
            click.echo(f"  held unjudged by the adapter: {name}: {why}")
        if result.finding is not None:
            click.echo(f"  {result.finding.line()}")
            if result.shrinking_stopped is not None:
                click.echo(f"  (shrinking stopped early, the target failed on a replay: "
                           f"{result.shrinking_stopped.line()})")
            if result.deviation is not None:
                dev = catalogue(protocol)[result.deviation]
                click.echo(f"  this is the known deviation {dev.line()}")
                click.echo(f"  (--accept {dev.name} holds the target to the rest of the protocol)")
            click.echo(f"  after {len(result.steps)} steps from {result.config}:")
            for rec in result.steps:
                click.echo(f"    {rec.index:>3}. {rec.action}")
        if result.coverage is not None:
            click.echo(f"  {result.coverage.line()}")
        if result.liveness is not None:
            click.echo(f"  {result.liveness.line()}")
        skipped = result.unsupported + len(result.refused)
        if skipped:
            click.echo(f"  configurations skipped: {result.unsupported} not supported, {len(result.refused)} refused"
                       + "".join(f"\n    {reason}" for reason in sorted(set(result.refused.values()))))
        if result.counterexample:
            click.echo(f"  counterexample: {result.counterexample}")
            click.echo(f"  replay: kspec replay {shlex.quote(str(result.counterexample))} "
                       f"--target {shlex.quote(target_name)}")
    if result.verdict == "error" and limited.expired:
        at = result.finding.step if result.finding else 0
        saved = f" (partial counterexample: {result.counterexample})" if result.counterexample else ""
        click.echo(f"kspec: error: time limit: {time_limit:g} s reached at step {at} after {result.examples} runs"
                   + saved, err=True)
        raise click.exceptions.Exit(2)
    if result.verdict == "error":
        assert result.finding is not None
        click.echo(f"kspec: error: target {target_name} failed at step {result.finding.step}: "
                   f"{result.finding.detail}" + (f" (partial counterexample: {result.counterexample})"
                                                 if result.counterexample else ""), err=True)
        raise click.exceptions.Exit(2)
    raise click.exceptions.Exit(1 if result.verdict == "diverges" else 0)
