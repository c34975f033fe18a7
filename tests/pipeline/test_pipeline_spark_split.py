"""The Spark tasks' bulk reading of a clean split (``spark_split.clean_lines``) against the
line-by-line reader and ``trace_key``, and the tasks' per-split judging (``spark.index_splits``,
``spark.judge_splits``) against the single-process engine: same line counts, trace ids, line
numbers, summaries; any damaged split falls back to the line-by-line path. No Spark needed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kspec.conformance.pipeline import summary
from kspec.conformance.pipeline.engine import index_split, make_plan
from kspec.conformance.pipeline.fast import judge_lines_fast
from kspec.conformance.pipeline.local import run_local
from kspec.conformance.pipeline.reader import Limits, plan_splits, read_split
from kspec.conformance.pipeline.records import trace_key
from kspec.conformance.pipeline.spark import index_splits, judge_splits
from kspec.conformance.pipeline.spark_split import clean_lines

LINE = '{"trace": "%s", "step": %d, "node": 1, "action": "A", "input": {}, "outputs": []}'


def _lines(rng: random.Random, n: int) -> list[str]:
    out = []
    for i in range(n):
        out.append(LINE % (f"t{rng.randrange(5)}", i) + " " * rng.randrange(30))
        if rng.random() < 0.1:
            out.append(rng.choice(["", "   ", "\t"]))
    return out


DAMAGE = [
    lambda line: line + "\r",  # CRLF
    lambda line: line.replace('"step"', '"st\\u0065p"'),  # an escape
    lambda line: line.replace('"trace": ', '"trace":  '),  # an opening the writer does not write
    lambda line: " " + line,
    lambda line: line + ' "trace"',  # "trace" twice
    lambda line: line.replace("A", "\u00e9"),  # non-ASCII
    lambda line: line[:20],  # truncated
    lambda line: "x" * 300,  # oversized at max_line_bytes=200
]


def _reference(split, limits):  # type: ignore[no-untyped-def]
    lines = list(read_split(split, limits))
    keyed = [(i, raw, trace_key(split.file, i, raw, dmg)) for i, (raw, dmg) in enumerate(lines, start=1)
             if dmg is not None or raw.strip()]
    return len(lines), keyed, all(dmg is None for _, dmg in lines)


@pytest.mark.parametrize("seed", range(6))
def test_clean_split_reads_as_the_line_reader(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    limits = Limits(max_line_bytes=200)
    lines = _lines(rng, 60)
    damaged = seed % 2 == 1
    if damaged:
        at = rng.randrange(len(lines))
        lines[at] = rng.choice(DAMAGE)(lines[at] or LINE % ("t9", 0))
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + ("\n" if seed % 3 else ""), encoding="utf-8")
    fast_splits = 0
    for size in (7, 50, 97, 200, 1000, 1 << 20):
        for split in plan_splits([str(path)], size):
            n, keyed, ok = _reference(split, limits)
            got = clean_lines(split, limits)
            if got is not None:
                fast_splits += 1
                assert got == (n, [(i, raw, key) for i, raw, key in keyed]), (size, split)
                assert ok
            [idx] = index_splits([split], limits)
            assert idx == index_split(split, limits)
    assert fast_splits > 0


def test_tasks_judge_as_the_local_engine(tmp_path: Path) -> None:
    from pipeline_corpus import simulate_into

    simulate_into(tmp_path / "a", None, 3, 6)
    simulate_into(tmp_path / "b", "vote-twice", 4, 6)
    text = (tmp_path / "a" / "events.jsonl").read_text() + (tmp_path / "b" / "events.jsonl").read_text()
    lines = text.splitlines()
    lines[len(lines) // 2] = lines[len(lines) // 2] + "\r"  # one damaged split
    path = tmp_path / "all.jsonl"
    path.write_text("\n".join(lines) + "\n")
    limits = Limits()
    for size in (4096, 50_000, 1 << 24):
        splits = plan_splits([str(path)], size)
        plan = make_plan(splits, index_splits(splits, limits))
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
