"""``kspec deviations [PROTOCOL]``: the catalogue of known deviations of Kafka releases."""

from __future__ import annotations

import click

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, json_option, protocol_info
from kspec.conformance.deviations import DeviationError, catalogue


@cli.command("deviations")
@click.argument("protocol", required=False)
@json_option
def deviations_cmd(protocol: str | None, as_json: bool) -> None:
    """List the known deviations (of PROTOCOL, or all): name, spec ID, releases, Kafka issue."""
    if protocol is not None:
        protocol_info(protocol)
    try:
        found = catalogue(protocol)
    except DeviationError as err:
        raise InputError(f"deviation catalogue: {err}") from None
    if as_json:
        emit_json([d.to_json() for d in found.values()])
        return
    if not found:
        click.echo(f"no known deviations{f' for {protocol}' if protocol else ''}")
    for dev in found.values():
        issue = f"  {dev.kafka_issue}" if dev.kafka_issue else ""
        fixed = f"; fixed in {dev.fixed_in}" if dev.fixed_in else ""
        click.echo(f"{dev.name}  [{dev.protocol}] {dev.spec_id}{issue}")
        click.echo(f"    {dev.summary}")
        click.echo(f"    seen on: {', '.join(dev.releases) or '-'}{fixed}; accept with: --accept {dev.name}")
