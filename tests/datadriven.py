"""Datadriven scenario tests, after etcd's ``datadriven`` package.

A fixture file holds test cases::

    # a comment
    command arg1 arg2=value
    ----
    expected output

Each case is a command line, a ``----`` separator, and the expected output up to a blank
line (or, when the output itself has blank lines, between ``----``/``----`` fences: a
``----`` line followed by another ``----`` line opens a block that ends at ``----``,
``----`` and a blank line). Run pytest with ``--rewrite`` to rewrite the expected outputs
from what the handler returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Case:
    """One test case: the command, its arguments, optional input lines, the expected output."""

    path: Path
    line: int
    command: str
    args: list[str]
    input: list[str] = field(default_factory=list)
    expected: str = ""
    raw: str = ""

    def arg(self, name: str, default: str | None = None) -> str:
        """The value of ``name=value`` among the arguments."""
        for a in self.args:
            if a.startswith(name + "="):
                return a[len(name) + 1:]
        if default is None:
            raise KeyError(f"{self.path}:{self.line}: {self.command} needs {name}=")
        return default

    def has(self, flag: str) -> bool:
        """True when the bare word ``flag`` is among the arguments."""
        return flag in self.args


def parse(path: Path) -> list[tuple[list[str], Case | None]]:
    """Split a fixture file into (preceding comment/blank lines, case) pairs."""
    lines = path.read_text().splitlines()
    out: list[tuple[list[str], Case | None]] = []
    pre: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            pre.append(line)
            i += 1
            continue
        start = i
        head = line.split()
        case = Case(path, i + 1, head[0], head[1:])
        i += 1
        while i < len(lines) and lines[i] != "----":
            case.input.append(lines[i])
            i += 1
        if i >= len(lines):
            raise ValueError(f"{path}:{start + 1}: case {line!r} has no ---- separator")
        i += 1
        body: list[str] = []
        if i < len(lines) and lines[i] == "----":
            i += 1
            while i < len(lines) and not (lines[i] == "----" and i + 1 < len(lines) and lines[i + 1] == "----"):
                body.append(lines[i])
                i += 1
            i += 2
        else:
            while i < len(lines) and lines[i].strip():
                body.append(lines[i])
                i += 1
        case.expected = "\n".join(body)
        out.append((pre, case))
        pre = []
    if pre:
        out.append((pre, None))
    return out


def render(case: Case, actual: str) -> str:
    """The text of ``case`` with ``actual`` as its expected output."""
    head = " ".join([case.command, *case.args])
    text = "\n".join([head, *case.input, "----"])
    actual = actual.rstrip("\n")
    if "\n\n" in actual or (not actual.strip() and actual):
        return text + "\n----\n" + actual + "\n----\n----"
    return text + ("\n" + actual if actual else "")


def run_file(path: Path, handler: Callable[[Case], str], rewrite: bool = False) -> None:
    """Run every case in ``path`` through ``handler``; assert (or rewrite) the outputs."""
    parsed = parse(path)
    failures: list[str] = []
    chunks: list[str] = []
    for pre, case in parsed:
        chunks.extend(pre)
        if case is None:
            continue
        actual = handler(case).rstrip("\n")
        if actual != case.expected.rstrip("\n"):
            failures.append(
                f"{path.name}:{case.line}: {case.command} {' '.join(case.args)}\n"
                f"--- expected\n{case.expected}\n--- actual\n{actual}"
            )
        chunks.append(render(case, actual))
    if rewrite:
        path.write_text("\n".join(chunks) + "\n")
        return
    assert not failures, "\n\n".join(failures)
