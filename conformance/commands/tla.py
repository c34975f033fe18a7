"""``kspec tla check PROTOCOL [name=value ...]``: does the TLA+ spec reach the model's states?

TLC explores the protocol's spec with every distinct state dumped, the explorer enumerates the
Python model at the same bounds, and the two sets of states are compared through the mapping
in ``kspec.tla.mappings.<protocol>``. Exit 0 when they are equal, 1 when not, 2 when there is
no mapping or TLC fails.
"""

from __future__ import annotations

from collections.abc import Callable

import click

from kspec.conformance import protocols
from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, build_model, emit_json, json_option, protocol_info
from kspec.tla.check import CheckResult, MappingError, check_agreement
from kspec.tla.liveness import LivenessAgreement
from kspec.tla.mappings import NoMapping, get_mapping
from kspec.tla.readers import TLCOutputError
from kspec.tla.runner import TLCError


def shipped_bounds(protocol: str) -> dict[str, int | bool]:
    """The bounds of the protocol's shipped TLC config, by bound name ({} when it has none)."""
    return get_mapping(protocol, protocols.get(protocol).tla).shipped_bounds()


@cli.group("tla")
def tla_group() -> None:
    """The TLA+ specs: check them against the Python models with TLC."""


@tla_group.command("check")
@click.argument("protocol")
@click.argument("bounds", nargs=-1)
@click.option("--timeout", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds TLC may run before it is stopped (then exit 2).")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, help="TLC worker threads.")
@click.option("--liveness/--no-liveness", default=True, show_default=True,
              help="raft: also compare TLC's liveness verdicts (tla/KRaftLive.tla) with the explorer's.")
@json_option
def check_cmd(protocol: str, bounds: tuple[str, ...], timeout: float, workers: int, liveness: bool,
              as_json: bool) -> None:
    """Compare TLC's distinct states of PROTOCOL's spec with the model's, at BOUNDS (name=value).

    A bound not named is the one of the spec's shipped TLC config (raft: tla/KRaft.cfg). For
    raft, TLC's verdict on each liveness property (tla/KRaftLive.tla) is compared with the
    explorer's at the same bounds, by name.

    Exit 0 when the sets are equal (and the liveness verdicts agree), 1 when not, 2 when there
    is no mapping or TLC fails.
    """
    info = protocol_info(protocol)  # an unknown protocol: a one-line error naming the known ones
    try:
        mapping = get_mapping(protocol, protocols.get(protocol).tla)
    except NoMapping as err:
        raise InputError(str(err)) from None
    # A bound the spec models at one value only (KRaft.tla and Voters.tla have no SYMMETRY) is
    # that value unless given, so the command works with its defaults; given otherwise, the
    # mapping says in one line that the spec does not model it.
    given = {b.partition("=")[0] for b in bounds}
    # A bound not given is the spec's shipped config's (then the fixed ones), so the command
    # with no bounds checks what ``tlc`` on the shipped config checks.
    unset = {**mapping.shipped_bounds(), **mapping.fixed_bounds}
    bounds = (*bounds, *(f"{k}={str(v).lower()}" for k, v in unset.items() if k not in given))
    model, values = build_model(info, bounds)
    live: LivenessAgreement | None = None
    try:
        result = check_agreement(mapping, model, values, timeout=timeout, workers=workers)
        declared = protocols.get(protocol).tla_liveness  # ConformanceProtocol.tla_liveness
        if liveness and declared is not None:
            check_liveness_agreement: Callable[..., LivenessAgreement] = protocols.load(declared)
            live = check_liveness_agreement(values, timeout=timeout, workers=workers)
    except (TLCError, TLCOutputError, MappingError) as err:
        raise InputError(f"tla check {protocol}: {err}") from None
    if as_json:
        emit_json({**result.as_json(), **({"liveness": live.as_json()} if live is not None else {})})
    else:
        print_result(result)
        if live is not None:
            print_liveness(live)
    raise click.exceptions.Exit(0 if result.equal and (live is None or live.agree) else 1)


def print_liveness(live: LivenessAgreement) -> None:
    """The liveness verdicts, side by side."""
    click.echo(f"liveness (tla/KRaftLive.tla): TLC {live.tlc_distinct_states} distinct states, {live.tlc_runs} "
               f"run(s) in {live.tlc_seconds:.2f}s; explorer {live.explorer_states} states in "
               f"{live.explorer_seconds:.2f}s")
    for name, verdict in live.explorer.items():
        tlc = live.tlc[name]
        mark = "agree" if tlc == verdict else "DISAGREE"
        click.echo(f"  {name}: explorer {verdict}, TLC {tlc} ({mark})")
    click.echo("the liveness verdicts agree" if live.agree else "the liveness verdicts differ")


def print_result(result: CheckResult) -> None:
    """The human-readable summary."""
    bounds = " ".join(f"{k}={v}" for k, v in result.bounds.items())
    click.echo(f"tla check {result.protocol} with {bounds}")
    click.echo(f"  TLC:   {result.tlc_distinct_states} distinct states in {result.tlc_seconds:.2f}s")
    click.echo(f"  model: {result.model_distinct_states} distinct states within bounds in {result.model_seconds:.2f}s"
               + (f" (+{result.model_states_outside_bounds} outside bounds, not compared)"
                  if result.model_states_outside_bounds else ""))
    for v in result.tlc_violations:
        click.echo(f"  TLC reports: {v}")
    if result.equal:
        click.echo("the sets of states are equal")
        return
    click.echo(f"the sets differ: {result.only_in_tlc} states only in TLC, {result.only_in_model} only in the model")
    if result.first_difference:
        click.echo(f"  e.g. only in {result.first_difference['only_in']}: {result.first_difference['state']}")
