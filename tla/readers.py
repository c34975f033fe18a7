"""Readers for what TLC writes: error traces, ``-simulate file=`` traces and ``-dump`` state dumps.

Each state TLC prints is a block of conjunctions, one per variable (``/\\ var = value``; a
spec with one variable gets a bare ``var = value``). A long value wraps over indented
continuation lines. Every reader turns each state into a ``dict`` of variable name to Python
value (see :mod:`kspec.tla.values`) and rejects malformed or truncated text with a
:class:`TLCOutputError` naming the source, the line and the offending text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kspec.tla.values import ValueSyntaxError, parse_value


class TLCOutputError(Exception):
    """TLC output that is malformed or truncated: ``source:line: message: text``."""

    def __init__(self, source: str, line: int, message: str, text: str) -> None:
        shown = text if len(text) <= 80 else text[:77] + "..."
        super().__init__(f"{source}:{line}: {message}: {shown!r}")
        self.source = source
        self.line = line
        self.message = message
        self.text = text


@dataclass(frozen=True, slots=True)
class TraceState:
    """One state of a trace: its number (1-based), TLC's label for it, and the variables."""

    number: int
    label: str
    values: dict[str, Any]

    @property
    def action(self) -> str | None:
        """The name of the action that led here (None for the initial state or no label)."""
        if not self.label or self.label == "Initial predicate":
            return None
        return self.label.split(" line ", 1)[0]


@dataclass(frozen=True, slots=True)
class Trace:
    """A behaviour. A lasso ends in ``back_to`` (the number of the state the last one steps
    back to) or in ``stuttering`` (the last state repeats forever)."""

    states: tuple[TraceState, ...]
    back_to: int | None = None
    stuttering: bool = False

    def __len__(self) -> int:
        return len(self.states)

    def values(self) -> list[dict[str, Any]]:
        """The states as plain dicts of variable to value."""
        return [s.values for s in self.states]


_VAR = re.compile(r"/\\ ([A-Za-z_][A-Za-z0-9_]*) = (.*)$")
_BARE_VAR = re.compile(r"([A-Za-z_][A-Za-z0-9_]*) = (.*)$")
# State numbers of at most 9 digits: a longer one is not TLC's (and int() of thousands of
# digits is refused by Python), so the line does not match and is reported as unexpected.
_STATE_HEADER = re.compile(r"State (\d{1,9}):(?: (.*))?$")
_BACK_TO = re.compile(r"Back to state (\d{1,9})(?::.*)?$")
_SIM_HEADER = re.compile(r"STATE_(\d{1,9}) ==\s*$")
_TRACE_STARTS = (
    "Error: The behavior up to this point is:",
    "Error: The following behavior constitutes a counter-example:",
)


class _Lines:
    """The lines of one text with 1-based line numbers, for error messages."""

    def __init__(self, text: str, source: str, first: int = 0) -> None:
        self.lines = text.splitlines()
        self.source = source
        self.first = first  # the line number (0-based) of the first line in the whole file

    def fail(self, index: int, message: str) -> TLCOutputError:
        text = self.lines[index] if 0 <= index < len(self.lines) else "<end of output>"
        return TLCOutputError(self.source, self.first + min(index, len(self.lines)) + 1, message, text)

    def __len__(self) -> int:
        return len(self.lines)

    def __getitem__(self, i: int) -> str:
        return self.lines[i]


