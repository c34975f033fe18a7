"""Shared pieces of the CLI verbs: errors, JSON output, progress bars, protocol lookup."""

from __future__ import annotations

import json
import math
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
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
    from kspec.conformance import protocols

    try:
        protocols.get(name)  # every protocol kspec knows, plugins too (conformance/protocols.py)
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


# -- untrusted input (docs/threat-model.md) ----------------------------------------------------

# A file kspec reads is data, never instructions; these bound what reading it may cost.
MAX_INPUT_BYTES = 256 * 1024 * 1024  # one input file, read whole (a counterexample, a trace)
MAX_DEPTH = 64  # nesting of JSON objects and arrays; kspec's own files nest fewer than 12 deep


def read_input_text(path: Path | str, max_bytes: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path``; an InputError naming the file otherwise.

    A FIFO, a device or a directory is refused before it is opened (opening a FIFO would
    block), a file over ``max_bytes`` before it is read, and bytes that are not UTF-8 with
    the offset of the first one."""
    p = Path(path)
    try:
        info = p.stat()
    except (OSError, ValueError) as err:  # ValueError: a NUL in the name
        raise InputError(f"{p}: cannot read ({getattr(err, 'strerror', None) or err})") from None
    if not stat.S_ISREG(info.st_mode):
        kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise InputError(f"{p}: {kind} (kspec reads regular files only)")
    if info.st_size > max_bytes:
        raise InputError(f"{p}: {info.st_size} bytes, more than the {max_bytes} kspec reads")
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO since the stat, open does not wait.
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                raise InputError(f"{p}: not a regular file (kspec reads regular files only)")
            # In chunks: f.read(n) would reserve n bytes up front.
            chunks, size = [], 0
            while size <= max_bytes:
                chunk = f.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            data = b"".join(chunks)
    except OSError as err:
        raise InputError(f"{p}: cannot read ({err.strerror})") from None
    if len(data) > max_bytes:
        raise InputError(f"{p}: more than the {max_bytes} bytes kspec reads")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        raise InputError(f"{p}: not UTF-8 (byte {err.start}, line {line}: {data[err.start:err.start + 1]!r})") from None


def check_depth(doc: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """An InputError when ``doc`` nests objects and arrays deeper than ``limit`` (checked
    without recursion, so a hostile document cannot exhaust the stack here or later)."""
    stack: list[tuple[Any, int]] = [(doc, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict | list):
            if depth > limit:
                raise InputError(f"{where}: nested more than {limit} levels deep")
            items = value.values() if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if isinstance(v, dict | list))


def parse_json_input(text: str, where: str, limit: int = MAX_DEPTH) -> Any:
    """``text`` as JSON, nested at most ``limit`` deep; an InputError naming ``where`` and the place."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{where}: not JSON (line {err.lineno}, column {err.colno}: {err.msg})") from None
    except RecursionError:
        raise InputError(f"{where}: nested more than {limit} levels deep") from None
    except ValueError as err:  # e.g. an integer with more digits than Python converts
        raise InputError(f"{where}: not JSON ({str(err).splitlines()[0][:120]})") from None
    check_depth(doc, where, limit)
    return doc


SAFE_NAME_CHARS = re.compile(r"[^A-Za-z0-9_.-]+")


def safe_name(text: str, limit: int = 40) -> str:
    """``text`` as a piece of a file name: letters, digits, ``_``, ``-`` and single dots only, no
    leading dot, at most ``limit`` characters; never empty, never ``.`` or ``..``."""
    name = SAFE_NAME_CHARS.sub("_", text)
    name = re.sub(r"\.{2,}", "_", name).strip("._-")[:limit].strip("._-")
    return name or "x"


def check_writable_dir(path: Path, option: str = "--out") -> Path:
    """An InputError unless files can be written in directory ``path``, checked before a run
    starts (a run's result must not be lost to an output directory found unwritable at the end).
    A directory that does not exist yet is not created here: its nearest existing ancestor must
    be a writable directory."""
    probe = path
    while not _exists(probe, option):
        if probe.parent == probe:
            break
        probe = probe.parent
    if _exists(probe, option) and not probe.is_dir():
        raise InputError(f"{option} {path}: {probe} is not a directory")
    if probe == path:
        try:
            with tempfile.NamedTemporaryFile(dir=path, prefix=".kspec-write-check-"):
                pass
        except OSError as err:
            raise InputError(f"{option} {path}: not writable ({err.strerror})") from None
    elif not os.access(probe, os.W_OK | os.X_OK):
        raise InputError(f"{option} {path}: cannot create it ({probe} is not writable)")
    return path


def _exists(path: Path, option: str) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError) as err:  # a name too long, a NUL in it
        raise InputError(f"{option} {path}: {getattr(err, 'strerror', None) or err}") from None


def existing_file(path: Path, what: str) -> Path:
    """``path`` when it is an existing regular file, else an InputError naming ``what``."""
    try:
        ok = path.is_file()
    except (OSError, ValueError) as err:
        raise InputError(f"{what} {path}: {getattr(err, 'strerror', None) or err}") from None
    if not ok:
        raise InputError(f"{what} {path}: no such file")
    return path


def finite_seconds(ctx: Any, param: Any, value: float | None) -> float | None:
    """A click callback: a number of seconds that is finite and positive (``nan``, ``inf`` and
    ``-0`` are usage errors)."""
    if value is None:
        return value
    if not math.isfinite(value) or value <= 0:
        raise click.BadParameter(f"{value!r} is not a finite positive number of seconds")
    return value


LOCAL_MASTER = re.compile(r"^local(\[(\*|[0-9]{1,4})(,[0-9]{1,4})?\])?$")


def check_spark_master(master: str, timeout: float = 3.0) -> None:
    """What Spark would only find out after starting a JVM (and printing Java stack traces), as
    one line before it starts: ``local[0]`` (no threads), and for ``spark://HOST:PORT[,...]``
    a master none of whose hosts accepts a TCP connection within ``timeout`` seconds (Spark
    itself retries for a minute). Other masters (``yarn``, ``k8s://``) are left to Spark."""
    import socket

    if master.startswith("local"):
        m = LOCAL_MASTER.match(master)
        if m is None or m.group(2) == "0":
            raise InputError(f"--master {master!r}: expected local, local[*], local[N] or local[N,F] with N >= 1")
        return
    if not master.startswith("spark://"):
        return
    hosts = master[len("spark://"):].split(",")
    reasons = []
    for hostport in hosts:
        host, _, port = hostport.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise InputError(f"--master {master}: {hostport!r} is not HOST:PORT")
        try:
            with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
                return
        except OSError as err:
            reasons.append(f"{hostport}: {err.strerror or err}")
    raise InputError(f"--master {master}: no Spark master answers ({'; '.join(reasons)})")
