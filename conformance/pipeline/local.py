"""The single-process engine: the same parsing, grouping and judging as the Spark engine, in
plain Python. The benchmark's baseline and the tests' differential oracle for the Spark run."""

from __future__ import annotations

import gzip
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from kspec.conformance.pipeline.itf_replay import judge_itf
from kspec.conformance.pipeline.judge import Outcome, judge_events
from kspec.conformance.pipeline.records import Record, parse_line


def read_lines(path: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, text) of a JSON Lines file, gzip or not."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:  # type: ignore[operator]
        for n, line in enumerate(f, start=1):
            yield n, line.rstrip("\n")


def run_local(protocol: str, jsonl: list[str], itf: list[str]) -> list[Outcome]:
    """Judge every trace of the inputs in this process."""
    groups: dict[str, list[Record]] = defaultdict(list)
    for path in jsonl:
        for n, text in read_lines(path):
            parsed = parse_line(path, n, text)
            if parsed is not None:
                groups[parsed[0]].append(parsed[1])
    outcomes = [judge_events(protocol, key, recs) for key, recs in groups.items()]
    for path in itf:
        outcomes.append(judge_itf(protocol, path, Path(path).read_text(encoding="utf-8", errors="replace")))
    return outcomes
