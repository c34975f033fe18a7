"""The validation plan both engines run: JSON Lines files cut into splits, a cheap first pass
that counts each split's lines and lists the traces it holds, and a second pass that judges,
in the split's own task, every trace whose records all lie in that split. Only the records of
traces that span splits (a trace may span files, ``spec/trace-format.md``) travel to be
grouped; a task holds one split's raw lines at a time, so memory does not grow with the input.

Pure and picklable: the Spark engine runs these functions in its executors, the local engine
in its one process, on the same splits with the same line numbers.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kspec.conformance.pipeline.fast import collector_paused, decode_event, judge_lines_fast
from kspec.conformance.pipeline.judge import Outcome, RawLine
from kspec.conformance.pipeline.judge import judge_lines as judge_lines  # the oracle, here since engines ran it
from kspec.conformance.pipeline.reader import Limits, Line, Split, has_long_line, owned_bytes, plan_splits, read_split
from kspec.conformance.pipeline.records import _WRITTEN_TRACE_RE, is_orphan, trace_key

SPLIT_BYTES = 16 << 20  # a task's share of a plain file: about 30,000 raft events



@dataclass(frozen=True, slots=True)
class SplitIndex:
    """What the first pass learns of a split: how many lines it owns, which traces it holds."""

    index: int
    lines: int
    traces: frozenset[str]


def index_split(split: Split, limits: Limits) -> SplitIndex:
    """Count the split's lines and collect its trace ids (orphans belong to no trace): in bulk
    when the split is clean (:func:`_index_clean`), else line by line."""
    data = owned_bytes(split, limits)
    if data is not None:
        index = _index_clean(split.index, data, limits)
        if index is not None:
            return index
    return _index_lines(split, limits)


def _index_lines(split: Split, limits: Limits) -> SplitIndex:
    traces: set[str] = set()
    n = 0
    for raw, damage in read_split(split, limits):
        n += 1
        if damage is None and not raw.strip():
            continue
        key = trace_key(split.file, n, raw, damage)
        traces.add(key)
    return SplitIndex(split.index, n, frozenset(k for k in traces if not is_orphan(k)))


# A line after the first that opens as the trace writer writes it (``records._WRITTEN_TRACE_RE``).
_NEXT_OPENING = re.compile(rb'\n\{"trace": ?"([\x20\x21\x23-\x5b\x5d-\x7e]+)"')


def _index_clean(index: int, data: bytes, limits: Limits) -> SplitIndex | None:
    """The first pass over a split's owned bytes at C speed, or None when the split is not
    clean: it is when the bytes are ASCII without a CR or a backslash, no line is oversized,
    every line opens as the writer writes it and '"trace"' occurs once per line. Then every
    line is one ``read_split`` reads undamaged, none is blank, and its ``trace_key`` is the id
    its opening names (``trace_key``'s own shortcut, checked for the block at once)."""
    if not data or not data.isascii() or b"\r" in data or b"\\" in data or \
            has_long_line(data, limits.max_line_bytes):
        return None
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    first = _WRITTEN_TRACE_RE.match(data)
    if first is None or data.count(b'"trace"') != lines:
        return None
    ids = _NEXT_OPENING.findall(data)
    if len(ids) != lines - 1:
        return None
    distinct = set(ids)
    distinct.add(first.group(1))
    return SplitIndex(index, lines, frozenset(i.decode("ascii") for i in distinct))


@dataclass(frozen=True, slots=True)
class Plan:
    """The splits, the first line number of each, and the traces found in more than one."""

    splits: list[Split]
    first_line: dict[int, int]
    spanning: frozenset[str]


def make_plan(splits: list[Split], indexes: Iterable[SplitIndex]) -> Plan:
    by_index = {i.index: i for i in indexes}
    first_line: dict[int, int] = {}
    seen: set[str] = set()
    spanning: set[str] = set()
    line = 1
    file = None
    for s in splits:
        if s.file != file:
            file, line = s.file, 1
        first_line[s.index] = line
        idx = by_index[s.index]
        line += idx.lines
        spanning |= seen & idx.traces
        seen |= idx.traces
    return Plan(splits, first_line, frozenset(spanning))


def judge_split(protocol: str, split: Split, first_line: int, spanning: frozenset[str],
                limits: Limits) -> Iterator[tuple[int, Any]]:
    """``(0, outcome)`` for every trace (and orphan) held whole by the split, ``(1, (key,
    (file, raw line)))`` for each line of a trace that spans splits.

    Each line is decoded as an event once, here (``fast.decode_event``): its trace id is then
    its key (the same as ``trace_key``'s, which the line is keyed by when it does not decode),
    and the lean loop takes the decoded events with the lines. A clean split (ASCII, no CR, no
    oversized line: every line one ``read_split`` gives undamaged) is read and cut at once."""
    groups: dict[str, list[RawLine]] = defaultdict(list)
    decoded: dict[str, list[Any]] = defaultdict(list)
    spans: list[tuple[str, tuple[str, RawLine]]] = []
    data = owned_bytes(split, limits)
    lines: Iterable[Line]
    if data is not None and data.isascii() and b"\r" not in data and not has_long_line(data, limits.max_line_bytes):
        lines = _undamaged(data)
    else:
        lines = read_split(split, limits)
    del data  # (the split's lines hold its bytes now: one copy at a time)
    file = split.file
    # The grouping makes only acyclic containers (tuples of bytes, lists of them): the cycle
    # collector waits meanwhile and they leave its generations at the end (``collector_paused``).
    with collector_paused():
        for n, (raw, damage) in enumerate(lines, start=first_line):
            ev = None
            if damage is None:
                if not raw.startswith(b"{") and not raw.strip():
                    continue
                ev = decode_event(raw)
            key = ev.trace if ev is not None and ev.trace else trace_key(file, n, raw, damage)
            if key in spanning:
                spans.append((key, (file, (n, raw, damage))))
            else:
                groups[key].append((n, raw, damage))
                decoded[key].append(ev)
    for item in spans:
        yield 1, item
    for key, lines_of in groups.items():
        yield 0, judge_lines_fast(protocol, key, ((file, line) for line in lines_of), decoded[key])


def _undamaged(data: bytes) -> Iterator[Line]:
    """The lines of a clean block, undamaged (the generator holds the lines, not the block)."""
    parts = data.split(b"\n")
    if data.endswith(b"\n"):
        parts.pop()  # the last line's terminator, not a line
    return ((part, None) for part in parts)


def run_plan_locally(protocol: str, jsonl: list[str], limits: Limits | None = None,
                     split_bytes: int = SPLIT_BYTES) -> Iterator[Outcome]:
    """Both passes in this process, one split at a time; the spanning traces are judged last."""
    limits = limits or Limits()
    splits = plan_splits(jsonl, split_bytes)
    plan = make_plan(splits, (index_split(s, limits) for s in splits))
    spans: dict[str, list[tuple[str, RawLine]]] = defaultdict(list)
    for s in splits:
        for tag, item in judge_split(protocol, s, plan.first_line[s.index], plan.spanning, limits):
            if tag == 0:
                yield item
            else:
                spans[item[0]].append(item[1])
    for key, lines in spans.items():
        yield judge_lines_fast(protocol, key, lines)
