"""``kspec targets``: the conformance targets kspec knows by name."""

from __future__ import annotations

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, json_option
from kspec.conformance.targets.registry import list_targets


@cli.command("targets")
@click.option("--protocol", default=None, help="Only the targets of this protocol.")
@json_option
def targets_cmd(protocol: str | None, as_json: bool) -> None:
    """List the named targets: the reference implementations and the mutant catalogue.

    Any target may also be given as python:module:Class or exec:COMMAND.
    """
    rows = list_targets()
    if protocol is not None:
        known = sorted({r["protocol"] for r in rows})
        if protocol not in known:
            raise InputError(f"--protocol {protocol!r}: no targets (protocols with targets: {', '.join(known)})")
        rows = [r for r in rows if r["protocol"] == protocol]
    if as_json:
        emit_json(rows)
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        click.echo(f"{r['name']:<{width}}  {r['protocol']:<6} {r['kind']:<9} {r['doc']}")
    click.echo("also: python:module:Class (a Target in your code), exec:COMMAND (JSON Lines over stdio)")