def _read_block(lines: _Lines, i: int, expected: frozenset[str] | None) -> tuple[dict[str, Any], int]:
    """Read the variable conjunctions starting at line ``i``; returns the state and the index
    of the first line after the block (a blank line or a line that is not part of it)."""
    state: dict[str, Any] = {}
    start = i
    n = len(lines)
    while i < n:
        line = lines[i]
        m = _VAR.match(line)
        if m is None and i == start:
            m = _BARE_VAR.match(line)
            if m is not None and m.group(1) in ("State", "Back"):
                m = None
        if m is None:
            break
        name = m.group(1)
        parts = [m.group(2)]
        j = i + 1
        while j < n and lines[j][:1] in (" ", "\t") and lines[j].strip():
            parts.append(lines[j])
            j += 1
        text = "\n".join(parts)
        try:
            value = parse_value(text)
        except ValueSyntaxError as err:
            offset = 0 if err.column is None else text.count("\n", 0, err.column - 1)
            at = min(i + offset, j - 1)
            raise lines.fail(at, f"bad value of {name} ({err.message})") from None
        if name in state:
            raise lines.fail(i, f"variable {name} given twice in one state")
        state[name] = value
        i = j
        if not _VAR.match(lines[start]):
            break  # a bare "var = value" is a one-variable state
    if not state:
        raise lines.fail(start, "expected a state (/\\ var = value)")
    if expected is not None and frozenset(state) != expected:
        missing = sorted(expected - frozenset(state))
        extra = sorted(frozenset(state) - expected)
        what = f"missing {', '.join(missing)}" if missing else f"unexpected {', '.join(extra)}"
        raise lines.fail(start, f"state has other variables than the first state ({what}; truncated?)")
    return state, i


