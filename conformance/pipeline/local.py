"""The single-process engine: the same splits, line numbers and judging as the Spark engine
(``engine``), in plain Python. The benchmark's baseline and the tests' oracle for Spark."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from kspec.conformance.pipeline.engine import SPLIT_BYTES, run_plan_locally
from kspec.conformance.pipeline.itf_replay import judge_itf, split_itf, unreadable_itf
from kspec.conformance.pipeline.judge import Outcome
from kspec.conformance.pipeline.reader import Limits


def iter_local(protocol: str, jsonl: list[str], itf: list[str], limits: Limits | None = None,
               split_bytes: int = SPLIT_BYTES) -> Iterator[Outcome]:
    """Judge every trace of the inputs in this process, one outcome at a time."""
    yield from run_plan_locally(protocol, jsonl, limits, split_bytes)
    itf, oversized = split_itf(itf)
    yield from oversized
    for path in itf:
        try:
            text = Path(path).read_text(encoding="utf-8", errors="replace")
        except OSError as err:  # it went away since split_itf looked
            yield unreadable_itf(path, err)
            continue
        yield judge_itf(protocol, path, text)


def run_local(protocol: str, jsonl: list[str], itf: list[str], limits: Limits | None = None,
              split_bytes: int = SPLIT_BYTES) -> list[Outcome]:
    """Every outcome of :func:`iter_local`, as a list."""
    return list(iter_local(protocol, jsonl, itf, limits, split_bytes))
