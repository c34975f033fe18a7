"""``kspec prove [ID...]``: discharge the Z3 proof obligations (spec/proofs.md).

Each obligation's status is proved, refuted or unknown (a timeout is unknown, never proved).
Exit 0 when every status equals its expected outcome (a proof with satisfiable premises, a
refutation whose counterexample replays through the Python rules), 1 otherwise, 2 for an
unknown ID or a bad flag.
"""

from __future__ import annotations

import click

from kspec.conformance import protocols
from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, json_option, on_terminal, progress_bar
from kspec.model.proofs import (
    DEFAULT_TIMEOUT_SECONDS,
    Obligation,
    ProofResult,
    UnknownObligation,
    all_obligations,
    check,
    get_obligation,
)


@cli.command("prove")
@click.argument("ids", nargs=-1, metavar="[ID...]")
@click.option("--timeout", "timeout", type=click.FloatRange(min=0.001), default=DEFAULT_TIMEOUT_SECONDS,
              show_default=True, help="Seconds Z3 may spend on each obligation; past it the status is unknown.")
@click.option("--list", "list_only", is_flag=True, help="List the obligations without proving them.")
@json_option
def prove_cmd(ids: tuple[str, ...], timeout: float, list_only: bool, as_json: bool) -> None:
    """Prove the obligations named by ID (all when none is given)."""
    obligations = _select(ids)
    if list_only:
        if as_json:
            emit_json([{"id": o.id, "name": o.name, "expected": o.expected, "bounds": o.bounds,
                        "rules": list(o.rules), "doc": o.doc} for o in obligations])
        else:
            for o in obligations:
                click.echo(f"{o.id:44} expected {o.expected:8} {o.bounds}")
        raise click.exceptions.Exit(0)
    results: list[ProofResult] = []
    with progress_bar("prove", len(obligations), on_terminal() and not as_json) as update:
        for i, obligation in enumerate(obligations):
            update(completed=i, info=obligation.id)
            results.append(check(obligation, timeout))
        update(completed=len(obligations), info="")
    if as_json:
        emit_json([r.to_json() for r in results])
    else:
        for r in results:
            _print_result(r)
        failed = sum(not r.ok for r in results)
        click.echo(f"{len(results)} obligations, {len(results) - failed} as expected, {failed} not")
    raise click.exceptions.Exit(0 if all(r.ok for r in results) else 1)


def _select(ids: tuple[str, ...]) -> list[Obligation]:
    protocols.protocols()  # every declared protocol's obligation modules are registered
    if not ids:
        return list(all_obligations())
    chosen: list[Obligation] = []
    for obligation_id in dict.fromkeys(ids):
        try:
            chosen.append(get_obligation(obligation_id))
        except UnknownObligation as err:
            raise InputError(f"argument ID: {err}") from None
    return chosen


def _print_result(r: ProofResult) -> None:
    mark = "ok  " if r.ok else "FAIL"
    click.echo(f"{mark} {r.id:44} {r.status:8} (expected {r.expected}) {r.seconds:6.2f}s  [{r.bounds}]")
    if r.reason:
        click.echo(f"       {r.reason}")
    if r.status == "refuted" and r.counterexample is not None:
        click.echo(f"       counterexample: {r.counterexample}")
        if r.replay is not None:
            verdict = "confirmed by" if r.replay.confirmed else "NOT confirmed by"
            click.echo(f"       replay {verdict} the Python rules: {r.replay.detail}")
