"""The Spark tasks' judging (``spark.judge_splits``: several splits per task, one summary per
task, the spanning lines apart) against the single-process engine: the same summary and the
same outcomes, at several split sizes, with a damaged line. No Spark needed."""

from __future__ import annotations

from pathlib import Path

from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.engine import index_split, make_plan
from kspec.conformance.pipeline.fast import judge_lines_fast
from kspec.conformance.pipeline.local import run_local
from kspec.conformance.pipeline.reader import Limits, plan_splits
from kspec.conformance.pipeline.spark import judge_splits


def test_tasks_judge_as_the_local_engine(tmp_path: Path) -> None:
    from pipeline_corpus import damaged_mixed_corpus

    path = damaged_mixed_corpus(tmp_path)  # one damaged split
    limits = Limits()
    for size in (4096, 50_000, 1 << 24):
        splits = plan_splits([str(path)], size)
        plan = make_plan(splits, [index_split(s, limits) for s in splits])
        work = [(s, plan.first_line[s.index]) for s in splits]
        acc = summary.empty()
        spans: dict[str, list] = {}  # type: ignore[type-arg]
        kept = []
        for half in (work[: len(work) // 2], work[len(work) // 2:]):  # two tasks
            for tag, item in judge_splits("raft", half, plan.spanning, limits, keep=True):
                if tag == 0:
                    summary.merge(acc, item)
                elif tag == 1:
                    spans.setdefault(item[0], []).append(item[1])
                else:
                    kept.append(item)
        for key, span in spans.items():
            outcome = judge_lines_fast("raft", key, span)
            summary.add(acc, outcome)
            kept.append(outcome)
        local = run_local("raft", [str(path)], [], limits, size)
        want = summary.empty()
        for outcome in local:
            summary.add(want, outcome)
        assert acc == want, size
        assert sorted(map(repr, kept)) == sorted(map(repr, local)), size
        assert acc["traces"]["quarantined"] == 1 and acc["traces"]["violating"] >= 1
