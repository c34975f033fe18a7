"""The validation plan both engines run: JSON Lines files cut into splits, a cheap first pass
that counts each split's lines and lists the traces it holds, and a second pass that judges,
in the split's own task, every trace whose records all lie in that split. Only the records of
traces that span splits (a trace may span files, ``spec/trace-format.md``) travel to be
grouped; a task holds one split's raw lines at a time, so memory does not grow with the input.

Pure and picklable: the Spark engine runs these functions in its executors, the local engine
in its one process, on the same splits with the same line numbers.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kspec.conformance.pipeline.fast import judge_lines_fast
from kspec.conformance.pipeline.judge import Outcome, RawLine
from kspec.conformance.pipeline.judge import judge_lines as judge_lines  # the oracle, here since engines ran it
from kspec.conformance.pipeline.reader import Limits, Split, plan_splits, read_split
from kspec.conformance.pipeline.records import is_orphan, trace_key

SPLIT_BYTES = 16 << 20  # a task's share of a plain file: about 30,000 raft events



@dataclass(frozen=True, slots=True)
class SplitIndex:
    """What the first pass learns of a split: how many lines it owns, which traces it holds."""

    index: int
    lines: int
    traces: frozenset[str]


def index_split(split: Split, limits: Limits) -> SplitIndex:
    """Count the split's lines and collect its trace ids (orphans belong to no trace)."""
    traces: set[str] = set()
    n = 0
    for raw, damage in read_split(split, limits):
        n += 1
        if damage is None and not raw.strip():
            continue
        key = trace_key(split.file, n, raw, damage)
        traces.add(key)
    return SplitIndex(split.index, n, frozenset(k for k in traces if not is_orphan(k)))


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
    (file, raw line)))`` for each line of a trace that spans splits."""
    groups: dict[str, list[RawLine]] = defaultdict(list)
    for n, (raw, damage) in enumerate(read_split(split, limits), start=first_line):
        if damage is None and not raw.strip():
            continue
        key = trace_key(split.file, n, raw, damage)
        if key in spanning:
            yield 1, (key, (split.file, (n, raw, damage)))
        else:
            groups[key].append((n, raw, damage))
    for key, lines in groups.items():
        yield 0, judge_lines_fast(protocol, key, ((split.file, line) for line in lines))


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
