"""Shared pieces of the CLI verbs: errors, JSON output, progress bars, protocol lookup."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click

from kspec.model.catalog import UnknownProtocol, get_protocol
from kspec.model.core.protocol import BoundsError, Model, ProtocolInfo, parse_bounds


class InputError(Exception):
    """A usage or input error: printed as one line, exit code 2."""


def json_option(fn: Any) -> Any:
    """The ``--json`` flag every verb has."""
    return click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")(fn)


def emit_json(doc: Any) -> None:
    """Print one JSON document on stdout."""
    click.echo(json.dumps(doc, indent=2, sort_keys=False, default=str))


def protocol_info(name: str) -> ProtocolInfo:
    """Look a protocol up, as an input error when unknown."""
    try:
        return get_protocol(name)
    except UnknownProtocol as err:
        raise InputError(str(err)) from None


def build_model(info: ProtocolInfo, bounds: tuple[str, ...] | list[str], variant: str | None = None,
                simulation: bool = False) -> tuple[Model[Any, Any], dict[str, int | bool]]:
    """Parse ``name=value`` bounds and make the model (or a named broken variant of it)."""
    try:
        values = parse_bounds(info, bounds, simulation)
    except BoundsError as err:
        raise InputError(str(err)) from None
    if variant is None:
        return info.make(**values), values
    make = info.variants.get(variant)
    if make is None:
        known = ", ".join(sorted(info.variants)) or "none"
        raise InputError(f"unknown variant {variant!r} for {info.name} (known: {known})")
    return make(**values), values


def on_terminal() -> bool:
    """True when stderr is a terminal (progress bars go there)."""
    return sys.stderr.isatty()


@contextmanager
def progress_bar(description: str, total: int | None, enabled: bool) -> Iterator[Any]:
    """A rich progress bar on a terminal; a no-op callable otherwise."""
    if not enabled:
        yield lambda *args, **kwargs: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task(description, total=total, info="")

        def update(completed: int | None = None, info: str = "") -> None:
            bar.update(task, completed=completed, info=info)

        yield update
