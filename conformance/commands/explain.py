"""``kspec explain FILE [--html OUT]``: a counterexample or trace, step by step."""

from __future__ import annotations

from pathlib import Path

import click
from rich.console import Console

from kspec.conformance.cli import cli
from kspec.conformance.clikit import InputError, emit_json, json_option
from kspec.conformance.explain.load import load_trace
from kspec.conformance.explain.terminal import render_terminal


@cli.command("explain")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--html", "html_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write a self-contained HTML page with a sequence diagram.")
@click.option("--violation", type=click.IntRange(min=0), default=0, show_default=True,
              help="Which violation of a kspec explore/simulate --json document to explain.")
@click.option("--trace", "trace_id", default=None, help="Which trace of a JSON Lines event file to explain.")
@json_option
def explain_cmd(file: Path, html_out: Path | None, violation: int, trace_id: str | None, as_json: bool) -> None:
    """Explain FILE: a counterexample (kspec conform), an ITF trace (kspec simulate --out), the
    JSON of kspec explore/simulate --json, or JSON Lines events.

    Shows what each node did, the state changes per step and the step where the property or
    the lockstep comparison failed. Exit 0 when the trace explains a failure, 0 too for a trace
    that holds; 2 for a file that cannot be read.
    """
    trace = load_trace(file, violation=violation, trace_id=trace_id)
    files: list[str] = []
    if html_out is not None:
        from kspec.conformance.explain.html import write_html

        try:
            files.append(str(write_html(trace, html_out)))
        except OSError as err:
            raise InputError(f"{html_out}: cannot write ({err.strerror})") from None
    if as_json:
        emit_json({**trace.to_json(), "files": files})
        return
    render_terminal(trace, Console(highlight=False, soft_wrap=True))
    for f in files:
        click.echo(f"wrote {f}")