def _skip_blank(lines: _Lines, i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _numbered_block(lines: _Lines, i: int, number: str, count: int, name: str,
                    expected: frozenset[str] | None) -> tuple[dict[str, Any], int]:
    """The variables under the header of state ``number`` at line ``i``, which must be state
    ``count + 1`` (``name`` writes a state number as the format does), and the line after them."""
    if int(number) != count + 1:
        raise lines.fail(i, f"expected {name.format(count + 1)}")
    if i + 1 >= len(lines):
        raise lines.fail(i + 1, f"{name.format(number)} has no variables (truncated?)")
    return _read_block(lines, i + 1, expected)


def read_state_dump(text: str, source: str = "<state dump>") -> list[dict[str, Any]]:
    """The states of a ``-dump`` file (``State N:`` followed by a block), in file order."""
    lines = _Lines(text, source)
    states: list[dict[str, Any]] = []
    expected: frozenset[str] | None = None
    i = _skip_blank(lines, 0)
    while i < len(lines):
        m = _STATE_HEADER.match(lines[i])
        if m is None or m.group(2):
            raise lines.fail(i, "expected 'State N:'")
        state, i = _numbered_block(lines, i, m.group(1), len(states), "state {}", expected)
        expected = frozenset(state)
        states.append(state)
        if i < len(lines) and lines[i].strip():
            raise lines.fail(i, "expected a blank line after a state")
        i = _skip_blank(lines, i)
    return states


def read_dump_file(path: str | Path) -> list[dict[str, Any]]:
    """:func:`read_state_dump` on a file (TLC appends ``.dump`` to the name given to ``-dump``)."""
    p = Path(path)
    return read_state_dump(p.read_text(encoding="utf-8", errors="replace"), str(p))


def iter_dump_file(path: str | Path) -> Iterator[dict[str, Any]]:
    """The states of a ``-dump`` file one at a time, read incrementally: what
    :func:`read_dump_file` returns, in the same order with the same errors, but holding one
    state's lines at a time (a dump of a few hundred thousand states is gigabytes of text)."""
    p = Path(path)
    source = str(p)
    count = 0
    expected: frozenset[str] | None = None
    with p.open(encoding="utf-8", errors="replace", newline=None) as f:
        block: list[str] = []
        start = 0
        for number, raw in enumerate(f):
            line = raw.rstrip("\n")
            if line.strip():
                if not block:
                    start = number
                block.append(line)
                continue
            if block:
                state = _dump_block(block, start, count, expected, source)
                expected = frozenset(state)
                count += 1
                yield state
                block = []
        if block:
            yield _dump_block(block, start, count, expected, source)


def _dump_block(block: list[str], start: int, count: int, expected: frozenset[str] | None,
                source: str) -> dict[str, Any]:
    """One ``State N:`` block of a dump (its lines, the first at file line ``start``)."""
    lines = _Lines("\n".join(block), source, first=start)
    m = _STATE_HEADER.match(lines[0])
    if m is None or m.group(2):
        raise lines.fail(0, "expected 'State N:'")
    state, i = _numbered_block(lines, 0, m.group(1), count, "state {}", expected)
    if i < len(lines):
        raise lines.fail(i, "expected a blank line after a state")
    return state


def _read_trace_at(lines: _Lines, i: int) -> tuple[Trace, int]:
    """Read the ``State N:`` blocks of an error trace starting at line ``i``."""
    states: list[TraceState] = []
    expected: frozenset[str] | None = None
    back_to: int | None = None
    stuttering = False
    i = _skip_blank(lines, i)
    while i < len(lines):
        line = lines[i]
        m = _STATE_HEADER.match(line)
        if m is not None:
            number = int(m.group(1))
            label = (m.group(2) or "").strip()
            if number != len(states) + 1:
                raise lines.fail(i, f"expected state {len(states) + 1}")
            if label == "Stuttering":
                if not states:
                    raise lines.fail(i, "stuttering before any state")
                stuttering = True
                i += 1
                break
            if label.startswith("<") and label.endswith(">"):
                label = label[1:-1]
            if i + 1 >= len(lines):
                raise lines.fail(i + 1, f"state {number} has no variables (truncated?)")
            values, i = _read_block(lines, i + 1, expected)
            expected = frozenset(values)
            states.append(TraceState(number, label, values))
            i = _skip_blank(lines, i)
            continue
        b = _BACK_TO.match(line)
        if b is not None:
            back_to = int(b.group(1))
            if not 1 <= back_to <= len(states):
                raise lines.fail(i, f"loops back to state {back_to} of {len(states)}")
            i += 1
        break
    if not states:
        raise lines.fail(i, "error trace without states (truncated?)")
    return Trace(tuple(states), back_to, stuttering), i


def iter_error_traces(text: str, source: str = "<TLC output>") -> Iterator[Trace]:
    """Every error trace in TLC's text output (several with ``-continue``)."""
    lines = _Lines(text, source)
    i = 0
    while i < len(lines):
        if lines[i].strip() in _TRACE_STARTS:
            trace, i = _read_trace_at(lines, i + 1)
            yield trace
        else:
            i += 1


def read_error_trace(text: str, source: str = "<TLC output>") -> Trace | None:
    """The first error trace in TLC's text output, or None when it has none."""
    return next(iter_error_traces(text, source), None)


def read_simulation_trace(text: str, source: str = "<simulation trace>") -> Trace:
    """A trace file written by ``-simulate file=NAME`` (a module of ``STATE_k ==`` blocks)."""
    lines = _Lines(text, source)
    i = _skip_blank(lines, 0)
    if i >= len(lines) or not (lines[i].startswith("----") and "MODULE" in lines[i]):
        raise lines.fail(i, "expected '---- MODULE ... ----'")
    i += 1
    states: list[TraceState] = []
    expected: frozenset[str] | None = None
    while True:
        i = _skip_blank(lines, i)
        if i >= len(lines):
            raise lines.fail(i, "trace ends without '====' (truncated?)")
        line = lines[i]
        if line.startswith("===="):
            break
        m = _SIM_HEADER.match(line)
        if m is None:
            raise lines.fail(i, "expected 'STATE_N ==' or '===='")
        values, i = _numbered_block(lines, i, m.group(1), len(states), "STATE_{}", expected)
        expected = frozenset(values)
        states.append(TraceState(len(states) + 1, "", values))
    if not states:
        raise lines.fail(i, "simulation trace without states")
    return Trace(tuple(states))


def read_simulation_file(path: str | Path) -> Trace:
    """:func:`read_simulation_trace` on a file."""
    p = Path(path)
    return read_simulation_trace(p.read_text(encoding="utf-8", errors="replace"), str(p))
